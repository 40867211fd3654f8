package entity

import "github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

// CallOptions are the per-call options of a [Store] operation, set with
// the helpers [ConsistentRead], [If], [IfVersion], [DryRun] and
// [KeepTimestamps]. The zero value is a plain call.
type CallOptions struct {
	// ConsistentRead asks Get for a strongly consistent read. Default:
	// eventually consistent (cheaper, and may miss a write of the last
	// second).
	ConsistentRead bool
	// Condition is a user condition every write adds to its own.
	Condition *expression.ConditionBuilder
	// Version is the expected current version of a versioned entity, for
	// Update and Delete (required there) and for Put (0 or unset: the item
	// must not exist).
	Version int64
	// DryRun, when non-nil, receives the exact request instead of it
	// being sent; the call then returns the zero value and a nil error.
	DryRun *Request
	// KeepTimestamps makes Create and Put keep the UpdatedAt value carried
	// by the item instead of stamping now (migrations); CreatedAt is kept
	// whenever the item carries one.
	KeepTimestamps bool
	// Trace, when non-nil, replaces the table's tracer for this call.
	Trace Tracer
	// Pattern names the access pattern the call serves
	// ("codex/post-by-id"); the tracer receives it
	// ([TraceStartEvent].Pattern). query.Get sets it to its pattern's
	// name. Default "": none.
	Pattern string
}

// WithPattern names the access pattern of a call for the tracer (see
// [CallOptions].Pattern).
func WithPattern(name string) func(*CallOptions) {
	return func(o *CallOptions) { o.Pattern = name }
}

// ConsistentRead requests a strongly consistent read.
func ConsistentRead(o *CallOptions) { o.ConsistentRead = true }

// KeepTimestamps keeps the item's own timestamps (see [CallOptions]).
func KeepTimestamps(o *CallOptions) { o.KeepTimestamps = true }

// If adds a user condition to a write. Several If options are ANDed.
func If(cond expression.ConditionBuilder) func(*CallOptions) {
	return func(o *CallOptions) {
		if o.Condition == nil {
			o.Condition = &cond
			return
		}
		c := o.Condition.And(cond)
		o.Condition = &c
	}
}

// IfVersion sets the expected current version (optimistic locking).
func IfVersion(v int64) func(*CallOptions) {
	return func(o *CallOptions) { o.Version = v }
}

// DryRun captures the request into r instead of sending it; the call
// then returns the zero value and a nil error. To build a request without
// a call (and without a context), use the Store's request builders
// ([Store.GetInput], [Store.CreateInput], [Store.PutInput],
// [Store.UpdateInput], [Store.DeleteInput]) or the transaction ops.
func DryRun(r *Request) func(*CallOptions) {
	return func(o *CallOptions) { o.DryRun = r }
}

// Request is a request captured by [DryRun]: the operation name and the
// exact SDK input (*dynamodb.PutItemInput, *dynamodb.UpdateItemInput, ...).
type Request struct {
	Op    string
	Input any
}

func callOpts(optFns []func(*CallOptions)) CallOptions {
	if len(optFns) == 0 {
		// The options escape to the functions they are given to; a call
		// without any costs no allocation.
		return CallOptions{}
	}
	o := new(CallOptions)
	for _, fn := range optFns {
		fn(o)
	}
	return *o
}
