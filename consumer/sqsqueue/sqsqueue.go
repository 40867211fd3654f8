// Package sqsqueue is a [consumer.Queue] on Amazon SQS
// (github.com/aws/aws-sdk-go-v2/service/sqs): long-polling receives of up
// to 10 messages with their ApproximateReceiveCount, deletes and
// visibility changes gathered into batches, sends with the FIFO group and
// deduplication IDs when the queue is FIFO, and SQS's errors translated at
// the boundary ([ErrQueueNotFound], [consumer.ErrInvalidHandle],
// [ErrThrottled]). The handler's visibility heartbeat is the consumer's
// (consumer.Options.Heartbeat), which calls ChangeVisibility here.
//
// Stopping strands no message: a Receive cut short by its ctx (the
// consumer stopping) returns at once, but its request runs to its end,
// and what SQS hands it meanwhile is made visible again at once rather
// than hidden for the visibility timeout; [Queue.WaitReceives] waits for
// that before the program exits.
//
// Bodies are JSON by default ([Options.Marshal], [Options.Unmarshal]).
// A message whose body does not decode is not returned by Receive: it
// stays in the queue until the queue's redrive policy moves it to the
// dead-letter queue, and [Queue.Stats] counts it.
//
// Batching: a ChangeVisibility adds no wait (the first sends at once, and
// the calls that arrive while it is in flight go out together in the next
// request, up to 10 per request). A Delete does the same, except that
// while other messages received through the Queue are still held (not
// yet deleted nor re-hidden) it first waits up to [Options.DeleteWait]
// for their Deletes to join it, so that the handlers of one receive
// acknowledge in one request.
package sqsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/consumer"
)

// Client is the part of *sqs.Client a [Queue] uses.
type Client interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

var _ Client = (*sqs.Client)(nil)

var (
	// ErrQueueNotFound is returned for a queue that does not exist (SQS's
	// QueueDoesNotExist).
	ErrQueueNotFound = errors.New("sqsqueue: queue does not exist")
	// ErrThrottled is returned when SQS throttled the request after the
	// SDK's retries (RequestThrottled, OverLimit, KmsThrottled,
	// ThrottlingException).
	ErrThrottled = errors.New("sqsqueue: throttled")
	// ErrInvalidOptions is returned by [New] for options that cannot work.
	ErrInvalidOptions = errors.New("sqsqueue: invalid options")
)

// Options configures a [Queue]. Only QueueURL is required.
type Options[T any] struct {
	// QueueURL is the queue's URL (GetQueueUrl or CreateQueue returns it).
	QueueURL string
	// WaitTime is the long-polling wait of one Receive. Default 20 s
	// (SQS's maximum); a Receive returns earlier when messages come or its
	// ctx ends.
	WaitTime time.Duration
	// VisibilityTimeout, when positive, overrides the queue's visibility
	// timeout for the messages a Receive returns. Default: the queue's.
	VisibilityTimeout time.Duration
	// FIFO marks a FIFO queue. Default: true when QueueURL ends in ".fifo".
	FIFO bool
	// GroupID is the message group of a message sent to a FIFO queue.
	// Default: one group, "default" (strict order, no parallelism).
	GroupID func(body T) string
	// DeduplicationID is the deduplication ID of a message sent to a FIFO
	// queue. Default: none, for a queue with content-based deduplication.
	DeduplicationID func(body T) string
	// Marshal and Unmarshal encode bodies. Default JSON.
	Marshal   func(body T) (string, error)
	Unmarshal func(s string, body *T) error
	// CountReceives counts the deliveries of each message in this Queue
	// value and reports the larger of that count and the server's
	// ApproximateReceiveCount, for SQS-compatible servers that do not
	// count (goaws v0.5.4 always reports 1). A message's count is
	// forgotten when it is deleted through this value. Default false.
	CountReceives bool
	// DeleteWait is how long a Delete that would start a request waits
	// for the Deletes of the other messages this Queue holds (received,
	// not yet deleted nor passed to ChangeVisibility) to fill its batch
	// (up to 10); it does not wait when no other message is held, nor
	// once the batch is full. A message received more than a minute ago
	// no longer counts as held (its handler is slow, or it was never
	// acknowledged: a dead-letter hook failed, a shutdown abandoned it).
	// Default 1 ms (a nanosecond in effect sends at once).
	DeleteWait time.Duration
	// NoVisibilityBatch sends each ChangeVisibility alone, for
	// SQS-compatible servers without ChangeMessageVisibilityBatch (goaws).
	// Default false: batched as Delete is.
	NoVisibilityBatch bool
}

