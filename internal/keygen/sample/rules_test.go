package sample_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/keygen/sample"
	"github.com/tablekit/tablekit/keys/codec"
)

var _ entity.Item = (*sample.Order)(nil)

func goodOrder() sample.Order {
	alt := sample.ShadeGreen
	return sample.Order{ID: "ord-1", Shade: sample.ShadeDarkBlue, Alt: &alt, Qty: 3, Code: "c", Tags: []string{"t"}, CreatedAt: at.Truncate(time.Millisecond)}
}

func constraint(t *testing.T, err error) *entity.ConstraintError {
	t.Helper()
	var ce *entity.ConstraintError
	if !errors.As(err, &ce) || !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("%v is not an *entity.ConstraintError", err)
	}
	return ce
}

func TestEnumType(t *testing.T) {
	if diff := cmp.Diff([]sample.Shade{"RED", "GREEN", "DARK_BLUE", "NONE"}, sample.ShadeValues()); diff != "" {
		t.Error(diff)
	}
	for _, v := range sample.ShadeValues() {
		if !v.Valid() {
			t.Errorf("%s not valid", v)
		}
	}
	for _, v := range []sample.Shade{"", "red", "BLUE"} {
		if v.Valid() {
			t.Errorf("%q valid", v)
		}
	}
	// An enum field can be part of keys.
	k, err := sample.OrderKey("ord-1", sample.ShadeRed)
	if err != nil || k.SK != "SHADE#RED" {
		t.Fatalf("%v %v", k, err)
	}
	if _, shade, err := sample.ParseOrderKey(k); err != nil || shade != sample.ShadeRed {
		t.Fatalf("parse: %v %v", shade, err)
	}
}

// TestRules breaks each rule of Order once: MarshalItem and the field's
// Check refuse it with the rule named.
func TestRules(t *testing.T) {
	u := uint16(501)
	bad := sample.Shade("PINK")
	cases := []struct {
		name       string
		mod        func(*sample.Order)
		attr, rule string
		value      any
		fieldCheck func() error
		limit      string
	}{
		{"prefix", func(o *sample.Order) { o.ID = "ord-" }, "id", entity.RulePrefix, "ord-", func() error { return entity.Check(sample.OrderID, "x-1") }, "ord-"},
		{"enum", func(o *sample.Order) { o.Shade = "PINK" }, "shade", entity.RuleEnum, sample.Shade("PINK"), func() error { return entity.Check(sample.OrderShade, "") }, "RED|GREEN|DARK_BLUE|NONE"},
		{"enum pointer", func(o *sample.Order) { o.Alt = &bad }, "alt", entity.RuleEnum, sample.Shade("PINK"), func() error { return entity.Check(sample.OrderAlt, &bad) }, "RED|GREEN|DARK_BLUE|NONE"},
		{"enum omitempty", func(o *sample.Order) { o.Size = "XL" }, "size", entity.RuleEnum, sample.Size("XL"), func() error { return entity.Check(sample.OrderSize, "XL") }, "S|M|L"},
		{"min", func(o *sample.Order) { o.Qty = 0 }, "qty", entity.RuleMin, 0, func() error { return entity.Check(sample.OrderQty, 0) }, "1"},
		{"max", func(o *sample.Order) { o.Qty = 100 }, "qty", entity.RuleMax, 100, func() error { return entity.Check(sample.OrderQty, 100) }, "99"},
		{"float min", func(o *sample.Order) { o.Ratio = -0.5 }, "ratio", entity.RuleMin, -0.5, func() error { return entity.Check(sample.OrderRatio, -0.5) }, "0"},
		{"float max", func(o *sample.Order) { o.Ratio = 1.6 }, "ratio", entity.RuleMax, 1.6, func() error { return entity.Check(sample.OrderRatio, 1.6) }, "1.5"},
		{"nonempty string", func(o *sample.Order) { o.Code = "" }, "code", entity.RuleNonEmpty, "", func() error { return entity.Check(sample.OrderCode, "") }, ""},
		{"nonempty list", func(o *sample.Order) { o.Tags = nil }, "tags", entity.RuleNonEmpty, []string(nil), func() error { return entity.Check(sample.OrderTags, []string{}) }, ""},
		{"pointer max", func(o *sample.Order) { o.OptQty = &u }, "optQty", entity.RuleMax, uint16(501), func() error { return entity.Check(sample.OrderOptQty, &u) }, "500"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := goodOrder()
			c.mod(&o)
			_, err := o.MarshalItem()
			ce := constraint(t, err)
			want := entity.ConstraintError{Type: sample.OrderType, Attr: c.attr, Value: c.value, Rule: c.rule, Limit: c.limit}
			if diff := cmp.Diff(want, *ce); diff != "" {
				t.Error(diff)
			}
			if fce := constraint(t, c.fieldCheck()); fce.Attr != c.attr || fce.Rule != c.rule {
				t.Errorf("field check: %v", fce)
			}
		})
	}
	// Absent optional values break nothing; Set applies the rules.
	o := goodOrder()
	o.Alt, o.OptQty, o.Size, o.Ratio = nil, nil, "", 0
	if _, err := o.MarshalItem(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []error{entity.Check(sample.OrderAlt, nil), entity.Check(sample.OrderSize, ""), entity.Check(sample.OrderCreatedAt, time.Time{})} {
		if v != nil {
			t.Errorf("absent value: %v", v)
		}
	}
}

