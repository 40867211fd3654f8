package ddbmem_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/ddbmem"
)

// exec runs one PartiQL statement on db.
func exec(t *testing.T, db *ddbmem.DB, stmt string, params ...av) (*dynamodb.ExecuteStatementOutput, error) {
	t.Helper()
	return db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Parameters: params})
}

// plainItems maps items to Go values for comparison.
func plainItems(items []map[string]av) []map[string]string {
	out := []map[string]string{}
	for _, it := range items {
		m := map[string]string{}
		for k, v := range it {
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				m[k] = "S:" + v.Value
			case *types.AttributeValueMemberN:
				m[k] = "N:" + v.Value
			default:
				m[k] = "other"
			}
		}
		out = append(out, m)
	}
	return out
}

func TestPartiQLStatements(t *testing.T) {
	db := newTable(t)
	for _, stmt := range []string{
		`INSERT INTO "tbl" VALUE {'pk': 'a', 'sk': '1', 'n': 1, 'gpk': 'g', 'gsk': 1}`,
		`INSERT INTO "tbl" VALUE {'pk': 'a', 'sk': '2', 'n': 2, 'gpk': 'g', 'gsk': 2}`,
		`INSERT INTO tbl VALUE {'pk': 'a', 'sk': '3', 'n': 3}`,
		`INSERT INTO "tbl" VALUE {'pk': 'b', 'sk': '1', 'n': 4, 'm': {'x': [10, 20]}}`,
	} {
		if _, err := exec(t, db, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	cases := []struct {
		stmt   string
		params []av
		want   []map[string]string
	}{
		{stmt: `SELECT pk, sk FROM "tbl" WHERE pk = 'a' AND sk > '1'`, want: []map[string]string{{"pk": "S:a", "sk": "S:2"}, {"pk": "S:a", "sk": "S:3"}}},
		{stmt: `SELECT sk FROM "tbl" WHERE pk = ? AND n >= 2 ORDER BY sk DESC`, params: []av{s("a")}, want: []map[string]string{{"sk": "S:3"}, {"sk": "S:2"}}},
		{stmt: `SELECT sk FROM "tbl" WHERE pk = 'a' AND sk <> '2'`, want: []map[string]string{{"sk": "S:1"}, {"sk": "S:3"}}},
		{stmt: `SELECT pk, sk FROM "tbl" WHERE pk IN ['b', 'a'] AND sk = '1'`, want: []map[string]string{{"pk": "S:b", "sk": "S:1"}, {"pk": "S:a", "sk": "S:1"}}},
		{stmt: `SELECT n FROM "tbl"."gsi" WHERE gpk = 'g' AND gsk BETWEEN 2 AND 5`, want: []map[string]string{{"n": "N:2"}}},
		{stmt: `SELECT m.x[1] FROM "tbl" WHERE n = 4`, want: []map[string]string{{"x[1]": "N:20"}}},
		{stmt: `SELECT sk FROM "tbl" WHERE pk = 'a' AND gpk IS MISSING`, want: []map[string]string{{"sk": "S:3"}}},
		{stmt: `SELECT sk FROM "tbl" WHERE pk = 'a' AND begins_with(sk, '2') OR n = 3`, want: []map[string]string{{"sk": "S:2"}, {"sk": "S:3"}}},
	}
	for _, c := range cases {
		out, err := exec(t, db, c.stmt, c.params...)
		if err != nil {
			t.Errorf("%s: %v", c.stmt, err)
			continue
		}
		got := plainItems(out.Items)
		if c.stmt == cases[len(cases)-1].stmt {
			// A Scan: in the engine's scan order, any order will do.
			if len(got) != 2 {
				t.Errorf("%s: %v", c.stmt, got)
			}
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", c.stmt, diff)
		}
	}

	// UPDATE with RETURNING, a failed condition, a missing item.
	out, err := exec(t, db, `UPDATE "tbl" SET n = n + 10 SET tags = set_add(tags, <<'x'>>) REMOVE gpk WHERE pk = 'a' AND sk = '1' RETURNING MODIFIED NEW *`)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 || out.Items[0]["n"].(*types.AttributeValueMemberN).Value != "11" {
		t.Fatalf("RETURNING MODIFIED NEW: %v", out.Items)
	}
	var ccf *types.ConditionalCheckFailedException
	if _, err := exec(t, db, `UPDATE "tbl" SET n = 0 WHERE pk = 'a' AND sk = '1' AND n = 1`); !errors.As(err, &ccf) {
		t.Fatalf("false condition: %v", err)
	}
	if _, err := exec(t, db, `UPDATE "tbl" SET n = 0 WHERE pk = 'zz' AND sk = '1'`); !errors.As(err, &ccf) {
		t.Fatalf("missing item: %v", err)
	}
	// INSERT of an existing item.
	var dup *types.DuplicateItemException
	if _, err := exec(t, db, `INSERT INTO "tbl" VALUE {'pk': 'a', 'sk': '1'}`); !errors.As(err, &dup) {
		t.Fatalf("duplicate: %v", err)
	}
	// DELETE with RETURNING, of a missing item.
	out, err = exec(t, db, `DELETE FROM "tbl" WHERE pk = 'b' AND sk = '1' RETURNING ALL OLD *`)
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("delete: %v %v", out, err)
	}
	if out, err = exec(t, db, `DELETE FROM "tbl" WHERE pk = 'b' AND sk = '1'`); err != nil || len(out.Items) != 0 {
		t.Fatalf("delete of a missing item: %v %v", out, err)
	}
}

func TestPartiQLPaging(t *testing.T) {
	db := newTable(t)
	for i := range 7 {
		put(t, db, map[string]av{"pk": s("p"), "sk": s(string(rune('a' + i)))})
	}
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT sk FROM "tbl" WHERE pk = 'p'`), Limit: aws.Int32(3)}
	var got []string
	for page := 0; ; page++ {
		out, err := db.ExecuteStatement(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberS).Value)
		}
		if out.NextToken == nil {
			break
		}
		// DynamoDB's LastEvaluatedKey comes with the token.
		if last := out.Items[len(out.Items)-1]["sk"]; !cmp.Equal(out.LastEvaluatedKey["sk"], last, cmp.AllowUnexported(types.AttributeValueMemberS{})) {
			t.Fatalf("LastEvaluatedKey %v, last item %v", out.LastEvaluatedKey, last)
		}
		if page > 5 {
			t.Fatal("paging does not end")
		}
		in.NextToken = out.NextToken
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e", "f", "g"}, got); diff != "" {
		t.Fatalf("pages: %s", diff)
	}
	in.NextToken = aws.String("forged")
	if _, err := db.ExecuteStatement(ctx, in); validationMessage(err) != "Invalid NextToken" {
		t.Fatalf("forged token: %v", err)
	}
}

// validationMessage is err's message when it is a ValidationException.
func validationMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == ddbmem.ValidationException {
		return ae.ErrorMessage()
	}
	return ""
}

func TestPartiQLBadInput(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("a"), "sk": s("1")})
	for _, c := range []struct{ stmt, want string }{
		{`SELEC * FROM "tbl"`, `Statement wasn't well formed, can't be processed: SELEC * FROM "tbl"`},
		{`SELECT * FROM "tbl" WHERE pk = 'a' AND`, `Statement wasn't well formed, can't be processed: SELECT * FROM "tbl" WHERE pk = 'a' AND`},
		{`SELECT * FROM "tbl" WHERE pk = ?`, "Number of parameters in request and statement don't match."},
		{`SELECT * FROM "tbl" WHERE foo(pk)`, "Unrecognized function: foo"},
		{`SELECT * FROM "tbl" WHERE pk = 1`, "Key attribute's data type should match its data type in table's schema: Key pk"},
		{`SELECT * FROM "tbl" ORDER BY sk`, "Must have WHERE clause in the statement when using ORDER BY clause."},
		{`SELECT * FROM "tbl" WHERE pk = 'a' ORDER BY n`, "Variable reference n in ORDER BY clause must be part of the primary key"},
		{`INSERT INTO "tbl" VALUE {'pk': 'b'}`, "Key attribute should be present in the item: Key sk"},
		{`INSERT INTO "tbl" VALUE {'pk': 'b', 'sk': '1', 's': <<'x', 'x'>>}`, "Input collection contains duplicates"},
		{`INSERT INTO "tbl" VALUE {'pk': 'b', 'sk': '1', 'a': 1, 'a': 2}`, "Duplicate keys in tuple. Key: a under root at 1:56:3"},
		{`INSERT INTO "tbl" VALUE {'pk': 'b', 'sk': '1', 'e': <<>>}`, "Empty bags are not supported at 1:53:2"},
		{`INSERT INTO "tbl" VALUE ['x']`, "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement. at 1:25:1"},
		{`INSERT INTO "tbl" VALUE {'pk': 'b', 'sk': '1', 'n': 1234567890123456789012345678901234567890}`, "DynamoDB only supports precision up to 38 digits"},
		{`INSERT INTO "tbl"."gsi" VALUE {'pk': 'b', 'sk': '1'}`, "FROM clause may only contain a single table name in data manipulation statements"},
		{`UPDATE "tbl" SET n = 1 WHERE pk = 'a'`, "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM "tbl" WHERE pk = 'a' AND sk = '1' RETURNING ALL NEW *`, "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements."},
		{`EXISTS(SELECT * FROM "tbl" WHERE pk = 'a' AND sk = '1' AND n = 1)`, "EXISTS can only be used in ExecuteTransaction write requests."},
	} {
		_, err := exec(t, db, c.stmt)
		if got := validationMessage(err); got != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.stmt, err, c.want)
		}
	}
	var rnf *types.ResourceNotFoundException
	if _, err := exec(t, db, `SELECT * FROM "nope"`); !errors.As(err, &rnf) {
		t.Errorf("missing table: %v", err)
	}
	// Nothing was written by any of them.
	out, err := exec(t, db, `SELECT * FROM "tbl"`)
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("table after bad input: %v %v", out, err)
	}
}

