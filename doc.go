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
//     (consumer);
//   - an embedded in-process DynamoDB engine (ddbmem) so examples and unit
//     tests run with no server.
//
// The root package holds no code; import the sub-packages.
package tablekit
