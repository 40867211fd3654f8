package lock_test

import (
	"context"
	"errors"
	"github.com/tablekit/tablekit/retry"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lock"
)

func TestBasicCycle(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			ctx := ctxT(t, 20*time.Second)
			key := uniqueKey("basic")
			before := time.Now()
			l, err := bc.locker.Obtain(ctx, key, 2*time.Second)
			if err != nil {
				t.Fatalf("Obtain: %v", err)
			}
			if l.Token() == "" || l.Key() != key || l.TTL() != 2*time.Second {
				t.Fatalf("handle: token %q key %q ttl %v", l.Token(), l.Key(), l.TTL())
			}
			after := time.Now()
			if d := l.Deadline().Sub(before); d < 1980*time.Millisecond || d > 1980*time.Millisecond+after.Sub(before) {
				t.Errorf("deadline %v after the call, want 99%% of the TTL from the moment the request went out", d)
			}
			if v := l.Validity(); v <= 0 || v > 2*time.Second {
				t.Errorf("Validity = %v", v)
			}
			locked, err := bc.locker.IsLocked(ctx, key)
			if err != nil || !locked {
				t.Fatalf("IsLocked = %v, %v; want true", locked, err)
			}
			_, err = bc.locker.Obtain(ctx, key, time.Second)
			mustIs(t, err, lock.ErrNotObtained)
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("not-obtained looks like a ctx error: %v", err)
			}
			if err := l.Refresh(ctx); err != nil {
				t.Fatalf("Refresh: %v", err)
			}
			if err := l.Release(ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
			mustIs(t, l.Release(ctx), lock.ErrNotHeld)
			mustIs(t, l.Refresh(ctx), lock.ErrNotHeld)
			select {
			case <-l.Lost():
				t.Fatal("Lost closed by Release")
			default:
			}
			locked, err = bc.locker.IsLocked(ctx, key)
			if err != nil || locked {
				t.Fatalf("IsLocked after release = %v, %v; want false", locked, err)
			}
			l2, err := bc.locker.Obtain(ctx, key, time.Second)
			if err != nil {
				t.Fatalf("second Obtain: %v", err)
			}
			defer l2.Release(ctx)
			if l2.Fence() <= l.Fence() {
				t.Errorf("fence did not grow: %d then %d", l.Fence(), l2.Fence())
			}
			if l2.Token() == l.Token() {
				t.Error("token reused")
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			ctx := ctxT(t, 10*time.Second)
			_, err := bc.locker.Obtain(ctx, "", time.Second)
			mustIs(t, err, lock.ErrInvalidKey)
			_, err = bc.locker.Obtain(ctx, "k", -time.Second)
			mustIs(t, err, lock.ErrInvalidTTL)
			_, err = bc.locker.IsLocked(ctx, "")
			mustIs(t, err, lock.ErrInvalidKey)
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			_, err = bc.locker.Obtain(cctx, uniqueKey("cancelled"), time.Second)
			mustIs(t, err, context.Canceled)
			if errors.Is(err, lock.ErrNotObtained) {
				t.Fatalf("ctx error looks like not-obtained: %v", err)
			}
		})
	}
}

// TestRetryDeadlines checks that retries stop at the ctx deadline, and at a
// deadline derived from the TTL when ctx has none.
func TestRetryDeadlines(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			ctx := ctxT(t, 20*time.Second)
			key := uniqueKey("retry")
			l, err := bc.locker.Obtain(ctx, key, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release(ctx)
			retry := func(o *lock.Options) { o.Retry = retry.Constant(10 * time.Millisecond) }

			dctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
			defer cancel()
			start := time.Now()
			// A request cut by the deadline is followed by the cleanup, which
			// may take up to CleanupTimeout more.
			_, err = bc.locker.Obtain(dctx, key, 10*time.Second, retry, func(o *lock.Options) { o.CleanupTimeout = 500 * time.Millisecond })
			if !errors.Is(err, lock.ErrNotObtained) && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v", err)
			}
			if el := time.Since(start); el > 900*time.Millisecond {
				t.Errorf("ctx deadline 150ms + cleanup 500ms, Obtain returned after %v", el)
			}

			start = time.Now()
			_, err = bc.locker.Obtain(context.Background(), key, 200*time.Millisecond, retry)
			mustIs(t, err, lock.ErrNotObtained)
			if el := time.Since(start); el < 300*time.Millisecond || el > 1500*time.Millisecond {
				t.Errorf("derived deadline 2×200ms, Obtain returned after %v", el)
			}

			start = time.Now()
			_, err = bc.locker.Obtain(ctx, key, time.Second, retry, func(o *lock.Options) { o.Timeout = 100 * time.Millisecond })
			mustIs(t, err, lock.ErrNotObtained)
			if el := time.Since(start); el > 600*time.Millisecond {
				t.Errorf("Timeout 100ms, Obtain returned after %v", el)
			}
		})
	}
}

