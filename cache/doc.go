// Package cache is a namespaced cache on Valkey (or Redis) through
// valkey-glide or valkey-go, with cache-aside, write-through, an optional
// near cache and sessions (cache/session).
//
// # Connection
//
// [New] builds a client from one [Options] struct: addresses, standalone
// or cluster mode, credentials, request timeout, and TLS, which is on
// whenever an endpoint is configured unless Options.DisableTLS
// says otherwise (local test servers). The cache talks to the server only
// through the narrow [Conn] interface, so unit tests can pass a fake in
// Options.Conn.
//
// # Backends
//
// Options.Backend picks the client library. [BackendGlide], the default,
// is valkey-glide. [BackendValkeyGo] is
// github.com/valkey-io/valkey-go, the Valkey project's pure-Go client, for
// services that outgrow glide: glide sends every command through a cgo
// call into a Rust runtime and back through a callback and a channel, and
// keeps one multiplexed connection per node; valkey-go stays in Go and
// pipelines concurrent commands automatically, which makes a round trip
// several times cheaper on the client. Both backends keep every guarantee
// of this package (the suites run on both); both connect lazily, so a
// server that is down at start-up makes calls fail open, not New.
// [DialValkeyGo] builds the valkey-go [Conn] on its own (to share with
// lock/valkeylock); [NewGlideConn], [NewGlideClusterConn] and
// [NewValkeyGoConn] adapt clients you built yourself.
//
// Lua scripts are [Script]s (source and SHA-1): both backends run them with
// EVALSHA and fall back to EVAL when the server answers NOSCRIPT.
//
// # Near cache
//
// With Options.Near set ([NearOptions]; valkey-go only) [Cache.Get] and the
// hit path of [GetOrLoad] are served from an in-process copy of hot keys.
// The copy is kept coherent by the server (RESP3 CLIENT TRACKING, through
// valkey-go's client-side caching with a store of this package):
//
//   - a key written, deleted, expired or invalidated anywhere is not served
//     from the copy once the write is acknowledged and the server's
//     invalidation push has reached this process (measured on loopback: the
//     push arrives with or before the writer's acknowledgement at the
//     median, and within about 0.1 ms of it at p99; see
//     TestNearCacheInvalidationWins). A push that arrives while a read of
//     the key is in flight concerns an earlier write and keeps the read.
//     This process's own writes (Set, Delete, Invalidate, write-through,
//     scripts) drop its copies of their keys when they return, so it reads
//     its own acknowledged writes at once (TestNearCacheReadYourWrites).
//   - the copy of a connection is dropped as soon as the connection is seen
//     lost (killed, server restarted, network), and entirely on FLUSHALL;
//     until the loss is noticed the copies of a dead server may still be
//     served, as nothing can have been written there;
//   - entries are bounded in count and in estimated bytes
//     (NearOptions.MaxEntries, MaxBytes; second-chance eviction) and in age
//     (NearOptions.TTL, and never past the key's own server TTL).
//
// That is weaker than a server read: a hit costs no round trip, so it
// cannot be ordered after a write acknowledged to another process whose
// push is still on its way. A reader told by another process "I wrote it"
// can still read the old copy for that moment (the history check of
// package cachestore, reading unsynced, saw it in 4 of 18 runs, in up to
// 2 % of a run's reads, standalone and cluster).
//
// [Cache.GetSynced] is the read for callers that need more: it never
// returns a value older than a write acknowledged, to anyone, before it
// was called. On a copy it makes one round trip (a barrier) on the
// connection that tracks the key and serves the copy only if it is still
// there when the barrier's reply arrives: the server writes a write's
// invalidation push into that connection's output before it acknowledges
// the write, so the push precedes the barrier's reply, and valkey-go's
// reader applies pushes in order before it delivers later replies. The
// barrier is a GETRANGE of an empty range sent through valkey-go's
// client-side caching path (five small commands in one round trip:
// CLIENT CACHING YES, MULTI, PTTL, GETRANGE, EXEC), whose reply
// identifies the connection that carried it: a copy of a connection
// replaced after a failure is not vouched for by the new connection, and
// the server answers instead.
// Concurrent synced reads of a key share a barrier not yet sent (never
// one sent before they arrived). A synced hit costs a round trip of a
// few bytes instead of the value; without a near cache GetSynced is Get.
// Package cachestore reads this way unless told otherwise. Proof:
// TestNearCacheSyncedRead, and cachestore's TestHistoryCheckNear.
//
// TestNearCacheInvalidationWins once (in a cluster, under load, in an
// earlier version) reported a concurrent read that began after a write's
// invalidation had arrived and returned a miss (never an older value)
// where the new value was due. Its cause is not established; what is
// known: Get cannot fail open into a miss (a failure is ErrUnavailable,
// and the test fails on errors; the reader's failure counters were 0 in
// every run since, and are logged); a pending read cannot leave a stale
// "not found" copy (a push that arrives while a read is pending was
// written before that read's reply, so it concerns a write the read
// already saw). The test then allowed a miss only within two ops of the
// delivered write, and counted a flush (a lost connection, as seen in a
// cluster's start-up) as a write's invalidation; a read descheduled
// across the next invalidating write, or a late start-up flush taken for
// a write's push, would each explain it. The test now measures the ops
// sent while each read ran, ignores flushes as evidence, and fails on any
// miss no write explains: none in 18 runs (standalone and cluster each,
// 17 of them three or four at a time under the race detector, load
// average up to 13), nor any miss the old rule flagged in 12 runs before.
//
// [Cache.NearStats] counts hits, invalidations, flushes, evictions and
// the barriers of synced reads.
//
// glide has no near cache here. valkey-glide v2.5.3 (read in the module
// cache) offers a client-side cache that is TTL-based; its ServerAssisted
// option turns on CLIENT TRACKING BCAST inside the Rust core, but its own
// documentation says invalidation-based caching is not supported, and the
// Go binding delivers no invalidation to Go code: pubSubCallback drops the
// push kind (PushInvalidate among them) and hands pushes only to a pub/sub
// message handler, which exists only for subscriptions. A hit of glide's
// cache also still crosses cgo. Options.Near with BackendGlide is
// ErrInvalidOptions.
//
// With no endpoint the cache is bypassed: [GetOrLoad] calls the loader
// directly, reads miss, writes do nothing, metrics still count and
// nothing fails: an application runs unchanged without a cache server.
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
// [Cache.Metrics] counts operations, failures by kind, hits and misses,
// with hit rate and mean latency;
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
// [ErrMiss] (the server's nil result), [ErrNotFound] (a cached "not found"), [ErrInvalidKey], [ErrInvalidOptions],
// [ErrUnavailable] (server or connection failure, after retries),
// [ErrCircuitOpen] (wrapped in ErrUnavailable) and [ErrStale]. Loader
// errors pass through unchanged.
//
// # Concurrency
//
// A [Cache] is safe for concurrent use. The glide data race of v2.5.3 is
// avoided by internal/glidex, which initialises glide's global once before
// a client is shared. The valkey-go backend sends the commands of a
// standalone server on one connection (one per node on a cluster), so the
// commands of one caller are processed in the order they were sent, as
// with glide.
package cache
