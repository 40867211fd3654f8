package content_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/internal/testenv"
)

// cachedService runs f with a service wired to Valkey, standalone and cluster.
func cachedService(t *testing.T, f func(t *testing.T, svc *content.Service, c *cache.Cache)) {
	tbl := newTable(t)
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			addrs := []string{}
			if mode == "cluster" {
				addrs = testenv.ValkeyClusterAddrs(t)
			} else {
				addrs = []string{testenv.ValkeyAddr(t)}
			}
			c, err := cache.New(cache.Options{AppID: testenv.UniqueName("kt"), Env: "test", Service: "content",
				Addresses: addrs, Cluster: mode == "cluster", DisableTLS: true, RequestTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			f(t, content.NewService(tbl, func(o *content.Options) { o.Cache = c }), c)
		})
	}
}

func ttlNear(t *testing.T, c *cache.Cache, key string, want time.Duration) {
	t.Helper()
	ttl, err := c.TTL(context.Background(), key)
	if err != nil || ttl > want || ttl < want-time.Minute {
		t.Fatalf("%s: TTL %v, %v; want about %v", key, ttl, err, want)
	}
}

// TestJobCache: job:{jobId} is written through on every job write, in
// version order: a late step of an older state never replaces a newer one.
func TestJobCache(t *testing.T) {
	cachedService(t, func(t *testing.T, svc *content.Service, c *cache.Cache) {
		ctx := context.Background()
		j := content.Job{ID: content.NewJobID(), EventID: "evt-draft-12345", Kind: content.KindImageGeneration}
		key := "job:" + j.ID
		if content.JobCacheKey(j.ID) != key {
			t.Fatalf("key %q", content.JobCacheKey(j.ID))
		}
		var processing content.Job
		for _, st := range []struct {
			name   string
			do     func() error
			status string
			pct    string
		}{
			{"create", func() error { return svc.CreateJob(ctx, &j) }, "PENDING", "0"},
			{"start", func() (err error) { _, err = svc.StartJob(ctx, j.ID); return err }, "PROCESSING", "0"},
			{"progress", func() (err error) { processing, err = svc.SetProgress(ctx, j.ID, 40); return err }, "PROCESSING", "40"},
			{"complete", func() (err error) { _, err = svc.CompleteJob(ctx, j.ID, "4 images"); return err }, "COMPLETED", "100"},
		} {
			if err := st.do(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			h, err := c.HGetAll(ctx, key)
			if err != nil || h["status"] != st.status || h["progress"] != st.pct || h["id"] != j.ID || h["jobType"] != "IMAGE_GENERATION" {
				t.Fatalf("%s: hash %v, %v", st.name, h, err)
			}
			ttlNear(t, c, key, content.JobCacheTTL)
		}
		// A late step of the PROCESSING 40% state: never cached over COMPLETED.
		if err := svc.CacheJobForTest(ctx, processing); err != nil {
			t.Fatal(err)
		}
		if h, err := c.HGetAll(ctx, key); err == nil && h["status"] != "COMPLETED" {
			t.Fatalf("older state cached: %v", h)
		}
		before := c.Metrics().Hits
		for i := 0; i < 2; i++ {
			got, err := svc.Job(ctx, j.ID)
			if err != nil || got.Status != content.StatusCompleted || got.ResultMessage != "4 images" {
				t.Fatalf("poll %d: %+v, %v", i, got, err)
			}
		}
		if c.Metrics().Hits == before {
			t.Fatal("polls never hit the cache")
		}
		if _, err := svc.Job(ctx, content.NewJobID()); !errors.Is(err, entity.ErrNotFound) {
			t.Fatalf("missing job: %v", err)
		}
	})
}

// TestImageCache: image:{eventId}:{style}:{platform} is written when an
// image is generated, replaced by a regeneration (never by a late older
// image), dropped on selection and on InvalidateImage, and loaded on a miss.
func TestImageCache(t *testing.T) {
	cachedService(t, func(t *testing.T, svc *content.Service, c *cache.Cache) {
		ctx := context.Background()
		ev := testenv.UniqueName("evt")
		key := "image:" + ev + ":SIMPLE:INSTAGRAM"
		a := content.NewImage(ev, content.StyleSimple, content.PlatformInstagram, "https://cdn/a.png", "a")
		if err := svc.AddImage(ctx, &a); err != nil {
			t.Fatal(err)
		}
		loads := 0
		load := func(context.Context) (content.GeneratedImage, error) { loads++; return a, nil }
		if h, err := c.HGetAll(ctx, key); err != nil || h["imageUrl"] != "https://cdn/a.png" || h["platform"] != "INSTAGRAM" {
			t.Fatalf("after generation: %v, %v", h, err)
		}
		ttlNear(t, c, key, content.ImageCacheTTL)
		if d, err := svc.Image(ctx, ev, content.StyleSimple, content.PlatformInstagram, load); err != nil || d.ImageURL != a.CDNURL || loads != 0 {
			t.Fatalf("hit: %+v, %v, %d loads", d, err, loads)
		}
		b := content.NewImage(ev, content.StyleSimple, content.PlatformInstagram, "https://cdn/b.png", "b")
		if err := svc.AddImage(ctx, &b); err != nil { // a regeneration
			t.Fatal(err)
		}
		if err := svc.CacheImageForTest(ctx, a); err != nil { // a late step of the older image
			t.Fatal(err)
		}
		if h, err := c.HGetAll(ctx, key); err != nil || h["imageUrl"] != "https://cdn/b.png" {
			t.Fatalf("after regeneration: %v, %v", h, err)
		}
		if _, err := svc.SelectImage(ctx, ev, b.Style, b.Platform, b.ID, true); err != nil {
			t.Fatal(err)
		}
		if _, err := c.HGetAll(ctx, key); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("after selection: %v", err)
		}
		load = func(context.Context) (content.GeneratedImage, error) { loads++; return b, nil }
		if d, err := svc.Image(ctx, ev, content.StyleSimple, content.PlatformInstagram, load); err != nil || d.ID != b.ID || loads != 1 {
			t.Fatalf("miss: %+v, %v, %d loads", d, err, loads)
		}
		if err := svc.InvalidateImage(ctx, ev, content.StyleSimple, content.PlatformInstagram); err != nil {
			t.Fatal(err)
		}
		if _, err := c.HGetAll(ctx, key); !errors.Is(err, cache.ErrMiss) {
			t.Fatalf("after InvalidateImage: %v", err)
		}
	})
}

