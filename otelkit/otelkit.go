// Package otelkit exposes tablekit to OpenTelemetry: spans and metrics for
// entity requests and query pages (entity.Tracer, query.PageTracer), cache
// reads (cache.Tracer), cached-store reads (cachestore.Tracer), lock
// obtains (lock.Tracer), idempotent calls (idempotency.Tracer), consumer
// deliveries (consumer.Tracer), change-feed batches (feed.Tracer) and
// live-table jobs (evolve.Progress), through the small tracer interfaces
// those packages own, and seed 002's cache metrics and health check as
// observable instruments. It is the only tablekit package that imports
// OpenTelemetry: a program that does not import otelkit does not link it,
// and a hook left unset costs a nil check.
//
// # Spans
//
// Every DynamoDB request the runtime sends (Get, Put, a page's Query, one
// chunk of a batch, one attempt of a transaction) is a client span named
// "OPERATION TABLE", a child of the caller's span; the AWS SDK's own
// instrumentation (otelaws) nests under it when installed, as the request
// is sent with the span's ctx (see Example). Attributes follow
// OpenTelemetry's semantic conventions for databases: db.system.name
// "aws.dynamodb" (and the older db.system), db.operation.name,
// db.collection.name, aws.dynamodb.table_names, aws.dynamodb.index_name,
// aws.dynamodb.consumed_capacity, error.type; tablekit's own under
// "tablekit.": tablekit.entity and tablekit.access_pattern (the entity
// type and pattern the runtime knows: a Store's type, a query's pattern,
// query.Get's, entity.WithPattern; [Label] fills what it does not know),
// tablekit.items, tablekit.consumed.read_units and
// tablekit.consumed.write_units, tablekit.retries and tablekit.throttles
// (from the SDK's attempt metadata), tablekit.cancellation_reasons (a
// cancelled transaction's reasons, one code per item). The attributes are
// built once per operation, table, index, entity and pattern, and a
// request's span gets them all when it ends, in one call, which the SDK
// stores with one allocation: a sampler sees the span's name and kind, and
// a span that is not recorded costs no attribute at all.
//
// Each page of a query is an internal span "page PATTERN" with the same
// table, entity and pattern attributes and tablekit.page.requests,
// tablekit.items, tablekit.page.more, tablekit.page.resumed and
// tablekit.page.limit, the parent of its Query requests.
//
// The other spans are described on the methods that make their tracers:
// [Telemetry.Cache] ("GET", "GETSYNCED"), [Telemetry.CacheStore] ("cache
// get TYPE"), [Telemetry.Lock] ("lock obtain"), [Telemetry.Idempotency]
// ("idempotency Do"), [Telemetry.Consumer] ("process QUEUE", consumer
// kind, messaging.system default "aws_sqs", messaging.operation.name
// "process", messaging.destination.name, messaging.message.id,
// tablekit.receive_count, tablekit.outcome), [Telemetry.Feed] ("process
// TABLE", "dead letter TABLE") and [Telemetry.Evolve] ("evolve JOB" and
// its segments).
//
// # Metrics
//
//   - db.client.operation.duration (s), by table, operation, index, entity,
//     access pattern and error.type; tablekit.query.page.duration (s);
//   - tablekit.dynamodb.consumed_read_units and
//     tablekit.dynamodb.consumed_write_units (counters), by the same
//     attributes: what each access pattern costs; tablekit.dynamodb.throttles;
//   - tablekit.cache.reads (counter) and tablekit.cache.duration by
//     tablekit.cache.layer (cache, store) and tablekit.cache.result: the hit
//     ratio; [Telemetry.ObserveCache] adds cache.Metrics and cache.Health;
//   - tablekit.lock.wait (s) and tablekit.lock.attempts by outcome;
//   - tablekit.idempotency.calls and tablekit.idempotency.duration by outcome;
//   - messaging.process.duration (s), tablekit.consumer.lag (s, from the
//     message's send time to the start of its handling) and
//     tablekit.consumer.deliveries (counter) by tablekit.outcome, whose
//     "dead_lettered" count is the dead letters;
//   - tablekit.feed.batch.duration, tablekit.feed.lag (s, the age of a
//     batch's first record), tablekit.feed.records and
//     tablekit.feed.dead_letters by table; [Telemetry.ObserveFeed] adds the
//     per-shard figures of feed.Consumer.Metrics;
//   - tablekit.evolve.items by job and count, tablekit.evolve.segments.
package otelkit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/consumer"
)

