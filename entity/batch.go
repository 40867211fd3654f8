package entity

import (
	"context"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Batch sizes of DynamoDB's batch operations.
const (
	BatchGetSize   = 100
	BatchWriteSize = 25
)

// BatchError reports a batch that could not finish: the context ended (or
// the retry strategy gave up) while DynamoDB kept returning unprocessed
// items, or a request failed. It matches [ErrUnprocessed] when items were
// left unprocessed, and unwraps to the cause (for instance
// context.DeadlineExceeded or the SDK error).
type BatchError struct {
	Op string
	// Unprocessed lists the keys that were not read or written.
	Unprocessed []Key
	Err         error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("entity: %s: %d items unprocessed: %v", e.Op, len(e.Unprocessed), e.Err)
}

func (e *BatchError) Unwrap() []error {
	if len(e.Unprocessed) > 0 {
		return []error{ErrUnprocessed, e.Err}
	}
	return []error{e.Err}
}

// BatchGet reads the items with the given keys, in chunks of 100, retrying
// unprocessed keys with jittered backoff until ctx ends. Duplicate keys
// are read once. The result keeps the order of the keys as given (first
// occurrence); keys with no item are left out. When keys remain
// unprocessed the items read so far are returned with a [*BatchError]
// listing the rest. [ConsistentRead] is honoured.
func (s *Store[T, PT]) BatchGet(ctx context.Context, keys []Key, optFns ...func(*CallOptions)) ([]T, error) {
	o := callOpts(optFns)
	if s.err != nil {
		return nil, s.err
	}
	uniq := make([]Key, 0, len(keys))
	seen := make(map[Key]int, len(keys))
	for _, k := range keys {
		if err := s.checkKey("BatchGet", k); err != nil {
			return nil, err
		}
		if _, ok := seen[k]; !ok {
			seen[k] = len(uniq)
			uniq = append(uniq, k)
		}
	}
	found := make([]map[string]types.AttributeValue, len(uniq))
	pending := uniq
	attempt := 0
	for len(pending) > 0 {
		n := min(len(pending), BatchGetSize)
		chunk := pending[:n]
		pending = pending[n:]
		ka := types.KeysAndAttributes{Keys: make([]map[string]types.AttributeValue, len(chunk))}
		for i, k := range chunk {
			ka.Keys[i] = s.t.KeyMap(k)
		}
		if o.ConsistentRead {
			b := true
			ka.ConsistentRead = &b
		}
		in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{s.t.name: ka}}
		if o.DryRun != nil {
			*o.DryRun = Request{Op: "BatchGetItem", Input: in}
			return nil, nil
		}
		start := time.Now()
		out, err := s.t.client.BatchGetItem(ctx, in)
		if err != nil {
			s.trace(&o, "BatchGetItem", start, nil, err)
			return s.collect(found), &BatchError{Op: "BatchGet", Unprocessed: append(append([]Key(nil), chunk...), pending...), Err: err}
		}
		s.trace(&o, "BatchGetItem", start, out.ConsumedCapacity, nil)
		for _, item := range out.Responses[s.t.name] {
			k := s.keyOf(item)
			if i, ok := seen[k]; ok {
				found[i] = item
			}
		}
		left := out.UnprocessedKeys[s.t.name].Keys
		if len(left) == 0 {
			attempt = 0
			continue
		}
		for _, m := range left {
			pending = append(pending, s.keyOf(m))
		}
		attempt++
		if err := s.backoff(ctx, attempt); err != nil {
			return s.collect(found), &BatchError{Op: "BatchGet", Unprocessed: pending, Err: err}
		}
	}
	return s.collect(found), nil
}

func (s *Store[T, PT]) collect(found []map[string]types.AttributeValue) []T {
	out := make([]T, 0, len(found))
	for _, item := range found {
		if item == nil {
			continue
		}
		var v T
		if err := s.decode(item, &v); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func (s *Store[T, PT]) keyOf(item map[string]types.AttributeValue) Key {
	var k Key
	if v, ok := item[s.t.opts.PK].(*types.AttributeValueMemberS); ok {
		k.PK = v.Value
	}
	if s.t.opts.SK != "" {
		if v, ok := item[s.t.opts.SK].(*types.AttributeValueMemberS); ok {
			k.SK = v.Value
		}
	}
	return k
}

// backoff waits before retry attempt n; it fails when the context ends,
// the wait would pass its deadline, or the strategy gives up.
func (s *Store[T, PT]) backoff(ctx context.Context, attempt int) error {
	return s.t.backoff(ctx, attempt)
}

func (t *Table) backoff(ctx context.Context, attempt int) error {
	d, ok := t.opts.Retry.Backoff(attempt)
	if !ok {
		return retry.ErrGaveUp
	}
	if !retry.Fits(ctx, d) || retry.Sleep(ctx, d) != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return context.DeadlineExceeded
	}
	return nil
}

// WriteOp is one write of a [Table.BatchWrite], made by [Store.PutOp] or
// [Store.DeleteOp].
type WriteOp struct {
	key Key
	req types.WriteRequest
	err error
}

// PutOp prepares the put of v for [Table.BatchWrite]. It stamps Type and
// the timestamps like Put. A versioned entity cannot be batch-written
// (BatchWriteItem takes no condition): the batch then fails with a
// [*ValidationError] before sending.
func (s *Store[T, PT]) PutOp(v *T, optFns ...func(*CallOptions)) WriteOp {
	o := callOpts(optFns)
	if s.schema.VersionAttr != "" {
		return WriteOp{err: &ValidationError{Op: "BatchWrite", Type: s.schema.Type, Field: s.schema.VersionAttr, Err: errors.New("a versioned entity cannot be written in a batch (no conditions); use a transaction")}}
	}
	item, key, err := s.encode("BatchWrite", v, &o, false)
	if err != nil {
		return WriteOp{err: err}
	}
	return WriteOp{key: key, req: types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}}
}

