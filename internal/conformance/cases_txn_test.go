package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func tw(items ...types.TransactWriteItem) *dynamodb.TransactWriteItemsInput {
	return &dynamodb.TransactWriteItemsInput{TransactItems: items}
}

func twPut(table string, it I) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: str(table), Item: it}}
}

func twPutIf(table string, it I, cond string, v vals) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: str(table), Item: it, ConditionExpression: str(cond), ExpressionAttributeValues: v}}
}

func twDel(table string, k I) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{TableName: str(table), Key: k}}
}

func twUpd(table string, k I, expr string, v vals) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{TableName: str(table), Key: k, UpdateExpression: str(expr), ExpressionAttributeValues: v}}
}

func twCheck(table string, k I, cond string, v vals) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: str(table), Key: k, ConditionExpression: str(cond), ExpressionAttributeValues: v}}
}

func tg(items ...types.TransactGetItem) *dynamodb.TransactGetItemsInput {
	return &dynamodb.TransactGetItemsInput{TransactItems: items}
}

func tgGet(table string, k I) types.TransactGetItem {
	return types.TransactGetItem{Get: &types.Get{TableName: str(table), Key: k}}
}

func nTxPuts(n int) []types.TransactWriteItem {
	var out []types.TransactWriteItem
	for i := 0; i < n; i++ {
		out = append(out, twPut("T", I{"pk": S(fmt.Sprintf("k%03d", i))}))
	}
	return out
}

var txnItems = []I{
	{"pk": S("a"), "v": N("1")},
	{"pk": S("b"), "v": N("2")},
	{"pk": S("c"), "v": N("3"), "s": S("str")},
}

func txnCase(name string, steps ...step) tc {
	return tc{name: "Transact/" + name, tables: tables(tPK(), table("T2", hs("id", "N"), attr{})), items: txnItems, steps: steps}
}

