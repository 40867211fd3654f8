package participation_test

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity/participation"
)

type sliceQueue struct{ msgs []participation.Message }

func (q *sliceQueue) Send(_ context.Context, m participation.Message) error {
	q.msgs = append(q.msgs, m)
	return nil
}

// A FIRST_COME event with one seat: two users click (one twice), the
// worker processes every message, one of them twice.
func Example() {
	ctx := context.Background()
	tbl := participation.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	ids := []string{"req-a", "req-b", "req-c"}
	q := &sliceQueue{}
	svc := participation.NewService(tbl, q, func(o *participation.Options) {
		o.NewRequestID = func() string { id := ids[0]; ids = ids[1:]; return id }
	})
	if _, err := svc.CreateCapacity(ctx, "evt-1", 1); err != nil {
		panic(err)
	}
	for _, user := range []string{"alice", "alice", "bob"} {
		rc, err := svc.Participate(ctx, "evt-1", user, participation.ModeFirstCome)
		fmt.Println(user, rc.RequestID, rc.Duplicate, rc.Status, err)
	}
	for _, m := range append(q.msgs, q.msgs[0]) {
		r, decided, err := svc.Process(ctx, m)
		fmt.Println(r.RequestID, r.Status, r.UIResult, decided, err)
	}
	k, _ := participation.IdempotencyLockKey("evt-1", "alice")
	fmt.Println(k.PK, k.SK)
	// Output:
	// alice req-a false QUEUED <nil>
	// alice req-a true  <nil>
	// bob req-c false QUEUED <nil>
	// req-a SUCCEEDED SUCCESS true <nil>
	// req-c REJECTED REJECTED_CAPACITY true <nil>
	// req-a SUCCEEDED SUCCESS false <nil>
	// IDEMP#evt-1#alice LOCK
}
