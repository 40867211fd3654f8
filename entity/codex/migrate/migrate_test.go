package migrate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/entity/codex/migrate"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
	qcodex "github.com/tablekit/tablekit/query/codex"
)

func legacyTable(t *testing.T, client entity.Client, prefix string) string {
	t.Helper()
	name := testenv.UniqueName(prefix)
	_, err := client.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

func put(t *testing.T, client entity.Client, table string, attrs map[string]string) {
	t.Helper()
	item := map[string]types.AttributeValue{}
	for k, v := range attrs {
		item[k] = &types.AttributeValueMemberS{Value: v}
	}
	if _, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateDelta(t *testing.T) {
	client := testenv.Dynamo(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	posts := legacyTable(t, client, "PostsTable")
	cats := legacyTable(t, client, "CategoriesTable")
	corp := legacyTable(t, client, "CorpMetaTable")
	target := testenv.Table(t, codex.NewTable(client, testenv.UniqueName("FMWebAppTable")))

	put(t, client, cats, map[string]string{"id": "c001", "title": "회사 소식", "desc": "보도자료 및 공지", "createdAt": "2025-11-10T01:00:00Z", "updatedAt": "2025-11-10T01:00:00Z"})
	put(t, client, posts, map[string]string{"id": "p001", "categoryId": "c001", "authorId": "u001", "title": "2025년 3월 사업보고서", "contents": "Markdown contents...", "createdAt": "2025-11-12T05:00:00Z", "updatedAt": "2025-11-12T05:30:00Z"})
	put(t, client, posts, map[string]string{"id": "p002", "categoryId": "c001", "title": "Hiring", "createdAt": "2025-11-12T06:00:00.123Z"})
	put(t, client, corp, map[string]string{"id": "corp", "name": "패밀리매니지먼트", "email": "contact@family.com", "CreatedAt": "2025-11-14T00:00:00Z", "UpdatedAt": "2025-11-14T00:00:00Z"})
	opts := func(o *migrate.Options) { o.PostsTable, o.CategoriesTable, o.CorpMetaTable = posts, cats, corp }

	rep, err := migrate.Run(ctx, client, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep[posts].Written != 2 || rep[cats].Written != 1 || rep[corp].Written != 1 {
		t.Fatalf("first run %+v", rep)
	}
	p001Key, _ := codex.PostKey("c001", codex.MigratedPostID(time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC), "p001"))
	p, err := entity.NewStore[codex.Post](target).Get(ctx, p001Key, entity.ConsistentRead)
	if err != nil || p.LegacyID != "p001" || p.Title != "2025년 3월 사업보고서" || p.CreatedAt.Format(time.RFC3339) != "2025-11-12T05:00:00Z" || p.UpdatedAt.Format(time.RFC3339) != "2025-11-12T05:30:00Z" {
		t.Fatalf("migrated post %+v %v", p, err)
	}
	// Type and CreatedAt are there: the GSI lists the posts, newest first.
	pg, err := query.New[codex.Post](target, "all").Index(codex.TypeCreatedAt).Partition(codex.PostType).Desc().Page(ctx)
	if err != nil || len(pg.Items) != 2 || pg.Items[0].LegacyID != "p002" || pg.Items[0].UpdatedAt.Format(time.RFC3339) != "2025-11-12T06:00:00Z" {
		t.Fatalf("GSI after migration %+v %v", pg.Items, err)
	}
	ci, err := entity.NewStore[codex.CorpInfo](target).Get(ctx, entity.Key{PK: "CORP#INFO", SK: "METADATA"})
	if err != nil || ci.ID != "corp-info" || ci.Name != "패밀리매니지먼트" {
		t.Fatalf("corp %+v %v", ci, err)
	}

	// Re-run: nothing changes.
	rep, err = migrate.Run(ctx, client, target, opts)
	if err != nil || rep[posts].Written != 0 || rep[posts].Skipped != 2 || rep[cats].Skipped != 1 || rep[corp].Skipped != 1 {
		t.Fatalf("second run %+v %v", rep, err)
	}
	// Delta: one legacy post edited, one added.
	put(t, client, posts, map[string]string{"id": "p001", "categoryId": "c001", "authorId": "u001", "title": "2025년 3월 사업보고서 (수정)", "createdAt": "2025-11-12T05:00:00Z", "updatedAt": "2025-11-20T00:00:00Z"})
	put(t, client, posts, map[string]string{"id": "p003", "categoryId": "c001", "title": "New", "createdAt": "2025-11-21T00:00:00Z"})
	rep, err = migrate.Run(ctx, client, target, opts)
	if err != nil || rep[posts].Written != 2 || rep[posts].Skipped != 1 {
		t.Fatalf("delta run %+v %v", rep, err)
	}
	p, _ = entity.NewStore[codex.Post](target).Get(ctx, p001Key, entity.ConsistentRead)
	if p.Title != "2025년 3월 사업보고서 (수정)" || p.CreatedAt.Format(time.RFC3339) != "2025-11-12T05:00:00Z" {
		t.Fatalf("delta post %+v", p)
	}
	// A bad legacy item (post without category) stops the run, typed.
	put(t, client, posts, map[string]string{"id": "p004", "title": "orphan"})
	if _, err := migrate.Run(ctx, client, target, opts); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("bad legacy item: %v", err)
	}
}

// Seed 001 lists a category's posts by SK = POST#<postId>, newest first.
// Migrated posts (legacy ids p001...), posts created now and back-dated
// posts interleave by creation time, and a re-run of the migration writes
// the same keys (no copies).
func TestPostsOfCategoryMixedNewestFirst(t *testing.T) {
	client := testenv.Dynamo(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	posts := legacyTable(t, client, "PostsTable")
	target := testenv.Table(t, codex.NewTable(client, testenv.UniqueName("FMWebAppTable")))

	// Legacy ids that sort against creation time: p009 is the oldest.
	put(t, client, posts, map[string]string{"id": "p009", "categoryId": "c001", "title": "legacy 2025-11-01", "createdAt": "2025-11-01T00:00:00Z"})
	put(t, client, posts, map[string]string{"id": "p001", "categoryId": "c001", "title": "legacy 2025-11-12", "createdAt": "2025-11-12T05:00:00Z", "updatedAt": "2025-11-13T00:00:00Z"})
	put(t, client, posts, map[string]string{"id": "a", "categoryId": "c001", "title": "legacy undated"})
	opts := func(o *migrate.Options) { o.PostsTable, o.CategoriesTable, o.CorpMetaTable = posts, "-", "-" }
	if _, err := migrate.Run(ctx, client, target, opts); err != nil {
		t.Fatal(err)
	}

	store := entity.NewStore[codex.Post](target)
	newPost := codex.Post{ID: codex.NewID(), CategoryID: "c001", Title: "new"}
	backdated := []codex.Post{
		{CategoryID: "c001", Title: "back-dated 2025-11-05", CreatedAt: time.Date(2025, 11, 5, 0, 0, 0, 0, time.UTC)},
		{CategoryID: "c001", Title: "back-dated 2025-11-12 06:00", CreatedAt: time.Date(2025, 11, 12, 6, 0, 0, 0, time.UTC)},
	}
	if err := store.Create(ctx, &newPost); err != nil {
		t.Fatal(err)
	}
	for i := range backdated {
		backdated[i].ID = codex.NewPostID(backdated[i].CreatedAt)
		if err := store.Create(ctx, &backdated[i]); err != nil {
			t.Fatal(err)
		}
	}
	// The delta re-run finds every legacy post under its key.
	rep, err := migrate.Run(ctx, client, target, opts)
	if err != nil || rep[posts].Written != 0 || rep[posts].Skipped != 3 {
		t.Fatalf("re-run %+v %v, want 3 skipped", rep, err)
	}

	page, err := qcodex.PostsOfCategory(ctx, target, "c001", query.PageOptions{ConsistentRead: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range page.Items {
		got = append(got, p.Title)
	}
	want := []string{"new", "back-dated 2025-11-12 06:00", "legacy 2025-11-12", "back-dated 2025-11-05", "legacy 2025-11-01", "legacy undated"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("posts of c001, newest first (-want +got):\n%s", diff)
	}
	var legacy []string
	for _, p := range page.Items {
		legacy = append(legacy, p.LegacyID)
	}
	if diff := cmp.Diff([]string{"", "", "p001", "", "p009", "a"}, legacy); diff != "" {
		t.Errorf("legacyId of the posts (-want +got):\n%s", diff)
	}
}
