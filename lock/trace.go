package lock

import (
	"context"
	"time"
)

// Tracer observes the calls of [Locker.Obtain], in the style of
// entity.Tracer: ObtainStart is called once the key and TTL are checked,
// with the caller's ctx, and returns the ctx the attempts run with;
// ObtainEnd is called with that ctx when Obtain returns. Both must be safe
// for concurrent use. Set it in [Options].Tracer.
type Tracer interface {
	ObtainStart(ctx context.Context, ev ObtainStartEvent) context.Context
	ObtainEnd(ctx context.Context, ev ObtainEvent)
}

// ObtainStartEvent describes an Obtain about to make its first attempt.
type ObtainStartEvent struct {
	Key string
	TTL time.Duration
}

// ObtainEvent describes the end of an Obtain.
type ObtainEvent struct {
	Key string
	TTL time.Duration
	// Attempts is the number of acquire attempts made (0 when ctx had
	// ended before the first).
	Attempts int
	// Wait is the time Obtain took, attempts and waits between them
	// included.
	Wait time.Duration
	// Fence is the obtained lock's fencing token ([Lock.Fence]; 0 for a
	// backend without one, or on failure).
	Fence int64
	// Err is Obtain's error; nil when the lock was obtained.
	Err error
}

// traceObtain is obtain observed by o.Tracer.
func (lk *Locker) traceObtain(ctx context.Context, key string, ttl time.Duration, o *Options) (*Lock, error) {
	tr := o.Tracer
	ctx = tr.ObtainStart(ctx, ObtainStartEvent{Key: key, TTL: ttl})
	start := time.Now()
	attempts := 0
	l, err := lk.obtain(ctx, key, ttl, o, &attempts)
	ev := ObtainEvent{Key: key, TTL: ttl, Attempts: attempts, Wait: time.Since(start), Err: err}
	if l != nil {
		ev.Fence = l.Fence()
	}
	tr.ObtainEnd(ctx, ev)
	return l, err
}
