package codex_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func ts(v string) time.Time {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		panic(err)
	}
	return t
}

// TestSeedKeys pins the exact key strings of seed 001 §2 and §4.1.
func TestSeedKeys(t *testing.T) {
	must := testenv.Must[entity.Key](t)
	cases := []struct {
		name string
		got  entity.Key
		want entity.Key
	}{
		{"user", must(codex.UserKey("u001")), entity.Key{PK: "USER#u001", SK: "METADATA"}},
		{"category", must(codex.CategoryKey("c001")), entity.Key{PK: "CATEGORY#c001", SK: "METADATA"}},
		{"post", must(codex.PostKey("c001", "p001")), entity.Key{PK: "CATEGORY#c001", SK: "POST#p001"}},
		{"banner", must(codex.BannerKey("bn001")), entity.Key{PK: "BANNER#bn001", SK: "METADATA"}},
		{"corp", must(codex.CorpInfoKey()), entity.Key{PK: "CORP#INFO", SK: "METADATA"}},
		{"contact", must(codex.ContactInquiryKey("inq001")), entity.Key{PK: "CONTACT#inq001", SK: "METADATA"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Fatal(diff)
			}
		})
	}
	if codex.PostSKPrefix != "POST#" || codex.CorpInfoPK != "CORP#INFO" || codex.UserSK != "METADATA" {
		t.Fatal("prefix constants drifted from the seed")
	}
	for typ, want := range map[string]string{codex.UserType: "User", codex.CategoryType: "Category", codex.PostType: "Post", codex.BannerType: "Banner", codex.CorpInfoType: "CorpInfo", codex.ContactInquiryType: "ContactInquiry"} {
		if typ != want {
			t.Errorf("Type %q, want %q", typ, want)
		}
	}
}

// TestBadKeys: an empty ID is ErrMissingField; a delimiter inside a value
// is escaped, so it can never forge another key.
func TestBadKeys(t *testing.T) {
	if _, err := codex.UserKey(""); !errors.Is(err, keys.ErrMissingField) {
		t.Fatalf("empty id: %v", err)
	}
	if _, err := codex.PostKey("c001", ""); !errors.Is(err, keys.ErrMissingField) {
		t.Fatalf("empty post id: %v", err)
	}
	k, err := codex.PostKey("c#1", "p001")
	if err != nil || k.PK != "CATEGORY#c%231" {
		t.Fatalf("delimiter in value: %v %v", k, err)
	}
}

// TestSeedItem marshals the seed's example Post (§2.3) and compares it with
// the JSON of the document, attribute by attribute.
func TestSeedItem(t *testing.T) {
	p := codex.Post{
		ID: "p001", CategoryID: "c001", AuthorID: "u001",
		Title: "2025년 3월 사업보고서", Contents: "Markdown contents...",
		CreatedAt: ts("2025-11-12T05:00:00Z"), UpdatedAt: ts("2025-11-12T05:30:00Z"),
	}
	got, err := p.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.AttributeValue{
		"PK": s("CATEGORY#c001"), "SK": s("POST#p001"), "Type": s("Post"), "id": s("p001"),
		"categoryId": s("c001"), "authorId": s("u001"), "title": s("2025년 3월 사업보고서"),
		"contents": s("Markdown contents..."), "CreatedAt": s("2025-11-12T05:00:00Z"), "UpdatedAt": s("2025-11-12T05:30:00Z"),
	}
	if diff := cmp.Diff(flat(want), flat(got)); diff != "" {
		t.Fatal(diff)
	}
	var back codex.Post
	if err := back.UnmarshalItem(got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Fatal(diff)
	}
	c := codex.CorpInfo{ID: codex.CorpID, Name: "패밀리매니지먼트"}
	item, err := c.MarshalItem()
	if err != nil || item["PK"].(*types.AttributeValueMemberS).Value != "CORP#INFO" || item["Type"].(*types.AttributeValueMemberS).Value != "CorpInfo" {
		t.Fatalf("corp item %v %v", item, err)
	}
}

func TestTableSchema(t *testing.T) {
	tbl := codex.NewTable(nil, "")
	if tbl.Name() != "FMWebAppTable" {
		t.Fatalf("default name %q", tbl.Name())
	}
	if codex.NewTable(nil, "FMWebAppTable-dev").Name() != "FMWebAppTable-dev" {
		t.Fatal("name not injectable")
	}
	in := tbl.CreateTableInput()
	g := in.GlobalSecondaryIndexes
	if len(g) != 1 || *g[0].IndexName != "Type_CreatedAt" || *g[0].KeySchema[0].AttributeName != "Type" ||
		*g[0].KeySchema[1].AttributeName != "CreatedAt" || g[0].Projection.ProjectionType != types.ProjectionTypeAll {
		t.Fatalf("GSI %+v", g)
	}
	if in.BillingMode != types.BillingModePayPerRequest {
		t.Fatalf("billing %v", in.BillingMode)
	}
}

func TestNewIDTimeOrdered(t *testing.T) {
	a := codex.NewID()
	time.Sleep(2 * time.Millisecond)
	b := codex.NewID()
	if !(a < b) || len(a) != 26 {
		t.Fatalf("ids %q %q not time-ordered", a, b)
	}
}

func flat(m map[string]types.AttributeValue) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if sv, ok := v.(*types.AttributeValueMemberS); ok {
			out[k] = "S:" + sv.Value
		} else {
			out[k] = "?"
		}
	}
	return out
}
