package ddbexpr

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Env holds a request's ExpressionAttributeNames and
// ExpressionAttributeValues. Check validates every placeholder an
// expression uses before evaluation, so evaluation can assume them.
type Env struct {
	Names  map[string]string
	Values map[string]types.AttributeValue
}

// EvalError is a runtime evaluation error (a ValidationException in
// DynamoDB); Msg is DynamoDB's message.
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }

// CheckError is an error about placeholders or operand types found before
// evaluation; the caller prefixes it with "Invalid XExpression: ".
type CheckError struct{ Msg string }

func (e *CheckError) Error() string { return e.Msg }

// Check reports the first placeholder e uses that env does not define.
func (e *Expr) Check(env *Env) error {
	for _, n := range e.Names {
		if _, ok := env.Names[n]; !ok {
			return undefinedName(n)
		}
	}
	for _, v := range e.Values {
		if _, ok := env.Values[v]; !ok {
			return undefinedValue(v)
		}
	}
	return nil
}

func undefinedName(n string) error {
	return &CheckError{"An expression attribute name used in the document path is not defined; attribute name: " + n}
}

func undefinedValue(v string) error {
	return &CheckError{"An expression attribute value used in expression is not defined; attribute value: " + v}
}

func (env *Env) name(s string) string {
	if len(s) > 0 && s[0] == '#' {
		if n, ok := env.Names[s]; ok {
			return n
		}
		// undefined (reported apart): the placeholder stands for itself
	}
	return s
}

// undefined reports whether e is a name placeholder env does not define.
func (env *Env) undefined(e PathElem) bool {
	if e.IsIndex || e.Name == "" || e.Name[0] != '#' {
		return false
	}
	_, ok := env.Names[e.Name]
	return !ok
}

// Resolve returns the path with placeholders replaced by names.
func (env *Env) Resolve(p Path) Path {
	r := make(Path, len(p))
	for i, e := range p {
		r[i] = env.resolveElem(e)
	}
	return r
}

// resolveElem is e with its placeholder replaced by the name.
func (env *Env) resolveElem(e PathElem) PathElem {
	if !e.IsIndex {
		e.Name = env.name(e.Name)
	}
	return e
}

// Get returns the value at path p in it.
func (env *Env) Get(it Item, p Path) (types.AttributeValue, bool) {
	var cur types.AttributeValue
	for i, e := range p {
		if i == 0 {
			v, ok := it[env.name(e.Name)]
			if !ok {
				return nil, false
			}
			cur = v
			continue
		}
		if e.IsIndex {
			l, ok := cur.(*types.AttributeValueMemberL)
			if !ok || e.Index >= len(l.Value) {
				return nil, false
			}
			cur = l.Value[e.Index]
			continue
		}
		m, ok := cur.(*types.AttributeValueMemberM)
		if !ok {
			return nil, false
		}
		v, ok := m.Value[env.name(e.Name)]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, cur != nil
}

// TopName returns the resolved top-level attribute name of p.
func (env *Env) TopName(p Path) string { return env.name(p[0].Name) }

func (env *Env) operand(it Item, o *Operand) (types.AttributeValue, bool, error) {
	switch o.Kind {
	case OpValue:
		return env.Values[o.Value], true, nil
	case OpPath:
		v, ok := env.Get(it, o.Path)
		return v, ok, nil
	case OpSize:
		v, ok, _ := env.operand(it, o.Args[0]) // a path or a value (Validate refuses size of size)
		if !ok {
			return nil, false, nil
		}
		n, ok := sizeFunc(v)
		if !ok {
			return nil, false, nil
		}
		return &types.AttributeValueMemberN{Value: strconv.Itoa(n)}, true, nil
	}
	return nil, false, &EvalError{"unsupported operand"}
}

// Eval evaluates the condition against it (which may be nil).
func (c *Condition) Eval(it Item, env *Env) (bool, error) {
	return env.eval(it, c.Root)
}

func (env *Env) eval(it Item, c *Cond) (bool, error) {
	switch c.Kind {
	case CondAnd:
		l, err := env.eval(it, c.L)
		if err != nil || !l {
			return false, err
		}
		return env.eval(it, c.R)
	case CondOr:
		l, err := env.eval(it, c.L)
		if err != nil || l {
			return l, err
		}
		return env.eval(it, c.R)
	case CondNot:
		l, err := env.eval(it, c.L)
		return !l, err
	case CondCompare:
		a, aok, err := env.operand(it, c.Args[0])
		if err != nil {
			return false, err
		}
		b, bok, err := env.operand(it, c.Args[1])
		if err != nil {
			return false, err
		}
		if !aok || !bok {
			return c.Op == "<>", nil
		}
		switch c.Op {
		case "=":
			return Equal(a, b), nil
		case "<>":
			return !Equal(a, b), nil
		}
		r, ok := Compare(a, b)
		if !ok {
			return false, nil
		}
		switch c.Op {
		case "<":
			return r < 0, nil
		case "<=":
			return r <= 0, nil
		case ">":
			return r > 0, nil
		default:
			return r >= 0, nil
		}
	case CondBetween:
		a, aok, err := env.operand(it, c.Args[0])
		if err != nil {
			return false, err
		}
		lo, lok, err := env.operand(it, c.Args[1])
		if err != nil {
			return false, err
		}
		hi, hok, err := env.operand(it, c.Args[2])
		if err != nil {
			return false, err
		}
		if !aok || !lok || !hok {
			return false, nil
		}
		r1, ok1 := Compare(a, lo)
		r2, ok2 := Compare(a, hi)
		return ok1 && ok2 && r1 >= 0 && r2 <= 0, nil
	case CondIn:
		a, aok, err := env.operand(it, c.Args[0])
		if err != nil || !aok {
			return false, err
		}
		for _, o := range c.Args[1:] {
			b, bok, err := env.operand(it, o)
			if err != nil {
				return false, err
			}
			if bok && Equal(a, b) {
				return true, nil
			}
		}
		return false, nil
	case CondFunc:
		return env.evalFunc(it, c)
	}
	return false, nil
}

var validTypes = map[string]bool{"S": true, "SS": true, "N": true, "NS": true, "B": true, "BS": true, "BOOL": true, "NULL": true, "L": true, "M": true}

func (env *Env) evalFunc(it Item, c *Cond) (bool, error) {
	v, ok, err := env.operand(it, c.Args[0])
	if err != nil {
		return false, err
	}
	switch c.Op {
	case "attribute_exists":
		return ok, nil
	case "attribute_not_exists":
		return !ok, nil
	case "attribute_type":
		t, _, err := env.operand(it, c.Args[1])
		if err != nil {
			return false, err
		}
		s, isS := t.(*types.AttributeValueMemberS)
		if !isS || !validTypes[s.Value] {
			return false, &CheckError{fmt.Sprintf("Invalid attribute type name found; type: %s, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}", typeArg(t))}
		}
		return ok && TypeName(v) == s.Value, nil
	case "begins_with":
		p, pok, err := env.operand(it, c.Args[1])
		if err != nil || !ok || !pok {
			return false, err
		}
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			y, ok := p.(*types.AttributeValueMemberS)
			return ok && strings.HasPrefix(x.Value, y.Value), nil
		case *types.AttributeValueMemberB:
			y, ok := p.(*types.AttributeValueMemberB)
			return ok && bytes.HasPrefix(x.Value, y.Value), nil
		}
		return false, nil
	case "contains":
		p, pok, err := env.operand(it, c.Args[1])
		if err != nil || !ok || !pok {
			return false, err
		}
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			y, ok := p.(*types.AttributeValueMemberS)
			return ok && strings.Contains(x.Value, y.Value), nil
		case *types.AttributeValueMemberB:
			y, ok := p.(*types.AttributeValueMemberB)
			return ok && bytes.Contains(x.Value, y.Value), nil
		case *types.AttributeValueMemberSS:
			y, ok := p.(*types.AttributeValueMemberS)
			if !ok {
				return false, nil
			}
			for _, s := range x.Value {
				if s == y.Value {
					return true, nil
				}
			}
		case *types.AttributeValueMemberNS:
			y, ok := p.(*types.AttributeValueMemberN)
			if !ok {
				return false, nil
			}
			for _, s := range x.Value {
				if numEqual(s, y.Value) {
					return true, nil
				}
			}
		case *types.AttributeValueMemberBS:
			y, ok := p.(*types.AttributeValueMemberB)
			if !ok {
				return false, nil
			}
			for _, s := range x.Value {
				if bytes.Equal(s, y.Value) {
					return true, nil
				}
			}
		case *types.AttributeValueMemberL:
			for _, e := range x.Value {
				if Equal(e, p) {
					return true, nil
				}
			}
		}
		return false, nil
	}
	return false, nil
}

