// Command baseserver is the runnable example of the base server design
// (seed 002, "Redis 키 시스템 및 캐시") built on tablekit's packages cache,
// cache/session and lock:
//
//   - the key namespace {app_id}:{env}:{service}:{key};
//   - the cache key patterns user:profile:{user_id} (string),
//     user:settings:{user_id} (hash), user:permissions:{user_id} (set) and a
//     leaderboard sorted set;
//   - a session lifecycle: create, validate (which refreshes the expiry),
//     the per-user concurrent-session limit evicting the oldest login,
//     rotation and logout;
//   - the distributed lock manager running a scheduler job under each preset
//     of the seed's table, with two competing servers of which only one runs
//     the job, and ForceReleaseAll on shutdown; on Valkey and on DynamoDB;
//   - the cache metrics and the health check.
//
// Run it against a local Valkey or Redis without TLS:
//
//	TABLEKIT_VALKEY_ADDR=127.0.0.1:6379 go run ./examples/baseserver
//
// or against a TLS endpoint, as production does:
//
//	BASESERVER_VALKEY_ENDPOINT=my-cache.abc123.cache.amazonaws.com:6379 go run ./examples/baseserver
//
// Other settings: BASESERVER_APP_ID (default finance_app), BASESERVER_ENV
// (default dev), BASESERVER_VALKEY_CLUSTER=true for cluster mode (the
// addresses, comma-separated, are then seeds), and TABLEKIT_DYNAMODB_ENDPOINT
// to run the DynamoDB lock backend on that endpoint (DynamoDB Local, dummy
// credentials) instead of on the embedded engine.
//
// With no Valkey configured the program says that the Redis-backed parts
// need a server, runs what works without one (the cache in bypass mode and
// the DynamoDB lock backend on the embedded engine ddbmem) and exits 0.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cache/session"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/exampleenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, configFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "baseserver:", err)
		os.Exit(1)
	}
}

// cfg is what the program is configured with. The zero value runs with no
// server and the defaults below.
type cfg struct {
	// AppID and Env are the first two parts of every key. Defaults
	// "finance_app" and "dev".
	AppID, Env string
	// Service is the third key part of the general cache keys (sessions
	// use "session", locks "lock", as in the seed). Default "cache".
	Service string
	// ValkeyAddrs are host:port addresses (cluster seeds in cluster mode).
	// Empty: no server.
	ValkeyAddrs []string
	// TLS connects with TLS (production); off for local servers.
	TLS bool
	// Cluster selects cluster mode.
	Cluster bool
	// DynamoEndpoint, if set, runs the DynamoDB lock backend on that
	// endpoint (DynamoDB Local) instead of the embedded engine.
	DynamoEndpoint string
	// Table is the table of the DynamoDB lock backend; it is created if it
	// does not exist (and then deleted at the end). Default "BaseServerTable".
	Table string
	// MaxSessions is the per-user session limit of the demo. Default 3.
	MaxSessions int
}

func configFromEnv() cfg {
	c := cfg{
		AppID:          os.Getenv("BASESERVER_APP_ID"),
		Env:            os.Getenv("BASESERVER_ENV"),
		DynamoEndpoint: os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"),
	}
	c.Cluster, _ = strconv.ParseBool(os.Getenv("BASESERVER_VALKEY_CLUSTER"))
	if ep := os.Getenv("BASESERVER_VALKEY_ENDPOINT"); ep != "" {
		c.ValkeyAddrs, c.TLS = strings.Split(ep, ","), true
	} else if a := os.Getenv("TABLEKIT_VALKEY_ADDR"); a != "" {
		c.ValkeyAddrs = strings.Split(a, ",")
	}
	return c
}

func (c cfg) withDefaults() cfg {
	if c.AppID == "" {
		c.AppID = "finance_app"
	}
	if c.Env == "" {
		c.Env = "dev"
	}
	if c.Service == "" {
		c.Service = "cache"
	}
	if c.Table == "" {
		c.Table = "BaseServerTable"
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = 3
	}
	return c
}

