package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/retry"
)

func TestMemQueueBehavesLikeSQS(t *testing.T) {
	ctx := context.Background()
	q := consumer.NewMemQueue(func(o *consumer.MemQueueOptions[string]) {
		o.VisibilityTimeout = 50 * time.Millisecond
		o.WaitTime = 20 * time.Millisecond
	})
	if err := q.Send(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	first, err := q.Receive(ctx, 10)
	if err != nil || len(first) != 1 || first[0].ReceiveCount != 1 || first[0].Body != "a" {
		t.Fatalf("first receive: %+v, %v", first, err)
	}
	t.Run("hidden for the visibility timeout", func(t *testing.T) {
		got, err := q.Receive(ctx, 10)
		if err != nil || len(got) != 0 {
			t.Fatalf("receive while hidden: %+v, %v; want none after WaitTime", got, err)
		}
	})
	var second []consumer.Message[string]
	t.Run("redelivered with a new handle and count", func(t *testing.T) {
		time.Sleep(60 * time.Millisecond)
		second, err = q.Receive(ctx, 10)
		if err != nil || len(second) != 1 {
			t.Fatalf("redelivery: %+v, %v", second, err)
		}
		if second[0].ReceiveCount != 2 || second[0].ID != first[0].ID || second[0].Handle == first[0].Handle {
			t.Fatalf("redelivery = %+v, first = %+v", second[0], first[0])
		}
	})
	t.Run("a stale handle is refused", func(t *testing.T) {
		if err := q.Delete(ctx, first[0].Handle); !errors.Is(err, consumer.ErrInvalidHandle) {
			t.Fatalf("Delete(stale) = %v", err)
		}
		if err := q.ChangeVisibility(ctx, first[0].Handle, 0); !errors.Is(err, consumer.ErrInvalidHandle) {
			t.Fatalf("ChangeVisibility(stale) = %v", err)
		}
	})
	t.Run("change visibility and delete", func(t *testing.T) {
		if err := q.ChangeVisibility(ctx, second[0].Handle, 0); err != nil {
			t.Fatal(err)
		}
		third, err := q.Receive(ctx, 10)
		if err != nil || len(third) != 1 || third[0].ReceiveCount != 3 {
			t.Fatalf("after ChangeVisibility(0): %+v, %v", third, err)
		}
		if err := q.Delete(ctx, third[0].Handle); err != nil {
			t.Fatal(err)
		}
		if st := q.Stats(); st.Len != 0 || st.Deleted != 1 || st.Deliveries != 3 {
			t.Fatalf("stats = %+v", st)
		}
	})
	t.Run("duplicates", func(t *testing.T) {
		dq := consumer.NewMemQueue(func(o *consumer.MemQueueOptions[int]) { o.Duplicate = func(n int) bool { return n%2 == 0 } })
		for i := range 4 {
			_ = dq.Send(ctx, i)
		}
		got, _ := dq.Receive(ctx, 10)
		var bodies []int
		for _, m := range got {
			bodies = append(bodies, m.Body)
		}
		if diff := cmp.Diff([]int{0, 0, 1, 2, 2, 3}, bodies); diff != "" {
			t.Fatalf("bodies (-want +got):\n%s", diff)
		}
	})
	t.Run("cancelled ctx", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := q.Send(cctx, "x"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Send = %v", err)
		}
		if _, err := q.Receive(cctx, 1); !errors.Is(err, context.Canceled) {
			t.Fatalf("Receive = %v", err)
		}
	})
}

func TestNewValidation(t *testing.T) {
	q := consumer.NewMemQueue[int]()
	h := func(context.Context, consumer.Message[int]) error { return nil }
	for name, tc := range map[string]struct {
		q  consumer.Queue[int]
		h  consumer.Handler[int]
		fn func(*consumer.Options[int])
	}{
		"nil queue":            {nil, h, nil},
		"nil handler":          {q, nil, nil},
		"negative concurrency": {q, h, func(o *consumer.Options[int]) { o.Concurrency = -1 }},
		"negative receives":    {q, h, func(o *consumer.Options[int]) { o.MaxReceives = -1 }},
		"negative batch wait":  {q, h, func(o *consumer.Options[int]) { o.BatchWait = -1 }},
	} {
		t.Run(name, func(t *testing.T) {
			var fns []func(*consumer.Options[int])
			if tc.fn != nil {
				fns = append(fns, tc.fn)
			}
			if _, err := consumer.New(tc.q, tc.h, fns...); !errors.Is(err, consumer.ErrInvalidOptions) {
				t.Fatalf("New = %v, want ErrInvalidOptions", err)
			}
		})
	}
}

// run starts c and returns a stop function that cancels it and returns
// Run's error once it returned.
func run[T any](c *consumer.Consumer[T]) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return func() error { cancel(); return <-done }
}

