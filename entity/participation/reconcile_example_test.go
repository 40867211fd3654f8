package participation_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	p "github.com/tablekit/tablekit/entity/participation"
	qp "github.com/tablekit/tablekit/query/participation"
)

// lossyQueue accepts the first message and loses it (as a queue that
// failed after acknowledging, or a process that died before sending);
// later ones it keeps.
type lossyQueue struct {
	lost bool
	msgs []p.Message
}

func (q *lossyQueue) Send(_ context.Context, m p.Message) error {
	if !q.lost {
		q.lost = true
		return nil
	}
	q.msgs = append(q.msgs, m)
	return nil
}

// The reconciler finds a request whose message never arrived and sends it
// again; the worker then decides it.
func ExampleService_Reconcile() {
	ctx := context.Background()
	tbl := p.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	now := time.Now()
	q := &lossyQueue{}
	svc := p.NewService(tbl, q, func(o *p.Options) {
		o.Now = func() time.Time { return now }
		o.StuckAfter = time.Minute
	})
	_, _ = svc.CreateCapacity(ctx, "concert", 10)
	rc, _ := svc.Participate(ctx, "concert", "minji", p.ModeFirstCome)
	fmt.Println("after the click:", rc.Status, "messages:", len(q.msgs))

	now = now.Add(2 * time.Minute) // past StuckAfter
	st, err := svc.Reconcile(ctx)
	fmt.Printf("reconcile: %d stuck, %d re-enqueued, err %v\n", st.Seen, st.Reenqueued, err)
	for _, m := range q.msgs {
		_, _, _ = svc.Process(ctx, m)
	}
	r, _ := qp.Request(ctx, tbl, rc.RequestID, entity.ConsistentRead)
	fmt.Println("after the worker:", r.Status, r.UIResult)
	st, _ = svc.Reconcile(ctx)
	fmt.Printf("next pass: %d stuck\n", st.Seen)
	// Output:
	// after the click: QUEUED messages: 0
	// reconcile: 1 stuck, 1 re-enqueued, err <nil>
	// after the worker: SUCCEEDED SUCCESS
	// next pass: 0 stuck
}
