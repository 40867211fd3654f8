package entity

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Batch sizes of DynamoDB's batch operations.
const (
	BatchGetSize   = 100
	BatchWriteSize = 25
)

// BatchError reports a batch that could not finish: the context ended, or
// the retry strategy gave up after retries in a row that made no progress,
// while DynamoDB kept returning unprocessed items or throttling; or a
// request failed for a reason that is not retryable. It matches
// [ErrUnprocessed] when items were left unprocessed, and unwraps to the
// cause (context.DeadlineExceeded, retry.ErrGaveUp or the SDK error).
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

// BatchGet reads the items with the given keys, in chunks of 100.
// Duplicate keys are read once. The result keeps the order of the keys as
// given (first occurrence); keys with no item are left out. [ConsistentRead]
// is honoured.
//
// Unprocessed keys and throttled chunks are sent again, after a jittered
// backoff ([Options.Retry]), while the other chunks go on; a response that
// returned any item counts as progress and resets the strategy's attempt
// count, so a batch that keeps progressing never gives up. The batch ends
// when every key was read, when ctx ends or the strategy gives up after
// retries in a row without progress (the items read so far and a
// [*BatchError] listing the rest), or when a request fails for another
// reason (a *BatchError wrapping it). An item that cannot be decoded fails
// the call with the same error [Store.Get] returns for it.
func (s *Store[T, PT]) BatchGet(ctx context.Context, keys []Key, optFns ...func(*CallOptions)) ([]T, error) {
	o := callOpts(optFns)
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
	tr := s.tracer(&o)
	input := func(chunk []Key) *dynamodb.BatchGetItemInput {
		ka := types.KeysAndAttributes{Keys: make([]map[string]types.AttributeValue, len(chunk))}
		for i, k := range chunk {
			ka.Keys[i] = s.t.KeyMap(k)
		}
		if o.ConsistentRead {
			b := true
			ka.ConsistentRead = &b
		}
		return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{s.t.name: ka}}
	}
	if o.DryRun != nil {
		if len(uniq) > 0 {
			*o.DryRun = Request{Op: "BatchGetItem", Input: input(uniq[:min(len(uniq), BatchGetSize)])}
		}
		return nil, nil
	}
	left, err := batchLoop(ctx, s.t, uniq, BatchGetSize, func(ctx context.Context, chunk []Key) ([]Key, error) {
		out, err := send(ctx, s.t, tr, "BatchGetItem", "", input(chunk), s.t.client.BatchGetItem)
		if err != nil {
			return nil, err
		}
		for _, item := range out.Responses[s.t.name] {
			if i, ok := seen[s.t.keyOf(item)]; ok {
				found[i] = item
			}
		}
		var left []Key
		for _, m := range out.UnprocessedKeys[s.t.name].Keys {
			left = append(left, s.t.keyOf(m))
		}
		return left, nil
	})
	if err != nil {
		items, _ := s.collect(found)
		return items, &BatchError{Op: "BatchGet", Unprocessed: left, Err: err}
	}
	return s.collect(found)
}

// batchLoop is the one retry loop of BatchGet and BatchWrite. It sends
// pending in chunks of size through send, which returns what its request
// left unprocessed. Unprocessed items, and the whole chunk of a throttled
// request, go back to the end of the queue, so the other chunks are sent
// meanwhile, and each retry waits as the table's retry strategy says. A
// request that processed anything is progress and resets the attempt
// count: the loop gives up only after retries in a row without progress.
// It ends when everything is processed (nil, nil), when ctx ends or the
// strategy gives up, or on an error that is not throttling; it then
// returns what is left with the error.
func batchLoop[W any](ctx context.Context, t *Table, pending []W, size int, send func(context.Context, []W) ([]W, error)) ([]W, error) {
	attempt := 0
	for len(pending) > 0 {
		n := min(len(pending), size)
		chunk := pending[:n:n]
		pending = pending[n:]
		left, err := send(ctx, chunk)
		switch {
		case err == nil:
		case throttled(err):
			left = chunk
		default:
			return append(append([]W(nil), chunk...), pending...), err
		}
		if len(left) < len(chunk) {
			attempt = 0 // progress
		}
		if len(left) == 0 {
			continue
		}
		pending = append(pending, left...)
		attempt++
		if err := t.backoff(ctx, nil, attempt); err != nil {
			return pending, err
		}
	}
	return nil, nil
}

