package entity

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TraceStartEvent describes a request the runtime is about to send.
type TraceStartEvent struct {
	Op    string // "GetItem", "PutItem", "Query", "BatchWriteItem", ...
	Table string
	Index string // "" for the table itself
	// Type is the entity type of a [Store]'s request or a query's ("Post");
	// "" for requests of the table (transactions, BatchWrite, CreateTable).
	Type string
	// Pattern is the name of the access pattern the request serves: a
	// query's pattern, query.Get's, or [CallOptions].Pattern; "" when none
	// was named.
	Pattern string
}

// TraceEvent describes the end of one request the runtime sent.
type TraceEvent struct {
	Op      string // "GetItem", "PutItem", "Query", "BatchWriteItem", ...
	Table   string
	Index   string // "" for the table itself
	Type    string // as in TraceStartEvent
	Pattern string // as in TraceStartEvent
	// Consumed is nil when DynamoDB did not report capacity.
	Consumed []types.ConsumedCapacity
	// Items is the number of items the response carries or the request
	// wrote: 0 or 1 for GetItem, 1 for a successful single-item write, the
	// Count of a Query or Scan page, the items read by BatchGetItem and
	// TransactGetItems; 0 for BatchWriteItem, TransactWriteItems and
	// failures.
	Items int
	// Retries is the number of retries the SDK's retryer made for this
	// request, from its attempt metadata; Throttles how many of the
	// attempts were throttled (the last one included when it failed so).
	Retries, Throttles int
	// Cancellation holds the reason code of each item of a cancelled
	// transaction ("None", "ConditionalCheckFailed",
	// "TransactionConflict", ...), nil otherwise.
	Cancellation []string
	Duration     time.Duration
	Err          error
}

// Tracer observes every request the runtime sends, in the style of pgx's
// QueryTracer. For each request TraceStart is called first with the
// context of the call that made it (Get, Put, a page of a query, one
// chunk of a batch, one attempt of a transaction); the context it returns
// is the one the request is sent with and the one TraceEnd then receives.
// A tracer can therefore start a span in TraceStart, as a child of the
// caller's span found in ctx, store it in the returned context, and end it
// in TraceEnd: the runtime's requests nest under the caller's spans, and
// the SDK's own instrumentation under them. Dry runs and request builders
// send nothing and are not traced.
//
// Both methods are called on the goroutine that sends the request and
// must be safe for concurrent use. When a tracer is set the runtime asks
// DynamoDB for the consumed capacity (ReturnConsumedCapacity TOTAL).
type Tracer interface {
	TraceStart(ctx context.Context, ev TraceStartEvent) context.Context
	TraceEnd(ctx context.Context, ev TraceEvent)
}

// TracerFunc adapts a function to a [Tracer] that only observes the end of
// each request: TraceStart returns ctx unchanged and TraceEnd calls f.
type TracerFunc func(ctx context.Context, ev TraceEvent)

// TraceStart returns ctx.
func (f TracerFunc) TraceStart(ctx context.Context, _ TraceStartEvent) context.Context { return ctx }

// TraceEnd calls f(ctx, ev).
func (f TracerFunc) TraceEnd(ctx context.Context, ev TraceEvent) { f(ctx, ev) }
