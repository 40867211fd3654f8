package ddbmem

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/internal/itemsize"
)

const maxItemSize = itemsize.Max

// copyItem returns a deep copy of a stored item.
func copyItem(it item) item {
	var sl slab
	return sl.copyItem(it)
}

// slab hands out string and number members from shared chunks, so that
// copying a page of items does a few allocations instead of one per
// attribute. Members are never modified after the copy.
type slab struct {
	chunk  int // minimum chunk size for strings; 0 sizes chunks to the item
	nchunk int // minimum chunk size for numbers
	ss     []types.AttributeValueMemberS
	ns     []types.AttributeValueMemberN
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
		sl.ns = make([]types.AttributeValueMemberN, 0, max(hint, sl.nchunk))
	}
	sl.ns = append(sl.ns, types.AttributeValueMemberN{Value: v})
	return &sl.ns[len(sl.ns)-1]
}

// copyRecord returns a deep copy of a stored record's item.
func (sl *slab) copyRecord(r *record) item {
	if r.readBefore() {
		if t := r.template(); t != nil {
			return t.clone()
		}
	}
	out := make(item, len(r.attrs))
	for _, a := range r.attrs {
		switch x := a.v.(type) {
		case *types.AttributeValueMemberS:
			out[a.name] = sl.s(x.Value, r.nS)
		case *types.AttributeValueMemberN:
			out[a.name] = sl.n(x.Value, r.nN)
		default:
			out[a.name] = ddbexpr.Copy(a.v)
		}
	}
	return out
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
		if len(k) > maxNameBytes {
			return nil, validation(errNameTooLarge)
		}
		if x, ok := v.(*types.AttributeValueMemberS); ok && x != nil {
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
		if err := checkTree(nv, 1, errNesting); err != nil {
			return nil, err
		}
		out[k] = nv
	}
	return out, nil
}

// Limits of an attribute value's tree: names under 64 KB, and at most 31
// lists or maps around a value (DynamoDB's "32 levels").
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes
const (
	maxNameBytes    = 65535
	maxContainers   = 31
	errNameTooLarge = "Attribute name is too large, must be less than 65536 bytes"
	errNesting      = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	// errNestingUpdate is the message when an update builds the tree.
	errNestingUpdate = "Nesting Levels have exceeded supported limits"
)

// checkTree checks the map key sizes and the nesting of v, a value at
// container depth depth (1 for a top-level attribute); nesting errors
// carry msg.
func checkTree(v types.AttributeValue, depth int, msg string) error {
	switch x := v.(type) {
	case *types.AttributeValueMemberL:
		if depth > maxContainers {
			return validation(msg)
		}
		for _, e := range x.Value {
			if err := checkTree(e, depth+1, msg); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberM:
		if depth > maxContainers {
			return validation(msg)
		}
		for k, e := range x.Value {
			if len(k) > maxNameBytes {
				return validation(errNameTooLarge)
			}
			if err := checkTree(e, depth+1, msg); err != nil {
				return err
			}
		}
	}
	return nil
}

// isNil reports whether v is nil or a nil member pointer.
func isNil(v types.AttributeValue) bool {
	switch x := v.(type) {
	case nil:
		return true
	case *types.AttributeValueMemberS:
		return x == nil
	case *types.AttributeValueMemberN:
		return x == nil
	case *types.AttributeValueMemberB:
		// A nil Value is sent as no value at all ({"B": null}): DynamoDB
		// answers that the attribute value is empty. An empty non-nil
		// slice is the empty binary.
		return x == nil || x.Value == nil
	case *types.AttributeValueMemberBOOL:
		return x == nil
	case *types.AttributeValueMemberNULL:
		return x == nil
	case *types.AttributeValueMemberSS:
		return x == nil
	case *types.AttributeValueMemberNS:
		return x == nil
	case *types.AttributeValueMemberBS:
		return x == nil
	case *types.AttributeValueMemberL:
		return x == nil
	case *types.AttributeValueMemberM:
		return x == nil
	}
	return false
}

var errEmptyValue = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"

func importValue(v types.AttributeValue) (types.AttributeValue, error) {
	return importValueCopy(v, true)
}

// checkValue validates v like importValue without copying it.
func checkValue(v types.AttributeValue) error {
	_, err := importValueCopy(v, false)
	return err
}

// importValueCopy validates v and, when cp is set, returns a deep copy with
// numbers in canonical form; otherwise it returns v itself.
func importValueCopy(v types.AttributeValue, cp bool) (types.AttributeValue, error) {
	if isNil(v) {
		return nil, validation(errEmptyValue)
	}
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		if !cp {
			return v, nil
		}
		return &types.AttributeValueMemberS{Value: x.Value}, nil
	case *types.AttributeValueMemberN:
		n, err := ddbexpr.ParseNumber(x.Value)
		if err != nil {
			return nil, validation(err.Error())
		}
		if !cp {
			return v, nil
		}
		return &types.AttributeValueMemberN{Value: n.String()}, nil
	case *types.AttributeValueMemberB:
		if !cp {
			return v, nil
		}
		if x.Value == nil {
			return &types.AttributeValueMemberB{Value: []byte{}}, nil
		}
		return &types.AttributeValueMemberB{Value: bytes.Clone(x.Value)}, nil
	case *types.AttributeValueMemberBOOL:
		if !cp {
			return v, nil
		}
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
				// DynamoDB's text, with its final period (dynalite's
				// suite records it; DynamoDB Local has none).
				return nil, validationf("One or more parameter values were invalid: Input collection %s contains duplicates.", listString(x.Value))
			}
			seen[s] = true
		}
		if !cp {
			return v, nil
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
		if !cp {
			return v, nil
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
				// DynamoDB's text (dynalite's suite records it; DynamoDB
				// Local leaves the elements out).
				return nil, validationf("One or more parameter values were invalid: Input collection %sof type BS contains duplicates.", base64List(x.Value))
			}
			seen[string(b)] = true
			out[i] = bytes.Clone(b)
		}
		if !cp {
			return v, nil
		}
		return &types.AttributeValueMemberBS{Value: out}, nil
	case *types.AttributeValueMemberL:
		if !cp {
			for _, e := range x.Value {
				if err := checkValue(e); err != nil {
					return nil, err
				}
			}
			return v, nil
		}
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
		if !cp {
			for _, e := range x.Value {
				if err := checkValue(e); err != nil {
					return nil, err
				}
			}
			return v, nil
		}
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
	if err := invalidErr(v); err != nil {
		return nil, err
	}
	return nil, validation(errEmptyValue)
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
	kindLegacyCondition
	kindUpdate
	kindProjection
)

