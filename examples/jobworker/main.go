// Command jobworker is the runnable example of seed 003's image-generation
// jobs run crash-safely by package jobworker on package consumer's
// at-least-once loop. The API creates each job PENDING and sends a message
// naming it; the worker claims the job under a lease, generates (here: one
// image per job, keyed by the job, so a second run adds nothing) and
// completes it. The run shows what the flow survives:
//
//   - duplicate deliveries: every second message is on the queue twice, as
//     a standard SQS queue may deliver a message more than once; the
//     second delivery of a finished job changes nothing;
//   - a worker that died holding a job: its lease (1 s) runs out, the
//     job's delivery, retried meanwhile, reclaims it (attempt 2);
//   - an API that died between the job's write and its send: the
//     reconciler (Worker.Reconcile) finds the job PENDING for longer than
//     StuckAfter and sends its message again.
//
// DynamoDB: the embedded engine (package ddbmem) when
// TABLEKIT_DYNAMODB_ENDPOINT is unset, else that endpoint (DynamoDB Local),
// in a table of its own that is deleted at the end. The queue: an SQS queue
// of its own (package consumer/sqsqueue, deleted at the end) on the
// endpoint in TABLEKIT_SQS_ENDPOINT when it is set (goaws in the tests),
// else the in-process consumer.MemQueue.
//
//	go run ./examples/jobworker
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/consumer/sqsqueue"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/content/jobworker"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
	"github.com/tablekit/tablekit/retry"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// newClient returns the embedded engine, or a client of the DynamoDB
// endpoint in TABLEKIT_DYNAMODB_ENDPOINT.
func newClient() (entity.Client, string) {
	if ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"); ep != "" {
		return entity.LocalClient(ep), "DynamoDB at " + ep
	}
	return ddbmem.New(), "the embedded engine (ddbmem)"
}

// jobQueue is what the example needs of its queue.
type jobQueue interface {
	consumer.Queue[jobworker.Message]
	Send(ctx context.Context, m jobworker.Message) error
	WaitEmpty(ctx context.Context) error
	// counts returns the messages stored (duplicates included) and the
	// deliveries.
	counts() (sent, deliveries int64)
}

// newQueue is the queue: an SQS queue of its own on TABLEKIT_SQS_ENDPOINT
// (deleted by the returned func), else the in-process MemQueue (which
// behaves like SQS). Every second message is stored twice.
func newQueue(ctx context.Context) (jobQueue, string, func(), error) {
	var sent atomic.Int64
	dup := func(jobworker.Message) bool { return sent.Add(1)%2 == 0 }
	ep := os.Getenv("TABLEKIT_SQS_ENDPOINT")
	if ep == "" {
		return memQueue{consumer.NewMemQueue(func(o *consumer.MemQueueOptions[jobworker.Message]) { o.Duplicate = dup })},
			"the in-process MemQueue", func() {}, nil
	}
	c := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		})})
	name := fmt.Sprintf("jobworker-example-%d", time.Now().UnixNano())
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: &name, Attributes: map[string]string{"VisibilityTimeout": "5"}})
	if err != nil {
		return nil, "", nil, err
	}
	q, err := sqsqueue.New[jobworker.Message](c, func(o *sqsqueue.Options[jobworker.Message]) {
		o.QueueURL = aws.ToString(out.QueueUrl)
		o.WaitTime = time.Second
		o.NoVisibilityBatch = true // goaws lacks ChangeMessageVisibilityBatch
		o.CountReceives = true     // goaws always reports ApproximateReceiveCount 1
	})
	if err != nil {
		return nil, "", nil, err
	}
	drop := func() { _, _ = c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: out.QueueUrl}) }
	return &sqsQueue{Queue: q, dup: dup}, "SQS at " + ep, drop, nil
}

type memQueue struct {
	*consumer.MemQueue[jobworker.Message]
}

func (q memQueue) counts() (int64, int64) {
	st := q.Stats()
	return st.Sent, st.Deliveries
}

// sqsQueue sends every message for which dup says so twice.
type sqsQueue struct {
	*sqsqueue.Queue[jobworker.Message]
	dup func(jobworker.Message) bool
}

func (q *sqsQueue) Send(ctx context.Context, m jobworker.Message) error {
	if err := q.Queue.Send(ctx, m); err != nil {
		return err
	}
	if q.dup(m) {
		return q.Queue.Send(ctx, m)
	}
	return nil
}

func (q *sqsQueue) counts() (int64, int64) {
	st := q.Stats()
	return st.Sent, st.Received
}

const eventID = "evt-spring-2025"

