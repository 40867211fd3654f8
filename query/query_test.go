package query_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
)

func codexTable(t *testing.T, optFns ...func(*entity.Options)) *entity.Table {
	t.Helper()
	return testenv.Table(t, codex.NewTable(testenv.Dynamo(t), testenv.UniqueName("query"), optFns...))
}

// seed writes category c1 with n posts p00..p(n-1) (ascending SK) and
// returns their IDs.
func seed(t *testing.T, tbl *entity.Table, cat string, n int) []string {
	t.Helper()
	ctx := context.Background()
	if err := entity.NewStore[codex.Category](tbl).Put(ctx, &codex.Category{ID: cat, Title: "카테고리 " + cat}); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	base := time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("p%02d", i)
		title := "odd"
		if i%2 == 0 {
			title = "even"
		}
		p := codex.Post{ID: id, CategoryID: cat, AuthorID: "u001", Title: title, CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		if err := posts.Put(ctx, &p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func ids(ps []codex.Post) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.ID)
	}
	return strings.Join(s, ",")
}

func postsQ(tbl *entity.Table, cat string) query.Query[codex.Post, *codex.Post] {
	return query.New[codex.Post](tbl, "posts").PartitionKey(codex.PostPK(cat))
}

func TestSortConditions(t *testing.T) {
	tbl := codexTable(t)
	seed(t, tbl, "c1", 6)
	ctx := context.Background()
	sk := func(id string) string { s, _ := codex.PostSK(id); return s }
	cases := []struct {
		name string
		cond query.SortCond
		want string
	}{
		{"eq", query.Eq(sk("p02")), "p02"},
		{"begins_with", query.BeginsWith(codex.PostSKPrefix), "p00,p01,p02,p03,p04,p05"},
		{"between", query.Between(sk("p01"), sk("p03")), "p01,p02,p03"},
		{"lt", query.Lt(sk("p02")), "p00,p01"},
		{"le", query.Le(sk("p02")), "p00,p01,p02"},
		{"gt", query.Gt(sk("p03")), "p04,p05"},
		{"ge", query.Ge(sk("p03")), "p03,p04,p05"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := postsQ(tbl, "c1").Sort(c.cond).Page(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p.Items); got != c.want {
				t.Fatalf("got %s want %s", got, c.want)
			}
		})
	}
	// lt also reaches the category's METADATA item: skipped and counted.
	p, err := postsQ(tbl, "c1").Sort(query.Lt(sk("p01"))).Page(ctx)
	if err != nil || ids(p.Items) != "p00" || p.Skipped != 1 {
		t.Fatalf("skip other type: %s skipped=%d %v", ids(p.Items), p.Skipped, err)
	}
	// desc
	p, err = postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Desc().Limit(2).Page(ctx)
	if err != nil || ids(p.Items) != "p05,p04" {
		t.Fatalf("desc: %s %v", ids(p.Items), err)
	}
}

func TestPaginationAndCursors(t *testing.T) {
	tbl := codexTable(t, func(o *entity.Options) { o.CursorKey = []byte("app-secret-0123456789-0123456789") })
	seed(t, tbl, "c1", 25)
	seed(t, tbl, "c2", 3)
	ctx := context.Background()
	q := postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Limit(10)
	var all []codex.Post
	cursor := ""
	pages := 0
	for {
		p, err := q.After(cursor).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, p.Items...)
		if p.Next == "" {
			break
		}
		cursor = p.Next
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
	}
	if len(all) != 25 || all[0].ID != "p00" || all[24].ID != "p24" {
		t.Fatalf("paged %d items: %s", len(all), ids(all))
	}

	// A cursor resumes in "another process": a new table handle with the
	// same configured key.
	p1, _ := q.Page(ctx)
	other := codex.NewTable(tbl.Client(), tbl.Name(), func(o *entity.Options) { o.CursorKey = []byte("app-secret-0123456789-0123456789") })
	p2, err := postsQ(other, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Limit(10).After(p1.Next).Page(ctx)
	if err != nil || p2.Items[0].ID != "p10" {
		t.Fatalf("resume elsewhere: %v %v", ids(p2.Items), err)
	}

	bad := map[string]query.Query[codex.Post, *codex.Post]{
		"forged":          q.After("eyJQSyI6eyJzIjoiQ0FURUdPUlkjYzEifX0.AAAA"),
		"garbage":         q.After("not a cursor"),
		"tampered":        q.After(tamper(p1.Next)),
		"other partition": postsQ(tbl, "c2").Sort(query.BeginsWith(codex.PostSKPrefix)).Limit(10).After(p1.Next),
		"other pattern":   query.New[codex.Post](tbl, "other").PartitionKey(codex.PostPK("c1")).After(p1.Next),
		"other index":     query.New[codex.Post](tbl, "posts").Index(codex.TypeCreatedAt).Partition("Post").After(p1.Next),
		"other key":       postsQ(codex.NewTable(tbl.Client(), tbl.Name()), "c1").Limit(10).After(p1.Next),
	}
	for name, bq := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := bq.Page(ctx); !errors.Is(err, query.ErrInvalidCursor) {
				t.Fatalf("%s cursor: %v, want ErrInvalidCursor", name, err)
			}
		})
	}
}

func tamper(c string) string {
	b := []byte(c)
	if b[3] == 'A' {
		b[3] = 'B'
	} else {
		b[3] = 'A'
	}
	return string(b)
}

