// Command codex is the runnable example of the Codex unified data layer
// (seed 001): it creates the single table with its GSI Type_CreatedAt,
// writes sample data in Korean and English through the typed stores, and
// runs every access pattern of seed 001 §4.2 (plus "newest of any Type"
// and the category collection), printing the results.
//
// It runs on the embedded engine (package ddbmem) by default, and talks
// to DynamoDB Local when TABLEKIT_DYNAMODB_ENDPOINT is set, for
// instance
//
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 go run ./examples/codex
//
// It uses a fresh table named FMWebAppTable-example-<random> and deletes
// it at the end (-keep keeps it; -table sets the name).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	cx "github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/query/codex"
)

func main() {
	name := flag.String("table", "", "table name (default FMWebAppTable-example-<random>)")
	keep := flag.Bool("keep", false, "keep the table at the end")
	flag.Parse()
	client, err := newClient()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *name == "" {
		*name = cx.DefaultTableName + "-example-" + strings.ToLower(cx.NewID()[16:])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, client, *name, !*keep); err != nil {
		fmt.Fprintln(os.Stderr, "codex example:", err)
		os.Exit(1)
	}
}

// newClient returns the DynamoDB client of the example: DynamoDB Local
// when TABLEKIT_DYNAMODB_ENDPOINT is set, else the embedded engine.
func newClient() (entity.Client, error) {
	if ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"); ep != "" {
		return entity.LocalClient(ep), nil
	}
	return ddbmem.New(), nil
}

