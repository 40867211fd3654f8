package entity

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/keys"
)

// The rules a [ConstraintError] names. Rules are declared on entity
// fields (see package keys/keygen) and checked by the generated code.
const (
	RuleEnum     = "enum"     // one of a closed set of strings (Limit: "A|B|C")
	RuleMin      = "min"      // a number >= Limit
	RuleMax      = "max"      // a number <= Limit
	RuleNonEmpty = "nonempty" // not "" (nor nil, nor an empty list)
	RulePrefix   = "prefix"   // a string starting with Limit, and longer
	RuleValidate = "Validate" // the entity's own Validate method failed (Err)
)

// ConstraintError reports a value that breaks a rule declared on an
// entity: an attribute outside its enum, below its minimum, above its
// maximum, empty though required, without its prefix, or a whole value
// refused by the entity's Validate method. Generated code returns it from
// MarshalItem (every full write: Create, Put, batch and transaction
// writes), from the Check of a typed [Field] (so [Set] in an Update is
// checked) and, for an unknown enum value, from UnmarshalItem. It matches
// [ErrValidation]; nothing is sent when it is returned by a write.
type ConstraintError struct {
	Type  string // the entity type, for instance "Job"
	Attr  string // the attribute; "" for RuleValidate
	Value any    // the offending value (nil for RuleValidate)
	Rule  string // RuleEnum, RuleMin, ... RuleValidate
	Limit string // the rule's bound as declared: "100", "job-img-", "A|B"
	Err   error  // for RuleValidate, the method's error
}

func (e *ConstraintError) Error() string {
	s := "entity: " + e.Type
	if e.Rule == RuleValidate {
		return s + ": Validate: " + fmt.Sprint(e.Err)
	}
	s += " attribute " + e.Attr + " = " + fmt.Sprintf("%#v", e.Value) + " breaks the rule " + e.Rule
	if e.Limit != "" {
		s += " " + e.Limit
	}
	return s
}

// Unwrap returns [ErrValidation], and Err when set. A broken RuleNonEmpty
// also unwraps to a *keys.Error naming the attribute and matching
// keys.ErrMissingField: an empty required value is the same mistake as an
// empty key source, and gets the same typed error on every path.
func (e *ConstraintError) Unwrap() []error {
	switch {
	case e.Err != nil:
		return []error{ErrValidation, e.Err}
	case e.Rule == RuleNonEmpty:
		return []error{ErrValidation, &keys.Error{Field: e.Attr, Err: keys.ErrMissingField}}
	}
	return []error{ErrValidation}
}

// Invalid wraps the error of an entity's Validate method in a
// *ConstraintError with the rule RuleValidate; nil stays nil, and a
// *ConstraintError is returned as it is (with Type set when empty).
// Generated MarshalItem methods call it.
func Invalid(typ string, err error) error {
	if err == nil {
		return nil
	}
	var ce *ConstraintError
	if errors.As(err, &ce) {
		if ce.Type != "" {
			return err
		}
		cp := *ce
		cp.Type = typ
		return &cp
	}
	return &ConstraintError{Type: typ, Rule: RuleValidate, Err: err}
}

// Check runs the rules of field f on v (f.Check, as [Set] does) and
// returns their *ConstraintError, or nil. Use it to refuse a bad argument
// (a malformed ID) before building a key from it.
func Check[T, V any](f Field[T, V], v V) error {
	if f.Check == nil {
		return nil
	}
	return f.Check(v)
}
