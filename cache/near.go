package cache

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valkey-io/valkey-go"
)

// Defaults of [NearOptions].
const (
	DefaultNearMaxEntries = 10_000
	DefaultNearMaxBytes   = 64 << 20
	DefaultNearTTL        = time.Minute
)

// NearOptions configure the near cache: an in-process copy (L1) of the
// strings read by [Cache.Get] and the hit path of [GetOrLoad], kept
// coherent by the server (RESP3 CLIENT TRACKING). Only the valkey-go
// backend has it; see the package documentation for what it guarantees
// and why glide has none.
type NearOptions struct {
	// MaxEntries bounds the number of cached keys. Zero means
	// DefaultNearMaxEntries.
	MaxEntries int
	// MaxBytes bounds the estimated memory of the entries (key, value and
	// bookkeeping). Zero means DefaultNearMaxBytes.
	MaxBytes int64
	// TTL bounds how long an entry is served without asking the server
	// again, invalidations aside; the key's own server TTL bounds it too.
	// Zero means DefaultNearTTL.
	TTL time.Duration
	// OnInvalidate, if set, is called after the near cache dropped keys
	// because the server said they changed (nil keys: everything, after a
	// FLUSHALL or a lost connection). It runs on the connection's reader:
	// keep it fast.
	OnInvalidate func(keys []string)
}

func (n *NearOptions) withDefaults() (NearOptions, error) {
	o := *n
	if o.MaxEntries < 0 || o.MaxBytes < 0 || o.TTL < 0 {
		return o, fmt.Errorf("%w: negative near cache bound", ErrInvalidOptions)
	}
	if o.MaxEntries == 0 {
		o.MaxEntries = DefaultNearMaxEntries
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultNearMaxBytes
	}
	if o.TTL == 0 {
		o.TTL = DefaultNearTTL
	}
	return o, nil
}

// NearStats are the near cache's counters.
type NearStats struct {
	Hits, Misses  int64 // reads answered in process / sent to the server
	Invalidations int64 // keys dropped on the server's word
	Flushes       int64 // whole-cache drops (lost connection, FLUSHALL)
	Evictions     int64 // entries dropped to stay within the bounds
	Entries       int   // entries held now
	Bytes         int64 // their estimated size
	// Barriers counts the round trips of synced reads ([Cache.GetSynced])
	// that found a copy to confirm; BarrierJoins the synced reads that
	// shared a round trip another synced read of the key had not sent yet.
	// A copy served after a barrier counts in Hits.
	Barriers, BarrierJoins int64
}

// NearStats returns the near cache's counters; ok is false when the
// cache has no near cache.
func (c *Cache) NearStats() (s NearStats, ok bool) {
	v, isVG := c.core.conn.(*vgConn)
	if !isVG || v.near == nil {
		return s, false
	}
	return v.near.stats(), true
}

// GetSynced returns what [Cache.Get] returns, ordered after every write
// of key acknowledged before GetSynced was called, by any client in any
// process: it never returns a value older than such a write.
//
// Without a near cache (glide, or valkey-go without Options.Near) it is
// Get: the read goes to the server, which has applied every acknowledged
// write. With one, a copy held in L1 is served only after one round trip
// (a barrier) on the connection whose tracking covers the copy has
// returned: the invalidation push of any write acknowledged before the
// call precedes the barrier's reply on that connection and has dropped
// the copy by then (see the package documentation). So a synced hit
// costs one round trip of a few bytes instead of the value's transfer,
// and no L1 hit is free. Concurrent synced reads of one key in this
// process share a barrier not yet sent; [NearStats] counts barriers and
// the reads that joined one. A miss, or a copy the barrier cannot vouch
// for (a read in flight that began before the call, a connection
// replaced after a failure), is read from the server.
//
// Errors are Get's: ErrMiss, ErrInvalidKey, ErrUnavailable (wrapped; it
// also matches ctx.Err() when ctx ended while the barrier was out).
func (c *Cache) GetSynced(ctx context.Context, key string) (string, error) {
	if c.o.Tracer != nil {
		return c.traceRead(ctx, "GETSYNCED", key, c.getSynced)
	}
	return c.getSynced(ctx, key)
}

func (c *Cache) getSynced(ctx context.Context, key string) (string, error) {
	var v string
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (ok bool, e error) {
		v, ok, e = connGet(ctx, conn, full, true)
		return ok, e
	})
	return v, err
}

// connGet reads full through conn: synced (see [Cache.GetSynced]) when
// synced is set and conn can order its reads, else with conn.Get.
func connGet(ctx context.Context, conn Conn, full string, synced bool) (string, bool, error) {
	if sc, ok := conn.(syncedConn); ok && synced {
		return sc.GetSynced(ctx, full)
	}
	return conn.Get(ctx, full)
}

