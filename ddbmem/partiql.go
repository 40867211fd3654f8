package ddbmem

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// PartiQL (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction)
// runs on the engine's own operations: a statement is parsed
// (partiql_parse.go) and turned into the expression request that does the
// same, so PartiQL has the engine's semantics, limits and capacity.
//
//   - SELECT with an equality on the partition key of the table or index
//     (or an IN of them) is a Query: one condition on the sort key is its
//     key condition, the rest of the WHERE its filter. Any other SELECT is
//     a Scan filtered by the WHERE. ORDER BY the sort key, DESC reads
//     backwards.
//   - INSERT is a PutItem that the item must not exist for
//     (DuplicateItemException).
//   - UPDATE and DELETE take the item's key from the WHERE's equalities;
//     the rest of the WHERE is their condition. UPDATE needs the item to
//     exist. SET's set_add and set_delete are ADD and DELETE.
//   - EXISTS(SELECT ...) in a transaction is a ConditionCheck.

func init() {
	operations["ExecuteStatement"] = op((*DB).ExecuteStatement)
	operations["BatchExecuteStatement"] = op((*DB).BatchExecuteStatement)
	operations["ExecuteTransaction"] = op((*DB).ExecuteTransaction)
}

// pqKeyFilter, in a Query's context, lets its filter name key attributes,
// as a PartiQL WHERE may.
type pqKeyFilter struct{}

// pqEmit writes PartiQL conditions and values as DynamoDB expressions,
// with every name and value a placeholder.
type pqEmit struct {
	names  map[string]string
	values map[string]types.AttributeValue
	byName map[string]string
}

func newPQEmit() *pqEmit {
	return &pqEmit{names: map[string]string{}, values: map[string]types.AttributeValue{}, byName: map[string]string{}}
}

func (e *pqEmit) name(n string) string {
	if p, ok := e.byName[n]; ok {
		return p
	}
	p := "#n" + strconv.Itoa(len(e.names))
	e.names[p], e.byName[n] = n, p
	return p
}

func (e *pqEmit) value(v types.AttributeValue) string {
	p := ":v" + strconv.Itoa(len(e.values))
	e.values[p] = v
	return p
}

