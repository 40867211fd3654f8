package feed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/internal/bench/benchent"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/retry"
)

type post = benchent.Post

// event is one acknowledged write or one delivery of its record.
type event struct {
	at      time.Time
	version int64
}

type cachedRead struct {
	start, end time.Time
	item       int
	version    int64
}

// TestCacheHistory is the history check of the cached store with a
// writer that writes the table directly (not through the cached store):
// the only thing that keeps the caches right is the feed, whose handler
// invalidates them through a cachestore.Invalidator. Two cached stores
// (separate caches) serve 8 readers; a private Redis is killed a third
// of the way through and restarted 300 ms later, empty. It checks:
//
//   - fresh once delivered: no read that started after the record of
//     version v was delivered (the handler returned) returns a version
//     older than v;
//   - never back: the cached entry of an item (polled in Redis) never
//     holds an older version than it held before.
//
// It runs on the engine (1,500 writes) and on DynamoDB Local (300);
// TABLEKIT_FEED_FULL=1 runs 10,000 writes on each.
func TestCacheHistory(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		writes := 1_500
		if tg.name == "local" {
			writes = 300
		}
		if os.Getenv("TABLEKIT_FEED_FULL") != "" {
			writes = 10_000
		}
		runCacheHistory(t, tg, writes, 4*writes)
	})
}

