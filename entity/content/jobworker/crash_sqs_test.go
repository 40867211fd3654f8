package jobworker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/content/jobworker"
	"github.com/tablekit/tablekit/internal/crashtest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
	"github.com/tablekit/tablekit/retry"
)

// dupWorld stores every message twice on SQS, as a standard queue may
// deliver a message more than once.
type dupWorld struct {
	*crashtest.SQSWorld[jobworker.Message]
}

func (q dupWorld) Send(ctx context.Context, m jobworker.Message) error {
	if err := q.SQSWorld.Send(ctx, m); err != nil {
		return err
	}
	return q.SQSWorld.Send(ctx, m)
}

// TestCrashJobFlowSQSDuplicateDelivery: every message is on goaws twice
// (a duplicate delivery), under TestCrashJobFlow's flow with every crash
// point enumerated in every mode: the second delivery of a finished job
// changes nothing and is deleted, every job ends COMPLETED with one image
// or FAILED, and every copy is delivered and deleted.
func TestCrashJobFlowSQSDuplicateDelivery(t *testing.T) {
	crashtest.Every(t, " (every message twice)", 0, func(k int, mode crashtest.Mode) ([]string, []string) {
		var dq dupWorld
		calls, v := flow(t, ddbmem.New(), func(t testing.TB) crashtest.WorldQueue[jobworker.Message] {
			dq = dupWorld{crashtest.SQS[jobworker.Message](t, testenv.PrivateSQS(t), time.Hour)}
			return dq
		}, k, mode)
		// Every copy was delivered and deleted, or is hidden by a receive
		// whose reply was lost (the consumer stopped while goaws answered
		// it): it comes back after the visibility timeout.
		st := dq.Q.Stats()
		queued, inFlight, err := dq.Counts(context.Background())
		if err != nil || queued != inFlight || st.Sent%2 != 0 || st.Deleted+int64(inFlight) != st.Sent {
			v = append(v, fmt.Sprintf("queue stats %+v, %d left (%d hidden), %v: want every copy delivered and deleted", st, queued, inFlight, err))
		}
		return calls, v
	})
}

// ackQueue records the errors of a process's acknowledgements (Delete,
// and ChangeVisibility for a retry).
type ackQueue struct {
	*crashtest.Queue[jobworker.Message]
	mu   sync.Mutex
	errs []error
}

func (q *ackQueue) Delete(ctx context.Context, handle string) error {
	return q.record(q.Queue.Delete(ctx, handle))
}

func (q *ackQueue) ChangeVisibility(ctx context.Context, handle string, d time.Duration) error {
	return q.record(q.Queue.ChangeVisibility(ctx, handle, d))
}

func (q *ackQueue) record(err error) error {
	q.mu.Lock()
	q.errs = append(q.errs, err)
	q.mu.Unlock()
	return err
}

