package idempotency

import (
	"time"

	"github.com/tablekit/tablekit/retry"
)

// ExponentialBackoff returns [retry.Exponential], the strategy it became in
// v0.2.0 (see CHANGELOG.md); [Options.Retry] takes a [retry.Strategy].
//
// Deprecated: use [retry.Exponential].
func ExponentialBackoff(min, max time.Duration) retry.Strategy { return retry.Exponential(min, max) }
