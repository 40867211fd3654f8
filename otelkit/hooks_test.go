package otelkit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/examples/evolve/post"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lease"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
	"github.com/tablekit/tablekit/retry"
)

// newCache returns a cache on the test server (valkey-go with a near
// cache), traced by w.
func newCache(t *testing.T, w *world) *cache.Cache {
	t.Helper()
	c, err := cache.New(cache.Options{AppID: testenv.UniqueName("otel"), Env: "test", Service: "otelkit",
		Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true, RequestTimeout: 3 * time.Second,
		Backend: cache.BackendValkeyGo, Near: &cache.NearOptions{}, Tracer: w.tel.Cache()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestCacheReadSpans: each Get and GetSynced of a traced cache is a
// client span "GET"/"GETSYNCED", a child of the caller's span, whose
// tablekit.cache.result tells a miss, a server hit, a near-cache hit and
// a hit confirmed by a barrier apart; tablekit.cache.reads counts them by
// result (the hit ratio).
func TestCacheReadSpans(t *testing.T) {
	w := newWorld(t)
	c := newCache(t, w)
	ctx, parent := w.tp.Tracer("test").Start(context.Background(), "handler")
	if _, err := c.Get(ctx, "k"); !errors.Is(err, cache.ErrMiss) {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", time.Minute); err != nil {
		t.Fatal(err)
	}
	results := map[string]int{}
	for i := 0; i < 50 && results[cache.ReadNearHit] == 0; i++ { // the first read fills the near cache
		if _, err := c.Get(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		results[attrs(w.spans.Ended()[len(w.spans.Ended())-1].Attributes())["tablekit.cache.result"]]++
	}
	if _, err := c.GetSynced(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	parent.End()
	seen := map[string]string{}
	for _, s := range w.spans.Ended() {
		if s.Name() == "handler" {
			continue
		}
		a := attrs(s.Attributes())
		seen[s.Name()+" "+a["tablekit.cache.result"]] = a["db.system.name"] + " " + a["tablekit.cache.key"] + " " + a["tablekit.cache.service"]
		wantParent(t, s, parent.(sdktrace.ReadOnlySpan))
		if s.SpanKind() != trace.SpanKindClient || s.EndTime().Before(s.StartTime()) {
			t.Errorf("%s: kind %v, %v..%v", s.Name(), s.SpanKind(), s.StartTime(), s.EndTime())
		}
	}
	for _, want := range []string{"GET miss", "GET hit", "GET near_hit", "GETSYNCED barrier_hit"} {
		if seen[want] != "redis k otelkit" {
			t.Errorf("span %q: %q (seen %v)", want, seen[want], seen)
		}
	}
	r := w.pointsBy(t, "tablekit.cache.reads", "tablekit.cache.result")
	if r["miss"] != 1 || r["hit"] < 1 || r["near_hit"] != 1 || r["barrier_hit"] != 1 {
		t.Errorf("reads by result %v", r)
	}
}

// TestCacheStoreSpans: a cached store's Get is an internal span "cache get
// TYPE" with its result (miss, then hit; fail_open when the cache cannot
// be reached), the parent of the cache's read span and of the table's
// GetItem span; tablekit.cache.reads counts the store's results.
func TestCacheStoreSpans(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "otelkit-cachestore", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	p := codex.Post{ID: codex.NewID(), CategoryID: "c1", Title: "t"}
	if err := posts.Create(ctx, &p); err != nil {
		t.Fatal(err)
	}
	key, _ := codex.PostKey("c1", p.ID)
	cs, err := cachestore.New(posts, newCache(t, w), func(o *cachestore.Options) { o.Tracer = w.tel.CacheStore() })
	if err != nil {
		t.Fatal(err)
	}
	down, err := cache.New(cache.Options{AppID: "otel", Env: "test", Service: "down", Addresses: []string{"127.0.0.1:1"},
		DisableTLS: true, RequestTimeout: 100 * time.Millisecond, NoRetry: true, Tracer: w.tel.Cache()})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	csDown, err := cachestore.New(posts, down, func(o *cachestore.Options) { o.Tracer = w.tel.CacheStore() })
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []cachestore.GetResult{cachestore.GetMiss, cachestore.GetHit, cachestore.GetFailOpen} {
		w.spans.Reset()
		s := cs
		if want == cachestore.GetFailOpen {
			s = csDown
		}
		if got, err := s.Get(ctx, key); err != nil || got.ID != p.ID {
			t.Fatalf("get %d: %v %v", i, got, err)
		}
		byName := w.spansByName()
		top := byName["cache get Post"]
		if top == nil {
			t.Fatalf("get %d: no store span: %v", i, byName)
		}
		wantAttrs(t, top, map[string]string{"tablekit.entity": "Post", "tablekit.cache.result": string(want)})
		if top.Status().Code == codes.Error {
			t.Errorf("get %d: status %v", i, top.Status())
		}
		for name, s := range byName {
			if name != "cache get Post" {
				wantParent(t, s, top)
			}
		}
		if _, ok := byName["GetItem otelkit-cachestore"]; ok == (want == cachestore.GetHit) {
			t.Errorf("get %d (%s): spans %v", i, want, len(byName))
		}
	}
	r := w.pointsBy(t, "tablekit.cache.reads", "tablekit.cache.layer")
	if r["store"] != 3 {
		t.Errorf("reads by layer %v", r)
	}
}

// TestLockSpans: each Obtain is a span "lock obtain" with the key, TTL,
// attempts, wait, fencing token and outcome; the wait and attempts
// histograms carry the outcome.
func TestLockSpans(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	db := ddbmem.New()
	if err := entity.NewTable(db, "otelkit-locks").EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := dynamolock.New(db, func(o *dynamolock.Options) { o.Table = "otelkit-locks" })
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New(b, func(o *lock.Options) { o.Tracer = w.tel.Lock() })
	l, err := lk.Obtain(ctx, "job", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	_, err = lk.Obtain(ctx, "job", time.Minute, func(o *lock.Options) { o.Retry, o.Timeout = retry.Constant(5*time.Millisecond), 30*time.Millisecond })
	if !errors.Is(err, lock.ErrNotObtained) {
		t.Fatal(err)
	}
	s := w.spans.Ended()
	if len(s) != 2 || s[0].Name() != "lock obtain" || s[1].Name() != "lock obtain" {
		t.Fatalf("spans %v", s)
	}
	wantAttrs(t, s[0], map[string]string{"tablekit.lock.key": "job", "tablekit.lock.ttl": "60", "tablekit.lock.attempts": "1",
		"tablekit.lock.outcome": "obtained", "tablekit.lock.fence": fmt.Sprint(l.Fence())})
	if l.Fence() <= 0 {
		t.Errorf("fence %d", l.Fence())
	}
	a := attrs(s[1].Attributes())
	if a["tablekit.lock.outcome"] != "not_obtained" || a["tablekit.lock.attempts"] < "2" || s[1].Status().Code != codes.Error {
		t.Errorf("second obtain: %v %v", s[1].Status(), a)
	}
	if n := w.pointsBy(t, "tablekit.lock.wait", "tablekit.lock.outcome"); n["obtained"] != 1 || n["not_obtained"] != 1 {
		t.Errorf("lock wait points %v", n)
	}
	if n := w.pointsBy(t, "tablekit.lock.attempts", "tablekit.lock.outcome"); n["not_obtained"] != 1 {
		t.Errorf("lock attempts points %v", n)
	}
}

// TestIdempotencySpans: a call of Do is a span "idempotency Do" whose
// outcome is new (fn ran, its work nested under the span), replayed, or
// in_progress for a duplicate of a running call; counted by outcome.
func TestIdempotencySpans(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	db := ddbmem.New()
	tbl := entity.NewTable(db, "otelkit-idem", func(o *entity.Options) { o.Tracer = w.tel.Entity() })
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := idempotency.New(tbl.Client(), tbl.Name(), func(o *idempotency.Options) { o.Tracer = w.tel.Idempotency() })
	if err != nil {
		t.Fatal(err)
	}
	var fnParent trace.SpanContext
	fn := func(ctx context.Context) (string, error) {
		fnParent = trace.SpanContextFromContext(ctx)
		return "done", nil
	}
	if _, replayed, err := idempotency.Do(ctx, s, "k1", nil, fn); err != nil || replayed {
		t.Fatal(err, replayed)
	}
	if _, replayed, err := idempotency.Do(ctx, s, "k1", nil, fn); err != nil || !replayed {
		t.Fatal(err, replayed)
	}
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _, _ = idempotency.Do(ctx, s, "k2", nil, func(context.Context) (string, error) { close(started); <-release; return "", nil })
	}()
	<-started
	if _, _, err := idempotency.Do(ctx, s, "k2", nil, fn); !errors.Is(err, idempotency.ErrInProgress) {
		t.Fatal(err)
	}
	close(release)
	var outcomes []string
	for _, sp := range w.spans.Ended() {
		if sp.Name() == "idempotency Do" {
			a := attrs(sp.Attributes())
			outcomes = append(outcomes, a["tablekit.idempotency.key"]+" "+a["tablekit.idempotency.outcome"])
			if a["tablekit.idempotency.outcome"] == "new" && a["tablekit.idempotency.key"] == "k1" && sp.SpanContext().SpanID() != fnParent.SpanID() {
				t.Errorf("fn ran under %v, want the Do span %v", fnParent.SpanID(), sp.SpanContext().SpanID())
			}
		}
	}
	if fmt.Sprint(outcomes[:3]) != "[k1 new k1 replayed k2 in_progress]" {
		t.Errorf("outcomes %v", outcomes)
	}
	if n := w.pointsBy(t, "tablekit.idempotency.calls", "tablekit.idempotency.outcome"); n["new"] < 1 || n["replayed"] != 1 || n["in_progress"] != 1 {
		t.Errorf("calls by outcome %v", n)
	}
}

// TestFeedSpans: each handler call of a change-feed consumer is a consumer
// span "process TABLE" with the shard, fence, batch size and lag, and a
// record that keeps failing is a span "dead letter TABLE"; the records and
// dead-letter counters and the per-shard figures (ObserveFeed) count them.
func TestFeedSpans(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	db := ddbmem.New()
	tbl := codex.NewTable(db, "otelkit-feed")
	in := tbl.CreateTableInput()
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	if _, err := db.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := entity.NewTable(db, "otelkit-feed-leases").EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	leases, err := lease.New(db, func(o *lease.Options) { o.Table = "otelkit-feed-leases" })
	if err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	for _, id := range []string{"p1", "poison", "p3"} {
		if err := posts.Create(ctx, &codex.Post{ID: id, CategoryID: "c1", Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{}, 10)
	c, err := feed.New(db.Streams(), tbl.Name(), func(ctx context.Context, b feed.Batch) error {
		if !trace.SpanContextFromContext(ctx).IsValid() {
			t.Error("handler ctx carries no span")
		}
		for _, r := range b.Records {
			if ch, ok := feed.As[codex.Post](&r); ok && ch.New.ID == "poison" {
				return errors.New("poison")
			}
		}
		for range b.Records {
			done <- struct{}{}
		}
		return nil
	}, func(o *feed.Options) {
		o.Leases = leases
		o.Decoders = []feed.Decoder{feed.Entity[codex.Post]()}
		o.PollInterval = 5 * time.Millisecond
		o.Attempts = 1
		o.Retry = retry.Constant(time.Millisecond)
		o.DeadLetter = func(context.Context, feed.Record, error) error { done <- struct{}{}; return nil }
		o.Tracer = w.tel.Feed()
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := w.tel.ObserveFeed(c, tbl.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister()
	runCtx, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- c.Run(runCtx) }()
	for range 3 {
		select {
		case <-done:
		case <-runCtx.Done():
			t.Fatal("records not handled")
		}
	}
	stop()
	<-errc
	byName := map[string]int{}
	for _, s := range w.spans.Ended() {
		byName[s.Name()]++
		a := attrs(s.Attributes())
		switch s.Name() {
		case "process otelkit-feed":
			if s.SpanKind() != trace.SpanKindConsumer || a["tablekit.feed.table"] != "otelkit-feed" || a["tablekit.feed.shard"] == "" ||
				a["tablekit.feed.fence"] < "1" || a["messaging.batch.message_count"] < "1" || a["tablekit.feed.lag"] == "" {
				t.Errorf("batch span %v: %v", s.SpanKind(), a)
			}
		case "dead letter otelkit-feed":
			if a["tablekit.feed.event_id"] == "" || a["tablekit.feed.sequence_number"] == "" || a["error.type"] == "" {
				t.Errorf("dead-letter span: %v", a)
			}
		}
	}
	// one batch of 3 fails, then bisected: [p1] ok, [poison, p3] fails, [poison] fails, [p3] ok
	if byName["process otelkit-feed"] < 3 || byName["dead letter otelkit-feed"] != 1 {
		t.Errorf("spans %v", byName)
	}
	if n := w.pointsBy(t, "tablekit.feed.dead_letters", "tablekit.feed.table"); n["otelkit-feed"] != 1 {
		t.Errorf("dead letters %v", n)
	}
	if n := w.pointsBy(t, "tablekit.feed.records", "error.type"); n[""] != 2 || n["*errors.errorString"] < 2 {
		t.Errorf("records by error.type %v", n)
	}
	if n := w.pointsBy(t, "tablekit.feed.shard.dead_lettered", "tablekit.feed.table"); n["otelkit-feed"] != 1 {
		t.Errorf("shard dead letters %v", n)
	}
	if n := w.pointsBy(t, "tablekit.feed.shard.handled", "tablekit.feed.table"); n["otelkit-feed"] != 2 {
		t.Errorf("shard handled %v", n)
	}
	if _, ok := w.metrics(t)["tablekit.feed.shard.lag"]; !ok {
		t.Error("no shard lag gauge")
	}
}

// TestEvolveSpans: a live-table job run with otelkit's progress is a span
// "evolve JOB" with its totals, the parent of one span per segment with
// the segment's number, fence and counts; the items counter counts the
// changed items.
func TestEvolveSpans(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	tbl := post.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	old := entity.NewStore[codex.Post](tbl)
	for i := 0; i < 10; i++ {
		if err := old.Create(ctx, &codex.Post{ID: codex.NewID(), CategoryID: "c001", Title: fmt.Sprint("post ", i), AuthorID: "u001"}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, parent := w.tp.Tracer("test").Start(ctx, "deploy")
	prog := w.tel.Evolve(ctx)
	job := evolve.Job{Name: "post-author-index", Steps: []evolve.Step{evolve.Backfill(evolve.EntityOf[post.Post](), post.AuthorIDCreatedAt)}}
	_, err := evolve.Run(ctx, tbl, job, func(o *evolve.Options) { o.Progress = prog })
	prog.End(err)
	if err != nil {
		t.Fatal(err)
	}
	parent.End()
	var jobSpan sdktrace.ReadOnlySpan
	var segs []sdktrace.ReadOnlySpan
	for _, s := range w.spans.Ended() {
		switch s.Name() {
		case "evolve post-author-index":
			jobSpan = s
		case "evolve post-author-index segment":
			segs = append(segs, s)
		}
	}
	if jobSpan == nil || len(segs) == 0 {
		t.Fatalf("job %v, segments %d", jobSpan, len(segs))
	}
	wantParent(t, jobSpan, parent.(sdktrace.ReadOnlySpan))
	wantAttrs(t, jobSpan, map[string]string{"tablekit.evolve.job": "post-author-index", "tablekit.evolve.changed": "10"})
	for _, s := range segs {
		wantParent(t, s, jobSpan)
		if a := attrs(s.Attributes()); a["tablekit.evolve.segments"] == "" || a["tablekit.evolve.fence"] == "" || a["tablekit.evolve.scanned"] == "" {
			t.Errorf("segment span %v", a)
		}
	}
	if n := w.pointsBy(t, "tablekit.evolve.items", "tablekit.evolve.count"); n["changed"] != 10 {
		t.Errorf("items by count %v", n)
	}
	if n := w.pointsBy(t, "tablekit.evolve.segments", "tablekit.evolve.job"); n["post-author-index"] != float64(len(segs)) {
		t.Errorf("segments %v, spans %d", n, len(segs))
	}
}

// TestObserveCache: seed 002's cache metrics and health check, read from
// cache.Metrics and cache.Health at each collection: lookups by result,
// the hit ratio, operations, and healthy 1 with one node's memory.
func TestObserveCache(t *testing.T) {
	w := newWorld(t)
	c := newCache(t, w)
	reg, err := w.tel.ObserveCache(c, "base")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister()
	ctx := context.Background()
	_, _ = c.Get(ctx, "a")
	_ = c.Set(ctx, "a", "1", time.Minute)
	_, _ = c.GetSynced(ctx, "a")
	m := c.Metrics()
	got := w.metrics(t)
	one := func(name string) float64 {
		t.Helper()
		if len(got[name]) != 1 {
			t.Errorf("%s: %d points", name, len(got[name]))
			return -1
		}
		if v, _ := got[name][0].Attributes.Value("tablekit.cache.name"); v.AsString() != "base" {
			t.Errorf("%s: name %q", name, v.AsString())
		}
		return got[name][0].Value
	}
	if v := one("tablekit.cache.healthy"); v != 1 {
		t.Errorf("healthy %v", v)
	}
	if v := one("tablekit.cache.hit_ratio"); v <= 0 || v >= 1 {
		t.Errorf("hit ratio %v (metrics %+v)", v, m)
	}
	if l := w.pointsBy(t, "tablekit.cache.lookups", "tablekit.cache.result"); l["hit"] < 1 || l["miss"] < 1 {
		t.Errorf("lookups %v", l)
	}
	if o := w.pointsBy(t, "tablekit.cache.operations", "tablekit.cache.outcome"); o["success"] < 3 {
		t.Errorf("operations %v", o)
	}
	if v := one("tablekit.cache.node.used_memory"); v <= 0 {
		t.Errorf("used memory %v", v)
	}
}
