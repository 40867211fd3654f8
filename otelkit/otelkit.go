// Package otelkit exposes tablekit to OpenTelemetry: spans and metrics for
// entity requests (entity.Tracer) and consumer deliveries
// (consumer.Tracer), through the small tracer interfaces those packages
// own. It is the only tablekit package that imports OpenTelemetry: a
// program that does not import otelkit does not link it.
//
// # Spans
//
// Every DynamoDB request the runtime sends (Get, Put, a page of a query,
// one chunk of a batch, one attempt of a transaction) is a client span
// named "OPERATION TABLE", a child of the caller's span; the AWS SDK's own
// instrumentation (otelaws) nests under it when installed, as the request
// is sent with the span's ctx. Attributes follow OpenTelemetry's semantic
// conventions for databases: db.system.name "aws.dynamodb" (and the older
// db.system), db.operation.name, aws.dynamodb.table_names,
// aws.dynamodb.index_name, aws.dynamodb.consumed_capacity, error.type;
// tablekit's own under "tablekit.": tablekit.entity and
// tablekit.access_pattern (from [Label]), tablekit.consumed.read_units and
// tablekit.consumed.write_units, tablekit.retries and tablekit.throttled
// (from the SDK's attempt metadata), tablekit.cancellation_reasons (a
// cancelled transaction's reasons, one code per item).
//
// Each consumer delivery is a consumer span "process QUEUE" with
// messaging.system (default "aws_sqs"), messaging.operation.name
// "process", messaging.destination.name, messaging.message.id,
// tablekit.receive_count and tablekit.outcome.
//
// # Metrics
//
//   - db.client.operation.duration (s), by table, operation, index, entity,
//     access pattern and error.type;
//   - tablekit.dynamodb.consumed_read_units and
//     tablekit.dynamodb.consumed_write_units (counters), by the same
//     attributes: what each access pattern costs;
//   - messaging.process.duration (s), tablekit.consumer.lag (s, from the
//     message's send time to the start of its handling) and
//     tablekit.consumer.deliveries (counter) by tablekit.outcome, whose
//     "dead_lettered" count is the dead letters.
//
// The live-table jobs and the change feed get their spans here when they
// land, through the progress and hook interfaces of their packages.
package otelkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/entity"
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

	dbDuration      metric.Float64Histogram
	readUnits       metric.Float64Counter
	writeUnits      metric.Float64Counter
	processDuration metric.Float64Histogram
	lag             metric.Float64Histogram
	deliveries      metric.Int64Counter
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
	t.processDuration, err = m.Float64Histogram("messaging.process.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of consumer handlers."))
	mk(err)
	t.lag, err = m.Float64Histogram("tablekit.consumer.lag", metric.WithUnit("s"),
		metric.WithDescription("Time from a message's send to the start of its handling."))
	mk(err)
	t.deliveries, err = m.Int64Counter("tablekit.consumer.deliveries", metric.WithUnit("{delivery}"),
		metric.WithDescription("Consumer deliveries by outcome (dead_lettered: the dead letters)."))
	mk(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("otelkit: instruments: %w", err)
	}
	return t, nil
}

// labelKey is the ctx key of [Label].
type labelKey struct{}

type labels struct{ entity, pattern string }

// Label returns ctx carrying the entity type and the access pattern name
// of the requests sent with it: their spans and capacity metrics carry
// them as tablekit.entity and tablekit.access_pattern. Empty strings are
// left out.
func Label(ctx context.Context, entityType, accessPattern string) context.Context {
	return context.WithValue(ctx, labelKey{}, labels{entityType, accessPattern})
}

// Entity returns the [entity.Tracer] of t: set it as the table's
// (entity.TableOptions.Tracer) or a call's tracer.
func (t *Telemetry) Entity() entity.Tracer { return entityTracer{t} }

type entityTracer struct{ t *Telemetry }

// spanKey carries the start attributes from TraceStart to TraceEnd for
// the metrics.
type spanKey struct{}

type started struct {
	attrs []attribute.KeyValue // metric attributes
}

func (e entityTracer) TraceStart(ctx context.Context, ev entity.TraceStartEvent) context.Context {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs,
		attribute.String("db.system.name", "aws.dynamodb"),
		attribute.String("db.operation.name", ev.Op),
		attribute.StringSlice("aws.dynamodb.table_names", []string{ev.Table}),
	)
	if ev.Index != "" {
		attrs = append(attrs, attribute.String("aws.dynamodb.index_name", ev.Index))
	}
	if l, ok := ctx.Value(labelKey{}).(labels); ok {
		if l.entity != "" {
			attrs = append(attrs, attribute.String("tablekit.entity", l.entity))
		}
		if l.pattern != "" {
			attrs = append(attrs, attribute.String("tablekit.access_pattern", l.pattern))
		}
	}
	name := ev.Op
	if ev.Table != "" {
		name += " " + ev.Table
	}
	ctx, _ = e.t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...), trace.WithAttributes(attribute.String("db.system", "aws.dynamodb")))
	return context.WithValue(ctx, spanKey{}, &started{attrs: attrs})
}

