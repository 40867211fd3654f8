// Package entity is tablekit's table runtime: a DynamoDB single table
// described once ([Table]) and typed access to each entity stored in it
// ([Store]), on top of the key builders and item codecs that keygen
// generates (the [Item] contract in item.go).
//
// A [Table] holds the schema: its injectable name, the PK/SK attribute
// names (default "PK", "SK"), the Type attribute (default "Type"), GSIs and
// LSIs with their key attributes and projections, the TTL attribute and the
// billing mode (default PAY_PER_REQUEST). [Table.EnsureTable] creates it and
// waits until it is ACTIVE; [Table.CloudFormation] exports it as an
// AWS::DynamoDB::Table resource. The [Client] it talks to is the narrow
// slice of the DynamoDB API that *dynamodb.Client and the embedded engine
// (package ddbmem) satisfy.
//
// A [Store] of entity T, made with NewStore[T](table), reads and writes
// values of T:
//
//   - Get is eventually consistent unless [ConsistentRead] is given;
//   - Create fails with [ErrAlreadyExists] (and [ErrConditionFailed]) when
//     the item exists; Put replaces; Update applies typed [Change]s ([Set],
//     [Add], [SetIfNotExists], [Remove]) to an existing item; Delete
//     deletes; every write takes user conditions ([If], built with the aws
//     expression package);
//   - every write sets Type; CreatedAt is set once, UpdatedAt on every
//     write (ISO 8601 UTC, [TimeFormat]); a versioned entity (keygen tag
//     `version`) is created at version 1, and Update, Delete and Put of an
//     existing item require [IfVersion] and increment it, a mismatch being
//     a [*VersionConflictError] ([ErrVersionConflict]), told apart from
//     other condition failures by the old item DynamoDB returns;
//   - index keys never drift: an Update that changes a source of a derived
//     index key rewrites that key in the same request, fails with a
//     [*ValidationError] (nothing written) when a source is missing, and
//     removes a sparse index's keys when their source is removed or
//     emptied; primary key attributes and their sources are never set;
//   - unique fields (keygen tag option unique, or unique=Field for unique
//     within another field's values) never drift: one guard item per value
//     ([UniqueAttr]) is written in the same transaction as the item; Create
//     costs one TransactWriteItems and no read, an Update that changes a
//     unique field or its scope reads the item and swaps the guards in one
//     transaction, Put of an item that may exist and Delete read the item
//     first; a write that touches no unique field costs what it costs
//     without them; a taken value is a [*UniqueError] ([ErrUniqueViolation])
//     naming the field, the value and the holder's key; [GetUnique] reads
//     the item holding a value; batches refuse such entities, and in a
//     transaction only TxCreate (which writes the guards) and TxUpdate of
//     other fields are accepted;
//   - rules hold on every write: [Remove] of a field whose rules refuse
//     its zero value is refused before sending, and [IfVersion] given to
//     an entity without a version field is a [*ValidationError] on every
//     path (the caller's concurrency guard is never ignored);
//   - items over 400 KB ([ItemSize], computed like DynamoDB) are refused
//     before sending with [ErrItemTooLarge], and an update or a transaction
//     that DynamoDB refuses for growing an item past it matches it too;
//   - the request builders ([Store.GetInput], [Store.CreateInput],
//     [Store.PutInput], [Store.UpdateInput], [Store.DeleteInput]) build the
//     exact request without a context and without sending it; [DryRun]
//     captures it from a call instead.
//
// NewStore checks the entity's schema against the table ([CheckSchema]):
// a primary key attribute with another name, or an index the table does
// not declare (or declares with other attribute names), makes it panic
// with a [*SchemaError], as regexp.MustCompile does for a bad pattern.
//
// Batches ([Store.BatchGet], [Table.BatchWrite]) are chunked (100 keys, 25
// writes), deduplicated, keep the caller's order on read, and retry
// unprocessed items and throttled chunks with jittered backoff
// ([Options.Retry], default [DefaultRetry]) while sending the other
// chunks; any progress resets the strategy's attempt count, so a batch
// ends only when everything landed, when the context ends, when the
// strategy gives up after retries in a row without progress, or on an
// error that is not retryable; leftovers come back in a [*BatchError].
// Transactions ([Table.Tx]) mix Create/Put/Update/Delete/ConditionCheck
// across entity types, are refused over 100 actions before sending, retry
// only conflicts and throttling, and report a cancellation
// as a [*TxCanceledError] listing each failed action with its reason code
// and old item decoded into its Go type.
//
// Errors are sentinels ([ErrNotFound], [ErrConditionFailed],
// [ErrAlreadyExists], [ErrVersionConflict], [ErrItemTooLarge],
// [ErrValidation], [ErrUnprocessed], [ErrTransactionCanceled],
// [ErrSchemaMismatch]) and typed
// errors carrying details; check them with errors.Is and errors.As.
//
// Nothing is logged. A [Tracer] sees every request start and end with the
// call's context, so its spans nest under the caller's (operation, table,
// index, entity type, access pattern, item count, consumed capacity,
// retries, throttles, a transaction's cancellation reasons, duration,
// error). Every request goes through
// one path ([Send] for packages built on the runtime), and every loop the
// runtime owns is paced by the one retry.Strategy shape of package retry.
//
// Tables and stores are safe for concurrent use once built.
package entity
