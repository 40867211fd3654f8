package entity

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// existence is what a write's condition requires of the item.
type existence uint8

const (
	anyItem   existence = iota // no requirement
	mustExist                  // attribute_exists(PK)
	mustNot                    // attribute_not_exists(PK)
)

// condParts are the runtime's own conditions of a write: the existence
// requirement and the expected version, in that order.
func (s *Store[T, PT]) condParts(o *CallOptions, e existence) (p [2]condPart, n int) {
	switch e {
	case mustExist:
		p[n] = condPart{fn: "attribute_exists", name: s.t.opts.PK}
		n++
	case mustNot:
		p[n] = condPart{fn: "attribute_not_exists", name: s.t.opts.PK}
		n++
	}
	if s.schema.VersionAttr != "" && o.Version > 0 {
		p[n] = condPart{name: s.schema.VersionAttr, val: &types.AttributeValueMemberN{Value: strconv.FormatInt(o.Version, 10)}}
		n++
	}
	return p, n
}

// condition is the one condition builder of every write (Create, Put,
// Update, Delete, batch ops carry none, transaction ops): the runtime's
// own part (existence, expected version) ANDed with the user's [If]
// conditions. ok is false when there is no condition at all. Writes
// without a user condition write the same expression with an exprWriter
// (fastCond).
func (s *Store[T, PT]) condition(o *CallOptions, e existence) (c expression.ConditionBuilder, ok bool) {
	parts, n := s.condParts(o, e)
	var p [3]expression.ConditionBuilder // at most: existence, version, user
	for i := 0; i < n; i++ {
		p[i] = condBuilder(parts[i : i+1])
	}
	if o.Condition != nil {
		p[n] = *o.Condition
		n++
	}
	switch n {
	case 0:
		return c, false
	case 1:
		return p[0], true
	case 2:
		return expression.And(p[0], p[1]), true
	}
	return expression.And(p[0], p[1], p[2]), true
}

// sdkExpressions turns the exprWriter off (tests compare both paths).
var sdkExpressions bool

// fastCond reports whether the condition of a write can be written by an
// exprWriter: no user condition, and simple attribute names.
func (s *Store[T, PT]) fastCond(o *CallOptions) bool {
	return !sdkExpressions && o.Condition == nil && simpleName(s.t.opts.PK) && (s.schema.VersionAttr == "" || simpleName(s.schema.VersionAttr))
}

// condExpr is a built condition: the expression and its placeholders.
type condExpr struct {
	expr   *string
	names  map[string]string
	values map[string]types.AttributeValue
}

// writeCond builds the condition of a write that has no update
// expression (Put, Delete, ConditionCheck).
func (s *Store[T, PT]) writeCond(op string, o *CallOptions, e existence) (condExpr, error) {
	if s.fastCond(o) {
		parts, n := s.condParts(o, e)
		var w exprWriter
		x := condExpr{expr: w.condition(parts[:n])}
		x.names, x.values = w.maps()
		return x, nil
	}
	c, ok := s.condition(o, e)
	if !ok {
		return condExpr{}, nil
	}
	x, err := expression.NewBuilder().WithCondition(c).Build()
	if err != nil {
		return condExpr{}, &ValidationError{Op: op, Type: s.schema.Type, Field: "condition", Err: err}
	}
	return condExpr{expr: x.Condition(), names: x.Names(), values: x.Values()}, nil
}
