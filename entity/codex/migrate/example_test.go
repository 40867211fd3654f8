package migrate_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/entity/codex/migrate"
	"github.com/tablekit/tablekit/internal/testenv"
)

// Migrating the legacy tables into FMWebAppTable. It needs the legacy
// tables on a DynamoDB endpoint, so it has no checked output.
func Example() {
	ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT")
	if ep == "" {
		return
	}
	client := testenv.NewDynamoClient(ep)
	ctx := context.Background()
	target := codex.NewTable(client, "") // FMWebAppTable
	reports, err := migrate.Run(ctx, client, target, func(o *migrate.Options) {
		o.PostsTable, o.CategoriesTable, o.CorpMetaTable = "-", "-", "-" // nothing to read here
	})
	fmt.Println(len(reports), err)
}
