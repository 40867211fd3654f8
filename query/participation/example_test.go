package participation_test

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	pe "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/query"
	qp "github.com/tablekit/tablekit/query/participation"
)

// An admin view of a LOTTERY event: queue order and counts by result.
func Example() {
	ctx := context.Background()
	tbl := pe.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	q := &memQueue{}
	n := 0
	svc := pe.NewService(tbl, q, func(o *pe.Options) {
		o.NewRequestID = func() string { n++; return fmt.Sprintf("req-%d", n) }
		o.Draw = func(r pe.Request) bool { return r.UserID != "carol" }
	})
	for _, u := range []string{"alice", "bob", "carol"} {
		if _, err := svc.Participate(ctx, "evt-9", u, pe.ModeLottery); err != nil {
			panic(err)
		}
	}
	for _, m := range q.msgs {
		if _, _, err := svc.Process(ctx, m); err != nil {
			panic(err)
		}
	}
	page, _ := qp.EventRequests(ctx, tbl, "evt-9", query.PageOptions{})
	for _, r := range page.Items {
		fmt.Println(r.RequestID, r.UserID, r.Status, r.UIResult)
	}
	sum, _ := qp.StatusCounts(ctx, tbl, "evt-9")
	fmt.Println(sum.Total, sum.ByUIResult[pe.UILotteryWin], sum.ByUIResult[pe.UILotteryLose])
	// Output:
	// req-1 alice SUCCEEDED LOTTERY_WIN
	// req-2 bob SUCCEEDED LOTTERY_WIN
	// req-3 carol REJECTED LOTTERY_LOSE
	// 3 2 1
}
