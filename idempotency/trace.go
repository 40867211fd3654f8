package idempotency

import (
	"context"
	"errors"
	"time"
)

// Tracer observes the calls of [Do], in the style of entity.Tracer:
// DoStart is called once the call's options are checked, with the
// caller's ctx, and returns the ctx the call runs with (fn's ctx derives
// from it, so a span started there is the parent of fn's work and of the
// record's DynamoDB requests); DoEnd is called with that ctx when Do
// returns. Both must be safe for concurrent use.
type Tracer interface {
	DoStart(ctx context.Context, ev DoStartEvent) context.Context
	DoEnd(ctx context.Context, ev DoEvent)
}

// DoStartEvent describes a call of [Do] about to claim its key.
type DoStartEvent struct {
	Key        string // the idempotency key
	FirstValue string // Options.FirstValue
}

// Outcomes of a call of [Do] ([DoEvent].Outcome).
const (
	// OutcomeNew: this call claimed the key and ran fn (Err is fn's or
	// the completion's error, if any).
	OutcomeNew = "new"
	// OutcomeReplayed: a duplicate answered with the stored result, or
	// with the recorded failure (a *FailedError).
	OutcomeReplayed = "replayed"
	// OutcomeInProgress: a duplicate of a call still running (an
	// *InProgressError, or the ctx ended while waiting for its result).
	OutcomeInProgress = "in_progress"
	// OutcomeError: the call failed before it could run fn or answer
	// (a payload mismatch, a corrupt record, a failed claim).
	OutcomeError = "error"
)

// DoEvent describes the end of a call of [Do].
type DoEvent struct {
	Key string
	// Outcome is one of the Outcome constants.
	Outcome  string
	Duration time.Duration
	Err      error
}

// traceDo is do observed by c's tracer.
func traceDo[R any](ctx context.Context, c *call, fn func(ctx context.Context) (R, error)) (R, bool, error) {
	tr := c.o.Tracer
	ctx = tr.DoStart(ctx, DoStartEvent{Key: c.key, FirstValue: c.o.FirstValue})
	start := time.Now()
	ran := false
	res, replayed, err := do(ctx, c, func(ctx context.Context) (R, error) {
		ran = true
		return fn(ctx)
	})
	ev := DoEvent{Key: c.key, Duration: time.Since(start), Err: err}
	switch {
	case ran:
		ev.Outcome = OutcomeNew
	case replayed:
		ev.Outcome = OutcomeReplayed
	case errors.Is(err, ErrInProgress):
		ev.Outcome = OutcomeInProgress
	default:
		ev.Outcome = OutcomeError
	}
	tr.DoEnd(ctx, ev)
	return res, replayed, err
}