var txnCases = []tc{
	txnCase("write all kinds",
		do(tw(
			twPut("T", I{"pk": S("new"), "x": S("y")}),
			twUpd("T", pk("a"), "SET v = v + :one", vals{":one": N("1")}),
			twDel("T", pk("b")),
			twCheck("T", pk("c"), "v = :three", vals{":three": N("3")}),
			twPut("T2", I{"id": N("1")}),
		)),
	),
	txnCase("all or nothing",
		fail(eTxn, tw(
			twPut("T", I{"pk": S("new")}),
			twCheck("T", pk("c"), "v = :v", vals{":v": N("99")}),
			twUpd("T", pk("a"), "SET v = v + :one", vals{":one": N("1")}),
			twDel("T", pk("b")),
		)),
	),
	txnCase("cancellation reasons in request order",
		fail(eTxn, tw(
			twPutIf("T", I{"pk": S("a")}, "attribute_not_exists(pk)", nil),
			twUpd("T", pk("b"), "SET v = :v", vals{":v": N("5")}),
			twDel("T2", I{"id": N("9")}),
			twPutIf("T", I{"pk": S("d")}, "attribute_exists(pk)", nil),
		)),
	),
	txnCase("ReturnValuesOnConditionCheckFailure ALL_OLD",
		fail(eTxn, tw(
			types.TransactWriteItem{Put: &types.Put{TableName: str("T"), Item: I{"pk": S("a"), "v": N("10")},
				ConditionExpression: str("v = :v"), ExpressionAttributeValues: vals{":v": N("2")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: str("T"), Key: pk("c"),
				ConditionExpression:                 str("attribute_not_exists(s)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			types.TransactWriteItem{Delete: &types.Delete{TableName: str("T"), Key: pk("zz"),
				ConditionExpression:                 str("attribute_exists(pk)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		)),
	),
	txnCase("same item twice",
		fail(eValid, tw(
			twPut("T", I{"pk": S("a"), "v": N("5")}),
			twUpd("T", pk("a"), "SET v = :v", vals{":v": N("6")}),
		)),
	),
	txnCase("same item in check and put",
		fail(eValid, tw(
			twCheck("T", pk("a"), "attribute_exists(pk)", nil),
			twPut("T", I{"pk": S("a"), "v": N("5")}),
		)),
	),
	txnCase("same key in two tables is not the same item",
		do(tw(
			twPut("T", I{"pk": S("x")}),
			twPut("T2", I{"id": N("1")}),
			twPut("T", I{"pk": S("y")}),
		)),
	),
	txnCase("100 items",
		do(tw(nTxPuts(100)...)),
	),
	txnCase("101 items",
		fail(eValid, tw(nTxPuts(101)...)),
	),
	txnCase("empty",
		fail(eValid, tw()),
	),
	txnCase("invalid item key",
		fail(eValid, tw(twPut("T", I{"pk": S("ok")}), twPut("T", pk("")))),
	),
	// A key of the wrong type cancels the transaction with a ValidationError
	// reason for that item.
	txnCase("wrong key type",
		fail(eTxn, tw(twPut("T", I{"pk": S("ok")}), twDel("T", I{"pk": N("1")}))),
	),
	txnCase("update expression error on one item",
		fail(eValid, tw(twPut("T", I{"pk": S("ok")}), twUpd("T", pk("c"), "SET v = :v", vals{":v": N("1"), ":unused": N("2")}))),
	),
	txnCase("update arithmetic on a string",
		// documented as a ValidationError cancellation reason: see
		// "evaluation error beside a failed condition" (cases_fidelity_test.go)
		docStep(fail(eTxn, tw(twPut("T", I{"pk": S("ok")}), twUpd("T", pk("c"), "SET v = s + :one", vals{":one": N("1")}))),
			localFailsWholeTxn, txnReasons("None", "ValidationError")),
	),
	txnCase("item over 400 KB",
		fail(eValid, tw(twPut("T", I{"pk": S("ok")}), twPut("T", I{"pk": S("big"), "d": S(bigString(409597))}))),
	),
	txnCase("missing table",
		fail(eNotFound, tw(twPut("T", I{"pk": S("ok")}), twPut("Missing", I{"pk": S("x")}))),
	),
	// Every action's expressions and values are checked before any
	// action's table, key or item (TestDifferentialTransactions found
	// the engine checking action by action); an update of a key
	// attribute ends the checks.
	txnCase("which error first",
		failMsg(eValid, tw(twPut("Missing", I{"pk": S("x")}), twCheck("T", pk("a"), "attribute_exists(pk)", vals{":u": N("1")}))),
		failMsg(eValid, tw(twDel("T", I{"pk": S("a"), "x": S("1")}), twCheck("T", pk("a"), "attribute_exists(pk) AND", nil))),
		failMsg(eValid, tw(twPut("T", I{"x": S("1")}), twPut("T", I{"pk": S("b"), "e": &types.AttributeValueMemberSS{Value: []string{}}}))),
		failMsg(eValid, tw(twCheck("T", I{"pk": N("1")}, "attribute_exists(pk)", nil), twUpd("T", pk("c"), "SET v = :v", vals{":v": &types.AttributeValueMemberNS{Value: []string{}}}))),
		docStep(fail(eTxn, tw(twUpd("T", pk("a"), "SET pk = :v", vals{":v": S("z")}), twPut("Missing", I{"pk": S("x")}))),
			"DynamoDB Local lists one reason for two actions",
			`{"Err":{"Kind":"TransactionCanceled","Code":"TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError, None]","Reasons":[{"Code":"ValidationError"},{"Code":"None"}]}}`),
	),
	txnCase("ClientRequestToken repeat is idempotent",
		do(&dynamodb.TransactWriteItemsInput{ClientRequestToken: str("tok1"), TransactItems: []types.TransactWriteItem{
			twUpd("T", pk("a"), "ADD v :one", vals{":one": N("1")}),
		}}),
		do(&dynamodb.TransactWriteItemsInput{ClientRequestToken: str("tok1"), TransactItems: []types.TransactWriteItem{
			twUpd("T", pk("a"), "ADD v :one", vals{":one": N("1")}),
		}}),
		do(get(pk("a"))),
	),
	txnCase("ClientRequestToken reused for another request",
		do(&dynamodb.TransactWriteItemsInput{ClientRequestToken: str("tok1"), TransactItems: []types.TransactWriteItem{
			twUpd("T", pk("a"), "ADD v :one", vals{":one": N("1")}),
		}}),
		fail("other", &dynamodb.TransactWriteItemsInput{ClientRequestToken: str("tok1"), TransactItems: []types.TransactWriteItem{
			twUpd("T", pk("a"), "ADD v :two", vals{":two": N("2")}),
		}}),
		do(get(pk("a"))),
	),
	txnCase("distinct ClientRequestTokens both apply",
		do(&dynamodb.TransactWriteItemsInput{ClientRequestToken: str("tok1"), TransactItems: []types.TransactWriteItem{
			twUpd("T", pk("a"), "ADD v :one", vals{":one": N("1")}),
		}}),
		do(&dynamodb.TransactWriteItemsInput{ClientRequestToken: str("tok2"), TransactItems: []types.TransactWriteItem{
			twUpd("T", pk("a"), "ADD v :one", vals{":one": N("1")}),
		}}),
	),
	txnCase("get items",
		do(tg(tgGet("T", pk("c")), tgGet("T", pk("zz")), tgGet("T2", I{"id": N("1")}), tgGet("T", pk("a")))),
	),
	txnCase("get with projection",
		do(tg(
			types.TransactGetItem{Get: &types.Get{TableName: str("T"), Key: pk("c"), ProjectionExpression: str("#s"),
				ExpressionAttributeNames: names{"#s": "s"}}},
			tgGet("T", pk("a")),
		)),
	),
	txnCase("get 101 items",
		fail(eValid, func() *dynamodb.TransactGetItemsInput {
			in := tg()
			for i := 0; i < 101; i++ {
				in.TransactItems = append(in.TransactItems, tgGet("T", pk(fmt.Sprintf("k%03d", i))))
			}
			return in
		}()),
	),
	txnCase("get missing table",
		fail(eNotFound, tg(tgGet("T", pk("a")), tgGet("Missing", pk("a")))),
	),
	txnCase("get wrong key type",
		fail(eTxn, tg(tgGet("T", I{"pk": N("1")}))),
	),
}

func init() {
	g := func(name string, members ...string) {
		for i := range members {
			members[i] = "Transact/" + members[i]
		}
		txnCases = group(txnCases, "Transact/"+name, members...)
	}
	g("cancelled transactions change nothing", "all or nothing", "cancellation reasons in request order",
		"ReturnValuesOnConditionCheckFailure ALL_OLD", "wrong key type", "update arithmetic on a string")
	g("invalid write requests", "same item twice", "same item in check and put", "101 items", "empty",
		"invalid item key", "update expression error on one item", "item over 400 KB", "missing table")
	g("invalid get requests", "get 101 items", "get missing table", "get wrong key type")
}
