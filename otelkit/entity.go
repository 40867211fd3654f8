package otelkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/query"
)

// labelKey is the ctx key of [Label].
type labelKey struct{}

type labels struct{ entity, pattern string }

// Label returns ctx carrying the entity type and the access pattern name
// of the requests sent with it: their spans and capacity metrics carry
// them as tablekit.entity and tablekit.access_pattern where the runtime
// does not know them itself (entity.TraceStartEvent's Type and Pattern,
// which win). Empty strings are left out. Prefer entity.WithPattern on a
// call, or a declared query.Pattern, which cost nothing per request.
func Label(ctx context.Context, entityType, accessPattern string) context.Context {
	return context.WithValue(ctx, labelKey{}, labels{entityType, accessPattern})
}

// Entity returns the [entity.Tracer] of t: set it as the table's
// (entity.Options.Tracer) or a call's tracer. It also implements
// [query.PageTracer], so that the pages of queries on the table are spans
// too, the parents of their requests.
func (t *Telemetry) Entity() entity.Tracer { return entityTracer{t} }

type entityTracer struct{ t *Telemetry }

var _ query.PageTracer = entityTracer{}

// reqKey identifies the constant attributes of a request.
type reqKey struct{ op, table, index, typ, pattern string }

// reqAttrs are the attributes and options of the requests of one reqKey,
// built once. A request's span gets all its attributes in one call when
// it ends (span, then its own): the SDK then sizes the span's attribute
// list once, where attributes given at the start and more at the end
// cost it a copy of the first into a list twice their size.
type reqAttrs struct {
	key    reqKey
	name   string
	span   []attribute.KeyValue
	page   trace.SpanStartOption // the page span's share of span
	metric []attribute.KeyValue
	// record and add hold the metric's attribute set as options of Record
	// and Add: variadic slices built once, not per call.
	record []metric.RecordOption
	add    []metric.AddOption
	write  bool
}

// maxCached bounds the attribute cache; past it, attributes are built
// per request (names of patterns and entities are few in a program).
const maxCached = 4096

func (e entityTracer) key(ctx context.Context, op, table, index, typ, pattern string) reqKey {
	if typ == "" || pattern == "" {
		if l, ok := ctx.Value(labelKey{}).(labels); ok {
			if typ == "" {
				typ = l.entity
			}
			if pattern == "" {
				pattern = l.pattern
			}
		}
	}
	return reqKey{op, table, index, typ, pattern}
}

// attrs returns the cached attributes of k. A request looks its
// attributes up twice (start and end), and a program's next request is
// often of the same kind, so the last one found is kept beside the map:
// comparing its key (strings the runtime passes unchanged, so their
// pointers usually match) costs less than hashing five strings.
func (t *Telemetry) attrs(k reqKey) *reqAttrs {
	if ra := t.lastReq.Load(); ra != nil && ra.key == k {
		return ra
	}
	ra := t.lookupAttrs(k)
	t.lastReq.Store(ra)
	return ra
}

func (t *Telemetry) lookupAttrs(k reqKey) *reqAttrs {
	if v, ok := t.reqs.Load(k); ok {
		return v.(*reqAttrs)
	}
	ra := buildAttrs(k)
	if t.nreqs.Load() < maxCached {
		if v, loaded := t.reqs.LoadOrStore(k, ra); loaded {
			return v.(*reqAttrs)
		}
		t.nreqs.Add(1)
	}
	return ra
}

func buildAttrs(k reqKey) *reqAttrs {
	common := make([]attribute.KeyValue, 0, 7)
	common = append(common,
		attribute.String("db.system.name", "aws.dynamodb"),
		attribute.String("db.operation.name", k.op),
		attribute.String("db.collection.name", k.table),
	)
	if k.index != "" {
		common = append(common, attribute.String("aws.dynamodb.index_name", k.index))
	}
	if k.typ != "" {
		common = append(common, attribute.String("tablekit.entity", k.typ))
	}
	if k.pattern != "" {
		common = append(common, attribute.String("tablekit.access_pattern", k.pattern))
	}
	span := append(common[:len(common):len(common)],
		attribute.String("db.system", "aws.dynamodb"),
		attribute.StringSlice("aws.dynamodb.table_names", []string{k.table}))
	name := k.op
	if k.table != "" {
		name += " " + k.table
	}
	measure := metric.WithAttributeSet(attribute.NewSet(common...))
	return &reqAttrs{
		key:    k,
		name:   name,
		span:   span,
		page:   trace.WithAttributes(span...),
		metric: common,
		record: []metric.RecordOption{measure},
		add:    []metric.AddOption{measure},
		write:  isWrite(k.op),
	}
}

func (e entityTracer) TraceStart(ctx context.Context, ev entity.TraceStartEvent) context.Context {
	ra := e.t.attrs(e.key(ctx, ev.Op, ev.Table, ev.Index, ev.Type, ev.Pattern))
	ctx, _ = e.t.tracer.Start(ctx, ra.name, clientKind...)
	return ctx
}

// clientKind is the start options of a request's span, a slice built
// once: the variadic slice of a call through an interface escapes.
var clientKind = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

