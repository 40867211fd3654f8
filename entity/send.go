package entity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// tracer returns the tracer of a call: the per-call one, else the table's.
func (t *Table) tracer(o *CallOptions) Tracer {
	if o != nil && o.Trace != nil {
		return o.Trace
	}
	return t.opts.Tracer
}

// send is the one path of every request the runtime sends: it asks for
// the consumed capacity when traced, calls tr.TraceStart, sends in with
// the context TraceStart returned, and hands the outcome to tr.TraceEnd.
// A nil tr sends in untraced. Callers translate the error.
func send[I, O any](ctx context.Context, t *Table, tr Tracer, op, index string, in I,
	call func(context.Context, I, ...func(*dynamodb.Options)) (O, error), optFns ...func(*dynamodb.Options)) (O, error) {
	if tr == nil {
		return call(ctx, in, optFns...)
	}
	askCapacity(in)
	ctx = tr.TraceStart(ctx, TraceStartEvent{Op: op, Table: t.name, Index: index})
	start := time.Now()
	out, err := call(ctx, in, optFns...)
	ev := TraceEvent{Op: op, Table: t.name, Index: index, Duration: time.Since(start), Err: err}
	if err == nil {
		ev.Consumed = consumed(out)
	}
	tr.TraceEnd(ctx, ev)
	return out, err
}

// Send sends one request of table t through the runtime's request path:
// the table's [Tracer] sees it start and end, with the consumed capacity
// (requested only when a tracer is set), and the request is sent with the
// context TraceStart returned. call is the client method, for instance
// t.Client().Query; optFns go to it. Packages built on the runtime (query)
// use Send so that their requests are traced as the runtime's own are.
// The error is the client's, untranslated.
func Send[I, O any](ctx context.Context, t *Table, op, index string, in I,
	call func(context.Context, I, ...func(*dynamodb.Options)) (O, error), optFns ...func(*dynamodb.Options)) (O, error) {
	return send(ctx, t, t.opts.Tracer, op, index, in, call, optFns...)
}

func askCapacity(in any) {
	const total = types.ReturnConsumedCapacityTotal
	switch x := in.(type) {
	case *dynamodb.GetItemInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.ScanInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		x.ReturnConsumedCapacity = total
	case *dynamodb.TransactGetItemsInput:
		x.ReturnConsumedCapacity = total
	}
}

func consumed(out any) []types.ConsumedCapacity {
	one := func(c *types.ConsumedCapacity) []types.ConsumedCapacity {
		if c == nil {
			return nil
		}
		return []types.ConsumedCapacity{*c}
	}
	switch x := out.(type) {
	case *dynamodb.GetItemOutput:
		return one(x.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		return one(x.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return one(x.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return one(x.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		return one(x.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		return one(x.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		return x.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		return x.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		return x.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		return x.ConsumedCapacity
	}
	return nil
}

// fail translates the error of a single-item request (Get, Create, Put,
// Update, Delete): a failed condition becomes a [*ConditionError] or
// [*VersionConflictError], an item over the size limit matches
// [ErrItemTooLarge], and every error names the operation, type and key.
func (s *Store[T, PT]) fail(op string, key Key, o *CallOptions, create bool, err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return s.condErr(op, key, o, create, ccf.Item, err)
	}
	var big *types.ItemCollectionSizeLimitExceededException
	var api smithy.APIError
	if errors.As(err, &big) || (errors.As(err, &api) && api.ErrorCode() == "ValidationException" && strings.Contains(api.ErrorMessage(), "exceeded the maximum allowed size")) {
		return fmt.Errorf("entity: %s %s %s/%s: %w: %w", op, s.schema.Type, key.PK, key.SK, ErrItemTooLarge, err)
	}
	return fmt.Errorf("entity: %s %s %s/%s: %w", op, s.schema.Type, key.PK, key.SK, err)
}

// condErr explains a condition failure from the old item.
func (s *Store[T, PT]) condErr(op string, key Key, o *CallOptions, create bool, old map[string]types.AttributeValue, err error) error {
	ce := &ConditionError{Op: op, Table: s.t.name, Type: s.schema.Type, Key: key, Old: old, Err: err}
	switch {
	case create && len(old) > 0:
		ce.cause = ErrAlreadyExists
	case len(old) == 0 && (op == "Update" || op == "Delete") && o.Version > 0:
		ce.cause = ErrNotFound
	case len(old) == 0 && op == "Update":
		ce.cause = ErrNotFound
	case s.schema.VersionAttr != "" && len(old) > 0:
		got := versionOf(old[s.schema.VersionAttr])
		if o.Version > 0 && got != o.Version {
			return &VersionConflictError{Op: op, Type: s.schema.Type, Key: key, Expected: o.Version, Actual: got}
		}
		if o.Version == 0 && !create && op == "Put" {
			return &VersionConflictError{Op: op, Type: s.schema.Type, Key: key, Expected: 0, Actual: got}
		}
	}
	return ce
}