func typeArg(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return TypeName(v)
}

// Validate checks the condition against the request's names and values
// before evaluation, as DynamoDB does: each comparison or function in the
// order written, and in each its operands (checkOperand: placeholders
// and sizes, in the order DynamoDB reads them), then its operand count, then
// whether its first operand is distinct from the others, then its
// operands' types (DynamoDB Local answers alike; dynalite's suite
// records DynamoDB's answers).
func (c *Condition) Validate(env *Env) error { return env.validate(c.Root) }

func (env *Env) validate(c *Cond) error {
	switch c.Kind {
	case CondAnd, CondOr:
		if err := env.validate(c.L); err != nil {
			return err
		}
		return env.validate(c.R)
	case CondNot:
		return env.validate(c.L)
	}
	for _, o := range c.Args {
		if err := env.checkOperand(o); err != nil {
			return err
		}
	}
	if c.Kind == CondFunc && len(c.Args) != condFuncs[c.Op] {
		return operandCountError(c.Op, len(c.Args))
	}
	return env.checkTypes(c)
}

// checkOperand checks o as DynamoDB does while it reads it: each
// placeholder where it is written (it must be defined), and each size
// where it ends (checkSize).
func (env *Env) checkOperand(o *Operand) error {
	if err := env.undefinedIn(o); err != nil {
		return err
	}
	for _, a := range o.Args {
		if err := env.checkOperand(a); err != nil {
			return err
		}
	}
	if o.Kind == OpSize {
		return env.checkSize(o)
	}
	return nil
}

