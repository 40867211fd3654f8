package cache

import (
	"context"
	"fmt"
	"time"
)

// negativeField marks a cached "not found" hash. It starts with a NUL
// byte, which no application field name does.
const negativeField = "\x00tablekit:not-found"

var hashMissCheckScript = NewScript(`
local h = redis.call('HGETALL', KEYS[1])
if #h > 0 then return {1, h} end
return {0, redis.call('GET', KEYS[2]) or ''}`)

var hashGuardedSetScript = NewScript(`
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

// GetOrLoadHash is [GetOrLoad] for values cached as a hash of string
// fields (a record whose fields are read one by one): the hash at key, or load's fields
// cached for ttl (plus jitter). It shares GetOrLoad's guarantees:
// singleflight per key, a detached load with Options.LoadTimeout, the
// invalidation guard, negative caching, fail-open reads and bypass. The
// returned map is shared between the callers of one load: do not modify
// it. A loader returning no fields is an ErrInvalidOptions error (an
// empty hash cannot be cached). LoadOptions.Codec is not used.
func (c *Cache) GetOrLoadHash(ctx context.Context, key string, ttl time.Duration,
	load func(context.Context) (map[string]string, error), optFns ...func(*LoadOptions)) (map[string]string, error) {
	full, lo, err := c.loadCall("GetOrLoadHash", key, ttl, optFns)
	if err != nil {
		return nil, err
	}
	m := &c.core.metrics
	if c.core.conn == nil {
		return bypassLoad(ctx, m, load)
	}
	var h map[string]string
	gerr := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		h, e = conn.HGetAll(ctx, full)
		return e
	})
	if gerr == nil && len(h) > 0 {
		m.hits.Add(1)
		return hashValue(h, full)
	}
	if gerr != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	m.misses.Add(1)
	return sharedLoad(ctx, c, full, ttl, lo, load, fillHash)
}

func hashValue(h map[string]string, full string) (map[string]string, error) {
	if _, neg := h[negativeField]; neg {
		return nil, fmt.Errorf("cache: %q cached as not found: %w", full, ErrNotFound)
	}
	return h, nil
}

func fillHash(ctx context.Context, c *Cache, full string, ttl time.Duration, lo LoadOptions,
	load func(context.Context) (map[string]string, error)) (any, error) {
	m := &c.core.metrics
	gen, canWrite := "", false
	var res any
	err := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		res, e = conn.Eval(ctx, hashMissCheckScript, []string{full, genKey(full)}, nil)
		return e
	})
	if arr, ok := res.([]any); err == nil && ok && len(arr) == 2 {
		if n, _ := arr[0].(int64); n == 1 {
			flat, _ := arr[1].([]any)
			h := make(map[string]string, len(flat)/2)
			for i := 0; i+1 < len(flat); i += 2 {
				k, _ := flat[i].(string)
				v, _ := flat[i+1].(string)
				h[k] = v
			}
			return hashValue(h, full)
		}
		gen, _ = arr[1].(string)
		canWrite = true
	}
	start := time.Now()
	m.loads.Add(1)
	v, err := load(ctx)
	if err != nil {
		m.loadErrors.Add(1)
		if canWrite && lo.NegativeTTL > 0 && lo.IsNotFound(err) {
			c.guardedHashSet(ctx, full, gen, map[string]string{negativeField: "1"}, c.jitter(lo.NegativeTTL, lo), start)
		}
		return nil, err
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%w: loader of %q returned no fields", ErrInvalidOptions, full)
	}
	if canWrite {
		c.guardedHashSet(ctx, full, gen, v, c.jitter(ttl, lo), start)
	}
	return v, nil
}

func (c *Cache) guardedHashSet(ctx context.Context, full, gen string, fields map[string]string, ttl time.Duration, loadStart time.Time) {
	args := make([]string, 0, 2+2*len(fields))
	args = append(args, gen, ms(ttl))
	for k, v := range fields {
		args = append(args, k, v)
	}
	c.guardedEval(ctx, full, hashGuardedSetScript, args, loadStart)
}
