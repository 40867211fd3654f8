// Package codec is the runtime of the item codecs that keygen generates:
// the decoders and encoders that generated MarshalItem, UnmarshalItem and
// entity.Field code calls. Application code rarely calls it directly.
//
// Generated UnmarshalItem methods read an item through a [Decoder], one
// line per field; [Enum] refuses a value outside an enum with an
// *entity.ConstraintError. Decoders take the attribute name so that every
// other failure is a
// *[AttrError] naming it: errors.Is(err, [ErrType]) when the attribute has
// the wrong DynamoDB type (an S where an N belongs), errors.Is(err,
// [ErrValue]) when the value does not fit the Go type (a number out of
// range, a malformed time). Decoders accept every form an encoder may have
// written (a string list as L or SS; a time in any RFC 3339 layout) and
// never copy the strings or bytes of the attribute value.
//
// Encoders of times write fixed-width ISO 8601 UTC (see keys.AppendTime),
// so stored times sort as strings.
package codec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/avtype"
	"github.com/tablekit/tablekit/keys"
)

// Sentinel errors, wrapped in an *AttrError.
var (
	// ErrType reports an attribute of the wrong DynamoDB type.
	ErrType = errors.New("codec: wrong attribute type")
	// ErrValue reports an attribute whose value does not fit the field:
	// an out-of-range or malformed number, a malformed time, a NaN.
	ErrValue = errors.New("codec: bad attribute value")
)

// AttrError is the error of a decoder or encoder: Attr names the attribute.
type AttrError struct {
	Attr string
	Err  error
}

func (e *AttrError) Error() string {
	return "codec: attribute " + strconv.Quote(e.Attr) + ": " + e.Err.Error()
}

// Unwrap returns e.Err.
func (e *AttrError) Unwrap() error { return e.Err }

// Wrap returns err inside an *AttrError for attr; nil stays nil. Generated
// code uses it for the errors of attributevalue.Marshaler and Unmarshaler
// methods.
func Wrap(attr string, err error) error {
	if err == nil {
		return nil
	}
	return &AttrError{Attr: attr, Err: err}
}

func typeErr(attr, want string, av types.AttributeValue) error {
	return &AttrError{Attr: attr, Err: fmt.Errorf("%w: want %s, have %s", ErrType, want, avType(av))}
}

func valueErr(attr string, err error) error {
	return &AttrError{Attr: attr, Err: fmt.Errorf("%w: %w", ErrValue, err)}
}

func avType(av types.AttributeValue) string {
	if n := avtype.Name(av); n != "" {
		return n
	}
	return fmt.Sprintf("%T", av)
}

// Lookup returns the attribute attr of item, and false when it is absent,
// nil or NULL (all of which decode as the zero value).
func Lookup(item map[string]types.AttributeValue, attr string) (types.AttributeValue, bool) {
	av, ok := item[attr]
	if !ok || av == nil {
		return nil, false
	}
	if _, null := av.(*types.AttributeValueMemberNULL); null {
		return nil, false
	}
	return av, true
}

// String decodes an S.
func String(attr string, av types.AttributeValue) (string, error) {
	if v, ok := av.(*types.AttributeValueMemberS); ok {
		return v.Value, nil
	}
	return "", typeErr(attr, "S", av)
}

// Bool decodes a BOOL.
func Bool(attr string, av types.AttributeValue) (bool, error) {
	if v, ok := av.(*types.AttributeValueMemberBOOL); ok {
		return v.Value, nil
	}
	return false, typeErr(attr, "BOOL", av)
}

func number(attr string, av types.AttributeValue) (string, error) {
	if v, ok := av.(*types.AttributeValueMemberN); ok {
		return v.Value, nil
	}
	return "", typeErr(attr, "N", av)
}

// Int decodes an N into a signed integer of the given bit size.
func Int(attr string, av types.AttributeValue, bits int) (int64, error) {
	s, err := number(attr, av)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, valueErr(attr, err)
	}
	return v, nil
}