// syncedConn is a [Conn] whose Get may answer from an in-process copy
// and that can order a read after acknowledged writes (see
// [Cache.GetSynced]).
type syncedConn interface {
	GetSynced(ctx context.Context, key string) (val string, ok bool, err error)
}

var _ syncedConn = (*vgConn)(nil)

// entryOverhead approximates the bookkeeping bytes of one entry.
const entryOverhead = 192

// nearStore is the near cache shared by every connection of one client.
// valkey-go makes one view per connection (NewCacheStoreFn); each entry
// remembers the view, that is the connection, whose tracking covers it,
// so a lost connection drops exactly its entries.
//
// Invalidation wins because of the order of one connection: a read
// executes on the server either before a write (its reply is then
// followed, on the same connection, by the write's invalidation push,
// which deletes the entry) or after it (it reads the new value). A push
// that arrives while a read is still pending therefore concerns an
// earlier write and must not drop the pending entry.
type nearStore struct {
	o NearOptions

	mu    sync.RWMutex
	m     map[string]map[string]*nearEntry // key -> command -> entry
	lru   nearEntry                        // sentinel of the ring of completed entries, oldest first
	count int
	bytes int64
	seq   uint64 // numbers entries in the order they were created

	syncs map[string]*barrier // key -> its newest barrier (forming or in flight)
	calls map[string]*barrier // barrier command -> the barrier awaiting its reply
	token atomic.Int64        // makes each barrier command unique

	hits, misses, invalidations, flushes, evictions atomic.Int64
	barriers, barrierJoins                          atomic.Int64
}

type nearEntry struct {
	key, cmd   string
	owner      *nearView
	val        valkey.ValkeyMessage
	err        error
	xat        int64 // unix ms after which the entry is not served
	size       int64
	seq        uint64 // nearStore.seq at creation
	pending    bool
	ch         chan struct{}
	used       atomic.Bool // second chance for the eviction clock
	prev, next *nearEntry
}

// Wait implements valkey.CacheEntry: it waits for a pending read.
func (e *nearEntry) Wait(ctx context.Context) (valkey.ValkeyMessage, error) {
	select {
	case <-e.ch:
		return e.val, e.err
	case <-ctx.Done():
		return valkey.ValkeyMessage{}, ctx.Err()
	}
}

func newNearStore(o NearOptions) *nearStore {
	s := &nearStore{o: o, m: map[string]map[string]*nearEntry{},
		syncs: map[string]*barrier{}, calls: map[string]*barrier{}}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s
}

func (s *nearStore) newView(valkey.CacheStoreOption) valkey.CacheStore { return &nearView{s: s} }

func (s *nearStore) stats() NearStats {
	s.mu.RLock()
	n, b := s.count, s.bytes
	s.mu.RUnlock()
	return NearStats{Hits: s.hits.Load(), Misses: s.misses.Load(), Invalidations: s.invalidations.Load(),
		Flushes: s.flushes.Load(), Evictions: s.evictions.Load(), Entries: n, Bytes: b,
		Barriers: s.barriers.Load(), BarrierJoins: s.barrierJoins.Load()}
}

func (s *nearStore) get(key, cmd string) *nearEntry { return s.m[key][cmd] }

// remove drops e from the maps and, if completed, from the ring. Call
// with mu held.
func (s *nearStore) remove(e *nearEntry) {
	if cmds := s.m[e.key]; cmds[e.cmd] == e {
		if delete(cmds, e.cmd); len(cmds) == 0 {
			delete(s.m, e.key)
		}
	}
	if !e.pending && e.prev != nil {
		e.prev.next, e.next.prev = e.next, e.prev
		e.prev, e.next = nil, nil
		s.count--
		s.bytes -= e.size
	}
}

// evict keeps the bounds with a second-chance clock. Call with mu held.
func (s *nearStore) evict() {
	for budget := 2*s.count + 1; (s.count > s.o.MaxEntries || s.bytes > s.o.MaxBytes) && budget > 0; budget-- {
		e := s.lru.next
		if e == &s.lru {
			return
		}
		if e.used.Swap(false) && s.count <= 2*s.o.MaxEntries {
			e.prev.next, e.next.prev = e.next, e.prev // move to the back
			e.prev, e.next = s.lru.prev, &s.lru
			s.lru.prev.next = e
			s.lru.prev = e
			continue
		}
		s.remove(e)
		s.evictions.Add(1)
	}
}

