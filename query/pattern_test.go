package query_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	cx "github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
)

// TestPatternRefusesWhatItDoesNotDeclare: a declared pattern refuses a
// partition or sort value that does not fit its templates, a consistent
// read it does not allow, and the wrong operation, each as ErrInvalid and
// before sending anything.
func TestPatternRefusesWhatItDoesNotDeclare(t *testing.T) {
	ctx := context.Background()
	tbl := cx.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := query.Pattern{Name: "t/posts", Op: query.OpQuery, Returns: query.Schemas(&cx.Post{}),
		PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "begins_with"}, Desc: true, Limit: 2, Consistent: true}
	gsi := query.Pattern{Name: "t/banners", Op: query.OpQuery, Returns: query.Schemas(&cx.Banner{}), Index: cx.TypeCreatedAt,
		PK: query.KeyCond{Op: "=", Template: cx.BannerType}}
	get := query.Pattern{Name: "t/user", Op: query.OpGet, Returns: query.Schemas(&cx.User{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "="}}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"foreign partition", func() error {
			_, err := query.From[cx.Post](tbl, posts, query.PageOptions{}, "USER#u1").Page(ctx)
			return err
		}},
		{"foreign sort prefix", func() error {
			_, err := query.From[cx.Post](tbl, posts, query.PageOptions{}, "CATEGORY#c1", "ARTICLE#").Page(ctx)
			return err
		}},
		{"constant partition", func() error {
			_, err := query.From[cx.Banner](tbl, gsi, query.PageOptions{}, "Post").Page(ctx)
			return err
		}},
		{"consistent on gsi", func() error {
			_, err := query.From[cx.Banner](tbl, gsi, query.PageOptions{ConsistentRead: true}, cx.BannerType).Page(ctx)
			return err
		}},
		{"get as query", func() error {
			_, err := query.From[cx.User](tbl, get, query.PageOptions{}, "USER#u1").Page(ctx)
			return err
		}},
		{"query as get", func() error {
			_, err := query.Get[cx.Post](ctx, tbl, posts, entity.Key{PK: "CATEGORY#c1", SK: "POST#1"})
			return err
		}},
		{"get foreign key", func() error {
			_, err := query.Get[cx.User](ctx, tbl, get, entity.Key{PK: "USER#u1", SK: "PROFILE"})
			return err
		}},
		{"get consistent not declared", func() error {
			_, err := query.Get[cx.User](ctx, tbl, get, entity.Key{PK: "USER#u1", SK: "METADATA"}, entity.ConsistentRead)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); !errors.Is(err, query.ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
	// The declaration runs: order, default page size and cursor binding.
	for _, id := range []string{"01A", "01B", "01C"} {
		if err := entity.NewStore[cx.Post](tbl).Put(ctx, &cx.Post{ID: id, CategoryID: "c1", Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := query.From[cx.Post](tbl, posts, query.PageOptions{}, "CATEGORY#c1").Page(ctx)
	if err != nil || len(p.Items) != 2 || p.Items[0].ID != "01C" || p.Next == "" {
		t.Fatalf("page %+v %v", p, err)
	}
	other := posts
	other.Name = "t/other"
	if _, err := query.From[cx.Post](tbl, other, query.PageOptions{After: p.Next}, "CATEGORY#c1").Page(ctx); !errors.Is(err, query.ErrInvalidCursor) {
		t.Fatalf("cursor of another pattern: %v", err)
	}
	// The same cursor from query.New with the same name (the spelling
	// before declarations) still resumes: cursors keep their binding.
	old, err := query.New[cx.Post](tbl, "t/posts").Partition("CATEGORY#c1").Sort(query.BeginsWith("POST#")).Desc().Limit(2).After(p.Next).Page(ctx)
	if err != nil || len(old.Items) != 1 || old.Items[0].ID != "01A" {
		t.Fatalf("old-style resume %+v %v", old, err)
	}
}