// DeleteOp prepares the delete of key for [Table.BatchWrite].
func (s *Store[T, PT]) DeleteOp(key Key) WriteOp {
	if err := s.checkKey("BatchWrite", key); err != nil {
		return WriteOp{err: err}
	}
	if s.schema.VersionAttr != "" {
		return WriteOp{err: &ValidationError{Op: "BatchWrite", Type: s.schema.Type, Field: s.schema.VersionAttr, Err: errors.New("a versioned entity cannot be deleted in a batch (no conditions); use a transaction")}}
	}
	return WriteOp{key: key, req: types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: s.t.KeyMap(key)}}}
}

// BatchPut writes items with [Table.BatchWrite].
func (s *Store[T, PT]) BatchPut(ctx context.Context, items []T, optFns ...func(*CallOptions)) error {
	ops := make([]WriteOp, len(items))
	for i := range items {
		ops[i] = s.PutOp(&items[i], optFns...)
	}
	return s.t.BatchWrite(ctx, ops...)
}

// BatchDelete deletes keys with [Table.BatchWrite].
func (s *Store[T, PT]) BatchDelete(ctx context.Context, keys []Key) error {
	ops := make([]WriteOp, len(keys))
	for i, k := range keys {
		ops[i] = s.DeleteOp(k)
	}
	return s.t.BatchWrite(ctx, ops...)
}

// BatchWrite sends puts and deletes of any entity types in chunks of 25,
// retrying unprocessed items with jittered backoff until ctx ends. Of
// several writes to the same key only the last is sent (DynamoDB rejects
// duplicates in one batch). Invalid ops fail the whole batch before
// anything is sent. Writes left when the context ends are listed in a
// [*BatchError] matching [ErrUnprocessed].
func (t *Table) BatchWrite(ctx context.Context, ops ...WriteOp) error {
	for _, op := range ops {
		if op.err != nil {
			return op.err
		}
	}
	last := make(map[Key]int, len(ops))
	for i, op := range ops {
		last[op.key] = i
	}
	pending := make([]WriteOp, 0, len(last))
	for i, op := range ops {
		if last[op.key] == i {
			pending = append(pending, op)
		}
	}
	keyOf := func(r types.WriteRequest) Key {
		m := map[string]types.AttributeValue(nil)
		if r.PutRequest != nil {
			m = r.PutRequest.Item
		} else if r.DeleteRequest != nil {
			m = r.DeleteRequest.Key
		}
		var k Key
		if v, ok := m[t.opts.PK].(*types.AttributeValueMemberS); ok {
			k.PK = v.Value
		}
		if v, ok := m[t.opts.SK].(*types.AttributeValueMemberS); ok {
			k.SK = v.Value
		}
		return k
	}
	keysOf := func(ws []WriteOp) []Key {
		out := make([]Key, len(ws))
		for i, w := range ws {
			out[i] = w.key
		}
		return out
	}
	attempt := 0
	for len(pending) > 0 {
		n := min(len(pending), BatchWriteSize)
		chunk := pending[:n]
		pending = pending[n:]
		reqs := make([]types.WriteRequest, n)
		for i, w := range chunk {
			reqs[i] = w.req
		}
		in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{t.name: reqs}}
		if t.opts.Tracer != nil {
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		}
		start := time.Now()
		out, err := t.client.BatchWriteItem(ctx, in)
		if err != nil {
			t.Trace(TraceEvent{Op: "BatchWriteItem", Duration: time.Since(start), Err: err})
			return &BatchError{Op: "BatchWrite", Unprocessed: append(keysOf(chunk), keysOf(pending)...), Err: err}
		}
		t.Trace(TraceEvent{Op: "BatchWriteItem", Duration: time.Since(start), Consumed: out.ConsumedCapacity})
		left := out.UnprocessedItems[t.name]
		if len(left) == 0 {
			attempt = 0
			continue
		}
		for _, r := range left {
			pending = append(pending, WriteOp{key: keyOf(r), req: r})
		}
		attempt++
		if err := t.backoff(ctx, attempt); err != nil {
			return &BatchError{Op: "BatchWrite", Unprocessed: keysOf(pending), Err: err}
		}
	}
	return nil
}