func (e *pqEmit) path(p *pqPath) string {
	var b strings.Builder
	for i, part := range p.parts {
		if part.index >= 0 {
			b.WriteString("[" + strconv.Itoa(part.index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.name(part.name))
	}
	return b.String()
}

// cond writes a condition (or an operand of one).
func (e *pqEmit) cond(x pqExpr) (string, error) {
	switch x := x.(type) {
	case *pqPath:
		return e.path(x), nil
	case *pqLit:
		return e.value(x.v), nil
	case *pqBin:
		if x.op == "+" || x.op == "-" {
			return "", validationf("Unsupported operator in Condition Expression. Operator: %s", x.op)
		}
		s, err := e.binary(x, e.cond)
		return "(" + s + ")", err
	case *pqNot:
		s, err := e.cond(x.x)
		return "(NOT " + s + ")", err
	case *pqBetween:
		s, err := e.list(x.x, x.lo, x.hi)
		if err != nil {
			return "", err
		}
		return "(" + s[0] + " BETWEEN " + s[1] + " AND " + s[2] + ")", nil
	case *pqIn:
		s, err := e.list(append([]pqExpr{x.x}, x.list...)...)
		if err != nil {
			return "", err
		}
		return "(" + s[0] + " IN (" + strings.Join(s[1:], ", ") + "))", nil
	case *pqIs:
		p, ok := x.x.(*pqPath)
		if !ok {
			return "", validation("IS MISSING and IS NULL take a document path")
		}
		s := e.path(p)
		switch {
		case x.what == "MISSING" && x.not:
			return "attribute_exists(" + s + ")", nil
		case x.what == "MISSING":
			return "attribute_not_exists(" + s + ")", nil
		case x.not:
			return "(NOT attribute_type(" + s + ", " + e.value(&types.AttributeValueMemberS{Value: "NULL"}) + "))", nil
		default:
			return "attribute_type(" + s + ", " + e.value(&types.AttributeValueMemberS{Value: "NULL"}) + ")", nil
		}
	case *pqCall:
		// The expression parser checks the arguments' count and types.
		s, err := e.list(x.args...)
		if err != nil {
			return "", err
		}
		return x.name + "(" + strings.Join(s, ", ") + ")", nil
	}
	return "", validation("Unsupported expression")
}

func (e *pqEmit) list(xs ...pqExpr) ([]string, error) {
	out := make([]string, len(xs))
	for i, x := range xs {
		s, err := e.cond(x)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// binary writes x's operands with write, around its operator.
func (e *pqEmit) binary(x *pqBin, write func(pqExpr) (string, error)) (string, error) {
	l, err := write(x.l)
	if err != nil {
		return "", err
	}
	r, err := write(x.r)
	if err != nil {
		return "", err
	}
	return l + " " + x.op + " " + r, nil
}

// setValue writes the value of a SET action.
func (e *pqEmit) setValue(x pqExpr) (string, error) {
	switch x := x.(type) {
	case *pqPath:
		return e.path(x), nil
	case *pqLit:
		return e.value(x.v), nil
	case *pqBin:
		if x.op != "+" && x.op != "-" {
			return "", validationf("Unsupported operation in SET: %s", x.op)
		}
		return e.binary(x, e.setValue)
	case *pqCall:
		// The update parser checks which functions an update may call,
		// and their arguments.
		args := make([]string, len(x.args))
		for i, a := range x.args {
			var err error
			if args[i], err = e.setValue(a); err != nil {
				return "", err
			}
		}
		return x.name + "(" + strings.Join(args, ", ") + ")", nil
	}
	return "", validation("Unsupported value in SET")
}

// conjuncts flattens the top-level ANDs of a condition.
func conjuncts(x pqExpr, out []pqExpr) []pqExpr {
	if b, ok := x.(*pqBin); ok && b.op == "AND" {
		return conjuncts(b.r, conjuncts(b.l, out))
	}
	return append(out, x)
}

// equality returns the attribute and value of a conjunct "name = value"
// (either way round).
func equality(x pqExpr) (string, types.AttributeValue, bool) {
	b, ok := x.(*pqBin)
	if !ok || b.op != "=" {
		return "", nil, false
	}
	if p, ok := b.l.(*pqPath); ok && p.top() != "" {
		if v, ok := b.r.(*pqLit); ok {
			return p.top(), v.v, true
		}
	}
	if p, ok := b.r.(*pqPath); ok && p.top() != "" {
		if v, ok := b.l.(*pqLit); ok {
			return p.top(), v.v, true
		}
	}
	return "", nil, false
}

// andAll joins conditions with AND; nil for none.
func andAll(xs []pqExpr) pqExpr {
	var out pqExpr
	for _, x := range xs {
		if out == nil {
			out = x
		} else {
			out = &pqBin{"AND", out, x}
		}
	}
	return out
}

// pqTarget is a statement's table and what its reads read.
type pqTarget struct {
	t   *table
	src *source
}

func (db *DB) pqTarget(st *pqStmt) (pqTarget, error) {
	t, err := db.table(&st.table)
	var rnf *types.ResourceNotFoundException
	if errors.As(err, &rnf) {
		// DynamoDB Local's words for PartiQL (ExecuteTransaction has
		// DynamoDB's own, see there).
		return pqTarget{}, &types.ResourceNotFoundException{Message: aws.String("Cannot do operations on a non-existent table")}
	}
	if err != nil {
		return pqTarget{}, err
	}
	var ix *string
	if st.index != "" {
		ix = &st.index
	}
	src, err := t.source(ix)
	if err != nil {
		return pqTarget{}, err
	}
	return pqTarget{t, src}, nil
}

// itemKey takes a write's (or a keyed read's) key from the equalities of
// its WHERE; the other conjuncts are returned as its condition.
func (tg pqTarget) itemKey(where pqExpr) (map[string]types.AttributeValue, pqExpr, error) {
	key := map[string]types.AttributeValue{}
	var rest []pqExpr
	isKey := func(x pqExpr) string {
		if p, ok := x.(*pqPath); ok && p.top() != "" && (p.top() == tg.t.pk.name || (tg.t.sk.name != "" && p.top() == tg.t.sk.name)) {
			return p.top()
		}
		return ""
	}
	for _, c := range conjuncts(where, nil) {
		if n, v, ok := equality(c); ok && isKey(&pqPath{parts: []pqPart{{name: n, index: -1}}}) != "" {
			prev, dup := key[n]
			if !dup {
				key[n] = v
				continue
			}
			if ddbexpr.Equal(prev, v) {
				continue // the same key again (checkSingleKey refuses another)
			}
		}
		rest = append(rest, c)
	}
	for _, c := range rest {
		// IS NULL of a key attribute given.
		n := ""
		if c, ok := c.(*pqIs); ok && c.what == "NULL" && !c.not {
			n = isKey(c.x)
		}
		if n != "" && key[n] != nil {
			return nil, nil, validationf("Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported", n)
		}
	}
	if _, ok := key[tg.t.pk.name]; !ok || (tg.t.sk.name != "" && key[tg.t.sk.name] == nil) {
		return nil, nil, validation("Where clause does not contain a mandatory equality on all key attributes")
	}
	return key, andAll(rest), nil
}

// pqToken is a SELECT's NextToken: where the next page starts.
type pqToken struct {
	P int                          `json:"p,omitempty"` // the IN value the read is at
	K map[string]map[string]string `json:"k"`           // the start key
}

func encodeToken(p int, lek map[string]types.AttributeValue) *string {
	t := pqToken{P: p, K: map[string]map[string]string{}}
	for k, v := range lek {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			t.K[k] = map[string]string{"S": v.Value}
		case *types.AttributeValueMemberN:
			t.K[k] = map[string]string{"N": v.Value}
		case *types.AttributeValueMemberB:
			t.K[k] = map[string]string{"B": base64.StdEncoding.EncodeToString(v.Value)}
		}
	}
	b, _ := json.Marshal(t)
	return aws.String(base64.StdEncoding.EncodeToString(b))
}

func decodeToken(s string) (int, map[string]types.AttributeValue, error) {
	bad := validation("Invalid NextToken")
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, nil, bad
	}
	var t pqToken
	if json.Unmarshal(b, &t) != nil || len(t.K) == 0 || t.P < 0 {
		return 0, nil, bad
	}
	key := map[string]types.AttributeValue{}
	for k, m := range t.K {
		switch {
		case m["S"] != "" || len(m) == 1 && m["N"] == "" && m["B"] == "":
			key[k] = &types.AttributeValueMemberS{Value: m["S"]}
		case m["N"] != "":
			key[k] = &types.AttributeValueMemberN{Value: m["N"]}
		default:
			v, err := base64.StdEncoding.DecodeString(m["B"])
			if err != nil {
				return 0, nil, bad
			}
			key[k] = &types.AttributeValueMemberB{Value: v}
		}
	}
	return t.P, key, nil
}

// ExecuteStatement runs one PartiQL statement.
func (db *DB) ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error) {
	if err := db.begin(ctx, "ExecuteStatement"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.ExecuteStatementInput{}
	}
	if in.Statement == nil {
		return nil, validation("1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null")
	}
	if err := checkParams(in.Parameters); err != nil {
		return nil, err
	}
	if in.Limit != nil && *in.Limit < 1 {
		return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
	}
	st, err := parsePartiQL(*in.Statement, in.Parameters)
	if err != nil {
		return nil, err
	}
	if st.kind == "EXISTS" {
		return nil, errExistsOutside
	}
	tg, err := db.pqTarget(st)
	if err != nil {
		return nil, err
	}
	if st.kind == "SELECT" {
		out, err := db.pqSelect(ctx, tg, st, in)
		return out, pqErr(err)
	}
	if in.NextToken != nil || in.Limit != nil {
		return nil, validation("NextToken and Limit apply to SELECT statements only")
	}
	item, cc, err := db.pqWrite(ctx, tg, st, in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, pqErr(err)
	}
	out := &dynamodb.ExecuteStatementOutput{Items: []map[string]types.AttributeValue{}, ConsumedCapacity: cc}
	if len(item) > 0 {
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// pqSelect runs a SELECT as a Query or a Scan.
func (db *DB) pqSelect(ctx context.Context, tg pqTarget, st *pqStmt, in *dynamodb.ExecuteStatementInput) (*dynamodb.ExecuteStatementOutput, error) {
	if err := db.checkProjection(st.proj); err != nil {
		return nil, err
	}
	if in.ConsistentRead != nil && *in.ConsistentRead && tg.src.ix != nil && !tg.src.ix.local {
		return nil, validation("Consistent read cannot be true when scanning a GSI")
	}
	if st.where != nil {
		// The condition's own checks (operand types, functions' use)
		// before the key's, as DynamoDB Local checks them.
		ce := newPQEmit()
		c, err := ce.cond(st.where)
		if err != nil {
			return nil, err
		}
		if _, err := db.parseExprs(exprReq{names: ce.names, values: nilIfEmpty(ce.values), filter: &c}); err != nil {
			return nil, pqErr(err)
		}
	}
	if err := tg.checkQueryKeyTypes(st.where); err != nil {
		return nil, err
	}
	if err := tg.checkKeyComparisons(st.where); err != nil {
		return nil, err
	}
	e := newPQEmit()
	proj, nested := e.projection(st.proj)
	start, esk := 0, map[string]types.AttributeValue(nil)
	if in.NextToken != nil {
		var err error
		if start, esk, err = decodeToken(*in.NextToken); err != nil {
			return nil, err
		}
	}
	var ix *string
	if st.index != "" {
		ix = &st.index
	}
	// The partition key's equality (or IN) and one sort key condition:
	// the last condition on each, as DynamoDB Local reads them (the
	// others filter).
	var parts []types.AttributeValue
	var sortCond pqExpr
	var rest []pqExpr
	conds, _ := tg.keyConds(st.where)
	last := func(name string) pqExpr {
		if cs := conds[name]; len(cs) > 0 {
			return cs[len(cs)-1]
		}
		return nil
	}
	pkCond, skCond := last(tg.src.pk.name), last(tg.src.sk.name)
	for _, c := range conjuncts(st.where, nil) {
		if n, v, ok := equality(c); ok && n == tg.src.pk.name && c == pkCond {
			parts = []types.AttributeValue{v}
			continue
		}
		if in, ok := c.(*pqIn); ok && c == pkCond {
			if p, ok := in.x.(*pqPath); ok && p.top() == tg.src.pk.name {
				lits := make([]types.AttributeValue, 0, len(in.list))
				for _, x := range in.list {
					if l, ok := x.(*pqLit); ok {
						lits = append(lits, l.v)
					}
				}
				if len(lits) == len(in.list) {
					parts = lits
					continue
				}
			}
		}
		if c == skCond && tg.src.sk.name != "" && sortKeyTerm(c, tg.src.sk.name) {
			sortCond = c
			continue
		}
		rest = append(rest, c)
	}
	if len(parts) > 1 && (sortCond != nil || len(rest) > 0) {
		// With other conditions DynamoDB reads each listed partition
		// once (DynamoDB Local scans); alone, a repeated value reads its
		// partition again.
		parts = dedupValues(parts)
	}
	var forward *bool
	if st.order != nil {
		switch {
		case st.where == nil:
			return nil, validation("Must have WHERE clause in the statement when using ORDER BY clause.")
		case parts == nil && !hashCond(st.where, tg.src.pk.name):
			return nil, validation("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.")
		}
		for _, o := range st.order {
			if n := o.top(); n == "" || (n != tg.src.pk.name && n != tg.src.sk.name) {
				return nil, validationf("Variable reference %s in ORDER BY clause must be part of the primary key", o.parts[0].name)
			}
		}
		if parts != nil {
			forward = aws.Bool(!st.desc)
		}
	}
	out := &dynamodb.ExecuteStatementOutput{Items: []map[string]types.AttributeValue{}}
	if parts == nil {
		var filter *string
		if st.where != nil {
			s, err := e.cond(st.where)
			if err != nil {
				return nil, err
			}
			filter = &s
		}
		sin := &dynamodb.ScanInput{TableName: &st.table, IndexName: ix, FilterExpression: filter, ProjectionExpression: proj,
			ExpressionAttributeNames: nilIfEmpty(e.names), ExpressionAttributeValues: nilIfEmpty(e.values),
			ConsistentRead: in.ConsistentRead, Limit: in.Limit, ExclusiveStartKey: esk, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
		so, err := db.Scan(ctx, sin)
		if err != nil {
			return nil, err
		}
		out.Items, out.ConsumedCapacity, out.LastEvaluatedKey = so.Items, so.ConsumedCapacity, so.LastEvaluatedKey
		if so.LastEvaluatedKey != nil {
			out.NextToken = encodeToken(0, so.LastEvaluatedKey)
		}
		if nested {
			reshape(out.Items, st.proj)
		}
		return out, nil
	}
	if start >= len(parts) {
		return nil, validation("Invalid NextToken")
	}
	kctx := context.WithValue(ctx, pqKeyFilter{}, true)
	limit := -1
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	for p := start; p < len(parts); p++ {
		ke := newPQEmit()
		for k, v := range e.names {
			ke.names[k], ke.byName[v] = v, k
		}
		key := ke.name(tg.src.pk.name) + " = " + ke.value(parts[p])
		if sortCond != nil {
			s, err := ke.cond(sortCond)
			if err != nil {
				return nil, err
			}
			key += " AND " + s
		}
		var filter *string
		if len(rest) > 0 {
			s, err := ke.cond(andAll(rest))
			if err != nil {
				return nil, err
			}
			filter = &s
		}
		qin := &dynamodb.QueryInput{TableName: &st.table, IndexName: ix, KeyConditionExpression: &key, FilterExpression: filter, ProjectionExpression: proj,
			ExpressionAttributeNames: ke.names, ExpressionAttributeValues: ke.values, ScanIndexForward: forward,
			ConsistentRead: in.ConsistentRead, ExclusiveStartKey: esk, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
		if limit > 0 {
			qin.Limit = aws.Int32(int32(limit))
		}
		qo, err := db.Query(kctx, qin)
		if err != nil {
			return nil, err
		}
		esk = nil
		out.Items = append(out.Items, qo.Items...)
		out.ConsumedCapacity = addCapacity(out.ConsumedCapacity, qo.ConsumedCapacity)
		if limit > 0 {
			limit -= int(qo.ScannedCount)
		}
		if qo.LastEvaluatedKey != nil {
			out.LastEvaluatedKey = qo.LastEvaluatedKey
			out.NextToken = encodeToken(p, qo.LastEvaluatedKey)
			break
		}
		if limit == 0 && p+1 < len(parts) {
			// The limit ends the page between two partitions: the next
			// page starts at the next one.
			out.NextToken = encodeToken(p+1, nil)
			break
		}
	}
	if nested {
		reshape(out.Items, st.proj)
	}
	return out, nil
}

// checkProjection checks a SELECT's paths as DynamoDB does: no two
// overlap, and no two come back under the same name.
func (db *DB) checkProjection(paths []*pqPath) error {
	if len(paths) == 0 {
		return nil
	}
	e := newPQEmit()
	ps := make([]string, len(paths))
	labels := map[string]bool{}
	for i, p := range paths {
		ps[i] = e.path(p)
	}
	for _, p := range paths {
		l := p.label()
		if labels[l] {
			return validationf("Duplicate identifiers in select clause: %s", l)
		}
		labels[l] = true
	}
	full := strings.Join(ps, ", ")
	if _, err := db.parseExprs(exprReq{names: e.names, proj: &full}); err != nil {
		return pqErr(err)
	}
	return nil
}

// dedupValues drops repeated values.
func dedupValues(vs []types.AttributeValue) []types.AttributeValue {
	seen := map[string]bool{}
	out := vs[:0:0]
	for _, v := range vs {
		id := ddbexpr.TypeName(v) + "\x00" + keyEnc(v)
		if !seen[id] {
			seen[id] = true
			out = append(out, v)
		}
	}
	return out
}

// hashCond reports whether every way x can hold has an equality on the
// partition key pk: a conjunct, or each side of an OR.
func hashCond(x pqExpr, pk string) bool {
	for _, c := range conjuncts(x, nil) {
		if n, _, ok := equality(c); ok && n == pk {
			return true
		}
		if b, ok := c.(*pqBin); ok && b.op == "OR" && hashCond(b.l, pk) && hashCond(b.r, pk) {
			return true
		}
	}
	return false
}

// projection is a SELECT's projection: the top-level attributes of its
// paths, and whether any path is nested (see reshape).
func (e *pqEmit) projection(paths []*pqPath) (*string, bool) {
	if len(paths) == 0 {
		return nil, false
	}
	nested := false
	var tops []string
	seen := map[string]bool{}
	for _, p := range paths {
		nested = nested || len(p.parts) > 1
		if n := p.parts[0].name; !seen[n] {
			seen[n] = true
			tops = append(tops, e.name(n))
		}
	}
	return aws.String(strings.Join(tops, ", ")), nested
}

// reshape makes each item the values of a projection's paths, each named
// by its last name and the list indexes after it ("a.c[1]" is "c[1]"), as
// DynamoDB answers a SELECT of nested paths.
func reshape(items []map[string]types.AttributeValue, paths []*pqPath) {
	for i, it := range items {
		out := make(map[string]types.AttributeValue, len(paths))
		for _, p := range paths {
			if v := pathValue(it, p); v != nil {
				out[p.label()] = v
			}
		}
		items[i] = out
	}
}

// label is the name a projected path's value gets.
func (p *pqPath) label() string {
	last := 0
	for i, part := range p.parts {
		if part.index < 0 {
			last = i
		}
	}
	var b strings.Builder
	b.WriteString(p.parts[last].name)
	for _, part := range p.parts[last+1:] {
		b.WriteString("[" + strconv.Itoa(part.index) + "]")
	}
	return b.String()
}

// pathValue is the value at p in it, or nil.
func pathValue(it map[string]types.AttributeValue, p *pqPath) types.AttributeValue {
	v := it[p.parts[0].name]
	for _, part := range p.parts[1:] {
		switch x := v.(type) {
		case *types.AttributeValueMemberM:
			if part.index >= 0 {
				return nil
			}
			v = x.Value[part.name]
		case *types.AttributeValueMemberL:
			if part.index < 0 || part.index >= len(x.Value) {
				return nil
			}
			v = x.Value[part.index]
		default:
			return nil
		}
	}
	return v
}

// checkKeyTypes checks the values a WHERE's equalities give the key
// attributes of the table and of the index read.
func (tg pqTarget) checkKeyTypes(where pqExpr) error {
	if where == nil {
		return nil
	}
	keys := []keyAttr{tg.t.pk, tg.t.sk, tg.src.pk, tg.src.sk}
	for _, c := range conjuncts(where, nil) {
		n, v, ok := equality(c)
		if !ok {
			continue
		}
		if !orderable(&pqLit{v}) {
			continue // not a key's type at all: see checkKeyComparisons
		}
		for _, k := range keys {
			if k.name == n && !keyTypeIs(v, k.typ) {
				return keyTypeErr(n)
			}
		}
	}
	return nil
}

// checkSingleKey refuses a write whose WHERE gives a key attribute two
// values (the same value twice is one key).
func (tg pqTarget) checkSingleKey(where pqExpr) error {
	seen := map[string]types.AttributeValue{}
	for _, c := range conjuncts(where, nil) {
		n, v, ok := equality(c)
		if !ok || (n != tg.t.pk.name && (tg.t.sk.name == "" || n != tg.t.sk.name)) {
			continue
		}
		if prev, dup := seen[n]; dup && !ddbexpr.Equal(prev, v) {
			return validationf("Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported", n)
		}
		seen[n] = v
	}
	return nil
}

// keyAttrs are the key attributes of the table and of the index read.
func (tg pqTarget) keyAttrs() map[string]types.ScalarAttributeType {
	m := map[string]types.ScalarAttributeType{}
	for _, k := range []keyAttr{tg.t.pk, tg.t.sk, tg.src.pk, tg.src.sk} {
		if k.name != "" {
			m[k.name] = k.typ
		}
	}
	return m
}

// checkKeyComparisons checks the values a SELECT compares key attributes
// with anywhere in its WHERE: of the key's type, and not empty.
//
// Only the last condition on each key attribute is checked (see
// keyConds): DynamoDB Local keeps one condition per key attribute for
// its key, the last it reads, and checks only that one's value.
func (tg pqTarget) checkKeyComparisons(x pqExpr) error {
	keys := tg.keyAttrs()
	winner := tg.lastKeyConds(x)
	key := func(x pqExpr) (string, bool) {
		p, ok := x.(*pqPath)
		if !ok || p.top() == "" {
			return "", false
		}
		_, ok = keys[p.top()]
		return p.top(), ok
	}
	var node pqExpr // the condition being checked
	check := func(name string, x pqExpr, ordered bool) error {
		l, ok := x.(*pqLit)
		if !ok || !winner[node] {
			return nil
		}
		if ordered && !keyTypeIs(l.v, types.ScalarAttributeTypeS) && !keyTypeIs(l.v, types.ScalarAttributeTypeN) && !keyTypeIs(l.v, types.ScalarAttributeTypeB) {
			return nil // no operand of an order: the expression's own check
		}
		switch v := l.v.(type) {
		case *types.AttributeValueMemberS:
			if v.Value == "" {
				return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
			}
		case *types.AttributeValueMemberB:
			if len(v.Value) == 0 {
				return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
			}
		}
		if !keyTypeIs(l.v, keys[name]) {
			return validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		return nil
	}
	var walk func(x pqExpr) error
	walk = func(x pqExpr) error {
		node = x
		switch x := x.(type) {
		case *pqBin:
			switch x.op {
			case "AND", "OR":
				if err := walk(x.l); err != nil {
					return err
				}
				return walk(x.r)
			case "=", "<>", "<", "<=", ">", ">=":
				ordered := x.op != "=" && x.op != "<>"
				if n, ok := key(x.l); ok {
					return check(n, x.r, ordered)
				}
				if n, ok := key(x.r); ok {
					return check(n, x.l, ordered)
				}
			}
		case *pqNot:
			return walk(x.x)
		case *pqBetween:
			if n, ok := key(x.x); ok && orderable(x.lo) && orderable(x.hi) && sameLiteralType(x.lo, x.hi) {
				if err := check(n, x.lo, true); err != nil {
					return err
				}
				return check(n, x.hi, true)
			}
		case *pqCall:
			// An empty string searched for in a key attribute.
			if len(x.args) == 2 && (x.name == "contains" || x.name == "begins_with") {
				if n, ok := key(x.args[0]); ok {
					return check(n, x.args[1], false)
				}
			}
		case *pqIn:
			if n, ok := key(x.x); ok {
				for _, v := range x.list {
					if err := check(n, v, false); err != nil {
						return err
					}
				}
			}
		case *pqIs:
			if _, ok := key(x.x); ok && x.what == "NULL" && winner[node] {
				return validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
			}
		}
		return nil
	}
	if x == nil {
		return nil
	}
	return walk(x)
}

// keyConds lists the conditions on each key attribute of the table and
// of the index read in x, in the order of the statement's text:
// comparisons, BETWEEN, IN, begins_with, contains, IS [NOT] NULL and IS
// [NOT] MISSING. top has those outside any OR (under NOT too), ors those
// of each OR outside an OR. DynamoDB Local keeps the last condition on a
// key attribute of each: the key conditions of its plan (top's), and
// those it checks (see lastKeyConds).
func (tg pqTarget) keyConds(x pqExpr) (top map[string][]pqExpr, ors []map[string][]pqExpr) {
	keys := tg.keyAttrs()
	top = map[string][]pqExpr{}
	add := func(m map[string][]pqExpr, c, operand pqExpr) bool {
		p, ok := operand.(*pqPath)
		if !ok || p.top() == "" {
			return false
		}
		if _, ok := keys[p.top()]; !ok {
			return false
		}
		m[p.top()] = append(m[p.top()], c)
		return true
	}
	var walk func(x pqExpr, m map[string][]pqExpr, inOr bool)
	walk = func(x pqExpr, m map[string][]pqExpr, inOr bool) {
		switch x := x.(type) {
		case *pqBin:
			switch x.op {
			case "OR":
				if !inOr {
					m = map[string][]pqExpr{}
					ors = append(ors, m)
				}
				walk(x.l, m, true)
				walk(x.r, m, true)
			case "AND":
				walk(x.l, m, inOr)
				walk(x.r, m, inOr)
			case "=", "<>", "<", "<=", ">", ">=":
				if !add(m, x, x.l) {
					add(m, x, x.r)
				}
			}
		case *pqNot:
			walk(x.x, m, inOr)
		case *pqBetween:
			add(m, x, x.x)
		case *pqIn:
			add(m, x, x.x)
		case *pqIs:
			add(m, x, x.x)
		case *pqCall:
			if len(x.args) == 2 && (x.name == "contains" || x.name == "begins_with") {
				add(m, x, x.args[0])
			}
		}
	}
	if x != nil {
		walk(x, top, false)
	}
	return top, ors
}

// lastKeyConds is the last condition on each key attribute in each of
// keyConds' groups: those DynamoDB Local checks the values of.
func (tg pqTarget) lastKeyConds(x pqExpr) map[pqExpr]bool {
	top, ors := tg.keyConds(x)
	last := map[pqExpr]bool{}
	for _, m := range append(ors, top) {
		for _, cs := range m {
			last[cs[len(cs)-1]] = true
		}
	}
	return last
}

// sameLiteralType reports whether a and b are not both literals, or are
// literals of one type.
func sameLiteralType(a, b pqExpr) bool {
	x, ok1 := a.(*pqLit)
	y, ok2 := b.(*pqLit)
	return !ok1 || !ok2 || ddbexpr.TypeName(x.v) == ddbexpr.TypeName(y.v)
}

// orderable reports whether x is not a literal, or a literal that can be
// ordered: a string, number or binary.
func orderable(x pqExpr) bool {
	l, ok := x.(*pqLit)
	if !ok {
		return true
	}
	switch l.v.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
		return true
	}
	return false
}

// checkQueryKeyTypes checks the values of the key a SELECT reads by, as
// DynamoDB Local plans it from the one condition on each key attribute
// of what it reads (see keyConds): a sort key's condition when the
// partition key's is an equality (its sort key's first), then the
// partition key's. IS NULL there is an equality to NULL. A value of
// another type than the key's is "Key attribute's data type should match
// ..."; everything else is checkKeyComparisons'.
func (tg pqTarget) checkQueryKeyTypes(where pqExpr) error {
	if where == nil {
		return nil
	}
	conds, _ := tg.keyConds(where)
	top := map[pqExpr]bool{}
	for _, c := range conjuncts(where, nil) {
		top[c] = true
	}
	isNull := func(c pqExpr) bool {
		is, ok := c.(*pqIs)
		return ok && is.what == "NULL" && !is.not && top[c]
	}
	// sole is the one top-level condition on name (or its IS NULLs).
	sole := func(name string) pqExpr {
		cs := conds[name]
		if len(cs) == 0 {
			return nil
		}
		for _, c := range cs {
			if !isNull(c) && (len(cs) > 1 || !top[c]) {
				return nil
			}
		}
		return cs[len(cs)-1]
	}
	// mistyped reports whether the condition c on k compares it with a
	// value of another type.
	mistyped := func(c pqExpr, k keyAttr, ranges bool) bool {
		if isNull(c) {
			return true
		}
		if _, v, ok := equality(c); ok {
			return !keyTypeIs(v, k.typ)
		}
		if bt, ok := c.(*pqBetween); ok && ranges {
			lo, ok1 := bt.lo.(*pqLit)
			hi, ok2 := bt.hi.(*pqLit)
			return ok1 && ok2 && orderable(lo) && orderable(hi) && (!keyTypeIs(lo.v, k.typ) || !keyTypeIs(hi.v, k.typ))
		}
		b, ok := c.(*pqBin)
		if !ranges || !ok || b.op == "=" || b.op == "<>" {
			return false
		}
		l, ok := b.r.(*pqLit)
		if !ok {
			l, ok = b.l.(*pqLit)
		}
		return ok && orderable(l) && !keyTypeIs(l.v, k.typ)
	}
	pc := sole(tg.src.pk.name)
	if pc == nil {
		return nil
	}
	if _, _, eq := equality(pc); (eq || isNull(pc)) && tg.src.sk.name != "" {
		if sc := sole(tg.src.sk.name); sc != nil && mistyped(sc, tg.src.sk, true) {
			return keyTypeErr(tg.src.sk.name)
		}
	}
	if mistyped(pc, tg.src.pk, false) {
		return keyTypeErr(tg.src.pk.name)
	}
	return nil
}

func keyTypeIs(v types.AttributeValue, typ types.ScalarAttributeType) bool {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return typ == types.ScalarAttributeTypeS
	case *types.AttributeValueMemberN:
		return typ == types.ScalarAttributeTypeN
	case *types.AttributeValueMemberB:
		return typ == types.ScalarAttributeTypeB
	}
	return false
}

func keyTypeErr(name string) error {
	return validationf("Key attribute's data type should match its data type in table's schema: Key %s", name)
}

// checkInsertKey checks that an INSERT's item has the table's key.
func (tg pqTarget) checkInsertKey(it map[string]types.AttributeValue) error {
	for _, k := range []keyAttr{tg.t.pk, tg.t.sk} {
		if k.name == "" {
			continue
		}
		v, ok := it[k.name]
		if !ok {
			return validationf("Key attribute should be present in the item: Key %s", k.name)
		}
		if !keyTypeIs(v, k.typ) {
			return keyTypeErr(k.name)
		}
	}
	return nil
}

// sortKeyTerm reports whether c can be a Query's condition on the sort
// key sk.
func sortKeyTerm(c pqExpr, sk string) bool {
	isSK := func(x pqExpr) bool { p, ok := x.(*pqPath); return ok && p.top() == sk }
	isLit := func(x pqExpr) bool { _, ok := x.(*pqLit); return ok }
	switch c := c.(type) {
	case *pqBin:
		switch c.op {
		case "=", "<", "<=", ">", ">=":
			return isSK(c.l) && isLit(c.r)
		}
	case *pqBetween:
		return isSK(c.x) && isLit(c.lo) && isLit(c.hi)
	case *pqCall:
		return c.name == "begins_with" && len(c.args) == 2 && isSK(c.args[0]) && isLit(c.args[1])
	}
	return false
}

// nilIfEmpty is m, or nil when m is empty (an expression request's maps
// must not be empty).
func nilIfEmpty[V any](m map[string]V) map[string]V {
	if len(m) == 0 {
		return nil
	}
	return m
}

// addCapacity adds b's units to a.
func addCapacity(a, b *types.ConsumedCapacity) *types.ConsumedCapacity {
	if a == nil || b == nil {
		if a == nil {
			return b
		}
		return a
	}
	sum := func(x, y *float64) *float64 {
		if x == nil && y == nil {
			return nil
		}
		return aws.Float64(aws.ToFloat64(x) + aws.ToFloat64(y))
	}
	a.CapacityUnits = sum(a.CapacityUnits, b.CapacityUnits)
	a.ReadCapacityUnits = sum(a.ReadCapacityUnits, b.ReadCapacityUnits)
	a.WriteCapacityUnits = sum(a.WriteCapacityUnits, b.WriteCapacityUnits)
	if a.Table != nil && b.Table != nil {
		a.Table.CapacityUnits = sum(a.Table.CapacityUnits, b.Table.CapacityUnits)
	}
	for k, v := range b.GlobalSecondaryIndexes {
		if w, ok := a.GlobalSecondaryIndexes[k]; ok {
			w.CapacityUnits = sum(w.CapacityUnits, v.CapacityUnits)
			a.GlobalSecondaryIndexes[k] = w
		}
	}
	for k, v := range b.LocalSecondaryIndexes {
		if w, ok := a.LocalSecondaryIndexes[k]; ok {
			w.CapacityUnits = sum(w.CapacityUnits, v.CapacityUnits)
			a.LocalSecondaryIndexes[k] = w
		}
	}
	return a
}

// pqWriteItem is a write statement as one of TransactWriteItems' actions.
func (db *DB) pqWriteItem(tg pqTarget, st *pqStmt) (types.TransactWriteItem, types.ReturnValue, error) {
	e := newPQEmit()
	switch st.kind {
	case "INSERT":
		if err := tg.checkInsertKey(st.item); err != nil {
			return types.TransactWriteItem{}, "", err
		}
		cond := "attribute_not_exists(" + e.name(tg.t.pk.name) + ")"
		return types.TransactWriteItem{Put: &types.Put{TableName: &st.table, Item: st.item, ConditionExpression: &cond,
			ExpressionAttributeNames: e.names}}, "", nil
	case "UPDATE", "DELETE", "EXISTS":
		if err := tg.checkSingleKey(st.where); err != nil {
			return types.TransactWriteItem{}, "", err
		}
		for _, c := range conjuncts(st.where, nil) {
			if n, v, ok := equality(c); ok && (n == tg.t.pk.name || n == tg.t.sk.name) {
				switch v.(type) {
				case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
				default:
					return types.TransactWriteItem{}, "", validationf("Key value must be of type S, N, or B. Key name: %s, Key type: %s", n, ddbexpr.TypeName(v))
				}
			}
		}
		if err := tg.checkKeyTypes(st.where); err != nil {
			return types.TransactWriteItem{}, "", err
		}
		key, rest, err := tg.itemKey(st.where)
		if err != nil {
			return types.TransactWriteItem{}, "", err
		}
		var cond string
		if st.kind != "DELETE" {
			// UPDATE and EXISTS need the item.
			cond = "attribute_exists(" + e.name(tg.t.pk.name) + ")"
		}
		if rest != nil {
			s, err := e.cond(rest)
			if err != nil {
				return types.TransactWriteItem{}, "", err
			}
			if cond != "" {
				cond += " AND "
			}
			cond += s
		}
		var cp *string
		if cond != "" {
			cp = &cond
		}
		switch st.kind {
		case "DELETE":
			return types.TransactWriteItem{Delete: &types.Delete{TableName: &st.table, Key: key, ConditionExpression: cp,
				ExpressionAttributeNames: nilIfEmpty(e.names), ExpressionAttributeValues: nilIfEmpty(e.values)}}, st.returning, nil
		case "EXISTS":
			return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: &st.table, Key: key, ConditionExpression: cp,
				ExpressionAttributeNames: nilIfEmpty(e.names), ExpressionAttributeValues: nilIfEmpty(e.values)}}, "", nil
		}
		upd, err := e.update(st)
		if err != nil {
			return types.TransactWriteItem{}, "", err
		}
		return types.TransactWriteItem{Update: &types.Update{TableName: &st.table, Key: key, UpdateExpression: &upd, ConditionExpression: cp,
			ExpressionAttributeNames: nilIfEmpty(e.names), ExpressionAttributeValues: nilIfEmpty(e.values)}}, st.returning, nil
	}
	return types.TransactWriteItem{}, "", validationf("%s is not a write statement", st.kind)
}

// update writes an UPDATE's SET and REMOVE clauses as an update
// expression.
func (e *pqEmit) update(st *pqStmt) (string, error) {
	var sets, adds, dels, removes []string
	for _, s := range st.sets {
		if c, ok := s.val.(*pqCall); ok && (c.name == "set_add" || c.name == "set_delete") {
			if len(c.args) != 2 {
				return "", validationf("%s must have exactly two arguments %s", strings.ToUpper(c.name), c.at)
			}
			v, ok := c.args[1].(*pqLit)
			if p, same := c.args[0].(*pqPath); !ok || !same || e.path(p) != e.path(s.path) {
				return "", validationf("%s takes the attribute it sets and a set value", c.name)
			}
			clause := e.path(s.path) + " " + e.value(v.v)
			if c.name == "set_add" {
				adds = append(adds, clause)
			} else {
				dels = append(dels, clause)
			}
			continue
		}
		v, err := e.setValue(s.val)
		if err != nil {
			return "", err
		}
		sets = append(sets, e.path(s.path)+" = "+v)
	}
	for _, p := range st.removes {
		removes = append(removes, e.path(p))
	}
	var b []string
	for _, c := range [...]struct {
		kw   string
		list []string
	}{{"SET", sets}, {"ADD", adds}, {"DELETE", dels}, {"REMOVE", removes}} {
		if len(c.list) > 0 {
			b = append(b, c.kw+" "+strings.Join(c.list, ", "))
		}
	}
	return strings.Join(b, " "), nil
}

// checkParams checks a statement's parameters as attribute values.
func checkParams(ps []types.AttributeValue) error {
	for _, p := range ps {
		if err := checkValue(p); err != nil {
			return err
		}
	}
	return nil
}

// pqErr words an error of the operation a statement ran as DynamoDB
// words it for the statement: without the name of the expression the
// engine made.
func pqErr(err error) error {
	var ae *smithy.GenericAPIError
	if errors.As(err, &ae) && ae.Code == ValidationException {
		for _, p := range [...]string{"Invalid UpdateExpression: ", "Invalid ConditionExpression: ", "Invalid FilterExpression: ", "Invalid KeyConditionExpression: ", "Invalid ProjectionExpression: "} {
			if m, ok := strings.CutPrefix(ae.Message, p); ok {
				return validation(m)
			}
		}
	}
	return err
}

// pqWrite runs one write statement; it returns what RETURNING asked for.
func (db *DB) pqWrite(ctx context.Context, tg pqTarget, st *pqStmt, rcc types.ReturnConsumedCapacity, onFail types.ReturnValuesOnConditionCheckFailure) (map[string]types.AttributeValue, *types.ConsumedCapacity, error) {
	w, rv, err := db.pqWriteItem(tg, st)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case w.Put != nil:
		p := w.Put
		o, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression,
			ExpressionAttributeNames: p.ExpressionAttributeNames, ReturnConsumedCapacity: rcc, ReturnValuesOnConditionCheckFailure: onFail})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && onFail != types.ReturnValuesOnConditionCheckFailureAllOld {
			// With ALL_OLD, DynamoDB Local answers the condition's
			// failure with the item instead.
			return nil, nil, duplicateItem()
		}
		if err != nil {
			return nil, nil, err
		}
		return nil, o.ConsumedCapacity, nil
	case w.Update != nil:
		u := w.Update
		// MODIFIED OLD and NEW return the whole top-level attributes the
		// update changes, as DynamoDB Local answers (UpdateItem's
		// UPDATED_OLD and UPDATED_NEW return only the paths).
		all := rv
		switch rv {
		case types.ReturnValueUpdatedOld:
			all = types.ReturnValueAllOld
		case types.ReturnValueUpdatedNew:
			all = types.ReturnValueAllNew
		}
		o, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
			ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
			ReturnValues: all, ReturnConsumedCapacity: rcc, ReturnValuesOnConditionCheckFailure: onFail})
		if err != nil && isKeyUpdate(err) {
			// DynamoDB Local reads the item before it looks at what an
			// UPDATE writes: a statement whose item is missing, or fails
			// its WHERE, fails its condition whatever it sets.
			if cerr := db.pqCheck(ctx, tg, st, onFail); cerr != nil {
				err = cerr
			}
		}
		if err != nil {
			return nil, nil, err
		}
		attrs := o.Attributes
		if all != rv {
			// The attributes one of whose changed paths is in the image.
			attrs = map[string]types.AttributeValue{}
			for _, p := range st.changed() {
				if pathValue(o.Attributes, p) != nil {
					attrs[p.parts[0].name] = o.Attributes[p.parts[0].name]
				}
			}
		}
		return attrs, o.ConsumedCapacity, nil
	case w.Delete != nil:
		d := w.Delete
		o, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
			ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
			ReturnValues: rv, ReturnConsumedCapacity: rcc, ReturnValuesOnConditionCheckFailure: onFail})
		if err != nil {
			return nil, nil, err
		}
		return o.Attributes, o.ConsumedCapacity, nil
	}
	return nil, nil, errExistsOutside
}