// run is the whole program; main only wires the environment and exit code.
func run(ctx context.Context, w io.Writer, c cfg) error {
	c = c.withDefaults()
	fmt.Fprintf(w, "base server example (seed 002): app_id=%s env=%s\n", c.AppID, c.Env)
	if len(c.ValkeyAddrs) == 0 {
		fmt.Fprintln(w, "no Valkey configured (set TABLEKIT_VALKEY_ADDR, or BASESERVER_VALKEY_ENDPOINT for TLS):",
			"the Redis-backed parts (cached values, sessions, the Valkey lock) need a server and are skipped")
		if err := runBypass(ctx, w, c); err != nil {
			return err
		}
	} else if err := runValkey(ctx, w, c); err != nil {
		return err
	}
	return runDynamoLocks(ctx, w, c)
}

// ---------------------------------------------------------------------------
// Without a server: bypass mode.

func runBypass(ctx context.Context, w io.Writer, c cfg) error {
	section(w, "cache without a server (bypass mode)")
	cc, err := cache.New(cache.Options{AppID: c.AppID, Env: c.Env, Service: c.Service})
	if err != nil {
		return err
	}
	defer cc.Close()
	if err := showNamespace(w, cc); err != nil {
		return err
	}
	loads := 0
	for range 2 {
		if _, err := cache.GetOrLoad(ctx, cc, "user:profile:123", time.Hour, func(context.Context) (profile, error) {
			loads++
			return profile{UserID: "123", Name: "Kim", Tier: "gold"}, nil
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "GetOrLoad user:profile:123 twice: the loader ran %d times (nothing is cached)\n", loads)
	if _, err := cc.Get(ctx, "user:profile:123"); errors.Is(err, cache.ErrMiss) {
		fmt.Fprintln(w, "Get user:profile:123: cache: miss (reads miss, writes do nothing, nothing fails)")
	}
	if _, err := session.New(cc); errors.Is(err, session.ErrNoServer) {
		fmt.Fprintf(w, "sessions: %v (sessions cannot be bypassed)\n", err)
	}
	m := cc.Metrics()
	fmt.Fprintf(w, "metrics: operations=%d bypassed=%d misses=%d\n", m.Total, m.Bypassed, m.Misses)
	h := cc.Health(ctx)
	fmt.Fprintf(w, "health: healthy=%t enabled=%t (nothing depends on a server)\n", h.Healthy, h.Enabled)
	return nil
}

// showNamespace prints how keys are namespaced: {app_id}:{env}:{service}:{key}.
func showNamespace(w io.Writer, cc *cache.Cache) error {
	fmt.Fprintln(w, "key namespace {app_id}:{env}:{service}:{key}:")
	examples := []struct{ service, key string }{
		{"", "user:profile:123"},
		{"session", "abc123-def456"},
		{"mq", "message:uuid-1234"},
		{"lock", lock.OutboxEvents.Key},
	}
	for _, e := range examples {
		v := cc
		if e.service != "" {
			var err error
			if v, err = cc.WithService(e.service, false); err != nil {
				return err
			}
		}
		full, err := v.Key(e.key)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %s\n", full)
	}
	_, err := cc.Key("user:profile:{user_id}")
	fmt.Fprintf(w, "  a placeholder copied from the document is rejected: %v\n", err)
	return nil
}

func section(w io.Writer, title string) { fmt.Fprintf(w, "\n== %s\n", title) }

// ---------------------------------------------------------------------------
// With a server.

// glideClient is what the program needs of a glide client; *glide.Client and
// *glide.ClusterClient both have it.
type glideClient interface {
	valkeylock.Client
	Close()
}

// connect builds one glide client, shared by the cache (through
// cache.NewGlideConn) and the Valkey lock backend.
func connect(c cfg) (glideClient, cache.Conn, error) {
	const timeout = 500 * time.Millisecond
	var nodes []*config.NodeAddress
	for _, a := range c.ValkeyAddrs {
		h, p, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil {
			return nil, nil, fmt.Errorf("valkey address %q: %w", a, err)
		}
		port, err := strconv.Atoi(p)
		if err != nil {
			return nil, nil, fmt.Errorf("valkey address %q: bad port", a)
		}
		nodes = append(nodes, &config.NodeAddress{Host: h, Port: port})
	}
	if c.Cluster {
		gc := config.NewClusterClientConfiguration().WithUseTLS(c.TLS).WithRequestTimeout(timeout)
		for _, n := range nodes {
			gc.WithAddress(n)
		}
		cl, err := glide.NewClusterClient(gc)
		if err != nil {
			return nil, nil, err
		}
		return cl, cache.NewGlideClusterConn(cl), nil
	}
	gc := config.NewClientConfiguration().WithUseTLS(c.TLS).WithRequestTimeout(timeout)
	for _, n := range nodes {
		gc.WithAddress(n)
	}
	cl, err := glide.NewClient(gc)
	if err != nil {
		return nil, nil, err
	}
	return cl, cache.NewGlideConn(cl), nil
}

func runValkey(ctx context.Context, w io.Writer, c cfg) error {
	gc, conn, err := connect(c)
	if err != nil {
		return fmt.Errorf("connect to Valkey at %s: %w", strings.Join(c.ValkeyAddrs, ","), err)
	}
	// valkeylock.New also initialises glide's process-wide state once, which
	// glide v2.5.3 otherwise sets lazily and racily on the first command:
	// build it before the client is used by several goroutines.
	lb, err := valkeylock.New(gc, func(o *valkeylock.Options) { o.Prefix = c.AppID + ":" + c.Env })
	if err != nil {
		gc.Close()
		return err
	}
	cc, err := cache.New(cache.Options{AppID: c.AppID, Env: c.Env, Service: c.Service, Conn: conn, Cluster: c.Cluster})
	if err != nil {
		gc.Close()
		return err
	}
	defer cc.Close() // closes gc too
	if h := cc.Health(ctx); !h.Healthy {
		return fmt.Errorf("valkey at %s is not healthy: %w", strings.Join(c.ValkeyAddrs, ","), h.Err)
	}
	fmt.Fprintf(w, "connected to Valkey at %s (tls=%t cluster=%t)\n", strings.Join(c.ValkeyAddrs, ","), c.TLS, c.Cluster)

	section(w, "key namespace")
	if err := showNamespace(w, cc); err != nil {
		return err
	}
	lockView, err := cc.WithService("lock", false)
	if err != nil {
		return err
	}
	for _, p := range lock.Presets() {
		same, _ := lockView.Key(p.Key)
		if lb.Key(p.Key) != same {
			return fmt.Errorf("lock key %s differs from the cache namespace %s", lb.Key(p.Key), same)
		}
	}
	fmt.Fprintln(w, "  the Valkey lock backend uses the same namespace (service \"lock\") for every preset")

	section(w, "cache key patterns")
	var cleanup []string
	if cleanup, err = cachePatterns(ctx, w, cc); err != nil {
		return err
	}

	section(w, "sessions")
	if err := sessions(ctx, w, cc, c.MaxSessions); err != nil {
		return err
	}

	section(w, "distributed lock on Valkey")
	// The second "server" gets its own connection, as another process would.
	gc2, _, err := connect(c)
	if err != nil {
		return err
	}
	defer gc2.Close()
	lb2, err := valkeylock.New(gc2, func(o *valkeylock.Options) { o.Prefix = c.AppID + ":" + c.Env })
	if err != nil {
		return err
	}
	ttlOnServer := func(ctx context.Context, key string) string {
		ttl, err := lockView.TTL(ctx, key)
		if err != nil {
			return fmt.Sprintf("server key %s: %v", lb.Key(key), err)
		}
		return fmt.Sprintf("server key %s TTL %s", lb.Key(key), ttl.Round(time.Second))
	}
	if err := locks(ctx, w, lock.New(lb), lock.New(lb2), ttlOnServer); err != nil {
		return err
	}

	section(w, "metrics and health check")
	n, err := cc.Delete(ctx, cleanup...)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "demo cleanup: deleted %d cache keys\n", n)
	m := cc.Metrics()
	fmt.Fprintf(w, "metrics: operations=%d successful=%d failed=%d success_rate=%.3f\n", m.Total, m.Success, m.Failed, m.SuccessRate)
	fmt.Fprintf(w, "metrics: hits=%d misses=%d hit_rate=%.3f average_latency=%s\n", m.Hits, m.Misses, m.HitRate, m.AvgLatency.Round(time.Microsecond))
	fmt.Fprintf(w, "metrics: connection_failures=%d timeouts=%d server_errors=%d\n", m.ConnectionFailures, m.Timeouts, m.ServerErrors)
	h := cc.Health(ctx)
	fmt.Fprintf(w, "health: healthy=%t nodes=%d\n", h.Healthy, len(h.Nodes))
	for _, n := range h.Nodes {
		addr := n.Addr
		if addr == "" {
			addr = "standalone"
		}
		dbs := make([]string, 0, len(n.Keyspace))
		for db := range n.Keyspace {
			dbs = append(dbs, db)
		}
		sort.Strings(dbs)
		fmt.Fprintf(w, "  %s: redis_version=%s connected_clients=%d used_memory_human=%s keyspace=%v\n",
			addr, n.Version, n.ConnectedClients, n.UsedMemoryHuman, dbs)
	}
	if !h.Healthy {
		return fmt.Errorf("health check failed: %w", h.Err)
	}
	return nil
}

// profile is the JSON value cached at user:profile:{user_id}.
type profile struct {
	UserID string `json:"user_id"`
	Name   string `json:"name"`
	Tier   string `json:"tier"`
}

// cachePatterns shows the seed's cache key patterns with string, hash,
// set and sorted-set operations. It returns the keys to delete at the end.
func cachePatterns(ctx context.Context, w io.Writer, cc *cache.Cache) ([]string, error) {
	const (
		profileKey  = "user:profile:123"
		settingsKey = "user:settings:123"
		permsKey    = "user:permissions:123"
		boardKey    = "leaderboard:daily"
	)
	keys := []string{profileKey, settingsKey, permsKey, boardKey, "user:profile:404"}

	// String: set_string / get_string with a JSON profile.
	b, _ := json.Marshal(profile{UserID: "123", Name: "Kim", Tier: "gold"})
	if err := cc.Set(ctx, profileKey, string(b), time.Hour); err != nil {
		return nil, err
	}
	got, err := cc.Get(ctx, profileKey)
	if err != nil {
		return nil, err
	}
	full, _ := cc.Key(profileKey)
	fmt.Fprintf(w, "string %s = %s\n", full, got)
	if _, err := cc.Get(ctx, "user:profile:404"); errors.Is(err, cache.ErrMiss) {
		fmt.Fprintln(w, "string user:profile:404: cache: miss")
	} else if err != nil {
		return nil, err
	}

	// Cache-aside: the loader runs on the miss only.
	loads := 0
	for range 3 {
		if _, err := cache.GetOrLoad(ctx, cc, "user:profile:404", time.Minute, func(context.Context) (profile, error) {
			loads++
			return profile{UserID: "404", Name: "Lee", Tier: "basic"}, nil
		}); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "cache-aside user:profile:404 read 3 times: loader ran %d time(s)\n", loads)

	// Hash: set_hash_all / get_hash_all.
	if err := cc.HSetAll(ctx, settingsKey, map[string]string{
		"theme": "dark", "language": "ko", "notifications": "true",
	}, time.Hour); err != nil {
		return nil, err
	}
	settings, err := cc.HGetAll(ctx, settingsKey)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "hash %s = theme:%s language:%s notifications:%s\n", settingsKey,
		settings["theme"], settings["language"], settings["notifications"])
	if err := cc.HSet(ctx, settingsKey, "theme", "light"); err != nil {
		return nil, err
	}
	theme, err := cc.HGet(ctx, settingsKey, "theme")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "hash %s field theme after HSet = %s\n", settingsKey, theme)

	// Set: permissions.
	if _, err := cc.SAdd(ctx, permsKey, "account:read", "transfer:create"); err != nil {
		return nil, err
	}
	if err := cc.Expire(ctx, permsKey, time.Hour); err != nil {
		return nil, err
	}
	canTransfer, err := cc.SIsMember(ctx, permsKey, "transfer:create")
	if err != nil {
		return nil, err
	}
	canAdmin, err := cc.SIsMember(ctx, permsKey, "admin")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "set %s: transfer:create=%t admin=%t\n", permsKey, canTransfer, canAdmin)

	// Sorted set: set_sorted_value("leaderboard:daily", 95.5, "user:123").
	for member, score := range map[string]float64{"user:123": 95.5, "user:456": 88, "user:789": 99.25, "user:42": 70} {
		if err := cc.ZAdd(ctx, boardKey, member, score); err != nil {
			return nil, err
		}
	}
	if err := cc.Expire(ctx, boardKey, 24*time.Hour); err != nil {
		return nil, err
	}
	top, err := cc.ZRangeByRank(ctx, boardKey, 0, 2, true)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(top))
	for i, m := range top {
		parts[i] = fmt.Sprintf("%d. %s %g", i+1, m.Member, m.Score)
	}
	fmt.Fprintf(w, "sorted set %s top 3: %s\n", boardKey, strings.Join(parts, ", "))
	rank, err := cc.ZRank(ctx, boardKey, "user:123", true)
	if err != nil {
		return nil, err
	}
	score, err := cc.ZScore(ctx, boardKey, "user:123")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "sorted set %s: user:123 ranks #%d with %g\n", boardKey, rank+1, score)
	return keys, nil
}