// collect decodes the items found, in order; the first item that does not
// decode is an error.
func (s *Store[T, PT]) collect(found []map[string]types.AttributeValue) ([]T, error) {
	out := make([]T, 0, len(found))
	for _, item := range found {
		if item == nil {
			continue
		}
		var v T
		if err := s.decode(item, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// WriteOp is one write of a [Table.BatchWrite], made by [Store.PutOp] or
// [Store.DeleteOp].
type WriteOp struct {
	key Key
	req types.WriteRequest
	err error
}

// PutOp prepares the put of v for [Table.BatchWrite]. It stamps Type and
// the timestamps like Put. A versioned entity, and an entity with unique
// fields, cannot be batch-written (BatchWriteItem takes no condition):
// the batch then fails with a [*ValidationError] before sending, as it
// does for [IfVersion] on an unversioned entity.
func (s *Store[T, PT]) PutOp(v *T, optFns ...func(*CallOptions)) WriteOp {
	o := callOpts(optFns)
	if s.schema.VersionAttr != "" {
		return WriteOp{err: &ValidationError{Op: "BatchWrite", Type: s.schema.Type, Field: s.schema.VersionAttr, Err: errors.New("a versioned entity cannot be written in a batch (no conditions); use a transaction")}}
	}
	if len(s.schema.Unique) > 0 {
		return WriteOp{err: s.batchUniqueRefused()}
	}
	if o.Version != 0 {
		return WriteOp{err: s.unversioned("BatchWrite")}
	}
	item, key, err := s.encode("BatchWrite", v, &o, false, false, nil)
	if err != nil {
		return WriteOp{err: err}
	}
	return WriteOp{key: key, req: types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}}
}

// DeleteOp prepares the delete of key for [Table.BatchWrite]. A
// versioned entity, or one with unique fields, fails the batch with a
// [*ValidationError].
func (s *Store[T, PT]) DeleteOp(key Key) WriteOp {
	if err := s.checkKey("BatchWrite", key); err != nil {
		return WriteOp{err: err}
	}
	if s.schema.VersionAttr != "" {
		return WriteOp{err: &ValidationError{Op: "BatchWrite", Type: s.schema.Type, Field: s.schema.VersionAttr, Err: errors.New("a versioned entity cannot be deleted in a batch (no conditions); use a transaction")}}
	}
	if len(s.schema.Unique) > 0 {
		return WriteOp{err: s.batchUniqueRefused()}
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

// BatchWrite sends puts and deletes of any entity types in chunks of 25.
// Of several writes to the same key only the last is sent (DynamoDB
// rejects duplicates in one batch). Invalid ops fail the whole batch
// before anything is sent.
//
// Unprocessed writes and throttled chunks are sent again, after a jittered
// backoff ([Options.Retry]), while the other chunks go on; a response in
// which any write landed counts as progress and resets the strategy's
// attempt count, so a batch that keeps progressing never gives up. The
// batch ends when every write landed, when ctx ends or the strategy gives
// up after retries in a row without progress (a [*BatchError] matching
// [ErrUnprocessed] lists the writes left), or when a request fails for
// another reason (a *BatchError wrapping it).
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
	tr := tracing{tr: t.opts.Tracer}
	left, err := batchLoop(ctx, t, pending, BatchWriteSize, func(ctx context.Context, chunk []WriteOp) ([]WriteOp, error) {
		reqs := make([]types.WriteRequest, len(chunk))
		for i, w := range chunk {
			reqs[i] = w.req
		}
		in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{t.name: reqs}}
		out, err := send(ctx, t, tr, "BatchWriteItem", "", in, t.client.BatchWriteItem)
		if err != nil {
			return nil, err
		}
		var left []WriteOp
		for _, r := range out.UnprocessedItems[t.name] {
			m := map[string]types.AttributeValue(nil)
			if r.PutRequest != nil {
				m = r.PutRequest.Item
			} else if r.DeleteRequest != nil {
				m = r.DeleteRequest.Key
			}
			left = append(left, WriteOp{key: t.keyOf(m), req: r})
		}
		return left, nil
	})
	if err != nil {
		keys := make([]Key, len(left))
		for i, w := range left {
			keys[i] = w.key
		}
		return &BatchError{Op: "BatchWrite", Unprocessed: keys, Err: err}
	}
	return nil
}

// batchUniqueRefused is the error of a batch write of an entity with
// unique attributes: BatchWriteItem takes no condition, so it could
// neither refuse a taken value nor move guards atomically.
func (s *Store[T, PT]) batchUniqueRefused() error {
	return &ValidationError{Op: "BatchWrite", Type: s.schema.Type, Field: "unique", Err: fmt.Errorf("%s has unique attributes, which a batch cannot guard (no conditions); write each item with Create, Put or Delete, or create them in a transaction (TxCreate)", s.schema.Type)}
}
