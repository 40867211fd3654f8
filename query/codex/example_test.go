package codex_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	cx "github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/query/codex"
)

// Every access pattern is one function; lists take query.PageOptions last.
// Here on the embedded engine.
func Example() {
	ctx := context.Background()
	tbl := cx.NewTable(ddbmem.New(), "") // FMWebAppTable
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	if err := entity.NewStore[cx.Category](tbl).Put(ctx, &cx.Category{ID: "c001", Title: "회사 소식"}); err != nil {
		panic(err)
	}
	posts := entity.NewStore[cx.Post](tbl)
	day := time.Date(2025, 11, 12, 0, 0, 0, 0, time.UTC)
	for i, title := range []string{"first", "second", "third"} {
		created := day.Add(time.Duration(i) * time.Hour)
		p := cx.Post{ID: cx.NewPostID(created), CategoryID: "c001", Title: title, CreatedAt: created}
		if err := posts.Create(ctx, &p); err != nil {
			panic(err)
		}
	}

	page, err := codex.PostsOfCategory(ctx, tbl, "c001", query.PageOptions{Limit: 2})
	if err != nil {
		panic(err)
	}
	for _, p := range page.Items {
		fmt.Println(p.Title)
	}
	rest, err := codex.PostsOfCategory(ctx, tbl, "c001", query.PageOptions{Limit: 2, After: page.Next})
	if err != nil {
		panic(err)
	}
	fmt.Println(rest.Items[0].Title, rest.Next == "")

	cp, err := codex.CategoryWithPosts(ctx, tbl, "c001", query.PageOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(cp.Category.Title, len(cp.Posts))

	first, err := codex.PostByID(ctx, tbl, "c001", rest.Items[0].ID)
	fmt.Println(first.Title, err)
	// Output:
	// third
	// second
	// first true
	// 회사 소식 3
	// first <nil>
}
