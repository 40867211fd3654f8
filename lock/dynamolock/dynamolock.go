// Package dynamolock is the DynamoDB backend of package lock: a lease item
// in the application's own single table.
//
// # The lease item
//
// The lock of key k is the item whose key is Options.Key(k) (by default
// PK "LOCK#k", SK "LOCK"; attribute names Options.PartitionKey and
// Options.SortKey, "PK" and "SK" by default). Its attributes:
//
//	owner      the holder's token; absent while the lock is free
//	rvn        record version number, a new random value on every write
//	leaseMs    the holder's TTL in milliseconds
//	expiresAt  the holder's wall clock at acquisition or refresh + TTL, Unix ms
//	fence      the fencing number, ADD 1 on every acquisition
//	abandoned  the token of the last acquire request Obtain gave up on
//	ticket     the last queue ticket issued (see below)
//	served     the highest ticket that obtained the lock
//	freeAt     the releaser's wall clock at the last release, Unix ms
//
// The item is never deleted, because it carries the fence counter: release
// removes owner and expiresAt. Every write is conditional, so a write that
// lost a race fails with ConditionalCheckFailed, which this package
// reports as lock.ErrNotObtained or lock.ErrNotHeld, both also matching
// entity.ErrConditionFailed.
//
// # Fair order: the ticket queue
//
// Polling with conditional writes is unfair (the fastest poller wins, a
// contender can wait for minutes) and costly (every failed write consumes
// write capacity, and on a busy key the failures starve the holder). So
// contenders queue: an Obtain's first attempt writes only when the lock is
// free and nobody is queued (ticket <= served); when it fails, the
// contender takes a ticket (one unconditional ADD) and its later attempts
// are consistent reads. It writes again only when the lock is free and its
// turn has come (ticket <= served+1), and that write records its ticket as
// served. Waiters are thus served in ticket order, and failed conditional
// writes are about one per Obtain that had to wait ([Backend.Stats] counts
// them). A waiter that gives up leaves the queue ([Backend.Leave]: it
// passes its turn when at the head, returns its ticket when last); one
// that died, or gave up in the middle, leaves a hole: once the lock has
// been free for the queue grace ([Options.QueueGrace]), any contender may
// take it. An Obtain that will not retry (lock.AcquireRequest.LastAttempt)
// takes no ticket. The head of the queue polls every
// [Options.QueuePoll] and the others less often (the backend sets
// lock.AcquireRequest.RetryAfter). Safety never depends on the queue: the
// acquire write is conditioned on the lock being free exactly as without
// it. [Options.NoQueue] turns the queue off.
//
// # Takeover of a lease whose holder stopped refreshing
//
// [SkewSafe] (the default) trusts no clock but the contender's own: a
// contender that finds the lock held notes the rvn and waits, retrying, for
// one full leaseMs on its monotonic clock. If the rvn has not changed by
// then, the holder did not refresh within its own lease, and the contender
// takes over with a write conditioned on that rvn. Taking over a stale lock
// therefore needs a retry strategy and a deadline longer than the lease.
//
// [FastTakeover] compares the stored expiresAt with the contender's wall
// clock: a lease is stale once now > expiresAt + SkewMargin. It is safe
// only while the clocks of all processes differ by less than SkewMargin.
//
// # Ambiguous writes
//
// A refresh whose reply was lost (timeout, connection reset) may or may not
// have written its new rvn. The lease then accepts either version on its
// next write (the condition is owner = token AND rvn IN the versions it
// might have written), so a lost reply never loses the lock. The SDK's own
// retry of a write that landed fails its condition against that write; the
// backend reads the item returned with the failure (ALL_OLD) and recognises
// its own version (or, for an acquire, its own token) as success.
package dynamolock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lock"
)

// Mode selects how a contender decides that a held lease is stale.
type Mode int

const (
	// SkewSafe waits one full lease while watching the record version
	// number. It does not depend on clocks agreeing. The default.
	SkewSafe Mode = iota
	// FastTakeover takes a lease over once its expiresAt plus SkewMargin
	// lies in the past of the contender's wall clock.
	FastTakeover
)

