package cachestore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

// The history check: two cached stores (two "processes": separate caches,
// connections and in-process state) on one table and one namespace, 4
// writers and 8 readers, 10,000 operations, loads delayed at random. Every
// acknowledged write (Update returned nil) and every read is recorded
// with its times; no read that starts after a write's acknowledgement may
// return an older version of the item.
const (
	histItems   = 8
	histWriters = 4
	histReaders = 8
	histOps     = 10_000
	histWrites  = 2_500 // of histOps; the rest are reads
)

type ack struct {
	at      time.Time
	version int64
}

type read struct {
	start   time.Time
	key     int
	version int64 // 0: not found
}

type history struct {
	mu    sync.Mutex
	acks  [histItems][]ack
	reads []read
	ops   atomic.Int64 // writes taken
	rops  atomic.Int64 // reads taken
	stale atomic.Int64 // writes answered with cache.ErrStale (not acknowledged)
}

// check returns the number of reads checked and the violations.
func (h *history) check() (checked int, violations []string) {
	for k := range h.acks {
		sort.Slice(h.acks[k], func(i, j int) bool { return h.acks[k][i].at.Before(h.acks[k][j].at) })
	}
	for _, r := range h.reads {
		acks := h.acks[r.key]
		// the highest version acknowledged before the read started
		i := sort.Search(len(acks), func(i int) bool { return !acks[i].at.Before(r.start) })
		var floor int64
		for _, a := range acks[:i] {
			floor = max(floor, a.version)
		}
		checked++
		if r.version < floor {
			violations = append(violations, fmt.Sprintf("item %d: read at %v returned version %d, version %d was acknowledged before",
				r.key, r.start.Format(time.StampMicro), r.version, floor))
		}
	}
	return checked, violations
}

// histConfig varies runHistory: the caches' options (backend, near
// cache), the stores' options, and whether violations fail the test
// (false: they are only counted, for a mode that does not promise the
// guarantee).
type histConfig struct {
	cache   func(*cache.Options)
	store   func(*cachestore.Options)
	relaxed bool
}

// nearHist puts both stores on valkey-go with a near cache.
var nearHist = histConfig{cache: func(o *cache.Options) {
	o.Backend = cache.BackendValkeyGo
	o.Near = &cache.NearOptions{}
}}

func runHistory(t *testing.T, addrs []string, cluster bool, fault func(stop bool), hc histConfig) {
	tbl := newTable(t)
	ctx := context.Background()
	app := testenv.UniqueName("hist")
	delay := func(o *cachestore.Options) {
		o.LoadHook = func(context.Context, entity.Key) {
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
		}
	}
	mk := func() *cachestore.Store[Post, *Post] {
		c := newCache(t, app, addrs, cluster, func(o *cache.Options) {
			o.RequestTimeout = 500 * time.Millisecond
			o.BreakerCooldown = 50 * time.Millisecond
			if hc.cache != nil {
				hc.cache(o)
			}
		})
		return newStore(t, tbl, c, delay, func(o *cachestore.Options) {
			if hc.store != nil {
				hc.store(o)
			}
		})
	}
	stores := [2]*cachestore.Store[Post, *Post]{mk(), mk()}
	var keys [histItems]entity.Key
	for i := range keys {
		p := post(fmt.Sprintf("item-%d", i))
		if err := stores[0].Entity().Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		keys[i] = key(t, p)
	}
	h := &history{}
	var wg sync.WaitGroup
	errs := make(chan error, histWriters+histReaders)
	faultAt := int64(histWrites / 3)
	var faulted atomic.Bool
	for w := 0; w < histWriters; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := stores[w%2]
			versions := [histItems]int64{}
			for i := range versions {
				versions[i] = 1
			}
			for h.ops.Add(1) <= histWrites {
				if fault != nil && h.ops.Load() >= faultAt && faulted.CompareAndSwap(false, true) {
					fault(true)
					go func() { time.Sleep(300 * time.Millisecond); fault(false) }()
				}
				k := rand.IntN(histItems)
				v, err := s.Update(ctx, keys[k], entity.Changes[Post]{entity.Add(postViews, int64(1))}, entity.IfVersion(versions[k]))
				var vc *entity.VersionConflictError
				switch {
				case err == nil:
					h.mu.Lock()
					h.acks[k] = append(h.acks[k], ack{at: time.Now(), version: v.Version})
					h.mu.Unlock()
					versions[k] = v.Version
				case errors.As(err, &vc):
					versions[k] = vc.Actual
				case errors.Is(err, cache.ErrStale):
					h.stale.Add(1)
					versions[k] = v.Version
				default:
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		}(w)
	}
	for r := 0; r < histReaders; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			s := stores[r%2]
			var mine []read
			for h.rops.Add(1) <= histOps-histWrites {
				k := rand.IntN(histItems)
				start := time.Now()
				p, err := s.Get(ctx, keys[k])
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				mine = append(mine, read{start: start, key: k, version: p.Version})
			}
			h.mu.Lock()
			h.reads = append(h.reads, mine...)
			h.mu.Unlock()
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checked, violations := h.check()
	var acked int
	for _, a := range h.acks {
		acked += len(a)
	}
	t.Logf("operations %d, reads checked %d, violations %d (writes acknowledged %d, answered ErrStale %d)",
		histOps, checked, len(violations), acked, h.stale.Load())
	for i, s := range stores {
		if st, ok := s.Cache().NearStats(); ok {
			t.Logf("store %d: near cache %+v, cache failures %d", i, st, s.Cache().Metrics().Errors())
		}
	}
	for i, v := range violations {
		if i == 10 {
			break
		}
		if hc.relaxed {
			t.Log(v)
		} else {
			t.Error(v)
		}
	}
	if checked < histOps/2 || acked == 0 {
		t.Fatalf("too little history: %d reads, %d acknowledged writes", checked, acked)
	}
}

func TestHistoryCheck(t *testing.T) {
	eachMode(t, func(t *testing.T, addrs []string, cluster bool) {
		runHistory(t, addrs, cluster, nil, histConfig{})
	})
}

// TestHistoryCheckNear is the history check with both stores on valkey-go
// with a near cache, reading synced (the default): the guarantee holds
// unchanged.
func TestHistoryCheckNear(t *testing.T) {
	eachMode(t, func(t *testing.T, addrs []string, cluster bool) {
		runHistory(t, addrs, cluster, nil, nearHist)
	})
}

// TestHistoryCheckRedisRestart kills the private Redis (standalone, then
// a one-node cluster) a third of the way through and restarts it 300 ms
// later, empty.
func TestHistoryCheckRedisRestart(t *testing.T) {
	t.Run("standalone", func(t *testing.T) {
		r := testenv.StartRedis(t)
		runHistory(t, []string{r.Addr}, false, restarter(r.Stop, r.Start), histConfig{})
	})
	t.Run("cluster", func(t *testing.T) {
		r := testenv.StartRedisCluster(t)
		runHistory(t, []string{r.Addr}, true, restarter(r.Stop, r.Start), histConfig{})
	})
}

// restarter is the fault hook of runHistory for a private server: it
// stops or starts the server, one call at a time.
func restarter(stop, start func()) func(stop bool) {
	var mu sync.Mutex
	return func(s bool) {
		mu.Lock()
		defer mu.Unlock()
		if s {
			stop()
		} else {
			start()
		}
	}
}