// sessions shows a session lifecycle: create, validate (refresh),
// the concurrent-session limit, rotation and logout.
func sessions(ctx context.Context, w io.Writer, cc *cache.Cache, maxSessions int) error {
	s, err := session.New(cc, func(o *session.Options) {
		o.MaxSessions = maxSessions
		// calculate_shard_id(account_db_key) of the seed.
		o.ShardFunc = func(accountDBKey int64) int64 { return accountDBKey % 4 }
	})
	if err != nil {
		return err
	}
	view, err := cc.WithService(session.DefaultService, true)
	if err != nil {
		return err
	}
	const user = "acc-1001"
	device := "iPhone 15"
	in := session.CreateInput{UserAccountID: user, AccountDBKey: 1001, PlatformType: 1, ClientVersion: "2.4.0", DeviceInfo: &device}

	first, info, err := s.Create(ctx, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "create: token %s session_id=%s user=%s shard_id=%d ttl=%s absolute lifetime: %t\n",
		session.Redact(first), info.SessionID, info.UserAccountID, info.ShardID, session.DefaultTTL,
		!info.ExpiresAt.IsZero())
	// Seed 002's keys exactly (session.HashTagLayout would wrap the token
	// in a cluster hash tag).
	atKey, _ := view.Key("accessToken:" + session.Redact(first))
	siKey, _ := view.Key("sessionInfo:" + session.Redact(first))
	fmt.Fprintf(w, "  keys %s (string) and %s (hash)\n", atKey, siKey)

	time.Sleep(30 * time.Millisecond)
	before, err := view.TTL(ctx, "accessToken:"+first)
	if err != nil {
		return err
	}
	v, err := s.Validate(ctx, first)
	if err != nil {
		return err
	}
	after, err := view.TTL(ctx, "accessToken:"+first)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "validate: ok, last_access_time moved %s past login_time; TTL refreshed %t (%s -> %s)\n",
		v.LastAccessTime.Sub(v.LoginTime).Round(10*time.Millisecond), after > before,
		before.Round(time.Millisecond), after.Round(time.Millisecond))

	tokens := []string{first}
	for range maxSessions {
		t, _, err := s.Create(ctx, in)
		if err != nil {
			return err
		}
		tokens = append(tokens, t)
	}
	_, err = s.Validate(ctx, first)
	fmt.Fprintf(w, "limit %d: %d logins, the oldest (%s) was evicted: %t\n",
		maxSessions, len(tokens), session.Redact(first), errors.Is(err, session.ErrInvalidSession))
	valid := 0
	for _, t := range tokens[1:] {
		if _, err := s.Validate(ctx, t); err == nil {
			valid++
		} else if !errors.Is(err, session.ErrInvalidSession) {
			return err
		}
	}
	tracked, err := s.Sessions(ctx, user)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  the %d newer sessions still validate: %d; tracked oldest first: %d\n", len(tokens)-1, valid, len(tracked))
	fmt.Fprintln(w, "  (the seed evicts set_members()[0], but a Redis set has no order; the store keeps logins in a sorted set by login time)")

	rotated, _, err := s.Rotate(ctx, tokens[1])
	if err != nil {
		return err
	}
	_, oldErr := s.Validate(ctx, tokens[1])
	_, newErr := s.Validate(ctx, rotated)
	fmt.Fprintf(w, "rotate: old token rejected %t, new token valid %t\n", errors.Is(oldErr, session.ErrInvalidSession), newErr == nil)
	tokens[1] = rotated

	if err := s.Logout(ctx, rotated); err != nil {
		return err
	}
	_, err = s.Validate(ctx, rotated)
	fmt.Fprintf(w, "logout: token %s rejected afterwards: %t\n", session.Redact(rotated), errors.Is(err, session.ErrInvalidSession))

	for _, t := range tokens[2:] { // demo cleanup
		if err := s.Logout(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// locks runs the lock manager demo: each preset of the seed's table as a
// scheduler job under WithLock on two competing servers (one on lk, one on
// lk2), then a shutdown with ForceReleaseAll. describe tells where the lock
// lives.
func locks(ctx context.Context, w io.Writer, lk, lk2 *lock.Locker, describe func(context.Context, string) string) error {
	// Each "server" has its own manager. A scheduler tick that finds the job
	// running elsewhere skips it rather than waiting: one attempt, no retry.
	// (A Manager's default is to wait up to DefaultManagerTimeout.)
	noWait := func(o *lock.Options) { o.Retry = retry.Never() }
	servers := []*lock.Manager{lock.NewManager(lk, noWait), lock.NewManager(lk2, noWait)}
	defer func() {
		// Whatever happens (an error, Ctrl-C), a server going down frees its
		// locks so the others need not wait out the TTLs. A fresh ctx: the
		// run's ctx may be what ended.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, m := range servers {
			_ = m.ForceReleaseAll(sctx)
		}
	}()
	for _, p := range lock.Presets() {
		var (
			mu      sync.Mutex
			ran     []string
			skipped []string
			notes   []string
		)
		// The job lasts until every server has tried, so the demo shows the
		// exclusion deterministically; a real job takes as long as it takes.
		var tried sync.WaitGroup
		tried.Add(len(servers))
		var done sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, len(servers))
		for i, m := range servers {
			name := fmt.Sprintf("server-%d", i+1)
			done.Add(1)
			go func() {
				defer done.Done()
				<-start
				triedOnce := sync.OnceFunc(tried.Done)
				defer triedOnce()
				err := m.WithLock(ctx, p.Key, p.TTL, func(ctx context.Context, l *lock.Lock) error {
					triedOnce()
					locked, err := m.IsLocked(ctx, p.Key)
					if err != nil {
						return err
					}
					mu.Lock()
					ran = append(ran, fmt.Sprintf("%s (fence %d)", name, l.Fence()))
					notes = append(notes, fmt.Sprintf("IsLocked=%t held=%v %s", locked, m.Held(), describe(ctx, p.Key)))
					mu.Unlock()
					waitOrTimeout(&tried, 5*time.Second)
					return nil // the job: process_pending_outbox_events() etc.
				})
				switch {
				case errors.Is(err, lock.ErrNotObtained):
					mu.Lock()
					skipped = append(skipped, name)
					mu.Unlock()
				case err != nil:
					errs[i] = fmt.Errorf("%s %s: %w", name, p.Key, err)
				}
			}()
		}
		close(start)
		done.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		locked, err := lk.IsLocked(ctx, p.Key)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s (TTL %s): %d server ran the job %v, %d skipped %v (lock: not obtained); IsLocked after: %t\n",
			p.Key, p.TTL, len(ran), ran, len(skipped), skipped, locked)
		for _, n := range notes {
			fmt.Fprintf(w, "  while running: %s\n", n)
		}
	}

	// Shutdown while long jobs hold their locks: ForceReleaseAll frees what
	// this server holds (comparing tokens, so never another server's lock).
	m := servers[0]
	for _, p := range []lock.Preset{lock.CleanupQueues, lock.MonthlySummary} {
		if _, err := m.Obtain(ctx, p.Key, p.TTL); err != nil {
			return err
		}
	}
	before, err := lk.IsLocked(ctx, lock.CleanupQueues.Key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "shutdown: active locks %v (IsLocked %s=%t)\n", m.Held(), lock.CleanupQueues.Key, before)
	if err := m.ForceReleaseAll(ctx); err != nil {
		return err
	}
	after, err := lk.IsLocked(ctx, lock.CleanupQueues.Key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ForceReleaseAll: active locks %v (IsLocked %s=%t)\n", m.Held(), lock.CleanupQueues.Key, after)
	return nil
}

