package otelkit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
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
	querycodex "github.com/tablekit/tablekit/query/codex"
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
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricdata.DataPoint[float64]{Attributes: p.Attributes, Value: float64(p.Count)})
				}
			case metricdata.Gauge[float64]:
				out[m.Name] = append(out[m.Name], d.DataPoints...)
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricdata.DataPoint[float64]{Attributes: p.Attributes, Value: float64(p.Value)})
				}
			}
		}
	}
	return out
}

// spansByName returns the ended spans by name (the last of each name).
func (w *world) spansByName() map[string]sdktrace.ReadOnlySpan {
	out := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range w.spans.Ended() {
		out[s.Name()] = s
	}
	return out
}

// wantAttrs reports the attributes of s that differ from want.
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	a := attrs(s.Attributes())
	for k, v := range want {
		if a[k] != v {
			t.Errorf("%s: %s = %q, want %q (all: %v)", s.Name(), k, a[k], v, a)
		}
	}
}

// wantParent fails unless child's parent is parent.
func wantParent(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("%s: parent %v, want %s (%v)", child.Name(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().SpanID())
	}
}

// pointsBy sums the points of metric name by the value of attribute key.
func (w *world) pointsBy(t *testing.T, name, key string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, p := range w.metrics(t)[name] {
		v, ok := p.Attributes.Value(attribute.Key(key))
		k := ""
		if ok {
			k = v.Emit()
		}
		out[k] += p.Value
	}
	return out
}

// TestEntitySpansAndCapacity: a Put named with entity.WithPattern, a Get
// through a declared pattern (query.Get) and a page of a declared query
// pattern, under a caller's span, are client spans "OP TABLE" carrying the
// entity type and access pattern without any label, with the
// semantic-convention attributes, the item count and the consumed
// capacity; the page is a span "page PATTERN" between the caller's span
// and its Query request. The capacity counters and the duration histogram
// carry table, entity and access pattern.
func TestEntitySpansAndCapacity(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "otelkit-entity", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	w.spans.Reset()
	ctx, parent := w.tp.Tracer("test").Start(ctx, "handler")
	p := codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "t"}
	if err := posts.Put(ctx, &p, entity.WithPattern("put-post")); err != nil {
		t.Fatal(err)
	}
	if _, err := querycodex.PostByID(ctx, tbl, "c1", p.ID); err != nil {
		t.Fatal(err)
	}
	if pg, err := querycodex.PostsOfCategory(ctx, tbl, "c1", query.PageOptions{}); err != nil || len(pg.Items) != 1 {
		t.Fatal(err, pg)
	}
	parent.End()

	got := w.spansByName()
	page := got["page "+querycodex.PatternPostsOfCategory]
	if page == nil {
		t.Fatalf("no page span: %v", got)
	}
	common := map[string]string{"db.system.name": "aws.dynamodb", "db.system": "aws.dynamodb", "aws.dynamodb.table_names": `["otelkit-entity"]`,
		"db.collection.name": "otelkit-entity", "tablekit.entity": "Post"}
	for name, want := range map[string]map[string]string{
		"PutItem otelkit-entity": {"db.operation.name": "PutItem", "tablekit.access_pattern": "put-post", "tablekit.items": "1"},
		"GetItem otelkit-entity": {"db.operation.name": "GetItem", "tablekit.access_pattern": "codex/post-by-id", "tablekit.items": "1"},
		"Query otelkit-entity":   {"db.operation.name": "Query", "tablekit.access_pattern": querycodex.PatternPostsOfCategory, "tablekit.items": "1", "aws.dynamodb.index_name": ""},
	} {
		s := got[name]
		if s == nil {
			t.Errorf("no span %q", name)
			continue
		}
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("%s: kind %v", name, s.SpanKind())
		}
		wantAttrs(t, s, common)
		wantAttrs(t, s, want)
		if a := attrs(s.Attributes()); !strings.HasPrefix(a["aws.dynamodb.consumed_capacity"], `["{\"TableName\":\"otelkit-entity\"`) {
			t.Errorf("%s: consumed capacity %q", name, a["aws.dynamodb.consumed_capacity"])
		}
		if name == "Query otelkit-entity" {
			wantParent(t, s, page)
		} else {
			wantParent(t, s, parent.(sdktrace.ReadOnlySpan))
		}
	}
	wantParent(t, page, parent.(sdktrace.ReadOnlySpan))
	wantAttrs(t, page, map[string]string{"tablekit.access_pattern": querycodex.PatternPostsOfCategory, "tablekit.entity": "Post",
		"tablekit.page.requests": "1", "tablekit.items": "1", "tablekit.page.more": "false", "tablekit.page.resumed": "false"})

	if r := w.pointsBy(t, "tablekit.dynamodb.consumed_read_units", "tablekit.access_pattern"); r["codex/post-by-id"] <= 0 || r[querycodex.PatternPostsOfCategory] <= 0 {
		t.Errorf("read units by pattern %v", r)
	}
	if wu := w.pointsBy(t, "tablekit.dynamodb.consumed_write_units", "tablekit.access_pattern"); wu["put-post"] <= 0 {
		t.Errorf("write units by pattern %v", wu)
	}
	if wu := w.pointsBy(t, "tablekit.dynamodb.consumed_write_units", "tablekit.entity"); wu["Post"] <= 0 {
		t.Errorf("write units by entity %v", wu)
	}
	if d := w.pointsBy(t, "db.client.operation.duration", "tablekit.access_pattern"); d["codex/post-by-id"] != 1 || d["put-post"] != 1 {
		t.Errorf("duration counts by pattern %v", d)
	}
	if d := w.pointsBy(t, "tablekit.query.page.duration", "tablekit.access_pattern"); d[querycodex.PatternPostsOfCategory] != 1 {
		t.Errorf("page durations by pattern %v", d)
	}
}