func (e entityTracer) TraceEnd(ctx context.Context, ev entity.TraceEvent) {
	ra := e.t.attrs(e.key(ctx, ev.Op, ev.Table, ev.Index, ev.Type, ev.Pattern))
	span := trace.SpanFromContext(ctx)
	var rcu, wcu float64
	for _, c := range ev.Consumed {
		r, w := units(c)
		if ra.write && w == 0 {
			r, w = 0, r
		}
		rcu += r
		wcu += w
	}
	if span.IsRecording() {
		n := len(ra.span) + 1
		if len(ev.Consumed) > 0 {
			n += 3
		}
		if ev.Retries > 0 || ev.Throttles > 0 || ev.Cancellation != nil {
			n += 3
		}
		buf := e.t.attrBuf(n)
		a := append((*buf)[:0], ra.span...)
		a = append(a, attribute.Int("tablekit.items", ev.Items))
		if len(ev.Consumed) > 0 {
			caps := make([]string, len(ev.Consumed))
			for i, c := range ev.Consumed {
				caps[i] = capacityJSON(c)
			}
			a = append(a, attribute.StringSlice("aws.dynamodb.consumed_capacity", caps),
				attribute.Float64("tablekit.consumed.read_units", rcu), attribute.Float64("tablekit.consumed.write_units", wcu))
		}
		if ev.Retries > 0 {
			a = append(a, attribute.Int("tablekit.retries", ev.Retries))
		}
		if ev.Throttles > 0 {
			a = append(a, attribute.Int("tablekit.throttles", ev.Throttles))
		}
		if ev.Cancellation != nil {
			a = append(a, attribute.StringSlice("tablekit.cancellation_reasons", ev.Cancellation))
		}
		span.SetAttributes(a...)
		e.t.putAttrBuf(buf, a, len(ra.span))
	}
	record, add := ra.record, ra.add
	if ev.Err != nil {
		et := errorType(ev.Err)
		span.RecordError(ev.Err)
		span.SetStatus(codes.Error, ev.Err.Error())
		span.SetAttributes(attribute.String("error.type", et))
		measure := metric.WithAttributes(append(ra.metric[:len(ra.metric):len(ra.metric)], attribute.String("error.type", et))...)
		record, add = []metric.RecordOption{measure}, []metric.AddOption{measure}
	}
	span.End()
	bg := context.Background()
	e.t.dbDuration.Record(bg, ev.Duration.Seconds(), record...)
	if rcu > 0 {
		e.t.readUnits.Add(bg, rcu, add...)
	}
	if wcu > 0 {
		e.t.writeUnits.Add(bg, wcu, add...)
	}
	if ev.Throttles > 0 {
		e.t.throttles.Add(bg, int64(ev.Throttles), add...)
	}
}

// PageStart starts the span of a query page, "page PATTERN" (internal).
func (e entityTracer) PageStart(ctx context.Context, ev query.PageStartEvent) context.Context {
	ra := e.t.attrs(e.key(ctx, "Query", ev.Table, ev.Index, ev.Type, ev.Pattern))
	name := "page " + ev.Pattern
	if ev.Pattern == "" {
		name = "page " + ev.Table
	}
	ctx, _ = e.t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), ra.page,
		trace.WithAttributes(attribute.Bool("tablekit.page.resumed", ev.Resumed), attribute.Int("tablekit.page.limit", ev.Limit)))
	return ctx
}

// PageEnd ends the span of a query page.
func (e entityTracer) PageEnd(ctx context.Context, ev query.PageEvent) {
	ra := e.t.attrs(e.key(ctx, "Query", ev.Table, ev.Index, ev.Type, ev.Pattern))
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.Int("tablekit.page.requests", ev.Requests), attribute.Int("tablekit.items", ev.Items),
		attribute.Bool("tablekit.page.more", ev.More))
	if ev.Err != nil {
		span.RecordError(ev.Err)
		span.SetStatus(codes.Error, ev.Err.Error())
	}
	span.End()
	e.t.pageDuration.Record(context.Background(), ev.Duration.Seconds(), ra.record...)
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

// attrBuf returns a buffer for the n attributes a request's span gets
// when it ends. The SDK's span copies what SetAttributes is given, so
// with the SDK's tracer provider the buffers are reused (a pool); with
// any other provider, whose spans may keep the slice, every request gets
// a new one.
func (t *Telemetry) attrBuf(n int) *[]attribute.KeyValue {
	if t.sdkSpans {
		if p, ok := t.attrBufs.Get().(*[]attribute.KeyValue); ok && cap(*p) >= n {
			return p
		}
	}
	a := make([]attribute.KeyValue, 0, n)
	return &a
}

// putAttrBuf returns a buffer of attrBuf, a its contents, to the pool
// when the spans copy their attributes. The values after the first fixed
// are cleared, so that the pool keeps no strings of past requests alive;
// the first fixed are the request kind's own, which its cached reqAttrs
// holds anyway (past maxCached kinds, a pooled buffer may keep one
// uncached kind's until it is reused).
func (t *Telemetry) putAttrBuf(p *[]attribute.KeyValue, a []attribute.KeyValue, fixed int) {
	if !t.sdkSpans {
		return
	}
	clear(a[fixed:])
	*p = a[:0]
	t.attrBufs.Put(p)
}

// capacityJSON is one element of aws.dynamodb.consumed_capacity: the
// ConsumedCapacity as JSON, as the semantic conventions ask.
func capacityJSON(c types.ConsumedCapacity) string {
	b := make([]byte, 0, 96)
	b = append(b, `{"TableName":`...)
	b = strconv.AppendQuote(b, derefOr(c.TableName, ""))
	b = append(b, `,"CapacityUnits":`...)
	b = strconv.AppendFloat(b, derefF(c.CapacityUnits), 'f', -1, 64)
	if c.ReadCapacityUnits != nil {
		b = append(b, `,"ReadCapacityUnits":`...)
		b = strconv.AppendFloat(b, *c.ReadCapacityUnits, 'f', -1, 64)
	}
	if c.WriteCapacityUnits != nil {
		b = append(b, `,"WriteCapacityUnits":`...)
		b = strconv.AppendFloat(b, *c.WriteCapacityUnits, 'f', -1, 64)
	}
	return string(append(b, '}'))
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
