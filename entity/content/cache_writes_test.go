package content_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestCacheAfterEveryWrite checks the cached state after each write
// method of the service (issue 21): job:{jobId} equals the stored job
// after every job write, the lease-aware ones of jobworker included
// (CreateJob, ClaimJob, SetProgress, RenewJob, CompleteJobAs, FailJobAs,
// StartJob, CompleteJob, FailJob); image:{eventId}:{style}:{platform}
// holds the image AddImage wrote and is dropped by SelectImage;
// ai:event:{eventId} holds what PutAIEvent stored.
func TestCacheAfterEveryWrite(t *testing.T) {
	tbl := newTable(t)
	c, err := cache.New(cache.Options{AppID: testenv.UniqueName("kt"), Env: "test", Service: "content",
		Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	svc := content.NewService(tbl, func(o *content.Options) { o.Cache = c })
	jobs := entity.NewStore[content.Job](tbl)
	ctx := context.Background()

	// cachedIsStored fails t unless the job hash holds the stored job.
	cachedIsStored := func(t *testing.T, step, id string) {
		t.Helper()
		key, _ := content.JobKey(id)
		stored, err := jobs.Get(ctx, key, entity.ConsistentRead)
		if err != nil {
			t.Fatal(err)
		}
		h, err := c.HGetAll(ctx, content.JobCacheKey(id))
		if errors.Is(err, cache.ErrMiss) && step == "CompleteJobAs again" {
			return // an equal state drops the entry: the next read loads
		}
		if err != nil {
			t.Fatalf("%s: job hash: %v", step, err)
		}
		want := map[string]string{"status": string(stored.Status), "progress": itoa(stored.Progress),
			"resultMessage": stored.ResultMessage, "errorMessage": stored.ErrorMessage,
			"updatedAt": stored.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z")}
		for k, v := range want {
			if h[k] != v {
				t.Fatalf("after %s: cached %s = %q, stored %q (hash %v)", step, k, h[k], v, h)
			}
		}
	}
	flows := map[string][]struct {
		step string
		do   func(id string) error
	}{
		"lease complete (the issue's repro)": {
			{"ClaimJob", func(id string) error { _, err := svc.ClaimJob(ctx, id, "w1", time.Minute); return err }},
			{"SetProgress", func(id string) error { _, err := svc.SetProgress(ctx, id, 50); return err }},
			{"RenewJob", func(id string) error { _, err := svc.RenewJob(ctx, id, "w1", time.Minute); return err }},
			{"CompleteJobAs", func(id string) error { _, err := svc.CompleteJobAs(ctx, id, "w1", "4 images"); return err }},
			{"CompleteJobAs again", func(id string) error { _, err := svc.CompleteJobAs(ctx, id, "w1", "4 images"); return err }},
		},
		"lease fail": {
			{"ClaimJob", func(id string) error { _, err := svc.ClaimJob(ctx, id, "w1", time.Minute); return err }},
			{"FailJobAs", func(id string) error { _, err := svc.FailJobAs(ctx, id, "w1", "model down"); return err }},
		},
		"plain complete": {
			{"StartJob", func(id string) error { _, err := svc.StartJob(ctx, id); return err }},
			{"SetProgress", func(id string) error { _, err := svc.SetProgress(ctx, id, 10); return err }},
			{"CompleteJob", func(id string) error { _, err := svc.CompleteJob(ctx, id, "done"); return err }},
		},
		"plain fail": {
			{"StartJob", func(id string) error { _, err := svc.StartJob(ctx, id); return err }},
			{"FailJob", func(id string) error { _, err := svc.FailJob(ctx, id, "boom"); return err }},
		},
	}
	for name, steps := range flows {
		t.Run(name, func(t *testing.T) {
			j := content.Job{ID: content.NewJobID(), EventID: "evt-draft-12345", Kind: content.KindImageGeneration}
			if err := svc.CreateJob(ctx, &j); err != nil {
				t.Fatal(err)
			}
			cachedIsStored(t, "CreateJob", j.ID)
			for _, st := range steps {
				if err := st.do(j.ID); err != nil {
					t.Fatalf("%s: %v", st.step, err)
				}
				cachedIsStored(t, st.step, j.ID)
				polled, err := svc.Job(ctx, j.ID)
				if err != nil {
					t.Fatal(err)
				}
				key, _ := content.JobKey(j.ID)
				stored, _ := jobs.Get(ctx, key, entity.ConsistentRead)
				if polled.Status != stored.Status || polled.Progress != stored.Progress {
					t.Fatalf("after %s: Service.Job polls %s %d%%, stored %s %d%%", st.step, polled.Status, polled.Progress, stored.Status, stored.Progress)
				}
			}
		})
	}
	t.Run("images", func(t *testing.T) {
		g := content.GeneratedImage{ID: content.NewJobID()[len("job-img-"):], EventID: "evt-img-1", Style: content.StyleFancy, Platform: content.PlatformInstagram,
			CDNURL: "https://cdn/x.png", Prompt: "p", Width: 1080, Height: 1080, ContentType: "image/png"}
		if err := svc.AddImage(ctx, &g); err != nil {
			t.Fatal(err)
		}
		ck := content.ImageCacheKey(g.EventID, g.Style, g.Platform)
		h, err := c.HGetAll(ctx, ck)
		if err != nil || h["id"] != g.ID || h["imageUrl"] != g.CDNURL {
			t.Fatalf("after AddImage: hash %v, %v", h, err)
		}
		if _, err := svc.SelectImage(ctx, g.EventID, g.Style, g.Platform, g.ID, true); err != nil {
			t.Fatal(err)
		}
		if h, err := c.HGetAll(ctx, ck); err == nil && len(h) > 0 {
			t.Fatalf("after SelectImage the image hash is still cached: %v", h)
		}
	})
	t.Run("ai event", func(t *testing.T) {
		d := content.AIEventData{EventID: "evt-ai-1", RecommendedStyles: []string{"FANCY"}, CachedAt: time.Now().UTC().Truncate(time.Second)}
		if err := svc.PutAIEvent(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, err := svc.AIEvent(ctx, d.EventID, func(context.Context) (content.AIEventData, error) {
			t.Fatal("PutAIEvent's value was not cached: the loader ran")
			return content.AIEventData{}, nil
		})
		if err != nil || got.EventID != d.EventID || len(got.RecommendedStyles) != 1 {
			t.Fatalf("after PutAIEvent: %+v, %v", got, err)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
