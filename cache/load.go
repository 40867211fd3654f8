package cache

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Codec turns values into cached bytes and back.
type Codec interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the default [Codec], encoding/json.
type JSON struct{}

// Marshal implements [Codec].
func (JSON) Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal implements [Codec].
func (JSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// negativeMarker is the cached form of "not found". No JSON document
// starts with a NUL byte.
const negativeMarker = "\x00tablekit:not-found"

// LoadOptions tune one [GetOrLoad] or [WriteThrough] call.
type LoadOptions struct {
	// Codec encodes cached values. Nil means [JSON].
	Codec Codec
	// NegativeTTL caches a loader's "not found" for this long. Zero
	// means the cache's Options.NegativeTTL (zero there: off).
	NegativeTTL time.Duration
	// IsNotFound tells a loader's "not found" error from other errors.
	// Nil means errors.Is(err, ErrNotFound).
	IsNotFound func(error) bool
	// NoJitter stores the TTL exactly.
	NoJitter bool
	// Synced reads a hit as [Cache.GetSynced] does: with a near cache, an
	// in-process copy is served only after one round trip confirmed that
	// no write acknowledged before the call had invalidated it. False
	// (the default) serves near-cache hits with no round trip, at the near
	// cache's own guarantee. Without a near cache it changes nothing.
	Synced bool
}

func (c *Cache) loadOptions(optFns []func(*LoadOptions)) LoadOptions {
	lo := LoadOptions{NegativeTTL: c.o.NegativeTTL}
	for _, f := range optFns {
		f(&lo)
	}
	if lo.Codec == nil {
		lo.Codec = JSON{}
	}
	if lo.IsNotFound == nil {
		lo.IsNotFound = func(err error) bool { return errors.Is(err, ErrNotFound) }
	}
	return lo
}

func (c *Cache) jitter(ttl time.Duration, lo LoadOptions) time.Duration {
	if lo.NoJitter || c.o.Jitter == 0 {
		return ttl
	}
	return ttl + time.Duration(rand.Float64()*c.o.Jitter*float64(ttl))
}

// genTTL is how long an invalidation's generation mark lives. It must
// outlast any load that observed the previous generation; loads older
// than genTTL minus a margin never write (see guardedSet).
func (c *Cache) genTTL() time.Duration { return 2*c.o.LoadTimeout + 10*time.Second }

// GetOrLoad returns the value cached at key, or runs load, caches its
// result for ttl (plus jitter) and returns it.
//
// Concurrent callers in one process share one load per key
// (singleflight). The load runs on a context detached from the callers',
// bounded by Options.LoadTimeout; each caller still returns as soon as its
// own ctx ends (with ctx.Err()). The loaded value is shared between the
// callers that waited for it: treat it as read-only.
//
// Invalidation always wins: a value whose load began before an
// [Cache.Invalidate] (or a write-through) of the key is returned to the
// callers already waiting for it but is never written to the cache; the
// next read loads again.
//
// Reads fail open: when the server is down, slow or the breaker is open,
// the loader's result is returned with no error and the failure is
// counted in [Cache.Metrics]. Without an endpoint the loader is called
// directly.
//
// Errors: ErrInvalidKey (wrapped) for a bad key, ErrInvalidOptions for
// ttl <= 0, the loader's error unchanged, ctx.Err() when the caller's ctx
// ends first. With negative caching on, a cached "not found" returns an
// error that matches [ErrNotFound] (entity.ErrNotFound).
func GetOrLoad[T any](ctx context.Context, c *Cache, key string, ttl time.Duration,
	load func(context.Context) (T, error), optFns ...func(*LoadOptions)) (T, error) {
	var zero T
	full, lo, err := c.loadCall("GetOrLoad", key, ttl, optFns)
	if err != nil {
		return zero, err
	}
	m := &c.core.metrics
	if c.core.conn == nil {
		return bypassLoad(ctx, m, load)
	}

	var (
		s  string
		ok bool
	)
	gerr := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		s, ok, e = connGet(ctx, conn, full, lo.Synced)
		return e
	})
	if gerr == nil && ok {
		m.hits.Add(1)
		if v, err, decoded := decode[T](s, lo, full); decoded {
			return v, err
		}
	} else {
		if gerr != nil && ctx.Err() != nil {
			return zero, ctx.Err()
		}
		m.misses.Add(1)
	}
	return sharedLoad(ctx, c, full, ttl, lo, load, fill[T])
}