func operandCountError(fn string, n int) error {
	return &CheckError{fmt.Sprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", fn, n)}
}

// checkSize checks a size's operand count, then its operand's type,
// where a value's or another size's tells it: size takes no number,
// boolean or null.
func (env *Env) checkSize(o *Operand) error {
	if len(o.Args) != 1 {
		return operandCountError("size", len(o.Args))
	}
	t := env.constType(o.Args[0])
	if o.Args[0].Kind == OpSize {
		t = "N"
	}
	switch t {
	case "N", "BOOL", "NULL":
		return operandTypeError("size", t)
	}
	return nil
}

func operandTypeError(fn, t string) error {
	return &CheckError{fmt.Sprintf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", fn, t)}
}

// anyType is how DynamoDB names the type of a path where attribute_type
// needs a value (the set's order varies in DynamoDB's own messages, as
// dynalite's suite notes).
const anyType = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"

func (env *Env) constType(o *Operand) string {
	if o.Kind == OpValue {
		if v, ok := env.Values[o.Value]; ok {
			return TypeName(v)
		}
	}
	return ""
}

// checkTypes is the last of validate's checks of one comparison or
// function: distinct operands, then its own operands' types.
func (env *Env) checkTypes(c *Cond) error {
	switch c.Kind {
	case CondCompare:
		if err := env.checkDistinct(c.Op, c.Args); err != nil {
			return err
		}
		if c.Op == "=" || c.Op == "<>" {
			return nil
		}
		for _, o := range c.Args {
			if t := env.constType(o); t != "" && t != "S" && t != "N" && t != "B" {
				return operandTypeError(c.Op, t)
			}
		}
	case CondIn:
		return env.checkDistinct("IN", c.Args)
	case CondBetween:
		// The operands' types before their distinctness, as DynamoDB
		// Local checks them.
		for _, o := range c.Args {
			if t := env.constType(o); t != "" && t != "S" && t != "N" && t != "B" {
				return operandTypeError("BETWEEN", t)
			}
		}
		if err := env.checkDistinct("BETWEEN", c.Args); err != nil {
			return err
		}
		if c.Args[1].Kind == OpValue && c.Args[2].Kind == OpValue {
			lo, hi := env.Values[c.Args[1].Value], env.Values[c.Args[2].Value]
			if TypeName(lo) != TypeName(hi) {
				return &CheckError{fmt.Sprintf("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", Describe(lo), Describe(hi))}
			}
			if r, ok := Compare(lo, hi); ok && r > 0 {
				return &CheckError{fmt.Sprintf("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", Describe(lo), Describe(hi))}
			}
		}
	case CondFunc:
		if len(c.Args) == 2 {
			if err := env.checkDistinct(c.Op, c.Args); err != nil {
				return err
			}
		}
		switch c.Op {
		case "attribute_exists", "attribute_not_exists":
			if c.Args[0].Kind != OpPath {
				return &CheckError{"Operator or function requires a document path; operator or function: " + c.Op}
			}
		case "begins_with":
			// Both operands, in order: a value's type, and size's N,
			// must be a string or binary.
			for _, o := range c.Args {
				t := env.constType(o)
				if o.Kind == OpSize {
					t = "N"
				}
				if t != "" && t != "S" && t != "B" {
					return operandTypeError("begins_with", t)
				}
			}
		case "attribute_type":
			switch o := c.Args[1]; o.Kind {
			case OpPath:
				return operandTypeError("attribute_type", anyType)
			case OpSize:
				return operandTypeError("attribute_type", "N")
			case OpValue:
				t := env.Values[o.Value]
				if _, ok := t.(*types.AttributeValueMemberS); !ok {
					return operandTypeError("attribute_type", typeArg(t))
				}
				if s := t.(*types.AttributeValueMemberS); !validTypes[s.Value] {
					return &CheckError{fmt.Sprintf("Invalid attribute type name found; type: %s, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}", s.Value)}
				}
			}
		}
	}
	return nil
}

// checkDistinct rejects a path operand repeated among the operands, as
// in "a = a" or "a IN (:x, a)".
func (env *Env) checkDistinct(op string, args []*Operand) error {
	first := args[0]
	if first.Kind != OpPath {
		return nil
	}
	fp := env.Resolve(first.Path)
	for _, o := range args[1:] {
		if o.Kind != OpPath || len(o.Path) != len(fp) {
			continue
		}
		same := true
		for i, e := range env.Resolve(o.Path) {
			if e != fp[i] {
				same = false
				break
			}
		}
		if same {
			return &CheckError{fmt.Sprintf("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, bracketPath(fp))}
		}
	}
	return nil
}

// Describe renders v as DynamoDB does in messages, e.g. N:5 or S:abc.
func Describe(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + x.Value
	case *types.AttributeValueMemberN:
		return "N:" + x.Value
	case *types.AttributeValueMemberB:
		// DynamoDB's Java service prints the buffer object.
		return fmt.Sprintf("B:java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]", len(x.Value), len(x.Value))
	}
	return TypeName(v)
}

// Errors of update evaluation, with DynamoDB's messages.
var (
	errNoAttr    = &EvalError{"The provided expression refers to an attribute that does not exist in the item"}
	errBadType   = &EvalError{"An operand in the update expression has an incorrect data type"}
	errBadUpdate = &EvalError{"The document path provided in the update expression is invalid for update"}
)

func (env *Env) setOperand(it Item, o *Operand) (types.AttributeValue, error) {
	switch o.Kind {
	case OpValue:
		return env.Values[o.Value], nil
	case OpPath:
		v, ok := env.Get(it, o.Path)
		if !ok {
			return nil, errNoAttr
		}
		return v, nil
	case OpIfNotExists:
		// The fallback is evaluated even when the path exists: one that
		// refers to a missing attribute fails the update either way, as
		// DynamoDB Local answers.
		fallback, err := env.setOperand(it, o.Args[1])
		if err != nil {
			return nil, err
		}
		if v, ok := env.Get(it, o.Args[0].Path); ok {
			return v, nil
		}
		return fallback, nil
	case OpListAppend:
		// Each operand's type is checked once it is evaluated, left to
		// right (a first operand of the wrong type is reported before a
		// second that refers to a missing attribute).
		a, err := env.setOperand(it, o.Args[0])
		if err != nil {
			return nil, err
		}
		la, ok := a.(*types.AttributeValueMemberL)
		if !ok {
			return nil, errBadType
		}
		b, err := env.setOperand(it, o.Args[1])
		if err != nil {
			return nil, err
		}
		lb, ok := b.(*types.AttributeValueMemberL)
		if !ok {
			return nil, errBadType
		}
		l := make([]types.AttributeValue, 0, len(la.Value)+len(lb.Value))
		l = append(l, la.Value...)
		l = append(l, lb.Value...)
		return &types.AttributeValueMemberL{Value: l}, nil
	case OpPlus, OpMinus:
		a, err := env.setOperand(it, o.Args[0])
		if err != nil {
			return nil, err
		}
		na, ok := a.(*types.AttributeValueMemberN)
		if !ok {
			return nil, errBadType
		}
		b, err := env.setOperand(it, o.Args[1])
		if err != nil {
			return nil, err
		}
		nb, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return nil, errBadType
		}
		x, err := ParseNumber(na.Value)
		if err != nil {
			return nil, &EvalError{err.Error()}
		}
		y, err := ParseNumber(nb.Value)
		if err != nil {
			return nil, &EvalError{err.Error()}
		}
		var r Number
		if o.Kind == OpPlus {
			r, err = x.Add(y)
		} else {
			r, err = x.Sub(y)
		}
		if err != nil {
			return nil, &EvalError{err.Error()}
		}
		return &types.AttributeValueMemberN{Value: r.String()}, nil
	}
	return nil, &EvalError{"unsupported operand"}
}

// Apply applies the update to old (which may be nil) and returns the new
// item. old is not modified; unchanged values are shared with it, and
// values taken from env are deep-copied.
func (u *Update) Apply(old Item, env *Env) (Item, error) {
	it, _, err := u.ApplyEffective(old, env)
	return it, err
}

// ApplyEffective is Apply that also returns the paths of the actions
// that took effect, as the update names them: every SET and ADD, and the
// REMOVE and DELETE actions whose path existed. A SET or ADD of a list
// index past the end of its list appends the element at the list's end,
// so the path it names may hold nothing, or another element, in the new
// item; UpdateItem's UPDATED_NEW returns what is there, as DynamoDB does.
func (u *Update) ApplyEffective(old Item, env *Env) (Item, []Path, error) {
	it, eff, err := u.applyEffective(old, env)
	if err != nil {
		return nil, nil, u.reported(old, env, err)
	}
	return it, eff, nil
}

func (u *Update) applyEffective(old Item, env *Env) (Item, []Path, error) {
	// No action's path may go through a value of the wrong kind before
	// any value is computed. (Which error an update that fails reports is
	// worked out apart: reported.) Then the values are computed from
	// the old item and the actions applied: SET, ADD, DELETE (so that
	// elements appended past the end of a list land in that order), and
	// REMOVE last, so that every action's list indexes refer to the old
	// list (REMOVE l[0] ADD l[1] :n adds to the old l[1], as DynamoDB
	// does).
	if !u.reachable(old, env) {
		return nil, nil, errBadUpdate
	}
	eff := make([]Path, 0, u.actions())
	vals := make([]types.AttributeValue, len(u.Set))
	for i, a := range u.Set {
		v, err := env.setOperand(old, a.Value)
		if err != nil {
			return nil, nil, err
		}
		vals[i] = Copy(v)
	}
	it := CopyRoom(old, len(u.Set)+len(u.Add))
	for _, i := range appendOrder(len(u.Set), func(i int) Path { return u.Set[i].Path }) {
		a := u.Set[i]
		if err := env.set(it, a.Path, vals[i]); err != nil {
			return nil, nil, err
		}
		eff = append(eff, a.Path)
	}
	for _, i := range appendOrder(len(u.Add), func(i int) Path { return u.Add[i].Path }) {
		a := u.Add[i]
		if err := env.add(it, a); err != nil {
			return nil, nil, err
		}
		eff = append(eff, a.Path)
	}
	for _, a := range u.Delete {
		if _, ok := env.Get(it, a.Path); ok {
			eff = append(eff, a.Path)
		}
		if err := env.del(it, a); err != nil {
			return nil, nil, err
		}
	}
	if len(u.Remove) > 0 {
		rem := make([]Path, len(u.Remove))
		copy(rem, u.Remove)
		// Remove higher list indexes first so indexes refer to the old list.
		sort.SliceStable(rem, func(i, j int) bool {
			a, b := rem[i], rem[j]
			if len(a) == len(b) && a[len(a)-1].IsIndex && b[len(b)-1].IsIndex {
				return a[len(a)-1].Index > b[len(b)-1].Index
			}
			return false
		})
		for _, p := range rem {
			if _, ok := env.Get(it, p); ok {
				eff = append(eff, p)
			}
			if err := env.remove(it, p); err != nil {
				return nil, nil, err
			}
		}
	}
	return it, eff, nil
}

// reported returns the error an update that failed with err reports,
// as DynamoDB Local picks it: it takes the actions as a tree of their
// paths, each level a Java hash map of the path's names (the order of
// their hash codes' buckets, then the order written), checks each
// action on the old item (its path, then a SET's value), and reports the
// last action's error. err stands when no action fails on its own.
func (u *Update) reported(old Item, env *Env, err error) error {
	acts := u.written()
	var last error
	for _, i := range hashOrder(acts, env) {
		if e := env.actionErr(old, acts[i]); e != nil {
			last = e
		}
	}
	if last == nil {
		return err
	}
	return last
}

// actionErr is the error of applying one action alone to a copy of old.
func (env *Env) actionErr(old Item, a updateAction) error {
	scratch := CopyRoom(old, 1)
	switch a.kw {
	case "SET":
		if err := env.set(scratch, a.path, &types.AttributeValueMemberNULL{Value: true}); err != nil {
			return err
		}
		_, err := env.setOperand(old, a.set)
		return err
	case "REMOVE":
		return env.remove(scratch, a.path)
	case "ADD":
		return env.add(scratch, ValueAction{Path: a.path, Value: a.value})
	case "DELETE":
		return env.del(scratch, ValueAction{Path: a.path, Value: a.value})
	}
	return nil
}

// hashOrder returns the indexes of acts in the order of a walk of the
// tree of their paths whose every level is a Java HashMap keyed by the
// path elements' names (list indexes by their digits), as DynamoDB Local
// walks an update's actions.
func hashOrder(acts []updateAction, env *Env) []int {
	type node struct {
		keys []string
		kids map[string]*node
		act  int
	}
	newNode := func() *node { return &node{kids: map[string]*node{}, act: -1} }
	root := newNode()
	for i, a := range acts {
		n := root
		for _, e := range a.path {
			k := strconv.Itoa(e.Index)
			if !e.IsIndex {
				k = env.name(e.Name)
			}
			c, ok := n.kids[k]
			if !ok {
				c = newNode()
				n.kids[k] = c
				n.keys = append(n.keys, k)
			}
			n = c
		}
		n.act = i
	}
	var out []int
	var walk func(n *node)
	walk = func(n *node) {
		if n.act >= 0 {
			out = append(out, n.act)
		}
		for _, k := range javaMapOrder(n.keys) {
			walk(n.kids[k])
		}
	}
	walk(root)
	return out
}

// javaMapOrder returns keys (distinct, in insertion order) in the order
// a java.util.HashMap holding them iterates (see javaOrder), by their
// String hash codes.
func javaMapOrder(keys []string) []string { return javaOrder(keys, javaStringHash) }

// javaOrder returns keys (distinct, in insertion order) in the order a
// java.util.HashMap holding them iterates: by bucket of the spread hash
// code in a table of 16 entries, doubled while more than three quarters
// full, then in insertion order.
func javaOrder[K any](keys []K, hash func(K) int32) []K {
	if len(keys) < 2 {
		return keys
	}
	size := 16
	for len(keys) > size*3/4 {
		size *= 2
	}
	bucket := func(k K) int {
		x := uint32(hash(k))
		return int((x ^ x>>16) & uint32(size-1))
	}
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b K) int { return bucket(a) - bucket(b) })
	return out
}

