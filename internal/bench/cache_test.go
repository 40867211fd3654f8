package bench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cache/session"
	"github.com/tablekit/tablekit/internal/glidex"
	"github.com/tablekit/tablekit/internal/testenv"
)

func benchCache(b testing.TB) *cache.Cache {
	b.Helper()
	c, err := cache.New(cache.Options{AppID: testenv.UniqueName("bench"), Env: "test", Service: "cache",
		Addresses: []string{testenv.ValkeyAddr(b)}, DisableTLS: true, RequestTimeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// BenchmarkCache compares a cache hit with a bare glide GET of the same
// 1 KiB value (goal: GetHit <= 1.10x RawGlideGet), runs the valkey-go
// backend and the near cache against a bare valkey-go client (see
// benchValkeyGo), and measures GetOrLoad throughput on hot keys from 64
// goroutines.
func BenchmarkCache(b *testing.B) {
	ctx := context.Background()
	c := benchCache(b)
	value := strings.Repeat("x", 1024)
	const key = "bench:value"
	if err := c.Set(ctx, key, value, 10*time.Minute); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _, _ = c.Delete(context.Background(), key) })
	full, _ := c.Key(key)

	b.Run("GetHit", func(b *testing.B) {
		b.ReportAllocs()
		stopCPU := reportCPU(b)
		for i := 0; i < b.N; i++ {
			v, err := c.Get(ctx, key)
			if err != nil || len(v) != 1024 {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		stopCPU()
	})

	b.Run("RawGlideGet", func(b *testing.B) {
		raw, err := glidex.NewStandalone(glidex.Options{Addresses: []string{testenv.ValkeyAddr(b)}, DisableTLS: true,
			RequestTimeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		defer raw.Close()
		b.ReportAllocs()
		b.ResetTimer()
		stopCPU := reportCPU(b)
		for i := 0; i < b.N; i++ {
			r, err := raw.Get(ctx, full)
			if err != nil || len(r.Value()) != 1024 {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		stopCPU()
	})

	benchValkeyGo(b)

	b.Run("GetOrLoadParallel", func(b *testing.B) {
		const hot = 16
		type doc struct {
			ID   int    `json:"id"`
			Body string `json:"body"`
		}
		keys := make([]string, hot)
		for i := range keys {
			keys[i] = fmt.Sprintf("bench:hot:%d", i)
			id := i
			if _, err := cache.GetOrLoad(ctx, c, keys[i], 10*time.Minute, func(context.Context) (doc, error) {
				return doc{ID: id, Body: value}, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		b.Cleanup(func() { _, _ = c.Delete(context.Background(), keys...) })
		var loads atomic.Int64
		load := func(context.Context) (doc, error) { loads.Add(1); return doc{Body: value}, nil }
		// 64 goroutines whatever GOMAXPROCS is.
		b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.ReportAllocs()
		var n atomic.Int64
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			i := int(n.Add(1))
			for pb.Next() {
				if _, err := cache.GetOrLoad(ctx, c, keys[i%hot], 10*time.Minute, load); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
		if loads.Load() != 0 {
			b.Fatalf("hot keys loaded %d times", loads.Load())
		}
	})
}

// BenchmarkSession measures session validation: one Lua script, one round
// trip, refreshing both TTLs and last_access_time.
func BenchmarkSession(b *testing.B) {
	ctx := context.Background()
	c := benchCache(b)
	s, err := session.New(c)
	if err != nil {
		b.Fatal(err)
	}
	tok, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "bench-user", AccountDBKey: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Logout(context.Background(), tok) })

	b.Run("Validate", func(b *testing.B) {
		b.ReportAllocs()
		before := c.Metrics().Total
		for i := 0; i < b.N; i++ {
			if _, err := s.Validate(ctx, tok); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(c.Metrics().Total-before)/float64(b.N), "roundtrips/op")
	})
}