// filler is the body of one shared load of full: fill or fillHash.
type filler[T any] func(ctx context.Context, c *Cache, full string, ttl time.Duration, lo LoadOptions,
	load func(context.Context) (T, error)) (any, error)

// sharedLoad joins the load of full in flight in this process, or starts
// one that runs fill with a context detached from ctx and bounded by
// Options.LoadTimeout, and waits for its result or for ctx to end.
func sharedLoad[T any](ctx context.Context, c *Cache, full string, ttl time.Duration, lo LoadOptions,
	load func(context.Context) (T, error), fill filler[T]) (T, error) {
	var zero T
	f := c.core.flights.start(full, func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.o.LoadTimeout)
		defer cancel()
		return fill(lctx, c, full, ttl, lo, load)
	})
	select {
	case <-f.done:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	if f.err != nil {
		return zero, f.err
	}
	v, isT := f.val.(T)
	if !isT {
		// Another call shared the key with a different type: load alone.
		return load(ctx)
	}
	return v, nil
}

// loadCall checks the arguments of a load call (GetOrLoad, named op in
// errors): it returns key's full name and the resolved load options.
func (c *Cache) loadCall(op, key string, ttl time.Duration, optFns []func(*LoadOptions)) (string, LoadOptions, error) {
	full, err := c.Key(key)
	if err != nil {
		return "", LoadOptions{}, err
	}
	if ttl <= 0 {
		return "", LoadOptions{}, fmt.Errorf("%w: %s needs a positive ttl", ErrInvalidOptions, op)
	}
	return full, c.loadOptions(optFns), nil
}

// decode turns a cached string into a value. decoded is false when the
// bytes do not decode (a foreign writer): the caller then loads.
func decode[T any](s string, lo LoadOptions, full string) (v T, err error, decoded bool) {
	if s == negativeMarker {
		return v, fmt.Errorf("cache: %q cached as not found: %w", full, ErrNotFound), true
	}
	if err := lo.Codec.Unmarshal([]byte(s), &v); err != nil {
		return v, nil, false
	}
	return v, nil, true
}

