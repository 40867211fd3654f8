package cache_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/glidex"
	"github.com/tablekit/tablekit/internal/testenv"
)

// backend is one client library (and near cache setting) under test.
type backend struct {
	name string
	opt  func(*cache.Options)
}

// backends are the client libraries every integration test runs on:
// glide, valkey-go, and valkey-go with the near cache on, so that every
// cache guarantee is also checked with reads served in process.
var backends = []backend{
	{"glide", func(o *cache.Options) { o.Backend = cache.BackendGlide }},
	{"valkeygo", func(o *cache.Options) { o.Backend = cache.BackendValkeyGo }},
	{"valkeygo-near", func(o *cache.Options) { o.Backend, o.Near = cache.BackendValkeyGo, &cache.NearOptions{} }},
}

// eachMode runs f as a subtest on each backend against the standalone
// server and against the cluster, each with its own namespace.
func eachMode(t *testing.T, f func(t *testing.T, c *cache.Cache)) {
	t.Helper()
	for _, be := range backends {
		for _, mode := range []string{"standalone", "cluster"} {
			t.Run(be.name+"/"+mode, func(t *testing.T) {
				var addrs []string
				if mode == "cluster" {
					addrs = testenv.ValkeyClusterAddrs(t)
				} else {
					addrs = []string{testenv.ValkeyAddr(t)}
				}
				c := newCache(t, addrs, mode == "cluster", be.opt)
				f(t, c)
			})
		}
	}
}

