package codec

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/keys"
)

// The encoders below are the Encode functions of generated entity.Field
// descriptors: one per kind of attribute, generic over the named types of
// that kind. A nil result means "absent". The OmitEmpty forms return nil
// for the zero value.

// Integer is the set of signed integer types.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

// Unsigned is the set of unsigned integer types.
type Unsigned interface {
	~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// EncodeString returns an S of v.
func EncodeString[V ~string](v V) (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: string(v)}, nil
}

// EncodeStringOmitEmpty returns an S of v, or nil for "".
func EncodeStringOmitEmpty[V ~string](v V) (types.AttributeValue, error) {
	if v == "" {
		return nil, nil
	}
	return &types.AttributeValueMemberS{Value: string(v)}, nil
}

// EncodeBool returns a BOOL of v.
func EncodeBool[V ~bool](v V) (types.AttributeValue, error) {
	return &types.AttributeValueMemberBOOL{Value: bool(v)}, nil
}

// EncodeBoolOmitEmpty returns a BOOL of v, or nil for false.
func EncodeBoolOmitEmpty[V ~bool](v V) (types.AttributeValue, error) {
	if !v {
		return nil, nil
	}
	return &types.AttributeValueMemberBOOL{Value: true}, nil
}

// EncodeInt returns an N of v.
func EncodeInt[V Integer](v V) (types.AttributeValue, error) { return Number(int64(v)), nil }

// EncodeIntOmitEmpty returns an N of v, or nil for 0.
func EncodeIntOmitEmpty[V Integer](v V) (types.AttributeValue, error) {
	if v == 0 {
		return nil, nil
	}
	return Number(int64(v)), nil
}

// EncodeUint returns an N of v.
func EncodeUint[V Unsigned](v V) (types.AttributeValue, error) { return UnsignedNumber(uint64(v)), nil }

// EncodeUintOmitEmpty returns an N of v, or nil for 0.
func EncodeUintOmitEmpty[V Unsigned](v V) (types.AttributeValue, error) {
	if v == 0 {
		return nil, nil
	}
	return UnsignedNumber(uint64(v)), nil
}

// EncodeStringList returns an L of S (nil for a nil slice, see
// [StringList]); with omitEmpty, nil for an empty one too.
func EncodeStringList[V ~[]string](omitEmpty bool) func(V) (types.AttributeValue, error) {
	return func(v V) (types.AttributeValue, error) {
		if omitEmpty && len(v) == 0 {
			return nil, nil
		}
		return StringList(v), nil
	}
}

// EncodeStringSet returns an SS, or nil for an empty slice.
func EncodeStringSet[V ~[]string](v V) (types.AttributeValue, error) { return StringSet(v), nil }

// TimeEncoder returns the encoder of a time attribute in format f (see
// [TimeString]); with omitEmpty, the zero time is absent.
func TimeEncoder(attr string, f keys.TimeFormat, omitEmpty bool) func(time.Time) (types.AttributeValue, error) {
	return func(v time.Time) (types.AttributeValue, error) {
		if omitEmpty && v.IsZero() {
			return nil, nil
		}
		return TimeString(attr, v, f)
	}
}

// EpochEncoder returns the encoder of a time attribute stored as a
// number of epoch seconds (milliseconds with millis); with omitEmpty, the
// zero time is absent.
func EpochEncoder(millis, omitEmpty bool) func(time.Time) (types.AttributeValue, error) {
	return func(v time.Time) (types.AttributeValue, error) {
		switch {
		case omitEmpty && v.IsZero():
			return nil, nil
		case millis:
			return Number(v.UnixMilli()), nil
		}
		return Number(v.Unix()), nil
	}
}

// ConstKey returns the entity.KeyAttr.Build function of a key attribute
// without fields: it returns v whatever the item.
func ConstKey(v string) func(map[string]types.AttributeValue) (string, error) {
	return func(map[string]types.AttributeValue) (string, error) { return v, nil }
}
