package codec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/keys/codec"
)

type level int8

type tags []string

func TestFieldEncoders(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	enc := func(av types.AttributeValue, err error) types.AttributeValue {
		if err != nil {
			t.Fatal(err)
		}
		return av
	}
	cases := []struct {
		name      string
		got, want types.AttributeValue
	}{
		{"string", enc(codec.EncodeString(color("RED"))), s("RED")},
		{"empty string", enc(codec.EncodeString("")), s("")},
		{"omitted string", enc(codec.EncodeStringOmitEmpty("")), nil},
		{"kept string", enc(codec.EncodeStringOmitEmpty("x")), s("x")},
		{"bool", enc(codec.EncodeBool(false)), &types.AttributeValueMemberBOOL{Value: false}},
		{"omitted bool", enc(codec.EncodeBoolOmitEmpty(false)), nil},
		{"kept bool", enc(codec.EncodeBoolOmitEmpty(true)), &types.AttributeValueMemberBOOL{Value: true}},
		{"int", enc(codec.EncodeInt(level(-3))), n("-3")},
		{"omitted int", enc(codec.EncodeIntOmitEmpty(0)), nil},
		{"kept int", enc(codec.EncodeIntOmitEmpty(int64(7))), n("7")},
		{"uint", enc(codec.EncodeUint(uint8(0))), n("0")},
		{"omitted uint", enc(codec.EncodeUintOmitEmpty(uint(0))), nil},
		{"kept uint", enc(codec.EncodeUintOmitEmpty(uint16(9))), n("9")},
		{"nil list", enc(codec.EncodeStringList[tags](false)(nil)), nil},
		{"empty list", enc(codec.EncodeStringList[tags](false)(tags{})), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}},
		{"omitted list", enc(codec.EncodeStringList[tags](true)(tags{})), nil},
		{"set", enc(codec.EncodeStringSet(tags{"a"})), &types.AttributeValueMemberSS{Value: []string{"a"}}},
		{"empty set", enc(codec.EncodeStringSet(tags{})), nil},
		{"time", enc(codec.TimeEncoder("t", keys.TimeSeconds, false)(at)), s("2025-01-02T03:04:05Z")},
		{"omitted time", enc(codec.TimeEncoder("t", keys.TimeSeconds, true)(time.Time{})), nil},
		{"epoch", enc(codec.EpochEncoder(false, false)(at)), n("1735787045")},
		{"epoch ms", enc(codec.EpochEncoder(true, true)(at.Add(6 * time.Millisecond))), n("1735787045006")},
		{"omitted epoch", enc(codec.EpochEncoder(false, true)(time.Time{})), nil},
		{"zero epoch", enc(codec.EpochEncoder(false, false)(time.Unix(0, 0))), n("0")},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, c.got, avOpts, cmp.AllowUnexported(types.AttributeValueMemberBOOL{})); diff != "" {
			t.Errorf("%s: %s", c.name, diff)
		}
	}
	_, err := codec.TimeEncoder("t", keys.TimeSeconds, false)(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	var ae *codec.AttrError
	if !errors.As(err, &ae) || ae.Attr != "t" || !errors.Is(err, codec.ErrValue) {
		t.Errorf("year 10000: %v", err)
	}
	if v, err := codec.ConstKey("META")(nil); v != "META" || err != nil {
		t.Errorf("ConstKey: %q %v", v, err)
	}
}
