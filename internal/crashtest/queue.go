package crashtest

import (
	"context"
	"time"

	"github.com/tablekit/tablekit/consumer"
)

// SendQueue is a consumer queue that also sends (as [consumer.MemQueue]).
type SendQueue[T any] interface {
	consumer.Queue[T]
	Send(ctx context.Context, body T) error
}

// Queue wraps a queue so that Send, Delete and ChangeVisibility are crash
// points of the injector. Receive is not a point (a failed receive changes
// nothing), but a dead process receives nothing.
type Queue[T any] struct {
	Q  SendQueue[T]
	In *Injector
}

// Send sends body under the injector.
func (q *Queue[T]) Send(ctx context.Context, body T) error {
	return Do(q.In, "Queue.Send", func() error { return q.Q.Send(ctx, body) })
}

// Receive receives unless the process died.
func (q *Queue[T]) Receive(ctx context.Context, max int) ([]consumer.Message[T], error) {
	if q.In.Dead() {
		return nil, ErrDead
	}
	return q.Q.Receive(ctx, max)
}

// Delete acknowledges under the injector.
func (q *Queue[T]) Delete(ctx context.Context, handle string) error {
	return Do(q.In, "Queue.Delete", func() error { return q.Q.Delete(ctx, handle) })
}

// ChangeVisibility changes visibility under the injector.
func (q *Queue[T]) ChangeVisibility(ctx context.Context, handle string, d time.Duration) error {
	return Do(q.In, "Queue.ChangeVisibility", func() error { return q.Q.ChangeVisibility(ctx, handle, d) })
}
