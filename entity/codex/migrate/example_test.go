package migrate_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/entity/codex/migrate"
	"github.com/tablekit/tablekit/query"
	qcodex "github.com/tablekit/tablekit/query/codex"
)

// Migrating the legacy PostsTable and CategoriesTable into FMWebAppTable,
// here on the embedded engine (use entity.LocalClient or your AWS client
// for a real one). Posts get time-ordered IDs minted from their legacy
// createdAt and keep their old id in legacyId; a second run finds every
// item already migrated.
func Example() {
	ctx := context.Background()
	client := ddbmem.New()
	for _, name := range []string{"PostsTable", "CategoriesTable"} {
		_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		if err != nil {
			panic(err)
		}
	}
	legacy := []struct {
		table string
		item  map[string]string
	}{
		{"CategoriesTable", map[string]string{"id": "c001", "title": "회사 소식", "createdAt": "2025-11-10T01:00:00Z"}},
		{"PostsTable", map[string]string{"id": "p002", "categoryId": "c001", "title": "older", "createdAt": "2025-11-01T09:00:00Z"}},
		{"PostsTable", map[string]string{"id": "p001", "categoryId": "c001", "title": "newer", "createdAt": "2025-11-12T05:00:00Z"}},
	}
	for _, l := range legacy {
		item := map[string]types.AttributeValue{}
		for k, v := range l.item {
			item[k] = &types.AttributeValueMemberS{Value: v}
		}
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: item}); err != nil {
			panic(err)
		}
	}

	target := codex.NewTable(client, "") // FMWebAppTable
	if err := target.EnsureTable(ctx); err != nil {
		panic(err)
	}
	skipCorp := func(o *migrate.Options) { o.CorpMetaTable = "-" }
	for run := 1; run <= 2; run++ {
		reports, err := migrate.Run(ctx, client, target, skipCorp)
		if err != nil {
			panic(err)
		}
		fmt.Printf("run %d: posts %+v, categories %+v\n", run, reports["PostsTable"], reports["CategoriesTable"])
	}
	page, err := qcodex.PostsOfCategory(ctx, target, "c001", query.PageOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range page.Items {
		fmt.Println(p.LegacyID, p.Title, p.CreatedAt.Format("2006-01-02"), p.ID == codex.MigratedPostID(p.CreatedAt, p.LegacyID))
	}
	// Output:
	// run 1: posts {Scanned:2 Written:2 Skipped:0}, categories {Scanned:1 Written:1 Skipped:0}
	// run 2: posts {Scanned:2 Written:0 Skipped:2}, categories {Scanned:1 Written:0 Skipped:1}
	// p001 newer 2025-11-12 true
	// p002 older 2025-11-01 true
}
