package entity

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type changeKind uint8

const (
	changeSet changeKind = iota + 1
	changeAdd
	changeSetIfNotExists
	changeRemove
)

// Change is one typed modification of an attribute of entity T, made by
// [Set], [Add], [SetIfNotExists] or [Remove] and applied by
// [Store.Update]. The zero Change is invalid.
type Change[T any] struct {
	kind changeKind
	name string
	val  any // types.AttributeValue, or nil
	err  error
}

// Changes is the list of modifications of one update.
type Changes[T any] []Change[T]

// Set sets field f to v, after the field's rules (Field.Check). A value
// the codec would omit (a nil pointer, an empty omitempty value) removes
// the attribute instead.
func Set[T, V any](f Field[T, V], v V) Change[T] {
	c := Change[T]{kind: changeSet, name: f.Name}
	c.val, c.err = checkAndEncode(f, v)
	if c.err == nil && c.val == nil {
		c.kind = changeRemove
	}
	return c
}

// SetIfNotExists sets field f to v only when the attribute is absent,
// after the field's rules (Field.Check).
func SetIfNotExists[T, V any](f Field[T, V], v V) Change[T] {
	c := Change[T]{kind: changeSetIfNotExists, name: f.Name}
	c.val, c.err = checkAndEncode(f, v)
	if c.err == nil && c.val == nil {
		c.err = errors.New("SetIfNotExists with an empty value")
	}
	return c
}

// Number is the set of Go types [Add] accepts.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Add adds delta to the numeric field f (an absent attribute counts as 0).
// Use a negative delta to decrement. The field's rules (Field.Check) do
// not apply to a delta; guard the result with a condition.
func Add[T any, V Number](f Field[T, V], delta V) Change[T] {
	c := Change[T]{kind: changeAdd, name: f.Name}
	c.val, c.err = encodeField(f, delta)
	if c.err == nil && c.val == nil {
		// omitempty encodes 0 as absent: adding 0 is a no-op SET.
		c.val = &types.AttributeValueMemberN{Value: "0"}
	}
	return c
}

// Remove deletes the attribute of field f. A field whose rules refuse
// its zero value (nonempty, a required enum, prefix=, a min above zero),
// which is what a removed attribute reads back as, cannot be removed: the
// update then fails with a [*ValidationError] wrapping the rule's
// [*ConstraintError], before any request, as removing an index key's
// source does.
func Remove[T, V any](f Field[T, V]) Change[T] {
	c := Change[T]{kind: changeRemove, name: f.Name}
	if f.Check != nil {
		var zero V
		if err := f.Check(zero); err != nil {
			c.err = fmt.Errorf("cannot remove %s, which its rule requires (set a valid value instead): %w", f.Name, err)
		}
	}
	return c
}

func checkAndEncode[T, V any](f Field[T, V], v V) (any, error) {
	if f.Check != nil {
		if err := f.Check(v); err != nil {
			return nil, err
		}
	}
	return encodeField(f, v)
}

func encodeField[T, V any](f Field[T, V], v V) (any, error) {
	if f.Name == "" || f.Encode == nil {
		return nil, errors.New("zero Field")
	}
	av, err := f.Encode(v)
	if err != nil {
		return nil, err
	}
	if av == nil {
		return nil, nil
	}
	return av, nil
}
