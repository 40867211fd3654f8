package entity

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The runtime's own write expressions (the existence and version
// condition, the update of Store.Update) are written by exprWriter, in
// exactly the form the SDK's expression package gives them, without its
// trees, fmt calls and intermediate maps: a request reads the same
// either way (TestExprWriterMatchesSDK compares them). The form:
// attribute names are aliased #0, #1, ... in order of first use and each
// name once, values :0, :1, ... in order of use; the condition is
// aliased before the update; update clauses come in the order ADD,
// REMOVE, SET, each ending with a newline, their actions in the order
// they were added, joined by ", "; n conditions ANDed are "(c1) AND (c2)".
// A write that carries a user condition ([If], an
// expression.ConditionBuilder) goes through the expression package.

// updMode is the clause of an update action, in the expression
// package's order of clauses.
type updMode uint8

const (
	updAdd updMode = iota
	updRemove
	updSet
)

// updAction is one action of an update expression.
type updAction struct {
	mode        updMode
	name        string
	val         types.AttributeValue // nil for updRemove
	ifNotExists bool                 // SET name = if_not_exists(name, val)
}

// condPart is one runtime condition of a write: the existence of the
// item (attribute_exists or attribute_not_exists of the partition key)
// or the expected version (name = val).
type condPart struct {
	fn   string // "attribute_exists", "attribute_not_exists", or "" for name = val
	name string
	val  types.AttributeValue
}

// exprWriter writes one request's expressions; the zero value is ready.
type exprWriter struct {
	names []string
	vals  []types.AttributeValue
	buf   []byte
}

// simpleName reports whether the expression package reads name as one
// top-level attribute (no document path), which the writer requires.
func simpleName(name string) bool {
	return name != "" && !strings.ContainsAny(name, ".[]")
}

// aliases of the first names and values, so that common requests format
// none.
var nameAliases, valueAliases = func() (n, v [32]string) {
	for i := range n {
		n[i] = "#" + strconv.Itoa(i)
		v[i] = ":" + strconv.Itoa(i)
	}
	return n, v
}()

func alias(tab *[32]string, prefix string, i int) string {
	if i < len(tab) {
		return tab[i]
	}
	return prefix + strconv.Itoa(i)
}

func (w *exprWriter) name(n string) {
	i := 0
	for ; i < len(w.names); i++ {
		if w.names[i] == n {
			break
		}
	}
	if i == len(w.names) {
		w.names = append(w.names, n)
	}
	w.buf = append(w.buf, alias(&nameAliases, "#", i)...)
}

func (w *exprWriter) value(v types.AttributeValue) {
	w.vals = append(w.vals, v)
	w.buf = append(w.buf, alias(&valueAliases, ":", len(w.vals)-1)...)
}

// condition writes the parts ANDed and returns the expression, nil for
// no parts.
func (w *exprWriter) condition(parts []condPart) *string {
	if len(parts) == 0 {
		return nil
	}
	w.buf = w.buf[:0]
	for i, p := range parts {
		if len(parts) > 1 {
			if i > 0 {
				w.buf = append(w.buf, " AND "...)
			}
			w.buf = append(w.buf, '(')
		}
		if p.fn != "" {
			w.buf = append(w.buf, p.fn...)
			w.buf = append(w.buf, " ("...)
			w.name(p.name)
			w.buf = append(w.buf, ')')
		} else {
			w.name(p.name)
			w.buf = append(w.buf, " = "...)
			w.value(p.val)
		}
		if len(parts) > 1 {
			w.buf = append(w.buf, ')')
		}
	}
	s := string(w.buf)
	return &s
}

// update writes the actions and returns the expression.
func (w *exprWriter) update(acts []updAction) *string {
	w.buf = w.buf[:0]
	for _, mode := range [...]updMode{updAdd, updRemove, updSet} {
		first := true
		for _, a := range acts {
			if a.mode != mode {
				continue
			}
			if first {
				w.buf = append(w.buf, [...]string{"ADD ", "REMOVE ", "SET "}[mode]...)
				first = false
			} else {
				w.buf = append(w.buf, ", "...)
			}
			w.name(a.name)
			switch {
			case mode == updAdd:
				w.buf = append(w.buf, ' ')
				w.value(a.val)
			case mode == updSet && a.ifNotExists:
				w.buf = append(w.buf, " = if_not_exists("...)
				w.name(a.name)
				w.buf = append(w.buf, ", "...)
				w.value(a.val)
				w.buf = append(w.buf, ')')
			case mode == updSet:
				w.buf = append(w.buf, " = "...)
				w.value(a.val)
			}
		}
		if !first {
			w.buf = append(w.buf, '\n')
		}
	}
	s := string(w.buf)
	return &s
}

// maps returns the ExpressionAttributeNames and ExpressionAttributeValues
// of what was written (nil when empty, as the expression package).
func (w *exprWriter) maps() (map[string]string, map[string]types.AttributeValue) {
	var names map[string]string
	var vals map[string]types.AttributeValue
	if len(w.names) > 0 {
		names = make(map[string]string, len(w.names))
		for i, n := range w.names {
			names[alias(&nameAliases, "#", i)] = n
		}
	}
	if len(w.vals) > 0 {
		vals = make(map[string]types.AttributeValue, len(w.vals))
		for i, v := range w.vals {
			vals[alias(&valueAliases, ":", i)] = v
		}
	}
	return names, vals
}

// condBuilder is parts as the expression package's condition (for a
// write that also carries a user condition).
func condBuilder(parts []condPart) (c expression.ConditionBuilder) {
	var p [2]expression.ConditionBuilder
	for i, x := range parts {
		switch x.fn {
		case "attribute_exists":
			p[i] = expression.AttributeExists(expression.Name(x.name))
		case "attribute_not_exists":
			p[i] = expression.AttributeNotExists(expression.Name(x.name))
		default:
			p[i] = expression.Name(x.name).Equal(expression.Value(x.val))
		}
	}
	switch len(parts) {
	case 1:
		return p[0]
	case 2:
		return expression.And(p[0], p[1])
	}
	return c
}

// updBuilder is acts as the expression package's update.
func updBuilder(acts []updAction) (ub expression.UpdateBuilder) {
	for _, a := range acts {
		n := expression.Name(a.name)
		switch {
		case a.mode == updAdd:
			ub = ub.Add(n, expression.Value(a.val))
		case a.mode == updRemove:
			ub = ub.Remove(n)
		case a.ifNotExists:
			ub = ub.Set(n, n.IfNotExists(expression.Value(a.val)))
		default:
			ub = ub.Set(n, expression.Value(a.val))
		}
	}
	return ub
}
