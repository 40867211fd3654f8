package glidex_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/options"

	"github.com/tablekit/tablekit/internal/glidex"
	"github.com/tablekit/tablekit/internal/testenv"
)

// Regression test for glide v2.5.3's lazy GetOtelInstance global: a fresh
// client used by many goroutines at once must be clean under -race. This
// must stay the first test of the package to create a client.
func TestFirstUseIsRaceFree(t *testing.T) {
	for _, cluster := range []bool{false, true} {
		t.Run(fmt.Sprint("cluster=", cluster), func(t *testing.T) {
			var (
				run   func(ctx context.Context, s options.Script, o options.ScriptOptions) (any, error)
				close func()
				key   = testenv.UniqueName("glidex-race")
			)
			if cluster {
				c, err := glidex.NewCluster(glidex.Options{Addresses: testenv.ValkeyClusterAddrs(t), Cluster: true, DisableTLS: true})
				if err != nil {
					t.Fatal(err)
				}
				run, close = c.InvokeScriptWithOptions, c.Close
			} else {
				c, err := glidex.NewStandalone(glidex.Options{Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true})
				if err != nil {
					t.Fatal(err)
				}
				run, close = c.InvokeScriptWithOptions, c.Close
			}
			defer close()
			s := options.NewScript("return redis.call('INCR', KEYS[1])")
			defer s.Close()
			var wg sync.WaitGroup
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 100; i++ {
						if _, err := run(context.Background(), *s, *options.NewScriptOptions().WithKeys([]string{key})); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			v, err := run(context.Background(), *options.NewScript("local v = redis.call('GET', KEYS[1]); redis.call('DEL', KEYS[1]); return v"),
				*options.NewScriptOptions().WithKeys([]string{key}))
			if err != nil || v != "800" {
				t.Fatalf("counter = %v, %v; want 800", v, err)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	if !(glidex.Options{Addresses: []string{"h:1"}}).UseTLS() {
		t.Fatal("TLS must be on whenever an endpoint is configured")
	}
	if (glidex.Options{Addresses: []string{"h:1"}, DisableTLS: true}).UseTLS() {
		t.Fatal("DisableTLS ignored")
	}
	for _, tc := range []struct {
		addrs []string
		want  error
	}{
		{nil, glidex.ErrNoAddress},
		{[]string{"nohost"}, glidex.ErrBadAddress},
		{[]string{":6379"}, glidex.ErrBadAddress},
		{[]string{"h:0"}, glidex.ErrBadAddress},
		{[]string{"h:port"}, glidex.ErrBadAddress},
	} {
		if _, err := glidex.NewStandalone(glidex.Options{Addresses: tc.addrs}); !errors.Is(err, tc.want) {
			t.Errorf("NewStandalone(%v) = %v, want %v", tc.addrs, err, tc.want)
		}
		if _, err := glidex.NewCluster(glidex.Options{Addresses: tc.addrs}); !errors.Is(err, tc.want) {
			t.Errorf("NewCluster(%v) = %v, want %v", tc.addrs, err, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want glidex.Kind
	}{
		{nil, glidex.OK},
		{glide.NewTimeoutError("t"), glidex.Timeout},
		{fmt.Errorf("w: %w", context.DeadlineExceeded), glidex.Timeout},
		{glide.NewConnectionError("c"), glidex.Connection},
		{glide.NewDisconnectError("d"), glidex.Connection},
		{errors.New("Standalone connect failed - IoError: x"), glidex.Connection},
		{errors.New("Connection in recovery- ClientError"), glidex.Connection},
		{errors.New("CLUSTERDOWN Hash slot not served"), glidex.Connection},
		{glide.NewClosingError("closed"), glidex.Closed},
		{errors.New("WRONGTYPE Operation against a key"), glidex.Server},
	} {
		if got := glidex.Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func ExampleOptions_UseTLS() {
	fmt.Println(glidex.Options{Addresses: []string{"cache.example.com:6379"}}.UseTLS())
	fmt.Println(glidex.Options{Addresses: []string{"127.0.0.1:6379"}, DisableTLS: true}.UseTLS())
	// Output:
	// true
	// false
}