// run creates the table, writes the sample data and runs every access
// pattern, printing to w.
func run(ctx context.Context, w io.Writer, client entity.Client, name string, drop bool) error {
	tbl := cx.NewTable(client, name)
	fmt.Fprintf(w, "== table %s (GSI %s) ==\n", tbl.Name(), cx.TypeCreatedAt)
	if err := tbl.EnsureTable(ctx); err != nil {
		return err
	}
	if drop {
		defer tbl.DeleteTable(context.WithoutCancel(ctx))
	}
	postIDs, err := writeSample(ctx, tbl)
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "\n== 특정 유저 조회 / user by id: USER#u001 METADATA ==")
	u, err := codex.UserByID(ctx, tbl, "u001")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s (%s), role %s, created %s\n", u.DisplayName, u.ID, u.Role, u.CreatedAt.Format(time.RFC3339))

	fmt.Fprintln(w, "\n== 카테고리 상세 / category detail: CATEGORY#c001 METADATA ==")
	c, err := codex.CategoryDetail(ctx, tbl, "c001")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s — %s\n", c.ID, c.Title, c.Desc)

	fmt.Fprintln(w, "\n== 카테고리 내 게시물 / posts of a category: CATEGORY#c001 begins_with POST#, newest first, 2 per page ==")
	cursor := ""
	for page := 1; ; page++ {
		p, err := codex.PostsOfCategory(ctx, tbl, "c001", query.PageOptions{Limit: 2, After: cursor})
		if err != nil {
			return err
		}
		for _, post := range p.Items {
			fmt.Fprintf(w, "page %d: POST#%s  %s (by %s)\n", page, post.ID, post.Title, post.AuthorID)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}

	fmt.Fprintln(w, "\n== 특정 게시물 조회 / one post: CATEGORY#c001 POST#<id> ==")
	post, err := codex.PostByID(ctx, tbl, "c001", postIDs[0], entity.ConsistentRead)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s\n%s\n", post.ID, post.Title, post.Contents)

	fmt.Fprintln(w, "\n== 모든 배너 조회 / all banners, newest first (GSI Type_CreatedAt, Type = Banner) ==")
	bs, err := codex.Banners(ctx, tbl, query.PageOptions{})
	if err != nil {
		return err
	}
	for _, b := range bs.Items {
		fmt.Fprintf(w, "%s  %s  [%s] [%s]  %s\n", b.CreatedAt.Format(time.RFC3339), b.Title, b.Btn1Text, b.Btn2Text, b.ImgURI)
	}

	fmt.Fprintln(w, "\n== 회사 정보 조회 / corp info: CORP#INFO METADATA ==")
	ci, err := codex.CorpInfo(ctx, tbl)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s, %s, %s, fax %s, 사업자번호 %s\n", ci.Name, ci.Address, ci.Email, ci.Fax, ci.CorpNum)

	fmt.Fprintln(w, "\n== 타입별 최신순 / any Type newest first (GSI Type_CreatedAt): Post across categories ==")
	all, err := codex.NewestOfType[cx.Post](ctx, tbl, query.PageOptions{})
	if err != nil {
		return err
	}
	for _, p := range all.Items {
		fmt.Fprintf(w, "%s  [%s] %s\n", p.CreatedAt.Format(time.RFC3339), p.CategoryID, p.Title)
	}
	inq, err := codex.NewestOfType[cx.ContactInquiry](ctx, tbl, query.PageOptions{})
	if err != nil {
		return err
	}
	for _, q := range inq.Items {
		fmt.Fprintf(w, "ContactInquiry %s: %s <%s> %q status=%s notified=%s\n", q.ID, q.Name, q.Email, q.Subject, q.Status, q.NotifiedEmail)
	}

	fmt.Fprintln(w, "\n== 컬렉션 / category collection: CATEGORY#c002 in one query, decoded by Type ==")
	cp, err := codex.CategoryWithPosts(ctx, tbl, "c002", query.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "category %q with %d posts (%d unknown items skipped)\n", cp.Category.Title, len(cp.Posts), cp.Skipped)
	fmt.Fprintln(w, "\ndone")
	return nil
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// writeSample writes the seed's example items (Korean) and a few English
// ones. Post IDs are time-ordered, minted at each post's CreatedAt
// (codex.NewPostID).
func writeSample(ctx context.Context, tbl *entity.Table) ([]string, error) {
	users := entity.NewStore[cx.User](tbl)
	cats := entity.NewStore[cx.Category](tbl)
	posts := entity.NewStore[cx.Post](tbl)
	banners := entity.NewStore[cx.Banner](tbl)
	for _, u := range []cx.User{
		{ID: "u001", DisplayName: "김대연", Role: "admin", CreatedAt: at("2025-11-14T03:00:00Z")},
		{ID: "u002", DisplayName: "Jane Doe", Role: "editor", CreatedAt: at("2025-11-14T04:00:00Z")},
	} {
		if err := users.Put(ctx, &u); err != nil {
			return nil, err
		}
	}
	for _, c := range []cx.Category{
		{ID: "c001", Title: "회사 소식", Desc: "보도자료 및 공지", CreatedAt: at("2025-11-10T01:00:00Z")},
		{ID: "c002", Title: "Engineering blog", Desc: "Notes from the team", CreatedAt: at("2025-11-10T02:00:00Z")},
	} {
		if err := cats.Put(ctx, &c); err != nil {
			return nil, err
		}
	}
	var ids []string
	for i, p := range []cx.Post{
		{CategoryID: "c001", AuthorID: "u001", Title: "2025년 3월 사업보고서", Contents: "## 요약\n매출이 전년 대비 12% 증가했습니다."},
		{CategoryID: "c001", AuthorID: "u001", Title: "신규 채용 공고", Contents: "백엔드 엔지니어를 모집합니다."},
		{CategoryID: "c001", AuthorID: "u002", Title: "Office move", Contents: "We move to the new office in December."},
		{CategoryID: "c002", AuthorID: "u002", Title: "Single-table design in Go", Contents: "How we model Codex in one DynamoDB table."},
	} {
		// Back-dated posts: each ID is minted at the post's CreatedAt, so
		// POST#<id> sorts by creation time.
		p.CreatedAt = at("2025-11-12T05:00:00Z").Add(time.Duration(i) * time.Hour)
		p.ID = cx.NewPostID(p.CreatedAt)
		if err := posts.Create(ctx, &p); err != nil {
			return nil, err
		}
		ids = append(ids, p.ID)
	}
	for _, b := range []cx.Banner{
		{ID: "bn001", Title: "2025 신규 프로젝트", Desc: "지금 문의하기", ImgURI: "https://cdn.fm-web/banner/bn001.png", Btn1Text: "자세히 보기", Btn2Text: "문의하기", CreatedAt: at("2025-11-13T09:00:00Z")},
		{ID: "bn002", Title: "Year-end event", Desc: "Join us", ImgURI: "https://cdn.fm-web/banner/bn002.png", Btn1Text: "Details", Btn2Text: "Contact", CreatedAt: at("2025-11-20T09:00:00Z")},
	} {
		if err := banners.Put(ctx, &b); err != nil {
			return nil, err
		}
	}
	corp := cx.CorpInfo{ID: cx.CorpID, Name: "패밀리매니지먼트", Address: "서울특별시 ...", Email: "contact@family.com", Fax: "+82-2-000-0000", CorpNum: "123-45-67890", CreatedAt: at("2025-11-14T00:00:00Z")}
	if err := entity.NewStore[cx.CorpInfo](tbl).Put(ctx, &corp); err != nil {
		return nil, err
	}
	inq := cx.ContactInquiry{ID: "inq001", Name: "홍길동", Email: "user@example.com", Company: "패밀리매니지먼트", Title: "팀장", Referral: "search", Subject: "협업 문의", Message: "협업 관련해서 문의드립니다.", Status: "new", NotifiedEmail: corp.Email, CreatedAt: at("2025-11-15T09:00:00Z")}
	if err := entity.NewStore[cx.ContactInquiry](tbl).Put(ctx, &inq); err != nil {
		return nil, err
	}
	return ids, nil
}