// pqCheck evaluates the condition of a statement that needs its item
// (an UPDATE's existence and WHERE) without writing: the error of a
// failed condition, or nil.
func (db *DB) pqCheck(ctx context.Context, tg pqTarget, st *pqStmt, onFail types.ReturnValuesOnConditionCheckFailure) error {
	c := *st
	c.kind = "EXISTS"
	w, _, err := db.pqWriteItem(tg, &c)
	if err != nil || w.ConditionCheck == nil {
		return nil
	}
	w.ConditionCheck.ReturnValuesOnConditionCheckFailure = onFail
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{w}})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) && len(tc.CancellationReasons) == 1 && aws.ToString(tc.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return conditionFailed(tc.CancellationReasons[0].Item, onFail)
	}
	return nil
}

// changed lists the paths an UPDATE sets or removes.
func (st *pqStmt) changed() []*pqPath {
	var out []*pqPath
	for _, s := range st.sets {
		out = append(out, s.path)
	}
	return append(out, st.removes...)
}

func duplicateItem() error {
	return &types.DuplicateItemException{Message: aws.String("Duplicate primary key exists in table")}
}

// pqGet is a SELECT of one item by its full key, as batches and
// transactions read: the table, key and projection of a GetItem. bad is
// the error for any other SELECT.
func (db *DB) pqGet(tg pqTarget, st *pqStmt, bad error) (*types.Get, error) {
	if err := tg.checkKeyTypes(st.where); err != nil {
		return nil, err
	}
	if err := db.checkProjection(st.proj); err != nil {
		return nil, err
	}
	if st.index != "" {
		return nil, bad
	}
	key, rest, err := tg.itemKey(st.where)
	if err != nil || rest != nil {
		return nil, bad
	}
	g := &types.Get{TableName: &st.table, Key: key}
	e := newPQEmit()
	g.ProjectionExpression, _ = e.projection(st.proj)
	g.ExpressionAttributeNames = nilIfEmpty(e.names)
	return g, nil
}

