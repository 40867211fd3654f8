package ddbmem

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// The legacy (pre-expression) parameters are translated into the
// equivalent expressions, with DynamoDB's validation first: Expected and
// ConditionalOperator become a ConditionExpression, AttributeUpdates an
// UpdateExpression, KeyConditions a KeyConditionExpression, QueryFilter and
// ScanFilter a FilterExpression, AttributesToGet a ProjectionExpression.
// Every attribute name and value gets its own placeholder (#l0, :l0, ...),
// so names with dots or reserved words stay literal names, as they are in
// the legacy parameters. A request mixing legacy and expression parameters
// is a ValidationException, as in DynamoDB. The messages are DynamoDB
// Local's.

// legacyExpr accumulates the placeholders of translated expressions.
type legacyExpr struct {
	names  map[string]string
	values map[string]types.AttributeValue
	byName map[string]string
	n      int
}

// seed starts from a request's own placeholders (a Query may combine
// KeyConditions with a FilterExpression); new placeholders avoid them.
func (l *legacyExpr) seed(names map[string]string, values map[string]types.AttributeValue) {
	if names != nil {
		l.names = make(map[string]string, len(names)+2)
		for k, v := range names {
			l.names[k] = v
		}
	}
	if values != nil {
		l.values = make(map[string]types.AttributeValue, len(values)+2)
		for k, v := range values {
			l.values[k] = v
		}
	}
}

func (l *legacyExpr) fresh(prefix string, taken func(string) bool) string {
	for {
		p := prefix + strconv.Itoa(l.n)
		l.n++
		if !taken(p) {
			return p
		}
	}
}

func (l *legacyExpr) name(n string) string {
	if p, ok := l.byName[n]; ok {
		return p
	}
	if l.names == nil {
		l.names = map[string]string{}
	}
	if l.byName == nil {
		l.byName = map[string]string{}
	}
	p := l.fresh("#l", func(p string) bool { _, ok := l.names[p]; return ok })
	l.names[p] = n
	l.byName[n] = p
	return p
}

func (l *legacyExpr) value(v types.AttributeValue) string {
	if l.values == nil {
		l.values = map[string]types.AttributeValue{}
	}
	p := l.fresh(":l", func(p string) bool { _, ok := l.values[p]; return ok })
	l.values[p] = v
	return p
}

// mixed checks that a request sets legacy or expression parameters, not
// both, and that placeholders come only with expressions. nullExprs names
// the expression parameters in DynamoDB's "... is null" message. The
// parameters are listed in the order given, DynamoDB's (dynalite's suite
// records it; DynamoDB Local sorts them).
func mixed(legacy, exprs []param, names map[string]string, values map[string]types.AttributeValue, nullExprs string) error {
	nonExpr, expr := setParams(legacy), setParams(exprs)
	if len(nonExpr) > 0 && len(expr) > 0 {
		return validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
			strings.Join(nonExpr, ", "), strings.Join(expr, ", "))
	}
	if len(nonExpr) > 0 {
		if names != nil {
			return validation("ExpressionAttributeNames can only be specified when using expressions")
		}
		if values != nil {
			return validation("ExpressionAttributeValues can only be specified when using expressions: " + nullExprs)
		}
	}
	return nil
}