// ScopeName is the instrumentation scope of otelkit's tracer and meter.
const ScopeName = "github.com/tablekit/tablekit/otelkit"

// Options configures a [Telemetry]. The zero value is valid.
type Options struct {
	// TracerProvider makes the spans. Default otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics. Default otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// MessagingSystem is the messaging.system of consumer spans. Default
	// "aws_sqs".
	MessagingSystem string
}

// Telemetry holds the tracer, the meter and the instruments. It is safe
// for concurrent use; create it with [New] and hand its tracers to the
// tables and consumers ([Telemetry.Entity], [Telemetry.Consumer]).
type Telemetry struct {
	o      Options
	tracer trace.Tracer

	reqs    sync.Map // reqKey -> *reqAttrs
	nreqs   atomic.Int64
	lastReq atomic.Pointer[reqAttrs] // the last reqs entry attrs returned

	// sdkSpans is set when the tracer provider is the OpenTelemetry SDK's,
	// whose spans copy the attributes they are given: attrBufs then holds
	// reusable attribute buffers (*[]attribute.KeyValue).
	sdkSpans bool
	attrBufs sync.Pool

	dbDuration      metric.Float64Histogram
	readUnits       metric.Float64Counter
	writeUnits      metric.Float64Counter
	throttles       metric.Int64Counter
	pageDuration    metric.Float64Histogram
	processDuration metric.Float64Histogram
	lag             metric.Float64Histogram
	deliveries      metric.Int64Counter

	cacheReads     metric.Int64Counter
	cacheDuration  metric.Float64Histogram
	lockWait       metric.Float64Histogram
	lockAttempts   metric.Int64Histogram
	idemCalls      metric.Int64Counter
	idemDuration   metric.Float64Histogram
	feedDuration   metric.Float64Histogram
	feedLag        metric.Float64Histogram
	feedRecords    metric.Int64Counter
	feedDead       metric.Int64Counter
	evolveItems    metric.Int64Counter
	evolveSegments metric.Int64Counter
}

