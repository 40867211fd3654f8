package ddbmem

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

const maxItemSize = 400 * 1024

// copyItem returns a deep copy of a stored item.
func copyItem(it item) item {
	var sl slab
	return sl.copyItem(it)
}

// slab hands out string and number members from shared chunks, so that
// copying a page of items does a few allocations instead of one per
// attribute. Members are never modified after the copy.
type slab struct {
	chunk int // minimum chunk size; 0 sizes chunks to the item
	ss    []types.AttributeValueMemberS
	ns    []types.AttributeValueMemberN
}

const slabChunk = 64

func (sl *slab) s(v string, hint int) *types.AttributeValueMemberS {
	if len(sl.ss) == cap(sl.ss) {
		sl.ss = make([]types.AttributeValueMemberS, 0, max(hint, sl.chunk))
	}
	sl.ss = append(sl.ss, types.AttributeValueMemberS{Value: v})
	return &sl.ss[len(sl.ss)-1]
}

func (sl *slab) n(v string, hint int) *types.AttributeValueMemberN {
	if len(sl.ns) == cap(sl.ns) {
		sl.ns = make([]types.AttributeValueMemberN, 0, max(hint, sl.chunk/4))
	}
	sl.ns = append(sl.ns, types.AttributeValueMemberN{Value: v})
	return &sl.ns[len(sl.ns)-1]
}

// copyItem returns a deep copy of a stored item, drawing scalar members
// from the slab.
func (sl *slab) copyItem(it item) item {
	if it == nil {
		return nil
	}
	out := make(item, len(it))
	for k, v := range it {
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			out[k] = sl.s(x.Value, len(it))
		case *types.AttributeValueMemberN:
			out[k] = sl.n(x.Value, len(it))
		default:
			out[k] = ddbexpr.Copy(v)
		}
	}
	return out
}

// importItem validates it and returns a deep copy with numbers in
// canonical form.
func importItem(it item) (item, error) {
	out := make(item, len(it))
	var ss []types.AttributeValueMemberS
	for k, v := range it {
		if k == "" {
			return nil, validation("One or more parameter values were invalid: An attribute name may not be empty")
		}
		if x, ok := v.(*types.AttributeValueMemberS); ok {
			if ss == nil {
				ss = make([]types.AttributeValueMemberS, 0, len(it))
			}
			ss = append(ss, types.AttributeValueMemberS{Value: x.Value})
			out[k] = &ss[len(ss)-1]
			continue
		}
		nv, err := importValue(v)
		if err != nil {
			return nil, err
		}
		out[k] = nv
	}
	return out, nil
}

func importValue(v types.AttributeValue) (types.AttributeValue, error) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: x.Value}, nil
	case *types.AttributeValueMemberN:
		n, err := ddbexpr.ParseNumber(x.Value)
		if err != nil {
			return nil, validation(err.Error())
		}
		return &types.AttributeValueMemberN{Value: n.String()}, nil
	case *types.AttributeValueMemberB:
		if x.Value == nil {
			return &types.AttributeValueMemberB{Value: []byte{}}, nil
		}
		return &types.AttributeValueMemberB{Value: bytes.Clone(x.Value)}, nil
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: x.Value}, nil
	case *types.AttributeValueMemberNULL:
		if !x.Value {
			return nil, validation("One or more parameter values were invalid: Null attribute value types must have the value of true")
		}
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case *types.AttributeValueMemberSS:
		if len(x.Value) == 0 {
			return nil, validation("One or more parameter values were invalid: An string set  may not be empty")
		}
		seen := make(map[string]bool, len(x.Value))
		for _, s := range x.Value {
			if seen[s] {
				return nil, validationf("One or more parameter values were invalid: Input collection %s contains duplicates", listString(x.Value))
			}
			seen[s] = true
		}
		return &types.AttributeValueMemberSS{Value: append([]string(nil), x.Value...)}, nil
	case *types.AttributeValueMemberNS:
		if len(x.Value) == 0 {
			return nil, validation("One or more parameter values were invalid: An number set  may not be empty")
		}
		out := make([]string, len(x.Value))
		seen := make(map[string]bool, len(x.Value))
		for i, s := range x.Value {
			n, err := ddbexpr.ParseNumber(s)
			if err != nil {
				return nil, validation(err.Error())
			}
			c := n.String()
			if seen[c] {
				return nil, validation("Input collection contains duplicates")
			}
			seen[c] = true
			out[i] = c
		}
		return &types.AttributeValueMemberNS{Value: out}, nil
	case *types.AttributeValueMemberBS:
		if len(x.Value) == 0 {
			return nil, validation("One or more parameter values were invalid: Binary sets should not be empty")
		}
		out := make([][]byte, len(x.Value))
		seen := make(map[string]bool, len(x.Value))
		for i, b := range x.Value {
			if seen[string(b)] {
				return nil, validation("Input collection contains duplicates")
			}
			seen[string(b)] = true
			out[i] = bytes.Clone(b)
		}
		return &types.AttributeValueMemberBS{Value: out}, nil
	case *types.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			nv, err := importValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = nv
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case *types.AttributeValueMemberM:
		out := make(item, len(x.Value))
		for k, e := range x.Value {
			nv, err := importValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = nv
		}
		return &types.AttributeValueMemberM{Value: out}, nil
	}
	return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
}

