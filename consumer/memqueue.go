package consumer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrInvalidHandle is returned by [MemQueue.Delete] and
// [MemQueue.ChangeVisibility] for a receipt handle that is not the
// message's current one: the message was received again since (its
// visibility timeout ran out) or was deleted.
var ErrInvalidHandle = errors.New("consumer: receipt handle is not current")

// MemQueueOptions configures a [MemQueue]. The zero value is valid.
type MemQueueOptions[T any] struct {
	// VisibilityTimeout is how long a received message stays hidden
	// before it is delivered again, unless deleted or its visibility is
	// changed. Default 30 s (SQS's default).
	VisibilityTimeout time.Duration
	// WaitTime bounds one Receive when no message is visible (SQS long
	// polling). Default 1 s.
	WaitTime time.Duration
	// Duplicate, when set, is asked on every Send; true stores the
	// message twice, as a standard SQS queue may deliver a message more
	// than once. Default never.
	Duplicate func(body T) bool
}

// MemQueue is an in-process queue that behaves like an SQS standard
// queue: a received message is hidden for the visibility timeout and then
// delivered again unless deleted, each delivery carries a new receipt
// handle and an incremented receive count, and Send may store duplicates
// ([MemQueueOptions.Duplicate]). Messages live in memory only. It is safe
// for concurrent use; the zero value is not, use [NewMemQueue].
type MemQueue[T any] struct {
	o MemQueueOptions[T]

	mu    sync.Mutex
	msgs  map[string]*memMsg[T]
	byHdl map[string]*memMsg[T] // current receipt handles
	order []string              // message IDs in send order (deleted ones removed lazily)
	wake  chan struct{}

	sent, deliveries, deleted atomic.Int64
}

type memMsg[T any] struct {
	id       string
	body     T
	sentAt   time.Time
	hidden   time.Time // invisible until
	receives int
	handle   string
}

// NewMemQueue returns an empty queue.
func NewMemQueue[T any](optFns ...func(*MemQueueOptions[T])) *MemQueue[T] {
	var o MemQueueOptions[T]
	for _, fn := range optFns {
		fn(&o)
	}
	if o.VisibilityTimeout <= 0 {
		o.VisibilityTimeout = 30 * time.Second
	}
	if o.WaitTime <= 0 {
		o.WaitTime = time.Second
	}
	return &MemQueue[T]{o: o, msgs: map[string]*memMsg[T]{}, byHdl: map[string]*memMsg[T]{}, wake: make(chan struct{})}
}

var _ Queue[int] = (*MemQueue[int])(nil)

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Send stores body and returns nil (an in-process queue cannot refuse a
// message); it returns ctx's error, storing nothing, when ctx has ended.
func (q *MemQueue[T]) Send(ctx context.Context, body T) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := 1
	if q.o.Duplicate != nil && q.o.Duplicate(body) {
		n = 2
	}
	q.mu.Lock()
	now := time.Now()
	for range n {
		m := &memMsg[T]{id: randomID(), body: body, sentAt: now}
		q.msgs[m.id] = m
		q.order = append(q.order, m.id)
		q.sent.Add(1)
	}
	q.signal()
	q.mu.Unlock()
	return nil
}

// signal wakes the waiting receivers; call with mu held.
func (q *MemQueue[T]) signal() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// Receive returns up to max visible messages (max < 1 means 1), oldest
// first, hiding each for the visibility timeout. When none is visible it
// waits up to WaitTime and may return none. It returns ctx's error when
// ctx ends while waiting.
func (q *MemQueue[T]) Receive(ctx context.Context, max int) ([]Message[T], error) {
	if max < 1 {
		max = 1
	}
	poll := time.NewTimer(q.o.WaitTime)
	defer poll.Stop()
	for {
		q.mu.Lock()
		now := time.Now()
		var out []Message[T]
		var next time.Time
		live := q.order[:0]
		for _, id := range q.order {
			m, ok := q.msgs[id]
			if !ok {
				continue
			}
			live = append(live, id)
			if len(out) == max {
				continue
			}
			if m.hidden.After(now) {
				if next.IsZero() || m.hidden.Before(next) {
					next = m.hidden
				}
				continue
			}
			m.receives++
			delete(q.byHdl, m.handle)
			m.handle = randomID()
			q.byHdl[m.handle] = m
			m.hidden = now.Add(q.o.VisibilityTimeout)
			out = append(out, Message[T]{ID: m.id, Body: m.body, ReceiveCount: m.receives, Handle: m.handle, SentAt: m.sentAt})
		}
		clear(q.order[len(live):])
		q.order = live
		wake := q.wake
		q.mu.Unlock()
		if len(out) > 0 {
			q.deliveries.Add(int64(len(out)))
			return out, nil
		}
		var reappear <-chan time.Time
		if !next.IsZero() {
			t := time.NewTimer(time.Until(next))
			defer t.Stop()
			reappear = t.C
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-poll.C:
			return nil, nil
		case <-wake:
		case <-reappear:
		}
	}
}

// Delete removes the message received with handle; [ErrInvalidHandle]
// when the handle is no longer current.
func (q *MemQueue[T]) Delete(ctx context.Context, handle string) error {
	return q.withHandle(ctx, handle, "delete", func(m *memMsg[T]) {
		delete(q.byHdl, handle)
		delete(q.msgs, m.id)
		q.deleted.Add(1)
	})
}

// ChangeVisibility hides the message received with handle for d from now
// (0 makes it visible at once); [ErrInvalidHandle] when the handle is no
// longer current.
func (q *MemQueue[T]) ChangeVisibility(ctx context.Context, handle string, d time.Duration) error {
	return q.withHandle(ctx, handle, "change visibility", func(m *memMsg[T]) {
		m.hidden = time.Now().Add(max(d, 0))
	})
}

// withHandle runs fn, under the queue's lock, on the message received
// with handle, then wakes the receivers. It returns ctx.Err() when ctx has
// ended, and ErrInvalidHandle (wrapped, naming op) when the handle is no
// longer current.
func (q *MemQueue[T]) withHandle(ctx context.Context, handle, op string, fn func(m *memMsg[T])) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	m, ok := q.byHdl[handle]
	if !ok {
		return fmt.Errorf("%w: %s", ErrInvalidHandle, op)
	}
	fn(m)
	q.signal()
	return nil
}

// QueueStats are a MemQueue's counters.
type QueueStats struct {
	// Sent counts stored messages (duplicates included); Deliveries
	// counts received messages (redeliveries included); Deleted counts
	// deletions; Len is the number of messages not yet deleted, and
	// InFlight those of them hidden now.
	Sent, Deliveries, Deleted int64
	Len, InFlight             int
}

// Stats returns the queue's counters.
func (q *MemQueue[T]) Stats() QueueStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := QueueStats{Sent: q.sent.Load(), Deliveries: q.deliveries.Load(), Deleted: q.deleted.Load(), Len: len(q.msgs)}
	now := time.Now()
	for _, m := range q.msgs {
		if m.hidden.After(now) {
			st.InFlight++
		}
	}
	return st
}

// WaitEmpty waits until every message has been deleted, or ctx ends (its
// error is returned then).
func (q *MemQueue[T]) WaitEmpty(ctx context.Context) error {
	for {
		q.mu.Lock()
		n, wake := len(q.msgs), q.wake
		q.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// Redeliver makes every hidden message visible at once, as if its
// visibility timeout had run out (tests use it to play a crashed
// consumer's messages coming back without waiting).
func (q *MemQueue[T]) Redeliver() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, m := range q.msgs {
		m.hidden = time.Time{}
	}
	q.signal()
}