// exprParams is DynamoDB's first check of a write's parameters, before
// its key or item: legacy and expression parameters are not mixed, and
// placeholders come with an expression (nullExprs names the expression
// parameters in the message).
func exprParams(legacy, exprs []param, names map[string]string, values map[string]types.AttributeValue, nullExprs string) error {
	if err := mixed(legacy, exprs, nil, nil, ""); err != nil {
		return err
	}
	if len(setParams(exprs)) > 0 {
		return nil
	}
	if names != nil {
		return validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	if values != nil {
		return validation("ExpressionAttributeValues can only be specified when using expressions: " + nullExprs)
	}
	return nil
}

// conditionParams is exprParams for a write whose condition is Expected
// and ConditionalOperator, or a ConditionExpression.
func conditionParams(expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator, condExpr *string, names map[string]string, values map[string]types.AttributeValue) error {
	return exprParams(conditionLegacy(expected, op), []param{{"ConditionExpression", condExpr != nil}}, names, values, "ConditionExpression is null")
}

// conditionLegacy are the legacy parameters of a write's condition.
func conditionLegacy(expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator) []param {
	return []param{{"Expected", expected != nil}, {"ConditionalOperator", op != ""}}
}

// setParams returns the names of the parameters that are set, in order.
func setParams(ps []param) []string {
	var names []string
	for _, p := range ps {
		if p.set {
			names = append(names, p.name)
		}
	}
	return names
}

// argCount is the number of values each comparison operator takes (-1:
// one or more).
var argCount = map[types.ComparisonOperator]int{
	types.ComparisonOperatorEq: 1, types.ComparisonOperatorNe: 1, types.ComparisonOperatorLe: 1,
	types.ComparisonOperatorLt: 1, types.ComparisonOperatorGe: 1, types.ComparisonOperatorGt: 1,
	types.ComparisonOperatorNotNull: 0, types.ComparisonOperatorNull: 0,
	types.ComparisonOperatorContains: 1, types.ComparisonOperatorNotContains: 1,
	types.ComparisonOperatorBeginsWith: 1, types.ComparisonOperatorIn: -1, types.ComparisonOperatorBetween: 2,
}

// checkCondition validates a legacy comparison's operator and values.
func checkCondition(op types.ComparisonOperator, list []types.AttributeValue) error {
	n, ok := argCount[op]
	if !ok {
		return validation("Comparison type does not exist in DynamoDB")
	}
	// The values first, then their number, as DynamoDB checks them.
	for _, v := range list {
		if err := checkValue(v); err != nil {
			return err
		}
	}
	if (n >= 0 && len(list) != n) || (n < 0 && len(list) == 0) {
		return validationf("One or more parameter values were invalid: Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	// Each value in turn: its type, then that it is the first's type
	// (IN and BETWEEN), as DynamoDB Local checks them.
	for i, v := range list {
		typ := ddbexpr.TypeName(v)
		scalar := typ == "S" || typ == "N" || typ == "B"
		valid := true
		switch op {
		case types.ComparisonOperatorLe, types.ComparisonOperatorLt, types.ComparisonOperatorGe, types.ComparisonOperatorGt,
			types.ComparisonOperatorIn, types.ComparisonOperatorBetween:
			valid = scalar
		case types.ComparisonOperatorContains, types.ComparisonOperatorNotContains:
			// The value sought "cannot be a set, a map, or a list"
			// (API_Condition.html); BOOL and NULL are taken, as
			// DynamoDB Local takes them.
			valid = typ != "SS" && typ != "NS" && typ != "BS" && typ != "M" && typ != "L"
		case types.ComparisonOperatorBeginsWith:
			valid = typ == "S" || typ == "B"
		}
		if !valid {
			return validationf("One or more parameter values were invalid: ComparisonOperator %s is not valid for %s AttributeValue type", op, typ)
		}
		if i > 0 && (op == types.ComparisonOperatorIn || op == types.ComparisonOperatorBetween) && typ != ddbexpr.TypeName(list[0]) {
			return validation("One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type")
		}
	}
	if op == types.ComparisonOperatorBetween {
		if c, ok := ddbexpr.Compare(list[0], list[1]); ok && c > 0 {
			return validation("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	return nil
}

// comparison returns the expression of a validated legacy comparison.
func (l *legacyExpr) comparison(attr string, op types.ComparisonOperator, list []types.AttributeValue) string {
	n := l.name(attr)
	switch op {
	case types.ComparisonOperatorEq:
		return n + " = " + l.value(list[0])
	case types.ComparisonOperatorNe:
		return n + " <> " + l.value(list[0])
	case types.ComparisonOperatorLe:
		return n + " <= " + l.value(list[0])
	case types.ComparisonOperatorLt:
		return n + " < " + l.value(list[0])
	case types.ComparisonOperatorGe:
		return n + " >= " + l.value(list[0])
	case types.ComparisonOperatorGt:
		return n + " > " + l.value(list[0])
	case types.ComparisonOperatorNotNull:
		return "attribute_exists(" + n + ")"
	case types.ComparisonOperatorNull:
		return "attribute_not_exists(" + n + ")"
	case types.ComparisonOperatorContains:
		return "contains(" + n + ", " + l.value(list[0]) + ")"
	case types.ComparisonOperatorNotContains:
		// A missing attribute does not match: NOT_CONTAINS checks the
		// content of the attribute, as DynamoDB does (see legacyCases).
		return "attribute_exists(" + n + ") AND NOT contains(" + n + ", " + l.value(list[0]) + ")"
	case types.ComparisonOperatorBeginsWith:
		return "begins_with(" + n + ", " + l.value(list[0]) + ")"
	case types.ComparisonOperatorBetween:
		return n + " BETWEEN " + l.value(list[0]) + " AND " + l.value(list[1])
	}
	// IN
	vs := make([]string, len(list))
	for i, v := range list {
		vs[i] = l.value(v)
	}
	return n + " IN (" + strings.Join(vs, ", ") + ")"
}

func sortedNames[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// joinConditions joins conditions with the ConditionalOperator (AND by
// default).
func joinConditions(terms []string, op types.ConditionalOperator) (string, error) {
	switch op {
	case "", types.ConditionalOperatorAnd:
		op = types.ConditionalOperatorAnd
	case types.ConditionalOperatorOr:
	default:
		return "", validationf("1 validation error detected: Value '%s' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]", op)
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	for i, t := range terms {
		terms[i] = "(" + t + ")"
	}
	return strings.Join(terms, " "+string(op)+" "), nil
}

// checkConditionalOperator rejects a ConditionalOperator that joins
// fewer than two conditions, as DynamoDB does.
func checkConditionalOperator(op types.ConditionalOperator, n int) error {
	switch {
	case op == "":
		return nil
	case n == 0:
		return validation("ConditionalOperator cannot be used without Filter or Expected")
	case n == 1:
		return validation("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	return nil
}

// filter translates a QueryFilter, ScanFilter (or, with expected, the
// Expected map) into a condition. An empty map is no condition.
func (l *legacyExpr) filter(conds map[string]types.Condition, op types.ConditionalOperator) (*string, error) {
	var terms []string
	for _, a := range sortedNames(conds) {
		c := conds[a]
		if err := checkCondition(c.ComparisonOperator, c.AttributeValueList); err != nil {
			return nil, err
		}
		terms = append(terms, l.comparison(a, c.ComparisonOperator, c.AttributeValueList))
	}
	// The conditions first, then their number, as DynamoDB Local
	// checks them.
	if err := checkConditionalOperator(op, len(conds)); err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return nil, nil
	}
	s, err := joinConditions(terms, op)
	return &s, err
}

// expected translates Expected and ConditionalOperator.
func (l *legacyExpr) expected(exp map[string]types.ExpectedAttributeValue, op types.ConditionalOperator) (*string, error) {
	var terms []string
	for _, a := range sortedNames(exp) {
		e := exp[a]
		// In DynamoDB Local's order: Exists with ComparisonOperator
		// before Value with AttributeValueList (dynalite's suite records
		// each alone).
		if e.ComparisonOperator != "" && e.Exists != nil {
			return nil, validationf("One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: %s", a)
		}
		if e.Value != nil && e.AttributeValueList != nil {
			return nil, validationf("One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: %s", a)
		}
		if e.ComparisonOperator != "" {
			list := e.AttributeValueList
			if e.Value != nil {
				list = []types.AttributeValue{e.Value}
			}
			// An empty AttributeValueList is a list of the wrong length.
			if list == nil && argCount[e.ComparisonOperator] != 0 {
				if _, known := argCount[e.ComparisonOperator]; known {
					return nil, validationf("One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", e.ComparisonOperator, a)
				}
			}
			if err := checkCondition(e.ComparisonOperator, list); err != nil {
				return nil, err
			}
			terms = append(terms, l.comparison(a, e.ComparisonOperator, list))
			continue
		}
		if e.AttributeValueList != nil {
			return nil, validationf("One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", a)
		}
		switch {
		case e.Exists == nil || *e.Exists:
			if e.Value == nil {
				state := "null"
				if e.Exists != nil {
					state = "true"
				}
				return nil, validationf("One or more parameter values were invalid: Value must be provided when Exists is %s for Attribute: %s", state, a)
			}
			if err := checkValue(e.Value); err != nil {
				return nil, err
			}
			terms = append(terms, l.comparison(a, types.ComparisonOperatorEq, []types.AttributeValue{e.Value}))
		default:
			if e.Value != nil {
				return nil, validationf("One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: %s", a)
			}
			terms = append(terms, l.comparison(a, types.ComparisonOperatorNull, nil))
		}
	}
	// The conditions first, then their number, as DynamoDB Local
	// checks them.
	if err := checkConditionalOperator(op, len(exp)); err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return nil, nil
	}
	s, err := joinConditions(terms, op)
	return &s, err
}

// projection translates AttributesToGet.
// duplicateAttributes reports a name AttributesToGet lists twice, in
// DynamoDB's words (dynalite's suite records them); DynamoDB Local says
// "Cannot have two attributes with the same name".
func duplicateAttributes(attrs []string) error {
	seen := make(map[string]bool, len(attrs))
	for _, a := range attrs {
		if seen[a] {
			return validation("One or more parameter values were invalid: Duplicate value in attribute name: " + a)
		}
		seen[a] = true
	}
	return nil
}

func (l *legacyExpr) projection(attrs []string) (*string, error) {
	if attrs == nil {
		return nil, nil
	}
	if len(attrs) == 0 {
		return nil, validation("AttributesToGet cannot be empty")
	}
	if err := duplicateAttributes(attrs); err != nil {
		return nil, err
	}
	ps := make([]string, len(attrs))
	for i, a := range attrs {
		ps[i] = l.name(a)
	}
	s := strings.Join(ps, ", ")
	return &s, nil
}

// checkAttributesToGet rejects AttributesToGet with a Select other than
// SPECIFIC_ATTRIBUTES.
func checkAttributesToGet(attrs []string, sel types.Select) error {
	if attrs == nil {
		return nil
	}
	switch sel {
	case types.SelectAllAttributes:
		return validation("Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES")
	case types.SelectCount:
		return validation("Cannot specify the AttributesToGet when choosing to get only the Count")
	case types.SelectAllProjectedAttributes:
		return validation("Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES")
	}
	return nil
}

// updates translates AttributeUpdates. An empty map is no update. With
// the table, isKey tells its key attributes, whose update DynamoDB Local
// refuses before it checks the update's action and value.
func (l *legacyExpr) updates(u map[string]types.AttributeValueUpdate, isKey func(string) bool) (*string, error) {
	var set, remove, add, del []string
	for _, a := range sortedNames(u) {
		au := u[a]
		if isKey != nil && isKey(a) {
			return nil, keyUpdateError(a)
		}
		if au.Value == nil && au.Action != types.AttributeActionDelete {
			switch au.Action {
			case "", types.AttributeActionPut, types.AttributeActionAdd:
				return nil, validation("One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified")
			}
		}
		if au.Value != nil {
			if err := checkValue(au.Value); err != nil {
				return nil, err
			}
		}
		typ := ddbexpr.TypeName(au.Value)
		switch au.Action {
		case "", types.AttributeActionPut:
			set = append(set, l.name(a)+" = "+l.value(au.Value))
		case types.AttributeActionDelete:
			switch {
			case au.Value == nil:
				remove = append(remove, l.name(a))
			case typ == "SS" || typ == "NS" || typ == "BS":
				del = append(del, l.name(a)+" "+l.value(au.Value))
			default:
				// DynamoDB names the type as the wire does (dynalite's
				// suite records it); DynamoDB Local says STRING, MAP, ...
				return nil, validationf("One or more parameter values were invalid: DELETE action with value is not supported for the type %s", typ)
			}
		case types.AttributeActionAdd:
			switch typ {
			case "N", "SS", "NS", "BS":
				add = append(add, l.name(a)+" "+l.value(au.Value))
			case "L":
				n := l.name(a)
				set = append(set, n+" = list_append(if_not_exists("+n+", "+l.value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}})+"), "+l.value(au.Value)+")")
			default:
				return nil, validationf("One or more parameter values were invalid: ADD action is not supported for the type %s", typ)
			}
		default:
			return nil, validation("Member must satisfy enum value set: [ADD, DELETE, PUT]")
		}
	}
	var clauses []string
	for _, c := range []struct {
		kw    string
		parts []string
	}{{"SET", set}, {"REMOVE", remove}, {"ADD", add}, {"DELETE", del}} {
		if len(c.parts) > 0 {
			clauses = append(clauses, c.kw+" "+strings.Join(c.parts, ", "))
		}
	}
	if len(clauses) == 0 {
		return nil, nil
	}
	s := strings.Join(clauses, " ")
	return &s, nil
}

// ---------------------------------------------------------------------------
// Per operation: each returns the request itself when it has no legacy
// parameter, else a translated copy.

func legacyPut(in *dynamodb.PutItemInput) (*dynamodb.PutItemInput, error) {
	if in.Expected == nil && in.ConditionalOperator == "" {
		return in, nil
	}
	c := *in
	if err := legacyConditionOf(&c.Expected, &c.ConditionalOperator, &c.ConditionExpression, &c.ExpressionAttributeNames, &c.ExpressionAttributeValues); err != nil {
		return nil, err
	}
	return &c, nil
}

func legacyDelete(in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemInput, error) {
	if in.Expected == nil && in.ConditionalOperator == "" {
		return in, nil
	}
	c := *in
	if err := legacyConditionOf(&c.Expected, &c.ConditionalOperator, &c.ConditionExpression, &c.ExpressionAttributeNames, &c.ExpressionAttributeValues); err != nil {
		return nil, err
	}
	return &c, nil
}

// legacyConditionOf replaces, in the fields of a request copy it points
// at, Expected and ConditionalOperator by the ConditionExpression, names
// and values [legacyCondition] translates them into.
func legacyConditionOf(expected *map[string]types.ExpectedAttributeValue, op *types.ConditionalOperator, condExpr **string, names *map[string]string, values *map[string]types.AttributeValue) error {
	cond, n, v, err := legacyCondition(*expected, *op, *condExpr, *names, *values)
	if err != nil {
		return err
	}
	*expected, *op = nil, ""
	*condExpr, *names, *values = cond, n, v
	return nil
}

// legacyCondition translates the Expected and ConditionalOperator of a
// PutItem or DeleteItem into a ConditionExpression with its names and
// values, after checking they are not mixed with expressions.
func legacyCondition(expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator, condExpr *string, names map[string]string, values map[string]types.AttributeValue) (*string, map[string]string, map[string]types.AttributeValue, error) {
	if err := mixed(conditionLegacy(expected, op),
		[]param{{"ConditionExpression", condExpr != nil}},
		names, values, "ConditionExpression is null"); err != nil {
		return nil, nil, nil, err
	}
	var l legacyExpr
	cond, err := l.expected(expected, op)
	if err != nil {
		return nil, nil, nil, err
	}
	return cond, l.names, l.values, nil
}

// legacyUpdate translates an UpdateItem's legacy parameters; isKey, nil
// before the table is known, is as for updates.
func legacyUpdate(in *dynamodb.UpdateItemInput, isKey func(string) bool) (*dynamodb.UpdateItemInput, error) {
	if in.Expected == nil && in.ConditionalOperator == "" && in.AttributeUpdates == nil {
		return in, nil
	}
	if err := mixed([]param{{"AttributeUpdates", in.AttributeUpdates != nil}, {"Expected", in.Expected != nil}, {"ConditionalOperator", in.ConditionalOperator != ""}},
		[]param{{"UpdateExpression", in.UpdateExpression != nil}, {"ConditionExpression", in.ConditionExpression != nil}},
		in.ExpressionAttributeNames, in.ExpressionAttributeValues, "UpdateExpression and ConditionExpression are null"); err != nil {
		return nil, err
	}
	var l legacyExpr
	upd, err := l.updates(in.AttributeUpdates, isKey)
	if err != nil {
		return nil, err
	}
	cond, err := l.expected(in.Expected, in.ConditionalOperator)
	if err != nil {
		return nil, err
	}
	c := *in
	c.Expected, c.ConditionalOperator, c.AttributeUpdates = nil, "", nil
	c.UpdateExpression, c.ConditionExpression, c.ExpressionAttributeNames, c.ExpressionAttributeValues = upd, cond, l.names, l.values
	return &c, nil
}

func legacyGet(in *dynamodb.GetItemInput) (*dynamodb.GetItemInput, error) {
	if in.AttributesToGet == nil {
		return in, nil
	}
	proj, names, err := legacyProjection(in.AttributesToGet, in.ProjectionExpression, in.ExpressionAttributeNames)
	if err != nil {
		return nil, err
	}
	c := *in
	c.AttributesToGet, c.ProjectionExpression, c.ExpressionAttributeNames = nil, proj, names
	return &c, nil
}

// legacyKeysAndAttributes translates one table's request of a
// BatchGetItem.
func legacyKeysAndAttributes(ka types.KeysAndAttributes) (types.KeysAndAttributes, error) {
	if ka.AttributesToGet == nil {
		return ka, nil
	}
	proj, names, err := legacyProjection(ka.AttributesToGet, ka.ProjectionExpression, ka.ExpressionAttributeNames)
	if err != nil {
		return ka, err
	}
	ka.AttributesToGet, ka.ProjectionExpression, ka.ExpressionAttributeNames = nil, proj, names
	return ka, nil
}

// legacyProjection translates the AttributesToGet of a GetItem or of one
// table of a BatchGetItem into a ProjectionExpression with its names,
// after checking it is not mixed with expressions.
func legacyProjection(attrs []string, projExpr *string, names map[string]string) (*string, map[string]string, error) {
	if err := mixed([]param{{"AttributesToGet", true}}, []param{{"ProjectionExpression", projExpr != nil}},
		names, nil, ""); err != nil {
		return nil, nil, err
	}
	var l legacyExpr
	proj, err := l.projection(attrs)
	if err != nil {
		return nil, nil, err
	}
	return proj, l.names, nil
}

// legacyScan translates a Scan's legacy parameters; withSelect also
// checks AttributesToGet against Select, which a Scan of a table that
// exists checks after its index, as DynamoDB Local does.
func legacyScan(in *dynamodb.ScanInput, withSelect bool) (*dynamodb.ScanInput, error) {
	if in.ScanFilter == nil && in.AttributesToGet == nil && in.ConditionalOperator == "" {
		return in, nil
	}
	if err := mixed([]param{{"AttributesToGet", in.AttributesToGet != nil}, {"ScanFilter", in.ScanFilter != nil}, {"ConditionalOperator", in.ConditionalOperator != ""}},
		[]param{{"ProjectionExpression", in.ProjectionExpression != nil}, {"FilterExpression", in.FilterExpression != nil}},
		in.ExpressionAttributeNames, in.ExpressionAttributeValues, "FilterExpression is null"); err != nil {
		return nil, err
	}
	if withSelect {
		if err := checkAttributesToGet(in.AttributesToGet, in.Select); err != nil {
			return nil, err
		}
	}
	var l legacyExpr
	proj, err := l.projection(in.AttributesToGet)
	if err != nil {
		return nil, err
	}
	filter, err := l.filter(in.ScanFilter, in.ConditionalOperator)
	if err != nil {
		return nil, err
	}
	c := *in
	c.ScanFilter, c.AttributesToGet, c.ConditionalOperator = nil, nil, ""
	if filter != nil {
		c.FilterExpression = filter
	}
	if proj != nil {
		c.ProjectionExpression = proj
	}
	c.ExpressionAttributeNames, c.ExpressionAttributeValues = l.names, l.values
	return &c, nil
}

// legacyQueryParams checks how a Query's legacy parameters combine with
// its expressions, which needs no table.
func legacyQueryParams(in *dynamodb.QueryInput) error {
	if err := legacyQueryMix(in); err != nil {
		return err
	}
	return keyConditionGiven(in)
}

// keyConditionGiven checks that a Query has a key condition.
func keyConditionGiven(in *dynamodb.QueryInput) error {
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	return nil
}

// legacyQueryMix checks how a Query's legacy parameters mix with
// expressions.
func legacyQueryMix(in *dynamodb.QueryInput) error {
	if in.KeyConditions == nil && in.QueryFilter == nil && in.AttributesToGet == nil && in.ConditionalOperator == "" {
		return nil
	}
	// KeyConditions combine with a FilterExpression or a
	// ProjectionExpression (not with a KeyConditionExpression); the other
	// legacy parameters combine with no expression.
	exprs := []param{{"ProjectionExpression", in.ProjectionExpression != nil}, {"FilterExpression", in.FilterExpression != nil}, {"KeyConditionExpression", in.KeyConditionExpression != nil}}
	if err := mixed([]param{{"AttributesToGet", in.AttributesToGet != nil}, {"QueryFilter", in.QueryFilter != nil}, {"ConditionalOperator", in.ConditionalOperator != ""},
		{"KeyConditions", in.KeyConditions != nil && in.KeyConditionExpression != nil}},
		exprs, nil, nil, ""); err != nil {
		return err
	}
	if in.KeyConditionExpression == nil && in.FilterExpression == nil && in.ProjectionExpression == nil {
		if in.ExpressionAttributeNames != nil {
			return validation("ExpressionAttributeNames can only be specified when using expressions")
		}
		if in.ExpressionAttributeValues != nil {
			return validation("ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null")
		}
	}
	return nil
}

func (t *table) legacyQuery(in *dynamodb.QueryInput, src *source) (*dynamodb.QueryInput, error) {
	if in.KeyConditions == nil && in.QueryFilter == nil && in.AttributesToGet == nil && in.ConditionalOperator == "" {
		return in, nil
	}
	if err := legacyQueryParams(in); err != nil {
		return nil, err
	}
	var l legacyExpr
	l.seed(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	var keyTerms []string
	// A sort key condition no index can serve is reported after
	// AttributesToGet's check, the rest before it, in DynamoDB Local's
	// order.
	var unindexable error
	if in.KeyConditions != nil {
		for _, a := range sortedNames(in.KeyConditions) {
			c := in.KeyConditions[a]
			if err := checkCondition(c.ComparisonOperator, c.AttributeValueList); err != nil {
				return nil, err
			}
		}
		if n := len(in.KeyConditions); n < 1 || n > 2 {
			return nil, validation("Conditions can be of length 1 or 2 only")
		}
		// Each key attribute of the read, the partition key first, in
		// DynamoDB's order (dynalite's suite records it), with the start
		// key's attribute first.
		matched := 0
		for _, k := range []keyAttr{src.pk, src.sk} {
			if k.name == "" {
				continue
			}
			if in.ExclusiveStartKey != nil {
				if err := startKeyPiece(in.ExclusiveStartKey, k); err != nil {
					return nil, err
				}
			}
			if k == src.pk && src.sk.name == "" && len(in.KeyConditions) > 1 {
				return nil, validation("Query key condition not supported")
			}
			c, ok := in.KeyConditions[k.name]
			if !ok {
				if k == src.pk || len(in.KeyConditions) > 1 {
					return nil, src.missedKey(k != src.pk)
				}
				continue
			}
			matched++
			switch c.ComparisonOperator {
			case types.ComparisonOperatorNull, types.ComparisonOperatorNotNull, types.ComparisonOperatorNe,
				types.ComparisonOperatorContains, types.ComparisonOperatorNotContains, types.ComparisonOperatorIn:
				if k == src.pk {
					return nil, validation("Attempted conditional constraint is not an indexable operation")
				}
				unindexable = validation("Attempted conditional constraint is not an indexable operation")
				continue
			}
			for _, v := range c.AttributeValueList {
				if ddbexpr.TypeName(v) != string(k.typ) {
					return nil, validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
				}
			}
			if k == src.pk && c.ComparisonOperator != types.ComparisonOperatorEq {
				return nil, validation("Query key condition not supported")
			}
			keyTerms = append(keyTerms, l.comparison(k.name, c.ComparisonOperator, c.AttributeValueList))
		}
		if matched != len(in.KeyConditions) {
			return nil, src.missedKey(true)
		}
	}
	for _, a := range sortedNames(in.QueryFilter) {
		if a == src.pk.name || a == src.sk.name {
			return nil, validationf("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", a)
		}
	}
	if unindexable != nil {
		return nil, unindexable
	}
	proj, err := l.projection(in.AttributesToGet)
	if err != nil {
		return nil, err
	}
	filter, err := l.filter(in.QueryFilter, in.ConditionalOperator)
	if err != nil {
		return nil, err
	}
	c := *in
	c.KeyConditions, c.QueryFilter, c.AttributesToGet, c.ConditionalOperator = nil, nil, nil, ""
	if keyTerms != nil {
		key := strings.Join(keyTerms, " AND ")
		c.KeyConditionExpression = &key
	}
	if filter != nil {
		c.FilterExpression = filter
	}
	if proj != nil {
		c.ProjectionExpression = proj
	}
	c.ExpressionAttributeNames, c.ExpressionAttributeValues = l.names, l.values
	return &c, nil
}

// legacyUpdateError words an operand type error of translated
// AttributeUpdates as DynamoDB does for that parameter (an ADD or DELETE
// whose value does not fit the stored attribute), not as it does for an
// update expression.
func legacyUpdateError(err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == ValidationException &&
		ae.ErrorMessage() == "An operand in the update expression has an incorrect data type" {
		return validation("Type mismatch for attribute to update")
	}
	return err
}
