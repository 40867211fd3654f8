package codec_test

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/keys/codec"
)

func Example() {
	item := map[string]types.AttributeValue{
		"title":     &types.AttributeValueMemberS{Value: "Hello"},
		"CreatedAt": &types.AttributeValueMemberS{Value: "2025-11-14T03:00:00Z"},
		"views":     &types.AttributeValueMemberS{Value: "12"},
	}
	if av, ok := codec.Lookup(item, "title"); ok {
		title, _ := codec.String("title", av)
		fmt.Println(title)
	}
	// Any RFC 3339 time decodes, whatever the field's own format.
	at, _ := codec.Time("CreatedAt", item["CreatedAt"], keys.TimeMillis)
	fmt.Println(at)

	_, err := codec.Int("views", item["views"], 64)
	var ae *codec.AttrError
	fmt.Println(errors.Is(err, codec.ErrType), errors.As(err, &ae) && ae.Attr == "views")
	fmt.Println(err)
	// Output:
	// Hello
	// 2025-11-14 03:00:00 +0000 UTC
	// true true
	// codec: attribute "views": codec: wrong attribute type: want N, have S
}

// A Decoder reads one field per line and keeps the first error, as
// generated UnmarshalItem methods do.
func ExampleDecoder() {
	item := map[string]types.AttributeValue{
		"title":  &types.AttributeValueMemberS{Value: "Hello"},
		"views":  &types.AttributeValueMemberN{Value: "12"},
		"status": &types.AttributeValueMemberS{Value: "ARCHIVED"},
	}
	valid := func(s string) bool { return s == "DRAFT" || s == "PUBLISHED" }
	d := codec.NewDecoder("Post", item)
	title := d.String("title")
	views := d.Int("views", 64)
	status := codec.Enum(&d, "status", valid)
	fmt.Println(title, views, status)
	fmt.Println(d.Err())
	// Output:
	// Hello 12 ARCHIVED
	// entity: Post attribute status = "ARCHIVED" breaks the rule enum
}
