package entity

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TraceEvent describes one request the runtime sent (or a dry run it
// prepared). Consumed is nil when DynamoDB did not report capacity.
type TraceEvent struct {
	Op       string // "GetItem", "PutItem", "Query", "BatchWriteItem", ...
	Table    string
	Index    string // "" for the table itself
	Consumed []types.ConsumedCapacity
	Duration time.Duration
	Err      error
}

// Tracer receives one [TraceEvent] per request. Trace is called from the
// goroutine that made the request and must be safe for concurrent use.
type Tracer interface {
	Trace(TraceEvent)
}

// TracerFunc adapts a function to [Tracer].
type TracerFunc func(TraceEvent)

// Trace calls f(ev).
func (f TracerFunc) Trace(ev TraceEvent) { f(ev) }

// RetryStrategy paces the retry loops the runtime owns: batch leftovers
// and transaction conflicts. Next returns the delay before attempt n
// (n starts at 1) and false to give up.
type RetryStrategy interface {
	Next(attempt int) (time.Duration, bool)
}

// Backoff is a [RetryStrategy] with full-jitter exponential backoff:
// attempt n waits a random duration in [0, min(Max, Base*2^(n-1))).
// MaxAttempts 0 means no limit other than the context deadline.
type Backoff struct {
	Base, Max   time.Duration
	MaxAttempts int
}

// Next implements [RetryStrategy].
func (b Backoff) Next(attempt int) (time.Duration, bool) {
	if b.MaxAttempts > 0 && attempt > b.MaxAttempts {
		return 0, false
	}
	d := b.Base
	for i := 1; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	if d > b.Max {
		d = b.Max
	}
	if d <= 0 {
		return 0, true
	}
	return time.Duration(rand.Int64N(int64(d))) + 1, true
}

// DefaultRetry retries with jittered backoff from 25 ms up to 1 s per
// wait, until the context ends or 10 attempts.
var DefaultRetry RetryStrategy = Backoff{Base: 25 * time.Millisecond, Max: time.Second, MaxAttempts: 10}

// sleep waits d or until ctx ends; it reports whether the wait completed.
// A wait that would pass the ctx deadline returns false at once.
func sleep(ctx context.Context, d time.Duration) bool {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return false
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}
