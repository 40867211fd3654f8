package cache

import (
	"context"
	"fmt"
	"time"
)

// NoExpiry is returned by [Cache.TTL] for a key without an expiry.
const NoExpiry time.Duration = -1

// Each typed operation below validates key (ErrInvalidKey), prefixes the
// namespace, and reports server failures wrapped in ErrUnavailable. In
// bypass mode (no endpoint) reads return ErrMiss and writes succeed
// without effect.

func (c *Cache) read(ctx context.Context, key string, op func(ctx context.Context, conn Conn, full string) (bool, error)) error {
	full, err := c.Key(key)
	if err != nil {
		return err
	}
	if c.core.conn == nil {
		c.core.metrics.misses.Add(1)
		return ErrMiss
	}
	var found bool
	if err := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		found, e = op(ctx, conn, full)
		return e
	}); err != nil {
		return err
	}
	if !found {
		c.core.metrics.misses.Add(1)
		return ErrMiss
	}
	c.core.metrics.hits.Add(1)
	return nil
}

func (c *Cache) write(ctx context.Context, key string, op func(ctx context.Context, conn Conn, full string) error) error {
	full, err := c.Key(key)
	if err != nil {
		return err
	}
	if c.core.conn == nil {
		return nil
	}
	return c.do(ctx, func(ctx context.Context, conn Conn) error { return op(ctx, conn, full) })
}

// Get returns the string at key, or ErrMiss.
func (c *Cache) Get(ctx context.Context, key string) (string, error) {
	if c.o.Tracer != nil {
		return c.traceRead(ctx, "GET", key, c.get)
	}
	return c.get(ctx, key)
}

func (c *Cache) get(ctx context.Context, key string) (string, error) {
	if v, ok := c.nearHit(ctx, key); ok {
		if c.o.Tracer != nil {
			noteRead(ctx, ReadNearHit)
		}
		return v, nil
	}
	var v string
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (ok bool, e error) {
		v, ok, e = conn.Get(ctx, full)
		return ok, e
	})
	return v, err
}

// Set stores value at key; ttl <= 0 means no expiry.
func (c *Cache) Set(ctx context.Context, key, value string, ttl time.Duration) error {
	return c.write(ctx, key, func(ctx context.Context, conn Conn, full string) error {
		return conn.Set(ctx, full, value, ttl)
	})
}

// HGetAll returns every field of the hash at key, or ErrMiss when the
// hash does not exist.
func (c *Cache) HGetAll(ctx context.Context, key string) (map[string]string, error) {
	var m map[string]string
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (bool, error) {
		var e error
		m, e = conn.HGetAll(ctx, full)
		return len(m) > 0, e
	})
	return m, err
}

var hsetAllScript = NewScript(`
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1`)

// HSetAll sets the fields of the hash at key (others are kept) and, if
// ttl > 0, its expiry, atomically. An empty fields map is ErrInvalidOptions.
func (c *Cache) HSetAll(ctx context.Context, key string, fields map[string]string, ttl time.Duration) error {
	if len(fields) == 0 {
		return fmt.Errorf("%w: HSetAll without fields", ErrInvalidOptions)
	}
	args := make([]string, 0, 1+2*len(fields))
	args = append(args, ms(ttl))
	for f, v := range fields {
		args = append(args, f, v)
	}
	return c.write(ctx, key, func(ctx context.Context, conn Conn, full string) error {
		_, err := conn.Eval(ctx, hsetAllScript, []string{full}, args)
		return err
	})
}

// HGet returns one field of the hash at key, or ErrMiss.
func (c *Cache) HGet(ctx context.Context, key, field string) (string, error) {
	var v string
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (ok bool, e error) {
		v, ok, e = conn.HGet(ctx, full, field)
		return ok, e
	})
	return v, err
}

// HSet sets one field of the hash at key.
func (c *Cache) HSet(ctx context.Context, key, field, value string) error {
	return c.write(ctx, key, func(ctx context.Context, conn Conn, full string) error {
		return conn.HSet(ctx, full, map[string]string{field: value})
	})
}

// ZAdd adds member with score to the sorted set at key (updating the
// score of an existing member).
func (c *Cache) ZAdd(ctx context.Context, key, member string, score float64) error {
	return c.write(ctx, key, func(ctx context.Context, conn Conn, full string) error {
		return conn.ZAdd(ctx, full, map[string]float64{member: score})
	})
}

// ZScore returns the score of member, or ErrMiss.
func (c *Cache) ZScore(ctx context.Context, key, member string) (float64, error) {
	var v float64
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (ok bool, e error) {
		v, ok, e = conn.ZScore(ctx, full, member)
		return ok, e
	})
	return v, err
}

// ZRangeByRank returns the members ranked start..stop (inclusive, 0-based,
// negative from the end), lowest score first, or highest first if
// reverse. A missing key gives an empty slice, not ErrMiss.
func (c *Cache) ZRangeByRank(ctx context.Context, key string, start, stop int64, reverse bool) ([]Member, error) {
	var v []Member
	err := c.write(ctx, key, func(ctx context.Context, conn Conn, full string) (e error) {
		v, e = conn.ZRangeByRank(ctx, full, start, stop, reverse)
		return e
	})
	return v, err
}

