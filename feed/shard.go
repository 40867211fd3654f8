package feed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/tablekit/tablekit/lease"
	"github.com/tablekit/tablekit/retry"
)

// worker reads one shard under a held lease.
type worker struct {
	c     *Consumer
	arn   string
	shard string
	l     *lease.Lease
	total int64 // records handled in the shard by every owner
}

// work reads the shard from its checkpoint until it ends, the lease is
// lost, or stop is closed (then it finishes the batch in hand), and
// releases the lease unless it was lost or finished.
func (c *Consumer) work(workCtx context.Context, stop <-chan struct{}, arn, shard string, l *lease.Lease) {
	ctx, cancel := context.WithCancelCause(workCtx)
	defer cancel(nil)
	go func() {
		select {
		case <-l.Lost():
			cancel(lease.ErrLost)
		case <-ctx.Done():
		}
	}()
	w := &worker{c: c, arn: arn, shard: shard, l: l, total: l.Start().Counts["handled"]}
	if w.read(ctx, stop) {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(workCtx), 5*time.Second)
		_ = l.Release(rctx)
		rcancel()
	}
}

func (w *worker) save(ctx context.Context, cp string, finish bool) error {
	c := lease.Checkpoint{Position: cp, Counts: map[string]int64{"handled": w.total}}
	if finish {
		return w.l.Finish(ctx, c)
	}
	return w.l.Checkpoint(ctx, c)
}

func (w *worker) iterator(ctx context.Context, cp string) (string, error) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(w.arn), ShardId: aws.String(w.shard),
		ShardIteratorType: st.ShardIteratorTypeTrimHorizon}
	if cp != "" {
		in.ShardIteratorType = st.ShardIteratorTypeAfterSequenceNumber
		in.SequenceNumber = aws.String(cp)
	}
	out, err := w.c.s.GetShardIterator(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.ShardIterator), nil
}

// closed reports whether the shard has an ending sequence number.
func (w *worker) closed(ctx context.Context) (bool, error) {
	shards, err := w.c.shards(ctx, w.arn)
	if err != nil {
		return false, err
	}
	for _, s := range shards {
		if aws.ToString(s.ShardId) == w.shard {
			return s.SequenceNumberRange != nil && s.SequenceNumberRange.EndingSequenceNumber != nil, nil
		}
	}
	return true, nil // gone from the stream: trimmed
}

// pause waits d, or until stop is closed or ctx ends; false when it should
// stop.
func pause(ctx context.Context, stop <-chan struct{}, d time.Duration) bool {
	return pauseOr(ctx, stop, d, nil)
}

// pauseOr is pause that also ends, reporting true, when wake is ready (a
// nil wake never is).
func pauseOr(ctx context.Context, stop <-chan struct{}, d time.Duration, wake <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-wake:
		return true
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// read is the shard loop. It returns whether the lease should be
// released (false when it was lost).
func (w *worker) read(ctx context.Context, stop <-chan struct{}) (release bool) {
	c := w.c
	cp := w.l.Start().Position
	it := ""
	fails := 0
	// pending is the next page, fetched (and converted) while the handler
	// runs on the current one; it is dropped whenever the loop starts over
	// from the checkpoint.
	var pending chan fetched
	backoff := func() bool {
		fails++
		d, _ := retry.Exponential(50*time.Millisecond, 5*time.Second).Backoff(fails)
		it, pending = "", nil
		return pause(ctx, stop, d)
	}
	for {
		select {
		case <-stop:
			return true
		case <-ctx.Done():
			return !errors.Is(context.Cause(ctx), lease.ErrLost)
		default:
		}
		if it == "" {
			var err error
			if it, err = w.iterator(ctx, cp); err != nil {
				var trimmed *st.TrimmedDataAccessException
				if errors.As(err, &trimmed) && cp != "" {
					c.metric(w.shard, func(m *ShardMetrics) { m.Trimmed++ })
					cp = ""
				}
				if !backoff() {
					return true
				}
				continue
			}
		}
		var f fetched
		if pending != nil {
			f = <-pending
			pending = nil
		} else {
			f = w.fetch(ctx, it)
		}
		out, recs, err := f.out, f.recs, f.err
		if err != nil {
			var trimmed *st.TrimmedDataAccessException
			if errors.As(err, &trimmed) {
				c.metric(w.shard, func(m *ShardMetrics) { m.Trimmed++ })
				cp = ""
			}
			if ctx.Err() != nil {
				continue
			}
			if !backoff() {
				return true
			}
			continue
		}
		fails = 0
		if len(recs) > 0 && out.NextShardIterator != nil {
			pending = make(chan fetched, 1)
			go func(it string) { pending <- w.fetch(ctx, it) }(*out.NextShardIterator)
		}
		now := time.Now()
		c.metric(w.shard, func(m *ShardMetrics) {
			m.LagRecords = int64(len(recs))
			m.Lag = 0
			if len(recs) > 0 && !recs[0].CreatedAt.IsZero() {
				m.Lag = max(now.Sub(recs[0].CreatedAt), 0)
			}
		})
		if len(recs) > 0 {
			if err := c.handle(ctx, Batch{Shard: w.shard, Fence: w.l.Fence(), Records: recs}); err != nil {
				return !errors.Is(err, lease.ErrLost) // ctx cut: release, the next owner redoes the batch
			}
			last := recs[len(recs)-1].SequenceNumber
			w.total += int64(len(recs))
			for tries := 1; ; tries++ {
				err := w.save(context.WithoutCancel(ctx), last, false)
				if err == nil {
					break
				}
				if errors.Is(err, lease.ErrLost) {
					return false
				}
				d, _ := retry.Exponential(50*time.Millisecond, 5*time.Second).Backoff(tries)
				if !pause(ctx, stop, d) {
					return true // the next owner handles the batch again
				}
			}
			cp = last
			c.metric(w.shard, func(m *ShardMetrics) { m.Checkpoint, m.Total, m.LagRecords = cp, w.total, 0 })
		}
		if out.NextShardIterator == nil {
			done, err := w.closed(ctx)
			if err == nil && done {
				if err := w.save(context.WithoutCancel(ctx), cp, true); err != nil {
					return !errors.Is(err, lease.ErrLost)
				}
				c.metric(w.shard, func(m *ShardMetrics) { m.Ended = true })
				return false // finished: nothing to release
			}
			// an open shard with no next iterator (DynamoDB Local does
			// this once drained): ask again from the checkpoint.
			it = ""
			if !pause(ctx, stop, c.o.PollInterval) {
				return true
			}
			continue
		}
		it = *out.NextShardIterator
		if len(recs) == 0 && !w.idle(ctx, stop, f.writes) {
			return true
		}
	}
}

// fetched is one page of a shard, converted. writes is the stream's
// write count before the page was read, when the Streams client is a
// writeWaiter.
type fetched struct {
	out    *dynamodbstreams.GetRecordsOutput
	recs   []Record
	err    error
	writes uint64
}

// writeWaiter is what a Streams client may have besides the Streams
// API, to let a drained shard wait for the table's next write instead of
// sleeping PollInterval: the engine's in-process client
// (ddbmem.Streams) has it. StreamWrites counts the stream's writes;
// NextWrite is closed once there are more than since.
type writeWaiter interface {
	StreamWrites(streamArn string) uint64
	NextWrite(streamArn string, since uint64) <-chan struct{}
}

// fetch reads the page at iterator it and converts its records.
func (w *worker) fetch(ctx context.Context, it string) fetched {
	c := w.c
	var writes uint64
	if ww, ok := c.s.(writeWaiter); ok {
		writes = ww.StreamWrites(w.arn)
	}
	out, err := c.s.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(c.o.Limit)})
	if err != nil {
		return fetched{err: err}
	}
	recs := make([]Record, len(out.Records))
	for i, r := range out.Records {
		recs[i] = convert(w.shard, r, c.o.TypeAttr, c.dec)
	}
	return fetched{out: out, recs: recs, writes: writes}
}

