// Package cachestore puts a cache (package cache, on Valkey) in front of
// an entity store (package entity), as one runtime: reads go through the
// cache, every write keeps it right, and query results cached beside the
// items are invalidated by the writes they depend on. It depends on both
// packages, which do not depend on each other.
//
// # Reads
//
// [Store.Get] returns the cached item, or reads it from the table with a
// strongly consistent read and caches it (Options.TTL). Misses of one key
// in a process share one load; "not found" is cached too
// (Options.NegativeTTL), as an error matching entity.ErrNotFound. When the
// cache fails, the table answers (reads fail open). [Store.BatchGet]
// reads the table.
//
// A hit decodes the cached bytes with the entity's generated codec. For an
// entity type whose copies share nothing mutable (no pointer, slice, map
// or interface field; time.Time is allowed), the store also remembers the
// last values it decoded by their exact bytes (256 slots, values up to
// 8 KiB): a hit that returns the same bytes again returns a copy of the
// same value without decoding. The bytes are compared whole, so what a
// read returns is always the decoding of what the server sent.
//
// # Writes
//
// Create, Put, Update and Delete write the table first, then run one Lua
// script on the item's key (the cache step), in the same round trip as the
// invalidation of the derived results the write touches:
//
//   - the item's generation mark is replaced, so no load that began before
//     the step (in any process) can fill the key afterwards;
//   - the written state is stored only when it is certainly newer than the
//     cached one, compared in the script: for a versioned entity the cached
//     entry must be exactly the previous version (an equal version is
//     kept); a create replaces only a tombstone or a cached "not found"; for
//     an unversioned entity the UpdatedAt values are compared (strictly
//     newer wins). In every other case the entry is deleted;
//   - a delete leaves a tombstone in place of the version it deleted.
//
// A load stores its result only when the generation mark is the one it saw
// before reading the table and the key holds nothing. Readers share a
// load only if they arrived before it read the cache entry. BatchPut,
// BatchDelete and transactions ([Exec] with [Store.Touch]) invalidate the
// items they wrote.
//
// # The guarantee
//
// After a write through a cached store returns nil, no reader in any
// process gets an older state of the item from the cache, nor from a
// load it waits for.
//
// Why: the write's step replaced the generation mark before returning, so
// every value stored afterwards comes from a load that read the table
// after the write committed, or from a later write's step, which stores
// only a state ordered after the cached one. A load shared by several
// readers takes no new readers once it has begun reading the cache entry
// (and then the table).
//
// On a cache with a near cache (cache.NearOptions, valkey-go), reads use
// cache.Cache.GetSynced, so the guarantee holds unchanged: a copy held in
// process is served only after one round trip confirmed that no write
// acknowledged before the read had invalidated it (TestHistoryCheckNear:
// two stores on valkey-go with near caches, standalone and cluster). A
// hit then costs that round trip, of a few bytes, instead of the
// item's transfer. Options.NearRelaxed serves the copy with no round
// trip, at the near cache's own guarantee: a read that begins after a
// write was acknowledged and its invalidation reached this process
// (typically with the acknowledgement, within about 0.1 ms of it at p99
// on loopback) returns no older state, and this process sees its own
// writes through the same cache at once; but a reader told by another
// process of an acknowledged write may still get the state before it
// for that moment (the history check in relaxed mode saw such reads in 4
// of 18 runs, in up to 2 % of a run's reads, standalone and cluster).
// Derived results ([GetDerived], through cache.GetOrLoad) are read the
// same way: synced by default, with no round trip when their
// [Derived].NearRelaxed is set.
//
// Its limits: versions order the states of one life of an item. A delete
// whose cache step is delayed until after the item was created again and
// reached the very version deleted would store its tombstone over the new
// life. For unversioned entities the order is UpdatedAt, stamped by the
// writer's clock: writers whose clocks disagree by more than the time
// between their writes can store an older state; use versioned entities
// where this matters.
//
// # When Valkey cannot be reached
//
// If the cache step fails (server down, timeout, breaker open), the table
// write has happened and stays; the call returns an error matching
// cache.ErrStale, so it is not a "returned nil" write and the guarantee
// does not cover it. The staleness is bounded:
//
//   - in the writing process the key is marked dirty: its reads bypass the
//     cache until an invalidation of the key succeeds (tried on each read);
//   - in other processes an older cached state can be served until the
//     first of: the entry's TTL ends (Options.TTL, default 5 minutes, set
//     on every entry by the same script that writes it, so this bound
//     holds whatever happens), a later write of the item through a cached
//     store succeeds, or the writing process reads the item again;
//   - a Valkey that restarts without persistence comes back empty, which
//     is always safe.
//
// # Writes that bypass the cache
//
// The guarantee above covers writes made through a cached store. Another
// service, a console edit or a backfill writes the table behind the
// cache's back; the table's change feed covers them. An [Invalidator]
// fed by a consumer of the table's stream (package feed; each record's
// Keys, Old and New as an [Image]) invalidates, for every record, the
// item's entry and the derived results of its old and new images, as
// cache.Cache.Invalidate does (a new generation mark, then the entry
// deleted), and returns an error when the server cannot be reached, so
// that the feed delivers the record again:
//
//	inv := cachestore.NewInvalidator(c, tbl, registry)
//	handle := func(ctx context.Context, b feed.Batch) error {
//		ims := make([]cachestore.Image, len(b.Records))
//		for i, r := range b.Records {
//			ims[i] = cachestore.Image{Keys: r.Keys, Old: r.Old, New: r.New}
//		}
//		return inv.Invalidate(ctx, ims...)
//	}
//
// The guarantee: after a write acknowledged to any writer, once the feed
// has delivered its record (the handler returned nil), a cached read that
// begins afterwards returns that state or a newer one, in any process;
// until then it may return an older state, for as long as the feed lags
// (feed.ShardMetrics shows the lag; the entry's TTL bounds it whatever
// happens). A cached entry never goes back to an older state than one it
// held. Why: the invalidation replaced the generation mark, so every
// value stored afterwards comes from a load that read the table (strongly
// consistent) after the record's write committed. The invalidator must
// not skip a record: give the consumer a DeadLetter that returns the
// error, so that a record whose invalidation keeps failing holds its
// shard until Valkey answers. The proof is package feed's
// TestCacheHistory: one writer writes the table directly, two cached
// stores serve 8 readers, Redis is killed and restarted mid-run; 0 reads
// stale once the feed had delivered, 0 entries that went back.
//
// # Derived caches
//
// A [Derived] declaration names a cached query result, the Types whose
// writes invalidate it and the attribute names its key is built from; a
// [Registry] shared by the cached stores applies them: a write of an item
// of a listed Type invalidates the result computed from that item's
// attributes, in the same round trip as its cache step, for every process
// (the invalidation replaces the result's generation mark on the server).
// [GetDerived] reads a result through.
//
// Items are cached as their attribute values (what the generated codec
// writes and the table holds) in a compact binary form, unless
// Options.Codec says otherwise.
//
// Keys live in the cache's namespace: items at ent:<Type>:<PK>:<SK>,
// derived results at <Name>:<field values...>, every segment escaped with
// cache.Join.
package cachestore