func waitEmpty[T any](t *testing.T, q *consumer.MemQueue[T]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := q.WaitEmpty(ctx); err != nil {
		t.Fatalf("queue not drained: %v (%+v)", err, q.Stats())
	}
}

// 200 messages through 3 slots: never more than 3 handlers at once, each
// message handled once.
func TestConcurrencyBound(t *testing.T) {
	const n, slots = 200, 3
	q := consumer.NewMemQueue[int]()
	var cur, peak atomic.Int64
	var mu sync.Mutex
	seen := map[int]int{}
	c, err := consumer.New(q, func(ctx context.Context, m consumer.Message[int]) error {
		v := cur.Add(1)
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		mu.Lock()
		seen[m.Body]++
		mu.Unlock()
		cur.Add(-1)
		return nil
	}, func(o *consumer.Options[int]) { o.Concurrency = slots })
	if err != nil {
		t.Fatal(err)
	}
	stop := run(c)
	for i := range n {
		_ = q.Send(context.Background(), i)
	}
	waitEmpty(t, q)
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if p := peak.Load(); p > slots || p < 1 {
		t.Errorf("peak concurrency %d, bound %d", p, slots)
	}
	for i := range n {
		if seen[i] != 1 {
			t.Fatalf("message %d handled %d times", i, seen[i])
		}
	}
	if m := c.Metrics(); m.Received != n || m.Succeeded != n || m.InFlight != 0 {
		t.Errorf("metrics = %+v", m)
	}
}

// Retries are spaced by the strategy; the dead-letter hook sees the last
// delivery; a failing hook leaves the message for another delivery.
func TestRetryAndDeadLetter(t *testing.T) {
	q := consumer.NewMemQueue[string]()
	var hookCalls atomic.Int64
	var gaps []time.Duration
	var last time.Time
	var mu sync.Mutex
	c, err := consumer.New(q, func(ctx context.Context, m consumer.Message[string]) error {
		mu.Lock()
		if !last.IsZero() {
			gaps = append(gaps, time.Since(last))
		}
		last = time.Now()
		mu.Unlock()
		return fmt.Errorf("attempt %d failed", m.ReceiveCount)
	}, func(o *consumer.Options[string]) {
		o.MaxReceives = 3
		o.Retry = retry.Constant(30 * time.Millisecond)
		o.DeadLetter = func(ctx context.Context, m consumer.Message[string], err error) error {
			if hookCalls.Add(1) == 1 {
				return errors.New("dead-letter store down") // once
			}
			if m.ReceiveCount != 4 {
				t.Errorf("hook's second call at delivery %d, want 4", m.ReceiveCount)
			}
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(c)
	// The hook's failure leaves the message hidden for the visibility
	// timeout: make it come back at once.
	go func() {
		for hookCalls.Load() < 1 {
			time.Sleep(5 * time.Millisecond)
		}
		q.Redeliver()
	}()
	_ = q.Send(context.Background(), "m")
	waitEmpty(t, q)
	_ = stop()
	m := c.Metrics()
	if m.Received != 4 || m.Retried != 2 || m.DeadLettered != 2 || m.HookFailed != 1 || m.Succeeded != 0 {
		t.Errorf("metrics = %+v", m)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, g := range gaps[:2] {
		if g < 30*time.Millisecond {
			t.Errorf("retry %d after %v, want >= 30ms", i+1, g)
		}
	}
}

// On shutdown the loop stops receiving and waits for the handlers in
// flight, which see the cancellation; their messages come back to the next
// consumer after the visibility timeout. With Drain, handlers finish
// their work and it is acknowledged.
func TestGracefulShutdown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		drain time.Duration
	}{{"cancel at once", 0}, {"drain", 2 * time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			q := consumer.NewMemQueue(func(o *consumer.MemQueueOptions[int]) { o.VisibilityTimeout = 100 * time.Millisecond })
			started := make(chan struct{}, 4)
			var finished, cancelled atomic.Int64
			c, _ := consumer.New(q, func(ctx context.Context, m consumer.Message[int]) error {
				started <- struct{}{}
				select {
				case <-ctx.Done():
					cancelled.Add(1)
					return ctx.Err()
				case <-time.After(300 * time.Millisecond):
					finished.Add(1)
					return nil
				}
			}, func(o *consumer.Options[int]) { o.Concurrency = 4; o.Drain = tc.drain })
			for i := range 4 {
				_ = q.Send(context.Background(), i)
			}
			stop := run(c)
			for range 4 {
				<-started
			}
			if err := stop(); !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v", err)
			}
			m := c.Metrics()
			if m.InFlight != 0 {
				t.Fatalf("Run returned with %d handlers in flight", m.InFlight)
			}
			if tc.drain == 0 {
				if cancelled.Load() != 4 || m.Abandoned != 4 || q.Stats().Len != 4 {
					t.Fatalf("cancelled %d, metrics %+v, queue %+v", cancelled.Load(), m, q.Stats())
				}
				// The next consumer gets them after the visibility timeout.
				c2, _ := consumer.New(q, func(context.Context, consumer.Message[int]) error { return nil })
				stop2 := run(c2)
				waitEmpty(t, q)
				_ = stop2()
				return
			}
			if finished.Load() != 4 || m.Succeeded != 4 || q.Stats().Len != 0 {
				t.Fatalf("finished %d, metrics %+v, queue %+v", finished.Load(), m, q.Stats())
			}
		})
	}
}