// idle waits PollInterval after a page with no record, or less when the
// Streams client can tell of the stream's next write after the page's
// read (writeWaiter). It returns false when stop was closed or ctx ended.
func (w *worker) idle(ctx context.Context, stop <-chan struct{}, since uint64) bool {
	var wake <-chan struct{}
	if ww, ok := w.c.s.(writeWaiter); ok {
		wake = ww.NextWrite(w.arn, since)
	}
	return pauseOr(ctx, stop, w.c.o.PollInterval, wake)
}

// handle runs the handler on recs: Attempts tries, then the two halves in
// order, down to single records that go to the dead letter. It returns an
// error only when ctx ended.
func (c *Consumer) handle(ctx context.Context, b Batch) error {
	shard, recs := b.Shard, b.Records
	var err error
	for attempt := 1; ; attempt++ {
		err = c.call(ctx, b)
		if err == nil {
			c.metric(shard, func(m *ShardMetrics) { m.Handled += int64(len(recs)); m.Batches++ })
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if attempt >= c.o.Attempts {
			break
		}
		c.metric(shard, func(m *ShardMetrics) { m.Retried += int64(len(recs)) })
		d, ok := c.o.Retry.Backoff(attempt)
		if !ok {
			break
		}
		if retry.Sleep(ctx, d) != nil {
			return context.Cause(ctx)
		}
	}
	if len(recs) > 1 {
		c.metric(shard, func(m *ShardMetrics) { m.Retried += int64(len(recs)) })
		half := len(recs) / 2
		first, second := b, b
		first.Records, second.Records = recs[:half], recs[half:]
		if err := c.handle(ctx, first); err != nil {
			return err
		}
		return c.handle(ctx, second)
	}
	for attempt := 1; c.o.DeadLetter != nil; attempt++ {
		herr := c.o.DeadLetter(ctx, recs[0], err)
		if herr == nil {
			break
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		d, _ := c.o.Retry.Backoff(attempt)
		if retry.Sleep(ctx, max(d, 50*time.Millisecond)) != nil {
			return context.Cause(ctx)
		}
	}
	c.metric(shard, func(m *ShardMetrics) { m.DeadLettered++ })
	if c.o.Tracer != nil {
		c.o.Tracer.DeadLettered(ctx, DeadLetterEvent{Table: c.table, Shard: shard, Record: recs[0], Err: err})
	}
	return nil
}

// call runs the handler, turning a panic into an error.
func (c *Consumer) call(ctx context.Context, b Batch) error {
	if c.o.Tracer != nil {
		return c.traceCall(ctx, b)
	}
	return c.callHandler(ctx, b)
}

func (c *Consumer) callHandler(ctx context.Context, b Batch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("feed: handler panicked: %v", r)
		}
	}()
	return c.h(ctx, b)
}
