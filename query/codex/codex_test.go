package codex_test

import (
	"context"
	"errors"
	"testing"
	"time"

	cx "github.com/tablekit/tablekit/entity/codex"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/query/codex"
)

func table(t *testing.T) *entity.Table {
	t.Helper()
	return testenv.Table(t, cx.NewTable(testenv.Dynamo(t), testenv.UniqueName("FMWebAppTable")))
}

func at(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

func TestAccessPatterns(t *testing.T) {
	tbl := table(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(entity.NewStore[cx.User](tbl).Create(ctx, &cx.User{ID: "u001", DisplayName: "김대연", Role: "admin", CreatedAt: at("2025-11-14T03:00:00Z")}))
	must(entity.NewStore[cx.Category](tbl).Create(ctx, &cx.Category{ID: "c001", Title: "회사 소식", Desc: "보도자료 및 공지"}))
	posts := entity.NewStore[cx.Post](tbl)
	var postIDs []string
	for i, title := range []string{"2025년 3월 사업보고서", "Q3 earnings", "신규 채용 공고"} {
		id := cx.NewID()
		postIDs = append(postIDs, id)
		must(posts.Create(ctx, &cx.Post{ID: id, CategoryID: "c001", AuthorID: "u001", Title: title,
			CreatedAt: at("2025-11-12T05:00:00Z").Add(time.Duration(i) * time.Hour)}))
		time.Sleep(2 * time.Millisecond)
	}
	banners := entity.NewStore[cx.Banner](tbl)
	must(banners.Create(ctx, &cx.Banner{ID: "bn001", Title: "2025 신규 프로젝트", CreatedAt: at("2025-11-13T09:00:00Z")}))
	must(banners.Create(ctx, &cx.Banner{ID: "bn002", Title: "Spring sale", CreatedAt: at("2025-11-14T09:00:00Z")}))
	must(entity.NewStore[cx.CorpInfo](tbl).Put(ctx, &cx.CorpInfo{ID: cx.CorpID, Name: "패밀리매니지먼트", Email: "contact@family.com"}))

	u, err := codex.UserByID(ctx, tbl, "u001")
	if err != nil || u.DisplayName != "김대연" || u.CreatedAt != at("2025-11-14T03:00:00Z") {
		t.Fatalf("UserByID %+v %v", u, err)
	}
	if _, err := codex.UserByID(ctx, tbl, "nobody"); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("missing user: %v", err)
	}
	if _, err := codex.UserByID(ctx, tbl, ""); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("empty id: %v", err)
	}
	c, err := codex.CategoryDetail(ctx, tbl, "c001", entity.ConsistentRead)
	if err != nil || c.Title != "회사 소식" {
		t.Fatalf("CategoryDetail %+v %v", c, err)
	}
	page, err := codex.PostsOfCategory(ctx, tbl, "c001", query.PageOptions{Limit: 2})
	if err != nil || len(page.Items) != 2 || page.Items[0].ID != postIDs[2] || page.Items[1].ID != postIDs[1] || page.Next == "" {
		t.Fatalf("PostsOfCategory newest first: %+v %v", page, err)
	}
	page, err = codex.PostsOfCategory(ctx, tbl, "c001", query.PageOptions{Limit: 2, After: page.Next})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != postIDs[0] {
		t.Fatalf("PostsOfCategory page 2: %+v %v", page, err)
	}
	if _, err := codex.PostsOfCategory(ctx, tbl, "c002", query.PageOptions{After: page.Next}); err != nil && !errors.Is(err, query.ErrInvalidCursor) {
		t.Fatalf("foreign cursor: %v", err)
	}
	p, err := codex.PostByID(ctx, tbl, "c001", postIDs[0])
	if err != nil || p.Title != "2025년 3월 사업보고서" {
		t.Fatalf("PostByID %+v %v", p, err)
	}
	bs, err := codex.Banners(ctx, tbl, query.PageOptions{})
	if err != nil || len(bs.Items) != 2 || bs.Items[0].ID != "bn002" {
		t.Fatalf("Banners newest first: %+v %v", bs, err)
	}
	ci, err := codex.CorpInfo(ctx, tbl)
	if err != nil || ci.Name != "패밀리매니지먼트" {
		t.Fatalf("CorpInfo %+v %v", ci, err)
	}
	all, err := codex.NewestOfType[cx.Post](ctx, tbl, query.PageOptions{})
	if err != nil || len(all.Items) != 3 || all.Items[0].Title != "신규 채용 공고" {
		t.Fatalf("NewestOfType[Post] %+v %v", all, err)
	}
	users, err := codex.NewestOfType[cx.User](ctx, tbl, query.PageOptions{})
	if err != nil || len(users.Items) != 1 {
		t.Fatalf("NewestOfType[User] %+v %v", users, err)
	}
	cp, err := codex.CategoryWithPosts(ctx, tbl, "c001", query.PageOptions{})
	if err != nil || cp.Category == nil || cp.Category.Title != "회사 소식" || len(cp.Posts) != 3 || cp.Skipped != 0 {
		t.Fatalf("CategoryWithPosts %+v %v", cp, err)
	}
}
