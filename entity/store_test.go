package entity_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

func noteTable(t *testing.T, optFns ...func(*entity.Options)) *entity.Table {
	t.Helper()
	return noteTableOn(t, testenv.Dynamo(t), optFns...)
}

// noteTableOn is noteTable on the given client (the engine, for the tests
// that inject faults).
func noteTableOn(t *testing.T, client entity.Client, optFns ...func(*entity.Options)) *entity.Table {
	t.Helper()
	name := testenv.UniqueName("entity")
	fns := append([]func(*entity.Options){func(o *entity.Options) {
		o.GSIs = []entity.Index{
			{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"},
			{Name: "GSI2", PK: "GSI2PK", SK: "GSI2SK", Projection: types.ProjectionTypeKeysOnly},
			{Name: "Type_CreatedAt", PK: "Type", SK: "CreatedAt"},
		}
		o.TTLAttr = "expires"
	}}, optFns...)
	return testenv.Table(t, entity.NewTable(client, name, fns...))
}

func rawItem(t *testing.T, tbl *entity.Table, key entity.Key) map[string]types.AttributeValue {
	t.Helper()
	return testenv.RawItem(t, tbl, key)
}

func TestCRUD(t *testing.T) {
	tbl := noteTable(t)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	key, _ := NoteKey("n1")

	if _, err := notes.Get(ctx, key); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("Get missing: %v, want ErrNotFound", err)
	}
	n := Note{ID: "n1", Owner: "kim", Region: "seoul", Title: "안녕하세요", Tag: "news"}
	if err := notes.Create(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if n.Version != 1 || n.CreatedAt.IsZero() || n.UpdatedAt.IsZero() {
		t.Fatalf("Create did not refresh: %+v", n)
	}
	raw := rawItem(t, tbl, key)
	for attr, want := range map[string]string{"PK": "NOTE#n1", "SK": "META", "Type": "NOTE", "GSI1PK": "OWNER#kim", "GSI1SK": "REGION#seoul#안녕하세요", "GSI2PK": "TAG#news", "GSI2SK": "NOTE#n1"} {
		if got := testenv.Text(raw, attr); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}
	if ca := testenv.Text(raw, "CreatedAt"); len(ca) != 20 || !strings.HasSuffix(ca, "Z") {
		t.Errorf("CreatedAt %q is not ISO 8601 UTC seconds", ca)
	}

	err := notes.Create(ctx, &Note{ID: "n1", Owner: "x", Region: "r", Title: "t"})
	if !errors.Is(err, entity.ErrAlreadyExists) || !errors.Is(err, entity.ErrConditionFailed) {
		t.Fatalf("second Create: %v, want ErrAlreadyExists+ErrConditionFailed", err)
	}

	got, err := notes.Get(ctx, key, entity.ConsistentRead)
	if err != nil || got.Title != "안녕하세요" || got.Version != 1 {
		t.Fatalf("Get: %+v %v", got, err)
	}
	created := testenv.Text(raw, "CreatedAt")

	// Update with version, increments.
	upd, err := notes.Update(ctx, key, entity.Changes[Note]{
		entity.Set(NoteBody, "body"), entity.Add(NoteViews, 3),
	}, entity.IfVersion(1))
	if err != nil {
		t.Fatal(err)
	}
	if upd.Version != 2 || upd.Views != 3 || upd.Body != "body" {
		t.Fatalf("Update result %+v", upd)
	}
	if c := testenv.Text(rawItem(t, tbl, key), "CreatedAt"); c != created {
		t.Fatalf("CreatedAt changed %q -> %q", created, c)
	}
	// Version conflict.
	_, err = notes.Update(ctx, key, entity.Changes[Note]{entity.Set(NoteBody, "x")}, entity.IfVersion(1))
	var vc *entity.VersionConflictError
	if !errors.Is(err, entity.ErrVersionConflict) || !errors.As(err, &vc) || vc.Actual != 2 || vc.Expected != 1 {
		t.Fatalf("stale Update: %v, want version conflict (expected 1, actual 2)", err)
	}
	// User condition failure is not a version conflict.
	_, err = notes.Update(ctx, key, entity.Changes[Note]{entity.Set(NoteBody, "x")}, entity.IfVersion(2),
		entity.If(expression.Name("owner").Equal(expression.Value("lee"))))
	if !errors.Is(err, entity.ErrConditionFailed) || errors.Is(err, entity.ErrVersionConflict) {
		t.Fatalf("conditional Update: %v, want ErrConditionFailed only", err)
	}
	// SetIfNotExists and Remove.
	upd, err = notes.Update(ctx, key, entity.Changes[Note]{entity.SetIfNotExists(NoteBody, "ignored"), entity.Add(NoteViews, -1)}, entity.IfVersion(2))
	if err != nil || upd.Body != "body" || upd.Views != 2 {
		t.Fatalf("SetIfNotExists: %+v %v", upd, err)
	}
	upd, err = notes.Update(ctx, key, entity.Changes[Note]{entity.Remove(NoteBody)}, entity.IfVersion(3))
	if err != nil || upd.Body != "" {
		t.Fatalf("Remove: %+v %v", upd, err)
	}
	// Update of a missing item.
	k2, _ := NoteKey("missing")
	_, err = notes.Update(ctx, k2, entity.Changes[Note]{entity.Set(NoteBody, "x")}, entity.IfVersion(1))
	if !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("Update missing: %v, want ErrNotFound", err)
	}
	// Update without version on a versioned entity.
	_, err = notes.Update(ctx, key, entity.Changes[Note]{entity.Set(NoteBody, "x")})
	if !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("Update without version: %v, want ErrValidation", err)
	}
	// Delete: stale version, then right version.
	if err := notes.Delete(ctx, key, entity.IfVersion(1)); !errors.Is(err, entity.ErrVersionConflict) {
		t.Fatalf("stale Delete: %v", err)
	}
	if err := notes.Delete(ctx, key); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("Delete without version: %v", err)
	}
	if err := notes.Delete(ctx, key, entity.IfVersion(4)); err != nil {
		t.Fatal(err)
	}
	if _, err := notes.Get(ctx, key, entity.ConsistentRead); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("after Delete: %v", err)
	}
	if err := notes.Delete(ctx, key, entity.IfVersion(4)); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("Delete missing with version: %v, want ErrNotFound", err)
	}
}

