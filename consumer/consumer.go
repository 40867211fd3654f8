// Package consumer is an at-least-once consumer loop: it pulls messages
// from a [Queue] (SQS, or the in-process [MemQueue]), runs a handler on
// each (idempotently, through package idempotency, when given a store),
// deletes the message when the handler succeeded, retries a failed
// message with backoff by changing its visibility, and after
// [Options.MaxReceives] deliveries hands it to a final-failure hook (the
// dead letter). It bounds its concurrency, counts what it does
// ([Consumer.Metrics]) and shuts down gracefully: when the ctx of
// [Consumer.Run] ends it stops receiving and waits for the handlers in
// flight, which see the cancellation (after [Options.Drain]).
//
// # Delivery guarantees
//
// A message is deleted only after its handler returned nil (or its
// dead-letter hook did), so a consumer that dies mid-message leaves it to
// come back after the queue's visibility timeout: every message is
// handled at least once, and a handler must therefore be idempotent.
// Either the handler is idempotent by itself (conditional writes, as
// seed 004's worker), or set [Options.Idempotency] and [Options.Key]: the
// handler then runs inside idempotency.Do, so a duplicate delivery of a
// message whose handler completed is deleted without running it again,
// and one whose handler is still running elsewhere is retried later.
package consumer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/retry"
)

// Message is one delivery of a message.
type Message[T any] struct {
	// ID identifies the message (the same on every delivery).
	ID string
	// Body is the message.
	Body T
	// ReceiveCount is 1 on the first delivery, 2 on the second, ...
	ReceiveCount int
	// Handle is this delivery's receipt handle, for Delete and
	// ChangeVisibility.
	Handle string
	// SentAt is when the message was sent.
	SentAt time.Time
}

// Queue is the narrow queue interface the loop needs; [MemQueue]
// implements it, and package consumer/sqsqueue on Amazon SQS.
type Queue[T any] interface {
	// Receive returns up to max messages, hiding each for the queue's
	// visibility timeout; it may wait (long polling) and return none.
	Receive(ctx context.Context, max int) ([]Message[T], error)
	// Delete acknowledges the delivery with handle.
	Delete(ctx context.Context, handle string) error
	// ChangeVisibility hides the delivery with handle for d from now.
	ChangeVisibility(ctx context.Context, handle string, d time.Duration) error
}

// Handler handles one delivery. A nil error deletes the message; an error
// retries it (or dead-letters it after MaxReceives deliveries), unless it
// matches [ErrDrop].
type Handler[T any] func(ctx context.Context, m Message[T]) error

// ErrDrop, returned (wrapped) by a handler, deletes the message without a
// retry and without the dead-letter hook: the handler decided the message
// is done with (for instance it finalised the work itself).
var ErrDrop = errors.New("consumer: drop message")

// ErrInvalidOptions is returned by [New] for options that cannot work.
var ErrInvalidOptions = errors.New("consumer: invalid options")

// Options configures a [Consumer]. The zero value is valid.
type Options[T any] struct {
	// Concurrency bounds the handlers running at once. Default 4.
	Concurrency int
	// MaxReceives is the delivery after which a failing message goes to
	// DeadLetter instead of being retried. Default 5.
	MaxReceives int
	// Retry paces redeliveries of a failed message: before delivery
	// number n+1 the message stays hidden for Retry.Backoff(n). A strategy
	// that gives up dead-letters the message at once. Default
	// retry.Exponential(100ms, 30s).
	Retry retry.Strategy
	// DeadLetter is the final-failure hook, called with the last
	// delivery and its error once MaxReceives deliveries failed. nil
	// result: the message is deleted (the hook recorded the failure, for
	// instance moved it to a dead-letter queue or marked the work
	// FAILED_FINAL); an error leaves it for another delivery (and another
	// call of the hook). Default: none, the message is deleted and
	// counted in Metrics.DeadLettered.
	DeadLetter func(ctx context.Context, m Message[T], err error) error
	// Idempotency, with Key, runs the handler inside idempotency.Do
	// keyed by Key(m): a delivery of a message already handled is
	// deleted without running the handler again. Default none: the
	// handler must be idempotent by itself.
	Idempotency *idempotency.Store
	// Key is the idempotency key of a message. Default the message ID.
	Key func(m Message[T]) string
	// Drain is how long handlers in flight keep a live ctx after the ctx
	// of Run ended. Default 0: they see the cancellation at once. Run
	// returns only after every handler returned, whatever Drain is.
	Drain time.Duration
	// AckTimeout bounds each Delete and ChangeVisibility, which run on a
	// ctx detached from Run's so that finished work is acknowledged during
	// a shutdown. Default 5 s.
	AckTimeout time.Duration
	// Batch is the most messages asked of one Receive. Default 10 (SQS's
	// limit), never more than the free handler slots.
	Batch int
	// BatchWait is how long the loop, once a handler slot is free, waits
	// for more slots to free (handlers finishing) so that one Receive asks
	// for a full batch (Batch, or Concurrency when smaller) rather than
	// one Receive per freed slot. It waits only while handlers are
	// running, and not at all when the batch is full. Default 1 ms (a
	// nanosecond in effect receives at once into the free slots).
	BatchWait time.Duration
	// Heartbeat, when positive, keeps a delivery hidden while its handler
	// runs longer than the queue's visibility timeout: every Heartbeat the
	// loop sets the message's visibility to HeartbeatVisibility from now
	// (ChangeVisibility), until the handler returns. A failed heartbeat
	// counts in Metrics.AckFailed and Metrics.HeartbeatFailed; the
	// handler is not interrupted. Default 0: no heartbeat, set it below
	// the queue's visibility timeout.
	Heartbeat time.Duration
	// HeartbeatVisibility is the visibility a heartbeat sets. Default
	// 3 × Heartbeat.
	HeartbeatVisibility time.Duration
	// Tracer observes each delivery (package otelkit has one for
	// OpenTelemetry). Default none.
	Tracer Tracer
}