// pqReshape applies a SELECT's nested projection to one item.
func pqReshape(it map[string]types.AttributeValue, st *pqStmt) map[string]types.AttributeValue {
	for _, p := range st.proj {
		if len(p.parts) > 1 {
			items := []map[string]types.AttributeValue{it}
			reshape(items, st.proj)
			return items[0]
		}
	}
	return it
}

// errExistsOutside is DynamoDB's answer to EXISTS outside a transaction.
var errExistsOutside = validation("EXISTS can only be used in ExecuteTransaction write requests.")

// BatchExecuteStatement runs up to 25 PartiQL statements, each on its own:
// all reads of one item by its key, or all writes. Each statement's
// failure is its response's Error.
func (db *DB) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	if err := db.begin(ctx, "BatchExecuteStatement"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.BatchExecuteStatementInput{}
	}
	if len(in.Statements) == 0 {
		return nil, validation("The statement was empty.")
	}
	type parsed struct {
		st  *pqStmt
		tg  pqTarget
		err error
	}
	ps := make([]parsed, len(in.Statements))
	reads, writes := 0, 0
	for i, s := range in.Statements {
		p := &ps[i]
		if p.st, p.err = parsePartiQL(aws.ToString(s.Statement), s.Parameters); p.err != nil {
			continue
		}
		switch p.st.kind {
		case "SELECT":
			reads++
		case "EXISTS":
			p.err = errExistsOutside
			continue
		default:
			writes++
		}
		p.tg, p.err = db.pqTarget(p.st)
	}
	switch {
	case reads > 0 && writes > 0:
		return nil, validation("Read and write requests together in the same batch is not supported.")
	case reads > 25:
		return nil, validation("BatchGetItem cannot fetch more than 25 items")
	case writes > 25:
		return nil, validation("BatchWriteItem cannot write more than 25 items")
	}
	// Each statement's item, checked up front: a batch names an item once.
	gets := make([]*types.Get, len(ps))
	seen := map[string]bool{}
	for i := range ps {
		p := &ps[i]
		if p.err != nil {
			continue
		}
		var key map[string]types.AttributeValue
		if p.st.kind == "SELECT" {
			if gets[i], p.err = db.pqGet(p.tg, p.st, validation("Only single item select is supported")); p.err != nil {
				continue
			}
			key = gets[i].Key
		} else if p.st.kind == "INSERT" {
			key = map[string]types.AttributeValue{p.tg.t.pk.name: p.st.item[p.tg.t.pk.name]}
			if p.tg.t.sk.name != "" {
				key[p.tg.t.sk.name] = p.st.item[p.tg.t.sk.name]
			}
		} else if key, _, p.err = p.tg.itemKey(p.st.where); p.err != nil {
			continue
		}
		kid, _ := keyID(key)
		id := p.tg.t.name + "\x00" + kid
		if seen[id] {
			return nil, validation("Provided list of item keys contains duplicates")
		}
		seen[id] = true
	}
	out := &dynamodb.BatchExecuteStatementOutput{Responses: make([]types.BatchStatementResponse, len(ps))}
	for i, p := range ps {
		r := &out.Responses[i]
		err := p.err
		if err == nil {
			var item map[string]types.AttributeValue
			var cc *types.ConsumedCapacity
			if g := gets[i]; g != nil {
				var o *dynamodb.GetItemOutput
				o, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: g.TableName, Key: g.Key, ProjectionExpression: g.ProjectionExpression,
					ExpressionAttributeNames: g.ExpressionAttributeNames, ConsistentRead: in.Statements[i].ConsistentRead, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
				if err == nil {
					item, cc = pqReshape(o.Item, p.st), o.ConsumedCapacity
				}
			} else {
				item, cc, err = db.pqWrite(ctx, p.tg, p.st, in.ReturnConsumedCapacity, in.Statements[i].ReturnValuesOnConditionCheckFailure)
				err = pqErr(err)
			}
			if cc != nil {
				out.ConsumedCapacity = mergeCapacity(out.ConsumedCapacity, cc)
			}
			if err == nil {
				r.TableName = aws.String(p.st.table)
				if len(item) > 0 {
					r.Item = item
				}
				continue
			}
		}
		r.Error = batchError(err)
		if r.Error.Code == types.BatchStatementErrorCodeEnumConditionalCheckFailed || r.Error.Code == types.BatchStatementErrorCodeEnumDuplicateItem {
			r.TableName = aws.String(p.st.table)
		}
	}
	return out, nil
}

