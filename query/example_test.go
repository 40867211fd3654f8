package query_test

import (
	"fmt"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
)

// A typed query of a category's posts, newest first, shown as the exact
// request it sends (no server needed).
func ExampleQuery_Params() {
	tbl := codex.NewTable(nil, "") // FMWebAppTable
	in, err := query.New[codex.Post](tbl, "posts-of-category").
		PartitionKey(codex.PostPK("c001")).
		Sort(query.BeginsWith(codex.PostSKPrefix)).
		Desc().
		Limit(20).
		Params()
	if err != nil {
		panic(err)
	}
	fmt.Println(*in.TableName, *in.KeyConditionExpression, *in.Limit, *in.ScanIndexForward)
	fmt.Println(in.ExpressionAttributeNames["#0"], in.ExpressionAttributeNames["#1"])
	// Output:
	// FMWebAppTable (#0 = :0) AND (begins_with (#1, :1)) 20 false
	// PK SK
}

// A cursor from another partition is rejected before anything is sent.
func ExampleErrInvalidCursor() {
	tbl := codex.NewTable(nil, "", func(o *entity.Options) { o.CursorKey = []byte("an application secret, 32+ bytes") })
	_, err := query.New[codex.Post](tbl, "posts").Partition("CATEGORY#c001").After("forged.cursor").Params()
	fmt.Println(err)
	// Output: query: invalid cursor
}