func TestPutVersioning(t *testing.T) {
	tbl := noteTable(t)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	n := Note{ID: "p1", Owner: "o", Region: "r", Title: "t"}
	if err := notes.Put(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if n.Version != 1 {
		t.Fatalf("version %d", n.Version)
	}
	first := n.CreatedAt
	n.Title = "t2"
	if err := notes.Put(ctx, &n, entity.IfVersion(1)); err != nil {
		t.Fatal(err)
	}
	if n.Version != 2 || !n.CreatedAt.Equal(first) {
		t.Fatalf("after Put: %+v", n)
	}
	fresh := Note{ID: "p1", Owner: "o", Region: "r", Title: "t3"}
	if err := notes.Put(ctx, &fresh); !errors.Is(err, entity.ErrVersionConflict) {
		t.Fatalf("unversioned Put over existing: %v", err)
	}
	if err := notes.Put(ctx, &n, entity.IfVersion(1)); !errors.Is(err, entity.ErrVersionConflict) {
		t.Fatalf("stale Put: %v", err)
	}
}

func TestIndexKeysNeverDrift(t *testing.T) {
	tbl := noteTable(t)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	n := Note{ID: "d1", Owner: "kim", Region: "seoul", Title: "a", Tag: "x"}
	if err := notes.Create(ctx, &n); err != nil {
		t.Fatal(err)
	}
	key, _ := n.PrimaryKey()
	v := int64(1)
	update := func(ch ...entity.Change[Note]) error {
		_, err := notes.Update(ctx, key, ch, entity.IfVersion(v))
		if err == nil {
			v++
		}
		return err
	}
	// A GSI PK source changes: the key is rewritten.
	if err := update(entity.Set(NoteOwner, "lee")); err != nil {
		t.Fatal(err)
	}
	if got := testenv.Text(rawItem(t, tbl, key), "GSI1PK"); got != "OWNER#lee" {
		t.Fatalf("GSI1PK = %q", got)
	}
	// A source changes but another source of the key is not given: error,
	// nothing written.
	err := update(entity.Set(NoteRegion, "busan"))
	if !errors.Is(err, entity.ErrValidation) || !errors.Is(err, errMissingField) {
		t.Fatalf("missing source: %v", err)
	}
	if raw := rawItem(t, tbl, key); testenv.Text(raw, "region") != "seoul" || testenv.Text(raw, "GSI1SK") != "REGION#seoul#a" {
		t.Fatalf("half-written: %v %v", testenv.Text(raw, "region"), testenv.Text(raw, "GSI1SK"))
	}
	if err := update(entity.Set(NoteRegion, "busan"), entity.Set(NoteTitle, "b#c")); err != nil {
		t.Fatal(err)
	}
	if got := testenv.Text(rawItem(t, tbl, key), "GSI1SK"); got != "REGION#busan#b%23c" {
		t.Fatalf("GSI1SK = %q", got)
	}
	// Sparse index: removing the source removes the index keys.
	if err := update(entity.Remove(NoteTag)); err != nil {
		t.Fatal(err)
	}
	raw := rawItem(t, tbl, key)
	if _, ok := raw["GSI2PK"]; ok {
		t.Fatal("GSI2PK still present")
	}
	if _, ok := raw["GSI2SK"]; ok {
		t.Fatal("GSI2SK still present")
	}
	// Setting it again rebuilds both keys (GSI2SK from the primary key).
	if err := update(entity.Set(NoteTag, "y")); err != nil {
		t.Fatal(err)
	}
	raw = rawItem(t, tbl, key)
	if testenv.Text(raw, "GSI2PK") != "TAG#y" || testenv.Text(raw, "GSI2SK") != "NOTE#d1" {
		t.Fatalf("GSI2 keys %q %q", testenv.Text(raw, "GSI2PK"), testenv.Text(raw, "GSI2SK"))
	}
	// Setting to empty also removes (empty = absent for a sparse key).
	if err := update(entity.Set(NoteTag, "")); err != nil {
		t.Fatal(err)
	}
	if _, ok := rawItem(t, tbl, key)["GSI2PK"]; ok {
		t.Fatal("GSI2PK present after empty tag")
	}
	// Non-sparse source emptied: error.
	if err := update(entity.Set(NoteOwner, "")); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("empty non-sparse source: %v", err)
	}
	// Primary key sources are never SET.
	if err := update(entity.Set(NoteID, "other")); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("set primary source: %v", err)
	}
}