// TestCounterInvariant: 64 goroutines × 50 read-modify-write cycles of a
// plain counter under the lock end at exactly 3200, the holders never
// overlap, and the fencing numbers of successive holders strictly grow.
// The negative control without the lock loses updates.
func TestCounterInvariant(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			goroutines, cycles := 64, 50
			backoff := retry.Exponential(2*time.Millisecond, 40*time.Millisecond)
			if strings.HasPrefix(bc.name, "dynamo") {
				goroutines, cycles = counterSizeDynamo()
				backoff = retry.Exponential(10*time.Millisecond, 300*time.Millisecond)
			}
			ctx := ctxT(t, 9*time.Minute) // the opt-in full DynamoDB size takes minutes
			key := uniqueKey("counter")
			cs := bc.counter(key)
			var (
				hs       holders
				wg       sync.WaitGroup
				errOnce  sync.Once
				firstErr error
			)
			fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
			opts := func(o *lock.Options) {
				o.Retry = backoff
				o.Timeout = 8 * time.Minute
			}
			start := time.Now()
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < cycles; i++ {
						l, err := bc.locker.Obtain(ctx, key, time.Minute, opts) // no expiry: this test is about contention
						if err != nil {
							fail(err)
							return
						}
						err = hs.increment(ctx, l, cs)
						if rerr := l.Release(ctx); err == nil {
							err = rerr
						}
						if err != nil {
							fail(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if firstErr != nil {
				t.Fatalf("worker: %v", firstErr)
			}
			t.Logf("%d cycles in %v", goroutines*cycles, time.Since(start))
			hs.check(t, ctx, cs, goroutines*cycles)

			// Negative control: the same read-modify-write without the lock,
			// with a pause between read and write, loses updates.
			nc := bc.counter(key + "-nolock")
			const ncGoroutines, ncCycles = 64, 3
			for g := 0; g < ncGoroutines; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < ncCycles; i++ {
						v, err := nc.get(ctx)
						if err != nil {
							fail(err)
							return
						}
						time.Sleep(time.Millisecond)
						if err := nc.set(ctx, v+1); err != nil {
							fail(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if firstErr != nil {
				t.Fatalf("control worker: %v", firstErr)
			}
			got, err := nc.get(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lost := ncGoroutines*ncCycles - got
			t.Logf("negative control: %d of %d updates lost", lost, ncGoroutines*ncCycles)
			if lost <= 0 {
				t.Errorf("negative control lost no update: the invariant test could not fail")
			}
		})
	}
}

// patient retries an Obtain that should succeed: on a loaded machine a
// reply can come after the lock's validity, which Obtain counts as a miss.
func patient(o *lock.Options) {
	o.Retry = retry.Constant(20 * time.Millisecond)
	o.Timeout = 5 * time.Second
}

func autoRefresh(o *lock.Options) { o.AutoRefresh = true }

// counterSizeDynamo is the size of the DynamoDB counter test: 64×5 by
// default. The full 64×50 takes 30 s on a quiet DynamoDB Local and up to
// several minutes on a loaded two-core machine, too long for every run of
// a plain go test run; TABLEKIT_LOCK_DYNAMO_COUNTER="64,50" runs it, and
// the project test command (scripts/test.sh) sets it.
func counterSizeDynamo() (int, int) {
	if v := os.Getenv("TABLEKIT_LOCK_DYNAMO_COUNTER"); v != "" {
		g, c, ok := strings.Cut(v, ",")
		gi, err1 := strconv.Atoi(g)
		ci, err2 := strconv.Atoi(c)
		if ok && err1 == nil && err2 == nil {
			return gi, ci
		}
	}
	return 64, 5
}

func fencedItem(key, writer string) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{
		TableName: aws.String(dataTable),
		Item: map[string]types.AttributeValue{
			"PK":     &types.AttributeValueMemberS{Value: "DATA#" + key},
			"SK":     &types.AttributeValueMemberS{Value: "DATA"},
			"writer": &types.AttributeValueMemberS{Value: writer},
		},
	}
}

// TestPausedHolder: A pauses past its TTL, B obtains; A's fenced DynamoDB
// writes are rejected, A's refresh reports ErrLost and A's Lost fires.
func TestPausedHolder(t *testing.T) {
	dc := dynamo(t)
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel() // mostly sleeping: run the backends side by side
			ctx := ctxT(t, 30*time.Second)
			key := uniqueKey("paused")
			ttl := 600 * time.Millisecond * bc.slow
			a, err := bc.locker.Obtain(ctx, key, ttl, patient)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lock.PutFenced(ctx, dc, fencedItem(key, "A"), a.Fence()); err != nil {
				t.Fatalf("A's first fenced write: %v", err)
			}
			time.Sleep(ttl + 100*time.Millisecond) // A is paused (GC, swap, ...)
			if a.Validity() != 0 {
				t.Fatalf("A's validity %v after its TTL", a.Validity())
			}
			b, err := bc.locker.Obtain(ctx, key, 5*time.Second, func(o *lock.Options) {
				o.Retry = retry.Constant(20 * time.Millisecond)
				o.Timeout = 5 * time.Second
			})
			if err != nil {
				t.Fatalf("B: %v", err)
			}
			defer b.Release(ctx)
			if b.Fence() <= a.Fence() {
				t.Fatalf("B's fence %d not above A's %d", b.Fence(), a.Fence())
			}
			if _, err := lock.PutFenced(ctx, dc, fencedItem(key, "B"), b.Fence()); err != nil {
				t.Fatalf("B's fenced write: %v", err)
			}
			// A wakes up and writes as if it still held the lock.
			_, err = lock.PutFenced(ctx, dc, fencedItem(key, "A-stale"), a.Fence())
			mustIs(t, err, entity.ErrConditionFailed)
			_, err = lock.UpdateFenced(ctx, dc, dataTable, map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "DATA#" + key},
				"SK": &types.AttributeValueMemberS{Value: "DATA"},
			}, expression.Set(expression.Name("writer"), expression.Value("A-stale")), nil, a.Fence())
			mustIs(t, err, entity.ErrConditionFailed)
			out, err := dc.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(dataTable), ConsistentRead: aws.Bool(true),
				Key: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: "DATA#" + key},
					"SK": &types.AttributeValueMemberS{Value: "DATA"},
				}})
			if err != nil {
				t.Fatal(err)
			}
			if w, _ := out.Item["writer"].(*types.AttributeValueMemberS); w == nil || w.Value != "B" {
				t.Fatalf("data item writer = %v, want B", out.Item["writer"])
			}
			mustIs(t, a.Refresh(ctx), lock.ErrLost)
			select {
			case <-a.Lost():
			default:
				t.Fatal("A.Lost() not closed")
			}
			mustIs(t, a.Release(ctx), lock.ErrNotHeld)
			if err := b.Refresh(ctx); err != nil {
				t.Fatalf("B.Refresh: %v", err)
			}
		})
	}
}

