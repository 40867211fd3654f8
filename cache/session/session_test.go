package session_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cache/session"
	"github.com/tablekit/tablekit/internal/testenv"
)

type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

type env struct {
	c      *cache.Cache
	raw    *cache.Cache // the session namespace, for checking keys
	clock  *clock
	layout session.Layout
	split  bool // two round trips per operation (seed layout on a cluster)
}

// key returns the key of kind ("accessToken", "sessionInfo") for tok in
// e's layout.
func (e env) key(kind, tok string) string {
	if e.layout == session.HashTagLayout {
		return kind + ":{" + tok + "}"
	}
	return kind + ":" + tok
}

func eachMode(t *testing.T, f func(t *testing.T, e env), only ...session.Layout) {
	t.Helper()
	for _, be := range []cache.Backend{cache.BackendGlide, cache.BackendValkeyGo} {
		for _, run := range []struct {
			mode   string
			layout session.Layout
		}{{"standalone", session.SeedLayout}, {"cluster", session.SeedLayout}, {"standalone-hashtags", session.HashTagLayout}, {"cluster-hashtags", session.HashTagLayout}} {
			if len(only) > 0 && !slices.Contains(only, run.layout) {
				continue
			}
			mode := strings.TrimSuffix(run.mode, "-hashtags")
			t.Run(be.String()+"/"+run.mode, func(t *testing.T) {
				var addrs []string
				if mode == "cluster" {
					addrs = testenv.ValkeyClusterAddrs(t)
				} else {
					addrs = []string{testenv.ValkeyAddr(t)}
				}
				clk := &clock{}
				clk.ns.Store(time.Now().UnixNano())
				c, err := cache.New(cache.Options{AppID: testenv.UniqueName("tk"), Env: "test", Service: "api",
					Addresses: addrs, Cluster: mode == "cluster", DisableTLS: true, RequestTimeout: time.Second,
					Now: clk.now, Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.Close)
				raw, err := c.WithService("session", true)
				if err != nil {
					t.Fatal(err)
				}
				f(t, env{c: c, raw: raw, clock: clk, layout: run.layout, split: mode == "cluster" && run.layout == session.SeedLayout})
			})
		}
	}
}

func newStore(t *testing.T, e env, optFns ...func(*session.Options)) *session.Store {
	t.Helper()
	s, err := session.New(e.c, append([]func(*session.Options){func(o *session.Options) { o.Layout = e.layout }}, optFns...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func exists(t *testing.T, e env, token string) (access, info bool) {
	t.Helper()
	_, err1 := e.raw.Get(context.Background(), e.key("accessToken", token))
	_, err2 := e.raw.HGetAll(context.Background(), e.key("sessionInfo", token))
	for _, err := range []error{err1, err2} {
		if err != nil && !errors.Is(err, cache.ErrMiss) {
			t.Fatal(err)
		}
	}
	return err1 == nil, err2 == nil
}

func TestCreateValidateLogout(t *testing.T) {
	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		s := newStore(t, e, func(o *session.Options) {
			o.TTL = time.Minute
			o.ShardFunc = func(k int64) int64 { return k % 4 }
		})
		dev := "iPhone 15"
		tok, info, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-1", AccountDBKey: 1234567,
			PlatformType: 2, ClientVersion: "1.2.3", DeviceInfo: &dev})
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) < 22 || info.ShardID != 1234567%4 || info.SessionID == "" || info.LoginTime.IsZero() {
			t.Fatalf("Create = %q, %+v", tok, info)
		}
		e.clock.advance(10 * time.Second)
		got, err := s.Validate(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		want := info
		want.LastAccessTime = e.clock.now()
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("Validate (-want +got):\n%s", d)
		}
		for _, k := range []string{e.key("accessToken", tok), e.key("sessionInfo", tok)} {
			if ttl, err := e.raw.TTL(ctx, k); err != nil || ttl <= 50*time.Second || ttl > time.Minute {
				t.Fatalf("%s ttl = %v, %v", k[:11], ttl, err)
			}
		}
		if v, _ := e.raw.HGet(ctx, e.key("sessionInfo", tok), "last_access_time"); v != want.LastAccessTime.Format(time.RFC3339Nano) {
			t.Fatalf("last_access_time = %q", v)
		}
		// Validate is one round trip (two with seed keys on a cluster).
		before := e.c.Metrics().Total
		if _, err := s.Validate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		want1 := int64(1)
		if e.split {
			want1 = 2
		}
		if n := e.c.Metrics().Total - before; n != want1 {
			t.Fatalf("Validate made %d round trips, want %d", n, want1)
		}

		if err := s.Logout(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if a, i := exists(t, e, tok); a || i {
			t.Fatalf("after logout: accessToken %v sessionInfo %v", a, i)
		}
		if _, err := s.Validate(ctx, tok); !errors.Is(err, session.ErrInvalidSession) {
			t.Fatalf("Validate after logout: %v", err)
		}
		if toks, _ := s.Sessions(ctx, "acc-1"); len(toks) != 0 {
			t.Fatalf("still tracked: %d", len(toks))
		}
		if err := s.Logout(ctx, tok); err != nil {
			t.Fatalf("second logout: %v", err)
		}
	})
}

