package entity_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
)

// TestTraceEventFields: the tracer receives the entity type and the
// call's access pattern at start and end, the item count of each
// response, and a cancelled transaction's reason per item.
func TestTraceEventFields(t *testing.T) {
	type seen struct {
		Op, Type, Pattern string
		Items             int
		Cancellation      []string
	}
	var mu sync.Mutex
	var got []seen
	starts := map[string]string{}
	tr := startEndTracer{
		start: func(ev entity.TraceStartEvent) {
			mu.Lock()
			starts[ev.Op] = ev.Type + "/" + ev.Pattern
			mu.Unlock()
		},
		end: func(ev entity.TraceEvent) {
			mu.Lock()
			got = append(got, seen{ev.Op, ev.Type, ev.Pattern, ev.Items, ev.Cancellation})
			mu.Unlock()
		},
	}
	tbl := noteTable(t, func(o *entity.Options) { o.Tracer = tr })
	notes := entity.NewStore[Note](tbl)
	ctx := context.Background()
	n := Note{ID: "tf", Owner: "o", Region: "r", Title: "t"}
	if err := notes.Create(ctx, &n, entity.WithPattern("create-note")); err != nil {
		t.Fatal(err)
	}
	key, _ := n.PrimaryKey()
	if _, err := notes.Get(ctx, key, entity.WithPattern("note-by-id")); err != nil {
		t.Fatal(err)
	}
	missing := key
	missing.SK += "x"
	if _, err := notes.Get(ctx, missing); !errors.Is(err, entity.ErrNotFound) {
		t.Fatal(err)
	}
	if items, err := notes.BatchGet(ctx, []entity.Key{key, missing}); err != nil || len(items) != 1 {
		t.Fatal(items, err)
	}
	dup := n
	err := tbl.Tx().Add(notes.TxCreate(&dup)).Exec(ctx)
	if !errors.Is(err, entity.ErrTransactionCanceled) {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	got = got[1:] // CreateTable
	want := []seen{
		{"PutItem", "NOTE", "create-note", 1, nil},
		{"GetItem", "NOTE", "note-by-id", 1, nil},
		{"GetItem", "NOTE", "", 0, nil},
		{"BatchGetItem", "NOTE", "", 1, nil},
		{"TransactWriteItems", "", "", 0, []string{"ConditionalCheckFailed"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trace events (-want +got):\n%s", d)
	}
	if starts["PutItem"] != "NOTE/create-note" || starts["BatchGetItem"] != "NOTE/" {
		t.Errorf("start events %v", starts)
	}
}

type startEndTracer struct {
	start func(entity.TraceStartEvent)
	end   func(entity.TraceEvent)
}

func (s startEndTracer) TraceStart(ctx context.Context, ev entity.TraceStartEvent) context.Context {
	s.start(ev)
	return ctx
}

func (s startEndTracer) TraceEnd(_ context.Context, ev entity.TraceEvent) { s.end(ev) }
