package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"sync"
	"time"
)

// DefaultTTL is the TTL of a lock obtained with ttl 0.
const DefaultTTL = 30 * time.Second

// Backend is the store a [Locker] runs on. Package valkeylock implements it
// on Valkey (or Redis), package dynamolock on a DynamoDB table. Implement it
// yourself to put locks elsewhere; a Locker calls it from many goroutines.
type Backend interface {
	// Acquire makes one attempt to take req.Key for req.Token for req.TTL.
	// It returns the held lease, an error wrapping ErrNotObtained when
	// another token holds the key, or an error wrapping ErrInvalidKey for a
	// key the backend cannot store (before any I/O). Any other error means
	// the request may or may not have landed; Obtain then calls Abandon.
	Acquire(ctx context.Context, req *AcquireRequest) (Lease, error)
	// Abandon releases req.Key if req.Token holds it. Obtain calls it on a
	// fresh short context after an attempt whose outcome is unknown.
	Abandon(ctx context.Context, key, token string) error
	// IsLocked reports whether some token holds the key now.
	IsLocked(ctx context.Context, key string) (bool, error)
}

// AcquireRequest is one attempt of [Locker.Obtain]. The same value is passed
// to every attempt of one Obtain call.
type AcquireRequest struct {
	Key   string
	Token string
	TTL   time.Duration
	// Memo belongs to the backend: it is nil on the first attempt and keeps
	// whatever the backend stored in it for the next attempts of the same
	// Obtain call (dynamolock keeps its queue ticket and its skew-safe
	// observation here).
	Memo any
	// RetryAfter, when a backend sets it on a failed attempt, replaces the
	// wait the Retry strategy chose before the next attempt (a queueing
	// backend knows when its turn may come). The strategy still decides
	// whether to try again, and the deadline still caps the wait. Obtain
	// clears it before every attempt.
	RetryAfter time.Duration
	// LastAttempt is true when Obtain will not try again after this
	// attempt (its strategy gives up, or its deadline has come): a
	// queueing backend then takes no place in its queue.
	LastAttempt bool
}

// Leaver is implemented by a backend that keeps state for a waiting
// Obtain (dynamolock's queue ticket). When Obtain gives up after a failed
// attempt it calls Leave, best effort, on a fresh context bounded by
// [Options.CleanupTimeout].
type Leaver interface {
	Leave(ctx context.Context, req *AcquireRequest) error
}

// Lease is a backend's handle of one held lock. [Lock] never calls a
// Lease's methods concurrently.
type Lease interface {
	// Fence is the fencing number of this acquisition: greater than the
	// fencing number of every earlier acquisition of the same key.
	Fence() int64
	// Extend resets the lease to ttl from now if this lease still holds the
	// key, and returns an error wrapping ErrNotHeld if it does not.
	Extend(ctx context.Context, ttl time.Duration) error
	// Release frees the key if this lease still holds it, and returns an
	// error wrapping ErrNotHeld if it does not.
	Release(ctx context.Context) error
}

// Options configure a [Locker]; the optFns of [Locker.Obtain] adjust a copy
// for one call. The zero value is valid: one attempt, no heartbeat.
type Options struct {
	// Retry decides whether and when Obtain tries again after it found the
	// key held. Nil means [retry.Never]: a single attempt.
	Retry retry.Strategy
	// Timeout bounds the retries of Obtain. Obtain stops at the earliest of
	// the ctx deadline and now+Timeout. Zero means: the ctx deadline if ctx
	// has one, otherwise twice the TTL (enough to outwait one lease of the
	// same TTL, which dynamolock's skew-safe mode needs).
	Timeout time.Duration
	// AutoRefresh starts a heartbeat that refreshes the lock every
	// RefreshEvery until [Lock.Release], until the ctx given to Obtain ends,
	// or until the lock is lost. Bound the wait of Obtain with Timeout, not
	// with the ctx deadline, when you use it.
	AutoRefresh bool
	// RefreshEvery is the heartbeat interval. Zero means TTL/3.
	RefreshEvery time.Duration
	// CleanupTimeout bounds the best-effort compare-and-delete that Obtain
	// runs after an attempt whose outcome it does not know (a timeout, a
	// cancelled ctx). Zero means 2 s.
	CleanupTimeout time.Duration
	// Tracer observes each Obtain (package otelkit has one for
	// OpenTelemetry). Default none.
	Tracer Tracer
}

// Locker obtains locks from a [Backend]. It is safe for concurrent use.
type Locker struct {
	b    Backend
	opts Options
}