func TestLifetimeCapsRenewal(t *testing.T) {
	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		s := newStore(t, e, func(o *session.Options) { o.TTL = time.Hour; o.MaxLifetime = 10 * time.Minute })
		tok, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-2"})
		if err != nil {
			t.Fatal(err)
		}
		if ttl, _ := e.raw.TTL(ctx, e.key("accessToken", tok)); ttl > 10*time.Minute {
			t.Fatalf("initial ttl %v beyond lifetime", ttl)
		}
		e.clock.advance(6 * time.Minute)
		if _, err := s.Validate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if ttl, _ := e.raw.TTL(ctx, e.key("sessionInfo", tok)); ttl > 4*time.Minute {
			t.Fatalf("renewed ttl %v beyond the remaining lifetime", ttl)
		}
		e.clock.advance(5 * time.Minute)
		if _, err := s.Validate(ctx, tok); !errors.Is(err, session.ErrInvalidSession) {
			t.Fatalf("Validate past lifetime: %v", err)
		}
		if a, i := exists(t, e, tok); a || i {
			t.Fatal("keys left after the lifetime ended")
		}
	})
}

func TestLimitEvictsOldest(t *testing.T) {
	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		s := newStore(t, e, func(o *session.Options) { o.MaxSessions = 2 })
		var toks []string
		for i := 0; i < 3; i++ {
			tok, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-3"})
			if err != nil {
				t.Fatal(err)
			}
			toks = append(toks, tok)
			e.clock.advance(time.Second)
			// Using an old session does not make it younger.
			if i == 1 {
				if _, err := s.Validate(ctx, toks[0]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := s.Validate(ctx, toks[0]); !errors.Is(err, session.ErrInvalidSession) {
			t.Fatalf("oldest session still valid: %v", err)
		}
		for _, tok := range toks[1:] {
			if _, err := s.Validate(ctx, tok); err != nil {
				t.Fatalf("newer session invalid: %v", err)
			}
		}
		got, _ := s.Sessions(ctx, "acc-3")
		if d := cmp.Diff(toks[1:], got); d != "" {
			t.Fatalf("tracked (-want +got):\n%s", d)
		}
	})
}

// Concurrent logins: exactly the limit survives, the survivors are the
// newest in the user's order, and every older session is gone.
func TestLimitUnderConcurrentLogins(t *testing.T) {
	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		const limit, old, burst = 5, 10, 40
		s := newStore(t, e, func(o *session.Options) { o.MaxSessions = limit })
		var olds []string
		for i := 0; i < old; i++ {
			tok, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-4"})
			if err != nil {
				t.Fatal(err)
			}
			olds = append(olds, tok)
		}
		e.clock.advance(time.Minute)
		var (
			mu     sync.Mutex
			burstT []string
			wg     sync.WaitGroup
		)
		for i := 0; i < burst; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-4"})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				burstT = append(burstT, tok)
				mu.Unlock()
			}()
		}
		wg.Wait()
		tracked, err := s.Sessions(ctx, "acc-4")
		if err != nil || len(tracked) != limit {
			t.Fatalf("tracked %d sessions, %v; want %d", len(tracked), err, limit)
		}
		valid := map[string]bool{}
		for _, tok := range append(append([]string{}, olds...), burstT...) {
			if _, err := s.Validate(ctx, tok); err == nil {
				valid[tok] = true
			} else if !errors.Is(err, session.ErrInvalidSession) {
				t.Fatal(err)
			} else if a, i := exists(t, e, tok); a || i {
				t.Fatal("an evicted session left keys behind")
			}
		}
		if len(valid) != limit {
			t.Fatalf("%d valid sessions, want %d", len(valid), limit)
		}
		for _, tok := range tracked {
			if !valid[tok] {
				t.Fatalf("a tracked session is not valid")
			}
		}
		for _, tok := range olds {
			if valid[tok] {
				t.Fatalf("an older session survived newer logins")
			}
		}
	})
}