func runCacheHistory(t *testing.T, tg target, writes, reads int) {
	const items = 8
	ctx := context.Background()
	name := streamTable(t, tg.db, "feedhist")
	tbl := entity.NewTable(tg.db, name)
	direct := entity.NewStore[post](tbl)
	redis := testenv.StartRedis(t)
	app := testenv.UniqueName("feedhist")
	mkCache := func() *cache.Cache {
		c, err := cache.New(cache.Options{AppID: app, Env: "test", Service: "ent", Addresses: []string{redis.Addr},
			DisableTLS: true, RequestTimeout: 300 * time.Millisecond, LoadTimeout: 30 * time.Second, BreakerCooldown: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	var stores [2]*cachestore.Store[post, *post]
	for i := range stores {
		s, err := cachestore.New(entity.NewStore[post](tbl), mkCache(), func(o *cachestore.Options) {
			o.LoadHook = func(context.Context, entity.Key) { time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond) }
		})
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = s
	}
	var keys [items]entity.Key
	index := map[string]int{}
	for i := range keys {
		p := post{ID: fmt.Sprintf("item-%d", i), CategoryID: "c1", AuthorID: "u1", Title: "t", Contents: "body"}
		if err := direct.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		keys[i], _ = p.PrimaryKey()
		index[p.ID] = i
	}

	// the feed: invalidate, then note the delivery
	var mu sync.Mutex
	var acks, delivered [items][]event
	inv := cachestore.NewInvalidator(mkCache(), tbl, nil)
	var invFailed atomic.Int64
	handler := func(ctx context.Context, b feed.Batch) error {
		ims := make([]cachestore.Image, len(b.Records))
		for i, r := range b.Records {
			ims[i] = cachestore.Image{Keys: r.Keys, Old: r.Old, New: r.New}
		}
		if err := inv.Invalidate(ctx, ims...); err != nil {
			invFailed.Add(1)
			return err
		}
		now := time.Now()
		mu.Lock()
		for _, r := range b.Records {
			c, ok := feed.As[post](&r)
			if ok && c.New != nil {
				i := index[c.New.ID]
				delivered[i] = append(delivered[i], event{now, c.New.Version})
			}
		}
		mu.Unlock()
		return nil
	}
	c, err := feed.New(tg.streams, name, handler, func(o *feed.Options) {
		o.Leases = leaseTable(t, tg.db)
		fast(o)
		o.Decoders = []feed.Decoder{feed.Entity[post]()}
		o.Retry = retry.Constant(20 * time.Millisecond)
		// an invalidation is never given up: retried until Redis answers
		o.DeadLetter = func(ctx context.Context, r feed.Record, err error) error { return err }
	})
	if err != nil {
		t.Fatal(err)
	}
	fctx, stopFeed := context.WithCancel(ctx)
	fdone := make(chan error)
	go func() { fdone <- c.Run(fctx) }()

	var wg sync.WaitGroup
	var stop atomic.Bool
	var restartAt atomic.Int64
	var monStop atomic.Bool
	wg.Add(1)
	go func() { // the writer: the table directly, version by version
		defer wg.Done()
		defer stop.Store(true)
		versions := [items]int64{1, 1, 1, 1, 1, 1, 1, 1}
		for n := 0; n < writes; n++ {
			if n == writes/3 {
				redis.Stop()
				time.AfterFunc(300*time.Millisecond, func() { redis.Start(); restartAt.Store(time.Now().UnixNano()) })
			}
			k := rand.IntN(items)
			v, err := direct.Update(ctx, keys[k], entity.Changes[post]{entity.Add(benchent.PostViews, int64(1))}, entity.IfVersion(versions[k]))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			acks[k] = append(acks[k], event{time.Now(), v.Version})
			mu.Unlock()
			versions[k] = v.Version
			time.Sleep(500 * time.Microsecond)
		}
	}()
	// the monitor: the versions each cached entry holds, in time
	mon := mkCache()
	var back, polls, backNearRestart int
	monDone := make(chan struct{})
	go func() {
		defer close(monDone)
		var last [items]int64
		for !monStop.Load() {
			for i := range keys {
				v, err := mon.Get(ctx, stores[0].CacheKey(keys[i]))
				if err != nil || len(v) < 2 || v[0] != 'L' {
					continue
				}
				bar := strings.IndexByte(v, '|')
				ver, err := strconv.ParseInt(v[1:max(bar, 1)], 10, 64)
				if err != nil {
					continue
				}
				polls++
				if ver < last[i] {
					back++
					if r := restartAt.Load(); r != 0 && time.Since(time.Unix(0, r)) < 2*time.Second {
						backNearRestart++
					}
					if back <= 5 {
						t.Logf("item %d: cached entry went from version %d back to %d", i, last[i], ver)
					}
				}
				last[i] = ver
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	var all []cachedRead
	var rmu sync.Mutex
	var readErrs atomic.Int64
	var readsDone atomic.Int64
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			s := stores[r%2]
			var mine []cachedRead
			// reads: at least reads in all, more while the writer runs,
			// never more than 4×reads (a slow server must not make the
			// run longer than its writes)
			for n := readsDone.Add(1); n <= int64(reads) || (!stop.Load() && n <= int64(4*reads)); n = readsDone.Add(1) {
				k := rand.IntN(items)
				start := time.Now()
				p, err := s.Get(ctx, keys[k])
				if err != nil {
					// a table read that timed out on a loaded server returns
					// no state: nothing to check
					readErrs.Add(1)
					continue
				}
				mine = append(mine, cachedRead{start, time.Now(), k, p.Version})
				time.Sleep(500 * time.Microsecond) // leave the machine to the writer and the feed
			}
			rmu.Lock()
			all = append(all, mine...)
			rmu.Unlock()
		}(r)
	}
	wg.Wait()
	monStop.Store(true)
	<-monDone
	// wait until the feed delivered every acknowledged write
	waitFor(t, 3*time.Minute, "the feed to deliver every write", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for i := range acks {
			if len(acks[i]) > 0 && (len(delivered[i]) == 0 || slices.MaxFunc(delivered[i], func(a, b event) int { return int(a.version - b.version) }).version < acks[i][len(acks[i])-1].version) {
				return false
			}
		}
		return true
	})
	stopFeed()
	<-fdone

	// checks
	var staleAfter, staleBefore int
	var lags []time.Duration
	for i := range items {
		ack := map[int64]time.Time{}
		for _, a := range acks[i] {
			ack[a.version] = a.at
		}
		first := map[int64]time.Time{}
		for _, d := range delivered[i] {
			if t0, ok := first[d.version]; !ok || d.at.Before(t0) {
				first[d.version] = d.at
			}
		}
		var dels []event
		for v, at := range first {
			dels = append(dels, event{at, v})
			if a, ok := ack[v]; ok {
				lags = append(lags, max(at.Sub(a), 0))
			}
		}
		sort.Slice(dels, func(a, b int) bool { return dels[a].at.Before(dels[b].at) })
		var ackList = acks[i]
		sort.Slice(ackList, func(a, b int) bool { return ackList[a].at.Before(ackList[b].at) })
		var rs []cachedRead
		for _, r := range all {
			if r.item == i {
				rs = append(rs, r)
			}
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a].start.Before(rs[b].start) })
		var floorDel, floorAck int64
		di, ai := 0, 0
		for _, r := range rs {
			for ; di < len(dels) && dels[di].at.Before(r.start); di++ {
				floorDel = max(floorDel, dels[di].version)
			}
			for ; ai < len(ackList) && ackList[ai].at.Before(r.start); ai++ {
				floorAck = max(floorAck, ackList[ai].version)
			}
			if r.version < floorDel {
				staleAfter++
				if staleAfter <= 5 {
					t.Errorf("item %d: read at %v returned version %d after the record of version %d was delivered",
						i, r.start.Format(time.StampMicro), r.version, floorDel)
				}
			} else if r.version < floorAck {
				staleBefore++
			}
		}
	}
	slices.Sort(lags)
	pct := func(p float64) time.Duration {
		if len(lags) == 0 {
			return 0
		}
		return lags[min(int(p*float64(len(lags))), len(lags)-1)]
	}
	var written int
	for i := range acks {
		written += len(acks[i])
	}
	m := c.Metrics()
	var handled, retried int64
	for _, s := range m {
		handled += s.Handled
		retried += s.Retried
	}
	t.Logf("operations %d (writes %d, reads %d), reads checked %d, violations %d (stale after delivery %d, cached entry went back %d of %d polls, %d of them within 2 s of the Redis restart); stale reads before delivery (allowed) %d, reads that failed %d",
		written+len(all), written, len(all), len(all), staleAfter+back, staleAfter, back, polls, backNearRestart, staleBefore, readErrs.Load())
	if back > 0 {
		t.Errorf("the cached entry went back %d times", back)
	}
	t.Logf("lag write ack -> invalidation done: p50 %v, p90 %v, p99 %v, max %v (%d records); feed handled %d, retried %d, failed invalidations %d",
		pct(0.5), pct(0.9), pct(0.99), pct(1), len(lags), handled, retried, invFailed.Load())
	if len(all) < reads/2 || written != writes {
		t.Fatalf("too little history: %d reads, %d writes", len(all), written)
	}
}
