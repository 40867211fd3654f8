package participation_test

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
	p "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/internal/crashtest"
	"github.com/tablekit/tablekit/internal/testenv"
	qp "github.com/tablekit/tablekit/query/participation"
)

// The crash-point tests of seed 004 on a real SQS-compatible server:
// goaws (a goaws of the test process, testenv.PrivateSQS, from the binary
// the test command installs, or else the shared one at
// TABLEKIT_SQS_ENDPOINT; without either these tests skip, and fail in CI),
// a fresh queue per run, through consumer/sqsqueue. The table is the embedded engine: the queue is what
// these tests exercise (TestCrashParticipationDynamoDBLocal covers the
// table on DynamoDB Local).

// TestCrashParticipationSQS runs TestCrashParticipation's flow with its
// queue on goaws, every crash point enumerated in every mode, with and
// without the status log: among them the send that lands before the
// process dies (the crash between the send and the QUEUED write), a
// Delete that fails or whose process dies (the message comes back: a
// duplicate delivery), and the consumer's retries (ChangeVisibility).
func TestCrashParticipationSQS(t *testing.T) {
	for _, statusLog := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "status log"}[statusLog], func(t *testing.T) {
			crashAll(t, func() entity.Client { return ddbmem.New() }, crashSQS(time.Hour), statusLog, 0)
		})
	}
}

// TestCrashReconcilerPassSQS runs TestCrashReconcilerPass on goaws: the
// reconciler's re-sent message goes through SQS, and "a queue that loses
// every message" receives and deletes what the reconciler sent.
func TestCrashReconcilerPassSQS(t *testing.T) {
	crashReconcilerPass(t, crashSQS(time.Hour))
}

// TestCrashSQSSendBeforeQueued: the crash between the send and the
// QUEUED write, on goaws. The participation's send lands on SQS, then
// either its reply is lost (the API sees an error and finalises the
// request FAILED_FINAL, INGEST_ENQUEUE) or the process dies (the request
// stays RECEIVED without queuedAt). The message waits on the queue; a
// worker of a new process receives it: for the RECEIVED request the
// delivery proves the enqueue and the worker records QUEUED with the
// message's queuedAt, then decides; for the final one it changes nothing.
// The user's click afterwards gets the live request or, after
// FAILED_FINAL, a new one. Both modes at the first send, and the
// invariants of TestCrashParticipation after recovery.
func TestCrashSQSSendBeforeQueued(t *testing.T) {
	modes := []crashtest.Mode{crashtest.LoseReply, crashtest.DieAfter}
	violations := 0
	defer func() {
		t.Logf("crash points: %d covered, invariant violations: %d", len(modes), violations)
		fmt.Printf("%s: crash points: %d covered, invariant violations: %d\n", t.Name(), len(modes), violations)
	}()
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			w := newCrashWorld(t, ddbmem.New(), 1, crashSQS(time.Hour))
			ctx := context.Background()
			pctx, kill := context.WithCancel(ctx)
			defer kill()
			in := crashtest.New(2, mode, kill) // 1: the participation transaction, 2: the send
			a := w.process(t, in, 1)
			_, _ = a.svc.Participate(pctx, crashEvent, "u1", p.ModeFirstCome)
			if got := in.Fired(); got != "Queue.Send" {
				t.Fatalf("fault fired at %q, want Queue.Send (calls %v)", got, in.Names())
			}
			b := w.process(t, nil, 1)
			rs := requests(ctx, t, w)
			if len(rs) != 1 {
				t.Fatalf("%d requests after the crash, want 1", len(rs))
			}
			r := rs[0]
			if queued, inFlight, err := w.q.Counts(ctx); err != nil || queued != 1 || inFlight != 0 {
				t.Fatalf("queue after the crash: %d queued, %d in flight, %v; want the message waiting", queued, inFlight, err)
			}
			wantAfterCrash := map[crashtest.Mode]p.Status{crashtest.LoseReply: p.StatusFailedFinal, crashtest.DieAfter: p.StatusReceived}[mode]
			if r.Status != wantAfterCrash || !r.QueuedAt.IsZero() {
				t.Fatalf("request after the crash: %s, queuedAt %v; want %s without queuedAt", r.Status, r.QueuedAt, wantAfterCrash)
			}

			b.drain(ctx, w, 10*time.Second)
			if queued, _, err := w.q.Counts(ctx); err != nil || queued != 0 {
				t.Fatalf("queue after the worker: %d messages, %v", queued, err)
			}
			got, err := qp.Request(ctx, b.tbl, r.RequestID, entity.ConsistentRead)
			if err != nil {
				t.Fatal(err)
			}
			switch mode {
			case crashtest.DieAfter:
				if got.Status != p.StatusSucceeded || got.QueuedAt.IsZero() {
					t.Errorf("request %s, queuedAt %v; want SUCCEEDED with the queuedAt of the message", got.Status, got.QueuedAt)
				}
			case crashtest.LoseReply:
				if got.Status != p.StatusFailedFinal || got.ErrorCode != p.ErrorIngestEnqueue {
					t.Errorf("request %s/%s; the late message must not revive a final request", got.Status, got.ErrorCode)
				}
			}
			// The user clicks again: the live request answers, or after
			// FAILED_FINAL a new one is made and processed.
			rc, err := b.svc.Participate(ctx, crashEvent, "u1", p.ModeFirstCome)
			if err != nil {
				t.Fatal(err)
			}
			if mode == crashtest.DieAfter && (!rc.Duplicate || rc.RequestID != r.RequestID) {
				t.Errorf("click after recovery: %+v, want the live request %s", rc, r.RequestID)
			}
			b.drain(ctx, w, 10*time.Second)
			for _, v := range checkInvariants(ctx, t, w, []string{"u1"}, 1, nil) {
				violations++
				t.Error(v)
			}
		})
	}
}

