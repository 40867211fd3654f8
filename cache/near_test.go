package cache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
)

// invNote is the arrival of an invalidation at a near reader: of the
// watched key, or a flush (nil keys: a lost connection or FLUSHALL).
type invNote struct {
	at    time.Time
	flush bool
}

// nearReader returns a valkey-go cache with the near cache on, in the
// namespace of app, and a channel that receives a note for each
// invalidation of the full key *watch (any key when it is empty) and for
// each flush.
func nearReader(t *testing.T, addrs []string, cluster bool, app string, near cache.NearOptions, watch *atomic.Pointer[string]) (*cache.Cache, <-chan invNote) {
	t.Helper()
	inv := make(chan invNote, 1024)
	near.OnInvalidate = func(keys []string) {
		now := time.Now()
		w := watch.Load()
		if keys == nil || w == nil || slices.Contains(keys, *w) {
			select {
			case inv <- invNote{at: now, flush: keys == nil}:
			default:
			}
		}
	}
	c, err := cache.New(cache.Options{AppID: app, Env: "test", Service: "cache", Addresses: addrs, Cluster: cluster,
		DisableTLS: true, RequestTimeout: 3 * time.Second, Backend: cache.BackendValkeyGo, Near: &near})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, inv
}

func sameNamespace(app string) func(*cache.Options) {
	return func(o *cache.Options) { o.AppID = app }
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

// TestNearCacheInvalidationWins is the cross-process proof of the near
// cache: a writer (a glide client: another process, another library)
// writes or invalidates one key 10,000 times; a reader (valkey-go with the
// near cache) reads it through L1. After each write is acknowledged and
// its invalidation has reached the reader, the reader's next read must
// return the new value (or the miss), never the old one. Concurrent
// readers check the same rule against the last write known delivered
// when their read began: an older value fails, and so does a miss unless
// a write sent before the read returned invalidated. A flush (a lost
// connection) is not taken for a write's invalidation. The invalidation
// delay (acknowledgement to arrival at the reader) is logged as p50/p99,
// and the reader's failure counters with it.
func TestNearCacheInvalidationWins(t *testing.T) {
	ops := 10_000
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			addrs := []string{testenv.ValkeyAddr(t)}
			if mode == "cluster" {
				addrs = testenv.ValkeyClusterAddrs(t)
			}
			app := testenv.UniqueName("near")
			var watch atomic.Pointer[string]
			reader, inv := nearReader(t, addrs, mode == "cluster", app, cache.NearOptions{}, &watch)
			writer := newCache(t, addrs, mode == "cluster", sameNamespace(app))
			const key = "hot:config"
			ctx := context.Background()
			// Warm up: both clients must reach the servers (a cluster's
			// slot map, a server restarted by an earlier test) before the
			// proof starts; until then the cache fails open (a miss).
			warmUntil := time.Now().Add(10 * time.Second)
			for {
				err := writer.Set(ctx, key, "warm", time.Minute)
				if err == nil {
					if v, err := reader.Get(ctx, key); err == nil && v == "warm" {
						break
					}
				}
				if time.Now().After(warmUntil) {
					t.Fatalf("the reader never read the writer's warm-up value: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if _, err := writer.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			for _, err := reader.Get(ctx, key); !errors.Is(err, cache.ErrMiss); _, err = reader.Get(ctx, key) {
				if time.Now().After(warmUntil) {
					t.Fatalf("the reader never saw the warm-up value deleted: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond) // let the warm-up's pushes arrive before the proof drains them
			full, _ := reader.Key(key)
			watch.Store(&full)

			// expect returns what a read must see after op i: the value
			// written by op i, or a miss when op i invalidated.
			expect := func(i int) (string, bool) {
				if i%10 == 0 && i > 0 {
					return "", false
				}
				return strconv.Itoa(i), true
			}
			var floor atomic.Int64 // last op whose invalidation has arrived
			floor.Store(-1)
			var sentOp atomic.Int64 // last op whose write has been sent
			sentOp.Store(-1)
			var (
				wg         sync.WaitGroup
				stop       = make(chan struct{})
				stopOnce   sync.Once
				violations atomic.Int64
				bgReads    atomic.Int64
				// unexpectedMisses counts concurrent reads that missed
				// where a value was due (see below).
				unexpectedMisses atomic.Int64
				// longMisses counts the right misses of reads that
				// spanned three ops or more.
				longMisses atomic.Int64
			)
			// halt stops the concurrent readers; it also runs when a check
			// below fails, so no reader reports after the test has ended.
			halt := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
			defer halt()
			readers{n: 2, wg: &wg, stop: stop, pause: 50 * time.Microsecond, reads: &bgReads, stale: &violations,
				what:  "concurrent read began after op %d was delivered",
				floor: func() int { return int(floor.Load()) }, read: func() (string, error) { return reader.Get(ctx, key) },
				miss: func(f int) {
					// A miss is right only if an op sent between the
					// delivery of op f and the end of the read
					// invalidated. (A cluster run under load once
					// reported a miss here when this allowed only the
					// two ops after f; see the package documentation.)
					last := int(sentOp.Load())
					switch r := f % 10; {
					case r != 0 && f/10 == last/10:
						unexpectedMisses.Add(1)
						t.Errorf("concurrent read began after op %d was delivered and missed; ops up to %d were sent when it returned, none invalidated", f, last)
					case r != 0 && r < 8:
						longMisses.Add(1) // the read spanned 3 or more ops
					}
				}}.start(t)

			flushes := 0
			delays := make([]time.Duration, 0, ops)   // from the acknowledgement (0: the push came first)
			fromSend := make([]time.Duration, 0, ops) // from sending the write
			before, _ := reader.NearStats()
			for i := 0; i < ops; i++ {
				// Fill L1 and read it from there.
				for r := 0; r < 2; r++ {
					v, err := reader.Get(ctx, key)
					if i > 0 {
						want, found := expect(i - 1)
						if found != (err == nil) || v != want {
							t.Fatalf("op %d: read before the write = %q, %v; want %q", i, v, err, want)
						}
					}
				}
				for len(inv) > 0 {
					<-inv
				}
				var err error
				sentOp.Store(int64(i))
				sent := time.Now()
				if i%10 == 0 && i > 0 {
					err = writer.Invalidate(ctx, key)
				} else {
					err = writer.Set(ctx, key, strconv.Itoa(i), time.Minute)
				}
				if err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
				ack := time.Now()
				// Wait for the key's invalidation. A flush (a connection
				// lost) is not it: it drops that connection's copies only,
				// and tells nothing of this write, so it does not move
				// the floor of the concurrent readers.
				wait, flushed := time.After(5*time.Second), false
			recv:
				for {
					select {
					case n := <-inv:
						if n.flush {
							flushes++
							flushed, wait = true, time.After(time.Second)
							continue
						}
						delays = append(delays, max(n.at.Sub(ack), 0))
						fromSend = append(fromSend, n.at.Sub(sent))
						floor.Store(int64(i))
						break recv
					case <-wait:
						if flushed {
							break recv
						}
						t.Fatalf("op %d: no invalidation reached the reader", i)
					}
				}
				v, err := reader.Get(ctx, key)
				want, found := expect(i)
				if found != (err == nil) || v != want {
					t.Fatalf("op %d: read after the acknowledged write and its invalidation = %q, %v; want %q (found=%v)",
						i, v, err, want, found)
				}
			}
			halt()
			after, _ := reader.NearStats()
			if hits := after.Hits - before.Hits; hits < int64(ops) {
				t.Fatalf("only %d near hits in %d ops: L1 was not used", hits, ops)
			}
			if violations.Load() != 0 {
				t.Fatalf("%d stale concurrent reads", violations.Load())
			}
			m := reader.Metrics()
			t.Logf("%s: %d ops, %d concurrent reads (%d unexpected misses, %d right misses of reads spanning 3+ ops), %d flushes during the proof, near stats %+v, reader failures %d (connection %d, timeouts %d, server %d, rejected %d)",
				mode, ops, bgReads.Load(), unexpectedMisses.Load(), longMisses.Load(), flushes, after,
				m.Errors(), m.ConnectionFailures, m.Timeouts, m.ServerErrors, m.Rejected)
			t.Logf("%s: invalidation delay, write acknowledged -> push at the reader (0 when the push came first): p50 %v p99 %v max %v",
				mode, percentile(delays, 0.50), percentile(delays, 0.99), percentile(delays, 1))
			t.Logf("%s: invalidation delay, write sent -> push at the reader: p50 %v p99 %v max %v",
				mode, percentile(fromSend, 0.50), percentile(fromSend, 0.99), percentile(fromSend, 1))
		})
	}
}

// A lost connection (killed by the server, or the server restarted)
// flushes the near cache: a value written while the reader could not hear
// the invalidation is read once the loss is noticed.
func TestNearCacheFlushOnLostConnection(t *testing.T) {
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			addr, stop, start := stoppableRedis(t, mode == "cluster")
			app := testenv.UniqueName("nearlost")
			var watch atomic.Pointer[string]
			reader, _ := nearReader(t, []string{addr}, mode == "cluster", app, cache.NearOptions{}, &watch)
			writer := newCache(t, []string{addr}, mode == "cluster", sameNamespace(app),
				func(o *cache.Options) { o.Backend = cache.BackendValkeyGo })
			ctx := context.Background()
			const key = "k"

			fill := func(want string) cache.NearStats {
				t.Helper()
				deadline := time.Now().Add(15 * time.Second)
				for {
					v, err := reader.Get(ctx, key)
					if err == nil && v == want {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("reader: %q, %v; want %q", v, err, want)
					}
					time.Sleep(20 * time.Millisecond)
				}
				st, _ := reader.NearStats()
				if v, err := reader.Get(ctx, key); err != nil || v != want {
					t.Fatalf("second read %q, %v", v, err)
				}
				if st2, _ := reader.NearStats(); st2.Hits != st.Hits+1 {
					t.Fatalf("second read was not a near hit: %+v then %+v", st, st2)
				}
				return st
			}
			waitFlush := func(before cache.NearStats) {
				t.Helper()
				deadline := time.Now().Add(10 * time.Second)
				for st, _ := reader.NearStats(); st.Flushes == before.Flushes; st, _ = reader.NearStats() {
					if time.Now().After(deadline) {
						t.Fatalf("near cache not flushed after the connection was lost: %+v", st)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			setW := func(v string) {
				t.Helper()
				deadline := time.Now().Add(15 * time.Second)
				for err := writer.Set(ctx, key, v, time.Minute); err != nil; err = writer.Set(ctx, key, v, time.Minute) {
					if time.Now().After(deadline) {
						t.Fatal(err)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}

			// 1. The server kills the reader's connection; the key changes
			// while the reader is away.
			setW("v1")
			st := fill("v1")
			if out := testenv.Inline(addr, "CLIENT KILL TYPE normal"); out == "" || out[0] != ':' {
				t.Fatalf("CLIENT KILL: %q", out)
			}
			waitFlush(st)
			setW("v2")
			fill("v2")

			// 2. The server restarts (and loses its data).
			st, _ = reader.NearStats()
			stop()
			waitFlush(st)
			start()
			setW("v3")
			fill("v3")
		})
	}
}

// The near cache stays within its bounds, in entries and in bytes, and
// reads of evicted keys still answer right.
func TestNearCacheBounds(t *testing.T) {
	addrs := []string{testenv.ValkeyAddr(t)}
	ctx := context.Background()
	value := string(make([]byte, 1024))
	for _, tc := range []struct {
		name string
		near cache.NearOptions
		keys int
	}{
		{"entries", cache.NearOptions{MaxEntries: 50}, 500},
		{"bytes", cache.NearOptions{MaxBytes: 20 << 10}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := testenv.UniqueName("nearbound")
			var watch atomic.Pointer[string]
			reader, _ := nearReader(t, addrs, false, app, tc.near, &watch)
			writer := newCache(t, addrs, false, sameNamespace(app))
			for round := 0; round < 2; round++ {
				for i := 0; i < tc.keys; i++ {
					k := fmt.Sprintf("k:%d", i)
					if round == 0 {
						if err := writer.Set(ctx, k, value+strconv.Itoa(i), time.Minute); err != nil {
							t.Fatal(err)
						}
					}
					v, err := reader.Get(ctx, k)
					if err != nil || v != value+strconv.Itoa(i) {
						t.Fatalf("round %d key %s: %d bytes, %v", round, k, len(v), err)
					}
					st, _ := reader.NearStats()
					if tc.near.MaxEntries > 0 && st.Entries > tc.near.MaxEntries {
						t.Fatalf("%d entries > %d", st.Entries, tc.near.MaxEntries)
					}
					if tc.near.MaxBytes > 0 && st.Bytes > tc.near.MaxBytes {
						t.Fatalf("%d bytes > %d", st.Bytes, tc.near.MaxBytes)
					}
				}
			}
			st, _ := reader.NearStats()
			if st.Evictions == 0 || st.Entries == 0 {
				t.Fatalf("no evictions or no entries: %+v", st)
			}
			t.Logf("%+v", st)
		})
	}
}

func TestNearCacheOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    cache.Options
	}{
		{"glide", cache.Options{Addresses: []string{"127.0.0.1:1"}, Near: &cache.NearOptions{}}},
		{"negative entries", cache.Options{Addresses: []string{"127.0.0.1:1"}, Backend: cache.BackendValkeyGo, Near: &cache.NearOptions{MaxEntries: -1}}},
		{"negative bytes", cache.Options{Addresses: []string{"127.0.0.1:1"}, Backend: cache.BackendValkeyGo, Near: &cache.NearOptions{MaxBytes: -1}}},
		{"negative ttl", cache.Options{Addresses: []string{"127.0.0.1:1"}, Backend: cache.BackendValkeyGo, Near: &cache.NearOptions{TTL: -time.Second}}},
		{"unknown backend", cache.Options{Addresses: []string{"127.0.0.1:1"}, Backend: cache.Backend(7)}},
		{"bad address", cache.Options{Addresses: []string{"nohost"}, Backend: cache.BackendValkeyGo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.AppID, o.Env, o.Service = "app", "test", "svc"
			if _, err := cache.New(o); !errors.Is(err, cache.ErrInvalidOptions) {
				t.Fatalf("New = %v, want ErrInvalidOptions", err)
			}
		})
	}
}

// A process reads its own acknowledged writes at once, without waiting for
// the server's push: its writes drop its own copies when they return.
func TestNearCacheReadYourWrites(t *testing.T) {
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			addrs := []string{testenv.ValkeyAddr(t)}
			if mode == "cluster" {
				addrs = testenv.ValkeyClusterAddrs(t)
			}
			var watch atomic.Pointer[string]
			c, _ := nearReader(t, addrs, mode == "cluster", testenv.UniqueName("nearryw"), cache.NearOptions{}, &watch)
			ctx := context.Background()
			const key = "own"
			for i := 0; i < 2000; i++ {
				for r := 0; r < 2; r++ { // fill L1, then hit it
					if _, err := c.Get(ctx, key); err != nil && !errors.Is(err, cache.ErrMiss) {
						t.Fatal(err)
					}
				}
				want := strconv.Itoa(i)
				switch i % 3 {
				case 0:
					if err := c.Set(ctx, key, want, time.Minute); err != nil {
						t.Fatal(err)
					}
				case 1:
					if _, err := cache.GetOrLoad(ctx, c, key, time.Minute, func(context.Context) (string, error) { return "x", nil }); err != nil {
						t.Fatal(err)
					}
					if err := c.Invalidate(ctx, key); err != nil {
						t.Fatal(err)
					}
					want = ""
				case 2:
					if err := cache.WriteThrough(ctx, c, key, time.Minute, want, func(context.Context) error { return nil }); err != nil {
						t.Fatal(err)
					}
					want = strconv.Quote(want) // JSON of the string
				}
				v, err := c.Get(ctx, key)
				if want == "" && !errors.Is(err, cache.ErrMiss) || want != "" && (err != nil || v != want) {
					t.Fatalf("op %d: own write %q then read %q, %v", i, want, v, err)
				}
			}
			st, _ := c.NearStats()
			if st.Hits == 0 {
				t.Fatalf("no near hits: %+v", st)
			}
		})
	}
}