func listString(s []string) string { return "[" + strings.Join(s, ", ") + "]" }

type exprKey struct {
	kind byte
	s    string
}

type cached struct {
	v   any
	err error
}

// exprCache remembers parsed expressions by text, so repeated requests
// do not parse again. It holds at most maxCached entries and is cleared
// when full.
type exprCache struct {
	mu sync.RWMutex
	m  map[exprKey]cached
}

const maxCached = 4096

func (c *exprCache) get(kind byte, s string, parse func(string) (any, error)) (any, error) {
	k := exprKey{kind, s}
	c.mu.RLock()
	e, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return e.v, e.err
	}
	v, err := parse(s)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[exprKey]cached)
	}
	c.m[k] = cached{v, err}
	c.mu.Unlock()
	return v, err
}

const (
	kindCondition byte = iota
	kindUpdate
	kindProjection
)

// exprs are the parsed expressions of one request and their placeholders.
type exprs struct {
	env    ddbexpr.Env
	cond   *ddbexpr.Condition
	filter *ddbexpr.Condition
	key    *ddbexpr.Condition
	update *ddbexpr.Update
	proj   *ddbexpr.Projection
}

type exprReq struct {
	names                           map[string]string
	values                          map[string]types.AttributeValue
	cond, filter, key, update, proj *string
}