// TestValidateHook: MarshalItem calls Order.Validate after the field rules
// and wraps its error.
func TestValidateHook(t *testing.T) {
	o := goodOrder()
	o.Shipped = at.Add(-time.Hour)
	_, err := o.MarshalItem()
	ce := constraint(t, err)
	if ce.Rule != entity.RuleValidate || ce.Type != sample.OrderType || !errors.Is(err, sample.ErrShippedEarly) {
		t.Fatalf("%+v", ce)
	}
	o.Shipped = at.Add(time.Hour)
	if _, err := o.MarshalItem(); err != nil {
		t.Fatal(err)
	}
	// A Validate error that is already a ConstraintError is kept.
	in := &entity.ConstraintError{Attr: "x", Rule: entity.RuleMin}
	if got := constraint(t, entity.Invalid("T", in)); got.Type != "T" || got.Attr != "x" || in.Type != "" {
		t.Fatalf("%+v", got)
	}
	if entity.Invalid("T", nil) != nil {
		t.Fatal("nil error wrapped")
	}
}

// TestEnumsOnRead: an unknown enum value in an item is a ConstraintError
// naming the attribute and value; absent values decode as zero.
func TestEnumsOnRead(t *testing.T) {
	o := goodOrder()
	o.Size = sample.SizeM
	item, err := o.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	var back sample.Order
	if err := back.UnmarshalItem(item); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(o, back); diff != "" {
		t.Fatal(diff)
	}
	for _, attr := range []string{"shade", "alt", "size"} {
		m := map[string]types.AttributeValue{}
		for k, v := range item {
			m[k] = v
		}
		m[attr] = s("PURPLE")
		ce := constraint(t, back.UnmarshalItem(m))
		if ce.Attr != attr || ce.Type != sample.OrderType || ce.Rule != entity.RuleEnum || ce.Value == nil {
			t.Errorf("%s: %+v", attr, ce)
		}
	}
	m := map[string]types.AttributeValue{"shade": n("1")}
	var ae *codec.AttrError
	if err := back.UnmarshalItem(m); !errors.As(err, &ae) || !errors.Is(err, codec.ErrType) || ae.Attr != "shade" {
		t.Fatalf("wrong type: %v", err)
	}
	if err := back.UnmarshalItem(map[string]types.AttributeValue{"id": s("ord-2")}); err != nil || back.Alt != nil || back.Shade != "" {
		t.Fatalf("absent: %+v %v", back, err)
	}
}