// warmNear waits until writer's writes reach reader (a cluster's slot
// map, a server restarted by an earlier test), then deletes key.
func warmNear(t *testing.T, reader, writer *cache.Cache, key string) {
	t.Helper()
	ctx := context.Background()
	until := time.Now().Add(10 * time.Second)
	for {
		if err := writer.Set(ctx, key, "warm", time.Minute); err == nil {
			if v, err := reader.Get(ctx, key); err == nil && v == "warm" {
				break
			}
		}
		if time.Now().After(until) {
			t.Fatal("the reader never read the writer's warm-up value")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := writer.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
}

// TestNearCacheSyncedRead is the cross-process proof of GetSynced: a
// writer (a glide client: another process, another library) writes or
// invalidates one key; right after the acknowledgement, without waiting
// for the invalidation to arrive, the reader's GetSynced must return the
// new value (or the miss), never the old copy in L1. Two concurrent
// synced readers check the same rule against the last write acknowledged
// before their read began. Between writes the copy must be served after a
// barrier (a synced hit), so L1 is used.
func TestNearCacheSyncedRead(t *testing.T) {
	const ops = 3000
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			addrs := []string{testenv.ValkeyAddr(t)}
			if mode == "cluster" {
				addrs = testenv.ValkeyClusterAddrs(t)
			}
			app := testenv.UniqueName("nearsync")
			var watch atomic.Pointer[string]
			reader, _ := nearReader(t, addrs, mode == "cluster", app, cache.NearOptions{}, &watch)
			writer := newCache(t, addrs, mode == "cluster", sameNamespace(app))
			const key = "hot:synced"
			ctx := context.Background()
			warmNear(t, reader, writer, key)

			expect := func(i int) (string, bool) {
				if i%10 == 0 {
					return "", false
				}
				return strconv.Itoa(i), true
			}
			var (
				acked      atomic.Int64 // last op acknowledged
				sent       atomic.Int64 // last op sent
				wg         sync.WaitGroup
				stop       = make(chan struct{})
				stopOnce   sync.Once
				violations atomic.Int64
				bgReads    atomic.Int64
			)
			acked.Store(-1)
			sent.Store(-1)
			halt := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
			defer halt()
			readers{n: 2, wg: &wg, stop: stop, reads: &bgReads, stale: &violations,
				what:  "concurrent synced read began after op %d was acknowledged",
				floor: func() int { return int(acked.Load()) }, read: func() (string, error) { return reader.GetSynced(ctx, key) },
				miss: func(f int) {
					// Right only if op f, or an op sent before the
					// read returned, invalidated.
					if last := int(sent.Load()); f%10 != 0 && f/10 == last/10 {
						violations.Add(1)
						t.Errorf("concurrent synced read began after op %d was acknowledged and missed; ops up to %d were sent, none invalidated", f, last)
					}
				}}.start(t)
			before, _ := reader.NearStats()
			for i := 0; i < ops; i++ {
				for r := 0; r < 2; r++ { // fill L1, then hit it
					if _, err := reader.Get(ctx, key); err != nil && !errors.Is(err, cache.ErrMiss) {
						t.Fatal(err)
					}
				}
				if i > 0 {
					want, found := expect(i - 1)
					if v, err := reader.GetSynced(ctx, key); found != (err == nil) || v != want {
						t.Fatalf("op %d: synced read before the write = %q, %v; want %q", i, v, err, want)
					}
				}
				var err error
				sent.Store(int64(i))
				if want, found := expect(i); found {
					err = writer.Set(ctx, key, want, time.Minute)
				} else {
					err = writer.Invalidate(ctx, key)
				}
				if err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
				acked.Store(int64(i))
				v, err := reader.GetSynced(ctx, key)
				want, found := expect(i)
				if found != (err == nil) || v != want {
					t.Fatalf("op %d: synced read right after the acknowledged write = %q, %v; want %q (found=%v)",
						i, v, err, want, found)
				}
			}
			halt()
			after, _ := reader.NearStats()
			m := reader.Metrics()
			t.Logf("%s: %d ops, %d concurrent synced reads, near stats %+v, failures %d", mode, ops, bgReads.Load(), after, m.Errors())
			if violations.Load() != 0 {
				t.Fatalf("%d stale concurrent synced reads", violations.Load())
			}
			if b := after.Barriers - before.Barriers; b < ops/2 {
				t.Fatalf("only %d barriers in %d ops: synced reads did not confirm L1 copies", b, ops)
			}
			if h := after.Hits - before.Hits; h < ops {
				t.Fatalf("only %d near hits in %d ops", h, ops)
			}
		})
	}
}

