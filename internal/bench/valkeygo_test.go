package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// rawValkeyGo is a plain valkey-go client with its defaults (no client
// side cache): the baseline of the valkey-go benchmarks.
func rawValkeyGo(b testing.TB) valkey.Client {
	b.Helper()
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{testenv.ValkeyAddr(b)}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

func valkeyGoCache(b testing.TB, near *cache.NearOptions) *cache.Cache {
	b.Helper()
	c, err := cache.New(cache.Options{AppID: testenv.UniqueName("bench"), Env: "test", Service: "cache",
		Addresses: []string{testenv.ValkeyAddr(b)}, DisableTLS: true, RequestTimeout: time.Second,
		Backend: cache.BackendValkeyGo, Near: near})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// serverCalls sums the calls of the server's commands from INFO
// commandstats, leaving out the ones this measurement and connection
// upkeep send (INFO, PING, HELLO, CLIENT, SELECT).
func serverCalls(b testing.TB, raw valkey.Client) int64 {
	b.Helper()
	s, err := raw.Do(context.Background(), raw.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, line := range strings.Split(s, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		switch strings.TrimPrefix(name, "cmdstat_") {
		case "info", "ping", "hello", "client|tracking", "client|setinfo", "client|setname", "client|id", "select":
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		v, _ := strconv.ParseInt(calls, 10, 64)
		n += v
	}
	return n
}

// parallel64 runs op from 64 goroutines whatever GOMAXPROCS is and
// reports the throughput. A warm-up from 64 goroutines first grows the
// client's buffers and the goroutine stacks, so that the order in which
// the benchmarks run does not favour the later one.
func parallel64(b *testing.B, op func() error) {
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				_ = op()
			}
		}()
	}
	wg.Wait()
	runtime.GC()
	b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// benchValkeyGo is the valkey-go part of BenchmarkCache. It compares a cache hit on the valkey-go
// backend with a bare valkey-go GET of the same 1 KiB value, sequential
// (goal: ValkeyGoGetHit <= 1.15x RawValkeyGoGet) and from 64 goroutines
// (goal: ValkeyGoGetHitParallel >= 0.85x the throughput of
// RawValkeyGoGetParallel), and measures a near cache hit (goal: <= 2 µs,
// 0 round trips, counted on the server as roundtrips/op; and <= 1.0x
// RawValkeyGoCacheHit, valkey-go's own client-side cache hit, with 0
// allocations).
func benchValkeyGo(b *testing.B) {
	ctx := context.Background()
	value := strings.Repeat("x", 1024)
	const key = "bench:value"
	c := valkeyGoCache(b, nil)
	if err := c.Set(ctx, key, value, 10*time.Minute); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _, _ = c.Delete(context.Background(), key) })
	full, _ := c.Key(key)
	raw := rawValkeyGo(b)

	b.Run("ValkeyGoGetHit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			v, err := c.Get(ctx, key)
			if err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
	})

	b.Run("RawValkeyGoGet", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			v, err := raw.Do(ctx, raw.B().Get().Key(full).Build()).ToString()
			if err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
	})

	b.Run("RawValkeyGoGetParallel", func(b *testing.B) {
		parallel64(b, func() error {
			v, err := raw.Do(ctx, raw.B().Get().Key(full).Build()).ToString()
			if err == nil && len(v) != 1024 {
				err = fmt.Errorf("%d bytes", len(v))
			}
			return err
		})
	})

	b.Run("ValkeyGoGetHitParallel", func(b *testing.B) {
		parallel64(b, func() error {
			v, err := c.Get(ctx, key)
			if err == nil && len(v) != 1024 {
				err = fmt.Errorf("%d bytes", len(v))
			}
			return err
		})
	})

	b.Run("RawValkeyGoCacheHit", func(b *testing.B) {
		// valkey-go's own client-side cache (its default LRU store, RESP3
		// tracking): the hit of DoCache that NearHit races (goal: NearHit
		// <= 1.0x, 0 allocations).
		cc, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{testenv.ValkeyAddr(b)}})
		if err != nil {
			b.Fatal(err)
		}
		defer cc.Close()
		get := func() (string, error) { return cc.DoCache(ctx, cc.B().Get().Key(full).Cache(), time.Hour).ToString() }
		for i := 0; i < 2; i++ { // the first read fills the cache
			if v, err := get(); err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
		calls := serverCalls(b, raw)
		b.ReportAllocs()
		b.ResetTimer()
		stopCPU := reportCPU(b)
		for i := 0; i < b.N; i++ {
			v, err := get()
			if err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		stopCPU()
		b.ReportMetric(float64(serverCalls(b, raw)-calls)/float64(b.N), "roundtrips/op")
	})

	b.Run("NearHit", func(b *testing.B) {
		nc := valkeyGoCache(b, &cache.NearOptions{TTL: time.Hour})
		if err := nc.Set(ctx, key, value, 10*time.Minute); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 2; i++ { // the first read fills L1
			if v, err := nc.Get(ctx, key); err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
		st0, _ := nc.NearStats()
		calls := serverCalls(b, raw)
		b.ReportAllocs()
		b.ResetTimer()
		stopCPU := reportCPU(b)
		for i := 0; i < b.N; i++ {
			v, err := nc.Get(ctx, key)
			if err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		stopCPU()
		trips := serverCalls(b, raw) - calls
		st, _ := nc.NearStats()
		b.ReportMetric(float64(trips)/float64(b.N), "roundtrips/op")
		if hits := st.Hits - st0.Hits; hits != int64(b.N) {
			b.Fatalf("%d near hits for %d reads", hits, b.N)
		}
	})
}

// rawRelease for valkey-go: the compare-and-delete script a hand-written
// lock uses (EVALSHA, EVAL on NOSCRIPT).
var rawValkeyGoRelease = valkey.NewLuaScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// benchLockValkeyGo is the valkey-go part of BenchmarkLock:
//
//	ValkeyGoCycle     lock.Locker on valkeylock over cache.DialValkeyGo
//	RawValkeyGoCycle  the same by hand on a plain valkey-go client
//
// Goal: ValkeyGoCycle <= 1.20 × RawValkeyGoCycle ns/op.
func benchLockValkeyGo(b *testing.B, prefix string) {
	ctx := context.Background()
	b.Run("ValkeyGoCycle", func(b *testing.B) {
		conn, err := cache.DialValkeyGo(cache.ValkeyGoOptions{Addresses: []string{testenv.ValkeyAddr(b)}, DisableTLS: true,
			RequestTimeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(conn.Close)
		vb, err := valkeylock.New(conn, func(o *valkeylock.Options) { o.Prefix = prefix })
		if err != nil {
			b.Fatal(err)
		}
		lk := lock.New(vb)
		runCycles(b, warmup, lockCycle(ctx, b, lk, "cycle-vg"))
	})

	b.Run("RawValkeyGoCycle", func(b *testing.B) {
		c := rawValkeyGo(b)
		key := prefix + ":lock:raw-vg"
		cycle := func() {
			var tb [16]byte
			_, _ = rand.Read(tb[:])
			token := hex.EncodeToString(tb[:])
			if err := c.Do(ctx, c.B().Set().Key(key).Value(token).Nx().PxMilliseconds(10_000).Build()).Error(); err != nil {
				b.Fatalf("SET NX: %v", err)
			}
			if n, err := rawValkeyGoRelease.Exec(ctx, c, []string{key}, []string{token}).AsInt64(); err != nil || n != 1 {
				b.Fatalf("release: %v %v", n, err)
			}
		}
		runCycles(b, warmup, cycle)
	})
}
