package evolve_test

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/examples/evolve/post"
)

// Seed 001 §7: posts written before the GSI AuthorId_CreatedAt existed
// lack its keys; the doctor finds them, the backfill writes them, and a
// second run is a no-op.
func Example() {
	ctx := context.Background()
	tbl := post.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	old := entity.NewStore[codex.Post](tbl) // the code before §7
	for i := 0; i < 10; i++ {
		p := codex.Post{ID: codex.NewID(), CategoryID: "c001", Title: fmt.Sprint("post ", i), AuthorID: "u001"}
		if err := old.Create(ctx, &p); err != nil {
			panic(err)
		}
	}
	posts := evolve.EntityOf[post.Post]()
	d, _ := evolve.Doctor(ctx, tbl, []evolve.Entity{posts}, 1)
	fmt.Println("before:", d.Problems, d.Findings[0].Class)

	job := evolve.Job{Name: "post-author-index", Steps: []evolve.Step{evolve.Backfill(posts, post.AuthorIDCreatedAt)}}
	rep, err := evolve.Run(ctx, tbl, job)
	if err != nil {
		panic(err)
	}
	fmt.Println("changed:", rep.Counts.Changed, "skipped:", rep.Counts.Skipped)
	d, _ = evolve.Doctor(ctx, tbl, []evolve.Entity{posts}, 1)
	fmt.Println("after:", d.Problems)
	rep, _ = evolve.Run(ctx, tbl, job)
	fmt.Println("again: already done", rep.AlreadyDone)
	// Output:
	// before: 10 index-missing
	// changed: 10 skipped: 0
	// after: 0
	// again: already done true
}