// TestCancelDuringObtain cancels Obtain at random moments: whatever the
// moment, no lock stays behind once Obtain returned an error.
func TestCancelDuringObtain(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			key := uniqueKey("cancel")
			maxDelay := 250 // µs
			if bc.name[:6] == "dynamo" {
				maxDelay = 4000
			}
			cb := &countingBackend{Backend: bc.backend}
			locker := lock.New(cb)
			var obtained, cancelled int
			iterations := 80
			if bc.slow > 1 {
				iterations = 30
			}
			for i := 0; i < iterations; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				tm := time.AfterFunc(time.Duration(rand.N(maxDelay))*time.Microsecond, cancel)
				l, err := locker.Obtain(ctx, key, 10*time.Second, func(o *lock.Options) { o.CleanupTimeout = 10 * time.Second })
				tm.Stop()
				cancel()
				bg := ctxT(t, 10*time.Second)
				if err == nil {
					obtained++
					if err := l.Release(bg); err != nil {
						t.Fatalf("Release: %v", err)
					}
					continue
				}
				cancelled++
				mustIs(t, err, context.Canceled)
				if errors.Is(err, lock.ErrNotObtained) {
					t.Fatalf("cancel reported as not obtained: %v", err)
				}
				locked, err := bc.locker.IsLocked(bg, key)
				if err != nil {
					t.Fatal(err)
				}
				if locked {
					if n := cb.failed.Load(); n > 0 {
						// Documented: the cleanup is best effort; when it cannot
						// reach the server the orphan lives until its TTL.
						t.Logf("iteration %d: orphan after %d failed cleanups", i, n)
						continue
					}
					t.Fatalf("iteration %d: orphan lock after a cancelled Obtain", i)
				}
			}
			t.Logf("%d obtained, %d cancelled, %d cleanups, %d of them deleted a lock that had landed",
				obtained, cancelled, cb.abandons.Load(), cb.cleaned.Load())
		})
	}
}

