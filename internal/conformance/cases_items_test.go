package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// allTypes is an item with every attribute type.
var allTypes = I{
	"pk":   S("all"),
	"s":    S("héllo"),
	"n":    N("42"),
	"b":    B(1, 2, 3),
	"t":    BOOL(true),
	"f":    BOOL(false),
	"nul":  NULL(),
	"l":    L(S("x"), N("1"), L(), M(I{})),
	"m":    M(I{"a": M(I{"b": L(M(I{"c": S("deep")}))}), "n": N("1")}),
	"ss":   SS("b", "a", "c"),
	"ns":   NS("3", "1", "-2.5"),
	"bs":   BS([]byte{2}, []byte{1}),
	"es":   S(""),
	"eb":   B(),
	"emap": M(I{}),
}

// bigString returns a string of n bytes.
func bigString(n int) string { return strings.Repeat("x", n) }

var itemCases = []tc{
	// A PutItem's names or values without a condition, then its item's
	// values, then its condition, as DynamoDB checks them (dynalite's
	// suite records the order; TestDifferentialItemParameters found the
	// engine checking the condition first). A transaction's put checks
	// its condition first, as DynamoDB Local does.
	{
		name:   "PutItem/which error first",
		tables: tables(tPKSK()),
		steps: []step{
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: I{"pk": S("a"), "sk": S("1"), "e": &types.AttributeValueMemberSS{Value: []string{}}},
				ConditionExpression: str("attribute_exists(#zz)")}),
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: I{"pk": S("a"), "sk": S("1"), "e": &types.AttributeValueMemberSS{Value: []string{}}},
				ExpressionAttributeNames: map[string]string{"#n": "n"}}),
			failMsg(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: I{"pk": S("a"), "sk": S("1"), "e": &types.AttributeValueMemberNS{Value: []string{"1", "1"}}},
				ConditionExpression: str("attribute_exists(pk) AND"), ExpressionAttributeValues: vals{":u": N("1")}}),
			failMsg(eValid, tw(twPutIf("T", I{"pk": S("a"), "sk": S("1"), "e": &types.AttributeValueMemberSS{Value: []string{}}}, "attribute_exists(#zz)", nil))),
		},
	},
	{
		name:   "PutItem/all types round trip",
		tables: tables(tPK()),
		steps:  []step{do(put(allTypes)), do(get(pk("all")))},
	},
	{
		name:   "PutItem/number canonical form",
		tables: tables(tPK()),
		steps: []step{
			do(put(I{"pk": S("n"), "a": N("1.50"), "b": N("-0"), "c": N("0.000"), "d": N("1e2"), "e": N("00012"),
				"f": N("-1.0E-3"), "g": N("12345678901234567890123456789012345678"), "h": N("1E+125"),
				"i": N("-1E-130"), "j": NS("1.0", "2.50", "1e1")})),
			do(get(pk("n"))),
		},
	},
	// DynamoDB trims a number's leading and trailing zeroes wherever it
	// is, in a list or map too
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number).
	// DynamoDB Local keeps a nested number as it was written.
	{
		name:   "PutItem/nested number canonical form",
		tables: tables(tPK()),
		steps: []step{
			do(put(I{"pk": S("n"), "m": M(I{"a": N("003"), "b": N("1.50")}), "l": L(N("-0.0"), N("2.000"), M(I{"c": N("1e2")}))})),
			docStep(do(get(pk("n"))), "DynamoDB Local keeps a number inside a list or map as it was written",
				`{"Out":{"Item":{"l":{"L":[{"N":"0"},{"N":"2"},{"M":{"c":{"N":"100"}}}]},"m":{"M":{"a":{"N":"3"},"b":{"N":"1.5"}}},"pk":{"S":"n"}}}}`),
		},
	},
	{
		name:   "PutItem/invalid number",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("n"), "a": N("abc")}))},
	},
	{
		name:   "PutItem/number with 39 significant digits",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("n"), "a": N("123456789012345678901234567890123456789")}))},
	},
	{
		name:   "PutItem/number too large",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("n"), "a": N("1E126")}))},
	},
	{
		name:   "PutItem/number too small",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("n"), "a": N("1E-131")}))},
	},
	{
		name:   "PutItem/overwrite returns ALL_OLD",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "v": N("1"), "x": S("gone")}},
		steps: []step{
			do(&dynamodb.PutItemInput{TableName: str("T"), Item: I{"pk": S("a"), "v": N("2")}, ReturnValues: types.ReturnValueAllOld}),
			do(get(pk("a"))),
		},
	},
	{
		name:   "PutItem/ALL_OLD on new item",
		tables: tables(tPK()),
		steps: []step{
			do(&dynamodb.PutItemInput{TableName: str("T"), Item: pk("a"), ReturnValues: types.ReturnValueAllOld}),
		},
	},
	{
		name:   "PutItem/ReturnValues ALL_NEW is invalid",
		tables: tables(tPK()),
		steps: []step{
			fail(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: pk("a"), ReturnValues: types.ReturnValueAllNew}),
		},
	},
	{
		name:   "PutItem/empty string hash key",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(pk("")))},
	},
	{
		name:   "PutItem/empty string range key",
		tables: tables(tPKSK()),
		steps:  []step{fail(eValid, put(pks("a", "")))},
	},
	{
		name:   "PutItem/empty binary key",
		tables: tables(table("T", hs("pk", "B"), attr{})),
		steps:  []step{fail(eValid, put(I{"pk": B()}))},
	},
	{
		name:   "PutItem/empty string and binary non-key attributes",
		tables: tables(tPK()),
		steps:  []step{do(put(I{"pk": S("a"), "s": S(""), "b": B(), "l": L(S("")), "m": M(I{"e": S("")})})), do(get(pk("a")))},
	},
	{
		name:   "PutItem/missing hash key",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"other": S("a")}))},
	},
	{
		name:   "PutItem/missing range key",
		tables: tables(tPKSK()),
		steps:  []step{fail(eValid, put(pk("a")))},
	},
	{
		name:   "PutItem/wrong hash key type",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": N("1")}))},
	},
	{
		name:   "PutItem/wrong range key type",
		tables: tables(table("T", hs("pk", "S"), hs("sk", "N"))),
		steps:  []step{fail(eValid, put(I{"pk": S("a"), "sk": S("1")}))},
	},
	{
		name:   "PutItem/empty string set",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("a"), "ss": SS()}))},
	},
	{
		name:   "PutItem/empty number set",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("a"), "ns": NS()}))},
	},
	{
		name:   "PutItem/duplicate set members",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("a"), "ss": SS("x", "x")}))},
	},
	{
		name:   "PutItem/duplicate number set members after canonicalization",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("a"), "ns": NS("1", "1.0")}))},
	},
	{
		// Item size: attribute name lengths plus value lengths. "pk"+"a" is
		// 3 bytes, "d" is 1, so a 409596-byte value makes exactly 400 KB.
		name:   "PutItem/item of exactly 400 KB",
		tables: tables(tPK()),
		steps:  []step{do(put(I{"pk": S("a"), "d": S(bigString(409596))}))},
	},
	{
		name:   "PutItem/item one byte over 400 KB",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(I{"pk": S("a"), "d": S(bigString(409597))}))},
	},
	{
		name:   "PutItem/item over 400 KB in many attributes",
		tables: tables(tPK()),
		steps: []step{fail(eValid, put(I{"pk": S("a"), "d1": S(bigString(150000)), "d2": B(make([]byte, 150000)...),
			"d3": L(S(bigString(120000)))}))},
	},
	{
		name:   "PutItem/hash key over 2048 bytes",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, put(pk(bigString(2049))))},
	},
	{
		name:   "PutItem/hash key of 2048 bytes",
		tables: tables(tPK()),
		steps:  []step{do(put(pk(bigString(2048)))), do(get(pk(bigString(2048))))},
	},
	{
		name:   "PutItem/range key over 1024 bytes",
		tables: tables(tPKSK()),
		steps:  []step{fail(eValid, put(pks("a", bigString(1025))))},
	},
	{
		name:   "GetItem/missing item",
		tables: tables(tPK()),
		steps:  []step{do(get(pk("nope")))},
	},
	{
		name:   "GetItem/projection",
		tables: tables(tPK()),
		items:  []I{allTypes},
		steps:  []step{do(getP(pk("all"), "s, n, ss, nothing", nil))},
	},
	{
		name:   "GetItem/projection of nested paths",
		tables: tables(tPK()),
		items:  []I{allTypes},
		steps: []step{
			do(getP(pk("all"), "m.a.b[0].c, l[1], l[3], m.n, l[9]", nil)),
			do(getP(pk("all"), "m.a, l", nil)),
		},
	},
	{
		name:   "GetItem/projection with names",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "name": S("x"), "a.b": S("dotted"), "a": M(I{"b": S("nested")})}},
		steps: []step{
			do(getP(pk("a"), "#n, #ab, #a.#b", names{"#n": "name", "#ab": "a.b", "#a": "a", "#b": "b"})),
		},
	},
	{
		name:   "GetItem/projection with reserved word",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "name": S("x")}},
		steps:  []step{fail(eValid, getP(pk("a"), "name", nil))},
	},
	{
		name:   "GetItem/projection with unused name",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a")}},
		steps:  []step{failMsg(eValid, getP(pk("a"), "pk", names{"#x": "x"}))},
	},
	{
		name:   "GetItem/projection with undefined name",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a")}},
		steps:  []step{failMsg(eValid, getP(pk("a"), "#x", nil))},
	},
	{
		name:   "GetItem/projection overlapping paths",
		tables: tables(tPK()),
		items:  []I{allTypes},
		steps:  []step{fail(eValid, getP(pk("all"), "m, m.a", nil))},
	},
	{
		name:   "GetItem/key missing range",
		tables: tables(tPKSK()),
		steps:  []step{fail(eValid, get(pk("a")))},
	},
	{
		name:   "GetItem/key with extra attribute",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, get(I{"pk": S("a"), "x": S("b")}))},
	},
	{
		name:   "GetItem/wrong key type",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, get(I{"pk": B(1)}))},
	},
	{
		name:   "GetItem/empty string key",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, get(pk("")))},
	},
	{
		name:   "GetItem/number key canonical match",
		tables: tables(table("T", hs("id", "N"), attr{})),
		items:  []I{{"id": N("1.50"), "v": S("x")}},
		steps:  []step{do(get(I{"id": N("1.5")})), do(get(I{"id": N("15E-1")})), do(get(I{"id": N("1.6")}))},
	},
	{
		name:   "DeleteItem/existing ALL_OLD",
		tables: tables(tPKSK()),
		items:  []I{{"pk": S("a"), "sk": S("1"), "v": S("x")}},
		steps: []step{
			do(&dynamodb.DeleteItemInput{TableName: str("T"), Key: pks("a", "1"), ReturnValues: types.ReturnValueAllOld}),
			do(get(pks("a", "1"))),
		},
	},
	{
		name:   "DeleteItem/missing ALL_OLD",
		tables: tables(tPKSK()),
		steps: []step{
			do(&dynamodb.DeleteItemInput{TableName: str("T"), Key: pks("a", "1"), ReturnValues: types.ReturnValueAllOld}),
		},
	},
	{
		name:   "DeleteItem/ReturnValues ALL_NEW is invalid",
		tables: tables(tPK()),
		steps: []step{
			fail(eValid, &dynamodb.DeleteItemInput{TableName: str("T"), Key: pk("a"), ReturnValues: types.ReturnValueAllNew}),
		},
	},
	{
		name:   "DeleteItem/wrong key type",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, del(I{"pk": N("1")}))},
	},
	{
		name:   "PutItem/expression values without expression",
		tables: tables(tPK()),
		steps: []step{fail(eValid, &dynamodb.PutItemInput{TableName: str("T"), Item: pk("a"),
			ExpressionAttributeValues: vals{":v": S("x")}})},
	},
}