func TestRotate(t *testing.T) {
	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		s := newStore(t, e)
		tok, info, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-5", AccountDBKey: 9})
		if err != nil {
			t.Fatal(err)
		}
		e.clock.advance(time.Second)
		nt, ninfo, err := s.Rotate(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if nt == tok || ninfo.SessionID != info.SessionID || !ninfo.LoginTime.Equal(info.LoginTime) || !ninfo.ExpiresAt.Equal(info.ExpiresAt) {
			t.Fatalf("Rotate = %+v from %+v", ninfo, info)
		}
		if _, err := s.Validate(ctx, tok); !errors.Is(err, session.ErrInvalidSession) {
			t.Fatalf("old token after rotation: %v", err)
		}
		if got, err := s.Validate(ctx, nt); err != nil || got.SessionID != info.SessionID {
			t.Fatalf("new token: %+v, %v", got, err)
		}
		if got, _ := s.Sessions(ctx, "acc-5"); len(got) != 1 || got[0] != nt {
			t.Fatalf("tracked after rotation: %d", len(got))
		}
		if _, _, err := s.Rotate(ctx, tok); !errors.Is(err, session.ErrInvalidSession) {
			t.Fatalf("rotating a spent token: %v", err)
		}
	})
}

func TestTokensAndErrors(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		tok := session.NewToken()
		if len(tok) != 43 || seen[tok] { // 256 bits, base64url
			t.Fatalf("token %d: len %d, duplicate %v", i, len(tok), seen[tok])
		}
		seen[tok] = true
	}
	if r := session.Redact("abcdefghijkl"); r != "abcdef…" {
		t.Fatalf("Redact = %q", r)
	}
	bypass, _ := cache.New(cache.Options{AppID: "a", Env: "e", Service: "s"})
	if _, err := session.New(bypass); !errors.Is(err, session.ErrNoServer) {
		t.Fatalf("New on bypass cache: %v", err)
	}

	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		s := newStore(t, e)
		for _, bad := range []string{"", "short", "{x}" + strings.Repeat("a", 40), strings.Repeat("a", 42) + "!"} {
			if _, err := s.Validate(ctx, bad); !errors.Is(err, session.ErrMalformedToken) || !errors.Is(err, session.ErrInvalidSession) {
				t.Fatalf("Validate(%q): %v", bad, err)
			}
			if err := s.Logout(ctx, bad); !errors.Is(err, session.ErrMalformedToken) {
				t.Fatalf("Logout(%q): %v", bad, err)
			}
		}
		if _, _, err := s.Create(ctx, session.CreateInput{}); !errors.Is(err, cache.ErrInvalidKey) {
			t.Fatalf("Create without user: %v", err)
		}
		if _, err := s.Validate(ctx, session.NewToken()); !errors.Is(err, session.ErrInvalidSession) {
			t.Fatalf("unknown token: %v", err)
		}
		// Server failures never carry the full token.
		tok, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-6"})
		if err != nil {
			t.Fatal(err)
		}
		e.c.Close()
		_, err = s.Validate(ctx, tok)
		if !errors.Is(err, cache.ErrUnavailable) || strings.Contains(err.Error(), tok) {
			t.Fatalf("Validate on a closed cache: %v", err)
		}
		if err := s.Logout(ctx, tok); err == nil || strings.Contains(err.Error(), tok) {
			t.Fatalf("Logout on a closed cache: %v", err)
		}
	})
}

