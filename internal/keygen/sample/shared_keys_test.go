package sample_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/keygen/sample"
	"github.com/tablekit/tablekit/keys"
)

func TestNoteSharedKeys(t *testing.T) {
	n := &sample.Note{ID: "n1", CreatedAt: at, Seen: sample.Stamp(at), Expires: 1767225600}
	item, err := n.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.AttributeValue{
		"Type": s("NOTE"), "PK": s("NOTE#n1"), "SK": s("METADATA"), "id": s("n1"),
		"CreatedAt": s("2025-11-12T05:00:00Z"), "seen": s("2025-11-12T05:00:00.123Z"), "ttl": &types.AttributeValueMemberN{Value: "1767225600"},
	}
	opts := cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{})
	if diff := cmp.Diff(want, item, opts); diff != "" {
		t.Errorf("without author (-want +got):\n%s", diff)
	}
	checkKeys(t, n, item)
	n.AuthorID = "u001"
	item, _ = n.MarshalItem()
	if diff := cmp.Diff(s("u001"), item["authorId"], opts); diff != "" {
		t.Error(diff)
	}
	checkKeys(t, n, item)
	var back sample.Note
	if err := back.UnmarshalItem(item); err != nil {
		t.Fatal(err)
	}
	if !time.Time(back.Seen).Equal(at.Truncate(time.Millisecond)) || back.Expires != 1767225600 {
		t.Errorf("round trip: %+v", back)
	}
	var attrs []string
	for _, k := range n.EntitySchema().Keys {
		attrs = append(attrs, k.Index+"/"+k.Attr)
	}
	if diff := cmp.Diff([]string{"/PK", "/SK", "Type_CreatedAt/Type", "Type_CreatedAt/CreatedAt", "AuthorId_CreatedAt/authorId", "AuthorId_CreatedAt/CreatedAt"}, attrs); diff != "" {
		t.Errorf("schema keys (-want +got):\n%s", diff)
	}
	if sch := n.EntitySchema(); sch.TTLAttr != "ttl" {
		t.Errorf("TTLAttr %q", sch.TTLAttr)
	}
}

func TestThingWithoutSortKey(t *testing.T) {
	k, err := sample.ThingKey("t1")
	if err != nil || k != (entity.Key{PK: "t1"}) {
		t.Fatalf("ThingKey = %v, %v", k, err)
	}
	if id, err := sample.ParseThingKey(k); err != nil || id != "t1" {
		t.Errorf("ParseThingKey = %q, %v", id, err)
	}
	if _, err := sample.ParseThingKey(entity.Key{PK: "t1", SK: "x"}); !errors.Is(err, keys.ErrMalformed) {
		t.Errorf("SK given: %v", err)
	}
	th := &sample.Thing{ID: "a#b", Seq: 7}
	item, err := th.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	// A bare template copies the field unescaped: the key is the value.
	if got := item["id"].(*types.AttributeValueMemberS).Value; got != "a#b" {
		t.Errorf("id = %q", got)
	}
	checkKeys(t, th, item)
	if id, err := sample.ParseThingKey(entity.Key{PK: "a#b"}); err != nil || id != "a#b" {
		t.Errorf("ParseThingKey(a#b) = %q, %v", id, err)
	}
}
