// Command content is the runnable example of the content service of seed
// 003 on one DynamoDB table with its Valkey caches:
//
//   - ai:event:{eventId} (1 h): the AI service stores its recommendations,
//     the content service reads them (cache-aside);
//   - job:{jobId} (hash, write-through, 1 h): the service writes every job
//     state change to DynamoDB first, then to the hash in version order;
//     clients poll it (Service.Job);
//   - image:{eventId}:{style}:{platform} (hash, 7 days): written when an
//     image is generated (a regeneration replaces it), dropped when one is
//     selected, loaded from DynamoDB on a miss.
//
// DynamoDB: the embedded engine (package ddbmem) when
// TABLEKIT_DYNAMODB_ENDPOINT is unset, else that endpoint (DynamoDB Local),
// in a table of its own that is deleted at the end. Valkey: the server at
// TABLEKIT_VALKEY_ADDR (no TLS, a local server), else the cache is
// bypassed and every read goes to DynamoDB (package cache's no-endpoint
// mode). Cache keys live under the namespace kt-event:<run>:content:.
//
//	go run ./examples/content
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
)

// newClient returns the embedded engine, or a client of the DynamoDB
// endpoint in TABLEKIT_DYNAMODB_ENDPOINT.
func newClient() (entity.Client, string) {
	if ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"); ep != "" {
		return entity.LocalClient(ep), "DynamoDB at " + ep
	}
	return ddbmem.New(), "the embedded engine (ddbmem)"
}

// newCache returns the Valkey cache at TABLEKIT_VALKEY_ADDR, or a
// bypassed cache when it is unset.
func newCache(run string) (*cache.Cache, string, error) {
	o := cache.Options{AppID: "kt-event", Env: run, Service: "content"}
	where := "bypassed (TABLEKIT_VALKEY_ADDR unset)"
	if addr := os.Getenv("TABLEKIT_VALKEY_ADDR"); addr != "" {
		o.Addresses, o.DisableTLS = []string{addr}, true
		where = addr
	}
	c, err := cache.New(o)
	return c, where, err
}

// app is the content service: DynamoDB (the store of record) and Valkey,
// wired into the service (content.Options.Cache).
type app struct {
	tbl   *entity.Table
	svc   *content.Service
	cache *cache.Cache
}

// pollJob is what a client's polling does: the job:{jobId} hash, else
// DynamoDB (Service.Job). The hit/miss is read off the cache metrics.
func (a *app) pollJob(ctx context.Context, jobID string) (string, error) {
	before := a.cache.Metrics().Hits
	j, err := a.svc.Job(ctx, jobID)
	if err != nil {
		return "", err
	}
	from := "DynamoDB"
	if a.cache.Metrics().Hits > before {
		from = "cache"
	}
	return fmt.Sprintf("%s %d%% (%s)", j.Status, j.Progress, from), nil
}