// javaStringHash is java.lang.String's hashCode of k.
func javaStringHash(k string) int32 {
	var h int32
	for _, r := range utf16.Encode([]rune(k)) {
		h = 31*h + int32(r)
	}
	return h
}

// reachable reports whether every action's path reaches into it
// (Env.reachable), without allocating.
func (u *Update) reachable(it Item, env *Env) bool {
	for _, a := range u.Set {
		if !env.reachable(it, a.Path) {
			return false
		}
	}
	for _, p := range u.Remove {
		if !env.reachable(it, p) {
			return false
		}
	}
	for _, as := range [2][]ValueAction{u.Add, u.Delete} {
		for _, a := range as {
			if !env.reachable(it, a.Path) {
				return false
			}
		}
	}
	return true
}

// reachable reports whether p may reach into it before the update's
// values are computed: no element of p but the last is a value of the
// wrong kind (a map where p indexes, a list where p names a key, a
// scalar). A path through a missing attribute, key or list element is
// refused later, when the action applies (modify), after the values are
// computed, as DynamoDB Local answers.
func (env *Env) reachable(it Item, p Path) bool {
	if len(p) == 1 {
		return !p[0].IsIndex
	}
	cur, ok := it[env.name(p[0].Name)]
	if !ok {
		return true
	}
	for i := 1; i < len(p); i++ {
		e := p[i]
		switch x := cur.(type) {
		case *types.AttributeValueMemberM:
			if e.IsIndex {
				return false
			}
			if i == len(p)-1 {
				return true
			}
			if cur, ok = x.Value[env.name(e.Name)]; !ok {
				return true
			}
		case *types.AttributeValueMemberL:
			if !e.IsIndex {
				return false
			}
			if i == len(p)-1 {
				return true
			}
			if e.Index >= len(x.Value) {
				return true
			}
			cur = x.Value[e.Index]
		default:
			return false
		}
	}
	return true
}

