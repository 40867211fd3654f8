package lock

import (
	"time"

	"github.com/tablekit/tablekit/retry"
)

// The retry strategies of v0.1.0, kept for one more version as spellings of
// package retry's (see CHANGELOG.md). They are exactly the strategies they
// point at.

// RetryStrategy is [retry.Strategy].
//
// Deprecated: use [retry.Strategy]; [Options.Retry] takes one.
type RetryStrategy = retry.Strategy

// NoRetry returns [retry.Never].
//
// Deprecated: use [retry.Never].
func NoRetry() retry.Strategy { return retry.Never() }

// LinearBackoff returns [retry.Constant].
//
// Deprecated: use [retry.Constant].
func LinearBackoff(interval time.Duration) retry.Strategy { return retry.Constant(interval) }

// ExponentialBackoff returns [retry.Exponential].
//
// Deprecated: use [retry.Exponential].
func ExponentialBackoff(min, max time.Duration) retry.Strategy { return retry.Exponential(min, max) }

// LimitRetry returns [retry.Limit].
//
// Deprecated: use [retry.Limit].
func LimitRetry(s retry.Strategy, max int) retry.Strategy { return retry.Limit(s, max) }