func newCache(t *testing.T, addrs []string, cluster bool, optFns ...func(*cache.Options)) *cache.Cache {
	t.Helper()
	o := cache.Options{
		AppID: testenv.UniqueName("tk"), Env: "test", Service: "cache",
		Addresses: addrs, Cluster: cluster, DisableTLS: true, RequestTimeout: 3 * time.Second,
	}
	c, err := cache.New(o, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestTypedOps(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		if _, err := c.Get(ctx, "user:profile:1"); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("Get missing: %v, want ErrMiss", err)
		}
		if err := c.Set(ctx, "user:profile:1", "v1", time.Minute); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, "user:profile:1"); err != nil || v != "v1" {
			t.Fatalf("Get = %q, %v", v, err)
		}
		if ttl, err := c.TTL(ctx, "user:profile:1"); err != nil || ttl <= 50*time.Second || ttl > time.Minute {
			t.Fatalf("TTL = %v, %v", ttl, err)
		}
		if err := c.Set(ctx, "config:app:x", "forever", 0); err != nil {
			t.Fatal(err)
		}
		if ttl, err := c.TTL(ctx, "config:app:x"); err != nil || ttl != cache.NoExpiry {
			t.Fatalf("TTL no expiry = %v, %v", ttl, err)
		}
		if err := c.Expire(ctx, "config:app:x", time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := c.Expire(ctx, "nope", time.Hour); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("Expire missing: %v", err)
		}
		if _, err := c.TTL(ctx, "nope"); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("TTL missing: %v", err)
		}
		if n, err := c.Delete(ctx, "user:profile:1", "config:app:x", "nope"); err != nil || n != 2 {
			t.Fatalf("Delete = %d, %v", n, err)
		}

		// Hashes.
		if _, err := c.HGetAll(ctx, "user:settings:1"); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("HGetAll missing: %v", err)
		}
		want := map[string]string{"theme": "dark", "language": "ko", "notifications": "true"}
		if err := c.HSetAll(ctx, "user:settings:1", want, time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := c.HGetAll(ctx, "user:settings:1")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("HGetAll (-want +got):\n%s", d)
		}
		if err := c.HSet(ctx, "user:settings:1", "theme", "light"); err != nil {
			t.Fatal(err)
		}
		if v, err := c.HGet(ctx, "user:settings:1", "theme"); err != nil || v != "light" {
			t.Fatalf("HGet = %q, %v", v, err)
		}
		if _, err := c.HGet(ctx, "user:settings:1", "missing"); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("HGet missing field: %v", err)
		}
		if ttl, _ := c.TTL(ctx, "user:settings:1"); ttl <= 0 {
			t.Fatalf("HSetAll ttl = %v", ttl)
		}

		// Sorted sets (rankings).
		for m, s := range map[string]float64{"user:1": 95.5, "user:2": 80, "user:3": 99} {
			if err := c.ZAdd(ctx, "leaderboard:daily", m, s); err != nil {
				t.Fatal(err)
			}
		}
		if s, err := c.ZScore(ctx, "leaderboard:daily", "user:1"); err != nil || s != 95.5 {
			t.Fatalf("ZScore = %v, %v", s, err)
		}
		if _, err := c.ZScore(ctx, "leaderboard:daily", "user:9"); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("ZScore missing: %v", err)
		}
		top, err := c.ZRangeByRank(ctx, "leaderboard:daily", 0, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]cache.Member{{"user:3", 99}, {"user:1", 95.5}}, top); d != "" {
			t.Fatalf("ZRangeByRank (-want +got):\n%s", d)
		}
		mid, err := c.ZRangeByScore(ctx, "leaderboard:daily", 80, 96, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]cache.Member{{"user:2", 80}, {"user:1", 95.5}}, mid); d != "" {
			t.Fatalf("ZRangeByScore (-want +got):\n%s", d)
		}
		desc, err := c.ZRangeByScore(ctx, "leaderboard:daily", 80, 96, true)
		if err != nil || len(desc) != 2 || desc[0].Member != "user:1" {
			t.Fatalf("ZRangeByScore reverse = %v, %v", desc, err)
		}
		if r, err := c.ZRank(ctx, "leaderboard:daily", "user:3", true); err != nil || r != 0 {
			t.Fatalf("ZRank rev = %d, %v", r, err)
		}
		if r, err := c.ZRank(ctx, "leaderboard:daily", "user:3", false); err != nil || r != 2 {
			t.Fatalf("ZRank = %d, %v", r, err)
		}
		if _, err := c.ZRank(ctx, "leaderboard:daily", "user:9", false); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("ZRank missing: %v", err)
		}
		if n, err := c.ZRem(ctx, "leaderboard:daily", "user:2", "user:9"); err != nil || n != 1 {
			t.Fatalf("ZRem = %d, %v", n, err)
		}

		// Sets.
		if n, err := c.SAdd(ctx, "lookup:tags", "a", "b", "a"); err != nil || n != 2 {
			t.Fatalf("SAdd = %d, %v", n, err)
		}
		if ok, err := c.SIsMember(ctx, "lookup:tags", "b"); err != nil || !ok {
			t.Fatalf("SIsMember = %v, %v", ok, err)
		}
		ms, err := c.SMembers(ctx, "lookup:tags")
		if err != nil || len(ms) != 2 {
			t.Fatalf("SMembers = %v, %v", ms, err)
		}
		if n, err := c.SRem(ctx, "lookup:tags", "a", "b"); err != nil || n != 2 {
			t.Fatalf("SRem = %d, %v", n, err)
		}
		if _, err := c.SMembers(ctx, "lookup:tags"); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("SMembers empty: %v", err)
		}
		_, _ = c.Delete(ctx, "user:settings:1", "leaderboard:daily")

		// Server errors are ErrUnavailable, and counted.
		_ = c.Set(ctx, "str", "x", time.Minute)
		before := c.Metrics().ServerErrors
		if _, err := c.HGetAll(ctx, "str"); !errors.Is(err, cache.ErrUnavailable) {
			t.Fatalf("HGetAll on a string: %v, want ErrUnavailable", err)
		}
		if c.Metrics().ServerErrors != before+1 {
			t.Fatalf("server errors not counted")
		}
		_, _ = c.Delete(ctx, "str")
	})
}

