package codec

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// Decoder reads the attributes of one item, one call per field, so that
// generated UnmarshalItem methods decode a field in one line:
//
//	d := codec.NewDecoder(JobType, item)
//	p.ID = d.String("id")
//	p.Progress = int(d.Int("progress", 64))
//	p.Status = codec.Enum(&d, "status", Status.Valid)
//	return d.Err()
//
// An absent, nil or NULL attribute decodes as the zero value. The first
// error sticks: Err returns it (later calls go on decoding, and their
// errors are dropped).
type Decoder struct {
	item map[string]types.AttributeValue
	typ  string
	err  error
}

// NewDecoder returns a Decoder of item, an item of the entity type typ
// (named in the errors of rules).
func NewDecoder(typ string, item map[string]types.AttributeValue) Decoder {
	return Decoder{item: item, typ: typ}
}

// Err returns the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Has reports whether attr is present (not absent, nil or NULL).
func (d *Decoder) Has(attr string) bool {
	_, ok := Lookup(d.item, attr)
	return ok
}

func (d *Decoder) lookup(attr string) (types.AttributeValue, bool) {
	return Lookup(d.item, attr)
}

// fail records err unless an error is already recorded.
func (d *Decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// The methods below share one shape on purpose: a generic helper taking
// the decoding function costs an allocation per call.

// String decodes an S. It is small enough to be inlined: the error path
// is apart.
func (d *Decoder) String(attr string) string {
	if v, ok := d.item[attr].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return d.notString(attr)
}

// notString records the error of a present attribute that is not an S,
// and returns "".
func (d *Decoder) notString(attr string) string {
	if av, ok := d.lookup(attr); ok {
		d.fail(typeErr(attr, "S", av))
	}
	return ""
}

// Bool decodes a BOOL.
func (d *Decoder) Bool(attr string) bool {
	av, ok := d.lookup(attr)
	if !ok {
		return false
	}
	v, err := Bool(attr, av)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Int decodes an N into a signed integer of the given bit size.
func (d *Decoder) Int(attr string, bits int) int64 {
	av, ok := d.lookup(attr)
	if !ok {
		return 0
	}
	v, err := Int(attr, av, bits)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Uint decodes an N into an unsigned integer of the given bit size.
func (d *Decoder) Uint(attr string, bits int) uint64 {
	av, ok := d.lookup(attr)
	if !ok {
		return 0
	}
	v, err := Uint(attr, av, bits)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Float decodes an N into a float of the given bit size.
func (d *Decoder) Float(attr string, bits int) float64 {
	av, ok := d.lookup(attr)
	if !ok {
		return 0
	}
	v, err := Float(attr, av, bits)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Time decodes an S holding a time (see [Time]).
func (d *Decoder) Time(attr string, f keys.TimeFormat) time.Time {
	av, ok := d.lookup(attr)
	if !ok {
		return time.Time{}
	}
	v, err := Time(attr, av, f)
	if err != nil {
		d.fail(err)
	}
	return v
}

// UnixTime decodes an N of epoch seconds.
func (d *Decoder) UnixTime(attr string) time.Time {
	av, ok := d.lookup(attr)
	if !ok {
		return time.Time{}
	}
	v, err := UnixTime(attr, av)
	if err != nil {
		d.fail(err)
	}
	return v
}

// UnixMilliTime decodes an N of epoch milliseconds.
func (d *Decoder) UnixMilliTime(attr string) time.Time {
	av, ok := d.lookup(attr)
	if !ok {
		return time.Time{}
	}
	v, err := UnixMilliTime(attr, av)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Bytes decodes a B (sharing its array).
func (d *Decoder) Bytes(attr string) []byte {
	av, ok := d.lookup(attr)
	if !ok {
		return nil
	}
	v, err := Bytes(attr, av)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Strings decodes an L of S or an SS.
func (d *Decoder) Strings(attr string) []string {
	av, ok := d.lookup(attr)
	if !ok {
		return nil
	}
	v, err := Strings(attr, av)
	if err != nil {
		d.fail(err)
	}
	return v
}

// StringMap decodes an M whose values are S.
func (d *Decoder) StringMap(attr string) map[string]string {
	av, ok := d.lookup(attr)
	if !ok {
		return nil
	}
	v, err := StringMap(attr, av)
	if err != nil {
		d.fail(err)
	}
	return v
}

// Unmarshaler is attributevalue.Unmarshaler: a type that decodes itself.
type Unmarshaler interface {
	UnmarshalDynamoDBAttributeValue(types.AttributeValue) error
}

// Unmarshal decodes attr into u through its own method, when present;
// its error is wrapped in an *AttrError.
func (d *Decoder) Unmarshal(attr string, u Unmarshaler) {
	if av, ok := d.lookup(attr); ok {
		if err := u.UnmarshalDynamoDBAttributeValue(av); err != nil {
			d.fail(Wrap(attr, err))
		}
	}
}

// UnmarshalNew is Unmarshal into a new *T, or nil when attr is absent.
func UnmarshalNew[T any, PT interface {
	*T
	Unmarshaler
}](d *Decoder, attr string) *T {
	if !d.Has(attr) {
		return nil
	}
	v := new(T)
	d.Unmarshal(attr, PT(v))
	return v
}

// Enum decodes an S into the enum type E. A value for which valid is
// false is an *entity.ConstraintError (rule entity.RuleEnum) naming the
// entity type, the attribute and the value; an absent attribute is "".
func Enum[E ~string](d *Decoder, attr string, valid func(E) bool) E {
	v := E(d.String(attr))
	if v != "" && !valid(v) && d.err == nil {
		d.fail(&entity.ConstraintError{Type: d.typ, Attr: attr, Value: v, Rule: entity.RuleEnum})
	}
	return v
}

// Ptr returns &v when present, else nil: the decoding of a pointer field,
// Ptr(d.Has(attr), d.String(attr)).
func Ptr[T any](present bool, v T) *T {
	if !present {
		return nil
	}
	return &v
}
