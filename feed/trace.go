package feed

import (
	"context"
	"time"
)

// Tracer observes a [Consumer], in the style of entity.Tracer: BatchStart
// is called before each handler call (every attempt, every half of a
// bisected batch) and returns the ctx the handler runs with; BatchEnd is
// called with that ctx when the handler returned; DeadLettered when a
// record is given to the dead letter (or skipped without one). Calls come
// from the shards' worker goroutines, concurrently. Set it in
// [Options].Tracer.
type Tracer interface {
	BatchStart(ctx context.Context, ev BatchStartEvent) context.Context
	BatchEnd(ctx context.Context, ev BatchEvent)
	DeadLettered(ctx context.Context, ev DeadLetterEvent)
}

// BatchStartEvent describes a handler call about to run.
type BatchStartEvent struct {
	Table   string
	Shard   string
	Fence   int64
	Records int
	// Lag is the age of the batch's first record (now minus its
	// CreatedAt); 0 when the stream gave no creation time.
	Lag time.Duration
}

// BatchEvent describes the end of a handler call.
type BatchEvent struct {
	BatchStartEvent
	Duration time.Duration
	Err      error // the handler's error (a panic as an error)
}

// DeadLetterEvent describes a record given to the dead letter.
type DeadLetterEvent struct {
	Table  string
	Shard  string
	Record Record
	Err    error // the handler's last error on it
}

// traceCall is callHandler observed by the tracer.
func (c *Consumer) traceCall(ctx context.Context, b Batch) error {
	ev := BatchEvent{BatchStartEvent: BatchStartEvent{Table: c.table, Shard: b.Shard, Fence: b.Fence, Records: len(b.Records)}}
	start := time.Now()
	if len(b.Records) > 0 && !b.Records[0].CreatedAt.IsZero() {
		ev.Lag = start.Sub(b.Records[0].CreatedAt)
	}
	ctx = c.o.Tracer.BatchStart(ctx, ev.BatchStartEvent)
	err := c.callHandler(ctx, b)
	ev.Duration, ev.Err = time.Since(start), err
	c.o.Tracer.BatchEnd(ctx, ev)
	return err
}