// TestSeedKeysAndUUIDTokens: by default the keys are exactly seed 002's,
// a session written the seed's way (UUID token, its own SET and HSET)
// validates, and there is no absolute lifetime unless asked for.
func TestSeedKeysAndUUIDTokens(t *testing.T) {
	eachMode(t, func(t *testing.T, e env) {
		ctx := context.Background()
		s := newStore(t, e, func(o *session.Options) { o.TTL = time.Hour })
		tok, info, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-7"})
		if err != nil {
			t.Fatal(err)
		}
		if !info.ExpiresAt.IsZero() {
			t.Fatalf("ExpiresAt %v without MaxLifetime", info.ExpiresAt)
		}
		full, _ := e.raw.Key("accessToken:" + tok)
		if !strings.HasSuffix(full, ":session:accessToken:"+tok) {
			t.Fatalf("key %q", full)
		}
		if a, i := exists(t, e, tok); !a || !i {
			t.Fatalf("seed keys missing: accessToken %v sessionInfo %v", a, i)
		}
		if m, _ := e.raw.HGetAll(ctx, "sessionInfo:"+tok); m["max_expire_ms"] != "" {
			t.Fatalf("max_expire_ms written without MaxLifetime: %v", m)
		}
		// Renewals are not capped: a day later, still valid.
		for i := 0; i < 30; i++ {
			e.clock.advance(50 * time.Minute)
			if _, err := s.Validate(ctx, tok); err != nil {
				t.Fatalf("validate %d: %v", i, err)
			}
		}

		// A session as seed 002's Python writes it.
		uuidTok := "0b6f3f1e-8d7c-4c2e-9f3a-1b2c3d4e5f60"
		if err := e.raw.Set(ctx, "accessToken:"+uuidTok, "valid", time.Hour); err != nil {
			t.Fatal(err)
		}
		login := fmtTime(e.clock.now())
		if err := e.raw.HSetAll(ctx, "sessionInfo:"+uuidTok, map[string]string{
			"session_id": "s-1", "user_account_id": "acc-8", "account_db_key": "8", "shard_id": "0",
			"login_time": login, "last_access_time": login, "platform_type": "1", "client_version": "2.0",
		}, time.Hour); err != nil {
			t.Fatal(err)
		}
		got, err := s.Validate(ctx, uuidTok)
		if err != nil || got.UserAccountID != "acc-8" || got.SessionID != "s-1" {
			t.Fatalf("Validate(seed session) = %+v, %v", got, err)
		}
		u := newStore(t, e, func(o *session.Options) { o.Tokens = session.UUIDTokens })
		ut, _, err := u.Create(ctx, session.CreateInput{UserAccountID: "acc-9"})
		if err != nil || !session.IsUUID(ut) {
			t.Fatalf("UUID token %q, %v", ut, err)
		}
		if _, err := u.Validate(ctx, ut); err != nil {
			t.Fatal(err)
		}
		if _, err := u.Validate(ctx, tok); !errors.Is(err, session.ErrMalformedToken) {
			t.Fatalf("UUID store accepted a base64 token: %v", err)
		}
	}, session.SeedLayout)
}

func fmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestOptionsErrors(t *testing.T) {
	c, err := cache.New(cache.Options{AppID: "a", Env: "e", Service: "s", Addresses: []string{"127.0.0.1:1"}, DisableTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for name, f := range map[string]func(*session.Options){
		"layout":         func(o *session.Options) { o.Layout = 7 },
		"half a format":  func(o *session.Options) { o.Tokens.New = session.NewToken },
		"negative ttl":   func(o *session.Options) { o.TTL = -1 },
		"negative limit": func(o *session.Options) { o.MaxSessions = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := session.New(c, f); !errors.Is(err, session.ErrInvalidOptions) {
				t.Fatalf("New = %v", err)
			}
		})
	}
}