// mergeCapacity adds c to the per-table list.
func mergeCapacity(list []types.ConsumedCapacity, c *types.ConsumedCapacity) []types.ConsumedCapacity {
	for i := range list {
		if aws.ToString(list[i].TableName) == aws.ToString(c.TableName) {
			addCapacity(&list[i], c)
			return list
		}
	}
	return append(list, *c)
}

// batchError is a statement's error as a batch response's Error.
func batchError(err error) *types.BatchStatementError {
	e := &types.BatchStatementError{Message: aws.String(err.Error())}
	var ccf *types.ConditionalCheckFailedException
	var dup *types.DuplicateItemException
	var rnf *types.ResourceNotFoundException
	var api interface{ ErrorMessage() string }
	if errors.As(err, &api) {
		e.Message = aws.String(api.ErrorMessage())
	}
	switch {
	case errors.As(err, &ccf):
		e.Code = types.BatchStatementErrorCodeEnumConditionalCheckFailed
		e.Item = ccf.Item
	case errors.As(err, &dup):
		e.Code = types.BatchStatementErrorCodeEnumDuplicateItem
	case errors.As(err, &rnf):
		e.Code = types.BatchStatementErrorCodeEnumResourceNotFound
	default:
		e.Code = types.BatchStatementErrorCodeEnumValidationError
	}
	return e
}

