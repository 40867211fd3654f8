// Package idempotency runs a function once per idempotency key, and
// answers every duplicate with the first call's outcome, using one record
// on the application's single DynamoDB table.
//
// # How a call works
//
// [Do] claims the key with one conditional PutItem. The claim succeeds
// when no record exists, when the record is past its retention, or when
// it is in progress with an expired lease. Otherwise the put fails, and
// because it asks for ReturnValuesOnConditionCheckFailure=ALL_OLD the
// failure carries the existing record: a duplicate is answered from that
// single call, with no extra read. A first call therefore costs two
// writes (claim and completion), a replay one.
//
// The claim stores a random owner token, the SHA-256 of the caller's
// canonical payload bytes, the lease end, the retention expiry (the
// DynamoDB TTL attribute, epoch seconds) and an optional caller-supplied
// first value (for example a request ID) that duplicates receive even
// while the first call is still running.
//
// Completion stores the result; a failure releases the claim or records
// the failure, as [Options.Failure] says. Both writes are conditional on
// status = IN_PROGRESS AND owner = the caller's token, so an owner whose
// lease was taken over gets [ErrLeaseLost] and changes nothing.
//
// The lease ([Options.Lease]) is renewed by a heartbeat while the
// function runs, so a long function keeps its claim and a crashed one
// loses it after at most one lease. Expiry is decided by comparing times
// in the condition itself, minus [Options.ClockSkew]; TTL deletion is
// never relied on (DynamoDB deletes expired items late, or never). The
// lease starts when the claim is sent, so keep it well above the latency
// of one DynamoDB call; a claim that took longer than the heartbeat
// interval is renewed before the function starts, and if it was already
// taken over the function does not run.
//
// # The record
//
// Key: [Options.Key] of the idempotency key, by default [DefaultKey]: PK
// "IDEMP#" and the key escaped as a keys template field, SK "LOCK"; a key
// made of several parts ([DefaultKey] of event and user IDs) is what a
// generated "IDEMP#{EventID}#{UserID}" key builder gives.
// Attributes: status (IN_PROGRESS, COMPLETE, FAILED), owner, payloadHash,
// leaseUntil (epoch milliseconds), startedAt, completedAt, result (the
// result marshalled by attributevalue), errorMessage (recorded failures),
// [Options.FirstValueAttr] (default "firstValue") and [Options.TTLAttr]
// (default "ttl"). Enable TTL on that attribute to let DynamoDB clean up.
//
// # Defaults
//
// Lease 30 s, heartbeat every Lease/3, retention 24 h, clock skew margin
// 1 s, failures release the claim, duplicates of a running call get
// [ErrInProgress] (or wait, with [Options.WaitForResult], polling with
// [retry.Exponential] from 20 ms to 1 s).
//
// # Errors
//
// [ErrEmptyKey] for an empty key (never a silent pass-through);
// [ErrPayloadMismatch] when the key was first used with another payload;
// [ErrInProgress] (an [*InProgressError], retryable, carrying the first
// value) while the first call runs; [ErrFailed] (a [*FailedError]) when
// the first call's failure was recorded; [ErrLeaseLost] when this call's
// claim was taken over; [ErrResultTooLarge] (which also matches
// entity.ErrItemTooLarge) when the result would push the record past
// 400 KB; [ErrInvalidOptions] for bad options; a transaction item whose
// own condition failed matches entity.ErrConditionFailed. Other
// DynamoDB errors are wrapped with %w.
package idempotency