// TestEntityLabel: otelkit.Label names the entity and pattern of requests
// whose runtime does not know them (a transaction).
func TestEntityLabel(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "otelkit-label", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	p := codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "t"}
	if err := tbl.Tx().Add(entity.NewStore[codex.Post](tbl).TxCreate(&p)).Exec(otelkit.Label(ctx, "Post", "create-post")); err != nil {
		t.Fatal(err)
	}
	wantAttrs(t, w.spansByName()["TransactWriteItems otelkit-label"], map[string]string{"tablekit.entity": "Post", "tablekit.access_pattern": "create-post"})
}

// TestEntityErrorSpan: a cancelled transaction's span has status Error,
// the error.type and the reason of each item; a request throttled once
// and retried by the SDK carries tablekit.retries and tablekit.throttles,
// and the throttles counter counts it.
func TestEntityErrorSpan(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var throttle atomic.Int32
	client := ddbmem.NewEndpointClient(srv.URL(), func(o *dynamodb.Options) {
		o.HTTPClient = &http.Client{Transport: throttleOnce{&throttle, http.DefaultTransport}}
		o.Retryer = awsretry.NewStandard(func(so *awsretry.StandardOptions) {
			so.Backoff = awsretry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	})
	tbl := codex.NewTable(client, "otelkit-errors", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	p := codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "t"}
	if err := posts.Create(ctx, &p); err != nil {
		t.Fatal(err)
	}
	w.spans.Reset()
	dup, other := p, codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "u"}
	err = tbl.Tx().Add(posts.TxCreate(&other), posts.TxCreate(&dup)).Exec(ctx)
	var tce *entity.TxCanceledError
	if !errors.As(err, &tce) {
		t.Fatalf("tx: %v", err)
	}
	s := w.spansByName()["TransactWriteItems otelkit-errors"]
	if s == nil || s.Status().Code != codes.Error {
		t.Fatalf("tx span %v", s)
	}
	wantAttrs(t, s, map[string]string{"error.type": "TransactionCanceledException", "tablekit.cancellation_reasons": `["None","ConditionalCheckFailed"]`})

	key, _ := codex.PostKey("c1", p.ID)
	throttle.Store(1)
	if _, err := posts.Get(ctx, key); err != nil {
		t.Fatal(err)
	}
	wantAttrs(t, w.spansByName()["GetItem otelkit-errors"], map[string]string{"tablekit.retries": "1", "tablekit.throttles": "1", "tablekit.entity": "Post"})
	if n := w.pointsBy(t, "tablekit.dynamodb.throttles", "db.operation.name"); n["GetItem"] != 1 {
		t.Errorf("throttles %v", n)
	}
}

// throttleOnce answers the next request with DynamoDB's throttling error
// while *n is 1, then passes requests to rt.
type throttleOnce struct {
	n  *atomic.Int32
	rt http.RoundTripper
}

func (th throttleOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if th.n.CompareAndSwap(1, 0) {
		body := `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`
		return &http.Response{StatusCode: 400, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
	}
	return th.rt.RoundTrip(r)
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

// TestEntitySpansConcurrent: with the SDK's tracer provider the request
// spans' attribute buffers are reused, and the last request kind's
// attributes are kept beside the cache; spans ended by many goroutines at
// once, with different patterns and item counts, each keep their own
// attributes.
func TestEntitySpansConcurrent(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "otelkit-concurrent", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	w.spans.Reset()
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := codex.Post{ID: codex.NewID(), CategoryID: "c" + strconv.Itoa(g), Title: "t"}
				if err := posts.Put(ctx, &p, entity.WithPattern("put-"+strconv.Itoa(g))); err != nil {
					t.Error(err)
					return
				}
				key, err := codex.PostKey(p.CategoryID, p.ID)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := posts.Get(ctx, key, entity.WithPattern("get-"+strconv.Itoa(g)+"-"+strconv.Itoa(i%3))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	counts := map[string]int{}
	for _, s := range w.spans.Ended() {
		a := attrs(s.Attributes())
		op, pat := a["db.operation.name"], a["tablekit.access_pattern"]
		if a["db.collection.name"] != "otelkit-concurrent" || a["tablekit.entity"] != "Post" || a["tablekit.items"] != "1" ||
			!strings.HasPrefix(pat, map[string]string{"PutItem": "put-", "GetItem": "get-"}[op]) || s.Name() != op+" otelkit-concurrent" {
			t.Fatalf("span %q has the attributes of another: %v", s.Name(), a)
		}
		counts[pat]++
	}
	for g := range workers {
		if n := counts["put-"+strconv.Itoa(g)]; n != each {
			t.Errorf("put-%d: %d spans, want %d", g, n, each)
		}
	}
}
