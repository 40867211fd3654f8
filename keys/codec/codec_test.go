package codec_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/keys/codec"
)

var avOpts = cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{},
	types.AttributeValueMemberL{}, types.AttributeValueMemberM{}, types.AttributeValueMemberSS{})

func TestEncoders(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	for _, tt := range []struct {
		name string
		got  types.AttributeValue
		want types.AttributeValue
	}{
		{"number", codec.Number(-12), &types.AttributeValueMemberN{Value: "-12"}},
		{"unsigned", codec.UnsignedNumber(math.MaxUint64), &types.AttributeValueMemberN{Value: "18446744073709551615"}},
		{"nil list", codec.StringList(nil), nil},
		{"empty list", codec.StringList([]string{}), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}},
		{"short list", codec.StringList([]string{"a", "b"}), &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), s("b")}}},
		{"long list", codec.StringList([]string{"a", "b", "c", "d", "e"}), &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), s("b"), s("c"), s("d"), s("e")}}},
		{"empty set", codec.StringSet([]string{}), nil},
		{"set", codec.StringSet([]string{"x"}), &types.AttributeValueMemberSS{Value: []string{"x"}}},
		{"nil map", codec.StringMapValue(nil), nil},
		{"map", codec.StringMapValue(map[string]string{"k": "v"}), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("v")}}},
	} {
		if diff := cmp.Diff(tt.want, tt.got, avOpts); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, err := codec.FloatNumber("f", math.Inf(1), 64); !errors.Is(err, codec.ErrValue) {
		t.Errorf("Inf: %v", err)
	}
	if _, err := codec.TimeString("t", time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), keys.TimeMillis); !errors.Is(err, codec.ErrValue) || !errors.Is(err, keys.ErrOverflow) {
		t.Errorf("year 12000: %v", err)
	}
	b := codec.NewBuffer(0)
	x, y := b.Int(-5), b.Uint(7)
	z, err := b.Time("t", time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC), keys.TimeMillis)
	if x != "-5" || y != "7" || z != "2025-01-02T03:04:05.006Z" || err != nil {
		t.Errorf("Buffer gave %q %q %q %v", x, y, z, err)
	}
}

func TestDecoders(t *testing.T) {
	n := &types.AttributeValueMemberN{Value: "1"}
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"string", func() error { _, err := codec.String("a", n); return err }(), codec.ErrType},
		{"bool", func() error { _, err := codec.Bool("a", n); return err }(), codec.ErrType},
		{"uint overflow", func() error { _, err := codec.Uint("a", &types.AttributeValueMemberN{Value: "256"}, 8); return err }(), codec.ErrValue},
		{"float", func() error { _, err := codec.Float("a", &types.AttributeValueMemberS{}, 64); return err }(), codec.ErrType},
		{"unix", func() error { _, err := codec.UnixTime("a", &types.AttributeValueMemberS{}); return err }(), codec.ErrType},
		{"unix ms", func() error { _, err := codec.UnixMilliTime("a", &types.AttributeValueMemberN{Value: "x"}); return err }(), codec.ErrValue},
		{"bytes", func() error { _, err := codec.Bytes("a", n); return err }(), codec.ErrType},
		{"strings", func() error { _, err := codec.Strings("a", n); return err }(), codec.ErrType},
		{"string map", func() error { _, err := codec.StringMap("a", n); return err }(), codec.ErrType},
	} {
		var ae *codec.AttrError
		if !errors.Is(tt.err, tt.want) || !errors.As(tt.err, &ae) || ae.Attr != "a" {
			t.Errorf("%s: %v, want an *AttrError wrapping %v", tt.name, tt.err, tt.want)
		}
	}
	if _, ok := codec.Lookup(map[string]types.AttributeValue{"a": &types.AttributeValueMemberNULL{Value: true}}, "a"); ok {
		t.Error("NULL is present")
	}
	if got, err := codec.Strings("a", &types.AttributeValueMemberSS{Value: []string{"x"}}); err != nil || len(got) != 1 {
		t.Errorf("SS: %v %v", got, err)
	}
	at, err := codec.UnixMilliTime("a", &types.AttributeValueMemberN{Value: "1700000000123"})
	if err != nil || !at.Equal(time.UnixMilli(1700000000123)) {
		t.Errorf("unix ms: %v %v", at, err)
	}
}