// requests returns the Request items of the world's table.
func requests(ctx context.Context, t testing.TB, w *crashWorld) []p.Request {
	t.Helper()
	var out []p.Request
	tbl := p.NewTable(w.raw, w.name)
	for _, it := range items(ctx, t, w) {
		if str(it, "Type") != p.RequestType {
			continue
		}
		r, err := qp.Request(ctx, tbl, str(it, "requestId"), entity.ConsistentRead)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// ackQueue records the errors of a process's Deletes.
type ackQueue struct {
	*crashtest.Queue[p.Message]
	mu   sync.Mutex
	errs []error
}

func (q *ackQueue) Delete(ctx context.Context, handle string) error {
	err := q.Queue.Delete(ctx, handle)
	q.mu.Lock()
	q.errs = append(q.errs, err)
	q.mu.Unlock()
	return err
}

// TestCrashSQSExpiredReceipt: a receipt handle used after the visibility
// timeout, on goaws (queue visibility timeout 1 s). Worker A receives the
// message and is paused (a GC pause, a partition) at one of the calls of
// its delivery, for longer than the visibility timeout; goaws makes the
// message visible again and worker B receives it (delivery 2) and
// finishes it. Then A goes on: its writes lose the conditional races
// (the request has moved on), its handler returns nil, and its Delete,
// with the expired receipt handle, fails with consumer.ErrInvalidHandle
// (counted in A's Metrics.AckFailed) while B's Delete took the message
// off the queue. Every call of A's delivery is a pause point
// (enumerated): exactly one decision, the invariants hold, the queue ends
// empty.
func TestCrashSQSExpiredReceipt(t *testing.T) {
	// flow pauses A at its call k (0: no pause, A finishes alone) and
	// returns A's calls and the violations.
	flow := func(t *testing.T, k int) (calls, v []string) {
		bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
		w := newCrashWorld(t, ddbmem.New(), 1, crashSQS(time.Second))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		api := w.process(t, nil, 1)
		if _, err := api.svc.Participate(ctx, crashEvent, "u1", p.ModeFirstCome); err != nil {
			t.Fatal(err)
		}
		mode := crashtest.Stall
		if k == 0 {
			mode = crashtest.Fail
		}
		in := crashtest.New(k, mode, nil)
		a := w.process(t, in, 1)
		aq := &ackQueue{Queue: a.q}
		ac, err := consumer.New[p.Message](aq, func(ctx context.Context, m consumer.Message[p.Message]) error {
			_, _, err := a.svc.Process(ctx, m.Body)
			return err
		}, func(o *consumer.Options[p.Message]) { o.Concurrency = 1 })
		if err != nil {
			t.Fatal(err)
		}
		actx, stopA := context.WithCancel(ctx)
		aDone := make(chan struct{})
		go func() { defer close(aDone); _ = ac.Run(actx) }()
		if k == 0 {
			waitFor(ctx, func() bool { return ac.Metrics().Succeeded == 1 && ac.Metrics().InFlight == 0 })
			stopA()
			<-aDone
			return in.Names(), checkInvariants(ctx, t, w, []string{"u1"}, 1, nil)
		}
		select {
		case <-in.Stalled():
		case <-ctx.Done():
			t.Fatal("A never reached its pause point")
		}
		// B receives the message once goaws's visibility timeout ran out.
		b := w.process(t, nil, 1)
		var redelivery int
		bc, err := consumer.New[p.Message](b.q, func(ctx context.Context, m consumer.Message[p.Message]) error {
			redelivery = m.ReceiveCount
			_, _, err := b.svc.Process(ctx, m.Body)
			return err
		}, func(o *consumer.Options[p.Message]) { o.Concurrency = 1 })
		if err != nil {
			t.Fatal(err)
		}
		bctx, stopB := context.WithCancel(ctx)
		bDone := make(chan struct{})
		go func() { defer close(bDone); _ = bc.Run(bctx) }()
		waitFor(ctx, func() bool { m := bc.Metrics(); return m.Succeeded == 1 && m.InFlight == 0 })
		stopB()
		<-bDone
		in.Resume()
		waitFor(ctx, func() bool { m := ac.Metrics(); return m.Received == 1 && m.InFlight == 0 })
		stopA()
		<-aDone

		if bm := bc.Metrics(); bm.Succeeded != 1 || bm.AckFailed != 0 || redelivery != 2 {
			bad("worker B: %+v, delivery %d; want the second delivery handled and deleted", bm, redelivery)
		}
		if am := ac.Metrics(); am.Succeeded != 1 || am.AckFailed != 1 {
			bad("worker A: %+v; want its handler to succeed and its Delete to fail", am)
		}
		aq.mu.Lock()
		if len(aq.errs) != 1 || !errors.Is(aq.errs[0], consumer.ErrInvalidHandle) {
			bad("A's Deletes returned %v, want one consumer.ErrInvalidHandle", aq.errs)
		}
		aq.mu.Unlock()
		if queued, inFlight, err := w.q.Counts(ctx); err != nil || queued != 0 {
			bad("queue ends with %d messages (%d in flight), %v", queued, inFlight, err)
		}
		return in.Names(), append(v, checkInvariants(ctx, t, w, []string{"u1"}, 1, nil)...)
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

// dupWorld stores every message twice on SQS, as a standard queue may
// deliver a message more than once.
type dupWorld struct {
	*crashtest.SQSWorld[p.Message]
}

func (q dupWorld) Send(ctx context.Context, m p.Message) error {
	if err := q.SQSWorld.Send(ctx, m); err != nil {
		return err
	}
	return q.SQSWorld.Send(ctx, m)
}

// TestCrashSQSDuplicateDelivery: every message is on goaws twice (a
// duplicate delivery, which a standard SQS queue may make at any time),
// under the flow of TestCrashParticipationSQS with every crash point
// enumerated in every mode: the second delivery of a decided request
// changes nothing and is deleted; exactly N winners; every copy is
// delivered and deleted.
func TestCrashSQSDuplicateDelivery(t *testing.T) {
	crashtest.Every(t, " in Participate x4, Process, the consumer's acks (every message twice)", 0, func(k int, mode crashtest.Mode) ([]string, []string) {
		var dq dupWorld
		calls, v := crashFlow(t, ddbmem.New(), func(t testing.TB) crashtest.WorldQueue[p.Message] {
			dq = dupWorld{crashtest.SQS[p.Message](t, testenv.PrivateSQS(t), time.Hour)}
			return dq
		}, false, k, mode)
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
