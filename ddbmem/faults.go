package ddbmem

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Fault describes faults injected into one operation. The zero value
// injects nothing.
type Fault struct {
	// ThrottleRate is the probability in [0, 1] that a call fails with
	// ThrottleErr before doing anything. Default 0.
	ThrottleRate float64
	// ThrottleErr is the error of a throttled call. Default: a
	// *types.ProvisionedThroughputExceededException, the error DynamoDB
	// returns when a table's capacity is exceeded (use a
	// *types.ThrottlingException for request-rate throttling).
	ThrottleErr error
	// Latency is added to every call before it runs (honouring ctx).
	// Default 0.
	Latency time.Duration
	// Err, when set, is returned by every call (after Latency), or by the
	// next Times calls when Times > 0. Default nil.
	Err error
	// Times limits how many calls return Err; 0 means every call.
	Times int
	// Unprocessed, for BatchWriteItem and BatchGetItem, leaves the last
	// Unprocessed writes or keys of every request undone and returns them
	// in UnprocessedItems or UnprocessedKeys, as DynamoDB does under load.
	// At least one write or key of each request is always processed, so a
	// client that retries what is returned finishes. Default 0.
	Unprocessed int
}

// SetFault sets (or, with the zero Fault, clears) the fault injected into
// op, an operation name such as "PutItem", or "*" for every operation.
// A fault set for an operation replaces "*" for it. It is safe to call
// concurrently with requests.
func (db *DB) SetFault(op string, f Fault) {
	db.faultMu.Lock()
	defer db.faultMu.Unlock()
	if f.isZero() {
		delete(db.faults, op)
	} else {
		db.faults[op] = f
	}
	db.hasFaults.Store(len(db.faults) > 0)
}

// ClearFaults removes every injected fault.
func (db *DB) ClearFaults() {
	db.faultMu.Lock()
	defer db.faultMu.Unlock()
	db.faults = map[string]Fault{}
	db.hasFaults.Store(false)
}

func (db *DB) injectFault(ctx context.Context, op string) error {
	db.faultMu.Lock()
	key := op
	f, ok := db.faults[op]
	if !ok {
		key = "*"
		f, ok = db.faults["*"]
	}
	if !ok {
		db.faultMu.Unlock()
		return nil
	}
	throttled := f.ThrottleRate > 0 && db.rng.Float64() < f.ThrottleRate
	var forced error
	if f.Err != nil {
		forced = f.Err
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				f.Err = nil
			}
			if f.isZero() {
				delete(db.faults, key)
				db.hasFaults.Store(len(db.faults) > 0)
			} else {
				db.faults[key] = f
			}
		}
	}
	db.faultMu.Unlock()
	if f.Latency > 0 {
		timer := time.NewTimer(f.Latency)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
	if throttled {
		if f.ThrottleErr != nil {
			return f.ThrottleErr
		}
		return &types.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")}
	}
	return forced
}

func (f Fault) isZero() bool {
	return f.ThrottleRate == 0 && f.ThrottleErr == nil && f.Latency == 0 && f.Err == nil && f.Times == 0 && f.Unprocessed == 0
}

// unprocessed returns how many of n writes or keys of a batch request op
// to leave unprocessed (Fault.Unprocessed, at most n-1).
func (db *DB) unprocessed(op string, n int) int {
	if !db.hasFaults.Load() {
		return 0
	}
	db.faultMu.Lock()
	f, ok := db.faults[op]
	if !ok {
		f = db.faults["*"]
	}
	db.faultMu.Unlock()
	return max(min(f.Unprocessed, n-1), 0)
}
