package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Legacy (pre-expression) parameters: KeyConditions, QueryFilter,
// ScanFilter, AttributesToGet, Expected, AttributeUpdates and
// ConditionalOperator, their results and their validation, including
// requests mixing them with expressions.

type exp = map[string]types.ExpectedAttributeValue
type conds = map[string]types.Condition
type updates = map[string]types.AttributeValueUpdate

func eqExp(v types.AttributeValue) types.ExpectedAttributeValue {
	return types.ExpectedAttributeValue{Value: v}
}

func opExp(op types.ComparisonOperator, v ...types.AttributeValue) types.ExpectedAttributeValue {
	return types.ExpectedAttributeValue{ComparisonOperator: op, AttributeValueList: v}
}

func cnd(op types.ComparisonOperator, v ...types.AttributeValue) types.Condition {
	return types.Condition{ComparisonOperator: op, AttributeValueList: v}
}

func putExp(it I, e exp, op types.ConditionalOperator) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{TableName: str("T"), Item: it, Expected: e, ConditionalOperator: op}
}

func legacyUpd(k I, u updates, e exp, rv types.ReturnValue) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{TableName: str("T"), Key: k, AttributeUpdates: u, Expected: e, ReturnValues: rv}
}

func legacyQuery(kc conds, f conds, op types.ConditionalOperator) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{TableName: str("T"), KeyConditions: kc, QueryFilter: f, ConditionalOperator: op}
}

func legacyScan(f conds, op types.ConditionalOperator) *dynamodb.ScanInput {
	return &dynamodb.ScanInput{TableName: str("T"), ScanFilter: f, ConditionalOperator: op}
}

// manyNumbers are the numbers 0 to n-1.
func manyNumbers(n int) []types.AttributeValue {
	out := make([]types.AttributeValue, n)
	for i := range out {
		out[i] = N(fmt.Sprint(i))
	}
	return out
}

// legacyItems are 12 items over two partitions with numbers, strings,
// sets, lists and a name with a dot.
func legacyItems() []I {
	var out []I
	for i := 0; i < 12; i++ {
		it := I{"pk": S(fmt.Sprintf("p%d", i%2)), "sk": S(fmt.Sprintf("s%02d", i)), "n": N(fmt.Sprint(i)),
			"tags": SS(fmt.Sprintf("t%d", i%3), "all"), "a.b": S(fmt.Sprintf("dot%d", i%4))}
		if i%3 == 0 {
			it["opt"] = S("yes")
		}
		if i%4 == 0 {
			it["l"] = L(S("x"), N(fmt.Sprint(i)))
		}
		out = append(out, it)
	}
	return out
}

var legacyKey = I{"pk": S("p0"), "sk": S("s00")}

