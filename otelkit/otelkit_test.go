package otelkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/otelkit"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/retry"
)

type world struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	tel    *otelkit.Telemetry
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	w.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(w.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(w.reader))
	var err error
	w.tel, err = otelkit.New(func(o *otelkit.Options) { o.TracerProvider = w.tp; o.MeterProvider = mp })
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func (w *world) metrics(t *testing.T) map[string][]metricdata.DataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := w.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string][]metricdata.DataPoint[float64]{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[float64]:
				out[m.Name] = append(out[m.Name], d.DataPoints...)
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricdata.DataPoint[float64]{Attributes: p.Attributes, Value: float64(p.Value)})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricdata.DataPoint[float64]{Attributes: p.Attributes, Value: float64(p.Count)})
				}
			}
		}
	}
	return out
}

// TestEntitySpansAndCapacity: Put, Get and a query page under a caller's
// span are client spans named "OP TABLE", children of the caller's span,
// with the semantic-convention attributes, the labels of otelkit.Label and
// the consumed capacity; the capacity counters and the duration histogram
// carry the table, operation, entity and access pattern.
func TestEntitySpansAndCapacity(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "otelkit-entity", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	ctx, parent := w.tp.Tracer("test").Start(ctx, "handler")
	p := codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "t", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := posts.Put(otelkit.Label(ctx, "Post", "put-post"), &p); err != nil {
		t.Fatal(err)
	}
	key, _ := codex.PostKey("c1", p.ID)
	if _, err := posts.Get(otelkit.Label(ctx, "Post", "post-by-id"), key); err != nil {
		t.Fatal(err)
	}
	pk, _ := codex.PostPK("c1")
	if _, err := query.New[codex.Post](tbl, "posts-of-category").Partition(pk).Page(otelkit.Label(ctx, "Post", "posts-of-category")); err != nil {
		t.Fatal(err)
	}
	parent.End()

	var got []string
	for _, s := range w.spans.Ended() {
		if s.Name() == "handler" || strings.HasPrefix(s.Name(), "CreateTable") || strings.HasPrefix(s.Name(), "DescribeTable") || strings.HasPrefix(s.Name(), "UpdateTimeToLive") {
			continue
		}
		a := attrs(s.Attributes())
		got = append(got, s.Name()+" "+a["tablekit.access_pattern"])
		if s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("%s: parent %v, want the handler span", s.Name(), s.Parent().SpanID())
		}
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("%s: kind %v", s.Name(), s.SpanKind())
		}
		for k, v := range map[string]string{"db.system.name": "aws.dynamodb", "db.system": "aws.dynamodb", "aws.dynamodb.table_names": `["otelkit-entity"]`, "tablekit.entity": "Post"} {
			if a[k] != v {
				t.Errorf("%s: %s = %q, want %q", s.Name(), k, a[k], v)
			}
		}
		if a["aws.dynamodb.consumed_capacity"] == "" {
			t.Errorf("%s: no consumed capacity: %v", s.Name(), a)
		}
	}
	if d := cmp.Diff([]string{"PutItem otelkit-entity put-post", "GetItem otelkit-entity post-by-id", "Query otelkit-entity posts-of-category"}, got); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
	m := w.metrics(t)
	byPattern := func(name string) map[string]float64 {
		out := map[string]float64{}
		for _, p := range m[name] {
			v, _ := p.Attributes.Value("tablekit.access_pattern")
			out[v.AsString()] += p.Value
		}
		return out
	}
	if r := byPattern("tablekit.dynamodb.consumed_read_units"); r["post-by-id"] <= 0 || r["posts-of-category"] <= 0 {
		t.Errorf("read units by pattern %v", r)
	}
	if wu := byPattern("tablekit.dynamodb.consumed_write_units"); wu["put-post"] <= 0 {
		t.Errorf("write units by pattern %v", wu)
	}
	if d := byPattern("db.client.operation.duration"); d["post-by-id"] != 1 || d["put-post"] != 1 {
		t.Errorf("duration counts by pattern %v", d)
	}
}

