package conformance

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// updItem is the starting item of most update cases.
var updItem = I{
	"pk": S("u"),
	"n":  N("10"),
	"s":  S("text"),
	"l":  L(S("a"), S("b"), S("c")),
	"m":  M(I{"a": M(I{"b": L(M(I{"c": N("1")}))}), "k": S("v")}),
	"ss": SS("x", "y"),
	"ns": NS("1", "2"),
	"bs": BS([]byte{1}, []byte{2}),
	"dc": N("0.1"),
}

var uk = pk("u")

// updCase runs updates on updItem; each update returns ALL_NEW.
func updCase(name string, steps ...step) tc {
	return tc{name: "UpdateItem/" + name, tables: tables(tPK()), items: []I{updItem}, steps: steps}
}

var updateCases = []tc{
	// Every action's list index refers to the list as it was: REMOVE
	// applies after SET, ADD and DELETE, whatever the order written.
	updCase("REMOVE with other actions on one list",
		do(upd(uk, "REMOVE l[0] SET l[1] = :x", vals{":x": S("x")})),
		do(&dynamodb.PutItemInput{TableName: str("T"), Item: I{"pk": S("n"), "l": L(N("1"), N("2"), N("3")), "sl": L(SS("a"), SS("b"))}}),
		do(upd(pk("n"), "REMOVE l[0] ADD l[1] :x", vals{":x": N("10")})),
		do(upd(pk("n"), "ADD l[1] :x REMOVE l[0], l[2]", vals{":x": N("10")})),
		do(upd(pk("n"), "REMOVE sl[0] DELETE sl[1] :s", vals{":s": SS("b")})),
		do(upd(pk("n"), "SET l[5] = :x REMOVE l[0]", vals{":x": N("7")})),
		// A path the update cannot reach is reported before a value that
		// does not evaluate.
		failMsg(eValid, upd(uk, "SET a = s.x REMOVE n.x", nil)),
		failMsg(eValid, upd(uk, "SET a = :n - s, m.k.x = :n", vals{":n": N("1")})),
	),
	// list_append may only be the whole value of a SET: not a function's
	// argument nor an operand of + or - ("The function is not allowed
	// to be used this way in an expression"); if_not_exists may be both.
	// The order of an update expression's checks: a syntax error
	// anywhere first; then, in the order written, reserved words,
	// function names and uses, and a section written twice (at its end);
	// then, after the names, values, paths and operand types, operand
	// counts. An operand of the wrong type is reported before a later
	// one that refers to a missing attribute.
	// Found by random invalid updates against DynamoDB Local: doubled
	// parentheses around a SET operand are refused (where met; in the
	// value's first operand once it is whole); after the
	// parse, the names of the paths written, then overlapping paths,
	// then each action from the last written: its placeholders, then its
	// operands' types; a path through a missing attribute is refused
	// after the values are computed, one through a value of the wrong
	// kind before.
	updCase("order of an update's checks by action",
		failMsg(eValid, upd(uk, "SET a = ((:v))", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = ((n + :v))", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = if_not_exists(((n)), :v)", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = ((:v)) REMOVE a", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = if_not_exists(((n)), n - s", vals{":v": N("1")})),
		// The whole value's first operand is known where it ends: its
		// doubled parentheses are reported whatever token follows it (a
		// call's too); inside a parenthesized value, only before "+",
		// "-" or ")", after a syntax error there.
		failMsg(eValid, upd(uk, "SET a = ((n)) x", nil)),
		failMsg(eValid, upd(uk, "SET a = ((n)) :v", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = if_not_exists(((n)), :v) x", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = ((if_not_exists(n, :v))) x", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = (((n)) x)", nil)),
		failMsg(eValid, upd(uk, "SET a = (if_not_exists(((n)), :v) x)", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET a = (if_not_exists(((n)), :v)) x", vals{":v": N("1")})),
		// A value in parentheses within it: once a + or - follows (before
		// an operand is missing), else once the outermost is whole (after
		// a parenthesis left open); after + or -, at once.
		failMsg(eValid, upd(uk, "SET a = ((((n))), b = n", nil)),
		failMsg(eValid, upd(uk, "SET a = (((((n))) + n), b = n", nil)),
		failMsg(eValid, upd(uk, "SET a = (((n)) + )", nil)),
		failMsg(eValid, upd(uk, "SET a = (n - ((n)), b = n", nil)),
		failMsg(eValid, upd(uk, "SET a = :u1, b = :u2", nil)),
		failMsg(eValid, upd(uk, "SET a = #u1 REMOVE #u2", nil)),
		failMsg(eValid, upd(uk, "SET a = :u ADD c :l", vals{":l": L()})),
		failMsg(eValid, upd(uk, "SET a = :u, b = n + :l", vals{":l": L()})),
		failMsg(eValid, upd(uk, "SET a = :u, a = :w", nil)),
		failMsg(eValid, upd(uk, "ADD a :u REMOVE a", nil)),
		failMsg(eValid, upd(uk, "SET x = if_not_exists(:c)", nil)),
		failMsg(eValid, upd(uk, "SET m.a = nope, q.y = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET m.a = nope, n.y = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET q.y = :n", vals{":n": N("1")})),
		// Of several actions that fail on the item, DynamoDB Local
		// reports the last in the order of a Java hash map of their
		// paths' names, level by level (the order written within a
		// bucket): "a" and "q" share a bucket, "s" comes after "q".
		failMsg(eValid, upd(uk, "SET a = nope, q.y = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET q.y = :n, a = nope", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET s = nope, q.y = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET zz = nope, q.y = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET m.k.x = :n, m.q.r = nope", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "ADD q.y :n, s :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "REMOVE q.y SET a = nope", nil)),
		failMsg(eValid, upd(uk, "SET a = nope REMOVE q.y", nil)),
		// The paths written, from the last action: its undefined names,
		// then its overlap with a later path (a path with an undefined
		// name overlaps nothing). DynamoDB Local names as the second path
		// of an overlap the later path reached by following, from the
		// element where the two paths part, the last entry of a Java hash
		// map of the later paths by element, level by level ("overlapping
		// paths" below).
		failMsg(eValid, upd(uk, "DELETE #u :n, x.y :n SET x.y = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET #u = :n, #u = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "ADD l[0] :l REMOVE l[0], #u", vals{":l": L()})),
		failMsg(eValid, upd(uk, "REMOVE s, s ADD l[5] :n, x.y :n", vals{":n": N("1")})),
		failMsg(eValid, updN(uk, "REMOVE l[0], #n DELETE n :n, l[0] :n", names{"#n": "n"}, vals{":n": NS("1")})),
		failMsg(eValid, upd(uk, "ADD l[0] :n, l[0] :n REMOVE l[5], s", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET m.a = :n, q = :n REMOVE m.a, n", vals{":n": N("1")})),
		// A function's operand count and if_not_exists's path with the
		// other checks of its action, in the order written.
		failMsg(eValid, upd(uk, "SET a = if_not_exists(:s, :n) + :u", vals{":s": S("x"), ":n": N("1")})),
		failMsg(eValid, upd(uk, "SET a = if_not_exists(:s, :n), b = list_append(:n)", vals{":s": S("x"), ":n": N("1")})),
		failMsg(eValid, upd(uk, "SET b = list_append(:n), a = if_not_exists(:s, :n)", vals{":s": S("x"), ":n": N("1")})),
		failMsg(eValid, upd(uk, "SET a = :s + if_not_exists(:s, :n)", vals{":s": S("x"), ":n": N("1")})),
	),
	updCase("order of an update expression's checks",
		failMsg(eValid, upd(uk, "SET abort = :n + ", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET n = :n ADD m :n ADD abort :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET n = :n SET m = :n REMOVE abort", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET n = if_not_exists(n) SET m = :n", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET n = list_append(:l, :l, :l) REMOVE abort", vals{":l": L()})),
		failMsg(eValid, upd(uk, "SET n = bogus(abort)", nil)),
		failMsg(eValid, upd(uk, "SET x = list_append(s, nothing)", nil)),
		failMsg(eValid, upd(uk, "SET x = s - nothing", nil)),
		// Operand counts come after the names, values, paths and
		// operand types are checked.
		failMsg(eValid, updN(uk, "SET #c = if_not_exists(:c)", names{"#a": "a"}, vals{":a": S("a")})),
		failMsg(eValid, upd(uk, "SET x = if_not_exists(:c)", vals{":a": S("a")})),
		failMsg(eValid, upd(uk, "SET x = if_not_exists(y), x = :a", vals{":a": S("a")})),
		failMsg(eValid, upd(uk, "SET x = list_append(:a) ADD y :a", vals{":a": S("a")})),
	),
	// if_not_exists evaluates its fallback even when the path exists (a
	// fallback naming a missing attribute fails the update), and refuses
	// the same path twice.
	updCase("if_not_exists fallback and operands",
		failMsg(eValid, upd(uk, "SET n = if_not_exists(n, nothing)", nil)),
		failMsg(eValid, upd(uk, "SET n = if_not_exists(n, l[9])", nil)),
		failMsg(eValid, upd(uk, "SET x = if_not_exists(s, s)", nil)),
		do(upd(uk, "SET x = if_not_exists(nothing, s), y = if_not_exists(n, l[0])", nil)),
	),
	updCase("list_append only as the whole value",
		failMsg(eValid, upd(uk, "SET l = if_not_exists(l, list_append(:l, :l))", vals{":l": L(N("1"))})),
		failMsg(eValid, upd(uk, "SET l = list_append(list_append(:l, :l), :l)", vals{":l": L(N("1"))})),
		failMsg(eValid, upd(uk, "SET l = list_append(:l, :l) + :n", vals{":l": L(N("1")), ":n": N("1")})),
		failMsg(eValid, upd(uk, "SET l = (list_append(:l, :l)) - :n", vals{":l": L(N("1")), ":n": N("1")})),
		failMsg(eValid, upd(uk, "SET l = :n + list_append(:l, :l)", vals{":l": L(N("1")), ":n": N("1")})),
		failMsg(eValid, upd(uk, "SET x = if_not_exists(x, list_append(abort, :l))", vals{":l": L(N("1"))})),
		do(upd(uk, "SET l = list_append(if_not_exists(l, :e), :l), c = if_not_exists(c, if_not_exists(d, :n)) + :n", vals{":l": L(N("1")), ":e": L(), ":n": N("1")})),
		do(upd(uk, "SET l = (list_append(:l, l))", vals{":l": L(N("0"))})),
	),
	updCase("SET new and existing attributes",
		do(upd(uk, "SET a = :a, s = :s", vals{":a": N("1"), ":s": S("new")}))),
	updCase("SET plus and minus",
		do(upd(uk, "SET n = n + :one", vals{":one": N("1")})),
		do(upd(uk, "SET n = n - :d, x = :d - n", vals{":d": N("2.5")})),
		do(upd(uk, "SET dc = dc + :d", vals{":d": N("0.2")})),
		do(upd(uk, "SET y = :a + :b", vals{":a": N("99999999999999999999999999999999999999"), ":b": N("-1")})),
	),
	updCase("SET arithmetic on missing attribute",
		fail(eValid, upd(uk, "SET z = nope + :one", vals{":one": N("1")}))),
	updCase("SET arithmetic on a string",
		fail(eValid, upd(uk, "SET z = s + :one", vals{":one": N("1")}))),
	updCase("SET arithmetic overflow",
		fail(eValid, upd(uk, "SET z = :a + :a", vals{":a": N("9E+125")}))),
	updCase("SET if_not_exists",
		do(upd(uk, "SET n = if_not_exists(n, :z), c = if_not_exists(c, :z)", vals{":z": N("0")})),
		do(upd(uk, "SET cnt = if_not_exists(cnt, :z) + :one", vals{":z": N("0"), ":one": N("1")})),
		do(upd(uk, "SET cnt = if_not_exists(cnt, :z) + :one", vals{":z": N("0"), ":one": N("1")})),
	),
	updCase("SET list_append",
		do(upd(uk, "SET l = list_append(l, :t)", vals{":t": L(S("d"))})),
		do(upd(uk, "SET l = list_append(:h, l)", vals{":h": L(N("0"), S("z"))})),
		do(upd(uk, "SET nl = list_append(if_not_exists(nl, :e), :t)", vals{":e": L(), ":t": L(S("first"))})),
	),
	updCase("SET list_append on a non-list",
		fail(eValid, upd(uk, "SET s = list_append(s, :t)", vals{":t": L(S("d"))}))),
	updCase("SET nested map path",
		do(upd(uk, "SET m.a.b[0].c = :v, m.k = :v, m.newkey = :v", vals{":v": S("set")}))),
	updCase("SET nested path with missing parent",
		fail(eValid, upd(uk, "SET m.nope.c = :v", vals{":v": S("x")}))),
	updCase("SET path through a non-map",
		fail(eValid, upd(uk, "SET s.c = :v", vals{":v": S("x")}))),
	updCase("SET list index",
		do(upd(uk, "SET l[1] = :v", vals{":v": S("B")})),
		do(upd(uk, "SET l[10] = :v", vals{":v": S("end")})),
	),
	updCase("SET list index on a non-list",
		fail(eValid, upd(uk, "SET s[0] = :v", vals{":v": S("x")}))),
	updCase("SET with names",
		do(updN(uk, "SET #a.#b = :v, #r = :v", names{"#a": "m", "#b": "k", "#r": "name"}, vals{":v": S("x")}))),
	updCase("SET copy attribute",
		do(upd(uk, "SET cp = m.a, l2 = l", nil))),
	updCase("REMOVE attributes",
		do(upd(uk, "REMOVE s, nope, m.k, m.a.b[0].c", nil))),
	updCase("REMOVE list elements",
		do(upd(uk, "REMOVE l[0], l[2]", nil)),
		do(upd(uk, "REMOVE l[5]", nil)),
	),
	updCase("REMOVE list element of a missing list",
		fail(eValid, upd(uk, "REMOVE nope[0]", nil)),
		fail(eValid, upd(pk("new"), "REMOVE s, l[0]", nil)),
	),
	updCase("REMOVE key attribute",
		fail(eValid, upd(uk, "REMOVE pk", nil))),
	updCase("SET key attribute",
		fail(eValid, upd(uk, "SET pk = :v", vals{":v": S("other")}))),
	updCase("ADD numbers",
		do(upd(uk, "ADD n :d, newn :d", vals{":d": N("-3.5")})),
	),
	updCase("ADD to sets",
		do(upd(uk, "ADD ss :s, ns :n, bs :b, newss :s", vals{":s": SS("y", "z"), ":n": NS("3", "2"), ":b": BS([]byte{3})})),
	),
	updCase("ADD set of wrong type",
		fail(eValid, upd(uk, "ADD ss :n", vals{":n": NS("1")}))),
	updCase("ADD to a string",
		fail(eValid, upd(uk, "ADD s :n", vals{":n": N("1")}))),
	updCase("ADD a list",
		fail(eValid, upd(uk, "ADD l :l", vals{":l": L(S("x"))}))),
	updCase("ADD nested path",
		fail(eValid, upd(uk, "ADD m.k :n", vals{":n": N("1")}))),
	updCase("DELETE from sets",
		do(upd(uk, "DELETE ss :s, ns :n", vals{":s": SS("x", "nope"), ":n": NS("2.0")})),
		do(upd(uk, "DELETE ss :s, bs :b", vals{":s": SS("y"), ":b": BS([]byte{1}, []byte{2})})),
		do(upd(uk, "DELETE nosuch :s", vals{":s": SS("y")})),
	),
	updCase("DELETE from a non-set",
		fail(eValid, upd(uk, "DELETE s :s", vals{":s": SS("t")}))),
	updCase("DELETE with a scalar",
		fail(eValid, upd(uk, "DELETE ss :s", vals{":s": S("x")}))),
	updCase("all clauses",
		do(upd(uk, "SET a = :one REMOVE s ADD n :one, ss :ss DELETE ns :ns", vals{":one": N("1"), ":ss": SS("q"), ":ns": NS("1")}))),
	updCase("clauses in any order",
		do(upd(uk, "DELETE ns :ns ADD n :one REMOVE s SET a = :one", vals{":one": N("1"), ":ns": NS("1")}))),
	updCase("same clause twice",
		fail(eValid, upd(uk, "SET a = :v SET b = :v", vals{":v": N("1")}))),
	updCase("same path twice",
		fail(eValid, upd(uk, "SET a = :v, a = :w", vals{":v": N("1"), ":w": N("2")}))),
	updCase("overlapping paths",
		fail(eValid, upd(uk, "SET m = :v REMOVE m.k", vals{":v": M(I{})})),
		// Of two conflicting paths, the one written first is named
		// first, whatever the sections.
		failMsg(eValid, upd(uk, "REMOVE m.k SET m[1] = :v", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "SET m[1] = :v REMOVE m.k", vals{":v": N("1")})),
		failMsg(eValid, upd(uk, "ADD m.k :v SET m[1] = :v", vals{":v": N("1")})),
		// The second path named (see "paths written, from the last
		// action"): under l, the last of its indexes in a hash map keyed
		// by Integer (0 before 5, 17 before 3); under m.x[12], c after b
		// (seed 2025).
		failMsg(eValid, upd(uk, "DELETE s :n, l[0] :n SET s = :n, l[5] = :n", vals{":n": NS("1")})),
		failMsg(eValid, upd(uk, "DELETE s :n, l[0] :n SET l[5] = :n, s = :n", vals{":n": NS("1")})),
		failMsg(eValid, upd(uk, "SET l[5] = :n, s = :n DELETE l[0] :n, s :n", vals{":n": NS("1")})),
		failMsg(eValid, upd(uk, "SET a = :n, m.x[3] = :n, m.x[12] = :n, m.b = :n REMOVE a", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET a = :n, m.x[3] = :n, m.x[17] = :n REMOVE a", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET a = :n, m.x[12] = :n, m.x[3].z = :n, m.x[3].c = :n REMOVE a", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET a = :n, m.x[3].z = :n, m.x[12].c = :n, m.x[12].b = :n REMOVE a", vals{":n": N("1")})),
		failMsg(eValid, upd(uk, "SET a = :n, m.x.p = :n, m.x.q = :n, m.y = :n REMOVE a", vals{":n": N("1")}))),
	updCase("function not allowed in SET",
		fail(eValid, upd(uk, "SET a = size(s)", nil))),
	updCase("unused value placeholder",
		failMsg(eValid, upd(uk, "SET a = :v", vals{":v": N("1"), ":w": N("2")}))),
	updCase("missing value placeholder",
		failMsg(eValid, upd(uk, "SET a = :v", vals{":w": N("2")}))),
	updCase("unused name placeholder",
		failMsg(eValid, updN(uk, "SET a = :v", names{"#x": "x"}, vals{":v": N("1")}))),
	updCase("missing name placeholder",
		failMsg(eValid, updN(uk, "SET #a = :v", names{"#b": "b"}, vals{":v": N("1")}))),
	updCase("syntax error",
		fail(eValid, upd(uk, "SET a := :v", vals{":v": N("1")})),
		fail(eValid, upd(uk, "SET", nil)),
		fail(eValid, upd(uk, "UPSERT a = :v", vals{":v": N("1")})),
	),
	updCase("empty set value",
		fail(eValid, upd(uk, "SET a = :v", vals{":v": SS()}))),
	updCase("grows past 400 KB",
		do(upd(uk, "SET big = :v", vals{":v": S(bigString(300000))})),
		fail(eValid, upd(uk, "SET big2 = :v", vals{":v": S(bigString(120000))})),
	),
	{
		name:   "UpdateItem/creates a new item",
		tables: tables(tPKSK()),
		steps: []step{
			do(upd(pks("new", "1"), "SET a = :v ADD c :one", vals{":v": S("x"), ":one": N("1")})),
			do(&dynamodb.UpdateItemInput{TableName: str("T"), Key: pks("new", "2")}),
			do(get(pks("new", "2"))),
		},
	},
	{
		name:   "UpdateItem/REMOVE on a missing item creates it",
		tables: tables(tPK()),
		steps:  []step{do(upd(pk("x"), "REMOVE a", nil)), do(get(pk("x")))},
	},
	{
		name:   "UpdateItem/condition with update",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "v": N("1")}},
		steps: []step{
			do(&dynamodb.UpdateItemInput{TableName: str("T"), Key: pk("a"), UpdateExpression: str("SET v = v + :one"),
				ConditionExpression: str("v = :one"), ExpressionAttributeValues: vals{":one": N("1")}, ReturnValues: types.ReturnValueUpdatedNew}),
			fail(eCond, &dynamodb.UpdateItemInput{TableName: str("T"), Key: pk("a"), UpdateExpression: str("SET v = v + :one"),
				ConditionExpression: str("v = :one"), ExpressionAttributeValues: vals{":one": N("1")}}),
			fail(eCond, &dynamodb.UpdateItemInput{TableName: str("T"), Key: pk("b"), UpdateExpression: str("SET v = :one"),
				ConditionExpression: str("attribute_exists(pk)"), ExpressionAttributeValues: vals{":one": N("1")}}),
		},
	},
	{
		name:   "UpdateItem/wrong key type",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, upd(I{"pk": N("1")}, "SET a = :v", vals{":v": N("1")}))},
	},
	{
		name:   "UpdateItem/empty string key",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, upd(pk(""), "SET a = :v", vals{":v": N("1")}))},
	},
}

// ReturnValues on UpdateItem, on an existing and on a new item.
func returnValueCases() []tc {
	var out []tc
	for _, rv := range []types.ReturnValue{types.ReturnValueNone, types.ReturnValueAllOld,
		types.ReturnValueUpdatedOld, types.ReturnValueAllNew, types.ReturnValueUpdatedNew} {
		existing := do(updRV(uk, "SET n = n + :one, m.a.b[0].c = :one, fresh = :one REMOVE s ADD ss :ss DELETE ns :ns", vals{":one": N("1"), ":ss": SS("z"), ":ns": NS("1")}, rv))
		// UPDATED_OLD and UPDATED_NEW return only the updated paths: of
		// m, only m.a.b[0].c (see the case "Update/ReturnValues of
		// nested paths").
		switch rv {
		case types.ReturnValueUpdatedOld:
			existing = docStep(existing, localWholeTopLevel,
				`{"Out":{"Attributes":{"m":{"M":{"a":{"M":{"b":{"L":[{"M":{"c":{"N":"1"}}}]}}}}},"n":{"N":"10"},"ns":{"NS":["1","2"]},"s":{"S":"text"},"ss":{"SS":["x","y"]}}}}`)
		case types.ReturnValueUpdatedNew:
			existing = docStep(existing, localWholeTopLevel,
				`{"Out":{"Attributes":{"fresh":{"N":"1"},"m":{"M":{"a":{"M":{"b":{"L":[{"M":{"c":{"N":"1"}}}]}}}}},"n":{"N":"11"},"ns":{"NS":["2"]},"ss":{"SS":["x","y","z"]}}}}`)
		}
		out = append(out,
			updCase("ReturnValues "+string(rv)+" existing", existing),
			tc{name: "UpdateItem/ReturnValues " + string(rv) + " new item", tables: tables(tPK()),
				steps: []step{do(updRV(pk("new"), "SET a = :one, b = :one", vals{":one": N("1")}, rv))}},
		)
	}
	return out
}

func init() {
	updateCases = append(updateCases, returnValueCases()...)
	updateCases = append(updateCases,
		updCase("UPDATED_OLD and UPDATED_NEW for REMOVE of a missing list element",
			do(updRV(uk, "REMOVE l[5]", nil, types.ReturnValueUpdatedOld)),
			do(updRV(uk, "REMOVE l[7], s", nil, types.ReturnValueUpdatedOld)),
			do(updRV(uk, "REMOVE l[9]", nil, types.ReturnValueUpdatedNew)),
			docStep(do(updRV(uk, "REMOVE l[1]", nil, types.ReturnValueUpdatedOld)), localWholeTopLevel, `{"Out":{"Attributes":{"l":{"L":[{"S":"b"}]}}}}`),
		),
	)
}

func init() {
	g := func(name string, members ...string) {
		for i := range members {
			members[i] = "UpdateItem/" + members[i]
		}
		updateCases = group(updateCases, "UpdateItem/"+name, members...)
	}
	g("invalid SET operands", "SET arithmetic on missing attribute", "SET arithmetic on a string",
		"SET arithmetic overflow", "SET list_append on a non-list", "function not allowed in SET", "empty set value")
	g("invalid paths", "SET nested path with missing parent", "SET path through a non-map",
		"SET list index on a non-list", "REMOVE key attribute", "SET key attribute", "REMOVE list element of a missing list")
	g("invalid ADD and DELETE", "ADD set of wrong type", "ADD to a string", "ADD a list", "ADD nested path",
		"DELETE from a non-set", "DELETE with a scalar")
	g("invalid expressions", "same clause twice", "same path twice", "overlapping paths",
		"unused value placeholder", "missing value placeholder", "unused name placeholder", "missing name placeholder",
		"syntax error")
}

func init() {
	g := func(name string, members ...string) {
		for i := range members {
			members[i] = "UpdateItem/" + members[i]
		}
		updateCases = group(updateCases, "UpdateItem/"+name, members...)
	}
	// Successful updates in sequence: each step starts from the item the
	// previous one left, which both targets must agree on as well.
	g("SET", "SET new and existing attributes", "SET plus and minus", "SET if_not_exists", "SET list_append",
		"SET nested map path", "SET list index", "SET with names", "SET copy attribute")
	g("REMOVE ADD DELETE", "REMOVE attributes", "REMOVE list elements", "ADD numbers", "ADD to sets",
		"DELETE from sets", "all clauses", "clauses in any order")
}