func (e entityTracer) TraceEnd(ctx context.Context, ev entity.TraceEvent) {
	span := trace.SpanFromContext(ctx)
	st, _ := ctx.Value(spanKey{}).(*started)
	var mattrs []attribute.KeyValue
	if st != nil {
		mattrs = st.attrs
	}
	var rcu, wcu float64
	if len(ev.Consumed) > 0 {
		caps := make([]string, 0, len(ev.Consumed))
		write := isWrite(ev.Op)
		for _, c := range ev.Consumed {
			r, w := units(c)
			if write && w == 0 {
				r, w = 0, r
			}
			rcu += r
			wcu += w
			caps = append(caps, capacityJSON(c))
		}
		span.SetAttributes(attribute.StringSlice("aws.dynamodb.consumed_capacity", caps),
			attribute.Float64("tablekit.consumed.read_units", rcu), attribute.Float64("tablekit.consumed.write_units", wcu))
	}
	if ev.Err != nil {
		et := errorType(ev.Err)
		span.RecordError(ev.Err)
		span.SetStatus(codes.Error, ev.Err.Error())
		span.SetAttributes(attribute.String("error.type", et))
		var tce *types.TransactionCanceledException
		if errors.As(ev.Err, &tce) {
			reasons := make([]string, len(tce.CancellationReasons))
			for i, r := range tce.CancellationReasons {
				reasons[i] = derefOr(r.Code, "None")
			}
			span.SetAttributes(attribute.StringSlice("tablekit.cancellation_reasons", reasons))
		}
		switch et {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
			span.SetAttributes(attribute.Bool("tablekit.throttled", true))
		}
		mattrs = append(mattrs[:len(mattrs):len(mattrs)], attribute.String("error.type", et))
	}
	if n := retries(ev.Err); n > 0 {
		span.SetAttributes(attribute.Int("tablekit.retries", n))
	}
	span.End()
	set := metric.WithAttributes(mattrs...)
	e.t.dbDuration.Record(context.Background(), ev.Duration.Seconds(), set)
	if rcu > 0 {
		e.t.readUnits.Add(context.Background(), rcu, set)
	}
	if wcu > 0 {
		e.t.writeUnits.Add(context.Background(), wcu, set)
	}
}

// units returns the read and write units of one ConsumedCapacity: its
// ReadCapacityUnits and WriteCapacityUnits when DynamoDB split them (a
// transaction, or INDEXES detail), else CapacityUnits, counted as read
// units here and moved to write units by [entityTracer.TraceEnd] for
// write operations.
func units(c types.ConsumedCapacity) (read, write float64) {
	if c.ReadCapacityUnits != nil || c.WriteCapacityUnits != nil {
		return derefF(c.ReadCapacityUnits), derefF(c.WriteCapacityUnits)
	}
	if c.Table != nil && (c.Table.ReadCapacityUnits != nil || c.Table.WriteCapacityUnits != nil) {
		return derefF(c.Table.ReadCapacityUnits), derefF(c.Table.WriteCapacityUnits)
	}
	return derefF(c.CapacityUnits), 0
}

func isWrite(op string) bool {
	switch op {
	case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems":
		return true
	}
	return false
}

func capacityJSON(c types.ConsumedCapacity) string {
	s := `{"TableName":` + strconv.Quote(derefOr(c.TableName, "")) + `,"CapacityUnits":` + strconv.FormatFloat(derefF(c.CapacityUnits), 'f', -1, 64)
	if c.ReadCapacityUnits != nil {
		s += `,"ReadCapacityUnits":` + strconv.FormatFloat(*c.ReadCapacityUnits, 'f', -1, 64)
	}
	if c.WriteCapacityUnits != nil {
		s += `,"WriteCapacityUnits":` + strconv.FormatFloat(*c.WriteCapacityUnits, 'f', -1, 64)
	}
	return s + "}"
}

func derefF(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func derefOr(p *string, d string) string {
	if p == nil {
		return d
	}
	return *p
}

// errorType is the error.type of err: the AWS error code when there is
// one, else the Go type.
func errorType(err error) string {
	var ae interface{ ErrorCode() string }
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if errors.Is(err, entity.ErrConditionFailed) {
		return "ConditionalCheckFailedException"
	}
	return fmt.Sprintf("%T", err)
}

// retries is the number of retries the SDK made, from the attempt
// metadata an operation error carries (0 when unknown).
func retries(err error) int {
	var oe interface{ ResultMetadata() middleware.Metadata }
	if err == nil || !errors.As(err, &oe) {
		return 0
	}
	if r, ok := retry.GetAttemptResults(oe.ResultMetadata()); ok && len(r.Results) > 1 {
		return len(r.Results) - 1
	}
	return 0
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
