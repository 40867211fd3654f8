package content_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
)

// A job generates one image: the job moves PENDING -> PROCESSING ->
// COMPLETED, the image gets the platform's default size and a 90-day
// retention.
func Example() {
	ctx := context.Background()
	tbl := content.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	now := time.Date(2025, 10, 29, 10, 0, 0, 0, time.UTC)
	svc := content.NewService(tbl, func(o *content.Options) { o.Now = func() time.Time { return now } })

	job := content.Job{ID: "job-img-abc123", EventID: "evt-draft-12345", Kind: content.KindImageGeneration}
	if err := svc.CreateJob(ctx, &job); err != nil {
		panic(err)
	}
	if _, err := svc.StartJob(ctx, job.ID); err != nil {
		panic(err)
	}
	img := content.NewImage("evt-draft-12345", content.StyleSimple, content.PlatformFacebook,
		"https://cdn.kt-event.com/images/evt-draft-12345-simple.png", "Clean and simple coffee event poster")
	if err := svc.AddImage(ctx, &img); err != nil {
		panic(err)
	}
	done, err := svc.CompleteJob(ctx, job.ID, "1 image")
	if err != nil {
		panic(err)
	}
	_, err = svc.StartJob(ctx, job.ID)
	fmt.Println(done.Status, done.Progress, done.CompletedAt.Format(time.RFC3339))
	fmt.Println(err)
	fmt.Println(img.Width, img.Height, img.ExpiresAt.Format(time.DateOnly))
	k, _ := content.JobKey(job.ID)
	fmt.Println(k.PK, k.SK)
	// Output:
	// COMPLETED 100 2025-10-29T10:00:00Z
	// content: illegal job status transition COMPLETED -> PROCESSING (job job-img-abc123)
	// 1200 628 2026-01-27
	// JOB#job-img-abc123 META
}

// The seed's rules hold on every write path, not only through Service: a
// plain entity.Store refuses a job with progress 500, and writes nothing.
func Example_rules() {
	ctx := context.Background()
	tbl := content.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	jobs := entity.NewStore[content.Job](tbl)
	job := content.Job{ID: "job-img-abc123", EventID: "evt-1", Kind: content.KindImageGeneration, Status: content.StatusProcessing, Progress: 500}
	err := jobs.Create(ctx, &job)
	var ce *entity.ConstraintError
	fmt.Println(errors.As(err, &ce), ce.Attr, ce.Value, ce.Rule, ce.Limit)

	job.Progress = 40
	if err := jobs.Create(ctx, &job); err != nil {
		panic(err)
	}
	_, err = jobs.Update(ctx, entity.Key{PK: "JOB#job-img-abc123", SK: "META"}, entity.Changes[content.Job]{entity.Set(content.JobStatus, "PAUSED")})
	fmt.Println(errors.Is(err, entity.ErrValidation), errors.As(err, &ce), ce.Attr, ce.Value)
	// Output:
	// true progress 500 max 100
	// true true status PAUSED
}