// 1000 goroutines ask for one cold key at once: the loader runs once.
func TestGetOrLoadStampede(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		var loads atomic.Int64
		load := func(ctx context.Context) (string, error) {
			loads.Add(1)
			time.Sleep(100 * time.Millisecond)
			return "value", nil
		}
		const n = 1000
		var wg sync.WaitGroup
		var bad atomic.Int64
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				v, err := cache.GetOrLoad(context.Background(), c, "cold", time.Minute, load)
				if err != nil || v != "value" {
					bad.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if bad.Load() != 0 {
			t.Fatalf("%d callers got a wrong result", bad.Load())
		}
		if got := loads.Load(); got != 1 {
			t.Fatalf("loader ran %d times, want 1", got)
		}
		// And the value is cached: a later read is a hit without loading.
		m0 := c.Metrics()
		if v, err := cache.GetOrLoad(context.Background(), c, "cold", time.Minute, load); err != nil || v != "value" {
			t.Fatalf("GetOrLoad = %q, %v", v, err)
		}
		if loads.Load() != 1 || c.Metrics().Hits != m0.Hits+1 {
			t.Fatalf("second read was not a hit")
		}
	})
}

// An Invalidate that lands while a load is in flight wins: the stale
// value is not cached and the next read sees the fresh one.
func TestInvalidateDuringLoad(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		var store atomic.Value
		store.Store("old")
		started, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		slowLoad := func(context.Context) (string, error) {
			v := store.Load().(string) // read before the update lands
			once.Do(func() { close(started) })
			<-release
			return v, nil
		}
		done := make(chan string)
		go func() {
			v, err := cache.GetOrLoad(ctx, c, "doc:1", time.Minute, slowLoad)
			if err != nil {
				t.Error(err)
			}
			done <- v
		}()
		<-started
		store.Store("new")
		if err := c.Invalidate(ctx, "doc:1"); err != nil {
			t.Fatal(err)
		}
		close(release)
		if v := <-done; v != "old" {
			t.Fatalf("in-flight caller got %q, want old (its own load)", v)
		}
		var loads atomic.Int64
		freshLoad := func(context.Context) (string, error) {
			loads.Add(1)
			return store.Load().(string), nil
		}
		v, err := cache.GetOrLoad(ctx, c, "doc:1", time.Minute, freshLoad)
		if err != nil || v != "new" {
			t.Fatalf("next read = %q, %v; want new", v, err)
		}
		if loads.Load() != 1 {
			t.Fatalf("next read did not load")
		}
		if c.Metrics().StaleSkipped == 0 {
			t.Fatalf("stale write not counted")
		}
		// And now it is cached.
		if v, _ := cache.GetOrLoad(ctx, c, "doc:1", time.Minute, freshLoad); v != "new" || loads.Load() != 1 {
			t.Fatalf("third read = %q after %d loads", v, loads.Load())
		}
	})
}

// Callers arriving after Invalidate do not join the stale in-flight load.
func TestInvalidateForgetsInFlight(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		release := make(chan struct{})
		started := make(chan struct{})
		go func() {
			_, _ = cache.GetOrLoad(ctx, c, "doc:2", time.Minute, func(context.Context) (string, error) {
				close(started)
				<-release
				return "old", nil
			})
		}()
		<-started
		if err := c.Invalidate(ctx, "doc:2"); err != nil {
			t.Fatal(err)
		}
		v, err := cache.GetOrLoad(ctx, c, "doc:2", time.Minute, func(context.Context) (string, error) {
			return "new", nil
		})
		close(release)
		if err != nil || v != "new" {
			t.Fatalf("read after Invalidate = %q, %v", v, err)
		}
	})
}

