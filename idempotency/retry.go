package idempotency

import (
	"math/rand/v2"
	"time"
)

// RetryStrategy spaces the polls and retries that this package owns
// (waiting for a result, transaction conflicts). Implementations must be
// safe for concurrent use.
type RetryStrategy interface {
	// Backoff returns how long to wait before retry number attempt
	// (0 for the first retry).
	Backoff(attempt int) time.Duration
}

// RetryFunc adapts a function to [RetryStrategy].
type RetryFunc func(attempt int) time.Duration

// Backoff calls f.
func (f RetryFunc) Backoff(attempt int) time.Duration { return f(attempt) }

// ExponentialBackoff returns a strategy whose ceiling doubles from first
// up to limit, and which picks a uniformly random wait in [d/2, d] of the
// ceiling d ("equal jitter"), so duplicates that arrived together do not
// poll together. A first of zero or less means 1 ms; a limit below first
// means first.
func ExponentialBackoff(first, limit time.Duration) RetryStrategy {
	if first <= 0 {
		first = time.Millisecond
	}
	if limit < first {
		limit = first
	}
	return RetryFunc(func(attempt int) time.Duration {
		d := limit
		if attempt >= 0 && attempt < 30 {
			if v := first << attempt; v > 0 && v < limit {
				d = v
			}
		}
		half := d / 2
		return half + rand.N(d-half+1)
	})
}
