// Command participation is the runnable example of the participation-event
// system of seed 004: users click "participate" (some twice, at once), the
// API writes the IdempotencyLock and the Request in one transaction and
// sends a message to a queue, and a worker (package consumer's loop)
// processes the messages from an in-process SQS-like queue with
// at-least-once delivery. The queue delivers some
// messages twice and redelivers every message whose processing failed
// (for instance one that arrived before the API recorded QUEUED), so the
// idempotent worker is exercised. One event is FIRST_COME with three
// seats, one is a LOTTERY. The program prints what the admin and the users
// would see.
//
// It runs on the embedded engine (package ddbmem) when
// TABLEKIT_DYNAMODB_ENDPOINT is unset, else on that DynamoDB (Local)
// endpoint, in a table of its own that it deletes at the end. The queue is
// an SQS queue of its own (package consumer/sqsqueue) on the endpoint in
// TABLEKIT_SQS_ENDPOINT when it is set (goaws in the tests), else the
// in-process MemQueue. With PARTICIPATION_TRACE=stdout every DynamoDB
// request and every delivery is an OpenTelemetry span (package otelkit)
// written to stdout, one JSON line each.
//
//	go run ./examples/participation
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/consumer/sqsqueue"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/otelkit"
	"github.com/tablekit/tablekit/query"
	qp "github.com/tablekit/tablekit/query/participation"
	"github.com/tablekit/tablekit/retry"
)

// newClient returns the embedded engine, or a client of the DynamoDB
// endpoint in TABLEKIT_DYNAMODB_ENDPOINT.
func newClient() (entity.Client, string) {
	if ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"); ep != "" {
		return entity.LocalClient(ep), "DynamoDB at " + ep
	}
	return ddbmem.New(), "the embedded engine (ddbmem)"
}

// exampleQueue is what the example needs of its queue.
type exampleQueue interface {
	consumer.Queue[participation.Message]
	Send(ctx context.Context, m participation.Message) error
	WaitEmpty(ctx context.Context) error
	// counts returns the messages stored (duplicates included) and the
	// deliveries.
	counts() (sent, deliveries int64)
}

