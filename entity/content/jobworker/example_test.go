package jobworker_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/content/jobworker"
	qc "github.com/tablekit/tablekit/query/content"
)

// A job created and enqueued, run by a worker on the consumer loop. On
// SQS the queue is a consumer/sqsqueue.Queue (its Send and the
// consumer.Queue methods) in place of the MemQueue: examples/jobworker
// runs the flow so when TABLEKIT_SQS_ENDPOINT is set.
func Example() {
	ctx := context.Background()
	tbl := content.NewTable(ddbmem.New(), "Content")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	svc := content.NewService(tbl)
	q := consumer.NewMemQueue[jobworker.Message]()
	w, err := jobworker.New(svc, tbl, q.Send, func(ctx context.Context, j content.Job) (string, error) {
		return "4 images", nil // the generation
	}, func(o *jobworker.Options) { o.Lease = 10 * time.Second })
	if err != nil {
		panic(err)
	}
	c, _ := consumer.New(q, w.Handle, func(o *consumer.Options[jobworker.Message]) { o.DeadLetter = w.DeadLetter })

	job := content.Job{ID: "job-img-abc123", EventID: "evt-draft-12345", Kind: content.KindImageGeneration}
	if err := svc.CreateJob(ctx, &job); err != nil {
		panic(err)
	}
	_ = q.Send(ctx, jobworker.Message{JobID: job.ID})

	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(rctx) }()
	_ = q.WaitEmpty(ctx)
	stop()
	<-done

	j, _ := qc.JobByID(ctx, tbl, job.ID, entity.ConsistentRead)
	fmt.Println(j.Status, j.Progress, j.ResultMessage, j.Attempts)
	st, _ := w.Reconcile(ctx)
	fmt.Printf("reconciler: %d unfinished jobs\n", st.Seen)
	// Output:
	// COMPLETED 100 4 images 1
	// reconciler: 0 unfinished jobs
}