// Stats are a Queue's counters since New.
type Stats struct {
	// Sent, Received and Deleted count messages; Undecodable counts
	// received messages whose body did not decode (left in the queue).
	Sent, Received, Deleted, Undecodable int64
	// Requests counts the SQS requests sent, DeleteBatches and
	// VisibilityBatches the batch requests among them.
	Requests, DeleteBatches, VisibilityBatches int64
	// Released counts the messages that SQS handed to a Receive after its
	// ctx had ended, made visible again at once (see [Queue.Receive]);
	// ReleaseFailed those whose ChangeMessageVisibility failed (they come
	// back when their visibility timeout ends).
	Released, ReleaseFailed int64
}

// Queue is a [consumer.Queue] on one SQS queue. It is safe for concurrent
// use; create it with [New].
type Queue[T any] struct {
	c Client
	o Options[T]

	del, vis batcher

	heldMu    sync.Mutex
	held      map[string]time.Time // receipt handles returned and not yet acknowledged -> when
	heldPrune time.Time            // when held was last pruned

	countMu sync.Mutex
	counts  map[string]delivery // message ID -> deliveries seen (CountReceives)
	ids     map[string]string   // current receipt handle -> message ID (CountReceives)

	cut inflight // receives cut short by their ctx, still waiting for SQS's answer

	sent, received, deleted, undecodable, requests, delBatches, visBatches, released, releaseFailed atomic.Int64
}

// New returns the Queue of o.QueueURL on c. It returns an error matching
// [ErrInvalidOptions] for a nil client, an empty QueueURL or a negative
// duration.
func New[T any](c Client, optFns ...func(*Options[T])) (*Queue[T], error) {
	var o Options[T]
	for _, fn := range optFns {
		fn(&o)
	}
	if c == nil || o.QueueURL == "" {
		return nil, fmt.Errorf("%w: nil client or empty QueueURL", ErrInvalidOptions)
	}
	if o.WaitTime < 0 || o.VisibilityTimeout < 0 || o.DeleteWait < 0 {
		return nil, fmt.Errorf("%w: negative WaitTime, VisibilityTimeout or DeleteWait", ErrInvalidOptions)
	}
	if o.DeleteWait == 0 {
		o.DeleteWait = time.Millisecond
	}
	if o.WaitTime == 0 {
		o.WaitTime = 20 * time.Second
	}
	if o.WaitTime > 20*time.Second {
		o.WaitTime = 20 * time.Second
	}
	if strings.HasSuffix(o.QueueURL, ".fifo") {
		o.FIFO = true
	}
	if o.GroupID == nil {
		o.GroupID = func(T) string { return "default" }
	}
	if o.Marshal == nil {
		o.Marshal = func(body T) (string, error) {
			b, err := json.Marshal(body)
			return string(b), err
		}
	}
	if o.Unmarshal == nil {
		o.Unmarshal = func(s string, body *T) error { return json.Unmarshal([]byte(s), body) }
	}
	q := &Queue[T]{c: c, o: o, held: map[string]time.Time{}}
	q.del.send = q.deleteBatch
	q.del.wait, q.del.held = o.DeleteWait, q.heldCount
	q.vis.send = q.visibilityBatch
	return q, nil
}

// Stats returns the queue's counters.
func (q *Queue[T]) Stats() Stats {
	return Stats{
		Sent: q.sent.Load(), Received: q.received.Load(), Deleted: q.deleted.Load(), Undecodable: q.undecodable.Load(),
		Requests: q.requests.Load(), DeleteBatches: q.delBatches.Load(), VisibilityBatches: q.visBatches.Load(),
		Released: q.released.Load(), ReleaseFailed: q.releaseFailed.Load(),
	}
}

