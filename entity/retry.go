package entity

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/retry"
)

// DefaultRetry paces the loops the runtime owns (batch leftovers and
// throttled batch requests, transaction conflicts) when [Options.Retry] is
// nil: jittered exponential waits from 25 ms up to 1 s, giving up after 10
// retries in a row that made no progress, or when the context ends.
//
// Every loop of the runtime uses the one [retry.Strategy] shape of package
// retry (shared with lock and idempotency): Backoff(attempt) is asked
// before each retry with attempt = 1, 2, ... counting the attempts since
// the last progress, and a loop never waits past its context's deadline.
var DefaultRetry retry.Strategy = retry.Limit(retry.Exponential(25*time.Millisecond, time.Second), 10)

// backoff waits before retry attempt n (1-based) of a loop the runtime
// owns. It returns retry.ErrGaveUp when the strategy gives up, and the
// context's error when ctx ends or the wait would pass its deadline.
func (t *Table) backoff(ctx context.Context, s retry.Strategy, attempt int) error {
	if s == nil {
		s = t.opts.Retry
	}
	d, ok := s.Backoff(attempt)
	if !ok {
		return retry.ErrGaveUp
	}
	if !retry.Fits(ctx, d) {
		return context.DeadlineExceeded
	}
	if err := retry.Sleep(ctx, d); err != nil {
		return err
	}
	return nil
}

// throttled reports whether err is DynamoDB throttling a request (after
// the SDK's own retries): the request did nothing and may be sent again.
func throttled(err error) bool {
	var pte *types.ProvisionedThroughputExceededException
	var rle *types.RequestLimitExceeded
	var te *types.ThrottlingException
	if errors.As(err, &pte) || errors.As(err, &rle) || errors.As(err, &te) {
		return true
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "Throttling":
			return true
		}
	}
	return false
}