var missCheckScript = NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v} end
return {0, redis.call('GET', KEYS[2]) or ''}`)

var guardedSetScript = NewScript(`
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`)

// fill is the body of one shared load: look again (another process or an
// earlier flight may have filled the key), note the key's generation, load,
// and write back only if the generation is unchanged.
func fill[T any](ctx context.Context, c *Cache, full string, ttl time.Duration, lo LoadOptions,
	load func(context.Context) (T, error)) (any, error) {
	m := &c.core.metrics
	gen, canWrite := "", false
	var res any
	err := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		res, e = conn.Eval(ctx, missCheckScript, []string{full, genKey(full)}, nil)
		return e
	})
	if err == nil {
		if arr, ok := res.([]any); ok && len(arr) == 2 {
			s, _ := arr[1].(string)
			if n, _ := arr[0].(int64); n == 1 {
				if v, err, decoded := decode[T](s, lo, full); decoded {
					return v, err
				}
			}
			gen, canWrite = s, true
		}
	}
	start := time.Now()
	m.loads.Add(1)
	v, err := load(ctx)
	if err != nil {
		m.loadErrors.Add(1)
		if canWrite && lo.NegativeTTL > 0 && lo.IsNotFound(err) {
			c.guardedSet(ctx, full, gen, negativeMarker, c.jitter(lo.NegativeTTL, lo), start)
		}
		return nil, err
	}
	if canWrite {
		if b, merr := lo.Codec.Marshal(v); merr == nil {
			c.guardedSet(ctx, full, gen, string(b), c.jitter(ttl, lo), start)
		}
	}
	return v, nil
}

func (c *Cache) guardedSet(ctx context.Context, full, gen, val string, ttl time.Duration, loadStart time.Time) {
	c.guardedEval(ctx, full, guardedSetScript, []string{gen, val, ms(ttl)}, loadStart)
}

// guardedEval runs script, a write of full that checks first that full's
// generation is still args[0], for a load started at loadStart. A write
// the generation stops, or one skipped because the load took so long that
// the generation mark may have expired, counts as a stale skip.
func (c *Cache) guardedEval(ctx context.Context, full string, script *Script, args []string, loadStart time.Time) {
	m := &c.core.metrics
	if time.Since(loadStart) > c.genTTL()-time.Second {
		m.staleSkip.Add(1) // the generation mark may have expired: cannot tell
		return
	}
	var res any
	err := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		res, e = conn.Eval(ctx, script, []string{full, genKey(full)}, args)
		return e
	})
	if n, _ := res.(int64); err == nil && n == 0 {
		m.staleSkip.Add(1)
	}
}

func newGeneration() string {
	var b [12]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Invalidate removes keys from the cache so the next read loads afresh,
// and makes any load of them already in flight (in any process) discard
// its result instead of caching it. All keys go in one pipelined round
// trip; in cluster mode each key's commands are routed to its own slot.
// Loads in flight in this process are forgotten, so callers arriving
// after Invalidate start a new load instead of joining a stale one.
//
// Errors: ErrInvalidKey (wrapped; nothing is sent), ErrUnavailable
// (wrapped) when the server fails or answers an error for any key. In
// bypass mode it does nothing and returns nil.
func (c *Cache) Invalidate(ctx context.Context, keys ...string) error {
	fulls, err := c.keys(keys)
	if err != nil || len(fulls) == 0 {
		return err
	}
	for _, f := range fulls {
		c.core.flights.forget(f)
	}
	if c.core.conn == nil {
		return nil
	}
	_, err = c.pipeline(ctx, "invalidate: ", c.appendInvalidations(make([][]string, 0, 2*len(fulls)), fulls))
	return err
}

// appendInvalidations appends to cmds the commands that invalidate fulls:
// for each, a new generation mark, then the key's deletion (mark first: a
// guarded set that runs between the two fails; one that ran before the
// mark is deleted).
func (c *Cache) appendInvalidations(cmds [][]string, fulls []string) [][]string {
	gttl := ms(c.genTTL())
	for _, f := range fulls {
		cmds = append(cmds, []string{"SET", genKey(f), newGeneration(), "PX", gttl}, []string{"DEL", f})
	}
	return cmds
}

// pipeline sends cmds in one round trip and returns their replies. A
// command answered with an error makes it return ErrUnavailable (wrapped,
// the error prefixed by what) and counts as a server error.
func (c *Cache) pipeline(ctx context.Context, what string, cmds [][]string) ([]any, error) {
	var res []any
	if err := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		res, e = conn.Pipeline(ctx, cmds)
		return e
	}); err != nil {
		return nil, err
	}
	for _, r := range res {
		if e, ok := r.(error); ok {
			c.core.metrics.serverErrors.Add(1)
			return nil, fmt.Errorf("%w: %s%w", ErrUnavailable, what, e)
		}
	}
	return res, nil
}

var writeThroughScript = NewScript(`
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1`)

var writeThroughHashScript = NewScript(`
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// WriteThrough writes v to the store of record with store, then caches it
// at key for ttl (plus jitter). The cache write also retires any load of
// key in flight, like [Cache.Invalidate]. If the cache write fails the key
// is invalidated instead.
//
// Errors: ErrInvalidKey/ErrInvalidOptions before anything is written;
// store's error unchanged (the cache is then untouched); ErrStale
// (wrapped) when the store succeeded but neither the cache write nor the
// invalidation did. Other cache failures are only counted.
func WriteThrough[T any](ctx context.Context, c *Cache, key string, ttl time.Duration, v T,
	store func(context.Context) error, optFns ...func(*LoadOptions)) error {
	full, err := c.Key(key)
	if err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("%w: WriteThrough needs a positive ttl", ErrInvalidOptions)
	}
	lo := c.loadOptions(optFns)
	b, err := lo.Codec.Marshal(v)
	if err != nil {
		return fmt.Errorf("cache: encode %q: %w", full, err)
	}
	if err := store(ctx); err != nil {
		return err
	}
	return c.afterStore(ctx, key, full, writeThroughScript,
		[]string{newGeneration(), ms(c.genTTL()), string(b), ms(c.jitter(ttl, lo))})
}