func (db *DB) parseExprs(r exprReq) (*exprs, error) {
	x := &exprs{env: ddbexpr.Env{Names: r.names}}
	if r.values != nil {
		if len(r.values) == 0 {
			return nil, validation("ExpressionAttributeValues must not be empty")
		}
	}
	if r.names != nil && len(r.names) == 0 {
		return nil, validation("ExpressionAttributeNames must not be empty")
	}
	haveExpr := false
	var used []*ddbexpr.Expr
	parseCond := func(label string, s *string) (*ddbexpr.Condition, error) {
		if s == nil {
			return nil, nil
		}
		haveExpr = true
		v, err := db.cache.get(kindCondition, *s, func(s string) (any, error) { return ddbexpr.ParseCondition(s) })
		if err != nil {
			return nil, validationf("Invalid %s: %s", label, err.Error())
		}
		c := v.(*ddbexpr.Condition)
		used = append(used, &c.Expr)
		return c, nil
	}
	var err error
	if x.key, err = parseCond("KeyConditionExpression", r.key); err != nil {
		return nil, err
	}
	if r.update != nil {
		haveExpr = true
		v, err := db.cache.get(kindUpdate, *r.update, func(s string) (any, error) { return ddbexpr.ParseUpdate(s) })
		if err != nil {
			return nil, validationf("Invalid UpdateExpression: %s", err.Error())
		}
		x.update = v.(*ddbexpr.Update)
		used = append(used, &x.update.Expr)
	}
	if x.cond, err = parseCond("ConditionExpression", r.cond); err != nil {
		return nil, err
	}
	if x.filter, err = parseCond("FilterExpression", r.filter); err != nil {
		return nil, err
	}
	if r.proj != nil {
		haveExpr = true
		v, err := db.cache.get(kindProjection, *r.proj, func(s string) (any, error) { return ddbexpr.ParseProjection(s) })
		if err != nil {
			return nil, validationf("Invalid ProjectionExpression: %s", err.Error())
		}
		x.proj = v.(*ddbexpr.Projection)
		used = append(used, &x.proj.Expr)
	}
	if !haveExpr {
		if r.names != nil {
			return nil, validation("ExpressionAttributeNames can only be specified when using expressions")
		}
		if r.values != nil {
			return nil, validation("ExpressionAttributeValues can only be specified when using expressions")
		}
		return x, nil
	}
	if len(r.values) > 0 {
		x.env.Values = make(map[string]types.AttributeValue, len(r.values))
		for k, v := range r.values {
			nv, err := importValue(v)
			if err != nil {
				return nil, validationf("ExpressionAttributeValues contains invalid value: %s for key %s", strings.TrimPrefix(apiMessage(err), ""), k)
			}
			x.env.Values[k] = nv
		}
	}
	labels := []string{"KeyConditionExpression", "UpdateExpression", "ConditionExpression", "FilterExpression", "ProjectionExpression"}
	_ = labels
	check := func(label string, e *ddbexpr.Expr) error {
		if e == nil {
			return nil
		}
		if err := e.Check(&x.env); err != nil {
			return validationf("Invalid %s: %s", label, err.Error())
		}
		return nil
	}
	if x.key != nil {
		if err := check("KeyConditionExpression", &x.key.Expr); err != nil {
			return nil, err
		}
	}
	if x.update != nil {
		if err := check("UpdateExpression", &x.update.Expr); err != nil {
			return nil, err
		}
		if err := x.update.CheckPaths(&x.env); err != nil {
			return nil, validationf("Invalid UpdateExpression: %s", err.Error())
		}
	}
	if x.cond != nil {
		if err := check("ConditionExpression", &x.cond.Expr); err != nil {
			return nil, err
		}
	}
	if x.filter != nil {
		if err := check("FilterExpression", &x.filter.Expr); err != nil {
			return nil, err
		}
	}
	if x.proj != nil {
		if err := check("ProjectionExpression", &x.proj.Expr); err != nil {
			return nil, err
		}
		if err := x.proj.CheckPaths(&x.env); err != nil {
			return nil, validationf("Invalid ProjectionExpression: %s", err.Error())
		}
	}
	if len(r.names) > 0 {
		unused := map[string]bool{}
		for n := range r.names {
			unused[n] = true
		}
		for _, e := range used {
			for _, n := range e.Names {
				delete(unused, n)
			}
		}
		if len(unused) > 0 {
			return nil, validationf("Value provided in ExpressionAttributeNames unused in expressions: keys: %s", keySet(unused))
		}
	}
	if len(r.values) > 0 {
		unused := map[string]bool{}
		for n := range r.values {
			unused[n] = true
		}
		for _, e := range used {
			for _, n := range e.Values {
				delete(unused, n)
			}
		}
		if len(unused) > 0 {
			return nil, validationf("Value provided in ExpressionAttributeValues unused in expressions: keys: %s", keySet(unused))
		}
	}
	for _, c := range []struct {
		label string
		c     *ddbexpr.Condition
	}{{"KeyConditionExpression", x.key}, {"ConditionExpression", x.cond}, {"FilterExpression", x.filter}} {
		if c.c == nil {
			continue
		}
		if err := c.c.CheckOperandTypes(&x.env); err != nil {
			return nil, validationf("Invalid %s: %s", c.label, err.Error())
		}
	}
	return x, nil
}

func apiMessage(err error) string {
	type msg interface{ ErrorMessage() string }
	if m, ok := err.(msg); ok {
		return m.ErrorMessage()
	}
	return err.Error()
}

// evalErr converts an evaluation error into a ValidationException.
func evalErr(label string, err error) error {
	switch e := err.(type) {
	case *ddbexpr.CheckError:
		return validationf("Invalid %s: %s", label, e.Msg)
	case *ddbexpr.EvalError:
		return validation(e.Msg)
	}
	return validation(fmt.Sprint(err))
}