// Concurrent synced reads of one key share barriers: each read that finds
// a copy either sends a barrier or joins one not yet sent, and under
// contention some join. Without a near cache GetSynced is Get.
func TestNearCacheSyncedReadShares(t *testing.T) {
	addrs := []string{testenv.ValkeyAddr(t)}
	app := testenv.UniqueName("nearshare")
	var watch atomic.Pointer[string]
	reader, _ := nearReader(t, addrs, false, app, cache.NearOptions{}, &watch)
	writer := newCache(t, addrs, false, sameNamespace(app))
	ctx := context.Background()
	const key = "shared"
	if err := writer.Set(ctx, key, "v", time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := writer.GetSynced(ctx, key); err != nil || v != "v" {
		t.Fatalf("glide GetSynced = %q, %v", v, err)
	}
	if _, ok := writer.NearStats(); ok {
		t.Fatal("a glide cache reports near stats")
	}
	if v, err := reader.Get(ctx, key); err != nil || v != "v" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	before, _ := reader.NearStats()
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if v, err := reader.GetSynced(ctx, key); err != nil || v != "v" {
					t.Errorf("GetSynced = %q, %v", v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	after, _ := reader.NearStats()
	barriers, joins := after.Barriers-before.Barriers, after.BarrierJoins-before.BarrierJoins
	hits := after.Hits - before.Hits
	t.Logf("%d synced reads: %d barriers, %d joined, %d hits", goroutines*each, barriers, joins, hits)
	if barriers+joins != goroutines*each || hits != goroutines*each {
		t.Fatalf("barriers %d + joins %d, hits %d; want %d synced hits", barriers, joins, hits, goroutines*each)
	}
	if joins == 0 {
		t.Fatal("no synced read shared a barrier")
	}
}

// GetOrLoad with LoadOptions.Synced reads a near-cache hit after a
// barrier, and a write acknowledged to another client just before the
// call is never hidden by the copy; without it the hit takes no round
// trip.
func TestNearCacheGetOrLoadSynced(t *testing.T) {
	addrs := []string{testenv.ValkeyAddr(t)}
	app := testenv.UniqueName("nearload")
	var watch atomic.Pointer[string]
	reader, _ := nearReader(t, addrs, false, app, cache.NearOptions{}, &watch)
	writer := newCache(t, addrs, false, sameNamespace(app))
	ctx := context.Background()
	const key = "derived"
	warmNear(t, reader, writer, key)
	loads := 0
	load := func(context.Context) (string, error) { loads++; return "loaded", nil }
	synced := func(o *cache.LoadOptions) { o.Synced = true }
	for i := 0; i < 200; i++ {
		want := strconv.Itoa(i)
		if err := cache.WriteThrough(ctx, writer, key, time.Minute, want, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 2; r++ { // the first read may fill L1, the second is a hit
			got, err := cache.GetOrLoad(ctx, reader, key, time.Minute, load, synced)
			if err != nil || got != want {
				t.Fatalf("op %d read %d: GetOrLoad synced = %q, %v; want %q acknowledged before it", i, r, got, err, want)
			}
		}
	}
	if loads != 0 {
		t.Fatalf("the loader ran %d times on cached values", loads)
	}
	before, _ := reader.NearStats()
	if _, err := cache.GetOrLoad(ctx, reader, key, time.Minute, load, synced); err != nil {
		t.Fatal(err)
	}
	mid, _ := reader.NearStats()
	if _, err := cache.GetOrLoad(ctx, reader, key, time.Minute, load); err != nil {
		t.Fatal(err)
	}
	after, _ := reader.NearStats()
	if mid.Barriers-before.Barriers != 1 || mid.Hits-before.Hits != 1 {
		t.Fatalf("synced hit: %d barriers, %d hits; want 1 and 1", mid.Barriers-before.Barriers, mid.Hits-before.Hits)
	}
	if after.Barriers != mid.Barriers || after.Hits-mid.Hits != 1 {
		t.Fatalf("relaxed hit: %d barriers, %d hits; want 0 and 1", after.Barriers-mid.Barriers, after.Hits-mid.Hits)
	}
}

// readers are concurrent readers of one key whose values are op numbers:
// each read must see at least the op floor returned before it began
// (stale counts those that did not), and miss judges a miss with that
// floor. They run until stop is closed; wg waits for them.
type readers struct {
	n     int
	wg    *sync.WaitGroup
	stop  <-chan struct{}
	pause time.Duration // between reads
	reads *atomic.Int64
	stale *atomic.Int64
	what  string // "... began after op %d was ..."
	floor func() int
	read  func() (string, error)
	miss  func(floor int)
}

func (r readers) start(t *testing.T) {
	for g := 0; g < r.n; g++ {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for {
				select {
				case <-r.stop:
					return
				default:
				}
				f := r.floor()
				v, err := r.read()
				r.reads.Add(1)
				switch {
				case f < 0:
				case err == nil:
					if n, _ := strconv.Atoi(v); n < f {
						r.stale.Add(1)
						t.Errorf(r.what+" and saw %q", f, v)
					}
				case errors.Is(err, cache.ErrMiss):
					r.miss(f)
				default:
					t.Errorf("concurrent read (op %d acknowledged or delivered before it): %v", f, err)
				}
				time.Sleep(r.pause)
			}
		}()
	}
}