// run runs the example and writes what it shows to out.
func run(ctx context.Context, out io.Writer) error {
	client, where := newClient()
	tbl := content.NewTable(client, fmt.Sprintf("JobWorkerExample-%d", time.Now().UnixNano()))
	if err := tbl.EnsureTable(ctx); err != nil {
		return err
	}
	defer func() { _ = tbl.DeleteTable(context.Background()) }()
	fmt.Fprintf(out, "table %s on %s\n", tbl.Name(), where)
	q, qwhere, dropQueue, err := newQueue(ctx)
	if err != nil {
		return err
	}
	defer dropQueue()
	fmt.Fprintf(out, "queue: %s\n", qwhere)
	svc := content.NewService(tbl)

	// The generation: one image per job, keyed by the job, so that a run
	// after a crash finds it and adds nothing.
	var mu sync.Mutex
	generations := map[string]int{}
	generate := func(ctx context.Context, j content.Job) (string, error) {
		mu.Lock()
		generations[j.ID]++
		mu.Unlock()
		g := content.NewImage(j.EventID, content.StyleSimple, content.PlatformInstagram, "https://cdn.example/"+j.ID+".png", "spring poster")
		g.ID = "img-" + j.ID
		if err := svc.AddImage(ctx, &g); err != nil && !errors.Is(err, entity.ErrAlreadyExists) {
			return "", err
		}
		return "1 image", nil
	}
	const stuckAfter = time.Second
	w, err := jobworker.New(svc, tbl, q.Send, generate, func(o *jobworker.Options) {
		o.Lease = 5 * time.Second
		o.StuckAfter = stuckAfter
	})
	if err != nil {
		return err
	}
	worker, err := consumer.New(q, w.Handle, func(o *consumer.Options[jobworker.Message]) {
		o.Concurrency = 4
		o.MaxReceives = 20
		o.Retry = retry.Constant(time.Second) // a job leased by a live worker: try again in a second
		o.DeadLetter = w.DeadLetter
	})
	if err != nil {
		return err
	}

	// The API: three jobs created and sent.
	submit := func(id string, send bool) error {
		j := content.Job{ID: id, EventID: eventID, Kind: content.KindImageGeneration}
		if err := svc.CreateJob(ctx, &j); err != nil {
			return err
		}
		if !send {
			return nil
		}
		return q.Send(ctx, jobworker.Message{JobID: id})
	}
	ids := []string{"job-img-poster1", "job-img-poster2", "job-img-poster3", "job-img-crashed", "job-img-lost"}
	for _, id := range ids[:3] {
		if err := submit(id, true); err != nil {
			return err
		}
	}
	// A worker claimed job-img-crashed with a 1 s lease and died.
	if err := submit("job-img-crashed", true); err != nil {
		return err
	}
	if _, err := svc.ClaimJob(ctx, "job-img-crashed", "worker-that-died", time.Second); err != nil {
		return err
	}
	// The API died between job-img-lost's write and its send.
	if err := submit("job-img-lost", false); err != nil {
		return err
	}
	created := time.Now()

	wctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- worker.Run(wctx) }()
	if err := q.WaitEmpty(ctx); err != nil {
		return err
	}
	// The reconciler (run periodically in production) sends job-img-lost's
	// message once it has been PENDING for StuckAfter.
	time.Sleep(time.Until(created.Add(stuckAfter + 100*time.Millisecond)))
	rs, err := w.Reconcile(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "reconciler: %d unfinished jobs, %d messages sent again\n", rs.Seen, rs.Resent)
	if err := q.WaitEmpty(ctx); err != nil {
		return err
	}
	stop() // graceful: the loop stops receiving and drains
	<-done
	rs, err = w.Reconcile(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "reconciler again: %d unfinished jobs\n", rs.Seen)

	sent, deliveries := q.counts()
	m := worker.Metrics()
	fmt.Fprintf(out, "queue: %d messages (duplicates included), %d deliveries; worker: %d handled, %d retried (job leased by the dead worker), %d dead-lettered\n",
		sent, deliveries, m.Succeeded, m.Retried, m.DeadLettered)
	imgs, err := qc.ImagesOfEvent(ctx, tbl, eventID, query.PageOptions{Limit: 100, ConsistentRead: true})
	if err != nil {
		return err
	}
	perJob := map[string]int{}
	for _, g := range imgs.Items {
		perJob[g.ID]++
	}
	sort.Strings(ids)
	for _, id := range ids {
		j, err := qc.JobByID(ctx, tbl, id, entity.ConsistentRead)
		if err != nil {
			return err
		}
		mu.Lock()
		gens := generations[id]
		mu.Unlock()
		fmt.Fprintf(out, "%s: %s %d%% %q, attempts %d, generations %d, images %d\n",
			id, j.Status, j.Progress, j.ResultMessage, j.Attempts, gens, perJob["img-"+id])
	}
	return nil
}