// TestCrashJobFlowSQSExpiredReceipt: a receipt handle used after the
// visibility timeout, on goaws (visibility timeout 1 s). Worker A
// receives a job's message and is paused at one of the calls of its
// delivery for longer than the visibility timeout; the message comes
// back and worker B receives it: before A's claim B runs the job; after
// it B finds A's lease live and retries (once a second) until A, resumed,
// has finished; after A's completion B finds the job finished. A's
// acknowledgement with the expired receipt handle (its Delete, or the
// ChangeVisibility of a retry when B holds the lease then) fails with
// consumer.ErrInvalidHandle; the last delivery (to B, or to A again) is
// deleted. Every
// call of A's delivery is a pause point (enumerated): the job ends
// COMPLETED with exactly one image, the queue empty.
func TestCrashJobFlowSQSExpiredReceipt(t *testing.T) {
	const jobID = "job-img-exp1"
	flow := func(t *testing.T, k int) (calls, v []string) {
		bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
		w := newWorld(t, ddbmem.New(), func(t testing.TB) crashtest.WorldQueue[jobworker.Message] {
			return crashtest.SQS[jobworker.Message](t, testenv.PrivateSQS(t), time.Second)
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := w.process(t, nil).submit(ctx, jobID); err != nil {
			t.Fatal(err)
		}
		mode := crashtest.Stall
		if k == 0 {
			mode = crashtest.Fail
		}
		in := crashtest.New(k, mode, nil)
		a := w.process(t, in)
		aq := &ackQueue{Queue: a.q}
		ac, err := consumer.New[jobworker.Message](aq, a.worker.Handle, func(o *consumer.Options[jobworker.Message]) { o.Concurrency = 1 })
		if err != nil {
			t.Fatal(err)
		}
		actx, stopA := context.WithCancel(ctx)
		aDone := make(chan struct{})
		go func() { defer close(aDone); _ = ac.Run(actx) }()
		var b *process
		var bc *consumer.Consumer[jobworker.Message]
		var bDone chan struct{}
		stopB := func() {}
		if k == 0 {
			waitFor(ctx, func() bool { m := ac.Metrics(); return m.Succeeded == 1 && m.InFlight == 0 })
		} else {
			select {
			case <-in.Stalled():
			case <-ctx.Done():
				t.Fatal("A never reached its pause point")
			}
			// B receives the message once goaws's visibility timeout ran out.
			b = w.process(t, nil)
			bc, err = consumer.New[jobworker.Message](b.q, b.worker.Handle, func(o *consumer.Options[jobworker.Message]) {
				o.Concurrency = 1
				o.MaxReceives = 100
				o.Retry = retry.Constant(time.Second) // while A's lease is live
			})
			if err != nil {
				t.Fatal(err)
			}
			var bctx context.Context
			bctx, stopB = context.WithCancel(ctx)
			bDone = make(chan struct{})
			go func() { defer close(bDone); _ = bc.Run(bctx) }()
			waitFor(ctx, func() bool { return bc.Metrics().Received >= 1 })
			in.Resume()
			// Both run until the queue is empty: the next delivery after
			// A's completion (to either) finds the job finished.
			waitFor(ctx, func() bool {
				queued, _, err := w.q.Counts(ctx)
				return err == nil && queued == 0 && ac.Metrics().InFlight == 0 && bc.Metrics().InFlight == 0
			})
		}
		waitFor(ctx, func() bool { m := ac.Metrics(); return m.Received >= 1 && m.InFlight == 0 })
		stopA()
		<-aDone
		stopB()
		if bDone != nil {
			<-bDone
		}
		calls = in.Names()

		j, err := qc.JobByID(ctx, a.tbl, jobID, entity.ConsistentRead)
		if err != nil || j.Status != content.StatusCompleted || j.Progress != 100 {
			bad("job %+v, %v; want COMPLETED", j, err)
		}
		imgs, err := qc.ImagesOfEvent(ctx, a.tbl, "evt-crash", query.PageOptions{Limit: 100, ConsistentRead: true})
		if err != nil || len(imgs.Items) != 1 {
			bad("%d images, %v; want exactly one", len(imgs.Items), err)
		}
		if queued, inFlight, err := w.q.Counts(ctx); err != nil || queued != 0 {
			bad("queue ends with %d messages (%d in flight), %v", queued, inFlight, err)
		}
		if k == 0 {
			return calls, v
		}
		am, bm := ac.Metrics(), bc.Metrics()
		if am.AckFailed != 1 || bm.AckFailed != 0 || am.Succeeded+bm.Succeeded < 1 {
			bad("worker A %+v, worker B %+v; want A's first acknowledgement to fail and the last delivery deleted", am, bm)
		}
		aq.mu.Lock()
		if len(aq.errs) == 0 || !errors.Is(aq.errs[0], consumer.ErrInvalidHandle) {
			bad("A's acknowledgements returned %v, want consumer.ErrInvalidHandle first", aq.errs)
		}
		aq.mu.Unlock()
		return calls, v
	}
	calls, v := flow(t, 0)
	if len(v) > 0 {
		t.Fatalf("clean run: %v", v)
	}
	t.Logf("%d calls in worker A's delivery: %s", len(calls), strings.Join(calls, ", "))
	var mu sync.Mutex
	violations := 0
	t.Run("pause", func(t *testing.T) {
		for k := 1; k <= len(calls); k++ {
			t.Run(fmt.Sprintf("%d-%s", k, calls[k-1]), func(t *testing.T) {
				t.Parallel() // each waits for goaws's visibility timeout
				_, v := flow(t, k)
				for _, s := range v {
					t.Errorf("pause at call %d (%s): %s", k, calls[k-1], s)
				}
				mu.Lock()
				violations += len(v)
				mu.Unlock()
			})
		}
	})
	t.Logf("crash points: %d covered, invariant violations: %d", len(calls), violations)
	fmt.Printf("%s: crash points: %d covered, invariant violations: %d\n", t.Name(), len(calls), violations)
}

// waitFor polls cond every 5 ms until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) {
	for !cond() && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
}