// newQueue is the queue: an SQS queue of its own on TABLEKIT_SQS_ENDPOINT
// (deleted by the returned func), else the in-process MemQueue (which
// behaves like SQS). Every third message is stored twice (at-least-once
// delivery), and a message whose handler failed comes back after the
// consumer's backoff.
func newQueue(ctx context.Context) (exampleQueue, string, func(), error) {
	var sent atomic.Int64
	dup := func(participation.Message) bool { return sent.Add(1)%3 == 0 }
	ep := os.Getenv("TABLEKIT_SQS_ENDPOINT")
	if ep == "" {
		return memQueue{consumer.NewMemQueue(func(o *consumer.MemQueueOptions[participation.Message]) { o.Duplicate = dup })},
			"the in-process MemQueue", func() {}, nil
	}
	c := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		})})
	name := fmt.Sprintf("participation-example-%d", time.Now().UnixNano())
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: &name, Attributes: map[string]string{"VisibilityTimeout": "5"}})
	if err != nil {
		return nil, "", nil, err
	}
	q, err := sqsqueue.New[participation.Message](c, func(o *sqsqueue.Options[participation.Message]) {
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
	*consumer.MemQueue[participation.Message]
}

func (q memQueue) counts() (int64, int64) {
	st := q.Stats()
	return st.Sent, st.Deliveries
}

// sqsQueue sends every message for which dup says so twice, as a standard
// SQS queue may deliver it twice.
type sqsQueue struct {
	*sqsqueue.Queue[participation.Message]
	dup func(participation.Message) bool
}

func (q *sqsQueue) Send(ctx context.Context, m participation.Message) error {
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

// newTelemetry returns otelkit writing spans to stdout when
// PARTICIPATION_TRACE=stdout, else nil, and the func that flushes it.
func newTelemetry() (*otelkit.Telemetry, func()) {
	if os.Getenv("PARTICIPATION_TRACE") != "stdout" {
		return nil, func() {}
	}
	exp, err := stdouttrace.New(stdouttrace.WithWriter(os.Stdout), stdouttrace.WithoutTimestamps())
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tel, err := otelkit.New(func(o *otelkit.Options) { o.TracerProvider = tp })
	if err != nil {
		log.Fatal(err)
	}
	return tel, func() { _ = tp.Shutdown(context.Background()) }
}

const maxReceives = 20

type stats struct {
	decided, duplicates, notReady atomic.Int64
}

// newWorker is the worker: package consumer's loop running
// Service.Process on every delivery, retrying early deliveries with
// backoff, and after maxReceives deliveries ending the request in
// FAILED_FINAL (the seed's final failure) through the dead-letter hook.
func newWorker(svc *participation.Service, q exampleQueue, st *stats, tel *otelkit.Telemetry) (*consumer.Consumer[participation.Message], error) {
	return consumer.New(q, func(ctx context.Context, m consumer.Message[participation.Message]) error {
		_, decided, err := svc.Process(ctx, m.Body)
		switch {
		case err == nil && decided:
			st.decided.Add(1)
		case err == nil:
			st.duplicates.Add(1)
		case errors.Is(err, participation.ErrNotReady):
			st.notReady.Add(1)
		}
		return err
	}, func(o *consumer.Options[participation.Message]) {
		o.Concurrency = 4
		o.MaxReceives = maxReceives
		if tel != nil {
			o.Tracer = tel.Consumer("participation")
		}
		o.Retry = retry.Exponential(2*time.Millisecond, 20*time.Millisecond)
		o.DeadLetter = func(ctx context.Context, m consumer.Message[participation.Message], err error) error {
			r, gerr := qp.Request(ctx, svc.Table(), m.Body.RequestID, entity.ConsistentRead)
			if gerr != nil {
				return gerr
			}
			ferr := svc.Fail(ctx, &r, participation.FailureTransient, participation.ErrorProcessing, err.Error())
			var te *participation.TransitionError
			if errors.As(ferr, &te) {
				return nil // already final
			}
			return ferr
		}
	})
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, where := newClient()
	name := fmt.Sprintf("ParticipationExample-%d", time.Now().UnixNano())
	tel, flush := newTelemetry()
	defer flush()
	tbl := participation.NewTable(client, name, func(o *entity.Options) {
		if tel != nil {
			o.Tracer = tel.Entity()
		}
	})
	if err := tbl.EnsureTable(ctx); err != nil {
		log.Fatal(err)
	}
	defer func() { _ = tbl.DeleteTable(context.Background()) }()
	fmt.Printf("table %s on %s\n", name, where)

	q, qwhere, dropQueue, err := newQueue(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer dropQueue()
	fmt.Printf("queue: %s\n", qwhere)
	svc := participation.NewService(tbl, q, func(o *participation.Options) {
		o.StatusLog = true
		// A reproducible draw: the parity of the bytes of the user ID.
		o.Draw = func(r participation.Request) bool {
			sum := 0
			for _, c := range []byte(r.UserID) {
				sum += int(c)
			}
			return sum%2 == 0
		}
	})
	if _, err := svc.CreateCapacity(ctx, "concert-2025", 3); err != nil {
		log.Fatal(err)
	}

	var st stats
	worker, err := newWorker(svc, q, &st, tel)
	if err != nil {
		log.Fatal(err)
	}
	wctx, stopWorker := context.WithCancel(ctx)
	workerDone := make(chan error, 1)
	go func() { workerDone <- worker.Run(wctx) }()

	// Clicks: every user clicks twice at once on the FIRST_COME event, and
	// once on the LOTTERY.
	users := []string{"minji", "jisoo", "hyun", "alice", "bob", "chloe", "dae", "eun"}
	var clicks sync.WaitGroup
	var dupClicks atomic.Int64
	for _, u := range users {
		for _, ev := range []struct {
			id   string
			mode participation.Mode
			n    int
		}{{"concert-2025", participation.ModeFirstCome, 2}, {"lottery-2025", participation.ModeLottery, 1}} {
			for range ev.n {
				clicks.Add(1)
				go func() {
					defer clicks.Done()
					rc, err := svc.Participate(ctx, ev.id, u, ev.mode)
					if err != nil {
						log.Fatal(err)
					}
					if rc.Duplicate {
						dupClicks.Add(1)
					}
				}()
			}
		}
	}
	clicks.Wait()
	if err := q.WaitEmpty(ctx); err != nil {
		log.Fatal(err)
	}
	stopWorker() // graceful: the loop stops receiving and drains
	<-workerDone
	m := worker.Metrics()
	qsent, qdeliveries := q.counts()

	fmt.Printf("clicks: %d, duplicate clicks answered with the first requestId: %d\n", 3*len(users), dupClicks.Load())
	fmt.Printf("queue: %d messages, %d deliveries; %d decided, %d duplicate deliveries ignored, %d early deliveries redelivered, %d failed\n",
		qsent, qdeliveries, st.decided.Load(), st.duplicates.Load(), st.notReady.Load(), m.DeadLettered)
	// The reconciler (run periodically in production) finds nothing stuck.
	rs, err := svc.Reconcile(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("reconciler: %d requests stuck, %d re-enqueued, %d finalised\n", rs.Seen, rs.Reenqueued, rs.Finalised)

	for _, ev := range []string{"concert-2025", "lottery-2025"} {
		fmt.Printf("\nevent %s (admin, GSI2 in queue order):\n", ev)
		var lines []string
		after := ""
		for {
			page, err := qp.EventRequests(ctx, tbl, ev, query.PageOptions{Limit: 5, After: after})
			if err != nil {
				log.Fatal(err)
			}
			for _, r := range page.Items {
				lines = append(lines, fmt.Sprintf("  %-6s %-12s %s", r.UserID, r.Status, r.UIResult))
			}
			if after = page.Next; after == "" {
				break
			}
		}
		fmt.Println(strings.Join(lines, "\n"))
		sum, err := qp.StatusCounts(ctx, tbl, ev)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  total %d: %s\n", sum.Total, counts(sum))
	}
	c, err := qp.Capacity(ctx, tbl, "concert-2025", entity.ConsistentRead)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nconcert-2025 capacity: %d of %d left\n", c.CapacityRemaining, c.CapacityTotal)

	mine, err := qp.MyParticipations(ctx, tbl, "minji", query.PageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\nminji's participations (GSI1, newest first):")
	for _, r := range mine.Items {
		fmt.Printf("  %s %s %s\n", r.EventID, r.Status, r.UIResult)
		logs, err := qp.RequestLogs(ctx, tbl, r.RequestID, query.PageOptions{ConsistentRead: true})
		if err != nil {
			log.Fatal(err)
		}
		var steps []string
		for _, l := range logs.Items {
			steps = append(steps, string(l.To))
		}
		fmt.Printf("    log: %s\n", strings.Join(steps, " -> "))
	}
}

func counts(s qp.Summary) string {
	var parts []string
	for k, n := range s.ByUIResult {
		parts = append(parts, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
