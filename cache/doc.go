// Package cache is a namespaced cache on Valkey (or Redis) through
// valkey-glide, with cache-aside, write-through, sessions (cache/session)
// and the key patterns of the design seeds.
//
// # Connection
//
// [New] builds a glide client from one [Options] struct: addresses,
// standalone or cluster mode, credentials, request timeout, and TLS, which
// is on whenever an endpoint is configured (seed 000) unless
// Options.DisableTLS says otherwise (local test servers). The cache talks
// to the server only through the narrow [Conn] interface, so unit tests
// can pass a fake in Options.Conn.
//
// With no endpoint the cache is bypassed: [GetOrLoad] calls the loader
// directly, reads miss, writes do nothing, metrics still count and
// nothing fails (seed 000).
//
// # Keys
//
// Every key is {app_id}:{env}:{service}:{key} (seed 002). No part may be
// empty, and no namespace part may hold ':' (ErrInvalidOptions from New,
// ErrInvalidKey from WithService), so the namespace of a key is never
// ambiguous. The key part has no empty ':' segment. Values go into keys
// through [Join] and [Seg], which escape ':', braces, '%' and white space
// reversibly (as package keys escapes '#'): plain IDs keep the seeds'
// exact strings, and Join("session_list", "a:b", "c") differs from
// Join("session_list", "a", "b:c"). A '%' in a key must start one of these
// escape sequences. Braces are rejected (the braces of the seeds are
// placeholders) unless Options.HashTags is set by a caller that puts
// related keys into one cluster slot on purpose, and then only as one
// non-empty {tag}.
//
// Internal keys (the generation marks below, and [InternalKey] for
// packages built on the cache) carry "%!", which no valid key holds: no
// user key can ever be one of them.
//
// # Cache-aside and invalidation
//
// [GetOrLoad] loads once per key per process (singleflight, with the load
// on a detached ctx bounded by Options.LoadTimeout, each waiter honouring
// its own ctx), caches with TTL jitter (default 10 %), and optionally
// caches "not found" (Options.NegativeTTL). [Cache.Invalidate] always
// wins over a load in flight: each key has a companion generation key in
// the same slot; an invalidation replaces the generation and deletes the
// key, and a loaded value is written only by a Lua script that checks the
// generation the loader saw before loading. [WriteThrough] and
// [Cache.WriteThroughHash] write the store first, then the cache
// (invalidating if that fails).
//
// # Faults
//
// Reads through [GetOrLoad] fail open: when the server is down or slow
// the loader's value is returned without error and the failure is
// counted. Connection errors are retried with exponential backoff
// (Options.MaxRetries, RetryBaseDelay) within the ctx deadline; a circuit
// breaker (Options.BreakerThreshold consecutive failures, then
// BreakerCooldown) keeps a dead server from costing a timeout per call.
// [Cache.Metrics] has seed 002's counters plus hit rate and mean latency;
// [Cache.Health] adds PING and INFO (version, clients, memory, keyspace).
//
// # Seeds
//
// The seeds' cache keys live in their domain packages, built with [Join]:
// seed 000's list caches in entity/idp/idpcache (derived caches of package
// cachestore, invalidated by the writes themselves), seed 003's job,
// image and AI-event caches in entity/content (wired into its Service),
// seed 002's sessions in cache/session. Package cache depends on no
// entity package.
//
// # Errors
//
// [ErrMiss] (glide's nil result), [ErrNotFound] (a cached "not found"), [ErrInvalidKey], [ErrInvalidOptions],
// [ErrUnavailable] (server or connection failure, after retries),
// [ErrCircuitOpen] (wrapped in ErrUnavailable) and [ErrStale]. Loader
// errors pass through unchanged.
//
// # Concurrency
//
// A [Cache] is safe for concurrent use. The glide data race of v2.5.3 is
// avoided by internal/glidex, which initialises glide's global once before
// a client is shared.
package cache
