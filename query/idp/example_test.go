package idp_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	m "github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/query"
	q "github.com/tablekit/tablekit/query/idp"
)

// Segments list in numeric order because the index is zero-padded in the
// sort key.
func ExampleSegmentsOfWorkflow() {
	ctx := context.Background()
	tbl := m.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	segs := entity.NewStore[m.Segment](tbl)
	for _, i := range []int{10, 2, 1} {
		s := m.Segment{WorkflowID: "w1", SegmentIndex: i, CreatedAt: time.Now()}
		if err := segs.Create(ctx, &s); err != nil {
			panic(err)
		}
	}
	page, err := q.SegmentsOfWorkflow(ctx, tbl, "w1", query.PageOptions{})
	if err != nil {
		panic(err)
	}
	for _, s := range page.Items {
		key, _ := m.SegmentKey(s.WorkflowID, s.SegmentIndex)
		fmt.Println(s.SegmentIndex, key.SK)
	}
	// Output:
	// 1 SEG#000001
	// 2 SEG#000002
	// 10 SEG#000010
}