func TestAutoRefresh(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel() // mostly sleeping: run the backends side by side
			ctx := ctxT(t, 30*time.Second)
			key := uniqueKey("auto")
			ttl := 600 * time.Millisecond * bc.slow
			hctx, stopHeartbeat := context.WithCancel(ctx)
			defer stopHeartbeat()
			l, err := bc.locker.Obtain(hctx, key, ttl, patient, autoRefresh)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * ttl)
			if l.Validity() <= 0 {
				t.Fatal("heartbeat did not keep the lock valid")
			}
			select {
			case <-l.Lost():
				t.Fatal("lost while refreshed")
			default:
			}
			if _, err := bc.locker.Obtain(ctx, key, ttl); !errors.Is(err, lock.ErrNotObtained) {
				t.Fatalf("second Obtain while refreshed: %v", err)
			}
			// Ending the ctx stops the heartbeat: the lock then expires.
			stopHeartbeat()
			time.Sleep(ttl + 150*time.Millisecond)
			locked, err := bc.locker.IsLocked(ctx, key)
			if err != nil || locked {
				t.Fatalf("after the heartbeat's ctx ended: IsLocked = %v, %v", locked, err)
			}
			// An expired lock that nobody took may still be released (DynamoDB
			// keeps the lease item) or already be gone (Valkey expired the key).
			if err := l.Release(ctx); err != nil && !errors.Is(err, lock.ErrNotHeld) {
				t.Fatalf("Release of the expired lock: %v", err)
			}

			// Release stops the heartbeat too.
			l2, err := bc.locker.Obtain(ctx, key, ttl, patient, autoRefresh)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(ttl / 2)
			if err := l2.Release(ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
			l3, err := bc.locker.Obtain(ctx, key, 5*time.Second, patient)
			if err != nil {
				t.Fatalf("Obtain after release: %v", err)
			}
			time.Sleep(ttl) // a heartbeat still running would fail on l3's key; nothing must change
			if err := l3.Release(ctx); err != nil {
				t.Fatalf("l3.Release: %v", err)
			}
		})
	}
}

// TestHeartbeatFindsLoss: when the lock disappears under a refreshed handle,
// its heartbeat closes Lost and Refresh reports ErrLost.
func TestHeartbeatFindsLoss(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			ctx := ctxT(t, 30*time.Second)
			key := uniqueKey("loss")
			a, err := bc.locker.Obtain(ctx, key, 300*time.Millisecond*bc.slow, patient, autoRefresh)
			if err != nil {
				t.Fatal(err)
			}
			// Someone (an operator, a failover) deletes A's lock.
			if err := bc.backend.Abandon(ctx, key, a.Token()); err != nil {
				t.Fatal(err)
			}
			b, err := bc.locker.Obtain(ctx, key, 5*time.Second, patient)
			if err != nil {
				t.Fatalf("B: %v", err)
			}
			defer b.Release(ctx)
			select {
			case <-a.Lost():
			case <-time.After(2 * time.Second):
				t.Fatal("A's heartbeat did not report the loss")
			}
			mustIs(t, a.Refresh(ctx), lock.ErrLost)
			if a.Validity() != 0 {
				t.Error("lost lock still reports validity")
			}
			if b.Fence() <= a.Fence() {
				t.Errorf("fences %d then %d", a.Fence(), b.Fence())
			}
		})
	}
}

// countingBackend counts the cleanups Obtain runs and those that found the
// abandoned lock taken (the request had landed).
type countingBackend struct {
	lock.Backend
	abandons, cleaned, failed atomic.Int32
}

func (c *countingBackend) Abandon(ctx context.Context, key, token string) error {
	c.abandons.Add(1)
	err := c.Backend.Abandon(ctx, key, token)
	switch {
	case err == nil:
		c.cleaned.Add(1)
	case !errors.Is(err, lock.ErrNotHeld):
		c.failed.Add(1)
	}
	return err
}
