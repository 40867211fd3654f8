package designs

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/design"
	"github.com/tablekit/tablekit/entity"
	pe "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/query"
	qpart "github.com/tablekit/tablekit/query/participation"
)

type sent struct {
	mu  sync.Mutex
	ops map[[2]string]bool // (op, index)
}

func (s *sent) tracer(o *entity.Options) {
	o.Tracer = entity.TracerFunc(func(_ context.Context, ev entity.TraceEvent) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.ops[[2]string{ev.Op, ev.Index}] = true
	})
}

type queue struct{ msgs []pe.Message }

func (q *queue) Send(_ context.Context, m pe.Message) error { q.msgs = append(q.msgs, m); return nil }

// TestPolicyCoversWhatTheCodeSends runs seed 004's flows (participate,
// process, fail, reconcile, every read) on the embedded engine with a
// tracer, and checks that the policy computed from the declarations allows
// every request sent: its action on the table, or on the index it reads.
// A TransactWriteItems request is allowed when the declarations have
// transactional writes (IAM checks each of its actions as that write).
func TestPolicyCoversWhatTheCodeSends(t *testing.T) {
	ctx := context.Background()
	tr := &sent{ops: map[[2]string]bool{}}
	tbl := pe.NewTable(ddbmem.New(), "", tr.tracer)
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	tr.ops = map[[2]string]bool{} // CreateTable is the deployment's, not the service's
	q := &queue{}
	svc := pe.NewService(tbl, q, func(o *pe.Options) { o.StatusLog = true })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := svc.CreateCapacity(ctx, "e1", 1)
	must(err)
	for _, u := range []string{"u1", "u2", "u3"} {
		_, err := svc.Participate(ctx, "e1", u, pe.ModeFirstCome)
		must(err)
	}
	_, err = svc.Participate(ctx, "e1", "u1", pe.ModeFirstCome) // duplicate
	must(err)
	for i, m := range q.msgs {
		if i == 2 {
			r, err := qpart.Request(ctx, tbl, m.RequestID)
			must(err)
			must(svc.Fail(ctx, &r, pe.FailureTransient, pe.ErrorIngestEnqueue, "x"))
			continue
		}
		_, _, err := svc.Process(ctx, m)
		must(err)
	}
	_, err = svc.Reconcile(ctx)
	must(err)
	_, err = qpart.Lock(ctx, tbl, "e1", "u1")
	must(err)
	_, err = qpart.MyParticipations(ctx, tbl, "u1", query.PageOptions{})
	must(err)
	_, err = qpart.EventRequests(ctx, tbl, "e1", query.PageOptions{})
	must(err)
	_, err = qpart.RecentEventRequests(ctx, tbl, "e1", query.PageOptions{})
	must(err)
	_, err = qpart.RequestLogs(ctx, tbl, q.msgs[0].RequestID, query.PageOptions{})
	must(err)
	_, err = qpart.Capacity(ctx, tbl, "e1")
	must(err)
	_, err = qpart.StatusCounts(ctx, tbl, "e1")
	must(err)

	s := Participation()
	p := design.Policy(s)
	tx := slices.ContainsFunc(s.Patterns, func(p query.Pattern) bool { return p.Tx })
	var seen []string
	for k := range tr.ops {
		op, index := k[0], k[1]
		seen = append(seen, op+"@"+index)
		a := "dynamodb:" + op
		switch {
		case op == "TransactWriteItems":
			if !tx {
				t.Errorf("TransactWriteItems sent but no transactional write declared")
			}
		case index == "":
			if !slices.Contains(p.Actions, a) {
				t.Errorf("%s on the table is sent but not allowed by %v", a, p.Actions)
			}
		default:
			if !slices.Contains(p.IndexActions, a) || !slices.Contains(p.Indexes, index) {
				t.Errorf("%s on index %s is sent but not allowed", a, index)
			}
		}
	}
	slices.Sort(seen)
	t.Logf("requests sent: %v; policy: table %v, indexes %v %v", seen, p.Actions, p.IndexActions, p.Indexes)
}
