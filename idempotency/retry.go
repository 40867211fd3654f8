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

// ExponentialBackoff returns a strategy that doubles from min up to max
// and picks a uniformly random wait in [d/2, d] ("equal jitter"), so
// duplicates that arrived together do not poll together.
func ExponentialBackoff(min, max time.Duration) RetryStrategy {
	if min <= 0 {
		min = time.Millisecond
	}
	if max < min {
		max = min
	}
	return RetryFunc(func(attempt int) time.Duration {
		d := max
		if attempt < 30 {
			if v := min << attempt; v > 0 && v < max {
				d = v
			}
		}
		half := d / 2
		return half + rand.N(d-half+1)
	})
}
