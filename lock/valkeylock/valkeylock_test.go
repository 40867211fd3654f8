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
	"github.com/tablekit/tablekit/retry"
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
	concurrently(t, 8, 20, func() error {
		_, err := lk.IsLocked(ctx, "k")
		return err
	})
}

// concurrently runs step n times in each of g goroutines, and fails t
// with the first error a goroutine met (each stops at its first).
func concurrently(t *testing.T, g, n int, step func() error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, g)
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if err := step(); err != nil {
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
		{"app:prod", "{user:1}:job", "app:prod:lock:{user:1}:job", "{user:1}:fence:app:prod:lock:{user:1}:job"},
		// The old fence key of the row above is an ordinary lock key now.
		{"app:prod", "{user:1}:job:fence", "app:prod:lock:{user:1}:job:fence", "{user:1}:fence:app:prod:lock:{user:1}:job:fence"},
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
	for _, prefix := range []string{":app", "app:", "app::prod", ":", "{app}:prod", "app:pro}d"} {
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

// FuzzKeys: distinct lock keys give distinct server keys, and no lock key
// is the fence counter of any key (the bug of "<lock key>:fence").
func FuzzKeys(f *testing.F) {
	f.Add("app:prod", "{user:1}:job", "{user:1}:job:fence")
	f.Add("", "a", "{lock:a}:fence")
	f.Add("x", "k", "k:fence")
	f.Fuzz(func(t *testing.T, prefix, k1, k2 string) {
		c := cache.NewGlideConn(nil) // key computation makes no call
		b, err := valkeylock.New(c, func(o *valkeylock.Options) { o.Prefix = prefix })
		if err != nil {
			return
		}
		f1, err1 := b.FenceKey(k1)
		f2, err2 := b.FenceKey(k2)
		l1, l2 := b.Key(k1), b.Key(k2)
		if (l1 == l2) != (k1 == k2) {
			t.Fatalf("lock keys of %q and %q: %q %q", k1, k2, l1, l2)
		}
		if err1 == nil && (f1 == l1 || f1 == l2) || err2 == nil && (f2 == l1 || f2 == l2) {
			t.Fatalf("a lock key is a fence key: %q %q / %q %q", l1, l2, f1, f2)
		}
		if err1 == nil && err2 == nil && (f1 == f2) != (k1 == k2) {
			t.Fatalf("fence keys of %q and %q: %q %q", k1, k2, f1, f2)
		}
	})
}

// TestFenceKeyIsAnOrdinaryLock obtains a key and the key that used to be
// its fence counter, on the server: both locks work and stay independent.
func TestFenceKeyIsAnOrdinaryLock(t *testing.T) {
	h, p := testenv.HostPort(t, testenv.ValkeyAddr(t))
	c, err := glide.NewClient(config.NewClientConfiguration().WithAddress(&config.NodeAddress{Host: h, Port: p}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := valkeylock.New(cache.NewGlideConn(c), func(o *valkeylock.Options) { o.Prefix = "tablekit:" + testenv.UniqueName("fence") })
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New(b)
	ctx := context.Background()
	for _, keys := range [][2]string{{"{user:1}:job", "{user:1}:job:fence"}, {"plain", "plain:fence"}} {
		l1, err := lk.Obtain(ctx, keys[0], 10*time.Second)
		if err != nil {
			t.Fatalf("obtain %q: %v", keys[0], err)
		}
		l2, err := lk.Obtain(ctx, keys[1], 10*time.Second)
		if err != nil {
			t.Fatalf("obtain %q after %q: %v", keys[1], keys[0], err)
		}
		for _, k := range keys {
			if held, err := lk.IsLocked(ctx, k); err != nil || !held {
				t.Fatalf("IsLocked(%q) = %v, %v", k, held, err)
			}
		}
		if err := l2.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l1.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptOnly hides cache.Atomic, so that the backend acquires with its
// Lua script.
type scriptOnly struct{ cache.Conn }

// loseAfterSet is a Conn whose transactions lose the lock right after
// they take it (as a TTL running out would), before the new fence
// counter is moved to the server clock.
type loseAfterSet struct{ cache.Conn }

func (l loseAfterSet) Atomic(ctx context.Context, cmds [][]string) ([]any, error) {
	res, err := l.Conn.(cache.Atomic).Atomic(ctx, cmds)
	if err == nil {
		_, err = l.Conn.Del(ctx, []string{cmds[0][1]})
	}
	return res, err
}

// TestAcquirePaths runs both ways of acquiring (MULTI/EXEC, and the
// script for a client without cache.Atomic) on both client libraries:
// the first fence of a new counter comes from the server clock, and the
// fences of contending holders, listed while they hold the lock, strictly
// increase although a contended transaction draws numbers it does not use.
func TestAcquirePaths(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, p := testenv.HostPort(t, testenv.ValkeyAddr(t))
	gc, err := glide.NewClient(config.NewClientConfiguration().WithAddress(&config.NodeAddress{Host: h, Port: p}))
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Close()
	vg, err := cache.DialValkeyGo(cache.ValkeyGoOptions{Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer vg.Close()
	floor := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for _, c := range []struct {
		name string
		conn valkeylock.Client
	}{
		{"glide", cache.NewGlideConn(gc)},
		{"glide-script", scriptOnly{cache.NewGlideConn(gc)}},
		{"valkeygo", vg},
		{"valkeygo-script", scriptOnly{vg}},
		{"valkeygo-scriptoption", vg},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := valkeylock.New(c.conn, func(o *valkeylock.Options) {
				o.Prefix = "tablekit:" + testenv.UniqueName("paths")
				o.ScriptAcquire = c.name == "valkeygo-scriptoption"
			})
			if err != nil {
				t.Fatal(err)
			}
			lk := lock.New(b)
			l, err := lk.Obtain(ctx, "k", 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if l.Fence() < floor {
				t.Fatalf("first fence %d: not from the server clock", l.Fence())
			}
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
			var (
				mu     sync.Mutex
				fences []int64
			)
			concurrently(t, 4, 25, func() error {
				l, err := lk.Obtain(ctx, "k", 10*time.Second, func(o *lock.Options) { o.Retry = retry.Constant(time.Millisecond) })
				if err != nil {
					return err
				}
				mu.Lock()
				fences = append(fences, l.Fence())
				mu.Unlock()
				return l.Release(ctx)
			})
			if len(fences) != 100 {
				t.Fatalf("%d holders, want 100", len(fences))
			}
			for i, f := range fences {
				prev := l.Fence()
				if i > 0 {
					prev = fences[i-1]
				}
				if f <= prev {
					t.Fatalf("holder %d has fence %d after %d", i, f, prev)
				}
			}
		})
	}

	// A holder that loses the lock before its new counter moves to the
	// clock has not obtained it, and leaves nothing behind.
	b, err := valkeylock.New(loseAfterSet{vg}, func(o *valkeylock.Options) { o.Prefix = "tablekit:" + testenv.UniqueName("lose") })
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Acquire(ctx, &lock.AcquireRequest{Key: "k", Token: "t1", TTL: 10 * time.Second})
	if !errors.Is(err, lock.ErrNotObtained) {
		t.Fatalf("Acquire after losing the key: %v, want ErrNotObtained", err)
	}
	if held, err := b.IsLocked(ctx, "k"); err != nil || held {
		t.Fatalf("IsLocked = %v, %v after a lost acquire", held, err)
	}
}

// TestScriptAcquireACL: a server user whose ACL allows scripts but not
// MULTI and EXEC cannot acquire by default (a permission error, returned
// at once), and can with Options.ScriptAcquire.
func TestScriptAcquireACL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admin, err := cache.DialValkeyGo(cache.ValkeyGoOptions{Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	user, pw, prefix := testenv.UniqueName("tk-noexec"), testenv.UniqueName("pw"), "tablekit:"+testenv.UniqueName("acl")
	rule := []string{"ACL", "SETUSER", user, "reset", "on", ">" + pw, "~" + prefix + ":*", "~{" + prefix + ":*", "-@all",
		"+hello", "+client|setname", "+ping", "+info", "+set", "+get", "+del", "+exists", "+incr", "+pexpire", "+time",
		"+evalsha", "+eval", "+script|load"}
	if _, err := admin.Pipeline(ctx, [][]string{rule}); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = admin.Pipeline(context.Background(), [][]string{{"ACL", "DELUSER", user}}) }()
	conn, err := cache.DialValkeyGo(cache.ValkeyGoOptions{Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true,
		Username: user, Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, script := range []bool{false, true} {
		b, err := valkeylock.New(conn, func(o *valkeylock.Options) { o.Prefix = prefix; o.ScriptAcquire = script })
		if err != nil {
			t.Fatal(err)
		}
		l, err := lock.New(b).Obtain(ctx, "k", 10*time.Second)
		if !script {
			if err == nil || errors.Is(err, lock.ErrNotObtained) || b.Transient(err) {
				t.Fatalf("Obtain without MULTI in the ACL: %v, want a permission error", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Obtain with ScriptAcquire: %v", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
