package cachestore

import (
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

func TestItemCodecRoundTrip(t *testing.T) {
	item := map[string]types.AttributeValue{
		"s": &types.AttributeValueMemberS{Value: "사업보고서 #1"}, "n": &types.AttributeValueMemberN{Value: "-12.5"},
		"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2}}, "t": &types.AttributeValueMemberBOOL{Value: true},
		"f": &types.AttributeValueMemberBOOL{Value: false}, "null": &types.AttributeValueMemberNULL{Value: true},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberN{Value: "1"}}},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: ""}}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, "ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
	}
	b, err := appendItem(nil, item)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeItem(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(item, got, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	for _, bad := range []string{string(b[:len(b)-1]), string(b) + "x", "\xff", "\x01\x01k\x63"} {
		if _, err := decodeItem(bad); !errors.Is(err, errCorrupt) {
			t.Errorf("decode %q: %v", bad, err)
		}
	}
}
