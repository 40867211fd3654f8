package otelkit

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/lock"
)

// fail marks span failed with err and returns its error.type.
func fail(span trace.Span, err error) string {
	et := errorType(err)
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(attribute.String("error.type", et))
	return et
}

// Cache returns the [cache.Tracer] of t (cache.Options.Tracer): each Get
// and GetSynced is a client span named by its command ("GET",
// "GETSYNCED") with db.system.name "redis", db.operation.name,
// tablekit.cache.service, tablekit.cache.key and tablekit.cache.result
// (hit, near_hit, barrier_hit, miss, error), counted in
// tablekit.cache.reads with tablekit.cache.layer "cache".
func (t *Telemetry) Cache() cache.Tracer { return cacheTracer{t} }

type cacheTracer struct{ t *Telemetry }

func (c cacheTracer) CacheRead(ctx context.Context, ev cache.ReadEvent) {
	_, span := c.t.tracer.Start(ctx, ev.Op, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(ev.Start),
		trace.WithAttributes(
			attribute.String("db.system.name", "redis"),
			attribute.String("db.operation.name", ev.Op),
			attribute.String("tablekit.cache.service", ev.Service),
			attribute.String("tablekit.cache.key", ev.Key),
			attribute.String("tablekit.cache.result", ev.Result),
		))
	if ev.Err != nil {
		fail(span, ev.Err)
	}
	span.End(trace.WithTimestamp(ev.Start.Add(ev.Duration)))
	set := metric.WithAttributes(attribute.String("tablekit.cache.layer", "cache"),
		attribute.String("tablekit.cache.service", ev.Service), attribute.String("tablekit.cache.result", ev.Result))
	c.t.cacheReads.Add(ctx, 1, set)
	c.t.cacheDuration.Record(ctx, ev.Duration.Seconds(), set)
}

// CacheStore returns the [cachestore.Tracer] of t (cachestore.Options.Tracer):
// each Get is an internal span "cache get TYPE" with tablekit.entity and
// tablekit.cache.result (hit, negative_hit, miss, fail_open, bypass), the
// parent of the cache's read span and of the table's GetItem span when
// they are traced; counted in tablekit.cache.reads with
// tablekit.cache.layer "store". A read of an item that does not exist is
// not an error of the span.
func (t *Telemetry) CacheStore() cachestore.Tracer { return storeTracer{t} }

type storeTracer struct{ t *Telemetry }

func (s storeTracer) GetStart(ctx context.Context, ev cachestore.GetStartEvent) context.Context {
	ctx, _ = s.t.tracer.Start(ctx, "cache get "+ev.Type, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("tablekit.entity", ev.Type)))
	return ctx
}

func (s storeTracer) GetEnd(ctx context.Context, ev cachestore.GetEvent) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("tablekit.cache.result", string(ev.Result)))
	if ev.Err != nil && !errors.Is(ev.Err, entity.ErrNotFound) {
		fail(span, ev.Err)
	}
	span.End()
	set := metric.WithAttributes(attribute.String("tablekit.cache.layer", "store"),
		attribute.String("tablekit.entity", ev.Type), attribute.String("tablekit.cache.result", string(ev.Result)))
	s.t.cacheReads.Add(ctx, 1, set)
	s.t.cacheDuration.Record(ctx, ev.Duration.Seconds(), set)
}

// Lock returns the [lock.Tracer] of t (lock.Options.Tracer): each Obtain
// is an internal span "lock obtain" with tablekit.lock.key,
// tablekit.lock.ttl (s), tablekit.lock.attempts, tablekit.lock.wait (s),
// tablekit.lock.fence (the fencing token) and tablekit.lock.outcome
// (obtained, not_obtained, error); the wait and the attempts are the
// histograms tablekit.lock.wait and tablekit.lock.attempts by outcome.
func (t *Telemetry) Lock() lock.Tracer { return lockTracer{t} }

type lockTracer struct{ t *Telemetry }

func (l lockTracer) ObtainStart(ctx context.Context, ev lock.ObtainStartEvent) context.Context {
	ctx, _ = l.t.tracer.Start(ctx, "lock obtain", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("tablekit.lock.key", ev.Key), attribute.Float64("tablekit.lock.ttl", ev.TTL.Seconds())))
	return ctx
}

