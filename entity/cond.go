package entity

import (
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

// condition is the one condition builder of every write (Create, Put,
// Update, Delete, batch ops carry none, transaction ops): the runtime's
// own part (existence, expected version) ANDed with the user's [If]
// conditions. ok is false when there is no condition at all.
func (s *Store[T, PT]) condition(o *CallOptions, e existence) (c expression.ConditionBuilder, ok bool) {
	var p [3]expression.ConditionBuilder // at most: existence, version, user
	n := 0
	switch e {
	case mustExist:
		p[n] = expression.AttributeExists(expression.Name(s.t.opts.PK))
		n++
	case mustNot:
		p[n] = expression.AttributeNotExists(expression.Name(s.t.opts.PK))
		n++
	}
	if s.schema.VersionAttr != "" && o.Version > 0 {
		p[n] = expression.Name(s.schema.VersionAttr).Equal(expression.Value(o.Version))
		n++
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

// condExpr is a built condition: the expression and its placeholders.
type condExpr struct {
	expr   *string
	names  map[string]string
	values map[string]types.AttributeValue
}

// writeCond builds the condition of a write that has no update
// expression (Put, Delete, ConditionCheck).
func (s *Store[T, PT]) writeCond(op string, o *CallOptions, e existence) (condExpr, error) {
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
