package feed

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/tablekit/tablekit/lease"
	"github.com/tablekit/tablekit/retry"
)

// Errors returned by [New] and [Consumer.Run].
var (
	ErrInvalidOptions = errors.New("feed: invalid options")
	// ErrNoStream: the table has no stream (StreamSpecification off).
	ErrNoStream = errors.New("feed: table has no stream")
)

// Batch is the records of one shard handed to a [Handler] at once, in
// shard order.
type Batch struct {
	Shard string
	// Fence is the fencing number of this consumer's lease on the shard:
	// it grows with every new owner, so a handler can fence its own
	// writes with it (lock.FenceCondition) or tell a redelivery after a
	// takeover.
	Fence   int64
	Records []Record
}

// Handler handles a batch. A nil error checkpoints the batch; an error
// retries it, then bisects it (see [Options].Attempts), and a single
// record that keeps failing goes to [Options].DeadLetter.
type Handler func(ctx context.Context, b Batch) error

// Defaults applied by [New] to zero [Options] fields.
const (
	DefaultLimit            = 1000
	DefaultPollInterval     = 250 * time.Millisecond
	DefaultDiscoverInterval = 10 * time.Second
	DefaultAttempts         = 3
	DefaultDrain            = 10 * time.Second
)

// Options configures a [Consumer]. Only Leases is required.
type Options struct {
	// Leases holds shard ownership and checkpoints (package lease: one
	// fenced lease per shard, named by the shard ID, in the lease group
	// Group), shared by every process of the consumer group; its Options
	// give this consumer's owner name and the lease duration (an owner
	// that dies is taken over about one duration later). Required.
	Leases *lease.Manager
	// Group is the lease group, so that two consumer groups (a cache
	// invalidator and a syncer) read one stream with their own
	// checkpoints. Default "feed/<table>".
	Group string
	// StreamARN names the stream; default the newest stream ListStreams
	// reports for the table.
	StreamARN string
	// Limit is GetRecords' Limit. Default DefaultLimit (the service's
	// maximum).
	Limit int32
	// PollInterval is the wait after a GetRecords call that returned
	// nothing. Default DefaultPollInterval (AWS allows 5 calls per second
	// per shard). On the engine's in-process Streams client
	// (ddbmem.Streams, which tells of each write with NextWrite) the wait
	// also ends at the table's next write.
	PollInterval time.Duration
	// DiscoverInterval is how often shards and leases are listed; a shard
	// read to its end triggers a listing at once, so its children start
	// without waiting. Default DefaultDiscoverInterval.
	DiscoverInterval time.Duration
	// MaxShards bounds the shards this consumer owns at once; 0 means its
	// fair share: the eligible shards divided by the live owners, rounded
	// up.
	MaxShards int
	// Attempts is how many times a batch is handed to the handler (with
	// Retry's pauses between) before it is split in two halves, each
	// handled the same way in order; a single record that fails Attempts
	// times goes to DeadLetter. Default DefaultAttempts.
	Attempts int
	// Retry paces the attempts. Default retry.Exponential(50ms, 5s).
	Retry retry.Strategy
	// DeadLetter receives a record its handler failed on Attempts times,
	// with the last error. nil result: the record is done with and the
	// shard goes on; an error: it is retried (with Retry's pauses) until it
	// returns nil or the consumer stops. Default none: the record is
	// counted in ShardMetrics.DeadLettered and skipped.
	DeadLetter func(ctx context.Context, r Record, err error) error
	// Decoders decode records of known Types into Change[T] values
	// ([Entity]); records of other Types are handed over raw.
	Decoders []Decoder
	// TypeAttr is the table's Type attribute. Default "Type".
	TypeAttr string
	// Drain is how long a batch in hand may run after the ctx of Run
	// ended before its ctx is cancelled. Default DefaultDrain.
	Drain time.Duration
	// Tracer observes each handler call and each dead letter (package
	// otelkit has one for OpenTelemetry). Default none.
	Tracer Tracer
}

