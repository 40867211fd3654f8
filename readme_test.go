package tablekit_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
)

// README:begin
// usePosts writes, reads, updates and lists the Post declared above (here
// package codex's Post, generated into codex_keys.go).
func usePosts(ctx context.Context, client entity.Client) error {
	tbl := entity.NewTable(client, "FMWebAppTable")
	if err := tbl.EnsureTable(ctx); err != nil { // creates it when missing (PK, SK)
		return err
	}
	posts := entity.NewStore[codex.Post](tbl)
	p := codex.Post{ID: codex.NewID(), CategoryID: "c001", Title: "안녕하세요"}
	if err := posts.Create(ctx, &p); err != nil { // entity.ErrAlreadyExists if it exists
		return err
	}
	key, err := codex.PostKey("c001", p.ID)
	if err != nil {
		return err
	}
	got, err := posts.Get(ctx, key) // entity.ErrNotFound when missing
	if err != nil {
		return err
	}
	got, err = posts.Update(ctx, key, entity.Changes[codex.Post]{entity.Set(codex.PostTitle, "Hello")})
	if err != nil { // Update returns the new item
		return err
	}
	page, err := query.New[codex.Post](tbl, "posts-of-category").
		PartitionKey(codex.PostPK("c001")).Sort(query.BeginsWith(codex.PostSKPrefix)).
		Desc().Limit(20).Page(ctx) // page.Next is the signed cursor of the next page
	if err != nil {
		return err
	}
	fmt.Println(got.Title, len(page.Items))
	return nil
}

// README:end

// The README's usage snippet, run on the embedded engine. Against DynamoDB
// Local pass entity.LocalClient("http://127.0.0.1:8000"); against AWS, a
// *dynamodb.Client from the SDK's config.
func Example_readme() {
	if err := usePosts(context.Background(), ddbmem.New()); err != nil {
		panic(err)
	}
	// Output: Hello 1
}

// readmeMarker precedes the README's usage block.
const readmeMarker = "<!-- usage: compiled and run as Example_readme in readme_test.go -->"

// TestReadmeUsage keeps the README's usage snippet and the compiled,
// tested code above the same text.
func TestReadmeUsage(t *testing.T) {
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	begin := strings.Index(s, "// README:begin\n")
	end := strings.Index(s, "\n// README:end")
	if begin < 0 || end < begin {
		t.Fatal("readme_test.go lacks its README:begin/end markers")
	}
	want := strings.TrimSpace(s[begin+len("// README:begin\n") : end])

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := string(readme)
	i := strings.Index(r, readmeMarker)
	if i < 0 {
		t.Fatalf("README.md lacks the marker %q before its usage block", readmeMarker)
	}
	r = r[i+len(readmeMarker):]
	open := strings.Index(r, "```go\n")
	if open < 0 {
		t.Fatal("README.md: no ```go block after the usage marker")
	}
	r = r[open+len("```go\n"):]
	closing := strings.Index(r, "```")
	if closing < 0 {
		t.Fatal("README.md: usage block not closed")
	}
	got := strings.TrimSpace(r[:closing])
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README usage block differs from readme_test.go (-code +README):\n%s", diff)
	}
}