// TestEntityErrorSpan: a failed request's span has status Error, the
// error.type, and for a cancelled transaction the reason of each item.
func TestEntityErrorSpan(t *testing.T) {
	w := newWorld(t)
	tr := w.tel.Entity()
	ctx := tr.TraceStart(context.Background(), entity.TraceStartEvent{Op: "TransactWriteItems", Table: "T"})
	err := &types.TransactionCanceledException{Message: aws.String("cancelled"), CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ConditionalCheckFailed")}}}
	tr.TraceEnd(ctx, entity.TraceEvent{Op: "TransactWriteItems", Table: "T", Err: err, Duration: time.Millisecond})
	s := w.spans.Ended()
	if len(s) != 1 {
		t.Fatalf("%d spans", len(s))
	}
	a := attrs(s[0].Attributes())
	if s[0].Status().Code.String() != "Error" || a["error.type"] != "TransactionCanceledException" || a["tablekit.cancellation_reasons"] != `["None","ConditionalCheckFailed"]` {
		t.Errorf("status %v, attributes %v", s[0].Status(), a)
	}
	tr.TraceEnd(tr.TraceStart(context.Background(), entity.TraceStartEvent{Op: "GetItem", Table: "T"}),
		entity.TraceEvent{Op: "GetItem", Table: "T", Err: &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}})
	if a := attrs(w.spans.Ended()[1].Attributes()); a["tablekit.throttled"] != "true" {
		t.Errorf("throttled request: %v", a)
	}
}

// TestConsumerSpansAndMetrics: each delivery is a consumer span with the
// messaging attributes and its outcome; the deliveries counter counts the
// dead letters, and the lag histogram has one point per delivery.
func TestConsumerSpansAndMetrics(t *testing.T) {
	w := newWorld(t)
	q := consumer.NewMemQueue[string](func(o *consumer.MemQueueOptions[string]) { o.WaitTime = 5 * time.Millisecond })
	c, err := consumer.New(q, func(ctx context.Context, m consumer.Message[string]) error {
		if !trace.SpanFromContext(ctx).SpanContext().IsValid() {
			t.Error("handler ctx carries no span")
		}
		if m.Body == "bad" {
			return errors.New("boom")
		}
		return nil
	}, func(o *consumer.Options[string]) {
		o.MaxReceives = 2
		o.Retry = retry.Constant(time.Millisecond)
		o.Tracer = w.tel.Consumer("jobs")
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = q.Send(ctx, "ok")
	_ = q.Send(ctx, "bad")
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = c.Run(rctx); close(done) }()
	_ = q.WaitEmpty(ctx)
	stop()
	<-done
	outcomes := map[string]int{}
	for _, s := range w.spans.Ended() {
		a := attrs(s.Attributes())
		if s.Name() != "process jobs" || s.SpanKind() != trace.SpanKindConsumer || a["messaging.system"] != "aws_sqs" ||
			a["messaging.destination.name"] != "jobs" || a["messaging.operation.name"] != "process" || a["messaging.message.id"] == "" {
			t.Errorf("span %s %v: %v", s.Name(), s.SpanKind(), a)
		}
		outcomes[a["tablekit.outcome"]]++
	}
	if d := cmp.Diff(map[string]int{"succeeded": 1, "retried": 1, "dead_lettered": 1}, outcomes); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	m := w.metrics(t)
	dead := 0.0
	for _, p := range m["tablekit.consumer.deliveries"] {
		if v, _ := p.Attributes.Value("tablekit.outcome"); v.AsString() == "dead_lettered" {
			dead += p.Value
		}
	}
	if dead != 1 {
		t.Errorf("dead letters %v, want 1", dead)
	}
	if n := sum(m["tablekit.consumer.lag"]); n != 3 {
		t.Errorf("lag points %v, want 3", n)
	}
	if n := sum(m["messaging.process.duration"]); n != 3 {
		t.Errorf("process durations %v, want 3", n)
	}
}

func sum(ps []metricdata.DataPoint[float64]) float64 {
	s := 0.0
	for _, p := range ps {
		s += p.Value
	}
	return s
}