// Uint decodes an N into an unsigned integer of the given bit size.
func Uint(attr string, av types.AttributeValue, bits int) (uint64, error) {
	s, err := number(attr, av)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, valueErr(attr, err)
	}
	return v, nil
}

// Float decodes an N into a float of the given bit size.
func Float(attr string, av types.AttributeValue, bits int) (float64, error) {
	s, err := number(attr, av)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, valueErr(attr, err)
	}
	return v, nil
}

// Time decodes an S holding an ISO 8601 time. The fixed-width format f is
// tried first (no allocation); any RFC 3339 time is accepted too, so items
// written by other tools still decode. The result is in UTC.
func Time(attr string, av types.AttributeValue, f keys.TimeFormat) (time.Time, error) {
	s, err := String(attr, av)
	if err != nil {
		return time.Time{}, err
	}
	if len(s) == f.Len() {
		if t, err := keys.ParseTime(s, f); err == nil {
			return t, nil
		}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, valueErr(attr, err)
	}
	return t.UTC(), nil
}

// UnixTime decodes an N of epoch seconds (the DynamoDB TTL format).
func UnixTime(attr string, av types.AttributeValue) (time.Time, error) {
	v, err := Int(attr, av, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(v, 0).UTC(), nil
}

// UnixMilliTime decodes an N of epoch milliseconds.
func UnixMilliTime(attr string, av types.AttributeValue) (time.Time, error) {
	v, err := Int(attr, av, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(v).UTC(), nil
}

// Bytes decodes a B. The result shares the attribute value's array.
func Bytes(attr string, av types.AttributeValue) ([]byte, error) {
	if v, ok := av.(*types.AttributeValueMemberB); ok {
		return v.Value, nil
	}
	return nil, typeErr(attr, "B", av)
}

// Strings decodes an L of S or an SS.
func Strings(attr string, av types.AttributeValue) ([]string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberSS:
		return v.Value, nil
	case *types.AttributeValueMemberL:
		out := make([]string, len(v.Value))
		for i, e := range v.Value {
			s, ok := e.(*types.AttributeValueMemberS)
			if !ok {
				return nil, typeErr(attr+"["+strconv.Itoa(i)+"]", "S", e)
			}
			out[i] = s.Value
		}
		return out, nil
	}
	return nil, typeErr(attr, "L or SS", av)
}

// StringMap decodes an M whose values are S.
func StringMap(attr string, av types.AttributeValue) (map[string]string, error) {
	v, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return nil, typeErr(attr, "M", av)
	}
	out := make(map[string]string, len(v.Value))
	for k, e := range v.Value {
		s, ok := e.(*types.AttributeValueMemberS)
		if !ok {
			return nil, typeErr(attr+"."+k, "S", e)
		}
		out[k] = s.Value
	}
	return out, nil
}

// Number returns an N of v.
func Number(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// UnsignedNumber returns an N of v.
func UnsignedNumber(v uint64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatUint(v, 10)}
}

// FloatNumber returns an N of v, or an error wrapping ErrValue for a NaN
// or an infinity, which DynamoDB cannot store.
func FloatNumber(attr string, v float64, bits int) (types.AttributeValue, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, valueErr(attr, fmt.Errorf("%v is not a number DynamoDB stores", v))
	}
	return &types.AttributeValueMemberN{Value: strconv.FormatFloat(v, 'f', -1, bits)}, nil
}

// TimeString returns an S of t in format f (UTC, fixed width), or an error
// wrapping ErrValue for a year outside 0000-9999.
func TimeString(attr string, t time.Time, f keys.TimeFormat) (types.AttributeValue, error) {
	b, err := keys.AppendTime(make([]byte, 0, f.Len()), t, f)
	if err != nil {
		return nil, valueErr(attr, err)
	}
	return &types.AttributeValueMemberS{Value: unsafe.String(&b[0], len(b))}, nil
}