// image is the cache-aside read of image:{eventId}:{style}:{platform}.
func (a *app) image(ctx context.Context, eventID string, s content.Style, p content.Platform) (content.ImageData, error) {
	return a.svc.Image(ctx, eventID, s, p, func(ctx context.Context) (content.GeneratedImage, error) {
		return qc.LatestImage(ctx, a.tbl, eventID, s, p)
	})
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := fmt.Sprintf("example%d", time.Now().UnixNano())

	client, dbWhere := newClient()
	tbl := content.NewTable(client, "ContentExample-"+run)
	if err := tbl.EnsureTable(ctx); err != nil {
		log.Fatal(err)
	}
	defer func() { _ = tbl.DeleteTable(context.Background()) }()
	c, cacheWhere, err := newCache(run)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Printf("DynamoDB: %s, table %s\nValkey: %s\n", dbWhere, tbl.Name(), cacheWhere)
	a := &app{tbl: tbl, svc: content.NewService(tbl, func(o *content.Options) { o.Cache = c }), cache: c}

	const eventID = "evt-draft-12345"
	ct := content.Content{EventID: eventID, EventTitle: "봄맞이 커피 할인 이벤트", EventDescription: "신메뉴 아메리카노 1+1 이벤트"}
	if err := a.svc.CreateContent(ctx, &ct); err != nil {
		log.Fatal(err)
	}
	dup := content.Content{EventID: eventID, EventTitle: "again"}
	fmt.Println("second content for the event:", errors.Is(a.svc.CreateContent(ctx, &dup), entity.ErrAlreadyExists))

	// The AI service finished its analysis: ai:event:{eventId}, 1 h.
	if err := a.svc.PutAIEvent(ctx, content.AIEventData{EventID: eventID, RecommendedStyles: []string{"SIMPLE", "TRENDY"},
		RecommendedKeywords: []string{"coffee", "spring", "discount"}, CachedAt: time.Now().UTC()}); err != nil {
		log.Fatal(err)
	}
	ai, err := a.svc.AIEvent(ctx, eventID, func(context.Context) (content.AIEventData, error) {
		// Cache bypassed or expired: ask the AI service again (here: a default).
		return content.AIEventData{EventID: eventID, RecommendedStyles: []string{"SIMPLE", "TRENDY"}}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("AI recommended styles:", ai.RecommendedStyles)

	// Image generation job, written through to job:{jobId}.
	job := content.Job{ID: content.NewJobID(), EventID: eventID, Kind: content.KindImageGeneration}
	if err := a.svc.CreateJob(ctx, &job); err != nil {
		log.Fatal(err)
	}
	status, _ := a.pollJob(ctx, job.ID)
	fmt.Println("poll:", status)
	if _, err := a.svc.StartJob(ctx, job.ID); err != nil {
		log.Fatal(err)
	}
	platforms := []content.Platform{content.PlatformInstagram, content.PlatformKakao}
	total, done := len(ai.RecommendedStyles)*len(platforms), 0
	for _, s := range ai.RecommendedStyles {
		for _, p := range platforms {
			url := fmt.Sprintf("https://cdn.kt-event.com/images/%s-%s-%s.png", eventID, s, p)
			img := content.NewImage(eventID, content.Style(s), p, url, "coffee event poster, "+s)
			if err := a.svc.AddImage(ctx, &img); err != nil {
				log.Fatal(err)
			}
			done++
			if _, err := a.svc.SetProgress(ctx, job.ID, done*100/total); err != nil {
				log.Fatal(err)
			}
			status, _ := a.pollJob(ctx, job.ID)
			fmt.Printf("generated %s/%s %dx%d, poll: %s\n", s, p, img.Width, img.Height, status)
		}
	}
	if _, err := a.svc.CompleteJob(ctx, job.ID, fmt.Sprintf("%d images", total)); err != nil {
		log.Fatal(err)
	}
	status, _ = a.pollJob(ctx, job.ID)
	fmt.Println("poll:", status)
	_, err = a.svc.StartJob(ctx, job.ID)
	fmt.Println("restart a completed job:", err)

	// A regeneration of SIMPLE/INSTAGRAM, then the cache-aside image reads.
	regen := content.NewImage(eventID, content.StyleSimple, content.PlatformInstagram,
		"https://cdn.kt-event.com/images/"+eventID+"-simple-v2.png", "Clean and simple coffee event poster, v2")
	if err := a.svc.AddImage(ctx, &regen); err != nil {
		log.Fatal(err)
	}
	before := c.Metrics()
	for range 2 {
		d, err := a.image(ctx, eventID, content.StyleSimple, content.PlatformInstagram)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("image:", d.ImageURL)
	}
	after := c.Metrics()
	fmt.Printf("image cache: %d hits, %d misses\n", after.Hits-before.Hits, after.Misses-before.Misses)

	// The user picks the final image.
	if _, err := a.svc.SelectImage(ctx, eventID, regen.Style, regen.Platform, regen.ID, true); err != nil {
		log.Fatal(err)
	}
	sel, err := qc.SelectedImages(ctx, tbl, eventID)
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range sel {
		fmt.Printf("selected: %s/%s %s (kept until %s)\n", g.Style, g.Platform, g.CDNURL, g.ExpiresAt.Format(time.DateOnly))
	}
	imgs, err := qc.ImagesOfEvent(ctx, tbl, eventID, query.PageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("images of the event:", len(imgs.Items))
	jobs, err := qc.JobsByStatus(ctx, tbl, content.StatusCompleted, query.PageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, j := range jobs.Items {
		fmt.Printf("completed job %s: %s, kept until %s\n", j.ID, j.ResultMessage, j.ExpiresAt.Format(time.DateOnly))
	}

	// Leave the shared cache server clean (the keys would expire anyway).
	_, _ = c.Delete(context.Background(), content.JobCacheKey(job.ID), content.AIEventCacheKey(eventID),
		content.ImageCacheKey(eventID, content.StyleSimple, content.PlatformInstagram))
}
