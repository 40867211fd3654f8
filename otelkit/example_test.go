package otelkit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.opentelemetry.io/contrib/instrumentation/github.com/aws/aws-sdk-go-v2/otelaws"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
	"github.com/tablekit/tablekit/otelkit"
)

// otelkit's spans are the parents of the AWS SDK's own (otelaws): a Get
// under the caller's "GET /posts/{id}" span is a "GetItem TABLE" span
// carrying the entity and access pattern, with the SDK's "DynamoDB.GetItem"
// span under it. A real program exports the spans (OTLP, stdout); this
// one records them in memory.
func Example() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tel, err := otelkit.New(func(o *otelkit.Options) { o.TracerProvider = tp })
	if err != nil {
		panic(err)
	}
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := ddbmem.NewEndpointClient(srv.URL(), func(o *dynamodb.Options) {
		otelaws.AppendMiddlewares(&o.APIOptions, otelaws.WithTracerProvider(tp))
	})
	ctx := context.Background()
	tbl := codex.NewTable(client, "Codex", func(o *entity.Options) { o.Tracer = tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	p := codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "hello", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := posts.Put(ctx, &p); err != nil {
		panic(err)
	}
	rec.Reset()

	ctx, span := tp.Tracer("app").Start(ctx, "GET /posts/{id}")
	key, _ := codex.PostKey("c1", p.ID)
	if _, err := posts.Get(otelkit.Label(ctx, "Post", "post-by-id"), key); err != nil {
		panic(err)
	}
	span.End()

	names := map[[8]byte]string{}
	for _, s := range rec.Ended() {
		names[s.SpanContext().SpanID()] = s.Name()
	}
	for _, s := range rec.Ended() {
		parent := names[s.Parent().SpanID()]
		if parent == "" {
			parent = "(root)"
		}
		fmt.Printf("%s <- %s\n", s.Name(), parent)
	}
	// Output:
	// DynamoDB.GetItem <- GetItem Codex
	// GetItem Codex <- GET /posts/{id}
	// GET /posts/{id} <- (root)
}

// A lock obtained under a caller's span: the "lock obtain" span carries the
// attempts, the wait and the fencing token.
func ExampleTelemetry_Lock() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tel, err := otelkit.New(func(o *otelkit.Options) { o.TracerProvider = tp })
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	db := ddbmem.New()
	if err := entity.NewTable(db, "Locks").EnsureTable(ctx); err != nil {
		panic(err)
	}
	b, err := dynamolock.New(db, func(o *dynamolock.Options) { o.Table = "Locks" })
	if err != nil {
		panic(err)
	}
	lk := lock.New(b, func(o *lock.Options) { o.Tracer = tel.Lock() })
	l, err := lk.Obtain(ctx, "scheduler:monthly_summary", time.Minute)
	if err != nil {
		panic(err)
	}
	defer l.Release(ctx)
	for _, s := range rec.Ended() {
		for _, a := range s.Attributes() {
			switch a.Key {
			case "tablekit.lock.key", "tablekit.lock.attempts", "tablekit.lock.fence", "tablekit.lock.outcome":
				fmt.Printf("%s %s=%s\n", s.Name(), a.Key, a.Value.Emit())
			}
		}
	}
	// Output:
	// lock obtain tablekit.lock.key=scheduler:monthly_summary
	// lock obtain tablekit.lock.attempts=1
	// lock obtain tablekit.lock.fence=1
	// lock obtain tablekit.lock.outcome=obtained
}