// peek returns the live copy of GET key, the hit path of [Conn.Get]: the
// same lookup valkey-go's DoCache makes through Flight, without building
// a command or a context.
func (s *nearStore) peek(key string) (val valkey.ValkeyMessage, ok bool) {
	ms := time.Now().UnixMilli()
	s.mu.RLock()
	if e := s.m[key]["GET"]; e != nil && !e.pending && ms < e.xat {
		e.used.Store(true)
		val, ok = e.val, true
	}
	s.mu.RUnlock()
	if ok {
		s.hits.Add(1)
	}
	return val, ok
}

// peekString is peek for [Cache.Get]'s hit path: key is the namespaced
// key in a caller's buffer (the lookup does not copy it) and ms the
// current time in unix milliseconds. Only a live string copy is a hit,
// counted here; anything else (no copy, a pending read, a cached nil or
// error) is left to the ordinary path, uncounted.
func (s *nearStore) peekString(key []byte, ms int64) (val string, ok bool) {
	s.mu.RLock()
	if e := s.m[string(key)]["GET"]; e != nil && !e.pending && ms < e.xat {
		if v, err := e.val.ToString(); err == nil {
			e.used.Store(true)
			val, ok = v, true
		}
	}
	s.mu.RUnlock()
	if ok {
		s.hits.Add(1)
	}
	return val, ok
}

// nearHit is [Cache.Get]'s hit path on a near cache: what a read through
// Cache.do that the near cache answers does (the same checks, counters
// and latency), without building the namespaced key, so a hit allocates
// nothing. ok is false when the read must take the ordinary path: no near
// cache, no live string copy, a closed cache, a cancelled ctx, an invalid
// key, or a breaker that has seen failures.
func (c *Cache) nearHit(ctx context.Context, key string) (string, bool) {
	co := c.core
	v, isVG := co.conn.(*vgConn)
	if !isVG || v.near == nil || v.closed.Load() || co.breaker.failures.Load() != 0 || ctx.Err() != nil {
		return "", false
	}
	var buf [192]byte
	if len(c.prefix)+len(key) > len(buf) || c.validKey(key) != nil {
		return "", false
	}
	full := append(append(buf[:0], c.prefix...), key...)
	start := time.Now()
	val, ok := v.near.peekString(full, start.UnixMilli())
	if !ok {
		return "", false
	}
	m := &co.metrics
	m.total.Add(1)
	m.latencyNanos.Add(int64(time.Since(start)))
	m.success.Add(1)
	m.hits.Add(1)
	return val, true
}

// forget drops the completed entries of keys this process just wrote (or
// tried to). The server's push for such a write follows the write's reply
// on the reading connection (it is the same connection: one per node), so
// without this a read right after one's own acknowledged write could
// still see the old copy for a moment. A read in flight keeps its entry:
// it executed before the write (its reply comes first and is dropped
// here) or after it (it reads the new value).
func (s *nearStore) forget(keys []string) {
	s.mu.Lock()
	for _, k := range keys {
		for _, e := range s.m[k] {
			if !e.pending {
				s.remove(e)
			}
		}
	}
	s.mu.Unlock()
}

func entrySize(key, cmd string, v *valkey.ValkeyMessage) int64 {
	n := int64(len(key) + len(cmd) + entryOverhead)
	if str, err := v.ToString(); err == nil {
		return n + int64(len(str))
	}
	return n + 64
}

// nearView is the valkey.CacheStore of one connection.
type nearView struct{ s *nearStore }

var _ valkey.CacheStore = (*nearView)(nil)

func (v *nearView) Flight(key, cmd string, ttl time.Duration, now time.Time) (valkey.ValkeyMessage, valkey.CacheEntry) {
	s := v.s
	if isBarrier(cmd) {
		return valkey.ValkeyMessage{}, nil // always sent, never cached
	}
	ms := now.UnixMilli()
	s.mu.RLock()
	if e := s.get(key, cmd); e != nil {
		if e.pending {
			s.mu.RUnlock()
			s.misses.Add(1)
			return valkey.ValkeyMessage{}, e
		}
		if ms < e.xat {
			e.used.Store(true)
			val := e.val
			s.mu.RUnlock()
			s.hits.Add(1)
			return val, nil
		}
	}
	s.mu.RUnlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	s.misses.Add(1)
	if e := s.get(key, cmd); e != nil {
		if e.pending {
			return valkey.ValkeyMessage{}, e
		}
		if ms < e.xat {
			return e.val, nil
		}
		s.remove(e) // expired
	}
	s.seq++
	e := &nearEntry{key: key, cmd: cmd, owner: v, xat: now.Add(ttl).UnixMilli(), seq: s.seq, pending: true, ch: make(chan struct{})}
	cmds := s.m[key]
	if cmds == nil {
		cmds = make(map[string]*nearEntry, 1)
		s.m[key] = cmds
	}
	cmds[cmd] = e
	return valkey.ValkeyMessage{}, nil
}