func TestInvalidateManySlots(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		var keys []string
		for i := 0; i < 50; i++ {
			k := fmt.Sprintf("item:%d", i)
			keys = append(keys, k)
			if err := c.Set(ctx, k, "x", time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Invalidate(ctx, keys...); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if _, err := c.Get(ctx, k); !errors.Is(err, cache.ErrMiss) {
				t.Fatalf("%s after Invalidate: %v", k, err)
			}
		}
		if err := c.Invalidate(ctx, "ok", "bad::key"); !errors.Is(err, cache.ErrInvalidKey) {
			t.Fatalf("Invalidate bad key: %v", err)
		}
	})
}

func TestWaiterHonoursOwnCtx(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		release := make(chan struct{})
		var loads atomic.Int64
		load := func(ctx context.Context) (int, error) {
			loads.Add(1)
			<-release
			return 42, ctx.Err()
		}
		res := make(chan error, 1)
		go func() {
			_, err := cache.GetOrLoad(context.Background(), c, "slow", time.Minute, load)
			res <- err
		}()
		for loads.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := cache.GetOrLoad(ctx, c, "slow", time.Minute, load); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiter: %v, want DeadlineExceeded", err)
		}
		close(release)
		// The load itself was not cancelled by the waiter giving up.
		if err := <-res; err != nil {
			t.Fatalf("first caller: %v", err)
		}
		if v, err := cache.GetOrLoad(context.Background(), c, "slow", time.Minute, load); v != 42 || err != nil || loads.Load() != 1 {
			t.Fatalf("cached = %d, %v after %d loads", v, err, loads.Load())
		}
	})
}

func TestNegativeCaching(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		var loads atomic.Int64
		load := func(context.Context) (string, error) {
			loads.Add(1)
			return "", fmt.Errorf("user 7: %w", entity.ErrNotFound)
		}
		neg := func(o *cache.LoadOptions) { o.NegativeTTL = time.Minute }
		for i := 0; i < 3; i++ {
			if _, err := cache.GetOrLoad(ctx, c, "user:7", time.Minute, load, neg); !errors.Is(err, entity.ErrNotFound) {
				t.Fatalf("call %d: %v, want ErrNotFound", i, err)
			}
		}
		if loads.Load() != 1 {
			t.Fatalf("loader ran %d times with negative caching", loads.Load())
		}
		// Without negative caching every call loads.
		for i := 0; i < 2; i++ {
			_, _ = cache.GetOrLoad(ctx, c, "user:8", time.Minute, load)
		}
		if loads.Load() != 3 {
			t.Fatalf("loader ran %d times, want 3", loads.Load())
		}
		// Other loader errors are returned and never cached.
		boom := errors.New("boom")
		for i := 0; i < 2; i++ {
			if _, err := cache.GetOrLoad(ctx, c, "user:9", time.Minute, func(context.Context) (string, error) {
				loads.Add(1)
				return "", boom
			}, neg); !errors.Is(err, boom) {
				t.Fatalf("loader error: %v", err)
			}
		}
		if loads.Load() != 5 {
			t.Fatalf("errors were cached")
		}
	})
}

func TestTTLJitter(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		seen := map[time.Duration]bool{}
		for i := 0; i < 10; i++ {
			k := fmt.Sprintf("j:%d", i)
			if _, err := cache.GetOrLoad(ctx, c, k, time.Hour, func(context.Context) (int, error) { return i, nil }); err != nil {
				t.Fatal(err)
			}
			ttl, err := c.TTL(ctx, k)
			if err != nil || ttl < 59*time.Minute || ttl > 66*time.Minute+time.Second {
				t.Fatalf("TTL %v, %v not in [1h, 1h6m]", ttl, err)
			}
			seen[ttl.Truncate(time.Second)] = true
		}
		if len(seen) < 2 {
			t.Fatalf("no jitter: %v", seen)
		}
	})
}