// New returns a Locker on b. optFns set the Options every Obtain starts
// from (the zero Options otherwise: one attempt, no heartbeat); the optFns
// of an Obtain adjust a copy for that call.
func New(b Backend, optFns ...func(*Options)) *Locker {
	lk := &Locker{b: b}
	for _, fn := range optFns {
		fn(&lk.opts)
	}
	return lk
}

// Backend returns the Locker's backend.
func (lk *Locker) Backend() Backend { return lk.b }

// Obtain takes key for ttl (0 means [DefaultTTL]) and returns the handle.
//
// The validity of the lock ([Lock.Deadline]) is measured on the monotonic
// clock from the instant before the request was sent, minus 1% of the TTL
// for clock-rate drift. When the key is held by another token Obtain retries
// as [Options.Retry] says, never past its deadline (see [Options.Timeout]):
// a wait that would end past the deadline is cut short so that the last
// attempt is made at the deadline.
//
// Errors: ErrInvalidKey or ErrInvalidTTL before any I/O; ErrNotObtained
// when the key stayed held; the ctx error (errors.Is(err, context.Canceled)
// or context.DeadlineExceeded) when ctx ended first; otherwise the backend's
// error. When an attempt fails in a way that may have left the lock taken
// (a timeout, a cancel, a lost reply), Obtain deletes it again by token on a
// fresh context bounded by [Options.CleanupTimeout] before it returns; that
// cleanup, and leaving a queueing backend's queue ([Leaver]), is the only
// work Obtain does after its deadline.
func (lk *Locker) Obtain(ctx context.Context, key string, ttl time.Duration, optFns ...func(*Options)) (*Lock, error) {
	if key == "" {
		return nil, fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if ttl < 0 {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTTL, ttl)
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	o := lk.opts
	if len(optFns) > 0 {
		o = withOptions(o, optFns) // o stays on the stack without them
	}
	if o.Tracer != nil {
		return lk.traceObtain(ctx, key, ttl, &o)
	}
	return lk.obtain(ctx, key, ttl, &o, nil)
}

// obtain is Obtain after its checks; it counts the attempts in *attempts
// when attempts is not nil.
func (lk *Locker) obtain(ctx context.Context, key string, ttl time.Duration, op *Options, attempts *int) (*Lock, error) {
	o := *op
	strategy := o.Retry
	if strategy == nil {
		strategy = retry.Never()
	}
	token, err := newToken()
	if err != nil {
		return nil, fmt.Errorf("lock: token: %w", err)
	}
	deadline, ok := ctx.Deadline()
	switch {
	case o.Timeout > 0 && (!ok || time.Now().Add(o.Timeout).Before(deadline)):
		deadline = time.Now().Add(o.Timeout)
	case !ok:
		deadline = time.Now().Add(2 * ttl)
	}
	req := &AcquireRequest{Key: key, Token: token, TTL: ttl}
	var (
		timer *time.Timer
		// orphans are the tokens of attempts that failed transiently and
		// may have landed, whose cleanup the backend has not confirmed.
		orphans []string
		lastErr error // the transient error of the last attempt, if any
	)
	// giveUp cleans up after a failed Obtain: the orphans (best effort)
	// and a queueing backend's ticket.
	giveUp := func(err error) (*Lock, error) {
		for _, t := range orphans {
			lk.abandon(ctx, o, key, t)
		}
		lk.leave(ctx, o, req)
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return giveUp(fmt.Errorf("lock: obtain %q: %w", key, err))
		}
		if len(orphans) > 0 {
			orphans = lk.sweep(ctx, o, key, orphans)
		}
		// The strategy is asked before the attempt, so that the backend
		// knows whether another one may follow.
		wait, more := strategy.Backoff(attempt)
		req.RetryAfter = 0
		req.LastAttempt = !more || !time.Now().Before(deadline)
		if attempts != nil {
			*attempts = attempt
		}
		start := time.Now()
		lease, err := lk.b.Acquire(ctx, req)
		lastErr = nil
		switch {
		case err == nil:
			until := validUntil(start, ttl)
			if time.Now().Before(until) {
				for _, t := range orphans {
					lk.abandon(ctx, o, key, t)
				}
				return lk.newLock(ctx, o, key, token, ttl, lease, until), nil
			}
			// The reply came so late that the lock is no longer valid.
			// Later attempts use a new token: a backend may refuse the
			// abandoned one for good (dynamolock does).
			lk.abandon(ctx, o, key, token)
			if token, err = newToken(); err != nil {
				return giveUp(fmt.Errorf("lock: token: %w", err))
			}
			req.Token = token
		case errors.Is(err, ErrNotObtained):
		case errors.Is(err, ErrInvalidKey):
			return giveUp(fmt.Errorf("lock: obtain %q: %w", key, err))
		case ctx.Err() != nil || !lk.transient(err):
			lk.abandon(ctx, o, key, token)
			return giveUp(fmt.Errorf("lock: obtain %q: %w", key, err))
		default:
			// A transient error: the attempt may have landed. Its token
			// becomes an orphan that is deleted before the next attempt
			// (and again before each one until the backend confirms), and
			// the next attempt uses a new token, so that an attempt of
			// ours that landed late is never mistaken for a holder.
			lastErr = err
			orphans = append(orphans, token)
			if token, err = newToken(); err != nil {
				return giveUp(fmt.Errorf("lock: token: %w", err))
			}
			req.Token = token
		}
		if more && req.RetryAfter > 0 {
			wait = req.RetryAfter
		}
		// The last attempt is made at the deadline, not one wait before it.
		left := time.Until(deadline)
		if !more || left <= 0 {
			if lastErr != nil {
				return giveUp(fmt.Errorf("lock: obtain %q: %w", key, lastErr))
			}
			return giveUp(fmt.Errorf("%w: %q", ErrNotObtained, key))
		}
		wait = min(wait, left)
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return giveUp(fmt.Errorf("lock: obtain %q: %w", key, ctx.Err()))
		case <-timer.C:
		}
	}
}

