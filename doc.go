// Package tablekit is a Go library for DynamoDB single-table modelling.
//
// From plain typed Go structs it gives services:
//
//   - generated, reversible key builders and reflection-free item codecs
//     (packages keys and keys/keygen);
//   - a typed table runtime with conditions, optimistic versioning,
//     timestamps, TTL, batches and transactions (package entity);
//   - typed queries with HMAC-signed cursors, one function per documented
//     access pattern (package query and its domain sub-packages), each
//     pattern declared once as data (query.Pattern) that the function runs
//     and package design renders (design document, NoSQL Workbench model,
//     SVG picture, IAM policy, Valkey ACL rule);
//   - a Valkey cache with sessions (cache, cache/session), a cached entity
//     store with derived caches that writes keep right (cachestore), a fenced
//     distributed lock (lock), DynamoDB-backed idempotency (idempotency)
//     and an at-least-once consumer loop with an in-process queue
//     (consumer) and one on Amazon SQS (consumer/sqsqueue);
//   - fenced leases with checkpoints for work shared across processes
//     (lease), and live-table evolution: backfill, rename, re-key,
//     transform and a doctor, resumable and throttled, with a command
//     (evolve, evolve/evolvecmd);
//   - a consumer of a table's DynamoDB stream shared across processes,
//     which also keeps the cached stores right for writes that bypass them
//     (feed, with cachestore.Invalidator);
//   - OpenTelemetry spans and metrics (otelkit);
//   - an embedded in-process DynamoDB engine (ddbmem) so examples and unit
//     tests run with no server.
//
// The root package holds only [Version]; import the sub-packages.
//
// # Versions and compatibility
//
// Releases follow semantic versioning, recorded in CHANGELOG.md with a git
// tag per version. While the major version is 0, a minor version (0.3 to
// 0.4) may change the exported API; each such change has a changelog entry
// naming the old spelling, the new one and a one-line migration, and where
// it costs little the old name stays one more version, marked Deprecated. A
// patch version (0.3.0 to 0.3.1) never changes the API. The whole exported
// API is kept in api/next.txt, checked by a test, so every change of it shows
// in review.
package tablekit

// Version is the latest released version of this module, as CHANGELOG.md
// names it. A test keeps the two equal.
const Version = "0.3.0"