// Send sends body and returns nil once SQS accepted it. On a FIFO queue it
// sets the message group and deduplication IDs of [Options]. Errors:
// ErrQueueNotFound, ErrThrottled, a Marshal error, or the SDK's.
func (q *Queue[T]) Send(ctx context.Context, body T) error {
	s, err := q.o.Marshal(body)
	if err != nil {
		return fmt.Errorf("sqsqueue: marshal: %w", err)
	}
	in := &sqs.SendMessageInput{QueueUrl: &q.o.QueueURL, MessageBody: &s}
	if q.o.FIFO {
		in.MessageGroupId = aws.String(q.o.GroupID(body))
		if q.o.DeduplicationID != nil {
			in.MessageDeduplicationId = aws.String(q.o.DeduplicationID(body))
		}
	}
	q.requests.Add(1)
	if _, err := q.c.SendMessage(ctx, in); err != nil {
		return translate("send", err)
	}
	q.sent.Add(1)
	return nil
}

var systemAttrs = []types.MessageSystemAttributeName{
	types.MessageSystemAttributeNameApproximateReceiveCount,
	types.MessageSystemAttributeNameSentTimestamp,
}

// Receive implements consumer.Queue: one ReceiveMessage of up to min(n, 10)
// messages, long polling for [Options.WaitTime]. Errors:
// ErrQueueNotFound, ErrThrottled, the ctx's, or the SDK's.
//
// When ctx ends first, Receive returns its error at once, but the request
// goes on: a long poll cut short on the client stays open on the server
// until its wait is over, and SQS may hand it messages meanwhile, which
// would then stay hidden for their visibility timeout under receipt
// handles nobody holds (goaws does so; so does SQS when the answer is
// lost). The request is let finish instead, and the messages it brings
// are made visible again at once (ChangeMessageVisibility 0, counted in
// [Stats].Released): a consumer that stops strands no message. Call
// [Queue.WaitReceives] before the program exits.
func (q *Queue[T]) Receive(ctx context.Context, n int) ([]consumer.Message[T], error) {
	n = min(max(n, 1), 10)
	in := &sqs.ReceiveMessageInput{
		QueueUrl:                    &q.o.QueueURL,
		MaxNumberOfMessages:         int32(n),
		WaitTimeSeconds:             int32((q.o.WaitTime + time.Second - 1) / time.Second),
		MessageSystemAttributeNames: systemAttrs,
	}
	if q.o.VisibilityTimeout > 0 {
		in.VisibilityTimeout = int32(max(1, q.o.VisibilityTimeout/time.Second))
	}
	out, err := q.receive(ctx, in)
	if err != nil {
		return nil, translate("receive", err)
	}
	msgs := make([]consumer.Message[T], 0, len(out.Messages))
	for _, m := range out.Messages {
		var body T
		if err := q.o.Unmarshal(aws.ToString(m.Body), &body); err != nil {
			q.undecodable.Add(1)
			continue
		}
		cm := consumer.Message[T]{ID: aws.ToString(m.MessageId), Body: body, Handle: aws.ToString(m.ReceiptHandle), ReceiveCount: 1}
		if n, err := strconv.Atoi(m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]); err == nil && n > 0 {
			cm.ReceiveCount = n
		}
		if q.o.CountReceives {
			cm.ReceiveCount = q.count(cm.ID, cm.Handle, cm.ReceiveCount)
		}
		if ms, err := strconv.ParseInt(m.Attributes[string(types.MessageSystemAttributeNameSentTimestamp)], 10, 64); err == nil {
			cm.SentAt = time.UnixMilli(ms)
		}
		msgs = append(msgs, cm)
	}
	if len(msgs) > 0 {
		now := time.Now()
		q.heldMu.Lock()
		for _, m := range msgs {
			q.held[m.Handle] = now
		}
		q.heldMu.Unlock()
	}
	q.received.Add(int64(len(msgs)))
	return msgs, nil
}

