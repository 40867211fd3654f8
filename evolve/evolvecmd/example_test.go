package evolvecmd_test

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/evolve/evolvecmd"
	"github.com/tablekit/tablekit/examples/evolve/post"
)

// The command on seed 001 after §7, on the embedded engine: plan, apply,
// then status (its Markdown goes to stdout).
func Example() {
	ctx := context.Background()
	db := ddbmem.New()
	tbl := post.NewTable(db, "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	old := entity.NewStore[codex.Post](tbl)
	for i := 0; i < 3; i++ {
		p := codex.Post{ID: codex.NewID(), CategoryID: "c001", Title: "hello", AuthorID: "u001"}
		if err := old.Create(ctx, &p); err != nil {
			panic(err)
		}
	}
	cfg := evolvecmd.Config{
		Table:    post.NewTable,
		Entities: []evolve.Entity{evolve.EntityOf[post.Post]()},
		Jobs: []evolve.Job{{Name: "post-author-index", Steps: []evolve.Step{
			evolve.Backfill(evolve.EntityOf[post.Post](), post.AuthorIDCreatedAt)}}},
		Client: db,
	}
	for _, verb := range []string{"plan", "apply"} {
		code := evolvecmd.Run(ctx, cfg, []string{"-progress", "none", verb, "post-author-index"}, io.Discard, os.Stderr)
		fmt.Println(verb, "exit", code)
	}
	evolvecmd.Run(ctx, cfg, []string{"status", "post-author-index"}, os.Stdout, os.Stderr)
	// Output:
	// plan exit 0
	// apply exit 0
	// # evolve post-author-index: finished
	//
	// scanned 3, changed 3, skipped 0, conflicts 0, failures 0, takeovers 0
	//
	// | segment | owner | fence | done | scanned | changed |
	// |---:|---|---:|---|---:|---:|
	// | 0 | (none) | 1 | true | 3 | 3 |
	// | 1 | (none) | 1 | true | 0 | 0 |
	// | 2 | (none) | 1 | true | 0 | 0 |
	// | 3 | (none) | 1 | true | 0 | 0 |
}
