package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// check is one condition evaluated against condItem by a conditional
// PutItem that writes the item back unchanged: pass or
// ConditionalCheckFailed, or err (a validation error).
type check struct {
	cond string
	n    names
	v    vals
	pass bool
	err  string
	msg  bool
}

func pass(cond string, v vals) check   { return check{cond: cond, v: v, pass: true} }
func nopass(cond string, v vals) check { return check{cond: cond, v: v} }
func invalid(cond string, v vals) check {
	return check{cond: cond, v: v, err: eValid}
}

// invalidMsg is invalid, comparing the message's text too.
func invalidMsg(cond string, v vals, n names) check {
	return check{cond: cond, v: v, n: n, err: eValid, msg: true}
}

// condItem is the item every condition case evaluates against.
var condItem = I{
	"pk":    S("c"),
	"n":     N("5"),
	"neg":   N("-2.5"),
	"s":     S("mango"),
	"u":     S("héllo"),
	"b":     B(5, 6),
	"t":     BOOL(true),
	"nul":   NULL(),
	"l":     L(S("a"), N("2"), M(I{"c": S("deep")})),
	"m":     M(I{"a": M(I{"b": L(M(I{"c": N("7")}))}), "k": S("v")}),
	"ss":    SS("x", "y"),
	"ns":    NS("1", "2", "3"),
	"bs":    BS([]byte{1}, []byte{2}),
	"e":     S(""),
	"dash-": S("d"),
}

func condCase(name string, checks ...check) tc {
	c := tc{name: "Condition/" + name, tables: tables(tPK()), items: []I{condItem}}
	for _, k := range checks {
		in := putIf(condItem, k.cond, k.v)
		in.ExpressionAttributeNames = k.n
		switch {
		case k.err != "":
			c.steps = append(c.steps, step{in: in, err: k.err, msg: k.msg})
		case k.pass:
			c.steps = append(c.steps, do(in))
		default:
			c.steps = append(c.steps, fail(eCond, in))
		}
	}
	return c
}

// comparatorCases checks every comparator on N, S and B operands below,
// equal to and above the stored value.
func comparatorCases() []tc {
	type operand struct {
		attr       string
		lo, eq, hi types.AttributeValue
		typ        string
	}
	operands := []operand{
		{"n", N("4.99"), N("5.0"), N("10"), "N"},
		{"neg", N("-3"), N("-2.50"), N("-2.4"), "N"},
		{"s", S("mangn"), S("mango"), S("mangoes"), "S"},
		{"b", B(5), B(5, 6), B(5, 7), "B"},
	}
	ops := []struct {
		op string
		ok func(c int) bool // c: stored value compared to operand
	}{
		{"=", func(c int) bool { return c == 0 }},
		{"<>", func(c int) bool { return c != 0 }},
		{"<", func(c int) bool { return c < 0 }},
		{"<=", func(c int) bool { return c <= 0 }},
		{">", func(c int) bool { return c > 0 }},
		{">=", func(c int) bool { return c >= 0 }},
	}
	var out []tc
	for _, o := range operands {
		var parts []tc
		for _, op := range ops {
			var checks []check
			for _, v := range []struct {
				av types.AttributeValue
				c  int
			}{{o.lo, 1}, {o.eq, 0}, {o.hi, -1}} {
				checks = append(checks, check{cond: fmt.Sprintf("%s %s :v", o.attr, op.op), v: vals{":v": v.av}, pass: op.ok(v.c)})
			}
			parts = append(parts, condCase(fmt.Sprintf("%s %s %s", o.attr, op.op, o.typ), checks...))
		}
		out = append(out, merged(fmt.Sprintf("Condition/comparators on %s (%s)", o.attr, o.typ), parts...))
	}
	return out
}