func TestValidation(t *testing.T) {
	tbl := noteTable(t)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	var calls atomic.Int32
	if err := notes.Create(ctx, &Note{Owner: "o", Region: "r", Title: "t"}); !errors.Is(err, entity.ErrValidation) || !errors.Is(err, errMissingField) {
		t.Fatalf("empty ID: %v", err)
	}
	if err := notes.Create(ctx, &Note{ID: "v1", Region: "r", Title: "t"}); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("missing GSI source: %v", err)
	}
	if _, err := notes.Get(ctx, entity.Key{}); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("empty key: %v", err)
	}
	big := Note{ID: "big", Owner: "o", Region: "r", Title: "t", Body: strings.Repeat("가", 140000)}
	err := notes.Create(ctx, &big, func(o *entity.CallOptions) {
		o.Trace = entity.TracerFunc(func(context.Context, entity.TraceEvent) { calls.Add(1) })
	})
	var tl *entity.ItemTooLargeError
	if !errors.Is(err, entity.ErrItemTooLarge) || !errors.As(err, &tl) || tl.Size <= entity.MaxItemSize {
		t.Fatalf("too large: %v", err)
	}
	if calls.Load() != 0 {
		t.Fatal("a too-large item was sent")
	}
	// Just under the limit goes through: the size is computed like DynamoDB.
	ok := Note{ID: "ok", Owner: "o", Region: "r", Title: "t"}
	item, _ := ok.MarshalItem()
	base := entity.ItemSize(item) + len("body") + 200 // timestamps, version, Type
	ok.Body = strings.Repeat("a", entity.MaxItemSize-base)
	if err := notes.Create(ctx, &ok); err != nil {
		t.Fatalf("item under the limit: %v", err)
	}
	// An update that would grow the item past the limit: DynamoDB's refusal
	// is translated.
	okKey, _ := ok.PrimaryKey()
	if _, err := notes.Update(ctx, okKey, entity.Changes[Note]{entity.Set(NoteTag, strings.Repeat("b", 100000))}, entity.IfVersion(1)); !errors.Is(err, entity.ErrItemTooLarge) {
		t.Fatalf("update too large: %v", err)
	}
	if _, err := notes.Update(ctx, entity.Key{PK: "NOTE#x", SK: "META"}, nil, entity.IfVersion(1)); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("no changes: %v", err)
	}
	if _, err := notes.Update(ctx, entity.Key{PK: "NOTE#x", SK: "META"}, entity.Changes[Note]{{}}, entity.IfVersion(1)); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("zero change: %v", err)
	}
}