// sweep deletes the orphans by token and returns those whose deletion the
// backend did not confirm (nil or ErrNotHeld: the key is not theirs).
func (lk *Locker) sweep(ctx context.Context, o Options, key string, orphans []string) []string {
	left := orphans[:0]
	for _, t := range orphans {
		if err := lk.abandon(ctx, o, key, t); err != nil && !errors.Is(err, ErrNotHeld) {
			left = append(left, t)
		}
	}
	return left
}

// transient reports whether err, an Acquire error, may heal: the backend's
// [Classifier] decides when it has one, [Transient] otherwise.
func (lk *Locker) transient(err error) bool {
	if c, ok := lk.b.(Classifier); ok {
		return c.Transient(err)
	}
	return Transient(err)
}

// withOptions returns o after optFns. It is not inlined, so that only a
// call with options moves its Options to the heap.
//
//go:noinline
func withOptions(o Options, optFns []func(*Options)) Options {
	for _, fn := range optFns {
		fn(&o)
	}
	return o
}

// leave tells a queueing backend that req waits no more (best effort).
func (lk *Locker) leave(ctx context.Context, o Options, req *AcquireRequest) {
	lv, ok := lk.b.(Leaver)
	if !ok || req.Memo == nil {
		return
	}
	d := o.CleanupTimeout
	if d <= 0 {
		d = 2 * time.Second
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
	defer cancel()
	_ = lv.Leave(cctx, req)
}

// abandon deletes key by token on a fresh context bounded by
// CleanupTimeout. Callers that do not look at the error rely on the TTL to
// bound a failed cleanup.
func (lk *Locker) abandon(ctx context.Context, o Options, key, token string) error {
	d := o.CleanupTimeout
	if d <= 0 {
		d = 2 * time.Second
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
	defer cancel()
	return lk.b.Abandon(cctx, key, token)
}

// IsLocked reports whether some holder, in any process, holds key now.
func (lk *Locker) IsLocked(ctx context.Context, key string) (bool, error) {
	if key == "" {
		return false, fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	ok, err := lk.b.IsLocked(ctx, key)
	if err != nil {
		return false, fmt.Errorf("lock: is locked %q: %w", key, err)
	}
	return ok, nil
}

func validUntil(start time.Time, ttl time.Duration) time.Time {
	return start.Add(ttl - ttl/100)
}

func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// Lock is a held lock. Its methods are safe for concurrent use.
type Lock struct {
	key   string
	token string
	ttl   time.Duration
	fence int64
	lease Lease

	opMu sync.Mutex // serialises calls on lease

	mu        sync.Mutex
	until     time.Time
	released  bool
	lostFlag  bool
	lost      chan struct{}
	hbStop    chan struct{}
	hbDone    chan struct{}
	onRelease func(*Lock)
}

func (lk *Locker) newLock(ctx context.Context, o Options, key, token string, ttl time.Duration, lease Lease, until time.Time) *Lock {
	l := &Lock{key: key, token: token, ttl: ttl, fence: lease.Fence(), lease: lease, until: until, lost: make(chan struct{})}
	if o.AutoRefresh {
		every := o.RefreshEvery
		if every <= 0 {
			every = ttl / 3
		}
		l.hbStop = make(chan struct{})
		l.hbDone = make(chan struct{})
		go l.heartbeat(ctx, every)
	}
	return l
}

// Key returns the key the lock was obtained for (without backend prefix).
func (l *Lock) Key() string { return l.key }

// Token returns the random token that proves ownership on the server.
func (l *Lock) Token() string { return l.token }

// Fence returns the fencing number: it is greater than the fencing number
// of every earlier holder of the same key. Pass it to [FenceCondition] (or
// to any store that compares it) so that a holder that lost the lock without
// knowing cannot overwrite the work of a later holder.
func (l *Lock) Fence() int64 { return l.fence }

// TTL returns the lock's time to live, also used by Refresh.
func (l *Lock) TTL() time.Duration { return l.ttl }

// Deadline returns the instant (with a monotonic clock reading) until which
// the lock is valid, as of the last successful Obtain or Refresh.
func (l *Lock) Deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

// Validity returns how long the lock stays valid (0 once it is past its
// deadline, lost or released).
func (l *Lock) Validity() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released || l.lostFlag {
		return 0
	}
	if d := time.Until(l.until); d > 0 {
		return d
	}
	return 0
}

// Lost returns a channel that is closed when a refresh (by Refresh or by the
// heartbeat) finds the lock gone or taken over, or finds its validity ran
// out while the server could not be reached. It is never closed by Release.
func (l *Lock) Lost() <-chan struct{} { return l.lost }

// Refresh extends the lock by its TTL from now, if this handle still holds
// it. It returns ErrNotHeld after Release, ErrLost (and closes Lost) when
// the key is gone or held by another token or when the validity ran out
// before the server could be reached, the ctx error when ctx ended, and
// otherwise the backend's error (the lock is then still valid until
// [Lock.Deadline]).
func (l *Lock) Refresh(ctx context.Context) error {
	l.mu.Lock()
	released, lost := l.released, l.lostFlag
	l.mu.Unlock()
	if released {
		return fmt.Errorf("%w: %q released", ErrNotHeld, l.key)
	}
	if lost {
		return fmt.Errorf("%w: %q", ErrLost, l.key)
	}
	l.opMu.Lock()
	defer l.opMu.Unlock()
	start := time.Now()
	err := l.lease.Extend(ctx, l.ttl)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostFlag {
		return fmt.Errorf("%w: %q", ErrLost, l.key)
	}
	switch {
	case err == nil:
		l.until = validUntil(start, l.ttl)
		return nil
	case errors.Is(err, ErrNotHeld):
		l.lostFlag = true
		close(l.lost)
		return fmt.Errorf("%w: %q: %w", ErrLost, l.key, err)
	case !time.Now().Before(l.until):
		l.lostFlag = true
		close(l.lost)
		return fmt.Errorf("%w: %q: validity ran out: %w", ErrLost, l.key, err)
	default:
		return fmt.Errorf("lock: refresh %q: %w", l.key, err)
	}
}

// Release stops the heartbeat and frees the lock if this handle still holds
// it. It returns ErrNotHeld when the handle was already released or the key
// is gone or held by another token (after a loss), and otherwise the
// backend's error; either way the handle is done, and a lock that could not
// be deleted expires after its TTL.
func (l *Lock) Release(ctx context.Context) error {
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return fmt.Errorf("%w: %q already released", ErrNotHeld, l.key)
	}
	l.released = true
	stop, done, hook := l.hbStop, l.hbDone, l.onRelease
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	if hook != nil {
		hook(l)
	}
	l.opMu.Lock()
	err := l.lease.Release(ctx)
	l.opMu.Unlock()
	if err != nil {
		return fmt.Errorf("lock: release %q: %w", l.key, err)
	}
	return nil
}

func (l *Lock) heartbeat(ctx context.Context, every time.Duration) {
	defer close(l.hbDone)
	retryEvery := every / 4
	if retryEvery < 5*time.Millisecond {
		retryEvery = 5 * time.Millisecond
	}
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.hbStop:
			return
		case <-t.C:
		}
		// A refresh may take as long as the lock stays valid; after that
		// it is lost anyway.
		rctx, cancel := context.WithDeadline(ctx, l.Deadline())
		err := l.Refresh(rctx)
		cancel()
		switch {
		case err == nil:
			t.Reset(every)
		case errors.Is(err, ErrLost), errors.Is(err, ErrNotHeld), ctx.Err() != nil:
			return
		default:
			t.Reset(retryEvery)
		}
	}
}
