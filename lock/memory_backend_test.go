package lock

import (
	"context"
	"errors"
	"github.com/tablekit/tablekit/retry"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"
)

// memBackend is an in-process fake of our own Backend interface, for the
// unit tests of the generic logic. The integration tests use real servers.
type memBackend struct {
	mu       sync.Mutex
	owner    map[string]string
	fence    map[string]int64
	attempts atomic.Int32
	abandons atomic.Int32
	delay    time.Duration // per Acquire
	acqErr   error         // returned by Acquire after taking the key (a lost reply)
	extErr   error
}

func newMem() *memBackend {
	return &memBackend{owner: map[string]string{}, fence: map[string]int64{}}
}

func (m *memBackend) Acquire(ctx context.Context, req *AcquireRequest) (Lease, error) {
	m.attempts.Add(1)
	if m.delay > 0 {
		time.Sleep(m.delay)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, held := m.owner[req.Key]; held {
		return nil, ErrNotObtained
	}
	m.owner[req.Key] = req.Token
	m.fence[req.Key]++
	if m.acqErr != nil {
		return nil, m.acqErr
	}
	return &memLease{m: m, key: req.Key, token: req.Token, fence: m.fence[req.Key]}, nil
}

func (m *memBackend) Abandon(ctx context.Context, key, token string) error {
	m.abandons.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.owner[key] != token {
		return ErrNotHeld
	}
	delete(m.owner, key)
	return nil
}

func (m *memBackend) IsLocked(ctx context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.owner[key]
	return ok, nil
}

type memLease struct {
	m          *memBackend
	key, token string
	fence      int64
}

func (l *memLease) Fence() int64 { return l.fence }
func (l *memLease) Extend(ctx context.Context, ttl time.Duration) error {
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if l.m.extErr != nil {
		return l.m.extErr
	}
	if l.m.owner[l.key] != l.token {
		return ErrNotHeld
	}
	return nil
}
func (l *memLease) Release(ctx context.Context) error {
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if l.m.owner[l.key] != l.token {
		return ErrNotHeld
	}
	delete(l.m.owner, l.key)
	return nil
}

func TestObtainAttemptsAndDeadlines(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	lk := New(m)
	held, err := lk.Obtain(ctx, "k", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	m.attempts.Store(0)
	_, err = lk.Obtain(ctx, "k", time.Minute, func(o *Options) { o.Retry = retry.Limit(retry.Constant(time.Millisecond), 3) })
	if !errors.Is(err, ErrNotObtained) || m.attempts.Load() != 4 {
		t.Fatalf("err %v after %d attempts, want ErrNotObtained after 4", err, m.attempts.Load())
	}
	// The wait never runs past the deadline: a backoff longer than the
	// remaining time stops at once.
	start := time.Now()
	_, err = lk.Obtain(ctx, "k", time.Minute, func(o *Options) {
		o.Retry = retry.Constant(time.Hour)
		o.Timeout = 50 * time.Millisecond
	})
	if !errors.Is(err, ErrNotObtained) || time.Since(start) > 20*time.Millisecond {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	// A cancel while waiting is the ctx error, not ErrNotObtained.
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = lk.Obtain(cctx, "k", time.Minute, func(o *Options) { o.Retry = retry.Constant(5 * time.Millisecond) })
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrNotObtained) {
		t.Fatalf("err = %v", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestValidityMeasuredBeforeRequest(t *testing.T) {
	m := newMem()
	m.delay = 50 * time.Millisecond
	before := time.Now()
	l, err := New(m).Obtain(context.Background(), "k", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	if d := l.Deadline().Sub(before); d < 990*time.Millisecond || d > 990*time.Millisecond+5*time.Millisecond {
		t.Errorf("deadline %v after the call began, want 990ms", d)
	}
	if l.Deadline().Sub(after) > 945*time.Millisecond {
		t.Errorf("deadline counted from the reply")
	}
	// A reply that arrives after the validity ended is no lock.
	m2 := newMem()
	m2.delay = 30 * time.Millisecond
	_, err = New(m2).Obtain(context.Background(), "k", 20*time.Millisecond)
	if !errors.Is(err, ErrNotObtained) {
		t.Fatalf("late reply: %v", err)
	}
	if locked, _ := m2.IsLocked(context.Background(), "k"); locked {
		t.Error("late lock not abandoned")
	}
}

func TestAmbiguousAcquireIsAbandoned(t *testing.T) {
	m := newMem()
	m.acqErr = errors.New("reply lost")
	_, err := New(m).Obtain(context.Background(), "k", time.Second)
	if err == nil || errors.Is(err, ErrNotObtained) || m.abandons.Load() != 1 {
		t.Fatalf("err %v, %d abandons", err, m.abandons.Load())
	}
	if locked, _ := m.IsLocked(context.Background(), "k"); locked {
		t.Error("orphan lock")
	}
}

func TestRefreshTransientErrorThenValidityRunsOut(t *testing.T) {
	m := newMem()
	l, err := New(m).Obtain(context.Background(), "k", 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	m.extErr = errors.New("connection refused")
	m.mu.Unlock()
	if err := l.Refresh(context.Background()); err == nil || errors.Is(err, ErrLost) {
		t.Fatalf("transient refresh error while valid = %v", err)
	}
	time.Sleep(110 * time.Millisecond)
	if err := l.Refresh(context.Background()); !errors.Is(err, ErrLost) {
		t.Fatalf("refresh after validity = %v", err)
	}
	select {
	case <-l.Lost():
	default:
		t.Fatal("Lost not closed")
	}
}

func TestFencedExpression(t *testing.T) {
	expr, err := FencedExpression("", 42)
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(expr.Condition()); got != "(attribute_not_exists (#0)) OR (#0 < :0)" {
		t.Errorf("condition = %q", got)
	}
	if got := aws.ToString(expr.Update()); got != "SET #0 = :1\n" {
		t.Errorf("update = %q", got)
	}
	if diff := cmp.Diff(map[string]string{"#0": "fence"}, expr.Names()); diff != "" {
		t.Errorf("names: %s", diff)
	}
}

// refusingBackend refuses an abandoned token for good, as dynamolock does.
type refusingBackend struct {
	*memBackend
	mu      sync.Mutex
	refused map[string]bool
	slow    atomic.Int32 // number of next acquires whose reply is late
}

func (r *refusingBackend) Acquire(ctx context.Context, req *AcquireRequest) (Lease, error) {
	r.mu.Lock()
	refused := r.refused[req.Token]
	r.mu.Unlock()
	if refused {
		return nil, ErrNotObtained
	}
	if r.slow.Add(-1) >= 0 {
		time.Sleep(30 * time.Millisecond)
	}
	return r.memBackend.Acquire(ctx, req)
}

func (r *refusingBackend) Abandon(ctx context.Context, key, token string) error {
	r.mu.Lock()
	r.refused[token] = true
	r.mu.Unlock()
	return r.memBackend.Abandon(ctx, key, token)
}

// TestLateReplyRetriesWithNewToken: after a late reply was abandoned, the
// next attempts use a fresh token and can succeed.
func TestLateReplyRetriesWithNewToken(t *testing.T) {
	r := &refusingBackend{memBackend: newMem(), refused: map[string]bool{}}
	r.slow.Store(1)
	l, err := New(r).Obtain(context.Background(), "k", 25*time.Millisecond, func(o *Options) {
		o.Retry = retry.Constant(time.Millisecond)
		o.Timeout = time.Second
	})
	if err != nil {
		t.Fatalf("Obtain after a late reply: %v", err)
	}
	if r.abandons.Load() != 1 || l.Fence() != 2 {
		t.Errorf("%d abandons, fence %d", r.abandons.Load(), l.Fence())
	}
}
