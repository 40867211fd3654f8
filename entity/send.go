package entity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// tracing is who traces a request and what it serves: the tracer (nil:
// untraced), the entity type and the access pattern name.
type tracing struct {
	tr           Tracer
	typ, pattern string
}

// tracer returns the tracing of a call of s: the per-call tracer, else the
// table's, with the entity type and the call's pattern.
func (s *Store[T, PT]) tracer(o *CallOptions) tracing {
	tr := s.t.opts.Tracer
	if o != nil && o.Trace != nil {
		tr = o.Trace
	}
	if tr == nil {
		return tracing{}
	}
	tc := tracing{tr: tr, typ: s.schema.Type}
	if o != nil {
		tc.pattern = o.Pattern
	}
	return tc
}

// send is the one path of every request the runtime sends: it asks for
// the consumed capacity when traced, calls TraceStart, sends in with
// the context TraceStart returned, and hands the outcome to TraceEnd.
// A nil tracer sends in untraced. Callers translate the error.
func send[I, O any](ctx context.Context, t *Table, tc tracing, op, index string, in I,
	call func(context.Context, I, ...func(*dynamodb.Options)) (O, error), optFns ...func(*dynamodb.Options)) (O, error) {
	tr := tc.tr
	if tr == nil {
		return call(ctx, in, optFns...)
	}
	askCapacity(in)
	ctx = tr.TraceStart(ctx, TraceStartEvent{Op: op, Table: t.name, Index: index, Type: tc.typ, Pattern: tc.pattern})
	start := time.Now()
	out, err := call(ctx, in, optFns...)
	ev := TraceEvent{Op: op, Table: t.name, Index: index, Type: tc.typ, Pattern: tc.pattern, Duration: time.Since(start), Err: err}
	var md middleware.Metadata
	if err == nil {
		ev.Consumed, ev.Items, md = outcome(out)
	} else {
		var oe interface{ ResultMetadata() middleware.Metadata }
		if errors.As(err, &oe) {
			md = oe.ResultMetadata()
		}
		var tce *types.TransactionCanceledException
		if errors.As(err, &tce) {
			ev.Cancellation = make([]string, len(tce.CancellationReasons))
			for i, r := range tce.CancellationReasons {
				ev.Cancellation[i] = "None"
				if r.Code != nil {
					ev.Cancellation[i] = *r.Code
				}
			}
		}
	}
	if ar, ok := retry.GetAttemptResults(md); ok && len(ar.Results) > 1 {
		ev.Retries = len(ar.Results) - 1
		for _, r := range ar.Results {
			if r.Err != nil && throttled(r.Err) {
				ev.Throttles++
			}
		}
	} else if err != nil && throttled(err) {
		ev.Throttles = 1
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
	return send(ctx, t, tracing{tr: t.opts.Tracer}, op, index, in, call, optFns...)
}

// SendAs is [Send] with the trace start event's Op, Index, Type and
// Pattern taken from ev (its Table is t's name): package query sends its
// pages with the entity type and the access pattern they serve.
func SendAs[I, O any](ctx context.Context, t *Table, ev TraceStartEvent, in I,
	call func(context.Context, I, ...func(*dynamodb.Options)) (O, error), optFns ...func(*dynamodb.Options)) (O, error) {
	return send(ctx, t, tracing{tr: t.opts.Tracer, typ: ev.Type, pattern: ev.Pattern}, ev.Op, ev.Index, in, call, optFns...)
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

// outcome returns the consumed capacity, the number of items read or
// written and the result metadata of a response.
func outcome(out any) (cc []types.ConsumedCapacity, items int, md middleware.Metadata) {
	one := func(c *types.ConsumedCapacity) []types.ConsumedCapacity {
		if c == nil {
			return nil
		}
		return []types.ConsumedCapacity{*c}
	}
	switch x := out.(type) {
	case *dynamodb.GetItemOutput:
		if len(x.Item) > 0 {
			items = 1
		}
		return one(x.ConsumedCapacity), items, x.ResultMetadata
	case *dynamodb.PutItemOutput:
		return one(x.ConsumedCapacity), 1, x.ResultMetadata
	case *dynamodb.UpdateItemOutput:
		return one(x.ConsumedCapacity), 1, x.ResultMetadata
	case *dynamodb.DeleteItemOutput:
		return one(x.ConsumedCapacity), 1, x.ResultMetadata
	case *dynamodb.QueryOutput:
		return one(x.ConsumedCapacity), int(x.Count), x.ResultMetadata
	case *dynamodb.ScanOutput:
		return one(x.ConsumedCapacity), int(x.Count), x.ResultMetadata
	case *dynamodb.BatchGetItemOutput:
		for _, r := range x.Responses {
			items += len(r)
		}
		return x.ConsumedCapacity, items, x.ResultMetadata
	case *dynamodb.BatchWriteItemOutput:
		return x.ConsumedCapacity, 0, x.ResultMetadata
	case *dynamodb.TransactWriteItemsOutput:
		return x.ConsumedCapacity, 0, x.ResultMetadata
	case *dynamodb.TransactGetItemsOutput:
		return x.ConsumedCapacity, len(x.Responses), x.ResultMetadata
	}
	return nil, 0, md
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