func (v *nearView) Update(key, cmd string, val valkey.ValkeyMessage) (pxat int64) {
	s := v.s
	s.mu.Lock()
	if isBarrier(cmd) {
		// The reply of a barrier: it came through this connection, after
		// every push this connection received before it.
		if b := s.calls[cmd]; b != nil && b.key == key {
			b.view = v
		}
		s.mu.Unlock()
		return 0
	}
	e := s.get(key, cmd)
	if e == nil || !e.pending || e.owner != v {
		s.mu.Unlock()
		return 0
	}
	pxat = e.xat
	if sp := val.CachePXAT(); sp > 0 && sp < pxat {
		pxat = sp // the server's expiry only shortens ours
	}
	e.val, e.xat, e.pending = val, pxat, false
	e.size = entrySize(key, cmd, &val)
	e.prev, e.next = s.lru.prev, &s.lru
	s.lru.prev.next = e
	s.lru.prev = e
	s.count++
	s.bytes += e.size
	s.evict()
	s.mu.Unlock()
	close(e.ch)
	return pxat
}

func (v *nearView) Cancel(key, cmd string, err error) {
	s := v.s
	s.mu.Lock()
	e := s.get(key, cmd)
	if e == nil || !e.pending || e.owner != v {
		s.mu.Unlock()
		return
	}
	e.err = err
	s.remove(e)
	s.mu.Unlock()
	close(e.ch)
}

// Delete drops the completed entries of keys (all of them for nil keys):
// the server's invalidation push. Pending reads are kept (see nearStore).
func (v *nearView) Delete(keys []valkey.ValkeyMessage) {
	s := v.s
	var names []string
	s.mu.Lock()
	if keys == nil {
		for _, cmds := range s.m {
			for _, e := range cmds {
				if !e.pending {
					s.remove(e)
				}
			}
		}
		s.flushes.Add(1)
	} else {
		names = make([]string, 0, len(keys))
		for i := range keys {
			k, err := keys[i].ToString()
			if err != nil {
				continue
			}
			names = append(names, k)
			for _, e := range s.m[k] {
				if !e.pending {
					s.remove(e)
				}
			}
		}
		s.invalidations.Add(int64(len(names)))
	}
	s.mu.Unlock()
	if f := s.o.OnInvalidate; f != nil {
		f(names)
	}
}

// Close drops every entry of this connection, which lost its tracking,
// and fails its pending reads with err.
func (v *nearView) Close(err error) {
	s := v.s
	var chans []chan struct{}
	s.mu.Lock()
	for _, cmds := range s.m {
		for _, e := range cmds {
			if e.owner != v {
				continue
			}
			if e.pending {
				e.err = err
				chans = append(chans, e.ch)
			}
			s.remove(e)
		}
	}
	s.flushes.Add(1)
	s.mu.Unlock()
	for _, ch := range chans {
		close(ch)
	}
	if f := s.o.OnInvalidate; f != nil {
		f(nil)
	}
}

// Synced reads.
//
// A copy in L1 answers with no round trip, so it cannot be ordered after
// a write acknowledged to another process whose invalidation push is
// still on its way. A synced read orders itself with one round trip, a
// barrier, on the connection whose tracking covers the copy: the server
// writes a write's invalidation push into that connection's output while
// executing the write, before it acknowledges the write to the writer
// (and before it executes any later command), so the reply of a barrier
// sent after the acknowledgement follows the push on that connection;
// valkey-go's reader applies pushes (nearView.Delete) in order before it
// delivers later replies (pipe._backgroundRead). A copy still present
// when the barrier's reply is delivered is therefore not older than any
// write acknowledged before the barrier was sent.
//
// The barrier is GETRANGE key <n> 0 sent through valkey-go's DoCache:
// with n >= 1 the range is empty, so the reply is "" whatever string the
// key holds, and for a missing key (a key of another type is an error, as
// for GET); the unique n makes each barrier a command of its own, and
// DoCache hands its reply to Update of the view of the connection that
// carried it, so the barrier proves which connection it ordered itself
// on (a connection replaced after a failure is not the copy's and does
// not vouch for it). Concurrent synced reads of a key share a barrier
// that has not been sent yet (group commit); a read never joins one sent
// before it arrived.