// Attribute names of the lease item.
const (
	AttrOwner     = "owner"
	AttrVersion   = "rvn"
	AttrLease     = "leaseMs"
	AttrExpiresAt = "expiresAt"
	AttrFence     = "fence"
	AttrAbandoned = "abandoned"
	AttrTicket    = "ticket"
	AttrServed    = "served"
	AttrFreeAt    = "freeAt"
)

// Options configure a [Backend].
type Options struct {
	// Table is the table name. Required.
	Table string
	// PartitionKey is the name of the table's partition key attribute.
	// Default "PK".
	PartitionKey string
	// SortKey is the name of the table's sort key attribute. Default "SK".
	// Ignored when NoSortKey is set.
	SortKey string
	// NoSortKey says the table has a partition key only.
	NoSortKey bool
	// Key maps a lock key to the lease item's key values. Default:
	// pk "LOCK#"+key, sk "LOCK". An empty pk (or sk with a sort key) makes
	// Obtain fail with lock.ErrInvalidKey.
	Key func(key string) (pk, sk string)
	// Mode is the takeover mode. Default SkewSafe.
	Mode Mode
	// SkewMargin is the clock difference FastTakeover tolerates. Default 5 s.
	SkewMargin time.Duration
	// NoQueue turns the ticket queue off: every attempt is a conditional
	// write and the fastest poller wins (the behaviour before the queue).
	NoQueue bool
	// QueuePoll is how often the head of the queue polls the item; the
	// waiter at position p polls every (p+1)*QueuePoll, at most every
	// a quarter of the queue grace. Default 10 ms.
	QueuePoll time.Duration
	// QueueGrace is how long a free lock waits for the head of the queue
	// before any contender may take it (the head died, or gave up without
	// leaving). Default: a quarter of the lock's TTL, at least 1 s and at
	// most 15 s. Keep it well above QueuePoll plus a slow round trip: a
	// live head that misses it loses its turn.
	QueueGrace time.Duration
}

// Backend is a lock.Backend on a DynamoDB table. It is safe for concurrent
// use.
type Backend struct {
	c entity.Client
	o Options

	acquired, condFailures, tickets, polls atomic.Int64
}

var _ lock.Backend = (*Backend)(nil)

// New returns a Backend on c. It returns an error wrapping
// lock.ErrInvalidOptions when Table is empty or c is nil.
func New(c entity.Client, optFns ...func(*Options)) (*Backend, error) {
	o := Options{PartitionKey: "PK", SortKey: "SK", SkewMargin: 5 * time.Second}
	for _, fn := range optFns {
		fn(&o)
	}
	switch {
	case c == nil:
		return nil, fmt.Errorf("%w: dynamolock: nil client", lock.ErrInvalidOptions)
	case o.Table == "":
		return nil, fmt.Errorf("%w: dynamolock: no table", lock.ErrInvalidOptions)
	case o.PartitionKey == "" || (!o.NoSortKey && o.SortKey == ""):
		return nil, fmt.Errorf("%w: dynamolock: empty key attribute name", lock.ErrInvalidOptions)
	case o.Mode != SkewSafe && o.Mode != FastTakeover:
		return nil, fmt.Errorf("%w: dynamolock: unknown mode %d", lock.ErrInvalidOptions, o.Mode)
	case o.SkewMargin < 0:
		return nil, fmt.Errorf("%w: dynamolock: negative skew margin", lock.ErrInvalidOptions)
	case o.QueuePoll < 0 || o.QueueGrace < 0:
		return nil, fmt.Errorf("%w: dynamolock: negative queue interval", lock.ErrInvalidOptions)
	}
	if o.QueuePoll == 0 {
		o.QueuePoll = 10 * time.Millisecond
	}

	if o.Key == nil {
		o.Key = func(key string) (string, string) { return "LOCK#" + key, "LOCK" }
	}
	return &Backend{c: c, o: o}, nil
}