// TestAIEventCache: ai:event:{eventId}, 1 h, stored by PutAIEvent and
// read without asking the AI service again.
func TestAIEventCache(t *testing.T) {
	cachedService(t, func(t *testing.T, svc *content.Service, c *cache.Cache) {
		ctx := context.Background()
		ev := testenv.UniqueName("evt")
		d := content.AIEventData{EventID: ev, RecommendedStyles: []string{"SIMPLE", "TRENDY"},
			RecommendedKeywords: []string{"coffee"}, CachedAt: time.Date(2025, 10, 29, 10, 0, 0, 0, time.UTC)}
		if err := svc.PutAIEvent(ctx, d); err != nil {
			t.Fatal(err)
		}
		if ttl, err := c.TTL(ctx, "ai:event:"+ev); err != nil || ttl < content.AIEventCacheTTL-time.Minute || ttl > content.AIEventCacheTTL*11/10 {
			t.Fatalf("ai:event TTL %v, %v; want 1 h plus at most 10%% jitter", ttl, err)
		}
		got, err := svc.AIEvent(ctx, ev, func(context.Context) (content.AIEventData, error) {
			t.Error("the AI service was asked again")
			return content.AIEventData{}, nil
		})
		if err != nil || got.EventID != ev || len(got.RecommendedStyles) != 2 {
			t.Fatalf("AIEvent = %+v, %v", got, err)
		}
	})
	// Without a cache every read asks the AI service.
	svc := content.NewService(newTable(t))
	calls := 0
	for i := 0; i < 2; i++ {
		_, _ = svc.AIEvent(context.Background(), "e", func(context.Context) (content.AIEventData, error) { calls++; return content.AIEventData{}, nil })
	}
	if calls != 2 {
		t.Fatalf("bypass: %d calls", calls)
	}
}
