package participation_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	p "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/query"
	qp "github.com/tablekit/tablekit/query/participation"
)

// With the audit log on, a clock that does not move between transitions
// (a coarse clock) used to make two log items of one request collide on
// LOG#<occurredAt>, and the second transition failed for good (found by
// TestCrashParticipation/status_log). Every transition now gets its own,
// ordered log item.
func TestStatusLogFrozenClock(t *testing.T) {
	ctx := context.Background()
	tbl := p.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	frozen := time.Now()
	q := &memQueue{}
	svc := p.NewService(tbl, q, func(o *p.Options) {
		o.StatusLog = true
		o.Now = func() time.Time { return frozen }
	})
	if _, err := svc.CreateCapacity(ctx, "evt", 1); err != nil {
		t.Fatal(err)
	}
	rc, err := svc.Participate(ctx, "evt", "u", p.ModeFirstCome)
	if err != nil {
		t.Fatal(err)
	}
	r, decided, err := svc.Process(ctx, q.msgs[0])
	if err != nil || !decided || r.Status != p.StatusSucceeded {
		t.Fatalf("process: %s %v %v", r.Status, decided, err)
	}
	logs, err := qp.RequestLogs(ctx, tbl, rc.RequestID, query.PageOptions{ConsistentRead: true})
	if err != nil {
		t.Fatal(err)
	}
	var steps []p.Status
	for _, l := range logs.Items {
		steps = append(steps, l.To)
	}
	if diff := cmp.Diff([]p.Status{p.StatusReceived, p.StatusQueued, p.StatusProcessing, p.StatusSucceeded}, steps); diff != "" {
		t.Fatalf("log (-want +got):\n%s", diff)
	}
}