// ZRangeByScore returns the members with min <= score <= max, ascending,
// or descending if reverse. A missing key gives an empty slice.
func (c *Cache) ZRangeByScore(ctx context.Context, key string, min, max float64, reverse bool) ([]Member, error) {
	var v []Member
	err := c.write(ctx, key, func(ctx context.Context, conn Conn, full string) (e error) {
		v, e = conn.ZRangeByScore(ctx, full, min, max, reverse)
		return e
	})
	return v, err
}

// ZRank returns the 0-based rank of member (lowest score first, or
// highest first if reverse), or ErrMiss.
func (c *Cache) ZRank(ctx context.Context, key, member string, reverse bool) (int64, error) {
	var v int64
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (ok bool, e error) {
		v, ok, e = conn.ZRank(ctx, full, member, reverse)
		return ok, e
	})
	return v, err
}

// ZRem removes members from the sorted set at key and returns how many
// were there.
func (c *Cache) ZRem(ctx context.Context, key string, members ...string) (int64, error) {
	var n int64
	err := c.write(ctx, key, func(ctx context.Context, conn Conn, full string) (e error) {
		n, e = conn.ZRem(ctx, full, members)
		return e
	})
	return n, err
}

// SAdd adds members to the set at key and returns how many were new.
func (c *Cache) SAdd(ctx context.Context, key string, members ...string) (int64, error) {
	var n int64
	err := c.write(ctx, key, func(ctx context.Context, conn Conn, full string) (e error) {
		n, e = conn.SAdd(ctx, full, members)
		return e
	})
	return n, err
}

// SRem removes members from the set at key and returns how many were there.
func (c *Cache) SRem(ctx context.Context, key string, members ...string) (int64, error) {
	var n int64
	err := c.write(ctx, key, func(ctx context.Context, conn Conn, full string) (e error) {
		n, e = conn.SRem(ctx, full, members)
		return e
	})
	return n, err
}

// SMembers returns the members of the set at key, in no order, or ErrMiss
// when the set does not exist.
func (c *Cache) SMembers(ctx context.Context, key string) ([]string, error) {
	var v []string
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (bool, error) {
		var e error
		v, e = conn.SMembers(ctx, full)
		return len(v) > 0, e
	})
	return v, err
}

// SIsMember reports whether member is in the set at key.
func (c *Cache) SIsMember(ctx context.Context, key, member string) (bool, error) {
	var v bool
	err := c.write(ctx, key, func(ctx context.Context, conn Conn, full string) (e error) {
		v, e = conn.SIsMember(ctx, full, member)
		return e
	})
	return v, err
}

// Delete removes keys and returns how many existed. In cluster mode the
// keys may live in different slots: glide splits the DEL per slot.
func (c *Cache) Delete(ctx context.Context, keys ...string) (int64, error) {
	fulls, err := c.keys(keys)
	if err != nil || c.core.conn == nil || len(fulls) == 0 {
		return 0, err
	}
	var n int64
	err = c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		n, e = conn.Del(ctx, fulls)
		return e
	})
	return n, err
}

// Expire sets the TTL of key, or returns ErrMiss if it does not exist.
// ttl must be positive (ErrInvalidOptions).
func (c *Cache) Expire(ctx context.Context, key string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("%w: Expire needs a positive ttl", ErrInvalidOptions)
	}
	return c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (bool, error) {
		return conn.PExpire(ctx, full, ttl)
	})
}

// TTL returns the remaining time to live of key, [NoExpiry] for a key
// without one, or ErrMiss.
func (c *Cache) TTL(ctx context.Context, key string) (time.Duration, error) {
	var ttl time.Duration
	err := c.read(ctx, key, func(ctx context.Context, conn Conn, full string) (bool, error) {
		n, e := conn.PTTL(ctx, full)
		switch {
		case e != nil || n == -2:
			return false, e
		case n == -1:
			ttl = NoExpiry
		default:
			ttl = time.Duration(n) * time.Millisecond
		}
		return true, nil
	})
	return ttl, err
}

// Eval runs script with keys (namespaced and validated like every key)
// and args. In cluster mode all keys must share a slot: give them one
// hash tag. It is the building block of packages such as cache/session.
func (c *Cache) Eval(ctx context.Context, script *Script, keys []string, args ...string) (any, error) {
	fulls, err := c.keys(keys)
	if err != nil {
		return nil, err
	}
	if c.core.conn == nil {
		return nil, fmt.Errorf("%w: no endpoint configured", ErrUnavailable)
	}
	var v any
	err = c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
		v, e = conn.Eval(ctx, script, fulls, args)
		return e
	})
	return v, err
}

func (c *Cache) keys(keys []string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		f, err := c.Key(k)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

func ms(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	n := d.Milliseconds()
	if n == 0 {
		n = 1
	}
	return fmt.Sprint(n)
}