// New returns a Telemetry on the providers of optFns (the global ones by
// default). It returns the meter's error if an instrument cannot be made.
func New(optFns ...func(*Options)) (*Telemetry, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.MessagingSystem == "" {
		o.MessagingSystem = "aws_sqs"
	}
	t := &Telemetry{o: o, tracer: o.TracerProvider.Tracer(ScopeName)}
	_, t.sdkSpans = o.TracerProvider.(*sdktrace.TracerProvider)
	m := o.MeterProvider.Meter(ScopeName)
	var errs []error
	mk := func(err error) { errs = append(errs, err) }
	var err error
	t.dbDuration, err = m.Float64Histogram("db.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of DynamoDB requests sent by tablekit."))
	mk(err)
	t.readUnits, err = m.Float64Counter("tablekit.dynamodb.consumed_read_units", metric.WithUnit("{unit}"),
		metric.WithDescription("Read capacity units consumed, by table, entity and access pattern."))
	mk(err)
	t.writeUnits, err = m.Float64Counter("tablekit.dynamodb.consumed_write_units", metric.WithUnit("{unit}"),
		metric.WithDescription("Write capacity units consumed, by table, entity and access pattern."))
	mk(err)
	t.throttles, err = m.Int64Counter("tablekit.dynamodb.throttles", metric.WithUnit("{attempt}"),
		metric.WithDescription("Throttled attempts of DynamoDB requests, by table, entity and access pattern."))
	mk(err)
	t.pageDuration, err = m.Float64Histogram("tablekit.query.page.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of query pages, by table, entity and access pattern."))
	mk(err)
	t.processDuration, err = m.Float64Histogram("messaging.process.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of consumer handlers."))
	mk(err)
	t.lag, err = m.Float64Histogram("tablekit.consumer.lag", metric.WithUnit("s"),
		metric.WithDescription("Time from a message's send to the start of its handling."))
	mk(err)
	t.deliveries, err = m.Int64Counter("tablekit.consumer.deliveries", metric.WithUnit("{delivery}"),
		metric.WithDescription("Consumer deliveries by outcome (dead_lettered: the dead letters)."))
	mk(err)
	t.cacheReads, err = m.Int64Counter("tablekit.cache.reads", metric.WithUnit("{read}"),
		metric.WithDescription("Cache reads by tablekit.cache.result (hit, near_hit, barrier_hit, miss, error; and a cached store's negative_hit, fail_open, bypass): the hit ratio."))
	mk(err)
	t.cacheDuration, err = m.Float64Histogram("tablekit.cache.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of cache reads and cached-store gets, by result."))
	mk(err)
	t.lockWait, err = m.Float64Histogram("tablekit.lock.wait", metric.WithUnit("s"),
		metric.WithDescription("Time Obtain took, by outcome (obtained, not_obtained, error)."))
	mk(err)
	t.lockAttempts, err = m.Int64Histogram("tablekit.lock.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Acquire attempts per Obtain, by outcome."))
	mk(err)
	t.idemCalls, err = m.Int64Counter("tablekit.idempotency.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Idempotent calls by outcome (new, replayed, in_progress, error)."))
	mk(err)
	t.idemDuration, err = m.Float64Histogram("tablekit.idempotency.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of idempotent calls, by outcome."))
	mk(err)
	t.feedDuration, err = m.Float64Histogram("tablekit.feed.batch.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of change-feed handler calls, by table."))
	mk(err)
	t.feedLag, err = m.Float64Histogram("tablekit.feed.lag", metric.WithUnit("s"),
		metric.WithDescription("Age of a change-feed batch's first record when its handler starts, by table."))
	mk(err)
	t.feedRecords, err = m.Int64Counter("tablekit.feed.records", metric.WithUnit("{record}"),
		metric.WithDescription("Change-feed records handed to a handler, by table and error.type."))
	mk(err)
	t.feedDead, err = m.Int64Counter("tablekit.feed.dead_letters", metric.WithUnit("{record}"),
		metric.WithDescription("Change-feed records given to the dead letter, by table."))
	mk(err)
	t.evolveItems, err = m.Int64Counter("tablekit.evolve.items", metric.WithUnit("{item}"),
		metric.WithDescription("Items of live-table jobs by job and tablekit.evolve.count (scanned, changed, moved, skipped, conflicts, failures)."))
	mk(err)
	t.evolveSegments, err = m.Int64Counter("tablekit.evolve.segments", metric.WithUnit("{segment}"),
		metric.WithDescription("Segments of live-table jobs finished by this process, by job."))
	mk(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("otelkit: instruments: %w", err)
	}
	return t, nil
}

// Consumer returns the [consumer.Tracer] of t for the queue named queue
// (messaging.destination.name).
func (t *Telemetry) Consumer(queue string) consumer.Tracer {
	return consumerTracer{t: t, queue: queue}
}

type consumerTracer struct {
	t     *Telemetry
	queue string
}

func (c consumerTracer) DeliveryStart(ctx context.Context, ev consumer.DeliveryStartEvent) context.Context {
	ctx, _ = c.t.tracer.Start(ctx, "process "+c.queue, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		attribute.String("messaging.system", c.t.o.MessagingSystem),
		attribute.String("messaging.operation.name", "process"),
		attribute.String("messaging.operation.type", "process"),
		attribute.String("messaging.destination.name", c.queue),
		attribute.String("messaging.message.id", ev.MessageID),
		attribute.Int("tablekit.receive_count", ev.ReceiveCount),
	))
	if !ev.SentAt.IsZero() {
		c.t.lag.Record(ctx, time.Since(ev.SentAt).Seconds(), metric.WithAttributes(
			attribute.String("messaging.system", c.t.o.MessagingSystem), attribute.String("messaging.destination.name", c.queue)))
	}
	return ctx
}

func (c consumerTracer) DeliveryEnd(ctx context.Context, ev consumer.DeliveryEvent) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("tablekit.outcome", ev.Outcome))
	if ev.Err != nil {
		span.RecordError(ev.Err)
		if ev.Outcome != consumer.OutcomeDropped {
			span.SetStatus(codes.Error, ev.Err.Error())
		}
	}
	span.End()
	attrs := metric.WithAttributes(attribute.String("messaging.system", c.t.o.MessagingSystem),
		attribute.String("messaging.destination.name", c.queue), attribute.String("tablekit.outcome", ev.Outcome))
	c.t.processDuration.Record(ctx, ev.Duration.Seconds(), attrs)
	c.t.deliveries.Add(ctx, 1, attrs)
}