// StringList returns an L of S. A nil slice gives nil (absent); an empty
// one an empty list.
func StringList(v []string) types.AttributeValue {
	if v == nil {
		return nil
	}
	return &types.AttributeValueMemberL{Value: StringValues(v)}
}

// StringValues returns the S values of a list of strings, for an L.
func StringValues(v []string) []types.AttributeValue {
	if len(v) <= smallList {
		// One allocation for a short list, the common case of tags.
		both := new(struct {
			list    [smallList]types.AttributeValue
			members [smallList]types.AttributeValueMemberS
		})
		return StringValuesIn(both.list[:0], both.members[:0], v)
	}
	return StringValuesIn(nil, nil, v)
}

// StringValuesIn is StringValues using the spare capacity of list and
// members when it suffices, so that generated code can keep short lists in
// the item's own allocation.
func StringValuesIn(list []types.AttributeValue, members []types.AttributeValueMemberS, v []string) []types.AttributeValue {
	if cap(list) < len(v) || cap(members) < len(v) {
		list = make([]types.AttributeValue, len(v))
		members = make([]types.AttributeValueMemberS, len(v))
	}
	list, members = list[:len(v):len(v)], members[:len(v)]
	for i, s := range v {
		members[i].Value = s
		list[i] = &members[i]
	}
	return list
}

const smallList = 4

// Binary returns a B of v, or nil (absent) for a nil slice.
func Binary(v []byte) types.AttributeValue {
	if v == nil {
		return nil
	}
	return &types.AttributeValueMemberB{Value: v}
}

// StringSet returns an SS, or nil (absent) for an empty slice: DynamoDB
// has no empty set.
func StringSet(v []string) types.AttributeValue {
	if len(v) == 0 {
		return nil
	}
	return &types.AttributeValueMemberSS{Value: v}
}

// StringMapValue returns an M of S. A nil map gives nil (absent).
func StringMapValue(v map[string]string) types.AttributeValue {
	if v == nil {
		return nil
	}
	members := make([]types.AttributeValueMemberS, len(v))
	m := make(map[string]types.AttributeValue, len(v))
	i := 0
	for k, s := range v {
		members[i].Value = s
		m[k] = &members[i]
		i++
	}
	return &types.AttributeValueMemberM{Value: m}
}

// Buffer formats the numbers and times of one item into a shared byte
// array, so that MarshalItem allocates once for all of them. The strings
// it returns stay valid and unchanged. Not safe for concurrent use.
type Buffer struct {
	buf []byte
}

// NewBuffer returns a Buffer with room for size bytes.
func NewBuffer(size int) Buffer { return Buffer{buf: make([]byte, 0, size)} }

// BufferOn returns a Buffer that appends to buf[len(buf):], in its spare
// capacity while it lasts. The strings point into buf's array: nothing
// else may write to it past len(buf) while they are in use.
func BufferOn(buf []byte) Buffer { return Buffer{buf: buf} }

func (b *Buffer) take(start int) string {
	if len(b.buf) == start {
		return ""
	}
	return unsafe.String(&b.buf[start], len(b.buf)-start)
}

// Int returns the decimal form of v.
func (b *Buffer) Int(v int64) string {
	start := len(b.buf)
	b.buf = strconv.AppendInt(b.buf, v, 10)
	return b.take(start)
}

// Uint returns the decimal form of v.
func (b *Buffer) Uint(v uint64) string {
	start := len(b.buf)
	b.buf = strconv.AppendUint(b.buf, v, 10)
	return b.take(start)
}

// Time returns t in format f, or an error wrapping ErrValue naming attr.
func (b *Buffer) Time(attr string, t time.Time, f keys.TimeFormat) (string, error) {
	start := len(b.buf)
	var err error
	if b.buf, err = keys.AppendTime(b.buf, t, f); err != nil {
		return "", valueErr(attr, err)
	}
	return b.take(start), nil
}