func TestHealth(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		_ = c.Set(ctx, "h", "1", time.Minute)
		h := c.Health(ctx)
		if !h.Healthy || h.Err != nil || len(h.Nodes) == 0 {
			t.Fatalf("Health = %+v", h)
		}
		for _, n := range h.Nodes {
			if n.Version == "" || n.ConnectedClients < 1 || n.UsedMemory <= 0 || n.UsedMemoryHuman == "" {
				t.Fatalf("node = %+v", n)
			}
		}
		keys := false
		for _, n := range h.Nodes {
			keys = keys || strings.Contains(n.Keyspace["db0"], "keys=")
		}
		if !keys || h.Metrics.Total == 0 || h.Metrics.AvgLatency <= 0 {
			t.Fatalf("keyspace/metrics missing: %+v", h)
		}
	})
}

// Stop Redis in the middle: GetOrLoad keeps returning the loader's value
// without error, error metrics rise, and after a restart hits come back.
// Standalone runs on testenv.StartRedis, cluster on a private one-node
// cluster; neither touches the shared servers.
func TestFailOpenWhenRedisStops(t *testing.T) {
	for _, be := range backends {
		for _, mode := range []string{"standalone", "cluster"} {
			t.Run(be.name+"/"+mode, func(t *testing.T) {
				addr, stop, start := stoppableRedis(t, mode == "cluster")
				failOpen(t, be, addr, mode == "cluster", stop, start)
			})
		}
	}
}