// Tracer observes the deliveries of a [Consumer], in the style of
// entity.Tracer: DeliveryStart is called before the handler with the
// handler's ctx and returns the ctx the handler runs with (a tracer can
// start a span there); DeliveryEnd is called with that ctx once the
// delivery's outcome is known (after its Delete or ChangeVisibility).
// Both are called on the delivery's goroutine and must be safe for
// concurrent use.
type Tracer interface {
	DeliveryStart(ctx context.Context, ev DeliveryStartEvent) context.Context
	DeliveryEnd(ctx context.Context, ev DeliveryEvent)
}

// DeliveryStartEvent describes a delivery about to be handled.
type DeliveryStartEvent struct {
	MessageID    string
	ReceiveCount int
	SentAt       time.Time // zero when the queue did not say
}

// Outcomes of a delivery ([DeliveryEvent].Outcome).
const (
	OutcomeSucceeded    = "succeeded"
	OutcomeReplayed     = "replayed"
	OutcomeDropped      = "dropped"
	OutcomeRetried      = "retried"
	OutcomeDeadLettered = "dead_lettered"
	OutcomeHookFailed   = "hook_failed"
	OutcomeAbandoned    = "abandoned"
)

// DeliveryEvent describes the end of a delivery.
type DeliveryEvent struct {
	MessageID    string
	ReceiveCount int
	SentAt       time.Time
	// Outcome is one of the Outcome constants.
	Outcome string
	// Duration is the handler's run time.
	Duration time.Duration
	// Err is the handler's error (nil on success and replay).
	Err error
}

// Metrics are a Consumer's counters since New.
type Metrics struct {
	// Received counts deliveries.
	Received int64
	// Succeeded counts deliveries whose handler returned nil (and were
	// deleted), Replayed those the idempotency store answered without
	// running the handler, Dropped those that returned ErrDrop.
	Succeeded, Replayed, Dropped int64
	// Retried counts failed deliveries left for redelivery.
	Retried int64
	// DeadLettered counts messages given up after MaxReceives deliveries
	// (or when Retry gave up), HookFailed the dead-letter hook's errors.
	DeadLettered, HookFailed int64
	// Abandoned counts deliveries whose handler was cut by the shutdown;
	// the queue redelivers them after their visibility timeout.
	Abandoned int64
	// AckFailed counts failed Delete and ChangeVisibility calls.
	AckFailed int64
	// Heartbeats counts the visibility extensions of Options.Heartbeat,
	// HeartbeatFailed the failed ones.
	Heartbeats, HeartbeatFailed int64
	// InFlight is the number of handlers running now.
	InFlight int64
}

// Consumer runs a handler over a queue. Create it with [New]; it is safe
// for concurrent use, and [Consumer.Run] may be called more than once (in
// turn or at once: the concurrency bound is per call).
type Consumer[T any] struct {
	q Queue[T]
	h Handler[T]
	o Options[T]

	received, succeeded, replayed, dropped, retried, deadLettered, hookFailed, abandoned, ackFailed, inFlight atomic.Int64
	heartbeats, heartbeatFailed                                                                               atomic.Int64
}

