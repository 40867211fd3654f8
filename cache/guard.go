package cache

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// The methods below are the building blocks of stores layered on the
// cache (package cachestore): they run a script on a key together with
// the key's generation mark, the same mark [Cache.Invalidate] replaces and
// [GetOrLoad] checks, so such a store keeps "invalidation always wins".

// NewGeneration returns a fresh generation value and how long a
// generation mark must live (it must outlast any load in flight).
func (c *Cache) NewGeneration() (gen string, ttl time.Duration) {
	return newGeneration(), c.genTTL()
}

// LoadTimeout returns Options.LoadTimeout as resolved by New.
func (c *Cache) LoadTimeout() time.Duration { return c.o.LoadTimeout }

// EvalWithGen runs script with KEYS[1] = key (namespaced and validated
// like every key) and KEYS[2] = its generation mark, and args. In cluster
// mode both keys share a slot. When invalidate is not empty, those keys
// are invalidated as by [Cache.Invalidate] in the same round trip (one
// pipeline: the script and the invalidations are not one atomic step, but
// all have been applied when EvalWithGen returns nil). In-process loads of
// key and of the invalidated keys are forgotten first.
//
// Errors: ErrInvalidKey (nothing is sent), ErrUnavailable (wrapped) when
// the server fails or answers an error for any command, or when the cache
// has no endpoint.
func (c *Cache) EvalWithGen(ctx context.Context, script *Script, key string, args []string, invalidate ...string) (any, error) {
	full, err := c.Key(key)
	if err != nil {
		return nil, err
	}
	inv, err := c.keys(invalidate)
	if err != nil {
		return nil, err
	}
	c.core.flights.forget(full)
	for _, f := range inv {
		c.core.flights.forget(f)
	}
	if c.core.conn == nil {
		return nil, fmt.Errorf("%w: no endpoint configured", ErrUnavailable)
	}
	keys := []string{full, genKey(full)}
	if len(inv) == 0 {
		var v any
		err := c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
			v, e = conn.Eval(ctx, script, keys, args)
			return e
		})
		return v, err
	}
	cmds := make([][]string, 0, 1+2*len(inv))
	ev := append([]string{"EVAL", script.Source(), "2"}, keys...)
	cmds = append(cmds, append(ev, args...))
	res, err := c.pipeline(ctx, "", c.appendInvalidations(cmds, inv))
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%w: empty pipeline reply", ErrUnavailable)
	}
	return res[0], nil
}

// Ms formats d as whole milliseconds (at least 1) for script arguments.
func Ms(d time.Duration) string {
	if d <= 0 {
		return "1"
	}
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}