var legacyCases = []tc{
	// Which of two errors in one condition or update DynamoDB Local
	// reports (TestDifferentialLegacy* found each): a condition's values
	// before ConditionalOperator's count; each value's type in turn, then
	// that it is the first's; Exists with ComparisonOperator before Value
	// with AttributeValueList; an empty KeyConditions; the key conditions
	// before AttributesToGet with Select, and that before a sort key
	// condition no index serves; a key attribute in AttributeUpdates
	// before the update's action and value.
	{
		name:   "legacy/which error first",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			failMsg(eValid, legacyScan(conds{"n": cnd("LE", NS("1"))}, types.ConditionalOperatorAnd)),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("LT", NULL())}, types.ConditionalOperatorOr)),
			failMsg(eValid, legacyScan(conds{"n": cnd("IN", N("5"), B('a'), NULL())}, "")),
			failMsg(eValid, legacyScan(conds{"n": cnd("IN", N("5"), NULL())}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("BETWEEN", N("5"), S("a"), NULL())}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {Value: S("x"), Exists: aws.Bool(true), ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{S("y")}}}, "")),
			failMsg(eValid, legacyQuery(conds{}, nil, "")),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("LT", S("a"))}, AttributesToGet: []string{"n"}, Select: types.SelectAllAttributes}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", N("1"))}, AttributesToGet: []string{"n"}, Select: types.SelectCount}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0")), "sk": cnd("NE", S("a"))}, QueryFilter: conds{"sk": cnd("EQ", S("a"))},
				AttributesToGet: []string{"n"}, Select: types.SelectAllAttributes}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0")), "sk": cnd("NULL")}, AttributesToGet: []string{"n"}, Select: types.SelectAllAttributes}),
			// A key condition's empty value before AttributesToGet
			// against Select (seed 2025).
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S(""))}, AttributesToGet: []string{"n"}, Select: types.SelectAllAttributes}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0")), "sk": cnd("BEGINS_WITH", S(""))}, AttributesToGet: []string{"n"}, Select: types.SelectCount}),
			failMsg(eValid, legacyUpd(legacyKey, updates{"pk": {Action: "ADD"}}, nil, "")),
			failMsg(eValid, legacyUpd(legacyKey, updates{"sk": {Action: "DELETE", Value: N("1")}}, nil, "")),
			failMsg(eValid, legacyUpd(legacyKey, updates{"pk": {Action: "PUT", Value: S("p9")}}, nil, "")),
		},
	},
	{
		name:   "Expected/value equals",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(putExp(I{"pk": S("p0"), "sk": S("s00"), "v": N("1")}, exp{"n": eqExp(N("0"))}, "")),
			fail(eCond, putExp(I{"pk": S("p0"), "sk": S("s00"), "v": N("2")}, exp{"n": eqExp(N("0"))}, "")),
		},
	},
	{
		name:   "Expected/Exists false",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			fail(eCond, putExp(I{"pk": S("p0"), "sk": S("s00")}, exp{"pk": {Exists: aws.Bool(false)}}, "")),
			do(putExp(I{"pk": S("p9"), "sk": S("s00")}, exp{"pk": {Exists: aws.Bool(false)}}, "")),
			do(putExp(I{"pk": S("p1"), "sk": S("s01"), "v": N("1")}, exp{"opt": {Exists: aws.Bool(false)}, "n": {Exists: aws.Bool(true), Value: N("1")}}, "")),
		},
	},
	{
		name:   "Expected/comparison operators",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(putExp(legacyKey, exp{"n": opExp("LT", N("5")), "tags": opExp("CONTAINS", S("all")), "a.b": opExp("BEGINS_WITH", S("dot"))}, "")),
			fail(eCond, putExp(legacyKey, exp{"opt": opExp("NOT_NULL")}, "")),
			do(putExp(legacyKey, exp{"opt": opExp("NULL"), "nope": opExp("NE", S("x"))}, "")),
			do(putExp(I{"pk": S("p0"), "sk": S("s02"), "n": N("2")}, exp{"n": opExp("BETWEEN", N("1"), N("3")), "a.b": opExp("IN", S("dot1"), S("dot2"))}, "")),
			fail(eCond, putExp(I{"pk": S("p0"), "sk": S("s04")}, exp{"tags": opExp("NOT_CONTAINS", S("t1")), "n": opExp("GE", N("5"))}, "")),
			do(putExp(I{"pk": S("p0"), "sk": S("s06")}, exp{"tags": opExp("NOT_CONTAINS", S("t1")), "n": types.ExpectedAttributeValue{ComparisonOperator: "GE", Value: N("4")}}, "")),
			fail(eCond, putExp(legacyKey, exp{"n": opExp("EQ", S("0"))}, "")),
		},
	},
	{
		name:   "Expected/ConditionalOperator OR",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(putExp(legacyKey, exp{"n": eqExp(N("7")), "opt": eqExp(S("yes"))}, types.ConditionalOperatorOr)),
			fail(eCond, putExp(I{"pk": S("p0"), "sk": S("s02")}, exp{"n": eqExp(N("7")), "opt": eqExp(S("yes"))}, types.ConditionalOperatorOr)),
			fail(eCond, putExp(legacyKey, exp{"n": eqExp(N("7")), "opt": eqExp(S("yes"))}, types.ConditionalOperatorAnd)),
		},
	},
	{
		name:   "Expected/DeleteItem with ALL_OLD on failure",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			fail(eCond, &dynamodb.DeleteItemInput{TableName: str("T"), Key: legacyKey, Expected: exp{"n": eqExp(N("9"))},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
			do(&dynamodb.DeleteItemInput{TableName: str("T"), Key: legacyKey, Expected: exp{"n": eqExp(N("0"))}, ReturnValues: types.ReturnValueAllOld}),
		},
	},
	{
		name:   "Expected/validation",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			failMsg(eValid, putExp(legacyKey, exp{"n": {}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {Exists: aws.Bool(true)}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {Exists: aws.Bool(false), Value: N("1")}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {Exists: aws.Bool(true), ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{N("1")}}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {Value: N("1"), ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{N("1")}}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {ComparisonOperator: "EQ"}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": {AttributeValueList: []types.AttributeValue{N("1")}}}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("LT", SS("a"))}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("BETWEEN", N("1"), S("a"))}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("IN", N("1"), S("a"))}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("NULL", N("1"))}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("CONTAINS", SS("a"))}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("BEGINS_WITH", N("1"))}, "")),
			failMsg(eValid, putExp(legacyKey, exp{"n": opExp("BOGUS", N("1"))}, "")),
			failMsg(eValid, putExp(legacyKey, nil, types.ConditionalOperatorAnd)),
			fail(eValid, putExp(legacyKey, exp{"n": opExp("BETWEEN", N("3"), N("1"))}, "")),
		},
	},
	{
		name:   "mixing/legacy and expression parameters",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: legacyKey, Expected: exp{"n": eqExp(N("0"))}, ConditionExpression: str("attribute_exists(n)")}),
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: legacyKey, Expected: exp{"n": eqExp(N("0"))}, ExpressionAttributeNames: names{"#n": "n"}}),
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: legacyKey, Expected: exp{"n": eqExp(N("0"))}, ExpressionAttributeValues: vals{":n": N("0")}}),
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: legacyKey, ConditionalOperator: "OR", ConditionExpression: str("attribute_exists(n)")}),
			failMsg(eValid, &dynamodb.DeleteItemInput{TableName: str("T"), Key: legacyKey, Expected: exp{"n": eqExp(N("0"))}, ExpressionAttributeValues: vals{":n": N("0")}}),
			failMsg(eValid, &dynamodb.GetItemInput{TableName: str("T"), Key: legacyKey, AttributesToGet: []string{"n"}, ProjectionExpression: str("n")}),
			failMsg(eValid, &dynamodb.GetItemInput{TableName: str("T"), Key: legacyKey, AttributesToGet: []string{"n"}, ExpressionAttributeNames: names{"#n": "n"}}),
			failMsg(eValid, &dynamodb.UpdateItemInput{TableName: str("T"), Key: legacyKey, AttributeUpdates: updates{"v": {Value: N("1")}}, UpdateExpression: str("SET v = :v"), ExpressionAttributeValues: vals{":v": N("1")}}),
			failMsg(eValid, &dynamodb.UpdateItemInput{TableName: str("T"), Key: legacyKey, AttributeUpdates: updates{"v": {Value: N("1")}}, ConditionExpression: str("attribute_exists(n)")}),
			failMsg(eValid, &dynamodb.UpdateItemInput{TableName: str("T"), Key: legacyKey, AttributeUpdates: updates{"v": {Value: N("1")}}, ExpressionAttributeValues: vals{":v": N("1")}}),
			failMsg(eValid, &dynamodb.UpdateItemInput{TableName: str("T"), Key: legacyKey, Expected: exp{"n": eqExp(N("0"))}, UpdateExpression: str("SET v = :v"), ExpressionAttributeValues: vals{":v": N("1")}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, KeyConditionExpression: str("pk = :p"), ExpressionAttributeValues: vals{":p": S("p0")}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditionExpression: str("pk = :p"), QueryFilter: conds{"n": cnd("GT", N("1"))}, ExpressionAttributeValues: vals{":p": S("p0")}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditionExpression: str("pk = :p"), AttributesToGet: []string{"n"}, ExpressionAttributeValues: vals{":p": S("p0")}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, QueryFilter: conds{"n": cnd("GT", N("1"))}, ProjectionExpression: str("n")}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, ExpressionAttributeValues: vals{":p": S("p0")}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, ExpressionAttributeNames: names{"#p": "n"}}),
			failMsg(eValid, &dynamodb.ScanInput{TableName: str("T"), ScanFilter: conds{"n": cnd("GT", N("1"))}, FilterExpression: str("n > :n"), ExpressionAttributeValues: vals{":n": N("1")}}),
			failMsg(eValid, &dynamodb.ScanInput{TableName: str("T"), ScanFilter: conds{"n": cnd("GT", N("1"))}, ExpressionAttributeValues: vals{":n": N("1")}}),
			failMsg(eValid, &dynamodb.ScanInput{TableName: str("T"), AttributesToGet: []string{"n"}, ProjectionExpression: str("n")}),
			failMsg(eValid, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"T": {Keys: []I{legacyKey}, AttributesToGet: []string{"n"}, ProjectionExpression: str("n")}}}),
		},
	},
	{
		name:   "mixing/KeyConditions with filter and projection expressions",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(&dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, FilterExpression: str("#n > :n"),
				ProjectionExpression: str("sk, #n, #d"), ExpressionAttributeNames: names{"#n": "n", "#d": "a.b"}, ExpressionAttributeValues: vals{":n": N("3")}}),
			// Placeholders that the translation would pick itself.
			do(&dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p1")), "sk": cnd("GT", S("s03"))}, FilterExpression: str("#l0 > :l0 AND #l1 = :l1"),
				ExpressionAttributeNames: names{"#l0": "n", "#l1": "opt"}, ExpressionAttributeValues: vals{":l0": N("3"), ":l1": S("yes")}}),
		},
	},
	{
		name:   "AttributesToGet/GetItem and BatchGetItem",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(&dynamodb.GetItemInput{TableName: str("T"), Key: legacyKey, AttributesToGet: []string{"n", "a.b", "missing", "l"}}),
			do(&dynamodb.GetItemInput{TableName: str("T"), Key: legacyKey, AttributesToGet: []string{"missing"}}),
			do(&dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"T": {Keys: []I{legacyKey, {"pk": S("p1"), "sk": S("s01")}}, AttributesToGet: []string{"sk", "tags"}}}}),
			failMsg(eValid, &dynamodb.GetItemInput{TableName: str("T"), Key: legacyKey, AttributesToGet: []string{}}),
			failMsg(eValid, &dynamodb.GetItemInput{TableName: str("T"), Key: legacyKey, AttributesToGet: []string{"n", "n"}}),
		},
	},
	{
		name:   "KeyConditions/operators",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("EQ", S("s04"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("LT", S("s04"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p1")), "sk": cnd("LE", S("s05"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p1")), "sk": cnd("GT", S("s05"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p1")), "sk": cnd("GE", S("s05"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("BETWEEN", S("s02"), S("s08"))}, nil, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("BEGINS_WITH", S("s1"))}, nil, "")),
			queryAll(&dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, Limit: aws.Int32(2), ScanIndexForward: aws.Bool(false)}),
		},
	},
	{
		name:   "KeyConditions/validation",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			failMsg(eValid, legacyQuery(conds{"pk": cnd("BEGINS_WITH", S("p"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"sk": cnd("EQ", S("s00"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0")), "n": cnd("EQ", N("1"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", N("1"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("IN", S("s00"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("CONTAINS", S("s"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("NOT_NULL")}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0")), "sk": cnd("BETWEEN", S("s09"), S("s01"))}, nil, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ")}, nil, "")),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T")}),
		},
	},
	{
		name:   "QueryFilter/filters, projection and Select",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, conds{"n": cnd("GT", N("3")), "tags": cnd("CONTAINS", S("t1"))}, "")),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, conds{"n": cnd("GT", N("7")), "opt": cnd("NOT_NULL")}, types.ConditionalOperatorOr)),
			do(legacyQuery(conds{"pk": cnd("EQ", S("p1"))}, conds{"a.b": cnd("EQ", S("dot1"))}, "")),
			do(&dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, AttributesToGet: []string{"n", "a.b"}}),
			do(&dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, AttributesToGet: []string{"n"}, Select: types.SelectSpecificAttributes}),
			do(&dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, QueryFilter: conds{"n": cnd("LT", N("5"))}, Select: types.SelectCount}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, AttributesToGet: []string{"n"}, Select: types.SelectAllAttributes}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}, AttributesToGet: []string{"n"}, Select: types.SelectCount}),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, conds{"sk": cnd("EQ", S("s00"))}, "")),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, nil, types.ConditionalOperatorOr)),
			failMsg(eValid, legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, conds{"n": cnd("IN", BOOL(true))}, "")),
		},
	},
	{
		name:   "ScanFilter/filters and projection",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			scanAll(legacyScan(conds{"n": cnd("BETWEEN", N("2"), N("8")), "opt": cnd("NULL")}, "")),
			scanAll(legacyScan(conds{"n": cnd("IN", N("1"), N("5"), N("11")), "a.b": cnd("BEGINS_WITH", S("dot3"))}, types.ConditionalOperatorOr)),
			scanAll(legacyScan(conds{"tags": cnd("NOT_CONTAINS", S("t2")), "l": cnd("NE", L(S("x"), N("0")))}, "")),
			scanAll(legacyScan(conds{"n": cnd("EQ", M(I{"a": S("b")}))}, "")),
			scanAll(legacyScan(conds{}, "")),
			scanAll(&dynamodb.ScanInput{TableName: str("T"), AttributesToGet: []string{"pk", "tags"}, ScanFilter: conds{"n": cnd("LE", N("3"))}}),
			failMsg(eValid, legacyScan(conds{"n": cnd("EQ")}, "")),
			failMsg(eValid, legacyScan(conds{"n": cnd("BOGUS", N("1"))}, "")),
			// CONTAINS seeks a scalar: a map or list is refused, in the
			// filters and Expected alike.
			failMsg(eValid, legacyScan(conds{"l": cnd("CONTAINS", L(S("x")))}, "")),
			failMsg(eValid, legacyScan(conds{"l": cnd("NOT_CONTAINS", M(I{"a": S("x")}))}, "")),
			failMsg(eValid, putExp(I{"pk": S("p0"), "sk": S("s00")}, exp{"l": opExp("CONTAINS", L(S("x")))}, "")),
			scanAll(legacyScan(conds{"l": cnd("CONTAINS", BOOL(true))}, "")),
			failMsg(eValid, legacyScan(conds{}, types.ConditionalOperatorOr)),
			failMsg(eValid, &dynamodb.ScanInput{TableName: str("T"), AttributesToGet: []string{"n"}, Select: types.SelectCount}),
		},
	},
	// The legacy conditions have none of an expression's limits: an IN
	// takes 27,500 values (dynalite's suite records DynamoDB taking them)
	// where FilterExpression's IN takes 100, and the condition may be
	// past an expression's 4 KB.
	{
		name:   "Legacy/no expression limits",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			scanAll(legacyScan(conds{"n": cnd("IN", manyNumbers(27_500)...)}, "")),
			queryAll(legacyQuery(conds{"pk": cnd("EQ", S("p0"))}, conds{"n": cnd("IN", manyNumbers(500)...)}, "")),
			do(putExp(I{"pk": S("p0"), "sk": S("s00"), "n": N("0")}, exp{"n": opExp("IN", manyNumbers(200)...)}, "")),
			failMsg(eCond, putExp(I{"pk": S("p0"), "sk": S("s00"), "n": N("0")}, exp{"n": opExp("IN", manyNumbers(200)[1:]...)}, "")),
			do(legacyUpd(legacyKey, updates{"v": {Value: N("1")}}, exp{"n": opExp("IN", manyNumbers(300)...)}, types.ReturnValueUpdatedNew)),
			failMsg(eValid, &dynamodb.ScanInput{TableName: str("T"), FilterExpression: str("n IN (" + strings.Repeat(":n, ", 100) + ":n)"), ExpressionAttributeValues: vals{":n": N("1")}}),
		},
	},
	{
		name:   "AttributeUpdates/actions",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			do(legacyUpd(legacyKey, updates{"v": {Value: N("1")}, "a.b": {Action: "PUT", Value: S("new")}, "opt": {Action: "DELETE"}}, nil, types.ReturnValueAllNew)),
			do(legacyUpd(legacyKey, updates{"n": {Action: "ADD", Value: N("5")}, "tags": {Action: "ADD", Value: SS("t9")}, "fresh": {Action: "ADD", Value: NS("1", "2")}}, nil, types.ReturnValueUpdatedNew)),
			do(legacyUpd(legacyKey, updates{"tags": {Action: "DELETE", Value: SS("all", "t9")}, "l": {Action: "ADD", Value: L(S("y"))}, "nl": {Action: "ADD", Value: L(N("1"))}}, nil, types.ReturnValueAllNew)),
			do(legacyUpd(I{"pk": S("p5"), "sk": S("new")}, updates{"c": {Action: "ADD", Value: N("1")}}, nil, types.ReturnValueAllNew)),
			do(legacyUpd(I{"pk": S("p5"), "sk": S("empty")}, updates{}, nil, types.ReturnValueAllNew)),
			do(legacyUpd(legacyKey, updates{"n": {Action: "ADD", Value: N("1")}}, exp{"n": eqExp(N("5"))}, types.ReturnValueUpdatedOld)),
			fail(eCond, legacyUpd(legacyKey, updates{"n": {Action: "ADD", Value: N("1")}}, exp{"n": eqExp(N("5"))}, types.ReturnValueUpdatedOld)),
		},
	},
	{
		name:   "AttributeUpdates/validation",
		tables: tables(tPKSK()),
		items:  legacyItems(),
		steps: []step{
			failMsg(eValid, legacyUpd(legacyKey, updates{"sk": {Value: S("x")}}, nil, "")),
			failMsg(eValid, legacyUpd(legacyKey, updates{"v": {Action: "PUT"}}, nil, "")),
			failMsg(eValid, legacyUpd(legacyKey, updates{"v": {Action: "ADD"}}, nil, "")),
			failMsg(eValid, legacyUpd(legacyKey, updates{"v": {Action: "ADD", Value: S("a")}}, nil, "")),
			failMsg(eValid, legacyUpd(legacyKey, updates{"v": {Action: "DELETE", Value: N("1")}}, nil, "")),
			fail(eValid, legacyUpd(legacyKey, updates{"n": {Action: "DELETE", Value: NS("1")}}, nil, "")),
		},
	},
	{
		name: "KeyConditions/indexes",
		tables: tables(withLSI(withGSI(tPKSK(), "byN", hs("a.b", "S"), hs("n", "N"), projection(types.ProjectionTypeAll)),
			"local", hs("n", "N"), projection(types.ProjectionTypeKeysOnly))),
		items: legacyItems(),
		steps: []step{
			do(&dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"a.b": cnd("EQ", S("dot1")), "n": cnd("GE", N("5"))},
				QueryFilter: conds{"opt": cnd("NOT_NULL")}}),
			do(&dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"a.b": cnd("EQ", S("dot2"))}, QueryFilter: conds{"sk": cnd("GT", S("s05"))}}),
			do(&dynamodb.QueryInput{TableName: str("T"), IndexName: str("local"), KeyConditions: conds{"pk": cnd("EQ", S("p1")), "n": cnd("BETWEEN", N("3"), N("9"))},
				ScanIndexForward: aws.Bool(false)}),
			do(&dynamodb.QueryInput{TableName: str("T"), IndexName: str("local"), KeyConditions: conds{"pk": cnd("EQ", S("p1"))}, AttributesToGet: []string{"n", "tags"}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"a.b": cnd("EQ", S("dot1"))}, QueryFilter: conds{"n": cnd("GT", N("1"))}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"pk": cnd("EQ", S("p0"))}}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"a.b": cnd("EQ", S("dot1")), "n": cnd("GT", S("1"))}}),
		},
	},
	{
		name:   "AttributesToGet/validation on a keys-only index and in a batch",
		tables: tables(withGSI(tPKSK(), "byN", hs("a.b", "S"), hs("n", "N"), projection(types.ProjectionTypeKeysOnly))),
		items:  legacyItems(),
		steps: []step{
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"a.b": cnd("EQ", S("dot1"))}, AttributesToGet: []string{"n"}, Select: types.SelectAllProjectedAttributes}),
			failMsg(eValid, &dynamodb.QueryInput{TableName: str("T"), IndexName: str("byN"), KeyConditions: conds{"a.b": cnd("EQ", S("dot1"))}, AttributesToGet: []string{"tags"}}),
			failMsg(eValid, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"T": {Keys: []I{legacyKey}, AttributesToGet: []string{}}}}),
			fail(eValid, legacyUpd(legacyKey, updates{"n": {Action: "ADD", Value: L(S("y"))}}, nil, "")),
		},
	},
}
