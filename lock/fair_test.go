package lock_test

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
	"github.com/tablekit/tablekit/retry"
)

// TestObtainLastAttemptAtDeadline: with a 700 ms Timeout and a jittered
// backoff of up to 300 ms, Obtain on a held key returns ErrNotObtained
// only once the deadline has come (it used to give up up to one backoff
// step early, after 394–531 ms), and it does try at the deadline: a lock
// released just before it is obtained.
func TestObtainLastAttemptAtDeadline(t *testing.T) {
	dc := dynamo(t)
	_, lk := newDynamoLocker(t, dc, func(o *dynamolock.Options) { o.NoQueue = true })
	ctx := ctxT(t, 30*time.Second)
	opts := func(o *lock.Options) {
		o.Retry = retry.Exponential(150*time.Millisecond, 300*time.Millisecond)
		o.Timeout = 700 * time.Millisecond
	}
	t.Run("held throughout", func(t *testing.T) {
		key := uniqueKey("deadline")
		l, err := lk.Obtain(ctx, key, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release(ctx)
		for range 3 {
			start := time.Now()
			_, err = lk.Obtain(ctx, key, 10*time.Second, opts)
			el := time.Since(start)
			mustIs(t, err, lock.ErrNotObtained)
			if el < 700*time.Millisecond || el > 700*time.Millisecond+time.Second {
				t.Errorf("Timeout 700 ms: Obtain gave up after %v, want at the deadline", el)
			}
		}
	})
	t.Run("released at the deadline", func(t *testing.T) {
		key := uniqueKey("deadline")
		l, err := lk.Obtain(ctx, key, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(600*time.Millisecond, func() { _ = l.Release(context.Background()) })
		// Backoff 150–300 ms: attempts near 0, ~200, ~450 ms, then the one
		// at 700 ms, which only a loop trying at its deadline makes.
		got, err := lk.Obtain(ctx, key, 10*time.Second, func(o *lock.Options) {
			o.Retry = retry.Constant(450 * time.Millisecond)
			o.Timeout = 700 * time.Millisecond
		})
		if err != nil {
			t.Fatalf("lock freed at 600 ms, Obtain with a 700 ms deadline: %v", err)
		}
		_ = got.Release(ctx)
	})
}

// TestDynamoFairness: 64 contenders × 30 cycles on one DynamoDB lock. The
// ticket queue serves them in order, so no contender waits more than ten
// times the mean wait, and failed conditional writes stay bounded per
// acquired lock (about one per Obtain that had to queue, none while
// queued). The same load without the queue is logged for comparison when
// TABLEKIT_LOCK_UNFAIR=1.
func TestDynamoFairness(t *testing.T) {
	dc := dynamo(t)
	const goroutines, cycles = 64, 30
	b, lk := newDynamoLocker(t, dc)
	ctx := ctxT(t, 9*time.Minute)
	key := uniqueKey("fair")
	cs := dynamoCounter{c: dc, pk: "DATA#" + key}
	var (
		mu       sync.Mutex
		waits    []time.Duration
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	opts := func(o *lock.Options) {
		o.Retry = retry.Exponential(10*time.Millisecond, 300*time.Millisecond)
		o.Timeout = 8 * time.Minute
	}
	start := time.Now()
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range cycles {
				t0 := time.Now()
				l, err := lk.Obtain(ctx, key, time.Minute, opts)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				w := time.Since(t0)
				mu.Lock()
				waits = append(waits, w)
				mu.Unlock()
				v, err := cs.get(ctx)
				if err == nil {
					err = cs.set(ctx, v+1)
				}
				if rerr := l.Release(ctx); err == nil {
					err = rerr
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	got, err := cs.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != goroutines*cycles {
		t.Fatalf("counter = %d, want %d", got, goroutines*cycles)
	}
	var sum time.Duration
	for _, w := range waits {
		sum += w
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	mean := sum / time.Duration(len(waits))
	maxW := waits[len(waits)-1]
	st := b.Stats()
	perLock := float64(st.ConditionFailures) / float64(st.Acquired)
	t.Logf("%d cycles in %v; wait mean %v p50 %v p99 %v max %v; max/mean %.2f",
		len(waits), time.Since(start).Round(time.Millisecond), mean.Round(time.Millisecond),
		waits[len(waits)/2].Round(time.Millisecond), waits[len(waits)*99/100].Round(time.Millisecond),
		maxW.Round(time.Millisecond), float64(maxW)/float64(mean))
	t.Logf("stats: %d acquired, %d failed conditional writes (%.3f per lock), %d tickets, %d polls",
		st.Acquired, st.ConditionFailures, perLock, st.Tickets, st.Polls)
	if maxW > 10*mean {
		t.Errorf("max wait %v > 10 × mean %v", maxW, mean)
	}
	// A first attempt fails at most once per Obtain; queued waiters only
	// write on their turn, so races among them are rare.
	if perLock > 1.5 {
		t.Errorf("%.2f failed conditional writes per acquired lock, want <= 1.5", perLock)
	}
}

// TestDynamoQueueSkipsDeadWaiter: a queued waiter that died (it took a
// ticket and never came back) does not block the queue: the next waiter
// takes the free lock after QueueGrace. A waiter that gives up leaves the
// queue, and an Obtain that will not retry takes no ticket, so a single
// attempt on a free lock succeeds at once.
func TestDynamoQueueSkipsDeadWaiter(t *testing.T) {
	dc := dynamo(t)
	b, lk := newDynamoLocker(t, dc, func(o *dynamolock.Options) { o.QueueGrace = 200 * time.Millisecond })
	ctx := ctxT(t, 30*time.Second)
	poll := func(o *lock.Options) { o.Retry = retry.Constant(20 * time.Millisecond) }

	t.Run("dead waiter", func(t *testing.T) {
		key := uniqueKey("skip")
		l, err := lk.Obtain(ctx, key, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// A waiter takes a ticket and dies.
		dead := &lock.AcquireRequest{Key: key, Token: "dead", TTL: 10 * time.Second}
		if _, err := b.Acquire(ctx, dead); !errors.Is(err, lock.ErrNotObtained) {
			t.Fatalf("dead waiter's attempt: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			l2, err := lk.Obtain(ctx, key, 10*time.Second, poll, func(o *lock.Options) { o.Timeout = 5 * time.Second })
			if err == nil {
				err = l2.Release(ctx)
			}
			done <- err
		}()
		time.Sleep(100 * time.Millisecond)
		released := time.Now()
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("waiter behind a dead one: %v", err)
		}
		if el := time.Since(released); el < 200*time.Millisecond || el > 3*time.Second {
			t.Errorf("obtained %v after release, want after the 200 ms grace", el)
		}
	})
	t.Run("leaving waiter and single attempts", func(t *testing.T) {
		key := uniqueKey("leave")
		l, err := lk.Obtain(ctx, key, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		before := b.Stats().Tickets
		if _, err := lk.Obtain(ctx, key, 10*time.Second); !errors.Is(err, lock.ErrNotObtained) {
			t.Fatalf("single attempt on a held lock: %v", err)
		}
		if got := b.Stats().Tickets; got != before {
			t.Errorf("a single attempt took %d tickets", got-before)
		}
		// A waiter gives up and leaves the queue.
		_, err = lk.Obtain(ctx, key, 10*time.Second, poll, func(o *lock.Options) { o.Timeout = 100 * time.Millisecond })
		mustIs(t, err, lock.ErrNotObtained)
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		l3, err := lk.Obtain(ctx, key, 10*time.Second)
		if err != nil {
			t.Fatalf("single attempt on the free lock after a waiter left: %v", err)
		}
		_ = l3.Release(ctx)
	})
}