// ItemKey returns the DynamoDB key of key's lease item, or an error
// wrapping lock.ErrInvalidKey.
func (b *Backend) ItemKey(key string) (map[string]types.AttributeValue, error) {
	if key == "" {
		return nil, fmt.Errorf("%w: empty key", lock.ErrInvalidKey)
	}
	pk, sk := b.o.Key(key)
	if pk == "" || (!b.o.NoSortKey && sk == "") {
		return nil, fmt.Errorf("%w: %q maps to an empty item key", lock.ErrInvalidKey, key)
	}
	k := map[string]types.AttributeValue{b.o.PartitionKey: &types.AttributeValueMemberS{Value: pk}}
	if !b.o.NoSortKey {
		k[b.o.SortKey] = &types.AttributeValueMemberS{Value: sk}
	}
	return k, nil
}

// observation is the skew-safe memo kept between attempts of one Obtain.
type observation struct {
	rvn    string
	seenAt time.Time
	lease  time.Duration
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func newVersion() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func isConditionFailed(err error) (*types.ConditionalCheckFailedException, bool) {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf, true
	}
	return nil, false
}

// waiter is the memo kept between the attempts of one Obtain: its queue
// ticket (0 before it took one) and its skew-safe observation.
type waiter struct {
	ticket int64
	obs    *observation
}

func memo(req *lock.AcquireRequest) *waiter {
	w, ok := req.Memo.(*waiter)
	if !ok {
		w = &waiter{}
		req.Memo = w
	}
	return w
}

// Stats counts a Backend's requests since New.
type Stats struct {
	// Acquired counts successful acquisitions.
	Acquired int64
	// ConditionFailures counts acquire writes that failed their condition
	// (each costs write capacity on DynamoDB).
	ConditionFailures int64
	// Tickets counts queue tickets taken (one unconditional write per
	// Obtain that found the lock held or others queued).
	Tickets int64
	// Polls counts the consistent reads of queued waiters.
	Polls int64
}

// Stats returns the Backend's counters.
func (b *Backend) Stats() Stats {
	return Stats{
		Acquired:          b.acquired.Load(),
		ConditionFailures: b.condFailures.Load(),
		Tickets:           b.tickets.Load(),
		Polls:             b.polls.Load(),
	}
}

// state is what a waiter knows of the lease item.
type state struct {
	item   map[string]types.AttributeValue
	ticket int64 // last ticket issued
	served int64 // highest ticket that obtained the lock
	freeAt int64 // wall clock of the last release, Unix ms
	owned  bool  // an owner attribute is present
}

func readState(item map[string]types.AttributeValue) state {
	st := state{item: item, ticket: num(item, AttrTicket), served: num(item, AttrServed), freeAt: num(item, AttrFreeAt)}
	_, st.owned = item[AttrOwner]
	return st
}

func num(item map[string]types.AttributeValue, attr string) int64 {
	v, ok := item[attr].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	x, _ := strconv.ParseInt(v.Value, 10, 64)
	return x
}

