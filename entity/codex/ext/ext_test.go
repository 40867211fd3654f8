package ext_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/entity/codex/ext"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
)

func TestExtensionRules(t *testing.T) {
	tbl := testenv.Table(t, codex.NewTable(testenv.Dynamo(t), testenv.UniqueName("codex-ext"), ext.TableOptions))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := time.Date(2025, 11, 12, 0, 0, 0, 0, time.UTC)

	// Base entities keep working on the extended table.
	if err := entity.NewStore[codex.Category](tbl).Create(ctx, &codex.Category{ID: "c001", Title: "회사 소식"}); err != nil {
		t.Fatal(err)
	}

	// 1. A new Type with its own prefix, listed through Type_CreatedAt.
	notices := entity.NewStore[ext.Notice](tbl)
	for i, title := range []string{"점검 안내", "Holiday notice"} {
		n := ext.Notice{ID: codex.NewID(), Title: title, ExpiresAt: base.AddDate(1, 0, 0), CreatedAt: base.Add(time.Duration(i) * time.Hour)}
		if err := notices.Create(ctx, &n); err != nil {
			t.Fatal(err)
		}
	}
	np, err := query.New[ext.Notice](tbl, "notices").Index(codex.TypeCreatedAt).Partition(ext.NoticeType).Desc().Page(ctx)
	if err != nil || len(np.Items) != 2 || np.Items[0].Title != "Holiday notice" || np.Items[0].ExpiresAt.Year() != 2026 {
		t.Fatalf("new Type: %+v %v", np, err)
	}

	// 2. A new GSI: posts by author, newest first; a post without author
	// is not in the index.
	posts := entity.NewStore[codex.Post](tbl)
	for i, a := range []string{"u001", "u002", "u001", "", "u001"} {
		p := codex.Post{ID: codex.NewID(), CategoryID: "c001", AuthorID: a, Title: "post", CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		if err := posts.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	byAuthor := query.New[codex.Post](tbl, "posts-by-author").Index(ext.AuthorIDCreatedAt).Partition("u001").Desc()
	ap, err := byAuthor.Page(ctx)
	if err != nil || len(ap.Items) != 3 || !ap.Items[0].CreatedAt.Equal(base.Add(4*time.Minute)) || !ap.Items[2].CreatedAt.Equal(base) {
		t.Fatalf("AuthorId_CreatedAt: %+v %v", ap, err)
	}
	// The Type_CreatedAt pattern is unchanged.
	if all, err := query.New[codex.Post](tbl, "p").Index(codex.TypeCreatedAt).Partition(codex.PostType).Count(ctx); err != nil || all != 5 {
		t.Fatalf("all posts %d %v", all, err)
	}

	// 3. A composite SK: USER#u001#POST#<id> in the category partition.
	likes := entity.NewStore[ext.PostLike](tbl)
	for _, l := range []ext.PostLike{{CategoryID: "c001", UserID: "u001", PostID: "p001"}, {CategoryID: "c001", UserID: "u001", PostID: "p002"}, {CategoryID: "c001", UserID: "u0011", PostID: "p003"}} {
		if err := likes.Create(ctx, &l); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := ext.PostLikeKey("c001", "u001", "p001")
	if k.SK != "USER#u001#POST#p001" || k.PK != "CATEGORY#c001" {
		t.Fatalf("composite key %+v", k)
	}
	prefix, _ := ext.PostLikeSKPrefixByUserID("u001")
	lp, err := query.New[ext.PostLike](tbl, "likes-of-user").PartitionKey(ext.PostLikePK("c001")).Sort(query.BeginsWith(prefix)).Page(ctx)
	if err != nil || len(lp.Items) != 2 || lp.Items[1].PostID != "p002" {
		t.Fatalf("composite SK query (prefix %q): %+v %v", prefix, lp, err)
	}
}