func waitOrTimeout(wg *sync.WaitGroup, d time.Duration) {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(d):
	}
}

// ---------------------------------------------------------------------------
// The DynamoDB lock backend: a lease item in the application's table.

func runDynamoLocks(ctx context.Context, w io.Writer, c cfg) error {
	db, where := exampleenv.Client(c.DynamoEndpoint)
	section(w, "distributed lock on DynamoDB, "+where)
	created, err := ensureTable(ctx, db, c.Table)
	if err != nil {
		if c.DynamoEndpoint == "" {
			// The embedded engine may not offer every call yet.
			fmt.Fprintf(w, "skipped: the embedded engine cannot create table %s: %v\n", c.Table, err)
			return nil
		}
		return fmt.Errorf("create table %s: %w", c.Table, err)
	}
	if created {
		defer func() {
			// A fresh context: the table goes even if ctx ended.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_, _ = db.DeleteTable(dctx, &dynamodb.DeleteTableInput{TableName: aws.String(c.Table)})
		}()
	}
	b, err := dynamolock.New(db, func(o *dynamolock.Options) { o.Table = c.Table })
	if err != nil {
		return err
	}
	describe := func(ctx context.Context, key string) string {
		k, err := b.ItemKey(key)
		if err != nil {
			return err.Error()
		}
		pk, _ := k["PK"].(*types.AttributeValueMemberS)
		sk, _ := k["SK"].(*types.AttributeValueMemberS)
		if pk == nil || sk == nil {
			return fmt.Sprintf("lease item %v", k)
		}
		return fmt.Sprintf("lease item %s PK=%s SK=%s", c.Table, pk.Value, sk.Value)
	}
	lk := lock.New(b)
	return locks(ctx, w, lk, lk, describe)
}

// ensureTable creates table (PK, SK strings, on demand) unless it exists and
// reports whether it did.
func ensureTable(ctx context.Context, db entity.Client, table string) (bool, error) {
	if _, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err == nil {
		return false, nil
	}
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		return false, err
	}
	return true, nil
}