// Acquire implements lock.Backend.
//
// Contenders queue in ticket order (see the package documentation): a
// first attempt writes only when nobody is queued; a contender that finds
// the lock held or others waiting takes a ticket, and its later attempts
// are consistent reads that write only when its turn has come and the
// lock is free. It sets req.RetryAfter to poll the head of the queue
// often and the tail seldom.
func (b *Backend) Acquire(ctx context.Context, req *lock.AcquireRequest) (lock.Lease, error) {
	key, err := b.ItemKey(req.Key)
	if err != nil {
		return nil, err
	}
	w := memo(req)
	if b.o.NoQueue {
		return b.tryAcquire(ctx, req, key, w, nil)
	}
	if w.ticket == 0 {
		l, err := b.tryAcquire(ctx, req, key, w, nil)
		if !errors.Is(err, lock.ErrNotObtained) || req.LastAttempt {
			return l, err // no queueing for a caller that will not wait
		}
		st, err := b.takeTicket(ctx, key, w)
		if err != nil {
			return nil, err
		}
		return b.queued(ctx, req, key, w, st)
	}
	out, err := b.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(b.o.Table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	b.polls.Add(1)
	return b.queued(ctx, req, key, w, readState(out.Item))
}

// queued decides, for a waiter holding a ticket, whether to write now.
func (b *Backend) queued(ctx context.Context, req *lock.AcquireRequest, key map[string]types.AttributeValue, w *waiter, st state) (lock.Lease, error) {
	now := time.Now()
	if b.o.Mode == SkewSafe {
		b.observe(req, st.item, now)
	}
	pos := w.ticket - st.served - 1 // waiters ahead of us, if all alive
	free := !st.owned || b.stale(w, st, now)
	grace := b.grace(req)
	turn := pos <= 0 || now.UnixMilli()-st.freeAt > grace.Milliseconds()
	if free && turn {
		return b.tryAcquire(ctx, req, key, w, &st)
	}
	// The head polls every QueuePoll; the others further apart, never
	// beyond the grace after which a silent head is skipped.
	req.RetryAfter = min(time.Duration(max(pos, 0)+1)*b.o.QueuePoll, grace/4)
	return nil, fmt.Errorf("%w: queued at %d behind %d", lock.ErrNotObtained, w.ticket, max(pos, 0))
}

// Leave implements lock.Leaver: a waiter that gives up hands its turn
// on when it is at the head of the queue (served = its ticket), or takes
// its ticket back when it is the last one issued. A ticket in the middle
// stays; the waiters behind skip it after QueueGrace.
func (b *Backend) Leave(ctx context.Context, req *lock.AcquireRequest) error {
	w, ok := req.Memo.(*waiter)
	if !ok || w.ticket == 0 || b.o.NoQueue {
		return nil
	}
	key, err := b.ItemKey(req.Key)
	if err != nil {
		return err
	}
	t := w.ticket
	w.ticket = 0
	head := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(b.o.Table),
		Key:                       key,
		UpdateExpression:          aws.String("SET #sv = :t"),
		ConditionExpression:       aws.String("#sv = :prev"),
		ExpressionAttributeNames:  map[string]string{"#sv": AttrServed},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": n(t), ":prev": n(t - 1)},
	}
	if t == 1 {
		head.ConditionExpression = aws.String("attribute_not_exists(#sv)")
		head.ExpressionAttributeValues = map[string]types.AttributeValue{":t": n(t)}
	}
	_, err = b.c.UpdateItem(ctx, head)
	if _, ok := isConditionFailed(err); !ok {
		return err
	}
	_, err = b.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(b.o.Table),
		Key:                       key,
		UpdateExpression:          aws.String("SET #tk = :prev"),
		ConditionExpression:       aws.String("#tk = :t"),
		ExpressionAttributeNames:  map[string]string{"#tk": AttrTicket},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": n(t), ":prev": n(t - 1)},
	})
	if _, ok := isConditionFailed(err); ok {
		return nil // in the middle: skipped after QueueGrace
	}
	return err
}

// grace is the queue grace of req's lock.
func (b *Backend) grace(req *lock.AcquireRequest) time.Duration {
	if b.o.QueueGrace > 0 {
		return b.o.QueueGrace
	}
	return min(max(req.TTL/4, time.Second), 15*time.Second)
}

// stale reports whether the holder's lease may be taken over.
func (b *Backend) stale(w *waiter, st state, now time.Time) bool {
	switch b.o.Mode {
	case FastTakeover:
		exp := num(st.item, AttrExpiresAt)
		return exp != 0 && exp < now.Add(-b.o.SkewMargin).UnixMilli()
	default:
		obs := w.obs
		return obs != nil && now.Sub(obs.seenAt) >= obs.lease
	}
}