// barrierPrefix starts the command string valkey-go builds for a
// barrier (command and arguments without the key).
const barrierPrefix = "GETRANGE"

func isBarrier(cmd string) bool {
	return len(cmd) > len(barrierPrefix) && cmd[:len(barrierPrefix)] == barrierPrefix
}

// barrier is one round trip shared by the synced reads of a key that
// arrived before it was sent.
type barrier struct {
	key  string
	n    int64  // GETRANGE key n 0
	cmd  string // the command string valkey-go reports for it
	prev *barrier
	done chan struct{}
	sent bool      // under nearStore.mu: takes no more readers
	view *nearView // under nearStore.mu: the connection that carried the reply
	err  error     // set before done is closed
}

// syncOutcome is what a synced read does after its barrier.
type syncOutcome int

const (
	syncHit    syncOutcome = iota // serve the confirmed copy
	syncRead                      // read through DoCache: any entry there began after the reader
	syncDirect                    // read the server without L1: an entry older than the reader that the barrier does not vouch for
)

// arrive returns the entry number a synced read of key starts from and
// whether L1 holds anything (complete or pending) for key.
func (s *nearStore) arrive(key string) (seq uint64, held bool) {
	s.mu.RLock()
	seq, held = s.seq, s.get(key, "GET") != nil
	s.mu.RUnlock()
	return seq, held
}

// join returns the barrier of key not yet sent, or a new one (lead true:
// the caller must run it).
func (s *nearStore) join(key string) (b *barrier, lead bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.syncs[key]; cur != nil && !cur.sent {
		s.barrierJoins.Add(1)
		return cur, false
	}
	n := s.token.Add(1)
	b = &barrier{key: key, n: n, cmd: barrierPrefix + strconv.FormatInt(n, 10) + "0", prev: s.syncs[key], done: make(chan struct{})}
	s.syncs[key] = b
	return b, true
}

// settle decides what a synced read that arrived at seq does once its
// barrier, whose reply came through view, has returned.
func (s *nearStore) settle(key string, seq uint64, view *nearView) (val valkey.ValkeyMessage, out syncOutcome) {
	ms := time.Now().UnixMilli()
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.get(key, "GET")
	switch {
	case e == nil:
		return val, syncRead
	case !e.pending && view != nil && e.owner == view:
		if ms >= e.xat {
			return val, syncRead // expired: DoCache reads it again
		}
		e.used.Store(true)
		s.hits.Add(1)
		return e.val, syncHit
	case e.seq > seq:
		return val, syncRead // created after the reader arrived
	}
	return val, syncDirect
}

// GetSynced is Get ordered after every write acknowledged before it was
// called, in any process: a copy in L1 is served only after a barrier
// (see above) confirmed it.
func (v *vgConn) GetSynced(ctx context.Context, key string) (string, bool, error) {
	if v.near == nil {
		return v.Get(ctx, key)
	}
	c, err := v.client()
	if err != nil {
		return "", false, err
	}
	s := v.near
	seq, held := s.arrive(key)
	if !held {
		// Whatever L1 holds for key by the time Get looks was created,
		// and its read sent, after this call began.
		return v.Get(ctx, key)
	}
	b, lead := s.join(key)
	if lead {
		go v.runBarrier(c, b)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
	if b.err != nil {
		return "", false, b.err
	}
	val, out := s.settle(key, seq, b.view)
	switch out {
	case syncHit:
		if tracedCaches.Load() > 0 {
			noteRead(ctx, ReadBarrierHit)
		}
		return nilOK(val.ToString())
	case syncRead:
		return v.Get(ctx, key)
	}
	s.misses.Add(1)
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	return nilOK(c.Do(ctx, c.B().Get().Key(key).Build()).ToString())
}

// runBarrier sends b once the barrier before it has returned (readers
// arriving meanwhile join b), on a ctx of its own: each reader waits
// with its own.
func (v *vgConn) runBarrier(c valkey.Client, b *barrier) {
	s := v.near
	if b.prev != nil {
		<-b.prev.done
		b.prev = nil
	}
	s.mu.Lock()
	b.sent = true
	s.calls[b.cmd] = b
	s.mu.Unlock()
	s.barriers.Add(1)
	ctx, cancel := v.ctx(context.Background())
	err := c.DoCache(ctx, c.B().Getrange().Key(b.key).Start(b.n).End(0).Cache(), time.Second).Error()
	cancel()
	s.mu.Lock()
	delete(s.calls, b.cmd)
	if s.syncs[b.key] == b {
		delete(s.syncs, b.key)
	}
	b.err = err
	s.mu.Unlock()
	close(b.done)
}