// Delete implements consumer.Queue, batched with the Deletes in flight at
// the same time. Errors: consumer.ErrInvalidHandle for a receipt handle
// SQS no longer accepts, ErrQueueNotFound, ErrThrottled, or the SDK's.
func (q *Queue[T]) Delete(ctx context.Context, handle string) error {
	err := q.del.do(ctx, entry{handle: handle})
	q.release(handle)
	if err != nil {
		return err
	}
	q.deleted.Add(1)
	if q.o.CountReceives {
		q.countMu.Lock()
		delete(q.counts, q.ids[handle])
		delete(q.ids, handle)
		q.countMu.Unlock()
	}
	return nil
}

// release forgets handle as held (see Options.DeleteWait).
func (q *Queue[T]) release(handle string) {
	q.heldMu.Lock()
	delete(q.held, handle)
	q.heldMu.Unlock()
}

// heldHorizon is how long a received message counts as held.
const heldHorizon = time.Minute

// heldCount is the number of messages held (see Options.DeleteWait); it
// forgets, every heldHorizon, those received more than heldHorizon ago.
func (q *Queue[T]) heldCount() int {
	q.heldMu.Lock()
	defer q.heldMu.Unlock()
	if now := time.Now(); now.Sub(q.heldPrune) > heldHorizon {
		q.heldPrune = now
		for h, at := range q.held {
			if now.Sub(at) > heldHorizon {
				delete(q.held, h)
			}
		}
	}
	return len(q.held)
}

// count records one delivery of message id under handle and returns its
// count: the larger of the local count and the server's.
func (q *Queue[T]) count(id, handle string, server int) int {
	q.countMu.Lock()
	defer q.countMu.Unlock()
	if q.counts == nil {
		q.counts, q.ids = map[string]delivery{}, map[string]string{}
	}
	d := q.counts[id]
	delete(q.ids, d.handle)
	d.n, d.handle = max(d.n+1, server), handle
	q.counts[id] = d
	q.ids[handle] = id
	return d.n
}

type delivery struct {
	n      int
	handle string
}

// ChangeVisibility implements consumer.Queue, batched as Delete (unless
// [Options.NoVisibilityBatch]); d is rounded down to whole seconds, as SQS
// counts them. Errors as Delete.
func (q *Queue[T]) ChangeVisibility(ctx context.Context, handle string, d time.Duration) error {
	if d < 0 {
		d = 0
	}
	q.release(handle)
	secs := int32(d / time.Second)
	if q.o.NoVisibilityBatch {
		q.requests.Add(1)
		_, err := q.c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &q.o.QueueURL, ReceiptHandle: &handle, VisibilityTimeout: secs})
		return translate("change visibility", err)
	}
	return q.vis.do(ctx, entry{handle: handle, secs: secs})
}

func (q *Queue[T]) deleteBatch(ctx context.Context, es []*entry) {
	if len(es) == 1 {
		q.requests.Add(1)
		_, err := q.c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &q.o.QueueURL, ReceiptHandle: &es[0].handle})
		es[0].err = translate("delete", err)
		return
	}
	in := &sqs.DeleteMessageBatchInput{QueueUrl: &q.o.QueueURL, Entries: make([]types.DeleteMessageBatchRequestEntry, len(es))}
	for i, e := range es {
		in.Entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: &e.handle}
	}
	q.requests.Add(1)
	q.delBatches.Add(1)
	out, err := q.c.DeleteMessageBatch(ctx, in)
	if err != nil {
		setAll(es, translate("delete batch", err))
		return
	}
	failed(es, out.Failed, "delete")
}