func TestDryRunAndTrace(t *testing.T) {
	var events []entity.TraceEvent
	var mu sync.Mutex
	tbl := noteTable(t, func(o *entity.Options) {
		o.Tracer = entity.TracerFunc(func(_ context.Context, ev entity.TraceEvent) { mu.Lock(); events = append(events, ev); mu.Unlock() })
	})
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	var req entity.Request
	n := Note{ID: "dr", Owner: "o", Region: "r", Title: "t"}
	if err := notes.Create(ctx, &n, entity.DryRun(&req)); err != nil {
		t.Fatal(err)
	}
	in, ok := req.Input.(*dynamodb.PutItemInput)
	if req.Op != "PutItem" || !ok || *in.ConditionExpression != "attribute_not_exists (#0)" {
		t.Fatalf("dry run: %+v", req)
	}
	if _, err := notes.Get(ctx, entity.Key{PK: "NOTE#dr", SK: "META"}, entity.ConsistentRead); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("dry run wrote the item: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	last := events[len(events)-1]
	if last.Op != "GetItem" || last.Table != tbl.Name() || last.Duration <= 0 || len(last.Consumed) != 1 {
		t.Fatalf("trace %+v", last)
	}
}

// TestVersionConcurrency: 32 goroutines increment the same item with
// optimistic versioning; the final version equals the successes plus one
// (the create) and the counter lost no update.
func TestVersionConcurrency(t *testing.T) {
	tbl := noteTable(t)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	n := Note{ID: "c1", Owner: "o", Region: "r", Title: "t"}
	if err := notes.Create(ctx, &n); err != nil {
		t.Fatal(err)
	}
	key, _ := n.PrimaryKey()
	var wg sync.WaitGroup
	var successes, conflicts atomic.Int64
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for attempt := 0; attempt < 3; attempt++ {
				cur, err := notes.Get(ctx, key, entity.ConsistentRead)
				if err != nil {
					t.Error(err)
					return
				}
				_, err = notes.Update(ctx, key, entity.Changes[Note]{entity.Set(NoteViews, cur.Views+1)}, entity.IfVersion(cur.Version))
				if err == nil {
					successes.Add(1)
					return
				}
				if !errors.Is(err, entity.ErrVersionConflict) {
					t.Error(err)
					return
				}
				conflicts.Add(1)
			}
		}()
	}
	wg.Wait()
	final, err := notes.Get(ctx, key, entity.ConsistentRead)
	if err != nil {
		t.Fatal(err)
	}
	if final.Version != successes.Load()+1 || final.Views != successes.Load() {
		t.Fatalf("final version %d views %d, successes %d (conflicts %d)", final.Version, final.Views, successes.Load(), conflicts.Load())
	}
	if successes.Load() == 0 {
		t.Fatal("no update succeeded")
	}
	t.Logf("successes %d conflicts %d", successes.Load(), conflicts.Load())
}

// A sparse index is written whole or not at all: a note without a tag
// gets neither GSI2 key, although GSI2SK's own source (the id) is set.
func TestSparseIndexWholeOrNothing(t *testing.T) {
	tbl := noteTable(t)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	n := Note{ID: "s1", Owner: "kim", Region: "seoul", Title: "untagged"}
	if err := notes.Create(ctx, &n); err != nil {
		t.Fatal(err)
	}
	key, _ := NoteKey("s1")
	raw := rawItem(t, tbl, key)
	for _, attr := range []string{"GSI2PK", "GSI2SK"} {
		if _, ok := raw[attr]; ok {
			t.Errorf("%s written for a note without a tag: %q", attr, testenv.Text(raw, attr))
		}
	}
	if testenv.Text(raw, "GSI1PK") != "OWNER#kim" {
		t.Errorf("GSI1PK = %q, want OWNER#kim", testenv.Text(raw, "GSI1PK"))
	}
	n.Tag = "news"
	if err := notes.Put(ctx, &n, entity.IfVersion(n.Version)); err != nil {
		t.Fatal(err)
	}
	raw = rawItem(t, tbl, key)
	if testenv.Text(raw, "GSI2PK") != "TAG#news" || testenv.Text(raw, "GSI2SK") != "NOTE#s1" {
		t.Errorf("GSI2 keys after tagging: %q %q", testenv.Text(raw, "GSI2PK"), testenv.Text(raw, "GSI2SK"))
	}
}