// modify walks to the parent of the last element of p, copying
// containers on the way, and calls fn with the (copied) parent container.
func (env *Env) modify(it Item, p Path, fn func(parent types.AttributeValue, last PathElem) (types.AttributeValue, error)) error {
	if len(p) == 1 {
		// The item itself is the parent; fn edits it in place.
		_, err := fn(&types.AttributeValueMemberM{Value: it}, p[0])
		return err
	}
	var rec func(cur types.AttributeValue, i int) (types.AttributeValue, error)
	rec = func(cur types.AttributeValue, i int) (types.AttributeValue, error) {
		// cur is the container holding p[i]; returns its copy.
		e := p[i]
		var cp types.AttributeValue
		var child types.AttributeValue
		switch x := cur.(type) {
		case *types.AttributeValueMemberM:
			if e.IsIndex {
				return nil, errBadUpdate
			}
			m := make(Item, len(x.Value))
			for k, v := range x.Value {
				m[k] = v
			}
			cp = &types.AttributeValueMemberM{Value: m}
			child = m[env.name(e.Name)]
		case *types.AttributeValueMemberL:
			if !e.IsIndex {
				return nil, errBadUpdate
			}
			l := append([]types.AttributeValue(nil), x.Value...)
			cp = &types.AttributeValueMemberL{Value: l}
			if e.Index < len(l) {
				child = l[e.Index]
			}
		default:
			return nil, errBadUpdate
		}
		if i == len(p)-2 {
			if child == nil {
				return nil, errBadUpdate
			}
			nc, err := copyContainer(child)
			if err != nil {
				return nil, err
			}
			nc2, err := fn(nc, p[i+1])
			if err != nil {
				return nil, err
			}
			child = nc2
		} else {
			if child == nil {
				return nil, errBadUpdate
			}
			nc, err := rec(child, i+1)
			if err != nil {
				return nil, err
			}
			child = nc
		}
		switch x := cp.(type) {
		case *types.AttributeValueMemberM:
			x.Value[env.name(e.Name)] = child
		case *types.AttributeValueMemberL:
			x.Value[e.Index] = child
		}
		return cp, nil
	}
	top := env.name(p[0].Name)
	child, ok := it[top]
	if !ok {
		return errBadUpdate
	}
	if len(p) == 2 {
		nc, err := copyContainer(child)
		if err != nil {
			return err
		}
		nv, err := fn(nc, p[1])
		if err != nil {
			return err
		}
		it[top] = nv
		return nil
	}
	nv, err := rec(child, 1)
	if err != nil {
		return err
	}
	it[top] = nv
	return nil
}

