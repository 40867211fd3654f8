package otelkit

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/feed"
)

// ObserveOptions configures [Telemetry.ObserveCache].
type ObserveOptions struct {
	// HealthTimeout bounds the health check run at each collection.
	// Default 2 s.
	HealthTimeout time.Duration
	// NoHealth leaves the health check out (no round trip per collection).
	NoHealth bool
}

// ObserveCache exposes c's counters ([cache.Cache.Metrics], seed 002's
// metrics) and its health check ([cache.Cache.Health]) as asynchronous
// instruments, read at each collection, with tablekit.cache.name name:
//
//   - tablekit.cache.operations (counter) by tablekit.cache.outcome
//     (success, failed); tablekit.cache.lookups by tablekit.cache.result
//     (hit, miss); tablekit.cache.errors by error.type (connection,
//     timeout, server, rejected); tablekit.cache.bypassed,
//     tablekit.cache.loads, tablekit.cache.load_errors,
//     tablekit.cache.stale_skipped;
//   - tablekit.cache.hit_ratio and tablekit.cache.success_ratio (gauges,
//     0..1), tablekit.cache.latency (gauge, s, the mean);
//   - tablekit.cache.healthy (gauge, 1 or 0), and per node
//     (tablekit.cache.node) tablekit.cache.node.used_memory (By) and
//     tablekit.cache.node.connected_clients.
//
// The structs stay what they are; this reads them. Unregister the
// returned registration when the cache is closed.
func (t *Telemetry) ObserveCache(c *cache.Cache, name string, optFns ...func(*ObserveOptions)) (metric.Registration, error) {
	o := ObserveOptions{HealthTimeout: 2 * time.Second}
	for _, fn := range optFns {
		fn(&o)
	}
	m := t.o.MeterProvider.Meter(ScopeName)
	var errs []error
	ic := func(n, unit, desc string) metric.Int64ObservableCounter {
		in, err := m.Int64ObservableCounter(n, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return in
	}
	fg := func(n, unit, desc string) metric.Float64ObservableGauge {
		in, err := m.Float64ObservableGauge(n, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return in
	}
	ig := func(n, unit, desc string) metric.Int64ObservableGauge {
		in, err := m.Int64ObservableGauge(n, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return in
	}
	ops := ic("tablekit.cache.operations", "{operation}", "Cache server operations by outcome (cache.Metrics Success, Failed).")
	lookups := ic("tablekit.cache.lookups", "{lookup}", "Cache lookups by result (cache.Metrics Hits, Misses).")
	errCount := ic("tablekit.cache.errors", "{error}", "Cache server-side errors by kind (cache.Metrics).")
	bypassed := ic("tablekit.cache.bypassed", "{call}", "GetOrLoad calls run without an endpoint.")
	loads := ic("tablekit.cache.loads", "{load}", "Loader runs.")
	loadErrs := ic("tablekit.cache.load_errors", "{load}", "Loader runs that failed.")
	stale := ic("tablekit.cache.stale_skipped", "{load}", "Loaded values not cached because an invalidation landed meanwhile.")
	hitRatio := fg("tablekit.cache.hit_ratio", "1", "Hits / (hits + misses) since the cache was made.")
	okRatio := fg("tablekit.cache.success_ratio", "1", "Successful / all server operations.")
	latency := fg("tablekit.cache.latency", "s", "Mean duration of a server operation, retries included.")
	healthy := ig("tablekit.cache.healthy", "1", "1 when every node answered PING and INFO (cache.Health), else 0.")
	mem := ig("tablekit.cache.node.used_memory", "By", "used_memory of each node (INFO).")
	clients := ig("tablekit.cache.node.connected_clients", "{client}", "connected_clients of each node (INFO).")
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("otelkit: cache instruments: %w", err)
		}
	}
	nameAttr := attribute.String("tablekit.cache.name", name)
	with := func(kvs ...attribute.KeyValue) metric.ObserveOption {
		return metric.WithAttributes(append([]attribute.KeyValue{nameAttr}, kvs...)...)
	}
	insts := []metric.Observable{ops, lookups, errCount, bypassed, loads, loadErrs, stale, hitRatio, okRatio, latency}
	if !o.NoHealth {
		insts = append(insts, healthy, mem, clients)
	}
	return m.RegisterCallback(func(ctx context.Context, ob metric.Observer) error {
		s := c.Metrics()
		if !o.NoHealth {
			hctx, cancel := context.WithTimeout(ctx, o.HealthTimeout)
			h := c.Health(hctx)
			cancel()
			s = h.Metrics
			v := int64(0)
			if h.Healthy {
				v = 1
			}
			ob.ObserveInt64(healthy, v, with())
			for _, n := range h.Nodes {
				node := attribute.String("tablekit.cache.node", n.Addr)
				ob.ObserveInt64(mem, n.UsedMemory, with(node))
				ob.ObserveInt64(clients, n.ConnectedClients, with(node))
			}
		}
		ob.ObserveInt64(ops, s.Success, with(attribute.String("tablekit.cache.outcome", "success")))
		ob.ObserveInt64(ops, s.Failed, with(attribute.String("tablekit.cache.outcome", "failed")))
		ob.ObserveInt64(lookups, s.Hits, with(attribute.String("tablekit.cache.result", "hit")))
		ob.ObserveInt64(lookups, s.Misses, with(attribute.String("tablekit.cache.result", "miss")))
		for kind, n := range map[string]int64{"connection": s.ConnectionFailures, "timeout": s.Timeouts, "server": s.ServerErrors, "rejected": s.Rejected} {
			ob.ObserveInt64(errCount, n, with(attribute.String("error.type", kind)))
		}
		ob.ObserveInt64(bypassed, s.Bypassed, with())
		ob.ObserveInt64(loads, s.Loads, with())
		ob.ObserveInt64(loadErrs, s.LoadErrors, with())
		ob.ObserveInt64(stale, s.StaleSkipped, with())
		ob.ObserveFloat64(hitRatio, s.HitRate, with())
		ob.ObserveFloat64(okRatio, s.SuccessRate, with())
		ob.ObserveFloat64(latency, s.AvgLatency.Seconds(), with())
		return nil
	}, insts...)
}

// ObserveFeed exposes c's per-shard figures ([feed.Consumer.Metrics]) as
// asynchronous instruments, with tablekit.feed.table table and
// tablekit.feed.shard: tablekit.feed.shard.lag (gauge, s, the age of the
// first record of the last read), tablekit.feed.shard.lag_records (gauge,
// records read and not yet checkpointed), tablekit.feed.shard.handled,
// .retried and .dead_lettered (counters) and tablekit.feed.shard.owned
// (gauge, 1 while this consumer holds the shard).
func (t *Telemetry) ObserveFeed(c *feed.Consumer, table string) (metric.Registration, error) {
	m := t.o.MeterProvider.Meter(ScopeName)
	lag, err1 := m.Float64ObservableGauge("tablekit.feed.shard.lag", metric.WithUnit("s"),
		metric.WithDescription("Age of the first record of a shard's last read (0: caught up)."))
	lagRecs, err2 := m.Int64ObservableGauge("tablekit.feed.shard.lag_records", metric.WithUnit("{record}"),
		metric.WithDescription("Records read from a shard and not yet checkpointed."))
	handled, err3 := m.Int64ObservableCounter("tablekit.feed.shard.handled", metric.WithUnit("{record}"),
		metric.WithDescription("Records of a shard whose handler succeeded."))
	retried, err4 := m.Int64ObservableCounter("tablekit.feed.shard.retried", metric.WithUnit("{record}"),
		metric.WithDescription("Records of a shard handed back after a failed attempt."))
	dead, err5 := m.Int64ObservableCounter("tablekit.feed.shard.dead_lettered", metric.WithUnit("{record}"),
		metric.WithDescription("Records of a shard given to the dead letter."))
	owned, err6 := m.Int64ObservableGauge("tablekit.feed.shard.owned", metric.WithUnit("1"),
		metric.WithDescription("1 while this consumer holds the shard's lease."))
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			return nil, fmt.Errorf("otelkit: feed instruments: %w", err)
		}
	}
	tbl := attribute.String("tablekit.feed.table", table)
	return m.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		for _, s := range c.Metrics() {
			at := metric.WithAttributes(tbl, attribute.String("tablekit.feed.shard", s.Shard))
			ob.ObserveFloat64(lag, s.Lag.Seconds(), at)
			ob.ObserveInt64(lagRecs, s.LagRecords, at)
			ob.ObserveInt64(handled, s.Handled, at)
			ob.ObserveInt64(retried, s.Retried, at)
			ob.ObserveInt64(dead, s.DeadLettered, at)
			o := int64(0)
			if s.Owned {
				o = 1
			}
			ob.ObserveInt64(owned, o, at)
		}
		return nil
	}, lag, lagRecs, handled, retried, dead, owned)
}
