// Package retry paces the retry loops that tablekit owns: batch leftovers
// and transaction conflicts in entity, lock polling in lock, result polling
// and conflict retries in idempotency. Every package takes the same
// [Strategy], so one value can be shared by all of them.
//
// Requests to DynamoDB itself are retried by the AWS SDK's own retryer; a
// Strategy only paces the loops above it.
package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Strategy decides how long a loop waits before its next attempt.
//
// Backoff is called with attempt = 1 before the first retry (after the
// first failed attempt), 2 before the second, and so on. It returns the
// wait and false to give up. A loop never waits past its context's
// deadline, whatever the strategy says.
//
// The strategies of this package are stateless and safe for concurrent use;
// share them freely.
type Strategy interface {
	Backoff(attempt int) (wait time.Duration, ok bool)
}

// Func adapts a function to [Strategy].
type Func func(attempt int) (time.Duration, bool)

// Backoff calls f.
func (f Func) Backoff(attempt int) (time.Duration, bool) { return f(attempt) }

// Never makes a single attempt: Backoff always gives up.
func Never() Strategy { return never{} }

type never struct{}

func (never) Backoff(int) (time.Duration, bool) { return 0, false }

// Constant waits the same interval before every retry and never gives up
// (the context ends the loop). A non-positive interval is treated as 1 ms.
func Constant(interval time.Duration) Strategy {
	if interval <= 0 {
		interval = time.Millisecond
	}
	return constant(interval)
}

type constant time.Duration

func (c constant) Backoff(int) (time.Duration, bool) { return time.Duration(c), true }

// Exponential doubles a ceiling from min up to max and waits a uniformly
// random duration in [ceiling/2, ceiling] ("equal jitter"), so that
// contenders that failed together do not retry together. It never gives up
// (the context ends the loop; wrap it in [Limit] to count attempts).
// A min of zero or less is treated as 1 ms, and a max below min as min.
func Exponential(min, max time.Duration) Strategy {
	if min <= 0 {
		min = time.Millisecond
	}
	if max < min {
		max = min
	}
	return exponential{min: min, max: max}
}

type exponential struct{ min, max time.Duration }

func (e exponential) Backoff(attempt int) (time.Duration, bool) {
	return Jitter(e.ceiling(attempt)), true
}

// ceiling is min*2^(attempt-1), capped at max.
func (e exponential) ceiling(attempt int) time.Duration {
	w := e.min
	for i := 1; i < attempt && w < e.max; i++ {
		w *= 2
	}
	return min(w, e.max)
}

// Jitter returns a uniformly random duration in [d/2, d]; d <= 0 gives 0.
func Jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// Limit gives up after max retries (max+1 attempts in all); otherwise it
// asks s. A max of zero or less makes a single attempt.
func Limit(s Strategy, max int) Strategy { return limited{s: s, max: max} }

type limited struct {
	s   Strategy
	max int
}

func (l limited) Backoff(attempt int) (time.Duration, bool) {
	if attempt > l.max {
		return 0, false
	}
	return l.s.Backoff(attempt)
}

// Sleep waits d or until ctx ends, whichever comes first. It returns nil
// after a full wait and ctx.Err() otherwise; a non-positive d only checks ctx.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Fits reports whether a wait of d ends before ctx's deadline (always true
// without a deadline). Loops that would rather stop early than be cut off
// mid-wait check it before sleeping.
func Fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= d
}

// ErrGaveUp is returned (wrapped) by a loop whose strategy gave up before
// the work succeeded and before its context ended.
var ErrGaveUp = errors.New("retry: strategy gave up")
