package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// With a Valkey server: the cache, sessions and the Valkey lock backend.

// glideClient is what the program needs of a glide client; *glide.Client and
// *glide.ClusterClient both have it.
type glideClient interface {
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
	lb, err := valkeylock.New(conn, func(o *valkeylock.Options) { o.Prefix = c.AppID + ":" + c.Env })
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
	for _, p := range presets() {
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
	gc2, conn2, err := connect(c)
	if err != nil {
		return err
	}
	defer gc2.Close()
	lb2, err := valkeylock.New(conn2, func(o *valkeylock.Options) { o.Prefix = c.AppID + ":" + c.Env })
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