// exprs are the parsed expressions of one request and their placeholders.
type exprs struct {
	env ddbexpr.Env
	// uenv is the environment the update expression applies with: its
	// values are copies of those it names, safe to store (or the
	// request's own when the update stores only copies: storesCopies).
	uenv   ddbexpr.Env
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
	// valueExprs names the expressions of the operation that take values
	// ("ConditionExpression is null"), for the message on values given
	// without any of them.
	valueExprs string
	// legacy: the condition and filter were made from legacy parameters
	// (Expected, QueryFilter, ScanFilter), which have none of an
	// expression's limits (its size, IN's operands, the operator count).
	legacy bool
	// parsed, when set, is these expressions already parsed and checked
	// (a transaction checks every action's before it looks up a table);
	// parseExprsInto copies it.
	parsed *exprs
}

// placeholdersWithout is the error of names or values given to a request
// with no expression: r's, whose expressions are all nil.
func (r exprReq) placeholdersWithout() error {
	if r.names != nil {
		return validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	if r.values != nil {
		if r.valueExprs != "" {
			return validation("ExpressionAttributeValues can only be specified when using expressions: " + r.valueExprs)
		}
		return validation("ExpressionAttributeValues can only be specified when using expressions")
	}
	return nil
}

func (db *DB) parseExprs(r exprReq) (*exprs, error) {
	x := &exprs{}
	if err := db.parseExprsInto(x, r); err != nil {
		return nil, err
	}
	return x, nil
}

// parseExprsInto is parseExprs into x, a zero exprs the caller holds
// (a preparedUpdate's own, saving an allocation per request).
func (db *DB) parseExprsInto(x *exprs, r exprReq) error {
	if r.parsed != nil {
		*x = *r.parsed
		return nil
	}
	x.env = ddbexpr.Env{Names: r.names, Values: r.values}
	// Names before values, as DynamoDB checks them.
	if r.names != nil && len(r.names) == 0 {
		return validation("ExpressionAttributeNames must not be empty")
	}
	for k, v := range r.names {
		if !validPlaceholder(k, '#') {
			return validationf("ExpressionAttributeNames contains invalid key: Syntax error; key: %q", k)
		}
		if v == "" {
			return validationf("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s", k)
		}
	}
	if r.values != nil && len(r.values) == 0 {
		return validation("ExpressionAttributeValues must not be empty")
	}
	for k := range r.values {
		if !validPlaceholder(k, ':') {
			return validationf("ExpressionAttributeValues contains invalid key: Syntax error; key: %q", k)
		}
	}
	// Then the values, before the expressions are parsed, as DynamoDB
	// does (dynalite's suite records it; DynamoDB Local parses first),
	// unless there is no expression to use them.
	if r.key != nil || r.update != nil || r.cond != nil || r.filter != nil || r.proj != nil {
		for k, v := range r.values {
			if _, err := importValueCopy(v, false); err != nil {
				return validationf("ExpressionAttributeValues contains invalid value: %s for key %s", apiMessage(err), k)
			}
		}
	}
	for _, e := range []struct {
		label string
		s     *string
	}{{"KeyConditionExpression", r.key}, {"UpdateExpression", r.update}, {"ConditionExpression", r.cond}, {"FilterExpression", r.filter}, {"ProjectionExpression", r.proj}} {
		if e.s != nil && len(*e.s) > maxExprSize && !r.legacy {
			return validationf("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d", e.label, len(*e.s))
		}
	}
	haveExpr := false
	var usedBuf [4]*ddbexpr.Expr // at most key or update, condition, filter and projection
	used := usedBuf[:0]
	parseCond := func(label string, s *string) (*ddbexpr.Condition, error) {
		if s == nil {
			return nil, nil
		}
		haveExpr = true
		kind, parse := kindCondition, ddbexpr.ParseCondition
		if r.legacy {
			kind, parse = kindLegacyCondition, ddbexpr.ParseLegacyCondition
		}
		v, err := db.cache.get(kind, *s, func(s string) (any, error) { return parse(s) })
		if err != nil {
			return nil, validationf("Invalid %s: %s", label, err.Error())
		}
		c := v.(*ddbexpr.Condition)
		used = append(used, &c.Expr)
		// Each expression is checked whole before the next is parsed:
		// DynamoDB Local does so, and dynalite's suite records DynamoDB
		// checking a key condition's operand types before it parses the
		// filter.
		if err := c.Validate(&x.env); err != nil {
			return nil, validationf("Invalid %s: %s", label, err.Error())
		}
		return c, nil
	}
	var err error
	if x.key, err = parseCond("KeyConditionExpression", r.key); err != nil {
		return err
	}
	if r.update != nil {
		haveExpr = true
		v, err := db.cache.get(kindUpdate, *r.update, func(s string) (any, error) { return ddbexpr.ParseUpdateLate(s) })
		if err != nil {
			return validationf("Invalid UpdateExpression: %s", err.Error())
		}
		x.update = v.(*ddbexpr.Update)
		used = append(used, &x.update.Expr)
		if err := x.checkUpdate(); err != nil {
			return err
		}
	}
	if x.cond, err = parseCond("ConditionExpression", r.cond); err != nil {
		return err
	}
	if x.filter, err = parseCond("FilterExpression", r.filter); err != nil {
		return err
	}
	if r.proj != nil {
		haveExpr = true
		v, err := db.cache.get(kindProjection, *r.proj, func(s string) (any, error) { return ddbexpr.ParseProjection(s) })
		if err != nil {
			return validationf("Invalid ProjectionExpression: %s", err.Error())
		}
		x.proj = v.(*ddbexpr.Projection)
		used = append(used, &x.proj.Expr)
		if err := x.proj.Check(&x.env); err != nil {
			return validationf("Invalid ProjectionExpression: %s", err.Error())
		}
		if err := x.proj.CheckPaths(&x.env); err != nil {
			return validationf("Invalid ProjectionExpression: %s", err.Error())
		}
	}
	if !haveExpr {
		return r.placeholdersWithout()
	}
	// The values are checked (above); expressions read them in place. Only
	// the values the update expression names, which it may store, are
	// copied (numbers made canonical) into the update's own environment.
	if x.update != nil {
		x.uenv.Names = r.names
		switch {
		case len(x.update.Values) == 0:
		case storesCopies(x.update, r.values):
			x.uenv.Values = r.values
		default:
			x.uenv.Values = make(map[string]types.AttributeValue, len(x.update.Values))
			for _, k := range x.update.Values {
				if v, ok := r.values[k]; ok {
					nv, err := importValueCopy(v, true)
					if err != nil {
						return validationf("ExpressionAttributeValues contains invalid value: %s for key %s", apiMessage(err), k)
					}
					x.uenv.Values[k] = nv
				}
			}
		}
	}
	if len(r.names) > 0 {
		if unused := unusedKeys(r.names, used, func(e *ddbexpr.Expr) []string { return e.Names }); unused != nil {
			return validationf("Value provided in ExpressionAttributeNames unused in expressions: keys: %s", keySet(unused))
		}
	}
	if len(r.values) > 0 {
		if unused := unusedKeys(r.values, used, func(e *ddbexpr.Expr) []string { return e.Values }); unused != nil {
			return validationf("Value provided in ExpressionAttributeValues unused in expressions: keys: %s", keySet(unused))
		}
	}
	return nil
}

// checkUpdate checks the parsed update expression against the request's
// names and values, in DynamoDB's order (see package ddbexpr): the
// paths written (names, overlaps), then each action's operands (operand
// counts included), each from the last action.
func (x *exprs) checkUpdate() error {
	for _, check := range []func() error{
		func() error { return x.update.CheckTargets(&x.env) },
		func() error { return x.update.CheckActions(&x.env) },
	} {
		if err := check(); err != nil {
			return validationf("Invalid UpdateExpression: %s", err.Error())
		}
	}
	return nil
}

// all appends the parsed expressions to out, in the order checkNestedKeys
// looks at them.
func (x *exprs) all(out []*ddbexpr.Expr) []*ddbexpr.Expr {
	if x.key != nil {
		out = append(out, &x.key.Expr)
	}
	if x.update != nil {
		out = append(out, &x.update.Expr)
	}
	if x.cond != nil {
		out = append(out, &x.cond.Expr)
	}
	if x.filter != nil {
		out = append(out, &x.filter.Expr)
	}
	if x.proj != nil {
		out = append(out, &x.proj.Expr)
	}
	return out
}

// checkNestedKeys refuses a document path below a key attribute of the
// table or of one of its secondary indexes (a.b or a[0] where a is a
// key), in any of x's expressions, as DynamoDB does once the request is
// otherwise valid (the operations call it after their other checks) and
// before it reads the item. The table's keys are looked for in every
// expression first, then the indexes' keys.
func (t *table) checkNestedKeys(x *exprs) error {
	var buf [5]*ddbexpr.Expr
	return t.nestedKeyErr(&x.env, x.all(buf[:0]))
}

// nestedKeyErr is checkNestedKeys on the expressions used.
func (t *table) nestedKeyErr(env *ddbexpr.Env, used []*ddbexpr.Expr) error {
	const msg = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "
	name := func(n string) string {
		if n[0] == '#' {
			return env.Names[n]
		}
		return n
	}
	for _, e := range used {
		for _, n := range e.Nested {
			if a := name(n); a == t.pk.name || a == t.sk.name {
				return validation(msg + "Key: " + a)
			}
		}
	}
	for _, e := range used {
		for _, n := range e.Nested {
			a := name(n)
			for _, ix := range t.indexes() {
				if a == ix.pk.name || a == ix.sk.name {
					return validation(msg + "IndexKey: " + a)
				}
			}
		}
	}
	return nil
}

const maxExprSize = 4096

func validPlaceholder(k string, prefix byte) bool {
	if len(k) < 2 || k[0] != prefix {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
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

// unusedKeys returns the keys of m that no expression uses, or nil.
// Every placeholder the expressions use is a key of m (they passed
// Check), so when they use as many distinct placeholders as m has keys,
// none is unused: that count is had without walking the map.
func unusedKeys[V any](m map[string]V, used []*ddbexpr.Expr, list func(*ddbexpr.Expr) []string) map[string]bool {
	if distinctUsed(used, list) == len(m) {
		return nil
	}
	var unused map[string]bool
	for k := range m {
		found := false
		for _, e := range used {
			for _, u := range list(e) {
				if u == k {
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			if unused == nil {
				unused = map[string]bool{}
			}
			unused[k] = true
		}
	}
	return unused
}

// storesCopies reports whether update u, applied with the request's
// values as they are, stores only copies of them in the canonical form:
// u only SETs (Update.ApplyEffective copies each value it sets; ADD and
// DELETE may store theirs), and every value it names is a string,
// binary (not nil), boolean or null: none has a canonical form to take,
// as a number has, inside a container or not. The values need no copy
// of their own then.
func storesCopies(u *ddbexpr.Update, values map[string]types.AttributeValue) bool {
	if len(u.Add) > 0 || len(u.Delete) > 0 {
		return false
	}
	for _, k := range u.Values {
		switch x := values[k].(type) {
		case *types.AttributeValueMemberS, *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		case *types.AttributeValueMemberB:
			if x.Value == nil {
				return false // importValueCopy stores it as empty, not nil
			}
		default:
			return false
		}
	}
	return true
}

// distinctUsed counts the distinct placeholders the expressions use.
// Each expression lists its own once (in order of first use); one used
// by several is counted at its first.
func distinctUsed(used []*ddbexpr.Expr, list func(*ddbexpr.Expr) []string) int {
	n := 0
	for i, e := range used {
		for _, u := range list(e) {
			earlier := false
			for _, o := range used[:i] {
				if slices.Contains(list(o), u) {
					earlier = true
					break
				}
			}
			if !earlier {
				n++
			}
		}
	}
	return n
}

// base64List renders binary values as DynamoDB's messages do: [Yg==, Yw==].
func base64List(l [][]byte) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(base64.StdEncoding.EncodeToString(v))
	}
	b.WriteByte(']')
	return b.String()
}