// ShardMetrics are one shard's figures, as seen by this consumer.
type ShardMetrics struct {
	Shard, Parent string
	// Owned: this consumer holds the shard's lease now.
	Owned bool
	// Ended: the shard was read to its end (its lease is done).
	Ended bool
	// Checkpoint is the sequence number of the last record checkpointed.
	Checkpoint string
	// Total is the records handled in the shard by every owner so far, as
	// the lease's checkpoint counts them ("handled").
	Total int64
	// Handled counts records whose handler succeeded (a record handled
	// again after a retry or a bisection counts again), Retried records
	// handed back after a failed attempt, DeadLettered records given to
	// the dead letter (or skipped), Batches successful handler calls.
	Handled, Retried, DeadLettered, Batches int64
	// LagRecords is the number of records read from the shard and not yet
	// checkpointed.
	LagRecords int64
	// Lag is how far behind the reader was at its last read: the age of
	// the first record that read returned; 0 when it returned nothing
	// (caught up).
	Lag time.Duration
	// Takeovers counts leases this consumer took over from an owner that
	// stopped renewing; Trimmed counts restarts from
	// TRIM_HORIZON after records expired unread.
	Takeovers, Trimmed int64
}

// Consumer reads one table's stream: it discovers its shards, owns a fair
// share of them under leases, reads each from its checkpoint, hands
// records in batches to the handler and checkpoints each batch after the
// handler succeeded. It is safe for concurrent use; call Run once.
type Consumer struct {
	s     Streams
	table string
	h     Handler
	o     Options
	dec   map[string]Decoder

	wake chan struct{}
	mu   sync.Mutex
	m    map[string]*ShardMetrics
	run  map[string]bool // shards with a worker in this consumer
}

// New returns a consumer of table's stream on s that hands records to h.
// It returns ErrInvalidOptions (wrapped) when Leases is nil, h is nil or
// a value is negative.
func New(s Streams, table string, h Handler, optFns ...func(*Options)) (*Consumer, error) {
	var o Options
	for _, f := range optFns {
		f(&o)
	}
	switch {
	case s == nil || h == nil || o.Leases == nil:
		return nil, fmt.Errorf("%w: streams client, handler and Leases are required", ErrInvalidOptions)
	case table == "" && o.StreamARN == "":
		return nil, fmt.Errorf("%w: a table name or StreamARN is required", ErrInvalidOptions)
	case o.Limit < 0 || o.PollInterval < 0 || o.DiscoverInterval < 0 || o.MaxShards < 0 || o.Attempts < 0 || o.Drain < 0:
		return nil, fmt.Errorf("%w: negative value", ErrInvalidOptions)
	}
	if o.Group == "" {
		o.Group = "feed/" + table
	}
	o.PollInterval = orDur(o.PollInterval, DefaultPollInterval)
	o.DiscoverInterval = orDur(o.DiscoverInterval, DefaultDiscoverInterval)
	o.Drain = orDur(o.Drain, DefaultDrain)
	if o.Limit == 0 {
		o.Limit = DefaultLimit
	}
	if o.Attempts == 0 {
		o.Attempts = DefaultAttempts
	}
	if o.Retry == nil {
		o.Retry = retry.Exponential(50*time.Millisecond, 5*time.Second)
	}
	if o.TypeAttr == "" {
		o.TypeAttr = "Type"
	}
	dec := map[string]Decoder{}
	for _, d := range o.Decoders {
		dec[d.typ] = d
	}
	return &Consumer{s: s, table: table, h: h, o: o, dec: dec, wake: make(chan struct{}, 1),
		m: map[string]*ShardMetrics{}, run: map[string]bool{}}, nil
}

func orDur(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Owner returns the name this consumer holds leases under.
func (c *Consumer) Owner() string { return c.o.Leases.Options().Owner }

// Metrics returns the figures of every shard this consumer has seen,
// ordered by shard ID.
func (c *Consumer) Metrics() []ShardMetrics {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ShardMetrics, 0, len(c.m))
	for _, m := range c.m {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Shard < out[j].Shard })
	return out
}

func (c *Consumer) metric(shard string, f func(m *ShardMetrics)) {
	c.mu.Lock()
	m := c.m[shard]
	if m == nil {
		m = &ShardMetrics{Shard: shard}
		c.m[shard] = m
	}
	f(m)
	c.mu.Unlock()
}

// Run consumes the stream until ctx ends, then drains: each shard's
// worker finishes the batch in hand (its ctx stays live for
// Options.Drain), checkpoints it and releases its lease, so that another
// consumer takes the shard over at once. Run returns nil after a drain,
// ErrNoStream (wrapped) when the table has no stream, or the error of the
// first listing of the stream.
func (c *Consumer) Run(ctx context.Context) error {
	arn, err := c.streamARN(ctx)
	if err != nil {
		return err
	}
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	tick := time.NewTicker(c.o.DiscoverInterval)
	defer tick.Stop()
	for {
		c.discover(ctx, workCtx, stop, &wg, arn)
		select {
		case <-ctx.Done():
			close(stop)
			t := time.AfterFunc(c.o.Drain, cancelWork)
			wg.Wait()
			t.Stop()
			return nil
		case <-c.wake:
		case <-tick.C:
		}
	}
}

