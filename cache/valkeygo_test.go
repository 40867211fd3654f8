package cache_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
)

// Scripts run with EVALSHA and fall back to EVAL when the server does not
// know them (first use, SCRIPT FLUSH, a restart), on every backend.
func TestScriptNoScriptFallback(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		ctx := context.Background()
		s := cache.NewScript("-- " + testenv.UniqueName("fresh") + "\nreturn {ARGV[1], redis.call('EXISTS', KEYS[1])}")
		if len(s.SHA()) != 40 {
			t.Fatalf("SHA %q", s.SHA())
		}
		for round := 0; round < 3; round++ {
			got, err := c.Eval(ctx, s, []string{"script:k"}, "hello")
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			arr, ok := got.([]any)
			if !ok || len(arr) != 2 || arr[0] != "hello" || arr[1] != int64(0) {
				t.Fatalf("round %d: reply %#v", round, got)
			}
			if round == 1 {
				addrs := append([]string{testenv.ValkeyAddr(t)}, testenv.ValkeyClusterAddrs(t)...)
				for _, a := range addrs {
					if out := testenv.Inline(a, "SCRIPT FLUSH"); !strings.HasPrefix(out, "+OK") {
						t.Fatalf("SCRIPT FLUSH on %s: %q", a, out)
					}
				}
			}
		}
		// A script error is a server error, not a connection failure.
		bad := cache.NewScript("return redis.call('NOSUCHCOMMAND')")
		if _, err := c.Eval(ctx, bad, []string{"script:k"}); !errors.Is(err, cache.ErrUnavailable) {
			t.Fatalf("bad script: %v", err)
		}
		if c.BreakerOpen() {
			t.Fatal("a script error opened the breaker")
		}
	})
}

// On a cluster, keys of several slots are refused (glide: by the server,
// CROSSSLOT; valkey-go: by the Conn before sending, as valkey-go would
// panic), with ErrUnavailable and no effect on the breaker. A standalone
// server has no slots and runs the script.
func TestEvalCrossSlot(t *testing.T) {
	eachMode(t, func(t *testing.T, c *cache.Cache) {
		s := cache.NewScript("return 1")
		for i := 0; i < 10; i++ {
			_, err := c.Eval(context.Background(), s, []string{"a:1", "b:2"})
			if c.Cluster() && !errors.Is(err, cache.ErrUnavailable) || !c.Cluster() && err != nil {
				t.Fatalf("cross-slot Eval (cluster %v): %v", c.Cluster(), err)
			}
		}
		if c.BreakerOpen() {
			t.Fatal("cross-slot errors opened the breaker")
		}
	})
}
