package cachestore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
)

// Defaults applied by [New] to zero [Options] fields.
const (
	DefaultTTL         = 5 * time.Minute
	DefaultNegativeTTL = 30 * time.Second
)

// ErrInvalidOptions is returned (wrapped) by [New] and [Registry.Declare]
// for unusable options or declarations.
var ErrInvalidOptions = errors.New("cachestore: invalid options")

// Options configures a [Store].
type Options struct {
	// TTL is the lifetime of a cached item or tombstone. It is also the
	// staleness bound when the server cannot be reached during a write
	// (see the package documentation). Zero means DefaultTTL.
	TTL time.Duration
	// NegativeTTL is how long a "not found" read is cached. Zero means
	// DefaultNegativeTTL; NoNegative turns negative caching off.
	NegativeTTL time.Duration
	NoNegative  bool
	// Registry holds the derived caches writes of this store invalidate;
	// nil means none.
	Registry *Registry
	// Codec encodes cached items; nil means the item's own attribute
	// values in a compact binary form (exactly what the table holds,
	// decoded by the entity's generated codec).
	Codec cache.Codec
	// LoadHook, when set, runs after each load from the table and before
	// its result is offered to the cache (tests inject delays with it).
	LoadHook func(ctx context.Context, key entity.Key)
	// NearRelaxed lets reads take the cache's near cache (cache.NearOptions)
	// as it is: a copy held in process is served with no round trip, at
	// the near cache's weaker guarantee (see the package documentation).
	// False, the default, reads with cache.Cache.GetSynced, which keeps
	// this package's guarantee at one round trip per hit. Without a near
	// cache it changes nothing.
	NearRelaxed bool
	// Tracer observes each Get (package otelkit has one for
	// OpenTelemetry). Default none.
	Tracer Tracer
}

// Store is an [entity.Store] with a cache in front. It is safe for
// concurrent use.
type Store[T any, PT interface {
	*T
	entity.Item
}] struct {
	s      *entity.Store[T, PT]
	c      *cache.Cache
	o      Options
	schema *entity.Schema

	flights flights[T]
	memo    *decodeMemo[T] // nil when T is not flat, or with a Codec
	dirtyMu sync.Mutex
	dirty   map[string]struct{}
}

// New returns the cached store of s on c. Keys live in c's namespace as
// ent:<Type>:<PK>:<SK> (segments escaped with cache.Join). It returns
// ErrInvalidOptions (wrapped) for negative durations.
func New[T any, PT interface {
	*T
	entity.Item
}](s *entity.Store[T, PT], c *cache.Cache, optFns ...func(*Options)) (*Store[T, PT], error) {
	var o Options
	for _, f := range optFns {
		f(&o)
	}
	if o.TTL < 0 || o.NegativeTTL < 0 {
		return nil, fmt.Errorf("%w: negative TTL", ErrInvalidOptions)
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.NegativeTTL == 0 {
		o.NegativeTTL = DefaultNegativeTTL
	}
	st := &Store[T, PT]{s: s, c: c, o: o, schema: s.Schema(), dirty: map[string]struct{}{}}
	if o.Codec == nil {
		st.memo = newDecodeMemo[T]()
	}
	return st, nil
}

// Entity returns the underlying store.
func (s *Store[T, PT]) Entity() *entity.Store[T, PT] { return s.s }

// Cache returns the cache.
func (s *Store[T, PT]) Cache() *cache.Cache { return s.c }

// CacheKey returns the cache key (without namespace) of the item with key k.
func (s *Store[T, PT]) CacheKey(k entity.Key) string {
	return cache.Join("ent", s.schema.Type, k.PK, k.SK)
}

// Entry kinds: the first byte of a cached value.
const (
	kindLive      = 'L' // L<ord>|<encoded item>
	kindTombstone = 'T' // T<ord>|   a delete, ordered like a live state
	kindNegative  = 'N' // N|        a load found nothing
)

// readScript: the entry, or the generation mark when there is none.
var readScript = cache.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v} end
return {0, redis.call('GET', KEYS[2]) or ''}`)

// fillScript stores a loaded entry only when no write has happened since
// the load began (same generation mark) and nothing is cached: whatever
// is there came from a write or a load that began later.
// ARGV: gen, value, ttl ms.
var fillScript = cache.NewScript(`
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`)

// writeScript is the cache step of every write, one atomic script: it
// replaces the generation mark (so no load that began before it can fill
// the key) and then stores the written state only when it is certainly
// newer than the cached one, else deletes the entry. ARGV: gen, gen ttl
// ms, op, ord, value, ttl ms. Ops:
//
//	c  versioned create: stored over a tombstone or "not found" (the item
//	   did not exist, so this is a new life of it)
//	u  versioned update or put to version ord: stored over exactly version ord-1
//	d  versioned delete of version ord: the tombstone replaces exactly version ord
//	t  unversioned write or delete ordered by UpdatedAt: stored over a
//	   strictly older state
//	x  no order known: the entry is deleted
//
// An equal live version is kept. Returns 1 stored, 2 deleted, 0 nothing
// was cached, 3 kept.
var writeScript = cache.NewScript(`
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local op, ord = ARGV[3], ARGV[4]
local kind = string.sub(cur, 1, 1)
local bar = string.find(cur, '|', 2, true) or 2
local cord = string.sub(cur, 2, bar - 1)
local store = false
if op == 'c' then
  store = kind ~= 'L'
