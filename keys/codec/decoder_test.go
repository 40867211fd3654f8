package codec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/keys/codec"
)

type color string

func (c color) Valid() bool { return c == "RED" || c == "BLUE" }

type upper struct{ v string }

func (u *upper) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return errors.New("not S")
	}
	u.v = s.Value
	return nil
}

func TestDecoder(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000000, time.UTC)
	item := map[string]types.AttributeValue{
		"s": &types.AttributeValueMemberS{Value: "x"}, "b": &types.AttributeValueMemberBOOL{Value: true},
		"i": &types.AttributeValueMemberN{Value: "-7"}, "u": &types.AttributeValueMemberN{Value: "7"},
		"f": &types.AttributeValueMemberN{Value: "1.5"}, "t": &types.AttributeValueMemberS{Value: "2025-01-02T03:04:05.006Z"},
		"unix": &types.AttributeValueMemberN{Value: "1735787045"}, "ms": &types.AttributeValueMemberN{Value: "1735787045006"},
		"bin": &types.AttributeValueMemberB{Value: []byte{1}}, "list": &types.AttributeValueMemberSS{Value: []string{"a"}},
		"map": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: "v"}}},
		"c":   &types.AttributeValueMemberS{Value: "RED"}, "null": &types.AttributeValueMemberNULL{Value: true},
		"up": &types.AttributeValueMemberS{Value: "u"},
	}
	d := codec.NewDecoder("T", item)
	type out struct {
		S        string
		B        bool
		I        int64
		U        uint64
		F        float64
		T, X, MS time.Time
		Bin      []byte
		List     []string
		Map      map[string]string
		C        color
		Null     string
		Absent   *string
		Present  *string
	}
	got := out{
		S: d.String("s"), B: d.Bool("b"), I: d.Int("i", 64), U: d.Uint("u", 8), F: d.Float("f", 64),
		T: d.Time("t", keys.TimeMillis), X: d.UnixTime("unix"), MS: d.UnixMilliTime("ms"),
		Bin: d.Bytes("bin"), List: d.Strings("list"), Map: d.StringMap("map"), C: codec.Enum(&d, "c", color.Valid),
		Null: d.String("null"), Absent: codec.Ptr(d.Has("nope"), d.String("nope")), Present: codec.Ptr(d.Has("s"), d.String("s")),
	}
	x := "x"
	want := out{S: "x", B: true, I: -7, U: 7, F: 1.5, T: at, X: at.Truncate(time.Second), MS: at, Bin: []byte{1},
		List: []string{"a"}, Map: map[string]string{"k": "v"}, C: "RED", Present: &x}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
	var u upper
	d.Unmarshal("up", &u)
	if p := codec.UnmarshalNew[upper](&d, "up"); p == nil || p.v != "u" || u.v != "u" {
		t.Fatalf("unmarshal: %+v %+v", p, u)
	}
	if p := codec.UnmarshalNew[upper](&d, "nope"); p != nil || d.Err() != nil {
		t.Fatalf("absent: %+v %v", p, d.Err())
	}
}

// TestDecoderErrors: the first error sticks and names its attribute.
func TestDecoderErrors(t *testing.T) {
	item := map[string]types.AttributeValue{
		"n": &types.AttributeValueMemberS{Value: "x"}, "big": &types.AttributeValueMemberN{Value: "300"},
		"c": &types.AttributeValueMemberS{Value: "GREEN"}, "up": &types.AttributeValueMemberN{Value: "1"},
	}
	cases := []struct {
		name, attr string
		read       func(d *codec.Decoder)
		is         error
	}{
		{"type", "n", func(d *codec.Decoder) { d.Int("n", 64) }, codec.ErrType},
		{"overflow", "big", func(d *codec.Decoder) { d.Uint("big", 8) }, codec.ErrValue},
		{"string type", "big", func(d *codec.Decoder) { d.String("big") }, codec.ErrType},
		{"unmarshaler", "up", func(d *codec.Decoder) { d.Unmarshal("up", new(upper)) }, nil},
	}
	for _, c := range cases {
		d := codec.NewDecoder("T", item)
		c.read(&d)
		d.Int("n", 64) // a later error does not replace the first
		var ae *codec.AttrError
		if !errors.As(d.Err(), &ae) || ae.Attr != c.attr || c.is != nil && !errors.Is(d.Err(), c.is) {
			t.Errorf("%s: %v", c.name, d.Err())
		}
	}
	d := codec.NewDecoder("T", item)
	if v := codec.Enum(&d, "c", color.Valid); v != "GREEN" {
		t.Errorf("enum value %q", v)
	}
	var ce *entity.ConstraintError
	if !errors.As(d.Err(), &ce) || !errors.Is(d.Err(), entity.ErrValidation) || ce.Type != "T" || ce.Attr != "c" || ce.Value != color("GREEN") || ce.Rule != entity.RuleEnum {
		t.Errorf("enum: %v", d.Err())
	}
}
