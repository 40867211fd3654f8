package codex_test

import (
	"context"
	"fmt"
	"os"

	cx "github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/query/codex"
)

// Every access pattern is one function. This example needs a DynamoDB
// endpoint (TABLEKIT_DYNAMODB_ENDPOINT), so it has no checked output.
func Example() {
	ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT")
	if ep == "" {
		return
	}
	ctx := context.Background()
	tbl := cx.NewTable(testenv.NewDynamoClient(ep), testenv.UniqueName("FMWebAppTable"))
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	defer tbl.DeleteTable(ctx)
	banners, err := codex.Banners(ctx, tbl, query.PageOptions{Limit: 10})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(banners.Items), "banners")
}
