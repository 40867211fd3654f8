package participation_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	pe "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/query"
	qp "github.com/tablekit/tablekit/query/participation"
)

type memQueue struct {
	mu   sync.Mutex
	msgs []pe.Message
}

func (q *memQueue) Send(_ context.Context, m pe.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, m)
	return nil
}

func setup(t *testing.T, client entity.Client) (*entity.Table, *pe.Service, *memQueue) {
	t.Helper()
	tbl := pe.NewTable(client, testenv.UniqueName("qparticipation"))
	testenv.Table(t, tbl)
	c := testenv.NewClock(time.Date(2025, 10, 29, 10, 0, 0, 0, time.UTC))
	n := 0
	q := &memQueue{}
	svc := pe.NewService(tbl, q, func(o *pe.Options) {
		o.Now = c.Now
		o.StatusLog = true
		o.NewRequestID = func() string { n++; return fmt.Sprintf("req-%03d", n) }
	})
	return tbl, svc, q
}

func ids(rs []pe.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.RequestID)
	}
	return out
}

// TestAccessPatterns runs every read pattern of seed 004 against DynamoDB
// Local.
func TestAccessPatterns(t *testing.T) {
	ctx := context.Background()
	tbl, svc, q := setup(t, testenv.Dynamo(t))
	if _, err := svc.CreateCapacity(ctx, "evt-1", 2); err != nil {
		t.Fatal(err)
	}
	// user-1 joins 25 events (GSI1 paging), and evt-1 gets 4 users.
	for i := 0; i < 25; i++ {
		if _, err := svc.Participate(ctx, fmt.Sprintf("evt-l%02d", i), "user-1", pe.ModeLottery); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []string{"user-1", "user-2", "user-3", "user-4"} {
		if _, err := svc.Participate(ctx, "evt-1", u, pe.ModeFirstCome); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range q.msgs {
		if m.EventID == "evt-1" {
			if _, _, err := svc.Process(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}

	// A) duplicate click: the lock holds the first requestId.
	lock, err := qp.Lock(ctx, tbl, "evt-1", "user-2", entity.ConsistentRead)
	if err != nil || lock.RequestID != "req-027" {
		t.Fatalf("lock %+v %v", lock, err)
	}
	// A) request detail.
	r, err := qp.Request(ctx, tbl, "req-026", entity.ConsistentRead)
	if err != nil || r.UserID != "user-1" || r.Status != pe.StatusSucceeded || r.UIResult != pe.UISuccess {
		t.Fatalf("request %+v %v", r, err)
	}
	// A) my participations: 20 newest first, then the rest.
	p1, err := qp.MyParticipations(ctx, tbl, "user-1", query.PageOptions{})
	if err != nil || len(p1.Items) != 20 || p1.Next == "" || p1.Items[0].RequestID != "req-026" || p1.Items[19].RequestID != "req-007" {
		t.Fatalf("page 1: %v next=%q err=%v", ids(p1.Items), p1.Next, err)
	}
	p2, err := qp.MyParticipations(ctx, tbl, "user-1", query.PageOptions{After: p1.Next})
	if err != nil || len(p2.Items) != 6 || p2.Items[5].RequestID != "req-001" || p2.Next != "" {
		t.Fatalf("page 2: %v next=%q err=%v", ids(p2.Items), p2.Next, err)
	}
	// C) requests of an event in queue order, and the latest N.
	ev, err := qp.EventRequests(ctx, tbl, "evt-1", query.PageOptions{})
	if diff := cmp.Diff([]string{"req-026", "req-027", "req-028", "req-029"}, ids(ev.Items)); err != nil || diff != "" {
		t.Fatalf("event requests: %v %s", err, diff)
	}
	recent, err := qp.RecentEventRequests(ctx, tbl, "evt-1", query.PageOptions{Limit: 3})
	if diff := cmp.Diff([]string{"req-029", "req-028", "req-027"}, ids(recent.Items)); err != nil || diff != "" || recent.Next == "" {
		t.Fatalf("recent: %v %s next=%q", err, diff, recent.Next)
	}
	more, err := qp.RecentEventRequests(ctx, tbl, "evt-1", query.PageOptions{Limit: 3, After: recent.Next})
	if err != nil || len(more.Items) != 1 || more.Items[0].RequestID != "req-026" {
		t.Fatalf("recent page 2: %v %v", ids(more.Items), err)
	}
	// C) aggregation by status, in the application.
	sum, err := qp.StatusCounts(ctx, tbl, "evt-1")
	want := qp.Summary{Total: 4, ByStatus: map[pe.Status]int{pe.StatusSucceeded: 2, pe.StatusRejected: 2},
		ByUIResult: map[pe.UIResult]int{pe.UISuccess: 2, pe.UIRejectedCapacity: 2}}
	if diff := cmp.Diff(want, sum); err != nil || diff != "" {
		t.Fatalf("summary: %v %s", err, diff)
	}
	// C) status logs.
	logs, err := qp.RequestLogs(ctx, tbl, "req-028", query.PageOptions{ConsistentRead: true})
	var steps []string
	for _, l := range logs.Items {
		steps = append(steps, string(l.From)+">"+string(l.To))
	}
	if diff := cmp.Diff([]string{">RECEIVED", "RECEIVED>QUEUED", "QUEUED>PROCESSING", "PROCESSING>REJECTED"}, steps); err != nil || diff != "" {
		t.Fatalf("logs: %v %s", err, diff)
	}
	c, err := qp.Capacity(ctx, tbl, "evt-1", entity.ConsistentRead)
	if err != nil || c.CapacityRemaining != 0 || c.CapacityTotal != 2 {
		t.Fatalf("capacity %+v %v", c, err)
	}

	// Bad input.
	if _, err := qp.Request(ctx, tbl, ""); !errors.Is(err, entity.ErrValidation) || !errors.Is(err, keys.ErrMissingField) {
		t.Errorf("empty request id: %v", err)
	}
	if _, err := qp.Request(ctx, tbl, "missing"); !errors.Is(err, entity.ErrNotFound) {
		t.Errorf("missing request: %v", err)
	}
	if _, err := qp.Lock(ctx, tbl, "evt-1", ""); !errors.Is(err, keys.ErrMissingField) {
		t.Errorf("empty user: %v", err)
	}
	if _, err := qp.MyParticipations(ctx, tbl, "", query.PageOptions{}); !errors.Is(err, entity.ErrValidation) {
		t.Errorf("empty user: %v", err)
	}
	if _, err := qp.EventRequests(ctx, tbl, "", query.PageOptions{}); !errors.Is(err, entity.ErrValidation) {
		t.Errorf("empty event: %v", err)
	}
	if _, err := qp.RequestLogs(ctx, tbl, "", query.PageOptions{}); !errors.Is(err, entity.ErrValidation) {
		t.Errorf("empty request: %v", err)
	}
	if _, err := qp.Capacity(ctx, tbl, "evt-none"); !errors.Is(err, entity.ErrNotFound) {
		t.Errorf("missing capacity: %v", err)
	}
	// Cursors: forged, or from another pattern or partition.
	if _, err := qp.MyParticipations(ctx, tbl, "user-1", query.PageOptions{After: "forged.cursor"}); !errors.Is(err, query.ErrInvalidCursor) {
		t.Errorf("forged cursor: %v", err)
	}
	if _, err := qp.MyParticipations(ctx, tbl, "user-2", query.PageOptions{After: p1.Next}); !errors.Is(err, query.ErrInvalidCursor) {
		t.Errorf("cursor of another user: %v", err)
	}
	if _, err := qp.EventRequests(ctx, tbl, "evt-1", query.PageOptions{After: recent.Next}); !errors.Is(err, query.ErrInvalidCursor) {
		t.Errorf("cursor of another pattern: %v", err)
	}
}