// TestLimitInsideResponsePage: with a filter, whole response pages are read
// and the page stops inside one; the cursor resumes after the last item
// returned, with no item lost or repeated.
func TestLimitInsideResponsePage(t *testing.T) {
	tbl := codexTable(t)
	seed(t, tbl, "c1", 12)
	ctx := context.Background()
	q := postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).
		Filter(expression.Name("title").Equal(expression.Value("even"))).Limit(2)
	var got []codex.Post
	cursor := ""
	for i := 0; i < 10; i++ {
		p, err := q.After(cursor).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Items...)
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if ids(got) != "p00,p02,p04,p06,p08,p10" {
		t.Fatalf("filtered pages: %s", ids(got))
	}
	// Count with the filter, and without.
	if n, err := q.Count(ctx); err != nil || n != 6 {
		t.Fatalf("count filtered %d %v", n, err)
	}
	if n, err := postsQ(tbl, "c1").Count(ctx); err != nil || n != 13 {
		t.Fatalf("count partition %d %v", n, err)
	}
}

func TestAllIterator(t *testing.T) {
	tbl := codexTable(t)
	seed(t, tbl, "c1", 15)
	ctx := context.Background()
	var got []codex.Post
	for p, err := range postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Limit(4).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if len(got) != 15 || got[14].ID != "p14" {
		t.Fatalf("All: %s", ids(got))
	}
	n := 0
	for range postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Limit(4).All(ctx) {
		n++
		if n == 5 {
			break
		}
	}
	if n != 5 {
		t.Fatal("early break")
	}
	for _, err := range postsQ(tbl, "c1").After("bad").All(ctx) {
		if !errors.Is(err, query.ErrInvalidCursor) {
			t.Fatalf("All with bad cursor: %v", err)
		}
	}
}

func TestProjectionIndexParams(t *testing.T) {
	tbl := codexTable(t)
	seed(t, tbl, "c1", 5)
	ctx := context.Background()
	p, err := postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Project("title").Limit(2).Page(ctx)
	if err != nil || len(p.Items) != 2 || p.Items[0].Title != "even" || p.Items[0].AuthorID != "" {
		t.Fatalf("projection: %+v %v", p.Items, err)
	}
	p2, err := postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix)).Project("title").Limit(2).After(p.Next).Page(ctx)
	if err != nil || len(p2.Items) != 2 {
		t.Fatalf("projection next page: %v", err)
	}
	// GSI, newest first, paged.
	g := query.New[codex.Post](tbl, "newest").Index(codex.TypeCreatedAt).Partition(codex.PostType).Desc().Limit(3)
	gp, err := g.Page(ctx)
	if err != nil || ids(gp.Items) != "p04,p03,p02" {
		t.Fatalf("GSI newest: %s %v", ids(gp.Items), err)
	}
	gp, err = g.After(gp.Next).Page(ctx)
	if err != nil || ids(gp.Items) != "p01,p00" {
		t.Fatalf("GSI page 2: %s %v", ids(gp.Items), err)
	}
	// Dry run: the exact request.
	in, err := postsQ(tbl, "c1").Sort(query.BeginsWith("POST#")).Desc().Limit(5).ConsistentRead().Params()
	if err != nil || *in.KeyConditionExpression != "(#0 = :0) AND (begins_with (#1, :1))" || *in.Limit != 5 || *in.ScanIndexForward || !*in.ConsistentRead {
		t.Fatalf("params %+v %v", in, err)
	}
	// Bad queries.
	for name, bq := range map[string]query.Query[codex.Post, *codex.Post]{
		"no partition":   query.New[codex.Post](tbl, "x"),
		"empty builder":  query.New[codex.Post](tbl, "x").PartitionKey(codex.PostPK("")),
		"unknown index":  postsQ(tbl, "c1").Index("nope"),
		"gsi consistent": query.New[codex.Post](tbl, "x").Index(codex.TypeCreatedAt).Partition("Post").ConsistentRead(),
		"negative limit": postsQ(tbl, "c1").Limit(-1),
		"empty prefix":   postsQ(tbl, "c1").Sort(query.BeginsWith("")),
	} {
		if _, err := bq.Page(ctx); !errors.Is(err, query.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestCollection(t *testing.T) {
	tbl := codexTable(t)
	seed(t, tbl, "c1", 3)
	ctx := context.Background()
	// An item of a Type nobody registered, in the same partition.
	_, err := tbl.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "CATEGORY#c1"}, "SK": &types.AttributeValueMemberS{Value: "COMMENT#x1"},
		"Type": &types.AttributeValueMemberS{Value: "Comment"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reg := query.Register[codex.Post](query.Register[codex.Category](query.NewRegistry()))
	pk, _ := codex.CategoryPK("c1")
	p, err := query.NewCollection(tbl, "cat", reg).Partition(pk).Page(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 4 || p.Skipped != 1 {
		t.Fatalf("collection %d items, %d skipped", len(p.Items), p.Skipped)
	}
	cats := query.Of[codex.Category](p.Items)
	if len(cats) != 1 || cats[0].Title != "카테고리 c1" || len(query.Of[codex.Post](p.Items)) != 3 {
		t.Fatalf("decoded %+v", p.Items)
	}
	in, _ := query.NewCollection(tbl, "cat", reg).Partition(pk).Params()
	if in.FilterExpression != nil {
		t.Fatal("a collection must not filter on Type")
	}
	// Paged: skipped items do not count toward the limit.
	var n int
	cur := ""
	for i := 0; i < 10; i++ {
		pg, err := query.NewCollection(tbl, "cat", reg).Partition(pk).Limit(2).After(cur).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(pg.Items)
		if pg.Next == "" {
			break
		}
		cur = pg.Next
	}
	if n != 4 {
		t.Fatalf("paged collection: %d", n)
	}
}