func (q *Queue[T]) visibilityBatch(ctx context.Context, es []*entry) {
	if len(es) == 1 {
		q.requests.Add(1)
		_, err := q.c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &q.o.QueueURL, ReceiptHandle: &es[0].handle, VisibilityTimeout: es[0].secs})
		es[0].err = translate("change visibility", err)
		return
	}
	in := &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &q.o.QueueURL, Entries: make([]types.ChangeMessageVisibilityBatchRequestEntry, len(es))}
	for i, e := range es {
		in.Entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: &e.handle, VisibilityTimeout: e.secs}
	}
	q.requests.Add(1)
	q.visBatches.Add(1)
	out, err := q.c.ChangeMessageVisibilityBatch(ctx, in)
	if err != nil {
		setAll(es, translate("change visibility batch", err))
		return
	}
	failed(es, out.Failed, "change visibility")
}

func setAll(es []*entry, err error) {
	for _, e := range es {
		e.err = err
	}
}

// failed sets the errors of the batch entries SQS reported as failed.
func failed(es []*entry, fs []types.BatchResultErrorEntry, op string) {
	for _, f := range fs {
		i, err := strconv.Atoi(aws.ToString(f.Id))
		if err != nil || i < 0 || i >= len(es) {
			continue
		}
		es[i].err = translateCode(op, aws.ToString(f.Code), aws.ToString(f.Message), fmt.Errorf("sqsqueue: %s: %s: %s", op, aws.ToString(f.Code), aws.ToString(f.Message)))
	}
}

// translate maps an SQS error to the package's sentinels (wrapping the
// original).
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return translateCode(op, ae.ErrorCode(), ae.ErrorMessage(), err)
	}
	return fmt.Errorf("sqsqueue: %s: %w", op, err)
}

// translateCode maps SQS's error codes, and goaws's for the same cases
// (a receipt handle that is not current: MessageNotInFlight, or
// "QueueExists: The specified queue does not contain the message
// specified", or a batch entry failing with "Message not found").
func translateCode(op, code, msg string, err error) error {
	lc, lm := strings.ToLower(code), strings.ToLower(msg)
	switch {
	case strings.Contains(lc, "queuedoesnotexist"), strings.Contains(lc, "nonexistentqueue"):
		return fmt.Errorf("%w: %s: %w", ErrQueueNotFound, op, err)
	case strings.Contains(lc, "receipthandleisinvalid"), strings.Contains(lc, "messagenotinflight"),
		strings.Contains(lm, "receipt handle"), strings.Contains(lm, "does not contain the message"),
		strings.Contains(lm, "message not found"):
		return fmt.Errorf("%w: sqsqueue: %s: %w", consumer.ErrInvalidHandle, op, err)
	case strings.Contains(lc, "throttl"), strings.Contains(lc, "overlimit"):
		return fmt.Errorf("%w: %s: %w", ErrThrottled, op, err)
	}
	return fmt.Errorf("sqsqueue: %s: %w", op, err)
}

// entry is one Delete or ChangeVisibility waiting for its batch.
type entry struct {
	handle string
	secs   int32
	err    error
	done   chan struct{}
}

// batcher gathers calls into batches of up to 10: the caller that finds
// no request in flight sends everything pending; the others wait for its
// result. With wait and held set, that caller first waits up to wait for
// the batch to reach min(10, held()) entries.
type batcher struct {
	send func(ctx context.Context, es []*entry)
	wait time.Duration
	held func() int

	mu      sync.Mutex
	pending []*entry
	busy    bool
	target  int           // batch size the waiting caller waits for
	full    chan struct{} // closed when pending reaches target
}