func copyContainer(v types.AttributeValue) (types.AttributeValue, error) {
	switch x := v.(type) {
	case *types.AttributeValueMemberM:
		m := make(Item, len(x.Value)+1)
		for k, e := range x.Value {
			m[k] = e
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case *types.AttributeValueMemberL:
		return &types.AttributeValueMemberL{Value: append([]types.AttributeValue(nil), x.Value...)}, nil
	}
	return nil, errBadUpdate
}

// appendOrder is the order in which to apply a clause's actions, of
// which path(i) is the i-th's path: as written, except that actions on
// elements of the same list run in order of their index, so that
// elements appended past the end of a list land in that order ("If you
// add multiple elements in a single SET operation, the elements are
// sorted in order by element number"; DynamoDB orders an ADD clause's
// appends the same way).
func appendOrder(n int, path func(int) Path) []int {
	order := make([]int, n)
	groups := map[string][]int{} // positions in order, by list
	for i := range order {
		order[i] = i
		if p := path(i); len(p) > 1 && p[len(p)-1].IsIndex {
			k := p[:len(p)-1].String()
			groups[k] = append(groups[k], i)
		}
	}
	index := func(i int) int { p := path(i); return p[len(p)-1].Index }
	for _, pos := range groups {
		if len(pos) < 2 {
			continue
		}
		members := append([]int(nil), pos...)
		sort.SliceStable(members, func(x, y int) bool { return index(members[x]) < index(members[y]) })
		for j, p := range pos {
			order[p] = members[j]
		}
	}
	return order
}

func (env *Env) set(it Item, p Path, v types.AttributeValue) error {
	if len(p) == 1 {
		// A top-level attribute, set in the item itself (what modify
		// does, without wrapping the item in a map value).
		if p[0].IsIndex {
			return errBadUpdate
		}
		it[env.name(p[0].Name)] = v
		return nil
	}
	return env.modify(it, p, func(parent types.AttributeValue, last PathElem) (types.AttributeValue, error) {
		switch x := parent.(type) {
		case *types.AttributeValueMemberM:
			if last.IsIndex {
				return nil, errBadUpdate
			}
			x.Value[env.name(last.Name)] = v
		case *types.AttributeValueMemberL:
			if !last.IsIndex {
				return nil, errBadUpdate
			}
			if last.Index < len(x.Value) {
				x.Value[last.Index] = v
			} else {
				x.Value = append(x.Value, v)
			}
		}
		return parent, nil
	})
}

func (env *Env) remove(it Item, p Path) error {
	err := env.modify(it, p, func(parent types.AttributeValue, last PathElem) (types.AttributeValue, error) {
		switch x := parent.(type) {
		case *types.AttributeValueMemberM:
			if last.IsIndex {
				return nil, errBadUpdate
			}
			delete(x.Value, env.name(last.Name))
		case *types.AttributeValueMemberL:
			if !last.IsIndex {
				return nil, errBadUpdate
			}
			if last.Index < len(x.Value) {
				x.Value = append(x.Value[:last.Index:last.Index], x.Value[last.Index+1:]...)
			}
		}
		return parent, nil
	})
	return err
}

func (env *Env) add(it Item, a ValueAction) error {
	val := env.Values[a.Value]
	return env.modify(it, a.Path, func(parent types.AttributeValue, last PathElem) (types.AttributeValue, error) {
		var cur types.AttributeValue
		switch x := parent.(type) {
		case *types.AttributeValueMemberM:
			if last.IsIndex {
				return nil, errBadUpdate
			}
			cur = x.Value[env.name(last.Name)]
		case *types.AttributeValueMemberL:
			if !last.IsIndex {
				return nil, errBadUpdate
			}
			if last.Index < len(x.Value) {
				cur = x.Value[last.Index]
			}
		}
		nv, err := addValues(cur, val)
		if err != nil {
			return nil, err
		}
		switch x := parent.(type) {
		case *types.AttributeValueMemberM:
			x.Value[env.name(last.Name)] = nv
		case *types.AttributeValueMemberL:
			if last.Index < len(x.Value) {
				x.Value[last.Index] = nv
			} else {
				x.Value = append(x.Value, nv)
			}
		}
		return parent, nil
	})
}

func addValues(cur, val types.AttributeValue) (types.AttributeValue, error) {
	switch v := val.(type) {
	case *types.AttributeValueMemberN:
		if cur == nil {
			return Copy(v), nil
		}
		c, ok := cur.(*types.AttributeValueMemberN)
		if !ok {
			return nil, errBadType
		}
		x, err := ParseNumber(c.Value)
		if err != nil {
			return nil, &EvalError{err.Error()}
		}
		y, err := ParseNumber(v.Value)
		if err != nil {
			return nil, &EvalError{err.Error()}
		}
		r, err := x.Add(y)
		if err != nil {
			return nil, &EvalError{err.Error()}
		}
		return &types.AttributeValueMemberN{Value: r.String()}, nil
	case *types.AttributeValueMemberSS:
		if cur == nil {
			return Copy(v), nil
		}
		c, ok := cur.(*types.AttributeValueMemberSS)
		if !ok {
			return nil, errBadType
		}
		return &types.AttributeValueMemberSS{Value: setUnion(c.Value, v.Value, sameString)}, nil
	case *types.AttributeValueMemberNS:
		if cur == nil {
			return Copy(v), nil
		}
		c, ok := cur.(*types.AttributeValueMemberNS)
		if !ok {
			return nil, errBadType
		}
		return &types.AttributeValueMemberNS{Value: setUnion(c.Value, v.Value, CanonicalNumber)}, nil
	case *types.AttributeValueMemberBS:
		if cur == nil {
			return Copy(v), nil
		}
		c, ok := cur.(*types.AttributeValueMemberBS)
		if !ok {
			return nil, errBadType
		}
		out := setUnion(c.Value, v.Value, bytesString)
		for i := len(c.Value); i < len(out); i++ {
			out[i] = bytes.Clone(out[i])
		}
		return &types.AttributeValueMemberBS{Value: out}, nil
	}
	return nil, errBadType
}

func (env *Env) del(it Item, a ValueAction) error {
	val := env.Values[a.Value]
	err := env.modify(it, a.Path, func(parent types.AttributeValue, last PathElem) (types.AttributeValue, error) {
		var cur types.AttributeValue
		switch x := parent.(type) {
		case *types.AttributeValueMemberM:
			if last.IsIndex {
				return nil, errBadUpdate
			}
			cur = x.Value[env.name(last.Name)]
		case *types.AttributeValueMemberL:
			if !last.IsIndex {
				return nil, errBadUpdate
			}
			if last.Index < len(x.Value) {
				cur = x.Value[last.Index]
			}
		}
		if cur == nil {
			return parent, nil
		}
		nv, err := deleteValues(cur, val)
		if err != nil {
			return nil, err
		}
		switch x := parent.(type) {
		case *types.AttributeValueMemberM:
			if nv == nil {
				delete(x.Value, env.name(last.Name))
			} else {
				x.Value[env.name(last.Name)] = nv
			}
		case *types.AttributeValueMemberL:
			if nv == nil {
				x.Value = append(x.Value[:last.Index:last.Index], x.Value[last.Index+1:]...)
			} else {
				x.Value[last.Index] = nv
			}
		}
		return parent, nil
	})
	return err
}

func deleteValues(cur, val types.AttributeValue) (types.AttributeValue, error) {
	switch v := val.(type) {
	case *types.AttributeValueMemberSS:
		c, ok := cur.(*types.AttributeValueMemberSS)
		if !ok {
			return nil, errBadType
		}
		if out := setMinus(c.Value, v.Value, sameString); out != nil {
			return &types.AttributeValueMemberSS{Value: out}, nil
		}
		return nil, nil
	case *types.AttributeValueMemberNS:
		c, ok := cur.(*types.AttributeValueMemberNS)
		if !ok {
			return nil, errBadType
		}
		if out := setMinus(c.Value, v.Value, CanonicalNumber); out != nil {
			return &types.AttributeValueMemberNS{Value: out}, nil
		}
		return nil, nil
	case *types.AttributeValueMemberBS:
		c, ok := cur.(*types.AttributeValueMemberBS)
		if !ok {
			return nil, errBadType
		}
		if out := setMinus(c.Value, v.Value, bytesString); out != nil {
			return &types.AttributeValueMemberBS{Value: out}, nil
		}
		return nil, nil
	}
	return nil, errBadType
}

// setUnion returns a new slice: cur, then each element of add whose key
// (the element's identity in the set) is not there yet.
func setUnion[E any](cur, add []E, key func(E) string) []E {
	out := append([]E(nil), cur...)
	seen := make(map[string]bool, len(out))
	for _, e := range out {
		seen[key(e)] = true
	}
	for _, e := range add {
		if k := key(e); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// setMinus returns the elements of cur whose key is not the key of an
// element of del, nil when none is left.
func setMinus[E any](cur, del []E, key func(E) string) []E {
	drop := make(map[string]bool, len(del))
	for _, e := range del {
		drop[key(e)] = true
	}
	var out []E
	for _, e := range cur {
		if !drop[key(e)] {
			out = append(out, e)
		}
	}
	return out
}

func sameString(s string) string { return s }

func bytesString(b []byte) string { return string(b) }

type projNode struct {
	leaf     types.AttributeValue
	children map[string]*projNode
	indexes  map[int]*projNode
}

// Apply returns a new item holding only the projected paths of it. The
// result shares values with it; callers copy it before handing it out.
func (pr *Projection) Apply(it Item, env *Env) Item {
	root := &projNode{children: map[string]*projNode{}}
	for _, p := range pr.Paths {
		v, ok := env.Get(it, p)
		if !ok {
			continue
		}
		n := root
		for i, e := range p {
			var next *projNode
			if e.IsIndex {
				if n.indexes == nil {
					n.indexes = map[int]*projNode{}
				}
				next = n.indexes[e.Index]
				if next == nil {
					next = &projNode{}
					n.indexes[e.Index] = next
				}
			} else {
				if n.children == nil {
					n.children = map[string]*projNode{}
				}
				name := env.name(e.Name)
				next = n.children[name]
				if next == nil {
					next = &projNode{}
					n.children[name] = next
				}
			}
			if i == len(p)-1 {
				next.leaf = v
			}
			n = next
		}
	}
	out := make(Item, len(root.children))
	for k, c := range root.children {
		out[k] = c.value()
	}
	return out
}

func (n *projNode) value() types.AttributeValue {
	if n.leaf != nil {
		return n.leaf
	}
	if n.indexes != nil {
		var l []types.AttributeValue
		for _, k := range sortedIndexKeys(n.indexes) {
			l = append(l, n.indexes[k].value())
		}
		return &types.AttributeValueMemberL{Value: l}
	}
	m := make(Item, len(n.children))
	for k, c := range n.children {
		m[k] = c.value()
	}
	return &types.AttributeValueMemberM{Value: m}
}

// TopNames returns the resolved top-level attribute names the condition
// refers to.
func (c *Condition) TopNames(env *Env) []string {
	var names []string
	var walk func(c *Cond)
	var walkOp func(o *Operand)
	walkOp = func(o *Operand) {
		if o.Kind == OpPath {
			names = append(names, env.TopName(o.Path))
		}
		for _, a := range o.Args {
			walkOp(a)
		}
	}
	walk = func(c *Cond) {
		if c == nil {
			return
		}
		walk(c.L)
		walk(c.R)
		for _, o := range c.Args {
			walkOp(o)
		}
	}
	walk(c.Root)
	return names
}

var longTypeNames = map[string]string{
	"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL",
	"L": "LIST", "M": "MAP", "SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET",
}

// An update's checks after parsing come in DynamoDB Local's order (and,
// where dynalite's suite records it, DynamoDB's): the paths its actions
// write, from the last action, their names and overlaps (CheckTargets),
// then each action from the last written to the first (CheckActions):
// its operand as written, placeholders, functions' operand counts and
// paths, and operand types. (CheckOperandCounts is for a caller that
// makes no other check.)

// updateAction is one action of an update: its keyword, the path it
// writes, and its operand (a SET's) or value placeholder (ADD's, DELETE's).
type updateAction struct {
	kw    string
	path  Path
	set   *Operand
	value string
}

// written returns u's actions in the order written.
func (u *Update) written() []updateAction {
	acts := make([]updateAction, 0, u.actions())
	for _, kw := range u.sections {
		switch kw {
		case "SET":
			for _, a := range u.Set {
				acts = append(acts, updateAction{kw: kw, path: a.Path, set: a.Value})
			}
		case "REMOVE":
			for _, p := range u.Remove {
				acts = append(acts, updateAction{kw: kw, path: p})
			}
		case "ADD":
			for _, a := range u.Add {
				acts = append(acts, updateAction{kw: kw, path: a.Path, value: a.Value})
			}
		case "DELETE":
			for _, a := range u.Delete {
				acts = append(acts, updateAction{kw: kw, path: a.Path, value: a.Value})
			}
		}
	}
	return acts
}

// writtenPaths returns the paths of u's actions in the order written.
func (u *Update) writtenPaths() []Path {
	acts := u.written()
	paths := make([]Path, len(acts))
	for i, a := range acts {
		paths[i] = a.path
	}
	return paths
}

// CheckTargets checks the paths the update's actions write, the last
// action written first: an undefined name in it, then whether it
// overlaps or conflicts with a path written after it (overlapLater; a
// path with an undefined name overlaps nothing).
func (u *Update) CheckTargets(env *Env) error {
	paths := u.writtenPaths()
	for i := len(paths) - 1; i >= 0; i-- {
		if err := env.placeholders(&Operand{Kind: OpPath, Path: paths[i]}); err != nil {
			return err
		}
		if err := overlapLater(paths, i, env); err != nil {
			return err
		}
	}
	return nil
}

// placeholders reports the first placeholder of o, in the order
// written, that env does not define.
func (env *Env) placeholders(o *Operand) error {
	if err := env.undefinedIn(o); err != nil {
		return err
	}
	for _, a := range o.Args {
		if err := env.placeholders(a); err != nil {
			return err
		}
	}
	return nil
}

// undefinedIn reports a placeholder of o itself (not of its operands)
// that env does not define. (A value with no name stands for a call of
// the wrong operand count.)
func (env *Env) undefinedIn(o *Operand) error {
	switch o.Kind {
	case OpValue:
		if _, ok := env.Values[o.Value]; !ok && o.Value != "" {
			return undefinedValue(o.Value)
		}
	case OpPath:
		for _, e := range o.Path {
			if env.undefined(e) {
				return undefinedName(e.Name)
			}
		}
	}
	return nil
}

// CheckActions checks each action, the last written first, as DynamoDB
// Local does: its operand as written, each placeholder where it stands
// and each function once its operands are checked (its operand count,
// if_not_exists's path, and the types of the constant operands of +, -
// and list_append), then an ADD's or DELETE's value and its type.
func (u *Update) CheckActions(env *Env) error {
	var walk func(o *Operand) error
	walk = func(o *Operand) error {
		if err := env.undefinedIn(o); err != nil {
			return err
		}
		for _, a := range o.Args {
			if err := walk(a); err != nil {
				return err
			}
		}
		if o.err != nil {
			return o.err
		}
		if o.Kind == OpIfNotExists {
			return env.checkDistinct("if_not_exists", o.Args)
		}
		want, name := "", ""
		switch o.Kind {
		case OpPlus:
			want, name = "N", "+"
		case OpMinus:
			want, name = "N", "-"
		case OpListAppend:
			want, name = "L", "list_append"
		default:
			return nil
		}
		for _, a := range o.Args {
			if a.Kind == OpValue && a.Value != "" {
				if t := TypeName(env.Values[a.Value]); t != want {
					return &CheckError{fmt.Sprintf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", name, t)}
				}
			}
		}
		return nil
	}
	valueErr := func(kw, v string, allowed ...string) error {
		if _, ok := env.Values[v]; !ok {
			return undefinedValue(v)
		}
		t := TypeName(env.Values[v])
		if slices.Contains(allowed, t) {
			return nil
		}
		return &CheckError{fmt.Sprintf("Incorrect operand type for operator or function; operator: %s, operand type: %s, typeSet: ALLOWED_FOR_%s_OPERAND", kw, longTypeNames[t], kw)}
	}
	acts := u.written()
	for i := len(acts) - 1; i >= 0; i-- {
		var err error
		switch a := acts[i]; a.kw {
		case "SET":
			err = walk(a.set)
		case "ADD":
			err = valueErr("ADD", a.value, "N", "SS", "NS", "BS")
		case "DELETE":
			err = valueErr("DELETE", a.value, "SS", "NS", "BS")
		}
		if err != nil {
			return err
		}
	}
	return nil
}