func init() {
	itemCases = group(itemCases, "PutItem/invalid numbers",
		"PutItem/invalid number", "PutItem/number with 39 significant digits", "PutItem/number too large",
		"PutItem/number too small")
	itemCases = group(itemCases, "PutItem/invalid hash keys and parameters",
		"PutItem/empty string hash key", "PutItem/missing hash key", "PutItem/wrong hash key type",
		"PutItem/hash key over 2048 bytes", "PutItem/ReturnValues ALL_NEW is invalid",
		"PutItem/expression values without expression", "DeleteItem/ReturnValues ALL_NEW is invalid",
		"DeleteItem/wrong key type")
	itemCases = group(itemCases, "PutItem/invalid sets",
		"PutItem/empty string set", "PutItem/empty number set", "PutItem/duplicate set members",
		"PutItem/duplicate number set members after canonicalization")
	itemCases = group(itemCases, "PutItem/items over 400 KB",
		"PutItem/item one byte over 400 KB", "PutItem/item over 400 KB in many attributes")
	itemCases = group(itemCases, "PutItem/invalid range keys",
		"PutItem/empty string range key", "PutItem/missing range key", "PutItem/range key over 1024 bytes",
		"GetItem/key missing range")
	itemCases = group(itemCases, "GetItem/invalid keys",
		"GetItem/key with extra attribute", "GetItem/wrong key type", "GetItem/empty string key", "GetItem/missing item")
	itemCases = group(itemCases, "GetItem/projections",
		"GetItem/projection", "GetItem/projection of nested paths", "GetItem/projection overlapping paths")
	itemCases = group(itemCases, "GetItem/projection placeholders",
		"GetItem/projection with unused name", "GetItem/projection with undefined name")
}