// With an idempotency store, duplicate deliveries (every message sent
// twice) run the handler once per key; the other delivery is a replay.
func TestIdempotentHandler(t *testing.T) {
	db := testenv.DynamoDB(t)
	table := testenv.PKSKTable(t, db, "consumer")
	ctx := context.Background()
	store, err := idempotency.New(db, table, func(o *idempotency.Options) { o.Retry = retry.Exponential(5*time.Millisecond, 50*time.Millisecond) })
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	q := consumer.NewMemQueue(func(o *consumer.MemQueueOptions[string]) { o.Duplicate = func(string) bool { return true } })
	var mu sync.Mutex
	runs := map[string]int{}
	c, err := consumer.New(q, func(ctx context.Context, m consumer.Message[string]) error {
		mu.Lock()
		runs[m.Body]++
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		return nil
	}, func(o *consumer.Options[string]) {
		o.Concurrency = 8
		o.Idempotency = store
		o.Key = func(m consumer.Message[string]) string { return m.Body }
		o.Retry = retry.Constant(20 * time.Millisecond)
		o.MaxReceives = 50
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(c)
	for i := range n {
		_ = q.Send(ctx, fmt.Sprintf("job-%d", i))
	}
	waitEmpty(t, q)
	_ = stop()
	for i := range n {
		if k := fmt.Sprintf("job-%d", i); runs[k] != 1 {
			t.Errorf("%s ran %d times", k, runs[k])
		}
	}
	m := c.Metrics()
	t.Logf("metrics %+v", m)
	if m.Succeeded != n || m.Replayed != n {
		t.Errorf("succeeded %d, replayed %d; want %d each", m.Succeeded, m.Replayed, n)
	}
}

type flakyQueue struct {
	consumer.Queue[int]
	fails atomic.Int64
}

func (f *flakyQueue) Receive(ctx context.Context, max int) ([]consumer.Message[int], error) {
	if f.fails.Add(-1) >= 0 {
		return nil, errors.New("receive: connection reset")
	}
	return f.Queue.Receive(ctx, max)
}

// Receive errors are retried.
func TestReceiveErrors(t *testing.T) {
	mq := consumer.NewMemQueue[int]()
	fq := &flakyQueue{Queue: mq}
	fq.fails.Store(3)
	var handled atomic.Int64
	c, _ := consumer.New[int](fq, func(context.Context, consumer.Message[int]) error { handled.Add(1); return nil },
		func(o *consumer.Options[int]) { o.Retry = retry.Constant(time.Millisecond) })
	stop := run(c)
	_ = mq.Send(context.Background(), 1)
	waitEmpty(t, mq)
	_ = stop()
	if handled.Load() != 1 {
		t.Fatalf("handled %d", handled.Load())
	}
}

// sizeQueue records the sizes of the receives asked of a MemQueue.
type sizeQueue struct {
	*consumer.MemQueue[int]
	mu    sync.Mutex
	sizes []int
}

func (q *sizeQueue) Receive(ctx context.Context, max int) ([]consumer.Message[int], error) {
	ms, err := q.MemQueue.Receive(ctx, max)
	if len(ms) > 0 {
		q.mu.Lock()
		q.sizes = append(q.sizes, max)
		q.mu.Unlock()
	}
	return ms, err
}

// TestBatchWait: handlers that finish one by one (2 ms apart) free their
// slots one by one; within BatchWait the loop gathers them into one
// receive of a full batch instead of one receive per slot.
func TestBatchWait(t *testing.T) {
	const n, batch = 30, 5
	q := &sizeQueue{MemQueue: consumer.NewMemQueue[int]()}
	for i := range n {
		_ = q.Send(context.Background(), i)
	}
	c, err := consumer.New[int](q, func(ctx context.Context, m consumer.Message[int]) error {
		time.Sleep(time.Duration(m.Body%batch) * 2 * time.Millisecond)
		return nil
	}, func(o *consumer.Options[int]) {
		o.Concurrency, o.Batch = batch, batch
		o.BatchWait = 5 * time.Second
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(c)
	waitEmpty(t, q.MemQueue)
	_ = stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, s := range q.sizes {
		if s != batch {
			t.Fatalf("receive %d asked for %d (sizes %v), want %d each", i, s, q.sizes, batch)
		}
	}
}