func failOpen(t *testing.T, be backend, addr string, cluster bool, stop, start func()) {
	c := newCache(t, []string{addr}, cluster, be.opt, func(o *cache.Options) {
		o.RequestTimeout = 100 * time.Millisecond
		o.BreakerThreshold = 3
		o.BreakerCooldown = 200 * time.Millisecond
	})
	ctx := context.Background()
	var loads atomic.Int64
	load := func(context.Context) (string, error) { loads.Add(1); return "fresh", nil }
	if v, err := cache.GetOrLoad(ctx, c, "k", time.Minute, load); err != nil || v != "fresh" {
		t.Fatal(v, err)
	}
	if _, err := cache.GetOrLoad(ctx, c, "k", time.Minute, load); err != nil || loads.Load() != 1 {
		t.Fatalf("no hit before the fault: %v, %d loads", err, loads.Load())
	}

	nearBefore, near := c.NearStats()
	stop()
	if near {
		// The near cache serves its copies until the reader notices the
		// dead connection (the server, being dead, acknowledges no write);
		// then it drops them all.
		deadline := time.Now().Add(5 * time.Second)
		for st, _ := c.NearStats(); st.Flushes == nearBefore.Flushes || st.Entries > 0; st, _ = c.NearStats() {
			if time.Now().After(deadline) {
				t.Fatalf("near cache not flushed after the server died: %+v", st)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	before := c.Metrics()
	for i := 0; i < 20; i++ {
		v, err := cache.GetOrLoad(ctx, c, "k", time.Minute, load)
		if err != nil || v != "fresh" {
			t.Fatalf("during the fault: %q, %v", v, err)
		}
	}
	during := c.Metrics()
	if during.Errors() <= before.Errors() || during.Failed <= before.Failed {
		t.Fatalf("error metrics did not rise: before %+v during %+v", before, during)
	}
	if during.Rejected == 0 {
		t.Fatalf("breaker never opened: %+v", during)
	}
	if loads.Load() < 2 {
		t.Fatalf("loader not used during the fault")
	}

	start()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := loads.Load()
		v, err := cache.GetOrLoad(ctx, c, "k", time.Minute, load)
		if err != nil || v != "fresh" {
			t.Fatalf("after restart: %q, %v", v, err)
		}
		if loads.Load() == n {
			break // a hit: served from the restarted server
		}
		if time.Now().After(deadline) {
			t.Fatalf("no hits after restart; metrics %+v", c.Metrics())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for h := c.Health(ctx); !h.Healthy; h = c.Health(ctx) {
		// Glide may still be re-establishing its other connections.
		if time.Now().After(deadline) {
			t.Fatalf("unhealthy after restart: %v", h.Err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A slow server (all clients paused) also fails open, within about
	// one request timeout, and counts timeouts.
	admin, err := glidex.NewStandalone(glidex.Options{Addresses: []string{addr}, DisableTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.CustomCommand(ctx, []string{"CLIENT", "PAUSE", "1500", "ALL"}); err != nil {
		t.Fatal(err)
	}
	timeouts := c.Metrics().Timeouts
	startSlow := time.Now()
	if v, err := cache.GetOrLoad(ctx, c, "k2", time.Minute, load); err != nil || v != "fresh" {
		t.Fatalf("slow server: %q, %v", v, err)
	}
	if d := time.Since(startSlow); d > time.Second {
		t.Fatalf("fail-open read on a slow server took %v", d)
	}
	if c.Metrics().Timeouts <= timeouts {
		t.Fatalf("timeouts not counted: %+v", c.Metrics())
	}
}

// TLS is on by default when an endpoint is configured: against the local
// plain-text server the cache cannot connect, so it fails open.
func TestTLSOnByDefault(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			c, err := cache.New(cache.Options{AppID: testenv.UniqueName("tk"), Env: "test", Service: "tls",
				Addresses: []string{addr}, RequestTimeout: 200 * time.Millisecond}, be.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			v, err := cache.GetOrLoad(context.Background(), c, "k", time.Minute, func(context.Context) (int, error) { return 7, nil })
			if err != nil || v != 7 {
				t.Fatalf("GetOrLoad over TLS to a plain server = %d, %v; want fail-open 7", v, err)
			}
			if c.Metrics().Failed == 0 {
				t.Fatalf("no failure counted: TLS was not on")
			}
			if h := c.Health(context.Background()); h.Healthy {
				t.Fatalf("healthy over TLS to a plain server")
			}
		})
	}
}

// The hash flavour keeps the stampede and invalidation guarantees.
func TestGetOrLoadHash(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		var loads atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 100; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h, err := c.GetOrLoadHash(ctx, "h:1", time.Minute, func(context.Context) (map[string]string, error) {
					loads.Add(1)
					time.Sleep(50 * time.Millisecond)
					return map[string]string{"a": "1"}, nil
				})
				if err != nil || h["a"] != "1" {
					t.Errorf("GetOrLoadHash = %v, %v", h, err)
				}
			}()
		}
		wg.Wait()
		if loads.Load() != 1 {
			t.Fatalf("loader ran %d times", loads.Load())
		}

		started, release := make(chan struct{}), make(chan struct{})
		go func() {
			_, _ = c.GetOrLoadHash(ctx, "h:2", time.Minute, func(context.Context) (map[string]string, error) {
				close(started)
				<-release
				return map[string]string{"v": "old"}, nil
			})
		}()
		<-started
		if err := c.Invalidate(ctx, "h:2"); err != nil {
			t.Fatal(err)
		}
		close(release)
		deadline := time.Now().Add(5 * time.Second)
		for c.Metrics().StaleSkipped == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		h, err := c.GetOrLoadHash(ctx, "h:2", time.Minute, func(context.Context) (map[string]string, error) {
			return map[string]string{"v": "new"}, nil
		})
		if err != nil || h["v"] != "new" {
			t.Fatalf("after invalidation: %v, %v", h, err)
		}

		neg := func(o *cache.LoadOptions) { o.NegativeTTL = time.Minute }
		for i := 0; i < 2; i++ {
			if _, err := c.GetOrLoadHash(ctx, "h:3", time.Minute, func(context.Context) (map[string]string, error) {
				loads.Add(1)
				return nil, entity.ErrNotFound
			}, neg); !errors.Is(err, entity.ErrNotFound) {
				t.Fatalf("negative: %v", err)
			}
		}
		if loads.Load() != 2 {
			t.Fatalf("negative hash entry not cached: %d loads", loads.Load())
		}
	})
}
