package lease_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lease"
)

// Two segments of a job: a worker takes the first free one, records its
// progress, finishes it; the listing shows what is left.
func Example() {
	ctx := context.Background()
	tbl := entity.NewTable(ddbmem.New(), "FMWebAppTable")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	m, err := lease.New(tbl.Client(), func(o *lease.Options) {
		o.Table, o.Owner, o.Duration = "FMWebAppTable", "worker-1", 10*time.Second
	})
	if err != nil {
		panic(err)
	}
	if err := m.Create(ctx, "backfill", "seg-0", "seg-1"); err != nil {
		panic(err)
	}
	l, err := m.Next(ctx, "backfill") // seg-0, fence 1
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Name(), l.Fence(), l.Start().Position == "")
	if err := l.Checkpoint(ctx, lease.Checkpoint{Position: "POST#p050", Counts: map[string]int64{"scanned": 50}}); err != nil {
		panic(err)
	}
	if err := l.Finish(ctx, lease.Checkpoint{Position: "end", Counts: map[string]int64{"scanned": 100}}); err != nil {
		panic(err)
	}
	infos, err := m.List(ctx, "backfill")
	if err != nil {
		panic(err)
	}
	for _, in := range infos {
		fmt.Printf("%s done=%v scanned=%d\n", in.Name, in.Done, in.Counts["scanned"])
	}
	// Output:
	// seg-0 1 true
	// seg-0 done=true scanned=100
	// seg-1 done=false scanned=0
}
