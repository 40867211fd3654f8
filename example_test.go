package tablekit_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
)

// The whole flow on the embedded engine: a table from its schema, typed
// writes through generated codecs, a typed update, a query with a signed
// cursor, and typed errors.
func Example() {
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "") // FMWebAppTable
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	for _, title := range []string{"첫 글", "second", "third"} {
		p := codex.Post{ID: codex.NewID(), CategoryID: "c001", Title: title}
		if err := posts.Create(ctx, &p); err != nil {
			panic(err)
		}
	}

	page, err := query.New[codex.Post](tbl, "posts-of-category").
		PartitionKey(codex.PostPK("c001")).
		Sort(query.BeginsWith(codex.PostSKPrefix)).
		Limit(2).
		Page(ctx)
	if err != nil {
		panic(err)
	}
	for _, p := range page.Items {
		fmt.Println(p.Title)
	}

	key, _ := codex.PostKey("c001", page.Items[0].ID)
	updated, err := posts.Update(ctx, key, entity.Changes[codex.Post]{entity.Set(codex.PostTitle, "first post")})
	fmt.Println(updated.Title, err)

	_, err = query.New[codex.Post](tbl, "posts-of-category").
		PartitionKey(codex.PostPK("c001")).After(page.Next + "x").Page(ctx)
	fmt.Println(errors.Is(err, query.ErrInvalidCursor))

	missing, _ := codex.PostKey("c001", "nope")
	_, err = posts.Get(ctx, missing)
	fmt.Println(errors.Is(err, entity.ErrNotFound))
	// Output:
	// 첫 글
	// second
	// first post <nil>
	// true
	// true
}