elseif op == 'u' then
  if kind == 'L' and cord == ord then return 3 end
  store = kind == 'L' and tonumber(cord) == tonumber(ord) - 1
elseif op == 'd' then
  store = kind == 'L' and cord == ord
elseif op == 't' then
  store = kind == 'N' or cord < ord
end
if store then
  redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[6])
  return 1
end
redis.call('DEL', KEYS[1])
return 2`)

// Get returns the item with key k: from the cache, or read through from
// the table (a strongly consistent read) and cached. Concurrent misses of
// one key in this process share one load. "Not found" is cached for
// Options.NegativeTTL and reported with an error matching
// entity.ErrNotFound. When the cache fails, the table answers. Options
// are passed to the table read (ConsistentRead is always set).
func (s *Store[T, PT]) Get(ctx context.Context, k entity.Key, optFns ...func(*entity.CallOptions)) (T, error) {
	if s.o.Tracer != nil {
		return s.traceGet(ctx, k, optFns)
	}
	return s.get(ctx, k, optFns, nil)
}

// get is Get; it reports what answered in *res when res is not nil.
func (s *Store[T, PT]) get(ctx context.Context, k entity.Key, optFns []func(*entity.CallOptions), res *GetResult) (T, error) {
	var zero T
	ck := s.CacheKey(k)
	if !s.c.Enabled() || !s.clean(ctx, ck) {
		if res != nil {
			*res = GetBypass
		}
		return s.load(ctx, k, optFns)
	}
	if v, err := s.cached(ctx, ck); err == nil {
		if t, err, ok := s.decode(v, k); ok {
			if res != nil {
				*res = GetHit
				if err != nil {
					*res = GetNegativeHit
				}
			}
			return t, err
		}
	} else if ctx.Err() != nil {
		return zero, ctx.Err()
	} else if res != nil && !errors.Is(err, cache.ErrMiss) {
		*res = GetFailOpen
	}
	if res != nil && *res == "" {
		*res = GetMiss
	}
	f := s.flights.start(ck, func(seal func()) (T, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.c.LoadTimeout())
		defer cancel()
		return s.fill(lctx, ck, k, optFns, seal)
	})
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// cached reads ck from the cache: synced unless Options.NearRelaxed.
func (s *Store[T, PT]) cached(ctx context.Context, ck string) (string, error) {
	if s.o.NearRelaxed {
		return s.c.Get(ctx, ck)
	}
	return s.c.GetSynced(ctx, ck)
}

func notFound(k entity.Key) error {
	return fmt.Errorf("cachestore: %s/%s: %w", k.PK, k.SK, entity.ErrNotFound)
}

// decode turns a cached entry into a result; ok is false for an entry
// that does not decode (it is then loaded again).
func (s *Store[T, PT]) decode(v string, k entity.Key) (t T, err error, ok bool) {
	if v == "" {
		return t, nil, false
	}
	switch v[0] {
	case kindTombstone, kindNegative:
		return t, notFound(k), true
	case kindLive:
		i := strings.IndexByte(v, '|')
		if i < 0 {
			return t, nil, false
		}
		raw := v[i+1:]
		if s.o.Codec != nil {
			t, ok := s.unmarshal(raw)
			return t, nil, ok
		}
		if s.memo != nil {
			if t, ok := s.memo.get(raw); ok {
				return t, nil, true
			}
		}
		t, ok := s.decodeItem(raw)
		return t, nil, ok
	}
	return t, nil, false
}

// unmarshal decodes an entry with Options.Codec.
func (s *Store[T, PT]) unmarshal(raw string) (T, bool) {
	var t T
	err := s.o.Codec.Unmarshal([]byte(raw), &t)
	return t, err == nil
}

// decodeItem decodes an entry's item. It and unmarshal are apart from
// decode so that only a decoding (which takes the value's address) moves
// the value to the heap, not a memo hit.
func (s *Store[T, PT]) decodeItem(raw string) (T, bool) {
	var t T
	m, err := decodeItem(raw)
	if err != nil || PT(&t).UnmarshalItem(m) != nil {
		return t, false
	}
	if s.memo != nil {
		s.memo.put(raw, t)
	}
	return t, true
}

func (s *Store[T, PT]) load(ctx context.Context, k entity.Key, optFns []func(*entity.CallOptions)) (T, error) {
	v, err := s.s.Get(ctx, k, append(optFns, entity.ConsistentRead)...)
	if s.o.LoadHook != nil {
		s.o.LoadHook(ctx, k)
	}
	return v, err
}

// fill is one shared load: note the generation (or take the entry a
// write or another load stored meanwhile), read the table, and offer the
// result to the cache. It seals the flight before the first of these
// reads: an answer of the cache is as much a state as the table's, and a
// reader that joined after the cache was read could be handed a state
// older than a write acknowledged before it arrived.
func (s *Store[T, PT]) fill(ctx context.Context, ck string, k entity.Key, optFns []func(*entity.CallOptions), seal func()) (T, error) {
	start := time.Now()
	seal()
	res, rerr := s.c.EvalWithGen(ctx, readScript, ck, nil)
	gen, canWrite := "", false
	if arr, ok := res.([]any); rerr == nil && ok && len(arr) == 2 {
		str, _ := arr[1].(string)
		if n, _ := arr[0].(int64); n == 1 {
			if t, err, ok := s.decode(str, k); ok {
				return t, err
			}
		}
		gen, canWrite = str, true
	}
	v, err := s.load(ctx, k, optFns)
	if !canWrite {
		return v, err
	}
	_, gttl := s.c.NewGeneration()
	if time.Since(start) > gttl-time.Second {
		return v, err // the mark may have expired: cannot tell
	}
	var entry string
	var ttl time.Duration
	switch {
	case err == nil:
		item, ord, _, merr := s.encode(&v)
		if merr != nil {
			return v, nil
		}
		entry, ttl = string(kindLive)+ord+"|"+item, s.o.TTL
	case errors.Is(err, entity.ErrNotFound) && !s.o.NoNegative:
		entry, ttl = string(kindNegative)+"|", s.o.NegativeTTL
	default:
		return v, err
	}
	_, _ = s.c.EvalWithGen(ctx, fillScript, ck, []string{gen, entry, cache.Ms(ttl)})
	return v, err
}

// encode returns the cached form of v, its order (version or UpdatedAt)
// and its attributes.
func (s *Store[T, PT]) encode(v *T) (item, ord string, attrs map[string]types.AttributeValue, err error) {
	attrs, err = PT(v).MarshalItem()
	if err != nil {
		return "", "", nil, err
	}
	var b []byte
	if s.o.Codec != nil {
		b, err = s.o.Codec.Marshal(v)
	} else {
		b, err = appendItem(make([]byte, 0, 256), attrs)
	}
	if err != nil {
		return "", "", nil, err
	}
	return string(b), s.ord(attrs), attrs, nil
}

// ord is the order of a state: its version for a versioned entity, else
// its UpdatedAt (fixed-width ISO 8601, so it compares as a string), else "".
func (s *Store[T, PT]) ord(attrs map[string]types.AttributeValue) string {
	attr := s.schema.VersionAttr
	if attr == "" {
		attr = s.schema.UpdatedAttr
	}
	if attr == "" {
		return ""
	}
	switch a := attrs[attr].(type) {
	case *types.AttributeValueMemberN:
		return a.Value
	case *types.AttributeValueMemberS:
		return a.Value
	}
	return ""
}

// clean reports whether the cache may be used for ck: false while an
// earlier write of ck could not reach the server and no invalidation has
// succeeded since.
func (s *Store[T, PT]) clean(ctx context.Context, ck string) bool {
	s.dirtyMu.Lock()
	_, d := s.dirty[ck]
	s.dirtyMu.Unlock()
	if !d {
		return true
	}
	if err := s.c.Invalidate(ctx, ck); err != nil {
		return false
	}
	s.markClean(ck)
	return true
}

func (s *Store[T, PT]) markDirty(ck string) {
	s.dirtyMu.Lock()
	s.dirty[ck] = struct{}{}
	s.dirtyMu.Unlock()
}

func (s *Store[T, PT]) markClean(ck string) {
	s.dirtyMu.Lock()
	delete(s.dirty, ck)
	s.dirtyMu.Unlock()
}

// step is the cache step of a write that succeeded in the table.
func (s *Store[T, PT]) step(ctx context.Context, k entity.Key, op, ord, entry string, derived []string) error {
	if !s.c.Enabled() {
		return nil
	}
	ck := s.CacheKey(k)
	gen, gttl := s.c.NewGeneration()
	if ord == "" && op != "x" {
		op = "x"
	}
	_, err := s.c.EvalWithGen(context.WithoutCancel(ctx), writeScript, ck,
		[]string{gen, cache.Ms(gttl), op, ord, entry, cache.Ms(s.o.TTL)}, derived...)
	if err != nil {
		s.markDirty(ck)
		return fmt.Errorf("%w: %s/%s: the table write succeeded; %w", cache.ErrStale, k.PK, k.SK, err)
	}
	s.markClean(ck)
	return nil
}

func (s *Store[T, PT]) liveStep(ctx context.Context, v *T, op string) error {
	k, err := PT(v).PrimaryKey()
	if err != nil {
		return err
	}
	item, ord, attrs, err := s.encode(v)
	if err != nil {
		// Cannot encode: invalidate rather than cache.
		return s.step(ctx, k, "x", "", "", s.derivedKeys(nil))
	}
	if s.schema.VersionAttr == "" {
		op = "t"
	}
	return s.step(ctx, k, op, ord, string(kindLive)+ord+"|"+item, s.derivedKeys(attrs))
}

// Create is entity.Store.Create followed by the cache step.
// Errors: the table's errors unchanged (the cache is then untouched), or,
// after the table write succeeded, an error matching cache.ErrStale when
// the cache step failed (see the package documentation).
func (s *Store[T, PT]) Create(ctx context.Context, v *T, optFns ...func(*entity.CallOptions)) error {
	if err := s.s.Create(ctx, v, optFns...); err != nil {
		return err
	}
	return s.liveStep(ctx, v, "c")
}

// Put is entity.Store.Put followed by the cache step. Errors as [Store.Create].
func (s *Store[T, PT]) Put(ctx context.Context, v *T, optFns ...func(*entity.CallOptions)) error {
	if err := s.s.Put(ctx, v, optFns...); err != nil {
		return err
	}
	co := callOptions(optFns)
	if co.DryRun != nil {
		return nil
	}
	op := "u"
	if co.Version == 0 {
		op = "c" // a versioned Put without a version creates
	}
	return s.liveStep(ctx, v, op)
}

// Update is entity.Store.Update followed by the cache step. Errors as
// [Store.Create].
func (s *Store[T, PT]) Update(ctx context.Context, k entity.Key, changes entity.Changes[T], optFns ...func(*entity.CallOptions)) (T, error) {
	v, err := s.s.Update(ctx, k, changes, optFns...)
	if err != nil {
		return v, err
	}
	co := callOptions(optFns)
	if co.DryRun != nil {
		return v, nil
	}
	return v, s.liveStep(ctx, &v, "u")
}

// Delete is entity.Store.Delete followed by the cache step, which leaves
// a tombstone in place of the deleted version. When derived caches depend
// on the item's fields, the item is read first (through the cache) to
// find them. Errors as [Store.Create].
func (s *Store[T, PT]) Delete(ctx context.Context, k entity.Key, optFns ...func(*entity.CallOptions)) error {
	var attrs map[string]types.AttributeValue
	if s.needsFields() {
		if old, err := s.Get(ctx, k); err == nil {
			attrs, _ = PT(&old).MarshalItem()
		}
	}
	if err := s.s.Delete(ctx, k, optFns...); err != nil {
		return err
	}
	co := callOptions(optFns)
	if co.DryRun != nil {
		return nil
	}
	derived := s.derivedKeys(attrs)
	switch {
	case s.schema.VersionAttr != "" && co.Version > 0:
		ord := fmt.Sprint(co.Version)
		return s.step(ctx, k, "d", ord, string(kindTombstone)+ord+"|", derived)
	case s.schema.VersionAttr == "" && s.schema.UpdatedAttr != "":
		ord := time.Now().UTC().Format(timeLayout(s.schema))
		return s.step(ctx, k, "t", ord, string(kindTombstone)+ord+"|", derived)
	}
	return s.step(ctx, k, "x", "", "", derived)
}

func timeLayout(sc *entity.Schema) string {
	if sc.TimeLayout != "" {
		return sc.TimeLayout
	}
	return entity.TimeFormat
}

// BatchGet reads the items with a strongly consistent batch read of the
// table (the cache is neither read nor filled).
func (s *Store[T, PT]) BatchGet(ctx context.Context, keys []entity.Key, optFns ...func(*entity.CallOptions)) ([]T, error) {
	return s.s.BatchGet(ctx, keys, append(optFns, entity.ConsistentRead)...)
}

// BatchPut is entity.Store.BatchPut followed by the invalidation of every
// written item and of the derived caches that depend on them, in one
// round trip. Errors as [Store.Create]; on a *entity.BatchError the
// items are invalidated too (some may have been written).
func (s *Store[T, PT]) BatchPut(ctx context.Context, items []T, optFns ...func(*entity.CallOptions)) error {
	err := s.s.BatchPut(ctx, items, optFns...)
	if err != nil && !errors.As(err, new(*entity.BatchError)) {
		return err
	}
	var keys []string
	for i := range items {
		k, kerr := PT(&items[i]).PrimaryKey()
		if kerr != nil {
			continue
		}
		keys = append(keys, s.CacheKey(k))
		attrs, _ := PT(&items[i]).MarshalItem()
		keys = append(keys, s.derivedKeys(attrs)...)
	}
	return errors.Join(err, s.invalidate(ctx, keys))
}

// BatchDelete is entity.Store.BatchDelete followed by the invalidation of
// the items (read first, through the cache, when derived caches depend on
// their fields). Errors as [Store.BatchPut].
func (s *Store[T, PT]) BatchDelete(ctx context.Context, ks []entity.Key) error {
	var keys []string
	for _, k := range ks {
		keys = append(keys, s.CacheKey(k))
		var attrs map[string]types.AttributeValue
		if s.needsFields() {
			if old, err := s.Get(ctx, k); err == nil {
				attrs, _ = PT(&old).MarshalItem()
			}
		}
		// The derived caches that depend on no field are invalidated too.
		keys = append(keys, s.derivedKeys(attrs)...)
	}
	err := s.s.BatchDelete(ctx, ks)
	if err != nil && !errors.As(err, new(*entity.BatchError)) {
		return err
	}
	return errors.Join(err, s.invalidate(ctx, keys))
}

func (s *Store[T, PT]) invalidate(ctx context.Context, keys []string) error {
	if !s.c.Enabled() || len(keys) == 0 {
		return nil
	}
	if err := s.c.Invalidate(context.WithoutCancel(ctx), keys...); err != nil {
		for _, k := range keys {
			if strings.HasPrefix(k, "ent:") {
				s.markDirty(k)
			}
		}
		return fmt.Errorf("%w: the table write succeeded; %w", cache.ErrStale, err)
	}
	for _, k := range keys {
		s.markClean(k)
	}
	return nil
}

// Touched is one item a transaction wrote, for [Exec].
type Touched struct {
	keys []string
	inv  func(ctx context.Context, keys []string) error
}

// Touch names an item a transaction writes: its key, and the value
// written (nil for a delete, or when unknown), whose fields select the
// derived caches to invalidate. For a delete with derived caches on its
// fields, Touch reads the item first (through the cache).
func (s *Store[T, PT]) Touch(ctx context.Context, k entity.Key, v *T) Touched {
	keys := []string{s.CacheKey(k)}
	var attrs map[string]types.AttributeValue
	if v != nil {
		attrs, _ = PT(v).MarshalItem()
	} else if s.needsFields() {
		if old, err := s.Get(ctx, k); err == nil {
			attrs, _ = PT(&old).MarshalItem()
		}
	}
	keys = append(keys, s.derivedKeys(attrs)...)
	return Touched{keys: keys, inv: s.invalidate}
}

// Exec runs the transaction, then invalidates the touched items and the
// derived caches that depend on them. A transaction that fails leaves the
// cache untouched. Errors: tx's errors unchanged, or cache.ErrStale
// (wrapped) after a committed transaction whose invalidation failed.
func Exec(ctx context.Context, tx *entity.Tx, touched ...Touched) error {
	if err := tx.Exec(ctx); err != nil {
		return err
	}
	var errs []error
	for _, t := range touched {
		if t.inv != nil {
			errs = append(errs, t.inv(ctx, t.keys))
		}
	}
	return errors.Join(errs...)
}

// flights is a per-key singleflight of loads that never hands a reader a
// state read before the reader arrived: a flight takes new waiters only
// until it seals, just before it reads the cache and then the table. A
// reader arriving later starts the next flight, which waits for the
// sealed one to end, then looks at the cache again (the sealed flight may
// have filled it) before loading. So at most two loads of a key run per
// process, and each reader's answer was read, from the cache or from the
// table, after the reader arrived.
type flights[T any] struct {
	mu sync.Mutex
	m  map[string]*flight[T]
}

type flight[T any] struct {
	done   chan struct{}
	prev   *flight[T]
	sealed bool
	val    T
	err    error
}

func (g *flights[T]) start(key string, fn func(seal func()) (T, error)) *flight[T] {
	g.mu.Lock()
	cur, ok := g.m[key]
	if ok && !cur.sealed {
		g.mu.Unlock()
		return cur
	}
	if g.m == nil {
		g.m = map[string]*flight[T]{}
	}
	f := &flight[T]{done: make(chan struct{}), prev: cur}
	g.m[key] = f
	g.mu.Unlock()
	seal := func() {
		g.mu.Lock()
		f.sealed = true
		g.mu.Unlock()
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				f.err = fmt.Errorf("cachestore: load panicked: %v", r)
			}
			g.mu.Lock()
			if g.m[key] == f {
				delete(g.m, key)
			}
			g.mu.Unlock()
			f.prev = nil
			close(f.done)
		}()
		if f.prev != nil {
			<-f.prev.done
		}
		f.val, f.err = fn(seal)
	}()
	return f
}

// callOptions applies optFns to a zero entity.CallOptions.
func callOptions(optFns []func(*entity.CallOptions)) entity.CallOptions {
	var co entity.CallOptions
	for _, f := range optFns {
		f(&co)
	}
	return co
}