type spanKey struct{}

// spanTracer opens a "span" in TraceStart as a child of the caller's and
// records, in TraceEnd, the span path it finds in the context.
type spanTracer struct {
	mu    sync.Mutex
	ended []string
}

func (s *spanTracer) TraceStart(ctx context.Context, ev entity.TraceStartEvent) context.Context {
	parent, _ := ctx.Value(spanKey{}).(string)
	return context.WithValue(ctx, spanKey{}, parent+"/"+ev.Op)
}

func (s *spanTracer) TraceEnd(ctx context.Context, ev entity.TraceEvent) {
	path, _ := ctx.Value(spanKey{}).(string)
	s.mu.Lock()
	s.ended = append(s.ended, path)
	s.mu.Unlock()
}

// TestTracerNests: the tracer receives the call's context, and TraceEnd the
// context its TraceStart returned, so spans nest under the caller's.
func TestTracerNests(t *testing.T) {
	tr := &spanTracer{}
	tbl := noteTable(t, func(o *entity.Options) { o.Tracer = tr })
	notes := entity.NewStore[Note](tbl)
	ctx := context.WithValue(context.Background(), spanKey{}, "handler")
	n := Note{ID: "tr", Owner: "o", Region: "r", Title: "t"}
	if err := notes.Create(ctx, &n); err != nil {
		t.Fatal(err)
	}
	key, _ := n.PrimaryKey()
	if _, err := notes.Get(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := notes.Update(ctx, key, entity.Changes[Note]{entity.Set(NoteBody, "b")}, entity.IfVersion(1)); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Tx().Add(notes.TxDelete(key, entity.IfVersion(2))).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"/CreateTable", "handler/PutItem", "handler/GetItem", "handler/UpdateItem", "handler/TransactWriteItems"}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if diff := cmp.Diff(want, tr.ended); diff != "" {
		t.Fatalf("spans (-want +got):\n%s", diff)
	}
}

// TestRequestBuilders: the request builders need no context and build the
// request a DryRun captures.
func TestRequestBuilders(t *testing.T) {
	tbl := noteTable(t)
	notes := entity.NewStore[Note](tbl)
	n := Note{ID: "rb", Owner: "o", Region: "r", Title: "t", CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	key, _ := n.PrimaryKey()
	ctx := context.Background()
	opts := cmpopts.IgnoreUnexported(dynamodb.PutItemInput{}, dynamodb.UpdateItemInput{}, dynamodb.DeleteItemInput{}, dynamodb.GetItemInput{},
		types.AttributeValueMemberS{}, types.AttributeValueMemberN{})
	for _, tc := range []struct {
		name  string
		build func() (any, error)
		call  func(*entity.Request) error
	}{
		{"Get", func() (any, error) { return notes.GetInput(key, entity.ConsistentRead) },
			func(r *entity.Request) error {
				_, err := notes.Get(ctx, key, entity.ConsistentRead, entity.DryRun(r))
				return err
			}},
		{"Create", func() (any, error) { return notes.CreateInput(&n) },
			func(r *entity.Request) error { return notes.Create(ctx, &n, entity.DryRun(r)) }},
		{"Put", func() (any, error) { return notes.PutInput(&n, entity.IfVersion(3)) },
			func(r *entity.Request) error { return notes.Put(ctx, &n, entity.IfVersion(3), entity.DryRun(r)) }},
		{"Delete", func() (any, error) { return notes.DeleteInput(key, entity.IfVersion(3)) },
			func(r *entity.Request) error { return notes.Delete(ctx, key, entity.IfVersion(3), entity.DryRun(r)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			built, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			var r entity.Request
			if err := tc.call(&r); err != nil {
				t.Fatal(err)
			}
			// UpdatedAt is stamped now: compare all but the item's times.
			if diff := cmp.Diff(r.Input, built, opts, cmpopts.IgnoreMapEntries(func(k string, _ types.AttributeValue) bool { return k == "UpdatedAt" })); diff != "" {
				t.Fatalf("builder vs dry run (-dry +built):\n%s", diff)
			}
		})
	}
	if _, err := notes.UpdateInput(key, entity.Changes[Note]{entity.Set(NoteBody, "b")}, entity.IfVersion(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := notes.UpdateInput(key, nil, entity.IfVersion(1)); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("UpdateInput with no changes: %v", err)
	}
}
