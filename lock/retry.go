package lock

import (
	"math/rand/v2"
	"time"
)

// RetryStrategy decides how long [Locker.Obtain] waits before its next
// attempt. Backoff is called with attempt = 1 after the first failed
// attempt, 2 after the second, and so on; it returns ok=false to stop.
// Obtain never sleeps past its deadline (the ctx deadline, or one derived
// from the TTL, see [Options.Timeout]) whatever the strategy says.
//
// The strategies of this package are stateless and safe for concurrent use;
// share them freely.
type RetryStrategy interface {
	Backoff(attempt int) (wait time.Duration, ok bool)
}

// NoRetry makes a single attempt. It is the default of [Options.Retry].
func NoRetry() RetryStrategy { return noRetry{} }

type noRetry struct{}

func (noRetry) Backoff(int) (time.Duration, bool) { return 0, false }

// LinearBackoff waits the same interval before every retry, until the
// deadline. A non-positive interval is treated as 1 ms.
func LinearBackoff(interval time.Duration) RetryStrategy {
	if interval <= 0 {
		interval = time.Millisecond
	}
	return linear(interval)
}

type linear time.Duration

func (l linear) Backoff(int) (time.Duration, bool) { return time.Duration(l), true }

// ExponentialBackoff doubles the wait from min up to max and picks the
// actual wait uniformly in [wait/2, wait] (jitter), so that contenders that
// failed together do not retry together. min <= 0 is treated as 1 ms, and
// max < min as min.
func ExponentialBackoff(min, max time.Duration) RetryStrategy {
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
	w := e.min
	for i := 1; i < attempt && w < e.max; i++ {
		w *= 2
	}
	if w > e.max {
		w = e.max
	}
	half := w / 2
	return half + rand.N(w-half+1), true
}

// LimitRetry stops s after max retries (max+1 attempts in total).
func LimitRetry(s RetryStrategy, max int) RetryStrategy {
	return limited{s: s, max: max}
}

type limited struct {
	s   RetryStrategy
	max int
}

func (l limited) Backoff(attempt int) (time.Duration, bool) {
	if attempt > l.max {
		return 0, false
	}
	return l.s.Backoff(attempt)
}
