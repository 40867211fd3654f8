package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
// Statements name their tables as double-quoted identifiers right after
// FROM, INTO or UPDATE ("T", "T"."byG"); the harness replaces the logical
// name by the case's real one. PARTIQL.md (written with these
// cases) lists what DynamoDB Local answered to each probe.
//
// AWS's reference pages cited below:
//   - SELECT: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
//   - INSERT: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
//   - batches: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.batching.html
//   - ExecuteStatement's errors: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html

// es is an ExecuteStatement of stmt with parameters.
func es(stmt string, params ...types.AttributeValue) *dynamodb.ExecuteStatementInput {
	return &dynamodb.ExecuteStatementInput{Statement: str(stmt), Parameters: params}
}

// esLimit is es with a Limit.
func esLimit(stmt string, limit int32) *dynamodb.ExecuteStatementInput {
	in := es(stmt)
	in.Limit = aws.Int32(limit)
	return in
}

// esPages pages through an ExecuteStatement (each page compared).
func esPages(in *dynamodb.ExecuteStatementInput) *ExecuteStatementAllInput {
	return &ExecuteStatementAllInput{In: in}
}

// esScan pages through a SELECT that scans: the items are compared
// sorted, as a Scan's are (DynamoDB Local's scan order is its own).
func esScan(in *dynamodb.ExecuteStatementInput) *ExecuteStatementAllInput {
	return &ExecuteStatementAllInput{In: in, Sorted: true}
}

func bes(stmts ...types.BatchStatementRequest) *dynamodb.BatchExecuteStatementInput {
	return &dynamodb.BatchExecuteStatementInput{Statements: stmts}
}

func bst(stmt string, params ...types.AttributeValue) types.BatchStatementRequest {
	return types.BatchStatementRequest{Statement: str(stmt), Parameters: params}
}

func etx(stmts ...types.ParameterizedStatement) *dynamodb.ExecuteTransactionInput {
	return &dynamodb.ExecuteTransactionInput{TransactStatements: stmts}
}

func pst(stmt string, params ...types.AttributeValue) types.ParameterizedStatement {
	return types.ParameterizedStatement{Statement: str(stmt), Parameters: params}
}

// nBatch returns n statements made from format and the numbers 0..n-1.
func nBatch(n int, format string) []types.BatchStatementRequest {
	var out []types.BatchStatementRequest
	for i := 0; i < n; i++ {
		out = append(out, bst(fmt.Sprintf(format, i)))
	}
	return out
}

func nTx(n int, format string) []types.ParameterizedStatement {
	var out []types.ParameterizedStatement
	for i := 0; i < n; i++ {
		out = append(out, pst(fmt.Sprintf(format, i)))
	}
	return out
}

// tPQ is table T (pk, sk) with a GSI byG (g, sk; ALL) and an LSI byL (pk,
// l; KEYS_ONLY).
func tPQ() *dynamodb.CreateTableInput {
	return withLSI(withGSI(tPKSK(), "byG", hs("g", "S"), hs("sk", "S"), projection(types.ProjectionTypeAll)),
		"byL", hs("l", "S"), projection(types.ProjectionTypeKeysOnly))
}

// pqItems: partition p holds s1..s4 (l runs backwards, l4..l1), q/s1 has
// no g, r/s1 is in g2.
var pqItems = func() []I {
	var out []I
	for i := 1; i <= 4; i++ {
		n := fmt.Sprint(i)
		out = append(out, with(pks("p", "s"+n), "g", S("g1"), "l", S(fmt.Sprint("l", 5-i)), "n", N(n),
			"a", M(I{"b": N(n), "c": L(N("10"), N("20"), N("30"))}), "tags", SS("t"+n, "x"), "str", S("hello"+n)))
	}
	return append(out, with(pks("q", "s1"), "n", N("5")), with(pks("r", "s1"), "g", S("g2"), "n", N("6")))
}()

// pqRead is a case on tPQ and pqItems (read-only cases are grouped).
func pqRead(name string, steps ...step) tc {
	return tc{name: "PartiQL/" + name, tables: tables(tPQ()), items: pqItems, steps: steps}
}

// pqItems1 are items of table tPK.
var pqItems1 = []I{
	{"pk": S("a"), "v": N("1"), "s": S("x")},
	{"pk": S("b"), "v": N("2")},
	{"pk": S("c"), "v": N("3")},
	{"pk": S("u"), "n": N("1"), "m": M(I{"a": N("1"), "l": L(N("1"), N("2"))}), "l": L(N("1")),
		"ss": SS("a", "b"), "ns": NS("1", "2"), "x": S("gone")},
}

// pqWrite is a case on tPK (with pqItems1) and tPQ (T2, empty).
func pqWrite(name string, steps ...step) tc {
	t2 := tPQ()
	t2.TableName = str("T2")
	return tc{name: "PartiQL/" + name, tables: tables(tPK(), t2), items: pqItems1, steps: steps}
}

// pqCase is a case on tPK with pqItems1 only.
func pqCase(name string, steps ...step) tc {
	return tc{name: "PartiQL/" + name, tables: tables(tPK()), items: pqItems1, steps: steps}
}