// ExecuteTransaction runs up to 100 PartiQL statements as one transaction:
// all reads of items by their keys (TransactGetItems), or all writes and
// EXISTS checks (TransactWriteItems).
func (db *DB) ExecuteTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error) {
	if err := db.begin(ctx, "ExecuteTransaction"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.ExecuteTransactionInput{}
	}
	switch n := len(in.TransactStatements); {
	case n == 0:
		return nil, validation("ExecutePartiQLTransaction can not have empty statement.")
	case n > 100:
		return nil, validation("1 validation error detected: Value at 'transactStatements' failed to satisfy constraint: Member must have length less than or equal to 100")
	}
	at := func(i int, err error) error {
		var api interface{ ErrorCode() string }
		if errors.As(err, &api) && api.ErrorCode() == ValidationException {
			return validationf("Validation failed in TransactStatements[%d]: %s", i, err.(interface{ ErrorMessage() string }).ErrorMessage())
		}
		return err
	}
	sts := make([]*pqStmt, len(in.TransactStatements))
	tgs := make([]pqTarget, len(sts))
	reads, writes := 0, 0
	for i, s := range in.TransactStatements {
		st, err := parseStatement(aws.ToString(s.Statement), s.Parameters)
		var se *errPQSyntax
		switch {
		case errors.As(err, &se):
			return nil, validation("Statement wasn't well formed, can't be processed: " + aws.ToString(s.Statement))
		case err != nil && strings.HasPrefix(err.Error(), "api error ValidationException: Number of parameters"):
			return nil, at(i, err)
		case err != nil:
			return nil, err
		}
		if st.kind == "SELECT" {
			reads++
		} else {
			writes++
		}
		sts[i] = st
	}
	if reads > 0 && writes > 0 {
		return nil, validation("ExecuteTransaction API does not support both read and write operations in the same request.")
	}
	for i, st := range sts {
		tg, err := db.pqTarget(st)
		var rnf *types.ResourceNotFoundException
		if errors.As(err, &rnf) {
			return nil, notFound()
		}
		if err != nil {
			return nil, err
		}
		tgs[i] = tg
	}
	if reads > 0 {
		gets := make([]types.TransactGetItem, len(sts))
		for i, st := range sts {
			g, err := db.pqGet(tgs[i], st, validation("Select statements within ExecuteTransaction must specify the primary key in the where clause."))
			if err != nil {
				return nil, at(i, err)
			}
			gets[i] = types.TransactGetItem{Get: g}
		}
		o, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		if err != nil {
			return nil, err
		}
		for i := range o.Responses {
			o.Responses[i].Item = pqReshape(o.Responses[i].Item, sts[i])
		}
		return &dynamodb.ExecuteTransactionOutput{Responses: o.Responses, ConsumedCapacity: o.ConsumedCapacity}, nil
	}
	writesIn := make([]types.TransactWriteItem, len(sts))
	for i, st := range sts {
		if st.kind == "EXISTS" {
			if _, rest, err := tgs[i].itemKey(st.where); err == nil && rest == nil {
				return nil, at(i, validation("EXISTS() must contain a single item read with additional condition"))
			}
		}
		w, _, err := db.pqWriteItem(tgs[i], st)
		if err != nil {
			msg := err.(interface{ ErrorMessage() string }).ErrorMessage()
			if strings.HasPrefix(msg, "Where clause does not contain") {
				// DynamoDB Local's answer, reasons left out.
				return nil, &types.TransactionCanceledException{Message: aws.String("ValidationError " + msg)}
			}
			// The statement's own failure cancels the transaction.
			reasons := make([]types.CancellationReason, len(sts))
			for j := range reasons {
				reasons[j].Code = aws.String("None")
			}
			reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(msg)}
			return nil, cancelled(reasons)
		}
		if st.returning != "" {
			return nil, at(i, validation("RETURNING is not supported in a transaction"))
		}
		rv := in.TransactStatements[i].ReturnValuesOnConditionCheckFailure
		switch {
		case w.Update != nil:
			w.Update.ReturnValuesOnConditionCheckFailure = rv
		case w.Delete != nil:
			w.Delete.ReturnValuesOnConditionCheckFailure = rv
		case w.ConditionCheck != nil:
			w.ConditionCheck.ReturnValuesOnConditionCheckFailure = rv
		}
		writesIn[i] = w
	}
	o, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writesIn, ClientRequestToken: in.ClientRequestToken, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
	if err != nil {
		var ipm *types.IdempotentParameterMismatchException
		if errors.As(err, &ipm) {
			return nil, &types.IdempotentParameterMismatchException{Message: aws.String("Specified idempotent token was used with different request parameters within the idempotency window")}
		}
		var tce *types.TransactionCanceledException
		if errors.As(err, &tce) {
			// An INSERT whose item exists is a ValidationError, as
			// DynamoDB Local answers, unless ALL_OLD was asked for.
			for i, r := range tce.CancellationReasons {
				if writesIn[i].Put != nil && aws.ToString(r.Code) == "ConditionalCheckFailed" && in.TransactStatements[i].ReturnValuesOnConditionCheckFailure != types.ReturnValuesOnConditionCheckFailureAllOld {
					tce.CancellationReasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String("Duplicate primary key exists in table")}
				}
			}
			codes := make([]string, len(tce.CancellationReasons))
			for i, r := range tce.CancellationReasons {
				codes[i] = aws.ToString(r.Code)
			}
			tce.Message = aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]")
		}
		return nil, err
	}
	return &dynamodb.ExecuteTransactionOutput{Responses: []types.ItemResponse{}, ConsumedCapacity: o.ConsumedCapacity}, nil
}