// takeTicket issues the next ticket to w and returns the item as it is
// after the increment.
func (b *Backend) takeTicket(ctx context.Context, key map[string]types.AttributeValue, w *waiter) (state, error) {
	out, err := b.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(b.o.Table),
		Key:                       key,
		UpdateExpression:          aws.String("ADD #tk :one"),
		ExpressionAttributeNames:  map[string]string{"#tk": AttrTicket},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": n(1)},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return state{}, fmt.Errorf("dynamolock: take ticket: %w", err)
	}
	b.tickets.Add(1)
	st := readState(out.Attributes)
	w.ticket = st.ticket
	return st, nil
}

// tryAcquire makes one conditional acquire write. Without a state (a first
// attempt) it also requires an empty queue; with one (a queued waiter
// whose turn came) it requires the queue as observed and records the
// waiter's ticket as served.
func (b *Backend) tryAcquire(ctx context.Context, req *lock.AcquireRequest, key map[string]types.AttributeValue, w *waiter, st *state) (lock.Lease, error) {
	now := time.Now()
	rvn := newVersion()
	nm := map[string]string{"#o": AttrOwner, "#r": AttrVersion, "#l": AttrLease, "#e": AttrExpiresAt, "#f": AttrFence, "#ab": AttrAbandoned}
	values := map[string]types.AttributeValue{
		":tok":   s(req.Token),
		":rvn":   s(rvn),
		":lease": n(req.TTL.Milliseconds()),
		":exp":   n(now.Add(req.TTL).UnixMilli()),
		":one":   n(1),
	}
	cond := "attribute_not_exists(#o)"
	switch b.o.Mode {
	case FastTakeover:
		cond += " OR #e < :cut"
		values[":cut"] = n(now.Add(-b.o.SkewMargin).UnixMilli())
	case SkewSafe:
		if obs := w.obs; obs != nil && now.Sub(obs.seenAt) >= obs.lease {
			cond += " OR #r = :obs"
			values[":obs"] = s(obs.rvn)
		}
	}
	// A request of ours that Obtain abandoned must not land late.
	cond = "(" + cond + ") AND (attribute_not_exists(#ab) OR #ab <> :tok)"
	update := "SET #o = :tok, #r = :rvn, #l = :lease, #e = :exp ADD #f :one"
	switch {
	case b.o.NoQueue:
	case st == nil:
		// Nobody queued (every ticket issued has been served), or nobody
		// queued alive: the lock has been free for longer than the grace.
		nm["#tk"], nm["#sv"], nm["#fa"] = AttrTicket, AttrServed, AttrFreeAt
		cond += " AND (attribute_not_exists(#tk) OR #tk <= #sv OR attribute_not_exists(#fa) OR #fa < :grace)"
		values[":grace"] = n(now.Add(-b.grace(req)).UnixMilli())
	case w.ticket <= st.served:
		// Passed over while it was slow: its turn is overdue; it takes
		// the free lock whatever the queue did since.
	default:
		nm["#sv"] = AttrServed
		if st.served == 0 {
			cond += " AND attribute_not_exists(#sv)"
		} else {
			cond += " AND #sv = :sv"
			values[":sv"] = n(st.served)
		}
		if w.ticket > st.served {
			update = "SET #o = :tok, #r = :rvn, #l = :lease, #e = :exp, #sv = :mine ADD #f :one"
			values[":mine"] = n(w.ticket)
		}
	}
	out, err := b.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(b.o.Table),
		Key:                                 key,
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            nm,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueUpdatedNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if ccf, ok := isConditionFailed(err); ok {
		if l := b.ownLanded(req, ccf.Item, rvn); l != nil {
			l.key = key
			b.acquired.Add(1)
			return l, nil
		}
		b.condFailures.Add(1)
		if b.o.Mode == SkewSafe {
			// The watch starts when the version was seen, after the reply.
			b.observe(req, ccf.Item, time.Now())
		}
		return nil, fmt.Errorf("%w: %w", lock.ErrNotObtained, entity.ErrConditionFailed)
	}
	if err != nil {
		return nil, err
	}
	fv, ok := out.Attributes[AttrFence].(*types.AttributeValueMemberN)
	if !ok {
		return nil, fmt.Errorf("dynamolock: acquire reply has no %s", AttrFence)
	}
	fence, err := strconv.ParseInt(fv.Value, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("dynamolock: fence %q: %w", fv.Value, err)
	}
	b.acquired.Add(1)
	return &lease{b: b, key: key, token: req.Token, versions: []string{rvn}, fence: fence}, nil
}

