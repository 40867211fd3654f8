package entity

import (
	"github.com/tablekit/tablekit/retry"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TraceEvent describes one request the runtime sent (or a dry run it
// prepared). Consumed is nil when DynamoDB did not report capacity.
type TraceEvent struct {
	Op       string // "GetItem", "PutItem", "Query", "BatchWriteItem", ...
	Table    string
	Index    string // "" for the table itself
	Consumed []types.ConsumedCapacity
	Duration time.Duration
	Err      error
}

// Tracer receives one [TraceEvent] per request. Trace is called from the
// goroutine that made the request and must be safe for concurrent use.
type Tracer interface {
	Trace(TraceEvent)
}

// TracerFunc adapts a function to [Tracer].
type TracerFunc func(TraceEvent)

// Trace calls f(ev).
func (f TracerFunc) Trace(ev TraceEvent) { f(ev) }

// DefaultRetry paces the loops the runtime owns (batch leftovers and
// transaction conflicts) when [Options.Retry] is nil: jittered exponential
// waits from 25 ms up to 1 s, giving up after 10 retries in a row that made
// no progress, or when the context ends.
var DefaultRetry retry.Strategy = retry.Limit(retry.Exponential(25*time.Millisecond, time.Second), 10)