func (c *Consumer) streamARN(ctx context.Context) (string, error) {
	if c.o.StreamARN != "" {
		return c.o.StreamARN, nil
	}
	var arn string
	in := &dynamodbstreams.ListStreamsInput{TableName: aws.String(c.table)}
	for {
		out, err := c.s.ListStreams(ctx, in)
		if err != nil {
			return "", fmt.Errorf("feed: list streams of %s: %w", c.table, err)
		}
		for _, s := range out.Streams {
			if s.StreamArn != nil && (s.TableName == nil || *s.TableName == c.table) {
				arn = *s.StreamArn // the newest is listed last
			}
		}
		if out.LastEvaluatedStreamArn == nil {
			break
		}
		in.ExclusiveStartStreamArn = out.LastEvaluatedStreamArn
	}
	if arn == "" {
		return "", fmt.Errorf("%w: %s", ErrNoStream, c.table)
	}
	return arn, nil
}

// shards lists every shard of the stream.
func (c *Consumer) shards(ctx context.Context, arn string) ([]st.Shard, error) {
	var out []st.Shard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}
	for {
		d, err := c.s.DescribeStream(ctx, in)
		if err != nil {
			return nil, err
		}
		if d.StreamDescription == nil {
			return out, nil
		}
		out = append(out, d.StreamDescription.Shards...)
		if d.StreamDescription.LastEvaluatedShardId == nil {
			return out, nil
		}
		in.ExclusiveStartShardId = d.StreamDescription.LastEvaluatedShardId
	}
}

// discover lists shards and leases and starts a worker on each shard this
// consumer may and can take. Failures wait for the next round.
func (c *Consumer) discover(ctx, workCtx context.Context, stop chan struct{}, wg *sync.WaitGroup, arn string) {
	shards, err := c.shards(ctx, arn)
	if err != nil {
		return
	}
	infos, err := c.o.Leases.List(ctx, c.o.Group)
	if err != nil {
		return
	}
	me := c.Owner()
	byName := map[string]lease.Info{}
	owners := map[string]bool{me: true}
	for _, in := range infos {
		byName[in.Name] = in
		if in.Owner != "" && !in.Stale {
			owners[in.Owner] = true
		}
	}
	present := map[string]bool{}
	for _, s := range shards {
		present[aws.ToString(s.ShardId)] = true
	}
	ended := func(id string) bool { return byName[id].Done }
	var eligible []st.Shard
	for _, s := range shards {
		id := aws.ToString(s.ShardId)
		parent := aws.ToString(s.ParentShardId)
		in := byName[id]
		c.metric(id, func(m *ShardMetrics) {
			m.Parent = parent
			m.Ended = in.Done
			if !m.Owned {
				m.Checkpoint, m.Total = in.Position, in.Counts["handled"]
			}
		})
		if in.Done {
			continue
		}
		if parent != "" && present[parent] && !ended(parent) {
			continue // parents first
		}
		eligible = append(eligible, s)
	}
	target := (len(eligible) + len(owners) - 1) / len(owners)
	if c.o.MaxShards > 0 {
		target = min(target, c.o.MaxShards)
	}
	c.mu.Lock()
	mine := len(c.run)
	c.mu.Unlock()
	for _, s := range eligible {
		if mine >= target {
			return
		}
		id := aws.ToString(s.ShardId)
		c.mu.Lock()
		running := c.run[id]
		c.mu.Unlock()
		in := byName[id]
		if running || (in.Owner != "" && !in.Stale) {
			continue
		}
		l, err := c.o.Leases.Acquire(workCtx, c.o.Group, id)
		if err != nil {
			continue
		}
		takeover := in.Owner != "" && in.Owner != me
		c.mu.Lock()
		c.run[id] = true
		c.mu.Unlock()
		mine++
		c.metric(id, func(m *ShardMetrics) {
			m.Owned = true
			m.Checkpoint, m.Total = l.Start().Position, l.Start().Counts["handled"]
			if takeover {
				m.Takeovers++
			}
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.work(workCtx, stop, arn, id, l)
			c.mu.Lock()
			delete(c.run, id)
			c.mu.Unlock()
			c.metric(id, func(m *ShardMetrics) { m.Owned = false })
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}()
	}
}