// ownLanded recognises our own write in the item a failed condition
// returned: the SDK retries a request whose reply it did not get, and the
// retry of a write that landed fails its condition against that very write.
func (b *Backend) ownLanded(req *lock.AcquireRequest, item map[string]types.AttributeValue, rvn string) *lease {
	o, _ := item[AttrOwner].(*types.AttributeValueMemberS)
	r, _ := item[AttrVersion].(*types.AttributeValueMemberS)
	f, _ := item[AttrFence].(*types.AttributeValueMemberN)
	if o == nil || r == nil || f == nil || o.Value != req.Token || r.Value != rvn {
		return nil
	}
	fence, err := strconv.ParseInt(f.Value, 10, 64)
	if err != nil {
		return nil
	}
	return &lease{b: b, token: req.Token, versions: []string{rvn}, fence: fence}
}

// observe records the holder's record version; the watch restarts whenever
// the version changes.
func (b *Backend) observe(req *lock.AcquireRequest, item map[string]types.AttributeValue, now time.Time) {
	w := memo(req)
	rv, _ := item[AttrVersion].(*types.AttributeValueMemberS)
	if rv == nil {
		w.obs = nil
		return
	}
	if w.obs != nil && w.obs.rvn == rv.Value {
		return
	}
	leaseDur := req.TTL
	if lv, ok := item[AttrLease].(*types.AttributeValueMemberN); ok {
		if v, err := strconv.ParseInt(lv.Value, 10, 64); err == nil {
			leaseDur = time.Duration(v) * time.Millisecond
		}
	}
	w.obs = &observation{rvn: rv.Value, seenAt: now, lease: leaseDur}
}

// Abandon implements lock.Backend. An acquire request whose reply never
// came may still be in flight and land after any cleanup, so Abandon first
// records token as abandoned (acquire requests carrying it then fail their
// condition), and then frees the key if token holds it. Only the last
// abandoned token of a key is recorded: two Obtain calls on one key that
// give up at the same moment may still leave an orphan until its TTL.
func (b *Backend) Abandon(ctx context.Context, key, token string) error {
	k, err := b.ItemKey(key)
	if err != nil {
		return err
	}
	_, err = b.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(b.o.Table),
		Key:                       k,
		UpdateExpression:          aws.String("SET #ab = :tok"),
		ExpressionAttributeNames:  map[string]string{"#ab": AttrAbandoned},
		ExpressionAttributeValues: map[string]types.AttributeValue{":tok": s(token)},
	})
	if err != nil {
		return err
	}
	_, err = b.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(b.o.Table),
		Key:                       k,
		UpdateExpression:          aws.String("REMOVE #o, #e SET #r = :new, #fa = :now"),
		ConditionExpression:       aws.String("#o = :tok"),
		ExpressionAttributeNames:  map[string]string{"#o": AttrOwner, "#e": AttrExpiresAt, "#r": AttrVersion, "#fa": AttrFreeAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":tok": s(token), ":new": s(newVersion()), ":now": n(time.Now().UnixMilli())},
	})
	if _, ok := isConditionFailed(err); ok {
		return fmt.Errorf("%w: %w", lock.ErrNotHeld, entity.ErrConditionFailed)
	}
	return err
}