var condCases = append(comparatorCases(), []tc{
	condCase("compare across types",
		nopass("n = :v", vals{":v": S("5")}),
		pass("n <> :v", vals{":v": S("5")}),
		nopass("n < :v", vals{":v": S("5")}),
		nopass("s > :v", vals{":v": N("1")}),
		nopass("b = :v", vals{":v": S("\x05\x06")}),
	),
	condCase("compare missing attribute",
		nopass("nope = :v", vals{":v": N("5")}),
		pass("nope <> :v", vals{":v": N("5")}),
		nopass("nope < :v", vals{":v": N("5")}),
		nopass("nope >= :v", vals{":v": N("5")}),
	),
	condCase("compare two attributes",
		pass("n > neg", nil),
		nopass("n = neg", nil),
		invalid("s = s", nil), // operands must be distinct
		pass("m.a.b[0].c > n", nil),
	),
	condCase("compare bool null list map",
		pass("t = :t", vals{":t": BOOL(true)}),
		nopass("t = :t", vals{":t": BOOL(false)}),
		pass("nul = :n", vals{":n": NULL()}),
		pass("l = :l", vals{":l": L(S("a"), N("2.0"), M(I{"c": S("deep")}))}),
		nopass("l = :l", vals{":l": L(S("a"), N("2"))}),
		pass("m.a = :m", vals{":m": M(I{"b": L(M(I{"c": N("7")}))})}),
		pass("ss = :s", vals{":s": SS("y", "x")}),
		nopass("ss = :s", vals{":s": SS("x")}),
		invalid("t < :t", vals{":t": BOOL(true)}),
	),
	condCase("BETWEEN",
		pass("n BETWEEN :a AND :b", vals{":a": N("1"), ":b": N("9")}),
		pass("n BETWEEN :a AND :b", vals{":a": N("5"), ":b": N("5")}),
		nopass("n BETWEEN :a AND :b", vals{":a": N("6"), ":b": N("9")}),
		pass("s BETWEEN :a AND :b", vals{":a": S("m"), ":b": S("n")}),
		nopass("s BETWEEN :a AND :b", vals{":a": N("1"), ":b": N("9")}),
		pass("b BETWEEN :a AND :b", vals{":a": B(5), ":b": B(6)}),
		nopass("nope BETWEEN :a AND :b", vals{":a": N("1"), ":b": N("9")}),
	),
	condCase("BETWEEN bounds reversed",
		invalid("n BETWEEN :a AND :b", vals{":a": N("9"), ":b": N("1")}),
	),
	condCase("BETWEEN bounds of different types",
		invalid("n BETWEEN :a AND :b", vals{":a": N("1"), ":b": S("9")}),
	),
	condCase("IN",
		pass("n IN (:a, :b)", vals{":a": N("4"), ":b": N("5")}),
		nopass("n IN (:a, :b)", vals{":a": N("4"), ":b": N("6")}),
		pass("s IN (:a)", vals{":a": S("mango")}),
		nopass("s IN (:a, :b)", vals{":a": N("5"), ":b": B(5)}),
		invalid("n IN (:a, n)", vals{":a": N("4")}),
		pass("neg IN (:a, n)", vals{":a": N("-2.50")}),
		nopass("nope IN (:a)", vals{":a": N("4")}),
	),
	func() tc {
		v := vals{}
		list := ""
		for i := 0; i <= 100; i++ {
			k := fmt.Sprintf(":v%d", i)
			v[k] = N(fmt.Sprint(i))
			if i > 0 {
				list += ", "
			}
			list += k
		}
		return condCase("IN with 101 values", invalid("n IN ("+list+")", v))
	}(),
	condCase("AND OR NOT",
		pass("n = :five AND s = :s", vals{":five": N("5"), ":s": S("mango")}),
		nopass("n = :five AND s = :s", vals{":five": N("5"), ":s": S("x")}),
		pass("n = :four OR s = :s", vals{":four": N("4"), ":s": S("mango")}),
		nopass("n = :four OR s = :s", vals{":four": N("4"), ":s": S("x")}),
		pass("NOT n = :four", vals{":four": N("4")}),
		nopass("NOT n = :five", vals{":five": N("5")}),
		pass("NOT NOT n = :five", vals{":five": N("5")}),
	),
	condCase("precedence and parentheses",
		// AND binds tighter than OR; NOT tighter than AND.
		pass("n = :x OR n = :five AND s = :y", vals{":x": N("5"), ":five": N("4"), ":y": S("no")}),
		nopass("(n = :x OR n = :five) AND s = :y", vals{":x": N("5"), ":five": N("4"), ":y": S("no")}),
		pass("NOT n = :x AND s = :s", vals{":x": N("4"), ":s": S("mango")}),
		nopass("NOT (n = :x AND s = :s)", vals{":x": N("5"), ":s": S("mango")}),
		invalid("((n = :x))", vals{":x": N("5")}), // redundant parentheses
		pass("(n = :x)", vals{":x": N("5")}),
	),
	condCase("attribute_exists and attribute_not_exists",
		pass("attribute_exists(pk)", nil),
		pass("attribute_exists(m.a.b[0].c)", nil),
		nopass("attribute_exists(m.a.b[1])", nil),
		nopass("attribute_exists(nope)", nil),
		pass("attribute_not_exists(nope)", nil),
		nopass("attribute_not_exists(s)", nil),
		pass("attribute_exists(nul)", nil),
		pass("attribute_exists(e)", nil),
		pass("attribute_not_exists(s.x)", nil),
		pass("attribute_not_exists(n[0])", nil),
	),
	condCase("attribute_type every type",
		pass("attribute_type(s, :t)", vals{":t": S("S")}),
		pass("attribute_type(n, :t)", vals{":t": S("N")}),
		pass("attribute_type(b, :t)", vals{":t": S("B")}),
		pass("attribute_type(t, :t)", vals{":t": S("BOOL")}),
		pass("attribute_type(nul, :t)", vals{":t": S("NULL")}),
		pass("attribute_type(l, :t)", vals{":t": S("L")}),
		pass("attribute_type(m, :t)", vals{":t": S("M")}),
		pass("attribute_type(ss, :t)", vals{":t": S("SS")}),
		pass("attribute_type(ns, :t)", vals{":t": S("NS")}),
		pass("attribute_type(bs, :t)", vals{":t": S("BS")}),
		nopass("attribute_type(s, :t)", vals{":t": S("N")}),
		nopass("attribute_type(nope, :t)", vals{":t": S("S")}),
		pass("attribute_type(m.a.b, :t)", vals{":t": S("L")}),
	),
	condCase("attribute_type invalid type",
		invalid("attribute_type(s, :t)", vals{":t": S("STRING")}),
	),
	condCase("attribute_type type operand not a string",
		invalid("attribute_type(s, :t)", vals{":t": N("1")}),
	),
	condCase("begins_with",
		pass("begins_with(s, :p)", vals{":p": S("man")}),
		pass("begins_with(s, :p)", vals{":p": S("mango")}),
		pass("begins_with(s, :p)", vals{":p": S("")}),
		nopass("begins_with(s, :p)", vals{":p": S("mangos")}),
		nopass("begins_with(s, :p)", vals{":p": S("ang")}),
		pass("begins_with(b, :p)", vals{":p": B(5)}),
		nopass("begins_with(b, :p)", vals{":p": B(6)}),
		nopass("begins_with(n, :p)", vals{":p": S("5")}),
		nopass("begins_with(nope, :p)", vals{":p": S("m")}),
		pass("begins_with(u, :p)", vals{":p": S("hé")}),
	),
	condCase("begins_with number operand",
		invalid("begins_with(s, :p)", vals{":p": N("1")}),
	),
	condCase("contains",
		pass("contains(s, :p)", vals{":p": S("ngo")}),
		nopass("contains(s, :p)", vals{":p": S("xyz")}),
		pass("contains(ss, :p)", vals{":p": S("x")}),
		nopass("contains(ss, :p)", vals{":p": S("z")}),
		pass("contains(ns, :p)", vals{":p": N("2.0")}),
		pass("contains(bs, :p)", vals{":p": B(2)}),
		pass("contains(l, :p)", vals{":p": S("a")}),
		pass("contains(l, :p)", vals{":p": N("2")}),
		nopass("contains(l, :p)", vals{":p": S("2")}),
		pass("contains(b, :p)", vals{":p": B(6)}),
		nopass("contains(nope, :p)", vals{":p": S("a")}),
		nopass("contains(n, :p)", vals{":p": N("5")}),
		nopass("contains(ss, :p)", vals{":p": N("1")}),
	),
	condCase("size",
		pass("size(s) = :n", vals{":n": N("5")}),
		pass("size(u) = :n", vals{":n": N("5")}), // DynamoDB Local counts characters of "héllo", not UTF-8 bytes
		pass("size(b) = :n", vals{":n": N("2")}),
		pass("size(l) = :n", vals{":n": N("3")}),
		pass("size(m) = :n", vals{":n": N("2")}),
		pass("size(ss) = :n", vals{":n": N("2")}),
		pass("size(ns) > :n", vals{":n": N("2")}),
		pass("size(bs) BETWEEN :a AND :b", vals{":a": N("1"), ":b": N("2")}),
		pass("size(e) = :n", vals{":n": N("0")}),
		nopass("size(nope) = :n", vals{":n": N("0")}),
		nopass("size(n) = :n", vals{":n": N("1")}),
		pass("size(m.a.b) = :n", vals{":n": N("1")}),
		pass("size(s) > size(ss)", nil),
	),
	condCase("nested paths",
		pass("m.a.b[0].c = :v", vals{":v": N("7")}),
		pass("l[2].c = :v", vals{":v": S("deep")}),
		pass("l[0] = :v", vals{":v": S("a")}),
		nopass("l[5] = :v", vals{":v": S("a")}),
		nopass("m.k.x = :v", vals{":v": S("v")}),
		nopass("s[0] = :v", vals{":v": S("m")}),
		pass("m.k = :v", vals{":v": S("v")}),
	),
	condCase("names",
		check{cond: "#d = :v", n: names{"#d": "dash-"}, v: vals{":v": S("d")}, pass: true},
		check{cond: "#m.#a.#b[0].#c = :v", n: names{"#m": "m", "#a": "a", "#b": "b", "#c": "c"}, v: vals{":v": N("7")}, pass: true},
		check{cond: "#s = :v", n: names{"#s": "size"}, v: vals{":v": N("1")}},
		check{cond: "#n = #n", n: names{"#n": "n"}, err: eValid},
	),
	condCase("reserved word as name",
		invalid("name = :v", vals{":v": N("1")}),
	),
	condCase("syntax errors",
		invalid("n = ", nil),
		invalid("n == :v", vals{":v": N("1")}),
		invalid("(n = :v", vals{":v": N("1")}),
		invalid("n = :v AND", vals{":v": N("1")}),
		invalid("unknown_fn(n)", nil),
		invalid("attribute_exists(n, s)", nil),
		invalid("size(n)", nil),
		invalid("n", nil),
		invalid("", nil),
	),
	condCase("unused value placeholder",
		check{cond: "n = :v", v: vals{":v": N("5"), ":unused": N("1")}, err: eValid, msg: true},
	),
	condCase("missing value placeholder",
		check{cond: "n = :v", err: eValid, msg: true},
	),
	condCase("missing value placeholder with other values",
		check{cond: "n = :v", v: vals{":w": N("1")}, err: eValid, msg: true},
	),
	condCase("unused name placeholder",
		check{cond: "n = :v", n: names{"#x": "x"}, v: vals{":v": N("5")}, err: eValid, msg: true},
	),
	condCase("missing name placeholder",
		check{cond: "#x = :v", v: vals{":v": N("5")}, err: eValid, msg: true},
	),
	condCase("empty expression attribute values map",
		check{cond: "attribute_exists(pk)", v: vals{}, err: eValid},
	),
	// The order of a condition's checks: a syntax error anywhere first
	// (a character no token has, a grammar word as a name, an operand
	// in parentheses followed by a path's step); doubled parentheses
	// where the parser meets them, before a later syntax error; then in
	// the order written a reserved word, a function name, a function
	// used where it cannot be (reported at its name); then each
	// comparison or function in turn: its placeholders, its functions'
	// operand counts, distinct operands, then operand types (size's
	// innermost first); unused placeholders last. dynalite's suite
	// records DynamoDB answering alike.
	condCase("check order",
		invalidMsg(`n = "x"`, nil, nil),
		invalidMsg("s > ü", nil, nil),
		invalidMsg("n > between", nil, nil),
		invalidMsg("n.in = :v", vals{":v": N("1")}, nil),
		invalidMsg("(n).x = :v", vals{":v": N("1")}, nil),
		invalidMsg("(n)[0] = :v", vals{":v": N("1")}, nil),
		invalidMsg("attribute_exists()", nil, nil),
		invalidMsg("((n)) = :v AND n :v", vals{":v": N("1")}, nil),
		invalidMsg("n = ((:v))", vals{":v": N("1")}, nil),
		invalidMsg("n BETWEEN ((s.x)).y AND :v", vals{":v": N("1")}, nil),
		invalidMsg("name = :v AND ((n)) = :v", vals{":v": N("1")}, nil),
		invalidMsg("unknown_fn(n) = :v AND ((n)) = :v", vals{":v": N("1")}, nil),
		invalidMsg("attribute_exists(n) = :v AND unknown_fn(n) = :v", vals{":v": N("1")}, nil),
		invalidMsg("unknown_fn(n) = :v AND attribute_exists(n) = :v", vals{":v": N("1")}, nil),
		invalidMsg("attribute_exists((name)) > :v", vals{":v": N("1")}, nil),
		invalidMsg("if_not_exists(n, s) = :v", vals{":v": N("1")}, nil),
		invalidMsg("size(n) AND name = :v", vals{":v": N("1")}, nil),
		invalidMsg("size(contains(n, s)) > :v", vals{":v": N("1")}, nil),
		invalidMsg("n = :v AND #x = s AND n = n", nil, nil),
		invalidMsg("n = n AND #x = s", nil, nil),
		invalidMsg("begins_with(:v, #a, #b)", nil, nil),
		invalidMsg("attribute_exists(#x.y, :v) AND n = n", nil, nil),
		invalidMsg("attribute_type(n, size(n)) AND n = n AND n = :v", vals{":v": N("1")}, nil),
		invalidMsg("size(size(n)) > :v", vals{":v": N("1")}, nil),
		invalidMsg("size(:v) > n", vals{":v": BOOL(true)}, nil),
		invalidMsg("attribute_not_exists(size(:v))", vals{":v": N("1")}, nil),
		invalidMsg("attribute_not_exists(size(:v))", vals{":v": S("x")}, nil),
		invalidMsg("contains(n, n) AND size(:v) > s", vals{":v": N("1")}, nil),
		invalidMsg("size(:v) > s AND contains(n, n)", vals{":v": N("1")}, nil),
		invalidMsg("attribute_type(m.k, m.k)", nil, nil),
		invalidMsg("attribute_type(:v, :v)", vals{":v": S("x")}, nil),
		invalidMsg("n = n", nil, names{"#u": "u"}),
		invalidMsg("n = n", vals{":u": N("1")}, nil),
	),
	// attribute_type of a path's type: DynamoDB Local lists its own
	// internal type names; DynamoDB lists the ten types (dynalite's
	// suite records it), and the engine does.
	{
		name:   "Condition/attribute_type of a path's type",
		tables: tables(tPK()),
		items:  []I{condItem},
		steps: []step{docStep(failMsg(eValid, putIf(condItem, "attribute_type(n, s)", nil)), "DynamoDB Local names its internal types",
			`{"Err":{"Kind":"Validation","Code":"ValidationException","Message":"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"}}`)},
	},
	// The order of checks in expressions with several errors, as random
	// invalid filters found it (TestDifferentialMalformedFilters): a
	// size's operand count and type where the size ends, a placeholder
	// where it is written; in the first operand, a syntax error before
	// doubled parentheses; in a condition and an operand in the same
	// parentheses, the condition's doubled parentheses first.
	condCase("check order of operands",
		invalidMsg("size(:v) < :u", vals{":v": NULL()}, nil),
		invalidMsg("n >= size(size(:u))", vals{":v": N("1")}, nil),
		invalidMsg("attribute_exists(n, size(:v))", vals{":v": BOOL(true)}, nil),
		invalidMsg("size(size(:v, size(:w))) = n", vals{":v": S("x"), ":w": N("1")}, nil),
		invalidMsg("begins_with(((:v))", vals{":v": S("x")}, nil),
		invalidMsg("n > size(s, contains(((n)))", nil, nil),
		invalidMsg("(((contains(:v, l[0])))", vals{":v": S("x")}, nil),
		invalidMsg("((begins_with(l[0], :v))) . <= :v", vals{":v": S("x")}, nil),
		invalidMsg("((size((s)))) IN (between, n)", nil, nil),
		invalidMsg("n BETWEEN s AND :v AND between IN (# :v)", vals{":v": S("x")}, nil),
	),
	// size is on DynamoDB's list of reserved words, but a name all the
	// same, as DynamoDB Local answers.
	condCase("size as a name",
		nopass("size = :v", vals{":v": S("x")}),
		pass("attribute_not_exists(size)", nil),
		pass("attribute_not_exists(m.SIZE)", nil),
		nopass("size(size) = :v", vals{":v": N("0")}),
	),
	// size, contains, begins_with and attribute_type take a value too.
	condCase("functions of values",
		pass("size(:v) = :n", vals{":v": S("abc"), ":n": N("3")}),
		nopass("size(:v) = :n", vals{":v": S("abc"), ":n": N("2")}),
		pass("size(:v) = size(l)", vals{":v": L(N("1"), N("2"), N("3"))}),
		pass("attribute_type(:v, :t)", vals{":v": N("1"), ":t": S("N")}),
		nopass("attribute_type(:v, :t)", vals{":v": N("1"), ":t": S("S")}),
		pass("contains(:v, s)", vals{":v": SS("mango", "x")}),
		pass("begins_with(:v, :p)", vals{":v": S("mango"), ":p": S("ma")}),
		pass("(n) BETWEEN (:a) AND (:b)", vals{":a": N("1"), ":b": N("9")}),
		pass("(n) IN ((:a), :b)", vals{":a": N("1"), ":b": N("5")}),
	),
	condCase("function in comparison operand",
		invalid("attribute_exists(n) = :v", vals{":v": BOOL(true)}),
	),
	{
		name:   "Condition/attribute_not_exists on new item",
		tables: tables(tPKSK()),
		items:  []I{pks("a", "1")},
		steps: []step{
			do(putIf(pks("a", "2"), "attribute_not_exists(pk)", nil)),
			fail(eCond, putIf(pks("a", "1"), "attribute_not_exists(pk)", nil)),
			fail(eCond, putIf(pks("a", "3"), "attribute_exists(pk)", nil)),
		},
	},
	{
		name:   "Condition/DeleteItem",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "v": N("1")}},
		steps: []step{
			fail(eCond, delIf(pk("a"), "v = :v", vals{":v": N("2")})),
			do(get(pk("a"))),
			do(delIf(pk("a"), "v = :v", vals{":v": N("1")})),
			fail(eCond, delIf(pk("a"), "attribute_exists(pk)", nil)),
			do(delIf(pk("b"), "attribute_not_exists(pk)", nil)),
		},
	},
	{
		name:   "Condition/ReturnValuesOnConditionCheckFailure ALL_OLD",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "v": N("1"), "l": L(S("x"))}},
		steps: []step{
			fail(eCond, &dynamodb.PutItemInput{TableName: str("T"), Item: pk("a"), ConditionExpression: str("attribute_not_exists(pk)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
			fail(eCond, &dynamodb.DeleteItemInput{TableName: str("T"), Key: pk("a"), ConditionExpression: str("v = :v"),
				ExpressionAttributeValues:           vals{":v": N("2")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
			fail(eCond, &dynamodb.UpdateItemInput{TableName: str("T"), Key: pk("a"), ConditionExpression: str("v = :v"),
				UpdateExpression: str("SET w = :v"), ExpressionAttributeValues: vals{":v": N("2")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
		},
	},
	{
		name:   "Condition/ReturnValuesOnConditionCheckFailure on missing item",
		tables: tables(tPK()),
		steps: []step{
			fail(eCond, &dynamodb.DeleteItemInput{TableName: str("T"), Key: pk("a"), ConditionExpression: str("attribute_exists(pk)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
		},
	},
	{
		name:   "Condition/ReturnValuesOnConditionCheckFailure NONE",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "v": N("1")}},
		steps: []step{
			fail(eCond, &dynamodb.PutItemInput{TableName: str("T"), Item: pk("a"), ConditionExpression: str("attribute_not_exists(pk)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureNone}),
		},
	},
}...)

func init() {
	g := func(name string, members ...string) {
		for i := range members {
			members[i] = "Condition/" + members[i]
		}
		condCases = group(condCases, "Condition/"+name, members...)
	}
	g("comparisons", "compare across types", "compare missing attribute", "compare two attributes",
		"compare bool null list map")
	g("BETWEEN and IN", "BETWEEN", "BETWEEN bounds reversed", "BETWEEN bounds of different types", "IN",
		"IN with 101 values")
	g("logic and parentheses", "AND OR NOT", "precedence and parentheses")
	g("attribute functions", "attribute_exists and attribute_not_exists", "attribute_type every type",
		"attribute_type invalid type", "attribute_type type operand not a string", "function in comparison operand")
	g("string and set functions", "begins_with", "begins_with number operand", "contains", "size")
	g("paths and names", "nested paths", "names", "reserved word as name")
	g("expression errors", "syntax errors", "unused value placeholder", "missing value placeholder",
		"missing value placeholder with other values", "unused name placeholder", "missing name placeholder",
		"empty expression attribute values map")
}