// New returns a Consumer of q running h. It returns an error matching
// [ErrInvalidOptions] for a nil queue or handler, or negative options.
func New[T any](q Queue[T], h Handler[T], optFns ...func(*Options[T])) (*Consumer[T], error) {
	if q == nil || h == nil {
		return nil, fmt.Errorf("%w: nil queue or handler", ErrInvalidOptions)
	}
	var o Options[T]
	for _, fn := range optFns {
		fn(&o)
	}
	if o.Concurrency < 0 || o.MaxReceives < 0 || o.Drain < 0 || o.AckTimeout < 0 || o.Batch < 0 || o.BatchWait < 0 || o.Heartbeat < 0 || o.HeartbeatVisibility < 0 {
		return nil, fmt.Errorf("%w: negative Concurrency, MaxReceives, Drain, AckTimeout, Batch, BatchWait, Heartbeat or HeartbeatVisibility", ErrInvalidOptions)
	}
	if o.HeartbeatVisibility == 0 {
		o.HeartbeatVisibility = 3 * o.Heartbeat
	}
	if o.Concurrency == 0 {
		o.Concurrency = 4
	}
	if o.MaxReceives == 0 {
		o.MaxReceives = 5
	}
	if o.Retry == nil {
		o.Retry = retry.Exponential(100*time.Millisecond, 30*time.Second)
	}
	if o.Key == nil {
		o.Key = func(m Message[T]) string { return m.ID }
	}
	if o.AckTimeout == 0 {
		o.AckTimeout = 5 * time.Second
	}
	if o.Batch == 0 {
		o.Batch = 10
	}
	if o.BatchWait == 0 {
		o.BatchWait = time.Millisecond
	}
	return &Consumer[T]{q: q, h: h, o: o}, nil
}

// Metrics returns the consumer's counters.
func (c *Consumer[T]) Metrics() Metrics {
	return Metrics{
		Received: c.received.Load(), Succeeded: c.succeeded.Load(), Replayed: c.replayed.Load(),
		Dropped: c.dropped.Load(), Retried: c.retried.Load(), DeadLettered: c.deadLettered.Load(),
		HookFailed: c.hookFailed.Load(), Abandoned: c.abandoned.Load(), AckFailed: c.ackFailed.Load(),
		InFlight: c.inFlight.Load(), Heartbeats: c.heartbeats.Load(), HeartbeatFailed: c.heartbeatFailed.Load(),
	}
}

// Run receives and handles messages until ctx ends, then stops receiving,
// waits for the handlers in flight (see [Options.Drain]) and returns
// ctx's error. A Receive in flight when ctx ends is the queue's to settle:
// consumer/sqsqueue lets its request finish and makes what it brings
// visible again (wait for that with its Queue.WaitReceives). A Receive error other than ctx's is retried with
// [Options.Retry] backoff (1 s once the strategy gives up). A handler that
// panics crashes the process, as it would without the loop; its message
// comes back after the visibility timeout.
func (c *Consumer[T]) Run(ctx context.Context) error {
	hctx, hcancel := c.handlerCtx(ctx)
	defer hcancel()
	slots := make(chan struct{}, c.o.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	recvErrs := 0
	full := min(c.o.Batch, c.o.Concurrency)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	defer linger.Stop()
	for {
		// Wait for one free slot, then take every free one and, for up to
		// BatchWait, those that free meanwhile (up to a full batch).
		select {
		case <-ctx.Done():
			return ctx.Err()
		case slots <- struct{}{}:
		}
		n, lingering := 1, false
	more:
		for n < full {
			select {
			case slots <- struct{}{}:
				n++
				continue
			default:
			}
			if !lingering {
				lingering = true
				linger.Reset(c.o.BatchWait)
			}
			select {
			case slots <- struct{}{}:
				n++
			case <-linger.C:
				lingering = false
				break more
			case <-ctx.Done():
				break more
			}
		}
		if lingering {
			linger.Stop()
		}
		msgs, err := c.q.Receive(ctx, n)
		if err != nil {
			for range n {
				<-slots
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			recvErrs++
			d, ok := c.o.Retry.Backoff(recvErrs)
			if !ok || d < time.Millisecond {
				d = time.Second // a strategy that gave up on receiving still paces the loop
			}
			if retry.Sleep(ctx, d) != nil {
				return ctx.Err()
			}
			continue
		}
		recvErrs = 0
		for i := len(msgs); i < n; i++ {
			<-slots // slots the queue did not fill
		}
		for _, m := range msgs {
			c.received.Add(1)
			c.inFlight.Add(1)
			wg.Add(1)
			go func() {
				defer func() { <-slots; c.inFlight.Add(-1); wg.Done() }()
				c.handle(hctx, m)
			}()
		}
	}
}

// handlerCtx is the ctx of the handlers: it ends Drain after ctx.
func (c *Consumer[T]) handlerCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.o.Drain == 0 {
		return context.WithCancel(ctx)
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(c.o.Drain, cancel)
		context.AfterFunc(hctx, func() { t.Stop() })
	})
	return hctx, func() { stop(); cancel() }
}