func TestPartiQLBatchAndTransaction(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("a"), "sk": s("1"), "n": n("1")})
	stmts := func(ss ...string) []types.BatchStatementRequest {
		out := make([]types.BatchStatementRequest, len(ss))
		for i, s := range ss {
			out[i].Statement = aws.String(s)
		}
		return out
	}
	b, err := db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: stmts(
		`INSERT INTO "tbl" VALUE {'pk': 'a', 'sk': '1'}`,
		`INSERT INTO "tbl" VALUE {'pk': 'b', 'sk': '1'}`,
		`UPDATE "tbl" SET n = 5 WHERE pk = 'c' AND sk = '1'`,
	)})
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{}
	for _, r := range b.Responses {
		if r.Error != nil {
			codes = append(codes, string(r.Error.Code))
		} else {
			codes = append(codes, "ok")
		}
	}
	if diff := cmp.Diff([]string{"DuplicateItem", "ok", "ConditionalCheckFailed"}, codes); diff != "" {
		t.Fatalf("batch: %s", diff)
	}
	if _, err := db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: stmts(
		`SELECT * FROM "tbl" WHERE pk = 'a' AND sk = '1'`, `DELETE FROM "tbl" WHERE pk = 'a' AND sk = '1'`)}); validationMessage(err) != "Read and write requests together in the same batch is not supported." {
		t.Fatalf("mixed batch: %v", err)
	}

	tx := func(ss ...string) []types.ParameterizedStatement {
		out := make([]types.ParameterizedStatement, len(ss))
		for i, s := range ss {
			out[i].Statement = aws.String(s)
		}
		return out
	}
	_, err = db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: tx(
		`EXISTS(SELECT * FROM "tbl" WHERE pk = 'a' AND sk = '1' AND n = 2)`,
		`INSERT INTO "tbl" VALUE {'pk': 'd', 'sk': '1'}`,
	)})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[0].Code) != "ConditionalCheckFailed" {
		t.Fatalf("failed EXISTS: %v", err)
	}
	if _, err := db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: tx(
		`EXISTS(SELECT * FROM "tbl" WHERE pk = 'a' AND sk = '1' AND n = 1)`,
		`INSERT INTO "tbl" VALUE {'pk': 'd', 'sk': '1'}`,
	)}); err != nil {
		t.Fatal(err)
	}
	r, err := db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: tx(
		`SELECT sk FROM "tbl" WHERE pk = 'd' AND sk = '1'`, `SELECT * FROM "tbl" WHERE pk = 'x' AND sk = '1'`)})
	if err != nil || len(r.Responses) != 2 || r.Responses[0].Item["sk"] == nil || r.Responses[1].Item != nil {
		t.Fatalf("read transaction: %+v %v", r, err)
	}
}
