package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	glide "github.com/valkey-io/valkey-glide/go/v2"
)

// fakeConn is an in-memory Conn for the few commands the cache-aside
// paths use. Unimplemented methods panic through the nil embedded Conn.
type fakeConn struct {
	Conn
	mu    sync.Mutex
	kv    map[string]string
	fail  func(op string) error
	calls map[string]int
}

func newFake() *fakeConn { return &fakeConn{kv: map[string]string{}, calls: map[string]int{}} }

func (f *fakeConn) hit(op string) error {
	f.mu.Lock()
	f.calls[op]++
	fail := f.fail
	f.mu.Unlock()
	if fail != nil {
		return fail(op)
	}
	return nil
}

func (f *fakeConn) count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

func (f *fakeConn) Get(_ context.Context, k string) (string, bool, error) {
	if err := f.hit("get"); err != nil {
		return "", false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.kv[k]
	return v, ok, nil
}

func (f *fakeConn) Set(_ context.Context, k, v string, _ time.Duration) error {
	if err := f.hit("set"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kv[k] = v
	return nil
}

func (f *fakeConn) Eval(_ context.Context, s *Script, keys, args []string) (any, error) {
	if err := f.hit("eval"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch s {
	case missCheckScript:
		if v, ok := f.kv[keys[0]]; ok {
			return []any{int64(1), v}, nil
		}
		return []any{int64(0), f.kv[keys[1]]}, nil
	case guardedSetScript:
		if f.kv[keys[1]] != args[0] {
			return int64(0), nil
		}
		f.kv[keys[0]] = args[1]
		return int64(1), nil
	case writeThroughScript:
		f.kv[keys[1]], f.kv[keys[0]] = args[0], args[2]
		return int64(1), nil
	}
	return nil, fmt.Errorf("fake: unknown script")
}

func (f *fakeConn) Pipeline(_ context.Context, cmds [][]string) ([]any, error) {
	if err := f.hit("pipeline"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]any, len(cmds))
	for i, c := range cmds {
		switch c[0] {
		case "SET":
			f.kv[c[1]] = c[2]
			out[i] = "OK"
		case "DEL":
			delete(f.kv, c[1])
			out[i] = int64(1)
		}
	}
	return out, nil
}

func (f *fakeConn) Close() {}

func newTest(t *testing.T, conn Conn, optFns ...func(*Options)) *Cache {
	t.Helper()
	c, err := New(Options{AppID: "app", Env: "test", Service: "svc", Conn: conn}, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestKeyValidation(t *testing.T) {
	plain := newTest(t, nil)
	tagged := newTest(t, nil, func(o *Options) { o.HashTags = true })
	for _, tc := range []struct {
		key         string
		plain, tags bool // valid?
	}{
		{"user:profile:123", true, true},
		{"query_projects", true, true},
		{"", false, false},
		{":a", false, false},
		{"a:", false, false},
		{"a::b", false, false},
		{"a b", false, false},
		{"user:{user_id}", false, true},
		{"{}", false, false},
		{"a:{x}:{y}", false, false},
		{"a:}x{", false, false},
		{"a:{x", false, false},
	} {
		if _, err := plain.Key(tc.key); (err == nil) != tc.plain || (err != nil && !errors.Is(err, ErrInvalidKey)) {
			t.Errorf("plain Key(%q) = %v", tc.key, err)
		}
		if _, err := tagged.Key(tc.key); (err == nil) != tc.tags || (err != nil && !errors.Is(err, ErrInvalidKey)) {
			t.Errorf("tagged Key(%q) = %v", tc.key, err)
		}
	}
	if k, _ := plain.Key("user:1"); k != "app:test:svc:user:1" {
		t.Errorf("Key = %q", k)
	}
	for name, o := range map[string]Options{
		"no app":     {Env: "e", Service: "s"},
		"no env":     {AppID: "a", Service: "s"},
		"no service": {AppID: "a", Env: "e"},
		"brace":      {AppID: "{a}", Env: "e", Service: "s"},
		"jitter":     {AppID: "a", Env: "e", Service: "s", Jitter: 2},
		"negative":   {AppID: "a", Env: "e", Service: "s", RequestTimeout: -1},
	} {
		if _, err := New(o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: New = %v, want ErrInvalidOptions", name, err)
		}
	}
	if _, err := New(Options{AppID: "a", Env: "e", Service: "s", Addresses: []string{"nohost"}}); err == nil {
		t.Error("bad address accepted")
	}
	if _, err := plain.WithService("", false); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("WithService empty: %v", err)
	}
	if g := genKey("a:b"); g != "{a:b}%!gen" {
		t.Errorf("genKey = %q", g)
	}
	if g := genKey("a:{b}:c"); g != "a:{b}:c%!gen" {
		t.Errorf("genKey tagged = %q", g)
	}
}

func TestBypass(t *testing.T) {
	c := newTest(t, nil)
	ctx := context.Background()
	if c.Enabled() {
		t.Fatal("enabled without endpoint")
	}
	calls := 0
	for i := 0; i < 3; i++ {
		v, err := GetOrLoad(ctx, c, "k", time.Minute, func(context.Context) (int, error) { calls++; return 5, nil })
		if err != nil || v != 5 {
			t.Fatal(v, err)
		}
	}
	if _, err := c.Get(ctx, "k"); !errors.Is(err, ErrMiss) {
		t.Fatalf("Get in bypass: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Invalidate(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	stored := false
	if err := WriteThrough(ctx, c, "k", time.Minute, 1, func(context.Context) error { stored = true; return nil }); err != nil || !stored {
		t.Fatal(err)
	}
	m := c.Metrics()
	if calls != 3 || m.Bypassed != 3 || m.Loads != 3 || m.Misses != 4 || m.Total != 3 || m.Failed != 0 {
		t.Fatalf("metrics %+v after %d calls", m, calls)
	}
	if h := c.Health(ctx); !h.Healthy || h.Enabled {
		t.Fatalf("Health = %+v", h)
	}
	if _, err := GetOrLoad(ctx, c, "bad::key", time.Minute, func(context.Context) (int, error) { return 0, nil }); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("bad key in bypass: %v", err)
	}
	if _, err := GetOrLoad(ctx, c, "k", 0, func(context.Context) (int, error) { return 0, nil }); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("zero ttl: %v", err)
	}
}

func TestFailOpenAndBreaker(t *testing.T) {
	f := newFake()
	var down atomic.Bool
	f.fail = func(string) error {
		if down.Load() {
			return glide.NewTimeoutError("timed out")
		}
		return nil
	}
	now := time.Unix(1000, 0)
	var nowMu sync.Mutex
	clock := func() time.Time { nowMu.Lock(); defer nowMu.Unlock(); return now }
	c := newTest(t, f, func(o *Options) { o.BreakerThreshold = 3; o.BreakerCooldown = time.Second; o.Now = clock })
	ctx := context.Background()
	load := func(context.Context) (string, error) { return "v", nil }

	down.Store(true)
	for i := 0; i < 5; i++ {
		if v, err := GetOrLoad(ctx, c, "k", time.Minute, load); err != nil || v != "v" {
			t.Fatalf("fail-open read %d = %q, %v", i, v, err)
		}
	}
	if !c.BreakerOpen() {
		t.Fatal("breaker did not open")
	}
	calls := f.count("get") + f.count("eval")
	if _, err := c.Get(ctx, "k"); !errors.Is(err, ErrCircuitOpen) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Get with open breaker: %v", err)
	}
	if f.count("get")+f.count("eval") != calls {
		t.Fatal("open breaker let a call through")
	}
	m := c.Metrics()
	if m.Timeouts < 3 || m.Rejected == 0 || m.Failed == 0 {
		t.Fatalf("metrics %+v", m)
	}

	// After the cooldown one probe goes through; success closes the breaker.
	down.Store(false)
	nowMu.Lock()
	now = now.Add(2 * time.Second)
	nowMu.Unlock()
	if _, err := c.Get(ctx, "k"); !errors.Is(err, ErrMiss) {
		t.Fatalf("probe: %v", err)
	}
	if c.BreakerOpen() {
		t.Fatal("breaker still open after a good probe")
	}
	if v, err := GetOrLoad(ctx, c, "k", time.Minute, load); err != nil || v != "v" {
		t.Fatal(v, err)
	}
	if _, err := c.Get(ctx, "k"); err != nil {
		t.Fatalf("value not cached after recovery: %v", err)
	}
}

func TestRetryConnectionErrors(t *testing.T) {
	f := newFake()
	var fails atomic.Int64
	fails.Store(2)
	f.fail = func(string) error {
		if fails.Add(-1) >= 0 {
			return glide.NewConnectionError("connection reset")
		}
		return nil
	}
	c := newTest(t, f, func(o *Options) { o.RetryBaseDelay = time.Millisecond })
	if _, err := c.Get(context.Background(), "k"); !errors.Is(err, ErrMiss) {
		t.Fatalf("Get after 2 connection errors: %v", err)
	}
	if n := f.count("get"); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
	if m := c.Metrics(); m.ConnectionFailures != 2 || m.Success != 1 || m.Total != 1 {
		t.Fatalf("metrics %+v", m)
	}

	// Retries stop at the ctx deadline.
	fails.Store(1000)
	c2 := newTest(t, f, func(o *Options) {
		o.RetryBaseDelay = 20 * time.Millisecond
		o.MaxRetries = 10
		o.RequestTimeout = time.Hour
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c2.Get(ctx, "k"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Get: %v", err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Fatalf("retries ran %v past a 50ms deadline", d)
	}

	// NoRetry: one attempt.
	before := f.count("get")
	c3 := newTest(t, f, func(o *Options) { o.NoRetry = true })
	_, _ = c3.Get(context.Background(), "k")
	if f.count("get") != before+1 {
		t.Fatal("NoRetry retried")
	}
}

func TestWriteThroughInvalidatesOnCacheFailure(t *testing.T) {
	f := newFake()
	c := newTest(t, f)
	ctx := context.Background()
	full, _ := c.Key("k")
	f.kv[full] = `"old"`
	var failEval atomic.Bool
	failEval.Store(true)
	f.fail = func(op string) error {
		if op == "eval" && failEval.Load() {
			return errors.New("ERR script failed")
		}
		return nil
	}
	if err := WriteThrough(ctx, c, "k", time.Minute, "new", func(context.Context) error { return nil }); err != nil {
		t.Fatalf("WriteThrough: %v", err)
	}
	if _, ok := f.kv[full]; ok {
		t.Fatal("old value survived a failed cache write")
	}
	// Both the write and the invalidation fail: ErrStale.
	f.kv[full] = `"old"`
	f.fail = func(string) error { return errors.New("ERR nope") }
	if err := WriteThrough(ctx, c, "k", time.Minute, "new", func(context.Context) error { return nil }); !errors.Is(err, ErrStale) {
		t.Fatalf("WriteThrough: %v, want ErrStale", err)
	}
	// The store failing leaves the cache alone and returns its error.
	f.fail = nil
	boom := errors.New("boom")
	if err := WriteThrough(ctx, c, "k", time.Minute, "new", func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("store error: %v", err)
	}
	if f.kv[full] != `"old"` {
		t.Fatal("cache touched after a store failure")
	}
	if err := WriteThrough(ctx, c, "k", time.Minute, "new", func(context.Context) error { return nil }); err != nil || f.kv[full] != `"new"` {
		t.Fatalf("WriteThrough = %v, cached %q", err, f.kv[full])
	}
}

func TestLoaderPanicAndCodec(t *testing.T) {
	f := newFake()
	c := newTest(t, f)
	ctx := context.Background()
	if _, err := GetOrLoad(ctx, c, "p", time.Minute, func(context.Context) (int, error) { panic("bad") }); err == nil {
		t.Fatal("panic not reported")
	}
	// A value the codec cannot decode is reloaded, not returned.
	full, _ := c.Key("bad")
	f.kv[full] = "not json"
	v, err := GetOrLoad(ctx, c, "bad", time.Minute, func(context.Context) (int, error) { return 3, nil })
	if err != nil || v != 3 {
		t.Fatal(v, err)
	}
	// Waiters honour their own ctx.
	release := make(chan struct{})
	go func() {
		_, _ = GetOrLoad(ctx, c, "slow", time.Minute, func(context.Context) (int, error) { <-release; return 1, nil })
	}()
	for f.count("eval") < 3 {
		time.Sleep(time.Millisecond)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := GetOrLoad(cctx, c, "slow", time.Minute, func(context.Context) (int, error) { return 2, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	close(release)
}

func TestKeySegments(t *testing.T) {
	c := newTest(t, nil)
	for _, tc := range []struct {
		name string
		segs []string
		want string
	}{
		{"plain ids keep seed strings", []string{"session_list", "u1", "p1"}, "session_list:u1:p1"},
		{"uuid", []string{"accessToken", "0b6f3f1e-8d7c-4c2e-9f3a-1b2c3d4e5f60"}, "accessToken:0b6f3f1e-8d7c-4c2e-9f3a-1b2c3d4e5f60"},
		{"delimiter", []string{"session_list", "a:b", "c"}, "session_list:a%3Ab:c"},
		{"delimiter moved", []string{"session_list", "a", "b:c"}, "session_list:a:b%3Ac"},
		{"braces and escape", []string{"x", "{t}%"}, "x:%7Bt%7D%25"},
		{"white space", []string{"x", "a b\t\n\r"}, "x:a%20b%09%0A%0D"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Join(tc.segs...)
			if got != tc.want {
				t.Fatalf("Join = %q, want %q", got, tc.want)
			}
			back, err := Split(got)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.segs, back); d != "" {
				t.Fatalf("Split (-want +got):\n%s", d)
			}
			if _, err := c.Key(got); err != nil {
				t.Fatalf("Key(%q): %v", got, err)
			}
			// The key is sized first and built in one allocation.
			if n := testing.AllocsPerRun(20, func() { _ = Join(tc.segs...) }); n != 1 {
				t.Fatalf("Join allocates %v times, want 1", n)
			}
		})
	}
	for _, bad := range []string{"a%", "a%2", "a%41", "x:100%", "a%!gen"} {
		if _, err := c.Key(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Key(%q) = %v, want ErrInvalidKey", bad, err)
		}
		if _, err := Unseg(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Unseg(%q) = %v, want ErrInvalidKey", bad, err)
		}
	}
	for name, o := range map[string]Options{
		"app with colon": {AppID: "app:q", Env: "r", Service: "s"},
		"env with colon": {AppID: "app", Env: "q:r", Service: "s"},
		"svc with colon": {AppID: "a", Env: "e", Service: "s:t"},
	} {
		if _, err := New(o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: New = %v, want ErrInvalidOptions", name, err)
		}
	}
	if _, err := c.WithService("a:b", false); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("WithService with colon: %v", err)
	}
}

// FuzzCacheKeys: distinct logical keys (namespace and segments) give
// distinct server keys, and no server key of a user equals an internal
// key (generation mark) of another.
func FuzzCacheKeys(f *testing.F) {
	f.Add("app", "env", "a:b", "c", "app", "env", "a", "b:c", false)
	f.Add("app", "q", "x", "y~gen", "app", "q", "x", "y", true)
	f.Add("a", "b", "{t}", "x", "a", "b", "%7Bt%7D", "x", true)
	f.Fuzz(func(t *testing.T, app1, env1, s1, s2, app2, env2, s3, s4 string, tags bool) {
		full := func(app, env string, segs ...string) (string, bool) {
			c, err := New(Options{AppID: app, Env: env, Service: "svc", HashTags: tags})
			if err != nil {
				return "", false
			}
			k := Join(segs...)
			if tags && len(segs) > 0 {
				k = HashTag(Seg(segs[0])) + ":" + Join(segs[1:]...)
			}
			f, err := c.Key(k)
			return f, err == nil
		}
		k1, ok1 := full(app1, env1, s1, s2)
		k2, ok2 := full(app2, env2, s3, s4)
		if !ok1 || !ok2 {
			return
		}
		same := app1 == app2 && env1 == env2 && s1 == s3 && s2 == s4
		if (k1 == k2) != same {
			t.Fatalf("keys %q and %q: equal %v, logical keys equal %v", k1, k2, k1 == k2, same)
		}
		if k1 == genKey(k2) || k2 == genKey(k1) || genKey(k1) == genKey(k2) && !same {
			t.Fatalf("internal key collision: %q %q", k1, k2)
		}
	})
}