// WriteThroughHash is [WriteThrough] for a hash: after store succeeds the
// hash at key is replaced by fields, with ttl exactly (no jitter: for
// entries whose TTL is part of their contract, such as a job's state).
func (c *Cache) WriteThroughHash(ctx context.Context, key string, fields map[string]string, ttl time.Duration,
	store func(context.Context) error) error {
	full, err := c.Key(key)
	if err != nil {
		return err
	}
	if ttl <= 0 || len(fields) == 0 {
		return fmt.Errorf("%w: WriteThroughHash needs a positive ttl and fields", ErrInvalidOptions)
	}
	if err := store(ctx); err != nil {
		return err
	}
	args := make([]string, 0, 3+2*len(fields))
	args = append(args, newGeneration(), ms(c.genTTL()), ms(ttl))
	for f, v := range fields {
		args = append(args, f, v)
	}
	return c.afterStore(ctx, key, full, writeThroughHashScript, args)
}

func (c *Cache) afterStore(ctx context.Context, key, full string, s *Script, args []string) error {
	c.core.flights.forget(full)
	if c.core.conn == nil {
		return nil
	}
	err := c.do(ctx, func(ctx context.Context, conn Conn) error {
		_, e := conn.Eval(ctx, s, []string{full, genKey(full)}, args)
		return e
	})
	if err == nil {
		return nil
	}
	if ierr := c.Invalidate(context.WithoutCancel(ctx), key); ierr != nil {
		return fmt.Errorf("%w: %q: write: %w; invalidate: %w", ErrStale, full, err, ierr)
	}
	return nil
}

// flightGroup runs one function per key at a time and lets every caller
// wait for its result.
type flightGroup struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	done chan struct{}
	val  any
	err  error
}

func (g *flightGroup) start(key string, fn func() (any, error)) *flight {
	g.mu.Lock()
	if f, ok := g.m[key]; ok {
		g.mu.Unlock()
		return f
	}
	if g.m == nil {
		g.m = make(map[string]*flight)
	}
	f := &flight{done: make(chan struct{})}
	g.m[key] = f
	g.mu.Unlock()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				f.val, f.err = nil, fmt.Errorf("cache: loader panicked: %v", r)
			}
			g.mu.Lock()
			if g.m[key] == f {
				delete(g.m, key)
			}
			g.mu.Unlock()
			close(f.done)
		}()
		f.val, f.err = fn()
	}()
	return f
}

func (g *flightGroup) forget(key string) {
	g.mu.Lock()
	delete(g.m, key)
	g.mu.Unlock()
}

// bypassLoad is a load of a cache without a server: it counts a bypassed
// miss and a load, and calls load directly.
func bypassLoad[T any](ctx context.Context, m *metrics, load func(context.Context) (T, error)) (T, error) {
	m.total.Add(1)
	m.success.Add(1)
	m.misses.Add(1)
	m.bypassed.Add(1)
	m.loads.Add(1)
	v, err := load(ctx)
	if err != nil {
		m.loadErrors.Add(1)
	}
	return v, err
}