// Transient implements lock.Classifier: what the AWS SDK's standard
// retryer retries (throttling, 5xx faults, connection errors, timeouts)
// after its own attempts ran out, and [lock.Transient]; a missing table,
// a validation or access error are permanent.
func (b *Backend) Transient(err error) bool {
	return lock.Transient(err) ||
		awsretry.IsErrorRetryables(awsretry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary ||
		awsretry.IsErrorTimeouts(awsretry.DefaultTimeouts).IsErrorTimeout(err) == aws.TrueTernary
}

// IsLocked implements lock.Backend with a consistent read: the key is
// locked when the item has an owner whose expiresAt (plus SkewMargin in
// FastTakeover mode) is not yet past by this process's wall clock.
func (b *Backend) IsLocked(ctx context.Context, key string) (bool, error) {
	k, err := b.ItemKey(key)
	if err != nil {
		return false, err
	}
	out, err := b.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(b.o.Table), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return false, err
	}
	if _, ok := out.Item[AttrOwner]; !ok {
		return false, nil
	}
	ev, ok := out.Item[AttrExpiresAt].(*types.AttributeValueMemberN)
	if !ok {
		return true, nil
	}
	exp, err := strconv.ParseInt(ev.Value, 10, 64)
	if err != nil {
		return true, nil
	}
	limit := time.UnixMilli(exp)
	if b.o.Mode == FastTakeover {
		limit = limit.Add(b.o.SkewMargin)
	}
	return time.Now().Before(limit), nil
}

// maxVersions bounds the record versions a lease accepts after ambiguous
// writes (its last confirmed one plus those it may have written since).
const maxVersions = 8

type lease struct {
	b        *Backend
	key      map[string]types.AttributeValue
	token    string
	fence    int64
	versions []string // versions[0] confirmed (or oldest kept), then ambiguous ones
}

func (l *lease) Fence() int64 { return l.fence }

// versionCondition returns "#o = :tok AND #r IN (:v0, ...)" and fills values.
func (l *lease) versionCondition(values map[string]types.AttributeValue) string {
	values[":tok"] = s(l.token)
	var sb strings.Builder
	sb.WriteString("#o = :tok AND #r IN (")
	for i, v := range l.versions {
		p := ":v" + strconv.Itoa(i)
		values[p] = s(v)
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(p)
	}
	sb.WriteString(")")
	return sb.String()
}

// write runs a conditional update that installs a new record version.
func (l *lease) write(ctx context.Context, update string, values map[string]types.AttributeValue, names map[string]string) error {
	next := newVersion()
	values[":new"] = s(next)
	cond := l.versionCondition(values)
	_, err := l.b.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(l.b.o.Table),
		Key:                                 l.key,
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if ccf, ok := isConditionFailed(err); ok {
		// An SDK retry of a write that landed fails against that write:
		// the item then carries the version we were writing.
		if r, _ := ccf.Item[AttrVersion].(*types.AttributeValueMemberS); r != nil && r.Value == next {
			err = nil
		} else {
			return fmt.Errorf("%w: %w", lock.ErrNotHeld, entity.ErrConditionFailed)
		}
	}
	if err == nil {
		l.versions = append(l.versions[:0], next)
		return nil
	}
	// The write may have landed: accept its version from now on too.
	l.versions = append(l.versions, next)
	if len(l.versions) > maxVersions { // keep the confirmed one and the newest
		l.versions = append(l.versions[:1], l.versions[len(l.versions)-maxVersions+1:]...)
	}
	return err
}

func (l *lease) Extend(ctx context.Context, ttl time.Duration) error {
	now := time.Now()
	return l.write(ctx, "SET #r = :new, #l = :lease, #e = :exp", map[string]types.AttributeValue{
		":lease": n(ttl.Milliseconds()),
		":exp":   n(now.Add(ttl).UnixMilli()),
	}, map[string]string{"#o": AttrOwner, "#r": AttrVersion, "#l": AttrLease, "#e": AttrExpiresAt})
}

func (l *lease) Release(ctx context.Context) error {
	return l.write(ctx, "REMOVE #o, #e SET #r = :new, #fa = :now", map[string]types.AttributeValue{":now": n(time.Now().UnixMilli())},
		map[string]string{"#o": AttrOwner, "#r": AttrVersion, "#e": AttrExpiresAt, "#fa": AttrFreeAt})
}
