package design_test

import (
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/design"
	cx "github.com/tablekit/tablekit/entity/codex"
	qcodex "github.com/tablekit/tablekit/query/codex"
)

// A service declares its table, entities and the access patterns its
// query functions run; the document, the IAM policy and the ACL rule are
// computed from them.
func Example() {
	s := design.Service{
		Name: "codex", Title: "Codex",
		Table:     cx.NewTable(nil, ""),
		Entities:  []design.Entity{{Schema: (&cx.Post{}).EntitySchema()}},
		Patterns:  qcodex.Patterns[2:3], // PostsOfCategory
		Namespace: "{app_id}:{env}:{service}",
		Caches:    []design.ValkeyKey{{Key: "post:{id}", Kind: "string", Commands: []string{"get", "set"}}},
	}
	fmt.Println(s.KeyCondition(qcodex.PostsOfCategoryPattern))
	p := design.Policy(s)
	fmt.Println(p.Actions, p.Indexes)
	fmt.Println(design.ACL(s, "codex", "", map[string]string{"app_id": "fm", "env": "prod", "service": "web"}))
	md := string(design.Markdown(s))
	fmt.Println(strings.Contains(md, "| 카테고리 내 게시물 | `PostsOfCategory` | Query | table |"))
	// Output:
	// PK = CATEGORY#{CategoryID} AND begins_with(SK, POST#)
	// [dynamodb:Query] []
	// ACL SETUSER codex reset on nopass resetkeys resetchannels ~fm:prod:web:post:* -@all +get +set
	// true
}