func (l lockTracer) ObtainEnd(ctx context.Context, ev lock.ObtainEvent) {
	span := trace.SpanFromContext(ctx)
	outcome := "obtained"
	switch {
	case errors.Is(ev.Err, lock.ErrNotObtained):
		outcome = "not_obtained"
	case ev.Err != nil:
		outcome = "error"
	}
	span.SetAttributes(attribute.Int("tablekit.lock.attempts", ev.Attempts), attribute.Float64("tablekit.lock.wait", ev.Wait.Seconds()),
		attribute.Int64("tablekit.lock.fence", ev.Fence), attribute.String("tablekit.lock.outcome", outcome))
	if ev.Err != nil {
		fail(span, ev.Err)
	}
	span.End()
	set := metric.WithAttributes(attribute.String("tablekit.lock.outcome", outcome))
	l.t.lockWait.Record(ctx, ev.Wait.Seconds(), set)
	l.t.lockAttempts.Record(ctx, int64(ev.Attempts), set)
}

// Idempotency returns the [idempotency.Tracer] of t
// (idempotency.Options.Tracer): each Do is an internal span "idempotency
// Do" with tablekit.idempotency.key and tablekit.idempotency.outcome (new,
// replayed, in_progress, error), the parent of fn's work and of the
// record's requests; counted in tablekit.idempotency.calls by outcome.
func (t *Telemetry) Idempotency() idempotency.Tracer { return idemTracer{t} }

type idemTracer struct{ t *Telemetry }

func (i idemTracer) DoStart(ctx context.Context, ev idempotency.DoStartEvent) context.Context {
	ctx, _ = i.t.tracer.Start(ctx, "idempotency Do", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("tablekit.idempotency.key", ev.Key)))
	return ctx
}

func (i idemTracer) DoEnd(ctx context.Context, ev idempotency.DoEvent) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("tablekit.idempotency.outcome", ev.Outcome))
	if ev.Err != nil {
		fail(span, ev.Err)
	}
	span.End()
	set := metric.WithAttributes(attribute.String("tablekit.idempotency.outcome", ev.Outcome))
	i.t.idemCalls.Add(ctx, 1, set)
	i.t.idemDuration.Record(ctx, ev.Duration.Seconds(), set)
}

// Feed returns the [feed.Tracer] of t (feed.Options.Tracer): each handler
// call is a consumer span "process TABLE" with tablekit.feed.table,
// tablekit.feed.shard, tablekit.feed.fence, messaging.batch.message_count
// and tablekit.feed.lag (s, the age of the first record); each dead letter
// a span "dead letter TABLE" with tablekit.feed.event_id and
// tablekit.feed.sequence_number. Metrics: tablekit.feed.batch.duration,
// tablekit.feed.lag, tablekit.feed.records and tablekit.feed.dead_letters
// by table ([Telemetry.ObserveFeed] adds the per-shard figures).
func (t *Telemetry) Feed() feed.Tracer { return feedTracer{t} }

type feedTracer struct{ t *Telemetry }

func (f feedTracer) BatchStart(ctx context.Context, ev feed.BatchStartEvent) context.Context {
	ctx, _ = f.t.tracer.Start(ctx, "process "+ev.Table, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		attribute.String("tablekit.feed.table", ev.Table), attribute.String("tablekit.feed.shard", ev.Shard),
		attribute.Int64("tablekit.feed.fence", ev.Fence), attribute.Int("messaging.batch.message_count", ev.Records),
		attribute.Float64("tablekit.feed.lag", ev.Lag.Seconds())))
	return ctx
}

func (f feedTracer) BatchEnd(ctx context.Context, ev feed.BatchEvent) {
	span := trace.SpanFromContext(ctx)
	attrs := []attribute.KeyValue{attribute.String("tablekit.feed.table", ev.Table)}
	if ev.Err != nil {
		attrs = append(attrs, attribute.String("error.type", fail(span, ev.Err)))
	}
	span.End()
	table := metric.WithAttributes(attrs[0])
	f.t.feedDuration.Record(ctx, ev.Duration.Seconds(), table)
	if ev.Lag > 0 {
		f.t.feedLag.Record(ctx, ev.Lag.Seconds(), table)
	}
	f.t.feedRecords.Add(ctx, int64(ev.Records), metric.WithAttributes(attrs...))
}

func (f feedTracer) DeadLettered(ctx context.Context, ev feed.DeadLetterEvent) {
	_, span := f.t.tracer.Start(ctx, "dead letter "+ev.Table, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("tablekit.feed.table", ev.Table), attribute.String("tablekit.feed.shard", ev.Shard),
		attribute.String("tablekit.feed.event_id", ev.Record.EventID), attribute.String("tablekit.feed.sequence_number", ev.Record.SequenceNumber)))
	if ev.Err != nil {
		fail(span, ev.Err)
	}
	span.End()
	f.t.feedDead.Add(ctx, 1, metric.WithAttributes(attribute.String("tablekit.feed.table", ev.Table)))
}
