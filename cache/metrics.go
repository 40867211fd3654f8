package cache

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

type metrics struct {
	total, success, failed       atomic.Int64
	hits, misses                 atomic.Int64
	connFailures, timeouts       atomic.Int64
	serverErrors, rejected       atomic.Int64
	bypassed                     atomic.Int64
	latencyNanos                 atomic.Int64
	loads, loadErrors, staleSkip atomic.Int64
}

// Metrics is a snapshot of a cache's counters (operations, successes,
// failures by kind, hits, misses, bypassed calls) plus derived rates. Counters are cumulative since [New]; views made by
// [Cache.WithService] share them.
type Metrics struct {
	// Total counts server operations attempted (one per call, not per
	// retry); in bypass mode, each GetOrLoad counts once.
	Total int64
	// Success and Failed split Total.
	Success, Failed int64
	// Hits and Misses count lookups (Get, HGetAll, GetOrLoad, ...). In
	// bypass mode every GetOrLoad is a miss.
	Hits, Misses int64
	// ConnectionFailures counts failed attempts on a connection error
	// (retried attempts included); Timeouts counts timed-out operations;
	// ServerErrors counts error replies; Rejected counts calls refused by
	// the open circuit breaker. All but Rejected are server-side errors.
	ConnectionFailures, Timeouts, ServerErrors, Rejected int64
	// Bypassed counts GetOrLoad calls that ran without an endpoint.
	Bypassed int64
	// Loads counts loader runs; LoadErrors those that returned an error.
	Loads, LoadErrors int64
	// StaleSkipped counts loaded values not cached because an
	// invalidation landed while they were loading.
	StaleSkipped int64
	// HitRate is Hits / (Hits + Misses), 0 without lookups.
	HitRate float64
	// SuccessRate is Success / Total, 0 without operations.
	SuccessRate float64
	// AvgLatency is the mean duration of a server operation, retries included.
	AvgLatency time.Duration
}

// Metrics returns a snapshot of the counters.
func (c *Cache) Metrics() Metrics {
	m := &c.core.metrics
	s := Metrics{
		Total: m.total.Load(), Success: m.success.Load(), Failed: m.failed.Load(),
		Hits: m.hits.Load(), Misses: m.misses.Load(),
		ConnectionFailures: m.connFailures.Load(), Timeouts: m.timeouts.Load(),
		ServerErrors: m.serverErrors.Load(), Rejected: m.rejected.Load(),
		Bypassed: m.bypassed.Load(), Loads: m.loads.Load(), LoadErrors: m.loadErrors.Load(),
		StaleSkipped: m.staleSkip.Load(),
	}
	if n := s.Hits + s.Misses; n > 0 {
		s.HitRate = float64(s.Hits) / float64(n)
	}
	if s.Total > 0 {
		s.SuccessRate = float64(s.Success) / float64(s.Total)
	}
	if ops := s.Success + s.Failed - s.Rejected; ops > 0 {
		s.AvgLatency = time.Duration(m.latencyNanos.Load() / ops)
	}
	return s
}

// Errors returns the number of server-side errors (connection failures,
// timeouts, server errors and breaker rejections).
func (m Metrics) Errors() int64 {
	return m.ConnectionFailures + m.Timeouts + m.ServerErrors + m.Rejected
}

// Health is the result of [Cache.Health]: whether every node answers, and
// what each reports about itself.
type Health struct {
	// Healthy is true when every node answered PING and INFO.
	Healthy bool
	// Enabled is false in bypass mode (no endpoint); such a cache reports
	// Healthy true, since nothing depends on a server.
	Enabled bool
	// Nodes has one entry per server node ("" address for standalone).
	Nodes []NodeHealth
	// Metrics is the counters at the time of the check.
	Metrics Metrics
	// Err is the error that made the check unhealthy, nil otherwise.
	Err error
}

// NodeHealth is what INFO says about one node.
type NodeHealth struct {
	Addr             string
	Version          string // redis_version (valkey_version on Valkey)
	ConnectedClients int64
	UsedMemory       int64  // bytes
	UsedMemoryHuman  string // as the server formats it
	// Keyspace maps "db0" etc. to its INFO line ("keys=1,expires=0,...").
	Keyspace map[string]string
}

// Health pings the server and reads INFO. It never returns an error:
// failures are reported in Health.Err with Healthy false.
func (c *Cache) Health(ctx context.Context) Health {
	h := Health{Enabled: c.Enabled()}
	if !h.Enabled {
		h.Healthy = true
		h.Metrics = c.Metrics()
		return h
	}
	var infos map[string]string
	err := c.do(ctx, func(ctx context.Context, conn Conn) error { return conn.Ping(ctx) })
	if err == nil {
		err = c.do(ctx, func(ctx context.Context, conn Conn) (e error) {
			infos, e = conn.Info(ctx)
			return e
		})
	}
	if err != nil {
		h.Err = err
		h.Metrics = c.Metrics()
		return h
	}
	for addr, text := range infos {
		h.Nodes = append(h.Nodes, parseInfo(addr, text))
	}
	h.Healthy = true
	h.Metrics = c.Metrics()
	return h
}

func parseInfo(addr, text string) NodeHealth {
	n := NodeHealth{Addr: addr, Keyspace: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case k == "valkey_version" || (k == "redis_version" && n.Version == ""):
			n.Version = v
		case k == "connected_clients":
			n.ConnectedClients, _ = strconv.ParseInt(v, 10, 64)
		case k == "used_memory":
			n.UsedMemory, _ = strconv.ParseInt(v, 10, 64)
		case k == "used_memory_human":
			n.UsedMemoryHuman = v
		case strings.HasPrefix(k, "db") && strings.Contains(v, "keys="):
			n.Keyspace[k] = v
		}
	}
	return n
}