func (c *Consumer[T]) ackCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.o.AckTimeout)
}

// handle runs one delivery to its end: delete, retry or dead letter.
func (c *Consumer[T]) handle(ctx context.Context, m Message[T]) {
	tr := c.o.Tracer
	if tr == nil {
		_, _ = c.handleTraced(ctx, m)
		return
	}
	ctx = tr.DeliveryStart(ctx, DeliveryStartEvent{MessageID: m.ID, ReceiveCount: m.ReceiveCount, SentAt: m.SentAt})
	start := time.Now()
	outcome, err := c.handleTraced(ctx, m)
	tr.DeliveryEnd(ctx, DeliveryEvent{MessageID: m.ID, ReceiveCount: m.ReceiveCount, SentAt: m.SentAt, Outcome: outcome, Duration: time.Since(start), Err: err})
}

// handleTraced runs one delivery and returns its outcome and the
// handler's error.
func (c *Consumer[T]) handleTraced(ctx context.Context, m Message[T]) (string, error) {
	stop := c.heartbeat(ctx, m)
	replayed, err := c.run(ctx, m)
	stop()
	switch {
	case err == nil || errors.Is(err, ErrDrop):
		outcome := OutcomeSucceeded
		switch {
		case err != nil:
			c.dropped.Add(1)
			outcome = OutcomeDropped
		case replayed:
			c.replayed.Add(1)
			outcome = OutcomeReplayed
		default:
			c.succeeded.Add(1)
		}
		c.delete(ctx, m)
		return outcome, err
	case ctx.Err() != nil:
		// Shutting down: leave the message hidden; the queue brings it
		// back after its visibility timeout (as after a crash).
		c.abandoned.Add(1)
		return OutcomeAbandoned, err
	}
	wait, more := c.o.Retry.Backoff(m.ReceiveCount)
	if more && m.ReceiveCount < c.o.MaxReceives {
		c.retried.Add(1)
		actx, cancel := c.ackCtx(ctx)
		defer cancel()
		if verr := c.q.ChangeVisibility(actx, m.Handle, wait); verr != nil {
			c.ackFailed.Add(1)
		}
		return OutcomeRetried, err
	}
	c.deadLettered.Add(1)
	if c.o.DeadLetter != nil {
		if herr := c.o.DeadLetter(ctx, m, err); herr != nil {
			c.hookFailed.Add(1)
			return OutcomeHookFailed, err // another delivery calls the hook again
		}
	}
	c.delete(ctx, m)
	return OutcomeDeadLettered, err
}

func noop() {}

// heartbeat starts the visibility heartbeat of m (Options.Heartbeat) and
// returns the function that stops it and waits for it.
func (c *Consumer[T]) heartbeat(ctx context.Context, m Message[T]) (stop func()) {
	if c.o.Heartbeat <= 0 {
		return noop
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(c.o.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			actx, cancel := c.ackCtx(ctx)
			err := c.q.ChangeVisibility(actx, m.Handle, c.o.HeartbeatVisibility)
			cancel()
			c.heartbeats.Add(1)
			if err != nil {
				c.heartbeatFailed.Add(1)
				c.ackFailed.Add(1)
			}
		}
	}()
	return func() { close(done); <-finished }
}

func (c *Consumer[T]) delete(ctx context.Context, m Message[T]) {
	actx, cancel := c.ackCtx(ctx)
	defer cancel()
	if err := c.q.Delete(actx, m.Handle); err != nil {
		c.ackFailed.Add(1)
	}
}

// run calls the handler, through the idempotency store when one is set.
func (c *Consumer[T]) run(ctx context.Context, m Message[T]) (replayed bool, err error) {
	if c.o.Idempotency == nil {
		return false, c.h(ctx, m)
	}
	_, replayed, err = idempotency.Do(ctx, c.o.Idempotency, c.o.Key(m), nil, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.h(ctx, m)
	})
	return replayed, err
}
