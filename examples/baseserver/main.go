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
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
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

func section(w io.Writer, title string) { fmt.Fprintf(w, "\n== %s\n", title) }