func (b *batcher) do(ctx context.Context, e entry) error {
	e.done = make(chan struct{})
	b.mu.Lock()
	b.pending = append(b.pending, &e)
	if b.full != nil && len(b.pending) >= b.target {
		close(b.full)
		b.full = nil
	}
	if b.busy {
		b.mu.Unlock()
		select {
		case <-e.done:
			return e.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	b.busy = true
	if b.held != nil {
		if b.target = min(10, b.held()); len(b.pending) < b.target {
			full := make(chan struct{})
			b.full = full
			b.mu.Unlock()
			t := time.NewTimer(b.wait)
			select {
			case <-full:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
			b.mu.Lock()
			b.full = nil
		}
	}
	for {
		n := min(len(b.pending), 10)
		batch := b.pending[:n:n]
		b.pending = b.pending[n:]
		b.mu.Unlock()
		b.send(ctx, batch)
		for _, x := range batch {
			close(x.done)
		}
		b.mu.Lock()
		if len(b.pending) == 0 {
			b.busy = false
			b.mu.Unlock()
			return e.err
		}
	}
}

// receiveGrace is how long a receive may outlast its long poll before it
// is given up; releaseTimeout bounds the release of what a cut-short
// receive got.
const (
	receiveGrace   = 10 * time.Second
	releaseTimeout = 10 * time.Second
)

// receive sends in and returns SQS's answer, or ctx's error as soon as
// ctx ends; then the request goes on and what it brings is released.
func (q *Queue[T]) receive(ctx context.Context, in *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type answer struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	done, gone := make(chan answer), make(chan struct{})
	q.requests.Add(1)
	go func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(in.WaitTimeSeconds)*time.Second+receiveGrace)
		defer cancel()
		out, err := q.c.ReceiveMessage(rctx, in)
		select {
		case done <- answer{out, err}:
			return
		case <-gone: // Receive returned: its caller will not see these
		}
		defer q.cut.done()
		if err == nil {
			q.releaseAll(rctx, out.Messages)
		}
	}()
	select {
	case a := <-done:
		return a.out, a.err
	case <-ctx.Done():
		q.cut.add()
		close(gone)
		return nil, ctx.Err()
	}
}

// releaseAll makes msgs visible again: one batch request, or one request
// per message with NoVisibilityBatch.
func (q *Queue[T]) releaseAll(ctx context.Context, msgs []types.Message) {
	if len(msgs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if !q.o.NoVisibilityBatch {
		es := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(msgs))
		for i, m := range msgs {
			es[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
		}
		q.requests.Add(1)
		q.visBatches.Add(1)
		out, err := q.c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &q.o.QueueURL, Entries: es})
		switch {
		case err != nil:
			q.releaseFailed.Add(int64(len(msgs)))
		default:
			q.released.Add(int64(len(out.Successful)))
			q.releaseFailed.Add(int64(len(out.Failed)))
		}
		return
	}
	for _, m := range msgs {
		q.requests.Add(1)
		if _, err := q.c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &q.o.QueueURL, ReceiptHandle: m.ReceiptHandle}); err != nil {
			q.releaseFailed.Add(1)
			continue
		}
		q.released.Add(1)
	}
}

// WaitReceives returns nil once every Receive cut short by its ctx has
// ended and made the messages it got visible again (see [Queue.Receive]),
// or the ctx's error. Call it after the consumer stopped (consumer.Run
// returned), before the program exits.
func (q *Queue[T]) WaitReceives(ctx context.Context) error {
	return q.cut.wait(ctx)
}

// inflight counts work in flight and lets one wait until there is none.
type inflight struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0
}

func (f *inflight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.zero = make(chan struct{})
	}
	f.n++
}

func (f *inflight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.zero)
	}
}

func (f *inflight) wait(ctx context.Context) error {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	z := f.zero
	f.mu.Unlock()
	select {
	case <-z:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Len returns SQS's approximate counts of the queue's messages: those
// waiting (ApproximateNumberOfMessages) and those received and not yet
// deleted or visible again (ApproximateNumberOfMessagesNotVisible). goaws
// counts hidden messages in both. Errors as Receive.
func (q *Queue[T]) Len(ctx context.Context) (waiting, inFlight int, err error) {
	q.requests.Add(1)
	out, err := q.c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &q.o.QueueURL, AttributeNames: []types.QueueAttributeName{
		types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		return 0, 0, translate("get queue attributes", err)
	}
	waiting, _ = strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight, _ = strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return waiting, inFlight, nil
}

// WaitEmpty returns nil once [Queue.Len] reports no message waiting or
// in flight (polling every 50 ms), or the ctx's error, or Len's.
func (q *Queue[T]) WaitEmpty(ctx context.Context) error {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		w, f, err := q.Len(ctx)
		if err != nil {
			return err
		}
		if w == 0 && f == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
