package crashtest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/consumer/sqsqueue"
	"github.com/tablekit/tablekit/internal/testenv"
)

// WorldQueue is the queue shared by every process of a crash test's
// world (each process wraps it in a [Queue] under its own injector), with
// what the test needs to watch and steer it. [MemWorld] is one on
// consumer.MemQueue, [SQSWorld] one on an SQS queue (goaws in the tests).
type WorldQueue[T any] interface {
	SendQueue[T]
	// Counts returns how many messages are not yet deleted and how many
	// of them are hidden now (received, their visibility timeout not run
	// out).
	Counts(ctx context.Context) (queued, inFlight int, err error)
	// Redeliver makes every hidden message visible at once, as if its
	// visibility timeout had run out: the deliveries of a crashed
	// process come back when the test says.
	Redeliver(ctx context.Context) error
	// Where names the queue in test logs ("MemQueue", "SQS").
	Where() string
}

// MemWorld is a [WorldQueue] on a consumer.MemQueue.
type MemWorld[T any] struct {
	*consumer.MemQueue[T]
}

var _ WorldQueue[int] = MemWorld[int]{}

// Counts implements WorldQueue from the queue's Stats.
func (q MemWorld[T]) Counts(context.Context) (int, int, error) {
	st := q.Stats()
	return st.Len, st.InFlight, nil
}

// Redeliver implements WorldQueue (consumer.MemQueue.Redeliver).
func (q MemWorld[T]) Redeliver(context.Context) error {
	q.MemQueue.Redeliver()
	return nil
}

// Where implements WorldQueue.
func (MemWorld[T]) Where() string { return "MemQueue" }

// SQSWorld is a [WorldQueue] on an SQS queue through package
// consumer/sqsqueue. It remembers the receipt handles of the deliveries
// not yet deleted, and Redeliver makes them visible with
// ChangeVisibility(0). Counts reads the queue's attributes as goaws
// reports them (ApproximateNumberOfMessages counts hidden messages too).
type SQSWorld[T any] struct {
	Q *sqsqueue.Queue[T]

	mu     sync.Mutex
	hidden map[string]struct{}
}

var _ WorldQueue[int] = (*SQSWorld[int])(nil)

// NewSQSWorld returns the world queue of q.
func NewSQSWorld[T any](q *sqsqueue.Queue[T]) *SQSWorld[T] {
	return &SQSWorld[T]{Q: q, hidden: map[string]struct{}{}}
}

// SQS creates a fresh queue with the visibility timeout visibility on the
// SQS server of c (the crash tests pass testenv.PrivateSQS: a goaws of the
// test process alone), deleted at the end of the test, and returns its
// world queue. The sqsqueue options are set for goaws
// (NoVisibilityBatch, CountReceives); optFns may change them. Its
// receives are short polls that always finish ([settledReceives]).
func SQS[T any](t testing.TB, c *sqs.Client, visibility time.Duration, optFns ...func(*sqsqueue.Options[T])) *SQSWorld[T] {
	t.Helper()
	url := testenv.SQSQueue(t, c, "crash", map[string]string{"VisibilityTimeout": strconv.Itoa(int(visibility / time.Second))})
	q, err := sqsqueue.New(settledReceives{c}, append([]func(*sqsqueue.Options[T]){func(o *sqsqueue.Options[T]) {
		o.QueueURL = url
		o.NoVisibilityBatch = true // goaws lacks ChangeMessageVisibilityBatch
		o.CountReceives = true     // goaws always reports ApproximateReceiveCount 1
	}}, optFns...)...)
	if err != nil {
		t.Fatal(err)
	}
	return NewSQSWorld(q)
}

// settledReceives is the SQS client of a world's queue. Its
// ReceiveMessage is a short poll (WaitTimeSeconds 0): a receive cut short
// by the consumer's ctx runs to its end (sqsqueue lets it, and makes what
// it got visible again), and a short poll ends at once, so Counts and
// Redeliver, which wait for that (Queue.WaitReceives), wait only a moment.
// With a long poll they would wait out its wait; and a poll left open on
// goaws takes the next message sent (a reconciler's re-send) at any time.
// An empty answer pauses a moment before the consumer asks again, so that
// an idle consumer does not spin; a new message waits less than goaws's
// long poll would make it wait (it looks every 100 ms).
type settledReceives struct{ *sqs.Client }

// emptyPause is the pause after an empty answer.
const emptyPause = 10 * time.Millisecond

func (c settledReceives) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	short := *in
	short.WaitTimeSeconds = 0
	out, err := c.Client.ReceiveMessage(ctx, &short, optFns...)
	if err == nil && len(out.Messages) == 0 {
		t := time.NewTimer(emptyPause)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return out, err
}

// Send implements consumer's queue sender.
func (q *SQSWorld[T]) Send(ctx context.Context, body T) error { return q.Q.Send(ctx, body) }

// Receive implements consumer.Queue and remembers the handles.
func (q *SQSWorld[T]) Receive(ctx context.Context, max int) ([]consumer.Message[T], error) {
	msgs, err := q.Q.Receive(ctx, max)
	q.mu.Lock()
	for _, m := range msgs {
		q.hidden[m.Handle] = struct{}{}
	}
	q.mu.Unlock()
	return msgs, err
}

// Delete implements consumer.Queue.
func (q *SQSWorld[T]) Delete(ctx context.Context, handle string) error {
	err := q.Q.Delete(ctx, handle)
	if err == nil || errors.Is(err, consumer.ErrInvalidHandle) {
		q.mu.Lock()
		delete(q.hidden, handle)
		q.mu.Unlock()
	}
	return err
}

// ChangeVisibility implements consumer.Queue.
func (q *SQSWorld[T]) ChangeVisibility(ctx context.Context, handle string, d time.Duration) error {
	return q.Q.ChangeVisibility(ctx, handle, d)
}

// Counts implements WorldQueue (Queue.Len), once the receives cut short
// by their ctx have made what they got visible again
// (Queue.WaitReceives), so that a message on its way back never looks
// in flight elsewhere.
func (q *SQSWorld[T]) Counts(ctx context.Context) (int, int, error) {
	if err := q.Q.WaitReceives(ctx); err != nil {
		return 0, 0, err
	}
	return q.Q.Len(ctx)
}

// Redeliver implements WorldQueue: ChangeVisibility(0) on every
// remembered handle; a handle that is no longer current (the message was
// deleted, or is visible or received again already) is skipped.
func (q *SQSWorld[T]) Redeliver(ctx context.Context) error {
	if err := q.Q.WaitReceives(ctx); err != nil {
		return err
	}
	q.mu.Lock()
	hs := make([]string, 0, len(q.hidden))
	for h := range q.hidden {
		hs = append(hs, h)
	}
	clear(q.hidden)
	q.mu.Unlock()
	for _, h := range hs {
		if err := q.Q.ChangeVisibility(ctx, h, 0); err != nil && !errors.Is(err, consumer.ErrInvalidHandle) {
			return err
		}
	}
	return nil
}

// Where implements WorldQueue.
func (q *SQSWorld[T]) Where() string { return "SQS" }

// Purge receives and deletes every visible message of q (a queue that
// loses its messages), until Counts reports none visible. It returns the
// first error of q.
func Purge[T any](ctx context.Context, q WorldQueue[T]) error {
	for {
		queued, inFlight, err := q.Counts(ctx)
		if err != nil || queued <= inFlight {
			return err
		}
		msgs, err := q.Receive(ctx, 10)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := q.Delete(ctx, m.Handle); err != nil && !errors.Is(err, consumer.ErrInvalidHandle) {
				return err
			}
		}
	}
}
