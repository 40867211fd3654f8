package bench

import (
	"context"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
)

// benchUpdate is the change of BenchmarkEntity/Update.
var benchUpdate = entity.Changes[codex.Post]{entity.Set(codex.PostTitle, "새 제목 / new title")}

// BenchmarkCachedStore: GetHit is a cached store read answered by the
// cache (goal: <= 1.10x BenchmarkCache/RawGlideGet); Update is the same
// update as BenchmarkEntity/Update plus its cache step, with the Valkey
// round trips per operation reported (goal: at most one more than none).
// NearGetHit is GetHit on valkey-go with a near cache, read synced (the
// default: one barrier round trip per hit, reported as valkey-rt/op, and
// the server commands it costs as server-cmds/op); NearGetHitRelaxed the
// same with Options.NearRelaxed (0 round trips).
func BenchmarkCachedStore(b *testing.B) {
	ctx := context.Background()
	c := benchCache(b)
	posts, err := cachestore.New(entity.NewStore[codex.Post](codex.NewTable(entClient(), "")), c)
	if err != nil {
		b.Fatal(err)
	}
	key, _ := codex.PostKey("c001", entPost(0).ID)
	b.Run("GetHit", func(b *testing.B) {
		if _, err := posts.Get(ctx, key); err != nil { // fills the cache
			b.Fatal(err)
		}
		before := c.Metrics()
		readHits(b, posts, key)
		after := c.Metrics()
		if hits := after.Hits - before.Hits; hits != int64(b.N) {
			b.Fatalf("%d hits for %d reads", hits, b.N)
		}
		b.ReportMetric(float64(after.Total-before.Total)/float64(b.N), "valkey-rt/op")
	})
	for _, relaxed := range []bool{false, true} {
		name := "NearGetHit"
		if relaxed {
			name = "NearGetHitRelaxed"
		}
		b.Run(name, func(b *testing.B) {
			benchNearStoreHit(b, relaxed)
		})
	}
	b.Run("Update", func(b *testing.B) {
		before := c.Metrics().Total
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := posts.Update(ctx, key, benchUpdate); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(c.Metrics().Total-before)/float64(b.N), "valkey-rt/op")
	})
}

func benchNearStoreHit(b *testing.B, relaxed bool) {
	ctx := context.Background()
	nc := valkeyGoCache(b, &cache.NearOptions{TTL: time.Hour})
	posts, err := cachestore.New(entity.NewStore[codex.Post](codex.NewTable(entClient(), "")), nc,
		func(o *cachestore.Options) { o.NearRelaxed = relaxed })
	if err != nil {
		b.Fatal(err)
	}
	key, _ := codex.PostKey("c001", entPost(0).ID)
	for i := 0; i < 3; i++ { // load and cache, fill L1, hit it
		if _, err := posts.Get(ctx, key); err != nil {
			b.Fatal(err)
		}
	}
	raw := rawValkeyGo(b)
	st0, _ := nc.NearStats()
	calls := serverCalls(b, raw)
	readHits(b, posts, key)
	cmds := serverCalls(b, raw) - calls
	st, _ := nc.NearStats()
	if hits := st.Hits - st0.Hits; hits != int64(b.N) {
		b.Fatalf("%d near hits for %d reads", hits, b.N)
	}
	trips := st.Barriers - st0.Barriers + st.Misses - st0.Misses
	b.ReportMetric(float64(trips)/float64(b.N), "valkey-rt/op")
	b.ReportMetric(float64(cmds)/float64(b.N), "server-cmds/op")
}

// readHits times b.N reads of key through posts.
func readHits(b *testing.B, posts *cachestore.Store[codex.Post, *codex.Post], key entity.Key) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	stopCPU := reportCPU(b)
	for i := 0; i < b.N; i++ {
		p, err := posts.Get(ctx, key)
		if err != nil || p.ID == "" {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	stopCPU()
}