var partiqlCases = []tc{
	// ---------------------------------------------------------------- SELECT
	pqRead("select full key",
		do(es(`SELECT * FROM "T" WHERE pk = 'p' AND sk = 's2'`)),
		do(es(`SELECT * FROM "T" WHERE sk = 's2' AND pk = 'p'`)),
		do(es(`SELECT * FROM "T" WHERE pk = 'p' AND sk = 'zz'`)),
		do(es(`SELECT * FROM "T" WHERE pk = 'nope' AND sk = 's1'`)),
	),
	// A nested path's value is returned under its last component's name:
	// a.b as b, a.c[1] as c[1].
	pqRead("select projection",
		do(es(`SELECT pk, sk, a.b, a.c[1], a.c[7], nope FROM "T" WHERE pk = 'p'`)),
		do(es(`SELECT "pk", "a"."b" FROM "T" WHERE pk = 'p' AND sk = 's1'`)),
		do(es(`SELECT a, tags FROM "T" WHERE pk = 'p' AND sk = 's1'`)),
	),
	pqRead("select sort key conditions",
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk = 's2'`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk < 's2'`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk <= 's2'`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk > 's2'`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk >= 's2'`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk BETWEEN 's2' AND 's3'`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND begins_with(sk, 's')`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND begins_with(sk, 'x')`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk IN ['s1', 's3']`)),
	),
	// Results of an IN come in the order of the list, duplicates included.
	pqRead("select partition key IN",
		do(es(`SELECT pk, sk FROM "T" WHERE pk IN ['r', 'q', 'p']`)),
		do(es(`SELECT pk, sk FROM "T" WHERE pk IN ['p', 'zz', 'q']`)),
		do(es(`SELECT pk, sk FROM "T" WHERE pk IN ['q', 'q']`)),
		do(es(`SELECT pk, sk FROM "T" WHERE pk IN ['q', 'p'] AND sk = 's1'`)),
	),
	pqRead("select filters in a partition",
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND n <> 2`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND (n = 1 OR n = 3)`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND NOT (n = 1)`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND NOT n = 1`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND contains(str, 'llo3')`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND contains(tags, 't2')`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND attribute_type(n, 'N')`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND attribute_type(a, 'S')`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND size(tags) = 2`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND size(str) > 5`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND a.b = 2`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND a.c[0] = 10`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND n IN [1, 4]`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND n BETWEEN 2 AND 3`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND begins_with(str, 'hello') AND n > 1 AND n < 4`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND sk > 's1' AND n < 4`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND nope IS MISSING AND str IS NOT MISSING`)),
	),
	// DynamoDB Local keeps one condition per key attribute, the last
	// outside any OR (and the last in each OR), and checks only those
	// values: an empty or mistyped value in an earlier condition on the
	// attribute only filters. It plans its read from the conditions
	// outside ORs: a mistyped value, or IS NULL (an equality to NULL), in
	// the only condition on the partition key, or on the sort key next
	// to a partition key's only equality, is "Key attribute's data type
	// should match ..."; elsewhere "Condition parameter type does not
	// match schema type" (TestDifferentialPartiQL, seeds 2004, 2006,
	// 2009, 12 and 13).
	pqRead("select the last condition on a key attribute",
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk IN ['a','b'] AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IN ['a','b'] AND sk IS NULL AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk = 'a' AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk > 'a' AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk BETWEEN 'a' AND 'b' AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND begins_with(sk, 'a') AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk <> 'a' AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND x = 1 AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND pk IN ['p','q']`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk IN ['a','b']`))),
		do(esScan(es(`SELECT * FROM "T" WHERE pk IS NULL AND pk IN ['a','b']`))),
		do(esScan(es(`SELECT * FROM "T" WHERE pk IS NULL AND pk = 'a'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IN ['a','b'] AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE (sk IS NULL OR sk = 'a') AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NOT NULL AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND sk IN ['a'] AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IN ['a','b'] AND pk = 'p' AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk IN ['a','b'] AND sk IS NULL`)),
		do(esScan(es(`SELECT * FROM "T" WHERE pk = 'p' AND sk IS NULL AND sk IN ['a','b']`))),
		do(esScan(es(`SELECT * FROM "T" WHERE (sk = '' OR sk = 'a') AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk = '' AND sk = 'a' AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk = 'a' AND sk = '' AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk = 1 AND sk = 'a' AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk = 'a' AND sk = 1 AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE (sk = 1 OR sk = 'a') AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE NOT (sk = '') AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE NOT (sk IS NULL) AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE (sk IS NULL OR x = 1) AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE (sk IS NULL OR x = 1)`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL OR pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NULL AND sk = 'a'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NULL AND pk = 'p' AND sk = 'a'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IS NOT NULL AND pk = 'p' AND sk = 'a'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk = 'a' AND sk IS NOT NULL AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NOT NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND pk = ''`)),
		do(esScan(es(`SELECT * FROM "T" WHERE pk = '' AND pk = 'p'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE sk < '' AND sk > 'a' AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk > 'a' AND sk < '' AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk > 'a' AND begins_with(sk, '') AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE begins_with(sk, '') AND sk > 'a' AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE contains(sk, '') AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IN ['', 'a'] AND pk = 'p'`)),
		do(esScan(es(`SELECT * FROM "T" WHERE sk IN ['', 'a'] AND sk = 'a' AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND x = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE x = 1 AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND pk > 'a'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND pk = 'p' AND pk = 'q'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NOT NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE NOT (pk IS NULL)`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE (pk IS NULL OR x = 1)`)),
		do(esScan(es(`SELECT * FROM "T" WHERE pk = 1 AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND pk = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk = 1 AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk IS NULL AND x = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NULL AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk IS NULL AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IN ['p'] AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 1 AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk IS NULL AND pk = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = '' AND sk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE sk = 'a' AND pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE x = 1 AND pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NULL AND pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk = 1 AND x = 1`)),
		do(esScan(es(`SELECT * FROM "T" WHERE pk = 'p' AND sk = 1 AND sk = 'a'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk > 1`)),
		do(esScan(es(`SELECT * FROM "T" WHERE pk = 'p' AND sk > 1 AND sk > 'a'`))),
		do(esScan(es(`SELECT * FROM "T" WHERE pk > 1 AND pk = 'p'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND (sk = 1 OR x = 1)`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk BETWEEN 1 AND 2`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND begins_with(sk, 1)`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk <= 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND 1 < sk`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk <> 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk IN [1]`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE (pk = 'a' OR pk = 'b') AND sk = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk > true`)),
	),
	pqCase("select the last condition on a hash key",
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NULL AND x = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE x = 1 AND pk IS NULL`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk IS NULL`)),
		do(esScan(es(`SELECT * FROM "T" WHERE pk IS NULL AND pk = 'a'`))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'a' AND pk IS NULL`)),
	),
	// What DynamoDB Local reports first (TestDifferentialPartiQL, seeds
	// 2006, 2008 and 2009): a write's key given two values, before its
	// type; the same value twice is one key; a statement that is not well
	// formed before a form it does not support (an alias, an INSERT of
	// something else than a struct); arithmetic in a condition in its
	// words.
	pqRead("which error first",
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE pk = 'p' AND sk = 's1' AND sk = 'ab'`)),
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE pk = 'p' AND pk = 'q' AND sk = 's1'`)),
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE pk = 'p' AND sk = 's1' AND sk = 1`)),
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE sk = 's1' AND pk = 'p' AND sk = 'ab'`)),
		failMsg(eValid, es(`DELETE FROM "T" WHERE pk = 'p' AND sk = 's1' AND sk = 'ab'`)),
		failMsg(eValid, es(`DELETE FROM "T" WHERE pk = 'p' AND sk = 's1' AND sk = <<'y', 'x'>>`)),
		failMsg(eValid, es(`DELETE FROM "T" WHERE pk = 'p' AND sk = <<'y', 'x'>>`)),
		do(es(`UPDATE "T" SET n = 9 WHERE pk = 'p' AND sk = 's1' AND sk = 's1'`)),
		do(es(`DELETE FROM "T" WHERE pk = 'p' AND pk = 'p' AND sk = 's9'`)),
		// IS NULL of a key given is a second condition on it; IS NOT
		// NULL is a condition (seed 2019).
		failMsg(eValid, es(`UPDATE "T" SET n = 2 WHERE sk = 's1' AND pk = 'p' AND sk IS NULL`)),
		do(es(`UPDATE "T" SET n = 2 WHERE sk = 's1' AND pk = 'p' AND sk IS NOT NULL`)),
		do(es(`UPDATE "T" SET n = 3 WHERE sk = 's1' AND pk = 'p' AND NOT (sk IS NULL)`)),
		do(es(`DELETE FROM "T" WHERE sk = 's9' AND pk = 'p' AND sk IS NOT NULL`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE [ {'pk': 'p2', 'sk': 's32'}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE [ {'pk': 'p2', 'sk': 's32'} ]`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'p2', 'sk': 's32'`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE <<'a'>>`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND size(sk) -1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND n + 1 = 2`)),
		failMsg(eValid, es(`SELECT pk p FROM "T"`)),
		failMsg(eValid, es(`SELECT pk, n n FROM "T" WHERE pk = 'p'`)),
		failMsg(eValid, es(`SELECT pk AS p FROM "T"`)),
		failMsg(eValid, es(`SELECT a.b c FROM "T"`)),
		failMsg(eValid, es(`SELECT "pk" "p" FROM "T"`)),
		failMsg(eValid, es(`SELECT pk p, FROM "T"`)),
		failMsg(eValid, es(`SELECT pk AS FROM "T"`)),
		// A literal in the select list: aliased, "Aliasing is not
		// supported" (seed 2025); bare, "Unexpected path component" at
		// it; the first of either in the list.
		failMsg(eValid, es(`SELECT pk, 1 sk FROM "T" WHERE a.c[7] < a.c[0]`)),
		failMsg(eValid, es(`SELECT pk, 'x' AS y FROM "T"`)),
		failMsg(eValid, es(`SELECT pk, 1 FROM "T"`)),
		failMsg(eValid, es(`SELECT 1.5e3 FROM "T"`)),
		failMsg(eValid, es(`SELECT 'x', a b FROM "T"`)),
		failMsg(eValid, es(`SELECT a b, 1 FROM "T"`)),
		failMsg(eValid, es(`SELECT pk, 1 sk, FROM "T"`)),
		failMsg(eValid, es(`SELECT pk, 1 2 FROM "T"`)),
		// An unknown function is reported once the statement is well
		// formed (seed 2028).
		failMsg(eValid, es(`SELECT pk FROM "T" WHERE pk ( = 'p' AND sk < 's2'`)),
		failMsg(eValid, es(`SELECT pk FROM "T" WHERE nope(pk) AND pk = 'p'`)),
		failMsg(eValid, es(`SELECT pk FROM "T" WHERE nope(pk) AND pk = `)),
		// An index named by a write: reported once the statement is
		// well formed (seed 2030).
		failMsg(eValid, es(`UPDATE a.c FROM "T" WHERE pk = 'p'`)),
		failMsg(eValid, es(`UPDATE "T"."byL" WHERE pk = 'p'`)),
		failMsg(eValid, es(`UPDATE "T"."byL" SET n = 1 WHERE`)),
		failMsg(eValid, es(`DELETE FROM "T"."byL" WHERE`)),
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE pk = 'p' AND sk = 's1' RETURNING MODIFIED OLD OLD *`)),
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE pk = 'p' AND sk = 's1' RETURNING ALL NEW ALL`)),
		failMsg(eValid, es(`UPDATE "T" SET n = 1 WHERE pk = 'p' AND sk = 's1' RETURNING ALL NEW n`)),
		do(esScan(es(`SELECT * FROM "T"`))),
	),
	// A SELECT without an equality or IN on the partition key scans.
	// DynamoDB Local treats IS NULL as "is of type NULL": a missing
	// attribute IS NOT NULL.
	pqRead("select filters scanning",
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE g IS MISSING`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE g IS NOT MISSING`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE g IS NULL`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE g IS NOT NULL`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE n > 3`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE attribute_not_exists(g) OR n = 2`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE pk = 'q' OR pk = 'p'`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE (pk = 'p' AND sk = 's2') OR (pk = 'q' AND sk = 's1')`))),
		do(esScan(es(`SELECT pk, sk FROM "T" WHERE sk = 's1'`))),
	),
	pqRead("select without WHERE",
		do(esScan(es(`SELECT * FROM "T"`))),
		do(esScan(es(`SELECT pk, g FROM "T"."byG"`))),
		do(esScan(es(`SELECT * FROM "T"."byL"`))),
	),
	// A KEYS_ONLY LSI's SELECT * returns its projection; naming another
	// attribute fetches it from the table.
	pqRead("select from an index",
		do(es(`SELECT * FROM "T"."byG" WHERE g = 'g1'`)),
		do(es(`SELECT pk, sk FROM "T"."byG" WHERE g = 'g1' AND sk > 's2'`)),
		do(es(`SELECT pk FROM "T"."byG" WHERE g = 'g2'`)),
		do(es(`SELECT * FROM "T"."byL" WHERE pk = 'p'`)),
		do(es(`SELECT pk, sk, l FROM "T"."byL" WHERE pk = 'p' AND l < 'l3'`)),
		do(es(`SELECT pk, n FROM "T"."byL" WHERE pk = 'p'`)),
	),
	pqRead("select with parameters",
		do(es(`SELECT * FROM "T" WHERE pk = ? AND sk = ?`, S("p"), S("s2"))),
		do(es(`SELECT sk FROM "T" WHERE pk = ? AND n > ?`, S("p"), N("2"))),
		do(es(`SELECT pk, sk FROM "T" WHERE pk IN [?, ?]`, S("q"), S("r"))),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' AND a = ?`, M(I{"b": N("3"), "c": L(N("10"), N("20"), N("30"))}))),
	),
	// Limit is the number of items read (as for a Query or a Scan), and a
	// page that reaches it has a NextToken even when nothing is left.
	pqRead("select Limit and paging",
		do(esPages(esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p'`, 2))),
		do(esPages(esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p'`, 4))),
		do(esPages(esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p'`, 5))),
		do(esPages(esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p' AND sk = 's1'`, 1))),
		do(esPages(esLimit(`SELECT sk FROM "T" WHERE pk = 'p' AND n > 2`, 2))),
		do(esPages(esLimit(`SELECT sk FROM "T" WHERE pk = 'p' AND sk > 's1'`, 2))),
		do(esPages(esLimit(`SELECT * FROM "T"."byG" WHERE g = 'g1'`, 3))),
		do(esScan(esLimit(`SELECT pk, sk FROM "T"`, 2))),
		do(esScan(esLimit(`SELECT pk, sk FROM "T"`, 7))),
		do(esScan(esLimit(`SELECT pk, sk FROM "T" WHERE n = 1`, 2))),
		do(es(`SELECT pk, sk FROM "T" WHERE pk = 'p'`)),
	),
	pqRead("select Limit and NextToken errors",
		failMsg(eValid, &dynamodb.ExecuteStatementInput{Statement: str(`SELECT pk, sk FROM "T" WHERE pk = 'p'`), NextToken: str("abc")}),
		failMsg(eValid, esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p'`, 0)),
		failMsg(eValid, esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p'`, -1)),
	),
	pqRead("select ConsistentRead",
		failMsg(eValid, &dynamodb.ExecuteStatementInput{Statement: str(`SELECT * FROM "T"."byG" WHERE g = 'g1'`), ConsistentRead: aws.Bool(true)}),
		do(&dynamodb.ExecuteStatementInput{Statement: str(`SELECT pk, sk FROM "T"."byL" WHERE pk = 'p'`), ConsistentRead: aws.Bool(true)}),
		do(&dynamodb.ExecuteStatementInput{Statement: str(`SELECT * FROM "T" WHERE pk = 'q'`), ConsistentRead: aws.Bool(true)}),
		do(&dynamodb.ExecuteStatementInput{Statement: str(`SELECT * FROM "T" WHERE pk = 'q'`), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}),
	),
	// ORDER BY a key of the table; DESC reads backwards.
	pqRead("select ORDER BY",
		do(es(`SELECT * FROM "T" WHERE pk = 'p' ORDER BY sk DESC`)),
		do(es(`SELECT pk, sk FROM "T" WHERE pk = 'p' ORDER BY sk DESC`)),
		do(es(`SELECT sk, pk, n FROM "T" WHERE pk = 'p' AND sk < 's4' ORDER BY sk DESC`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' ORDER BY sk ASC`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' ORDER BY sk`)),
		do(es(`SELECT sk FROM "T" WHERE pk = 'p' ORDER BY pk, sk`)),
		failMsg(eValid, es(`SELECT sk FROM "T" ORDER BY sk DESC`)),
		failMsg(eValid, es(`SELECT sk FROM "T" WHERE n > 1 ORDER BY sk`)),
		failMsg(eValid, es(`SELECT sk FROM "T" WHERE pk = 'p' ORDER BY n DESC`)),
	),
	// DynamoDB Local fails (InternalFailure) on ORDER BY ... DESC when the
	// projection lacks a key attribute; DynamoDB documents ORDER BY key
	// DESC (ql-reference.select: "Specify DESC if you want the results
	// returned in descending order").
	pqRead("select ORDER BY DESC projecting no key",
		docStep(do(es(`SELECT sk FROM "T" WHERE pk = 'p' ORDER BY sk DESC`)),
			"DynamoDB Local fails with InternalFailure when the projection lacks a key attribute",
			`{"Out":{"Items":[{"sk":{"S":"s4"}},{"sk":{"S":"s3"}},{"sk":{"S":"s2"}},{"sk":{"S":"s1"}}]}}`),
	),
	// DynamoDB Local ignores DESC on an LSI's sort key.
	pqRead("select ORDER BY DESC on an LSI",
		docStep(do(es(`SELECT * FROM "T"."byL" WHERE pk = 'p' ORDER BY l DESC`)),
			"DynamoDB Local ignores DESC on an LSI's sort key (ql-reference.select documents ORDER BY key DESC)",
			`{"Out":{"Items":[`+
				`{"l":{"S":"l4"},"pk":{"S":"p"},"sk":{"S":"s1"}},{"l":{"S":"l3"},"pk":{"S":"p"},"sk":{"S":"s2"}},`+
				`{"l":{"S":"l2"},"pk":{"S":"p"},"sk":{"S":"s3"}},{"l":{"S":"l1"},"pk":{"S":"p"},"sk":{"S":"s4"}}]}}`),
	),
	// With a Limit, DynamoDB Local reads forwards and reverses each page.
	pqRead("select ORDER BY DESC with a Limit",
		docStep(do(esPages(esLimit(`SELECT pk, sk FROM "T" WHERE pk = 'p' ORDER BY sk DESC`, 2))),
			"DynamoDB Local reads each page forwards and reverses it (a page of s2, s1 first)",
			`{"Out":[{"Items":[{"pk":{"S":"p"},"sk":{"S":"s4"}},{"pk":{"S":"p"},"sk":{"S":"s3"}}],"NextToken":"<token>"},`+
				`{"Items":[{"pk":{"S":"p"},"sk":{"S":"s2"}},{"pk":{"S":"p"},"sk":{"S":"s1"}}],"NextToken":"<token>"},{}]}`),
	),
	pqRead("statement errors",
		failMsg(eValid, es(`SELEC * FROM "T"`)),
		failMsg(eValid, es(`SELECT * FROM`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk == 'p'`)),
		failMsg(eValid, es(`SELECT FROM "T"`)),
		failMsg(eValid, es(``)),
		failMsg(eValid, es(`SELECT * FROM "T"; SELECT * FROM "T"`)),
		failMsg(eValid, es(`SELECT count(*) FROM "T"`)),
		failMsg(eValid, es(`SELECT * FROM "T" LIMIT 1`)),
		failMsg(eValid, es(`SELECT DISTINCT pk FROM "T"`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE foo(pk) = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND upper(sk) = 'S1'`)),
		failMsg(eValid, es(`SELECT * FROM "T"."nope" WHERE pk = 'p'`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = 'p' AND sk = 1`)),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = ?`, N("1"))),
		failMsg(eValid, es(`EXISTS(SELECT * FROM "T" WHERE pk = 'p' AND sk = 's1' AND n = 1)`)),
		fail(eNotFound, es(`SELECT * FROM "Missing" WHERE pk = 'p'`)),
		// "pk" in double quotes is an attribute name: pk = "p" compares
		// with attribute p.
		do(es(`SELECT * FROM "T" WHERE pk = "p"`)),
	),
	// Too few parameters fail; DynamoDB Local ignores extra ones.
	pqRead("parameter count",
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = ? AND sk = ?`, S("p"))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = ?`)),
		do(es(`SELECT pk, sk FROM "T" WHERE pk = ?`, S("q"), S("extra"))),
		do(es(`SELECT pk, sk FROM "T" WHERE pk = 'q'`, S("unused"))),
		failMsg(eValid, es(`SELECT * FROM "T" WHERE pk = ?`, &types.AttributeValueMemberSS{Value: []string{}})),
	),

	// ---------------------------------------------------------------- INSERT
	pqCase("insert",
		do(es(`INSERT INTO "T" VALUE {'pk': 'new', 'n': 1, 's': <<'x','y'>>, 'l': [1,'b'], 'm': {'k': true}, 'z': NULL}`)),
		do(es(`SELECT * FROM "T" WHERE pk = 'new'`)),
		do(es(`INSERT INTO "T" VALUE {'pk': 'nums', 'ns': <<1, 2.50, 1e2>>, 'd': 1.50, 'e': 1E+3, 'f': -12.0e-2, 'g': 0.000}`)),
		do(es(`INSERT INTO "T" VALUE {'pk': 'str', 'q': 'it''s', 'e': '', 'b': false, 'nested': {'l': [[1], {'x': NULL}]}}`)),
		do(es(`SELECT * FROM "T" WHERE pk IN ['nums', 'str']`)),
		do(es(`INSERT INTO "T" VALUE {'pk': 'upper'}`)),
	),
	pqCase("insert with parameters",
		do(es(`INSERT INTO "T" VALUE {'pk': ?, 'v': ?, 'b': ?, 'ss': ?}`,
			S("p1"), M(I{"x": L(N("1"))}), B(0, 1), SS("a", "b"))),
		do(es(`SELECT * FROM "T" WHERE pk = ?`, S("p1"))),
	),
	// DynamoDB's error is DuplicateItemException (API_ExecuteStatement's
	// errors); DynamoDB Local sends the code DuplicateItem.
	pqCase("insert an existing key",
		docStep(step{in: es(`INSERT INTO "T" VALUE {'pk': 'a', 'v': 9}`), err: eDup, noMsg: true},
			"DynamoDB Local's error code is DuplicateItem",
			`{"Err":{"Kind":"DuplicateItem","Code":"DuplicateItemException"}}`),
	),
	// With ReturnValuesOnConditionCheckFailure, an INSERT of an existing
	// key fails with ConditionalCheckFailed and the item.
	pqCase("insert an existing key returning the item",
		fail(eCond, &dynamodb.ExecuteStatementInput{Statement: str(`INSERT INTO "T" VALUE {'pk': 'a', 'v': 9}`),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
	),
	pqCase("insert errors",
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'x': 'a'}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 1}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': ?}`, N("1"))),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': ''}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i1', 'a': 1, 'a': 2}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i3', 'ss': <<>>}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i4', 'ss': <<'a','a'>>}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i4', 'ns': <<1, 1.0>>}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i5', 'neg': -0.0}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i6', 'mix': <<1, 'a'>>}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i10', 'm': MISSING}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {pk: 'i11'}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {"pk": 'i12'}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i14'} RETURNING ALL NEW *`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE [1]`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE ?`, M(I{"pk": S("i15")}))),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i16', 'big': 12345678901234567890123456789012345678901}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i17', 'x': 'a' || 'b'}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i18', 'x': 1 + 2}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i19', 'x': <<?>>}`, S("a"))),
		failMsg(eValid, es(`INSERT INTO "T" VALUES {'pk': 'i20'}`)),
		failMsg(eValid, es(`INSERT INTO "T" VALUE {'pk': 'i21'} WHERE pk = 'i21'`)),
		fail(eNotFound, es(`INSERT INTO "Missing" VALUE {'pk': 'x'}`)),
	),
	pqWrite("insert into an index or a pk and sk table",
		failMsg(eValid, es(`INSERT INTO "T2"."byG" VALUE {'pk': 'x', 'sk': 'y'}`)),
		failMsg(eValid, es(`INSERT INTO "T2" VALUE {'pk': 'x'}`)),
		failMsg(eValid, es(`INSERT INTO "T2" VALUE {'pk': 'x', 'sk': 1}`)),
		do(es(`INSERT INTO "T2" VALUE {'pk': 'x', 'sk': 'y', 'g': 'gx', 'l': 'lx'}`)),
		do(es(`SELECT * FROM "T2"."byG" WHERE g = 'gx'`)),
		do(es(`SELECT * FROM "T2"."byL" WHERE pk = 'x'`)),
	),

	// ---------------------------------------------------------------- UPDATE
	pqCase("update",
		do(es(`UPDATE "T" SET v = 'new' WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET m.a = 2 WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET m.l[1] = 5 WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET n = n + 1 WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET n = n - 3 WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET l = list_append(l, [2, 3]) WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET l = list_append([0], l) WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET ss = set_add(ss, <<'c'>>) WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET ss = set_delete(ss, <<'a'>>) WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET ns = set_add(ns, <<3>>) WHERE pk = 'u'`)),
		do(es(`UPDATE "T" REMOVE x WHERE pk = 'u'`)),
		do(es(`SELECT * FROM "T" WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET a1 = 1 SET a2 = 2 REMOVE v REMOVE m.l[0] WHERE pk = 'u'`)),
		do(es(`UPDATE "T" SET a3 = 3, a4 = ? WHERE pk = ?`, S("four"), S("u"))),
		do(es(`SELECT * FROM "T" WHERE pk = 'u'`)),
	),
	pqCase("update conditions",
		do(es(`UPDATE "T" SET v = 10 WHERE pk = 'a' AND v = 1`)),
		do(es(`UPDATE "T" SET v = 11 WHERE pk = 'a' AND attribute_exists(s) AND s = 'x'`)),
		fail(eCond, es(`UPDATE "T" SET v = 12 WHERE pk = 'a' AND v = 99`)),
		fail(eCond, es(`UPDATE "T" SET v = 13 WHERE pk = 'missing'`)),
		fail(eCond, es(`UPDATE "T" SET v = 13 WHERE pk = 'missing' RETURNING ALL NEW *`)),
		fail(eCond, &dynamodb.ExecuteStatementInput{Statement: str(`UPDATE "T" SET v = 14 WHERE pk = 'a' AND v = 99`),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
		fail(eCond, &dynamodb.ExecuteStatementInput{Statement: str(`UPDATE "T" SET v = 14 WHERE pk = 'missing'`),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
		do(es(`SELECT * FROM "T" WHERE pk = 'a'`)),
	),
	pqCase("update RETURNING",
		do(es(`UPDATE "T" SET v = 20 WHERE pk = 'a' RETURNING ALL OLD *`)),
		do(es(`UPDATE "T" SET v = 21 WHERE pk = 'a' RETURNING ALL NEW *`)),
		do(es(`UPDATE "T" SET v = 22, q = 1 WHERE pk = 'a' RETURNING MODIFIED OLD *`)),
		do(es(`UPDATE "T" SET v = 23, r = 1 REMOVE s WHERE pk = 'a' RETURNING MODIFIED NEW *`)),
		do(es(`UPDATE "T" SET m.a = 5 WHERE pk = 'u' RETURNING MODIFIED NEW *`)),
		failMsg(eValid, es(`UPDATE "T" SET v = 24 WHERE pk = 'a' RETURNING ALL OLD v`)),
		failMsg(eValid, es(`UPDATE "T" SET v = 24 WHERE pk = 'a' RETURNING NONE`)),
	),
	pqCase("update errors",
		failMsg(eValid, es(`UPDATE "T" SET v = 1 WHERE v = 2`)),
		failMsg(eValid, es(`UPDATE "T" SET v = 1`)),
		failMsg(eValid, es(`UPDATE "T" SET v = 1 WHERE pk IN ['a']`)),
		failMsg(eValid, es(`UPDATE "T" SET v = 1 WHERE pk = 'a' OR pk = 'b'`)),
		failMsg(eValid, es(`UPDATE "T" SET pk = 'z' WHERE pk = 'a'`)),
		failMsg(eValid, es(`UPDATE "T" REMOVE pk WHERE pk = 'a'`)),
		// The item is read first: an update of a key attribute of a
		// missing item, or of one its WHERE rejects, fails the condition.
		failMsg(eCond, es(`UPDATE "T" SET pk = 'z' WHERE pk = 'missing'`)),
		failMsg(eCond, es(`UPDATE "T" REMOVE pk WHERE pk = 'missing'`)),
		failMsg(eCond, es(`UPDATE "T" SET v = 2, pk = 'z' WHERE pk = 'a' AND v = 99`)),
		failMsg(eCond, &dynamodb.ExecuteStatementInput{Statement: str(`UPDATE "T" SET pk = 'z' WHERE pk = 'a' AND v = 99`),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
		failMsg(eValid, es(`UPDATE "T" SET v = v + 'a' WHERE pk = 'a'`)),
		failMsg(eValid, es(`UPDATE "T" SET v = nope + 1 WHERE pk = 'a'`)),
		failMsg(eValid, es(`UPDATE "T" SET ss = set_add(ss, <<1>>) WHERE pk = 'u'`)),
		failMsg(eValid, es(`UPDATE "T" SET m.z.q = 5 WHERE pk = 'u'`)),
		failMsg(eValid, es(`UPDATE "T" SET v = 1 WHERE pk = 1`)),
		failMsg(eValid, es(`UPDATE "T" SET v = ? WHERE pk = ?`, N("1"))),
		fail(eNotFound, es(`UPDATE "Missing" SET v = 1 WHERE pk = 'a'`)),
	),
	pqWrite("update and delete need the sort key",
		failMsg(eValid, es(`UPDATE "T2" SET v = 1 WHERE pk = 'a'`)),
		failMsg(eValid, es(`DELETE FROM "T2" WHERE pk = 'a'`)),
		failMsg(eValid, es(`UPDATE "T2" SET v = 1 WHERE pk = 'a' AND sk = 1`)),
	),

	// ---------------------------------------------------------------- DELETE
	pqCase("delete",
		do(es(`DELETE FROM "T" WHERE pk = 'b'`)),
		do(es(`DELETE FROM "T" WHERE pk = 'b'`)),
		do(es(`DELETE FROM "T" WHERE pk = 'nope' RETURNING ALL OLD *`)),
		fail(eCond, es(`DELETE FROM "T" WHERE pk = 'a' AND v = 99`)),
		fail(eCond, &dynamodb.ExecuteStatementInput{Statement: str(`DELETE FROM "T" WHERE pk = 'a' AND v = 99`),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}),
		do(es(`DELETE FROM "T" WHERE pk = 'a' AND v = 1 RETURNING ALL OLD *`)),
		do(es(`SELECT * FROM "T" WHERE pk IN ['a', 'b']`)),
	),
	pqCase("delete errors",
		failMsg(eValid, es(`DELETE FROM "T" WHERE v = 1`)),
		failMsg(eValid, es(`DELETE FROM "T"`)),
		failMsg(eValid, es(`DELETE FROM "T" WHERE pk = 'a' RETURNING ALL NEW *`)),
		failMsg(eValid, es(`DELETE FROM "T" WHERE pk = 'a' RETURNING MODIFIED OLD *`)),
		failMsg(eValid, es(`DELETE "T" WHERE pk = 'a'`)),
		failMsg(eValid, es(`DELETE FROM "T" WHERE pk = 1`)),
		fail(eNotFound, es(`DELETE FROM "Missing" WHERE pk = 'a'`)),
	),

	// ------------------------------------------------- BatchExecuteStatement
	// Each statement has its response, in request order: an item (or
	// none), or an Error. A read must name one item by its full key.
	pqWrite("batch reads",
		do(bes(
			bst(`SELECT * FROM "T" WHERE pk = 'a'`),
			bst(`SELECT * FROM "T" WHERE pk = 'nope'`),
			bst(`SELECT v, nope FROM "T" WHERE pk = ?`, S("b")),
			types.BatchStatementRequest{Statement: str(`SELECT * FROM "T" WHERE pk = 'u'`), ConsistentRead: aws.Bool(true)},
			bst(`SELECT * FROM "T2" WHERE pk = 'x' AND sk = 'y'`),
			bst(`SELECT * FROM "T2" WHERE pk = 'x' AND sk = 1`),
			bst(`SELECT * FROM "Missing" WHERE pk = 'a'`),
			bst(`SELECT * FROM "T2" WHERE pk = 'x'`),
			bst(`SELECT * FROM "T" WHERE pk = 'b' AND v = 2`),
			bst(`SELECT * FROM "T2"."byG" WHERE g = 'g' AND sk = 'y'`),
			bst(`SELEC * FROM "T" WHERE pk = 'a'`),
			bst(`SELECT * FROM "T" WHERE pk = ?`),
			bst(`SELECT * FROM "T" WHERE foo(pk)`),
			bst(`EXISTS(SELECT * FROM "T" WHERE pk = 'a' AND v = 1)`),
		)),
	),
	pqCase("batch writes",
		do(bes(
			bst(`INSERT INTO "T" VALUE {'pk': 'new'}`),
			bst(`INSERT INTO "T" VALUE {'pk': 'a'}`),
			bst(`UPDATE "T" SET v = 1 WHERE pk = 'nope'`),
			bst(`UPDATE "T" SET w = ? WHERE pk = ?`, N("7"), S("b")),
			bst(`DELETE FROM "T" WHERE pk = 'gone'`),
			bst(`DELETE FROM "T" WHERE pk = 'c' AND v = 99`),
			bst(`INSERT INTO "T" VALUE {'pk': 1}`),
			bst(`UPDATE "T" SET n = n + 'a' WHERE pk = 'u'`),
			bst(`INSERT INTO "Missing" VALUE {'pk': 'x'}`),
			bst(`DELETE FROM "T" WHERE pk = 'x1' RETURNING ALL OLD *`),
		)),
		do(bes(
			bst(`UPDATE "T" SET v = 2 WHERE pk = 'new' RETURNING ALL NEW *`),
			bst(`DELETE FROM "T" WHERE pk = 'b' RETURNING ALL OLD *`),
		)),
	),
	// The docs: "The entire batch must consist of either read statements
	// or write statements; you cannot mix both in one batch." A statement
	// that does not parse is neither.
	pqCase("batch of reads and writes",
		failMsg(eValid, bes(bst(`SELECT * FROM "T" WHERE pk = 'a'`), bst(`INSERT INTO "T" VALUE {'pk': 'm1'}`))),
		failMsg(eValid, bes(bst(`INSERT INTO "T" VALUE {'pk': 'm2'}`), bst(`SELECT * FROM "T" WHERE pk = 'a'`))),
		do(bes(bst(`SELEC * FROM "T" WHERE pk = 'a'`), bst(`INSERT INTO "T" VALUE {'pk': 'm3'}`))),
	),
	pqCase("batch limits",
		do(bes(nBatch(25, `SELECT * FROM "T" WHERE pk = 'k%d'`)...)),
		failMsg(eValid, bes(nBatch(26, `SELECT * FROM "T" WHERE pk = 'k%d'`)...)),
		failMsg(eValid, bes(nBatch(26, `INSERT INTO "T" VALUE {'pk': 'k%d'}`)...)),
		failMsg(eValid, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{}}),
		do(bes(nBatch(25, `INSERT INTO "T" VALUE {'pk': 'k%d'}`)...)),
	),
	// Two statements on one item fail the batch. (DynamoDB Local runs a
	// write batch's statements up to the repeated one before failing:
	// this insert and delete leave the table as it was either way.)
	pqCase("batch on one item twice",
		failMsg(eValid, bes(bst(`SELECT * FROM "T" WHERE pk = 'a'`), bst(`SELECT v FROM "T" WHERE pk = 'a'`))),
		failMsg(eValid, bes(bst(`INSERT INTO "T" VALUE {'pk': 'twice'}`), bst(`DELETE FROM "T" WHERE pk = 'twice'`))),
	),

	// ---------------------------------------------------- ExecuteTransaction
	pqWrite("transaction writes",
		do(etx(
			pst(`INSERT INTO "T" VALUE {'pk': 'new', 'v': 1}`),
			pst(`UPDATE "T" SET v = v + 1 WHERE pk = 'a'`),
			pst(`DELETE FROM "T" WHERE pk = 'b'`),
			pst(`EXISTS(SELECT * FROM "T" WHERE pk = 'u' AND n = 1)`),
			pst(`DELETE FROM "T" WHERE pk = 'gone'`),
			pst(`INSERT INTO "T2" VALUE {'pk': ?, 'sk': ?}`, S("x"), S("y")),
		)),
		do(etx(pst(`EXISTS(SELECT * FROM "T" WHERE pk = 'u' AND attribute_exists(m))`))),
	),
	// Cancellation reasons in request order. An INSERT of an existing key
	// is a ValidationError reason (ConditionalCheckFailed with
	// ReturnValuesOnConditionCheckFailure); EXISTS fails on a missing item.
	pqWrite("transaction all or nothing",
		fail(eTxn, etx(
			pst(`INSERT INTO "T" VALUE {'pk': 'new'}`),
			pst(`UPDATE "T" SET v = 6 WHERE pk = 'a' AND v = 99`),
			pst(`INSERT INTO "T" VALUE {'pk': 'b'}`),
			pst(`DELETE FROM "T" WHERE pk = 'u' AND n = 99`),
			pst(`EXISTS(SELECT * FROM "T" WHERE pk = 'nope' AND v = 1)`),
			pst(`UPDATE "T" SET v = 1 WHERE pk = 'nope2'`),
			pst(`DELETE FROM "T" WHERE pk = 'nope3'`),
			pst(`EXISTS(SELECT * FROM "T2" WHERE pk = 'x' AND sk = 'y' AND attribute_not_exists(pk))`),
		)),
		// DynamoDB returns the item of an UPDATE whose condition failed
		// when ReturnValuesOnConditionCheckFailure is ALL_OLD (API
		// reference, ParameterizedStatement: "returns the item
		// attributes for a PartiQL ParameterizedStatement operation that
		// failed a condition check"); DynamoDB Local leaves it out.
		docStep(fail(eTxn, etx(
			types.ParameterizedStatement{Statement: str(`UPDATE "T" SET v = 6 WHERE pk = 'a' AND v = 99`),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
			types.ParameterizedStatement{Statement: str(`INSERT INTO "T" VALUE {'pk': 'b'}`),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
			pst(`INSERT INTO "T" VALUE {'pk': 'new'}`),
		)), "DynamoDB Local leaves out the item ReturnValuesOnConditionCheckFailure asks for",
			`{"Err":{"Kind":"TransactionCanceled","Code":"TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, ConditionalCheckFailed, None]","Reasons":[{"Code":"ConditionalCheckFailed","Item":{"pk":{"S":"a"},"s":{"S":"x"},"v":{"N":"1"}}},{"Code":"ConditionalCheckFailed"},{"Code":"None"}]}}`),
		fail(eTxn, etx(pst(`INSERT INTO "T" VALUE {'pk': 'new'}`), pst(`INSERT INTO "T" VALUE {'pk': 1}`))),
		fail(eTxn, etx(pst(`INSERT INTO "T" VALUE {'pk': 'new'}`), pst(`UPDATE "T" SET v = 1 WHERE v = 2`))),
	),
	pqWrite("transaction reads",
		do(etx(
			pst(`SELECT * FROM "T" WHERE pk = 'a'`),
			pst(`SELECT v FROM "T" WHERE pk = ?`, S("b")),
			pst(`SELECT * FROM "T" WHERE pk = 'nope'`),
			pst(`SELECT * FROM "T2" WHERE pk = 'x' AND sk = 'y'`),
		)),
		failMsg(eValid, etx(pst(`SELECT * FROM "T" WHERE pk = 'a'`), pst(`INSERT INTO "T" VALUE {'pk': 'new'}`))),
		failMsg(eValid, etx(pst(`SELECT * FROM "T" WHERE pk = 'a' AND v = 1`))),
		failMsg(eValid, etx(pst(`SELECT * FROM "T2" WHERE pk = 'x'`))),
	),
	pqWrite("transaction errors",
		failMsg(eValid, etx(pst(`EXISTS(SELECT * FROM "T" WHERE pk = 'a')`))),
		failMsg(eValid, etx(pst(`NOT EXISTS(SELECT * FROM "T" WHERE pk = 'a' AND v = 1)`))),
		failMsg(eValid, etx(pst(`EXISTS(SELECT * FROM "T" WHERE pk = 'a' AND v = 1)`), pst(`UPDATE "T" SET v = 2 WHERE pk = 'a'`))),
		failMsg(eValid, etx(nTx(101, `INSERT INTO "T" VALUE {'pk': 'k%d'}`)...)),
		failMsg(eValid, etx(nTx(101, `SELECT * FROM "T" WHERE pk = 'k%d'`)...)),
		failMsg(eValid, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{}}),
		failMsg(eValid, etx(pst(`INSERT INTO "T" VALUE {'pk': 'new'}`), pst(`INSER INTO "T" VALUE {'pk': 'y'}`))),
		failMsg(eValid, etx(pst(`INSERT INTO "T" VALUE {'pk': 'new'}`), pst(`UPDATE "T" SET v = ? WHERE pk = ?`, N("1")))),
		fail(eNotFound, etx(pst(`INSERT INTO "T" VALUE {'pk': 'new'}`), pst(`INSERT INTO "Missing" VALUE {'pk': 'x'}`))),
		do(etx(nTx(100, `INSERT INTO "T" VALUE {'pk': 'k%d'}`)...)),
	),
	pqCase("transaction ClientRequestToken",
		do(&dynamodb.ExecuteTransactionInput{ClientRequestToken: str("tok1"), TransactStatements: []types.ParameterizedStatement{
			pst(`UPDATE "T" SET v = v + 1 WHERE pk = 'a'`)}}),
		do(&dynamodb.ExecuteTransactionInput{ClientRequestToken: str("tok1"), TransactStatements: []types.ParameterizedStatement{
			pst(`UPDATE "T" SET v = v + 1 WHERE pk = 'a'`)}}),
		do(es(`SELECT v FROM "T" WHERE pk = 'a'`)),
		failMsg("other", &dynamodb.ExecuteTransactionInput{ClientRequestToken: str("tok1"), TransactStatements: []types.ParameterizedStatement{
			pst(`UPDATE "T" SET v = v + 2 WHERE pk = 'a'`)}}),
		do(&dynamodb.ExecuteTransactionInput{ClientRequestToken: str("tok2"), TransactStatements: []types.ParameterizedStatement{
			pst(`UPDATE "T" SET v = v + 1 WHERE pk = 'a'`)}}),
		do(es(`SELECT v FROM "T" WHERE pk = 'a'`)),
	),
}

func init() {
	g := func(name string, members ...string) {
		for i := range members {
			members[i] = "PartiQL/" + members[i]
		}
		partiqlCases = group(partiqlCases, "PartiQL/"+name, members...)
	}
	g("select by key", "select full key", "select projection", "select sort key conditions",
		"select partition key IN", "select filters in a partition", "select with parameters", "select from an index",
		"select ConsistentRead", "select ORDER BY")
	g("select scanning and paging", "select filters scanning", "select without WHERE", "select Limit and paging",
		"select Limit and NextToken errors")
	g("select errors", "statement errors", "parameter count")
	g("select ORDER BY DESC where DynamoDB Local differs", "select ORDER BY DESC projecting no key",
		"select ORDER BY DESC on an LSI", "select ORDER BY DESC with a Limit")
	for _, c := range partiqlCases {
		if !strings.HasPrefix(c.name, "PartiQL/") {
			panic("partiqlCases: " + c.name)
		}
	}
}
