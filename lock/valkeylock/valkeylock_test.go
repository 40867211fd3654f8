package valkeylock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// TestOtelRaceRegression guards the GetOtelInstance data race of glide
// v2.5.3: a fresh client used by many goroutines at once right after New.
// It must be the first test of this package to use glide, and it is only
// meaningful under -race.
func TestOtelRaceRegression(t *testing.T) {
	h, p := testenv.HostPort(t, testenv.ValkeyAddr(t))
	c, err := glide.NewClient(config.NewClientConfiguration().WithAddress(&config.NodeAddress{Host: h, Port: p}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := valkeylock.New(cache.NewGlideConn(c), func(o *valkeylock.Options) { o.Prefix = "tablekit:" + testenv.UniqueName("race") })
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New(b)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if _, err := lk.IsLocked(ctx, "k"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestKeys(t *testing.T) {
	c := cache.NewGlideConn(nil) // key computation makes no call
	for _, tc := range []struct {
		prefix, key, lockKey, fenceKey string
	}{
		{"finance_app:test", "scheduler:outbox_events", "finance_app:test:lock:scheduler:outbox_events", "{finance_app:test:lock:scheduler:outbox_events}:fence"},
		{"", "scheduler:create_table", "lock:scheduler:create_table", "{lock:scheduler:create_table}:fence"},
		{"app:prod", "{user:1}:job", "app:prod:lock:{user:1}:job", "app:prod:lock:{user:1}:job:fence"},
	} {
		b, err := valkeylock.New(c, func(o *valkeylock.Options) { o.Prefix = tc.prefix })
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Key(tc.key); got != tc.lockKey {
			t.Errorf("Key(%q) = %q, want %q", tc.key, got, tc.lockKey)
		}
		got, err := b.FenceKey(tc.key)
		if err != nil || got != tc.fenceKey {
			t.Errorf("FenceKey(%q) = %q, %v; want %q", tc.key, got, err, tc.fenceKey)
		}
	}
}

func TestBadInput(t *testing.T) {
	c := cache.NewGlideConn(nil)
	for _, prefix := range []string{":app", "app:", "app::prod", ":"} {
		if _, err := valkeylock.New(c, func(o *valkeylock.Options) { o.Prefix = prefix }); !errors.Is(err, lock.ErrInvalidOptions) {
			t.Errorf("prefix %q: err = %v", prefix, err)
		}
	}
	if _, err := valkeylock.New(nil); !errors.Is(err, lock.ErrInvalidOptions) {
		t.Errorf("nil client: %v", err)
	}
	b, err := valkeylock.New(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "a}b", "x}{y", "a{}b"} {
		if _, err := b.FenceKey(key); !errors.Is(err, lock.ErrInvalidKey) {
			t.Errorf("key %q: err = %v", key, err)
		}
		// Obtain rejects it before any I/O (the nil client is never called).
		if _, err := lock.New(b).Obtain(context.Background(), key, time.Second); !errors.Is(err, lock.ErrInvalidKey) {
			t.Errorf("Obtain %q: err = %v", key, err)
		}
	}
}
