package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

func key(pk, sk string) map[string]av { return map[string]av{"pk": s(pk), "sk": s(sk)} }

func apiMsg(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

func TestErrors(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("a"), "sk": s("1"), "n": n("1"), "str": s("x")})
	tbl := aws.String("tbl")
	cases := []struct {
		name string
		call func() error
		code string // API error code
		msg  string // message, if checked
	}{
		{"missing table", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: key("a", "1")})
			return err
		}, "ResourceNotFoundException", ""},
		{"create existing", func() error {
			_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: tbl, BillingMode: types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
			return err
		}, "ResourceInUseException", ""},
		{"empty key string", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: key("", "1")})
			return err
		}, "ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"key type mismatch", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": n("1"), "sk": s("1")}})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"missing key", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("1")}})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Missing the key sk in the item"},
		{"index key type mismatch", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("1"), "sk": s("1"), "gsk": s("x")}})
			return err
		}, "ValidationException", ""},
		{"empty set", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("1"), "sk": s("1"), "ss": &types.AttributeValueMemberSS{}}})
			return err
		}, "ValidationException", "One or more parameter values were invalid: An string set  may not be empty"},
		{"item too large", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("1"), "sk": s("1"), "big": s(strings.Repeat("x", 400*1024))}})
			return err
		}, "ValidationException", "Item size has exceeded the maximum allowed size"},
		{"missing value placeholder", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: key("a", "1"), ConditionExpression: aws.String("n = :v")})
			return err
		}, "ValidationException", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v"},
		{"unused name", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "1"), ProjectionExpression: aws.String("n"), ExpressionAttributeNames: map[string]string{"#x": "x"}})
			return err
		}, "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"},
		{"syntax", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("a", "1"), UpdateExpression: aws.String("SET a = :v REMOVE"), ExpressionAttributeValues: map[string]av{":v": n("1")}})
			return err
		}, "ValidationException", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "REMOVE"`},
		{"update key attribute", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("a", "1"), UpdateExpression: aws.String("SET pk = :v"), ExpressionAttributeValues: map[string]av{":v": s("x")}})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"arithmetic on string", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("a", "1"), UpdateExpression: aws.String("SET str = str + :v"), ExpressionAttributeValues: map[string]av{":v": n("1")}})
			return err
		}, "ValidationException", "An operand in the update expression has an incorrect data type"},
		{"condition failed", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("a", "1"), UpdateExpression: aws.String("SET n = :v"), ConditionExpression: aws.String("n > :v"), ExpressionAttributeValues: map[string]av{":v": n("1")}})
			return err
		}, "ConditionalCheckFailedException", "The conditional request failed"},
		{"query without key condition", func() error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl})
			return err
		}, "ValidationException", ""},
		{"filter on key", func() error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("sk = :p"), ExpressionAttributeValues: map[string]av{":p": s("a")}})
			return err
		}, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{"legacy parameter mixed with an expression", func() error {
			_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, AttributesToGet: []string{"n"}, ProjectionExpression: aws.String("n")})
			return err
		}, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			var ae smithy.APIError
			if !errors.As(err, &ae) || ae.ErrorCode() != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			if c.msg != "" && ae.ErrorMessage() != c.msg {
				t.Fatalf("message %q, want %q", ae.ErrorMessage(), c.msg)
			}
		})
	}
	// nothing was half-written
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: tbl})
	if err != nil || out.Count != 1 {
		t.Fatalf("scan after errors: %v %v", out, err)
	}
}

func TestUpdateReturnValues(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("a"), "sk": s("1"), "n": n("1"), "m": &types.AttributeValueMemberM{Value: map[string]av{"k": s("v")}}})
	upd := func(rv types.ReturnValue) map[string]av {
		t.Helper()
		out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("a", "1"),
			UpdateExpression: aws.String("SET n = n + :one, m.x = :one"), ExpressionAttributeValues: map[string]av{":one": n("1")}, ReturnValues: rv})
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes
	}
	opt := cmpAV
	// Only the updated paths: m.x did not exist before, and m.k is not
	// returned.
	if d := cmp.Diff(map[string]av{"n": n("1")}, upd(types.ReturnValueUpdatedOld), opt); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff(map[string]av{"n": n("3"), "m": &types.AttributeValueMemberM{Value: map[string]av{"x": n("1")}}}, upd(types.ReturnValueUpdatedNew), opt); d != "" {
		t.Error(d)
	}
	all := upd(types.ReturnValueAllNew)
	if all["n"].(*types.AttributeValueMemberN).Value != "4" || all["pk"] == nil {
		t.Errorf("ALL_NEW %v", all)
	}
	if got := upd(types.ReturnValueNone); got != nil {
		t.Errorf("NONE returned %v", got)
	}
	// REMOVE of a list element that does not exist changes nothing, so
	// nothing is returned for it.
	put(t, db, map[string]av{"pk": s("l"), "sk": s("1"), "l": &types.AttributeValueMemberL{Value: []av{s("a")}}, "x": s("x")})
	rm, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("l", "1"),
		UpdateExpression: aws.String("REMOVE l[5], x"), ReturnValues: types.ReturnValueUpdatedOld})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]av{"x": s("x")}, rm.Attributes, opt); d != "" {
		t.Error("REMOVE of a missing element:", d)
	}
	// An update of a missing item creates it.
	out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("b", "1"),
		UpdateExpression: aws.String("ADD c :one"), ExpressionAttributeValues: map[string]av{":one": n("1")}, ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]av{"pk": s("b"), "sk": s("1"), "c": n("1")}, out.Attributes, opt); d != "" {
		t.Error(d)
	}
}

func TestScanSegmentsAndPaging(t *testing.T) {
	db := newTable(t)
	const total = 300
	for i := 0; i < total; i++ {
		put(t, db, map[string]av{"pk": s(fmt.Sprintf("p%03d", i%50)), "sk": s(fmt.Sprint(i))})
	}
	seen := map[string]int{}
	for seg := int32(0); seg < 4; seg++ {
		var esk map[string]av
		for {
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(4), Limit: aws.Int32(7), ExclusiveStartKey: esk})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				seen[it["pk"].(*types.AttributeValueMemberS).Value+"/"+it["sk"].(*types.AttributeValueMemberS).Value]++
			}
			if esk = out.LastEvaluatedKey; esk == nil {
				break
			}
		}
	}
	if len(seen) != total {
		t.Fatalf("segments saw %d distinct items, want %d", len(seen), total)
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("%s seen %d times", k, c)
		}
	}
	cnt, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Select: types.SelectCount})
	if err != nil || cnt.Count != total || cnt.Items != nil {
		t.Fatalf("COUNT: %+v %v", cnt, err)
	}
}

func TestOneMegabytePages(t *testing.T) {
	db := newTable(t)
	big := strings.Repeat("x", 100*1024)
	for i := 0; i < 25; i++ {
		put(t, db, map[string]av{"pk": s("p"), "sk": s(fmt.Sprintf("%02d", i)), "v": s(big)})
	}
	var sizes []int
	var esk map[string]av
	for {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]av{":p": s("p")}, ExclusiveStartKey: esk})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(out.Items))
		if esk = out.LastEvaluatedKey; esk == nil {
			break
		}
	}
	// A page ends with the item that reaches 1 MB (10 items of 100 KB do not).
	if d := cmp.Diff([]int{11, 11, 3}, sizes); d != "" {
		t.Fatal(d)
	}
}

// TestPageStoredSize: the 1 MB page counts an item's stored size, which
// is not its item size (an attribute name counts 1 byte, a value its
// length's bytes too, and the item some bytes per 3 KB). The items are
// those of dynalite's "just under" and "just over" limit Query tests, whose
// byte counts were recorded against AWS: 25 items whose last is one byte
// longer reach 1 MB with the 25th, so the page ends there with a
// LastEvaluatedKey although no item is left.
func TestPageStoredSize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		attr      string
		last      int // the 25th item's value length
		lastEvKey bool
	}{
		{"just under, long attribute name", strings.Repeat("e", 255), 41645, false},
		{"just over", "e", 41646, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newTable(t)
			for i := 0; i < 25; i++ {
				n := 41645
				if i == 24 {
					n = tc.last
				}
				put(t, db, map[string]av{"pk": s("AAAA0.1234"), "sk": s(fmt.Sprintf("%02d", i)), tc.attr: s(strings.Repeat("e", n))})
			}
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]av{":p": s("AAAA0.1234")}, Select: types.SelectCount, Limit: aws.Int32(26)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Count != 25 || out.ScannedCount != 25 || (out.LastEvaluatedKey != nil) != tc.lastEvKey {
				t.Fatalf("Count %d, ScannedCount %d, LastEvaluatedKey %v; want 25, 25 and one: %v", out.Count, out.ScannedCount, out.LastEvaluatedKey, tc.lastEvKey)
			}
		})
	}
}

func TestIndexProjections(t *testing.T) {
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("idx"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("sk"), AttributeType: "S"},
			{AttributeName: aws.String("g"), AttributeType: "S"}, {AttributeName: aws.String("r"), AttributeType: "N"},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("keys"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("incl"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a"}}},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{
			{IndexName: aws.String("lsi"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("r"), KeyType: types.KeyTypeRange}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range []map[string]av{
		{"pk": s("p"), "sk": s("1"), "g": s("G"), "r": n("2"), "a": s("A"), "b": s("B")},
		{"pk": s("p"), "sk": s("2"), "r": n("1"), "a": s("A2")}, // not in the GSIs: sparse
	} {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("idx"), Item: it}); err != nil {
			t.Fatal(i, err)
		}
	}
	q := func(index, kc string, vals map[string]av) []map[string]av {
		t.Helper()
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("idx"), IndexName: aws.String(index), KeyConditionExpression: aws.String(kc), ExpressionAttributeValues: vals})
		if err != nil {
			t.Fatal(err)
		}
		return out.Items
	}
	g := map[string]av{":g": s("G")}
	if d := cmp.Diff([]map[string]av{{"pk": s("p"), "sk": s("1"), "g": s("G")}}, q("keys", "g = :g", g), cmpAV); d != "" {
		t.Error("KEYS_ONLY", d)
	}
	if d := cmp.Diff([]map[string]av{{"pk": s("p"), "sk": s("1"), "g": s("G"), "a": s("A")}}, q("incl", "g = :g", g), cmpAV); d != "" {
		t.Error("INCLUDE", d)
	}
	lsi := q("lsi", "pk = :p", map[string]av{":p": s("p")})
	if d := cmp.Diff([]map[string]av{{"pk": s("p"), "sk": s("2"), "r": n("1")}, {"pk": s("p"), "sk": s("1"), "r": n("2")}}, lsi, cmpAV); d != "" {
		t.Error("LSI order", d)
	}
	// Moving an item out of the index (removing g) removes it there.
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("idx"), Key: key("p", "1"), UpdateExpression: aws.String("REMOVE g")}); err != nil {
		t.Fatal(err)
	}
	if got := q("keys", "g = :g", g); len(got) != 0 {
		t.Errorf("item still indexed: %v", got)
	}
}

func TestBatch(t *testing.T) {
	db := newTable(t)
	var writes []types.WriteRequest
	for i := 0; i < 25; i++ {
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: key("b", fmt.Sprint(i))}})
	}
	if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": writes}}); err != nil {
		t.Fatal(err)
	}
	// Over the limit in one table, a constraint of the request; over it
	// in all tables, DynamoDB's own message.
	over := append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: key("b", "x")}})
	_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": over}})
	if apiMsg(err) != "1 validation error detected: Value '{tbl}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]" {
		t.Fatalf("26 writes: %v", err)
	}
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": writes[:13], "tbl2": writes[:13]}})
	if apiMsg(err) != "Too many items requested for the BatchWriteItem call" {
		t.Fatalf("26 writes in two tables: %v", err)
	}
	// A put whose item does not fit the key schema: DynamoDB's words for a
	// batch (PutItem names the key).
	for _, it := range []map[string]av{{"pk": s("a")}, {"pk": s("a"), "sk": n("1")}, {"pk": s("a"), "sk": &types.AttributeValueMemberBOOL{Value: true}}} {
		_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {{PutRequest: &types.PutRequest{Item: it}}}}})
		if apiMsg(err) != "The provided key element does not match the schema" {
			t.Fatalf("put of %v: %v", it, err)
		}
	}
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {writes[0], writes[0]}}})
	if apiMsg(err) != "Provided list of item keys contains duplicates" {
		t.Fatalf("duplicates: %v", err)
	}
	var keys []map[string]av
	for i := 0; i < 30; i++ {
		keys = append(keys, key("b", fmt.Sprint(i)))
	}
	out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: keys}}})
	if err != nil || len(out.Responses["tbl"]) != 25 {
		t.Fatalf("batch get: %v %v", len(out.Responses["tbl"]), err)
	}
	for i := 30; i < 101; i++ {
		keys = append(keys, key("b", fmt.Sprint(i)))
	}
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: keys}}})
	if !strings.HasPrefix(apiMsg(err), "1 validation error detected: Value '[{pk={S: b,}, sk={S: 0,}}, ") ||
		!strings.HasSuffix(apiMsg(err), "' at 'requestItems.tbl.member.keys' failed to satisfy constraint: Member must have length less than or equal to 100") {
		t.Fatalf("101 gets: %v", err)
	}
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: keys[:100]}, "tbl2": {Keys: keys[:1]}}})
	if apiMsg(err) != "Too many items requested for the BatchGetItem call" {
		t.Fatalf("101 gets in two tables: %v", err)
	}
}

func TestTransactions(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("acct"), "sk": s("a"), "bal": n("10")})
	tbl := aws.String("tbl")
	move := func(amount string, token *string) error {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: token, TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: tbl, Key: key("acct", "a"), UpdateExpression: aws.String("SET bal = bal - :x"), ConditionExpression: aws.String("bal >= :x"),
				ExpressionAttributeValues: map[string]av{":x": n(amount)}, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{Update: &types.Update{TableName: tbl, Key: key("acct", "b"), UpdateExpression: aws.String("ADD bal :x"), ExpressionAttributeValues: map[string]av{":x": n(amount)}}},
		}})
		return err
	}
	if err := move("4", aws.String("tok-1")); err != nil {
		t.Fatal(err)
	}
	// Same token, same request: success without applying again.
	if err := move("4", aws.String("tok-1")); err != nil {
		t.Fatal(err)
	}
	var mismatch *types.IdempotentParameterMismatchException
	if err := move("5", aws.String("tok-1")); !errors.As(err, &mismatch) {
		t.Fatalf("token reuse with another request: %v", err)
	}
	err := move("7", nil)
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	want := []types.CancellationReason{
		{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed"), Item: map[string]av{"pk": s("acct"), "sk": s("a"), "bal": n("6")}},
		{Code: aws.String("None")},
	}
	if d := cmp.Diff(want, tc.CancellationReasons, cmpAV); d != "" {
		t.Fatal(d)
	}
	got, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: tbl, Key: key("acct", "a")}}, {Get: &types.Get{TableName: tbl, Key: key("acct", "b")}}, {Get: &types.Get{TableName: tbl, Key: key("acct", "c")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got.Responses[0].Item["bal"], got.Responses[1].Item["bal"]; a.(*types.AttributeValueMemberN).Value != "6" || b.(*types.AttributeValueMemberN).Value != "4" || got.Responses[2].Item != nil {
		t.Fatalf("balances %v %v %v", a, b, got.Responses[2].Item)
	}
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: tbl, Item: key("x", "1")}}, {Delete: &types.Delete{TableName: tbl, Key: key("x", "1")}},
	}})
	if apiMsg(err) != "Transaction request cannot include multiple operations on one item" {
		t.Fatalf("same item twice: %v", err)
	}
}

// TestConcurrency runs many goroutines against one engine: counters must
// not lose increments, and transfers in transactions must keep the total.
func TestConcurrency(t *testing.T) {
	db := newTable(t)
	tbl := aws.String("tbl")
	for _, a := range []string{"a", "b", "c"} {
		put(t, db, map[string]av{"pk": s("acct"), "sk": s(a), "bal": n("1000")})
	}
	const workers, per = 8, 100
	var wg sync.WaitGroup
	var mu sync.Mutex
	cancelled := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("ctr", "1"), UpdateExpression: aws.String("ADD c :one"), ExpressionAttributeValues: map[string]av{":one": n("1")}}); err != nil {
					t.Error(err)
					return
				}
				from, to := []string{"a", "b", "c"}[(w+i)%3], []string{"a", "b", "c"}[(w+i+1)%3]
				_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: tbl, Key: key("acct", from), UpdateExpression: aws.String("SET bal = bal - :x"), ConditionExpression: aws.String("bal >= :x"), ExpressionAttributeValues: map[string]av{":x": n("7")}}},
					{Update: &types.Update{TableName: tbl, Key: key("acct", to), UpdateExpression: aws.String("SET bal = bal + :x"), ExpressionAttributeValues: map[string]av{":x": n("7")}}},
				}})
				var tc *types.TransactionCanceledException
				if errors.As(err, &tc) {
					mu.Lock()
					cancelled++
					mu.Unlock()
				} else if err != nil {
					t.Error(err)
					return
				}
				out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]av{":p": s("acct")}})
				if err != nil {
					t.Error(err)
					return
				}
				sum := 0
				for _, it := range out.Items {
					var v int
					fmt.Sscan(it["bal"].(*types.AttributeValueMemberN).Value, &v)
					sum += v
				}
				if sum != 3000 {
					t.Errorf("a query saw total %d, want 3000", sum)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key("ctr", "1")})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["c"].(*types.AttributeValueMemberN).Value; got != fmt.Sprint(workers*per) {
		t.Fatalf("counter %s, want %d (cancelled transfers: %d)", got, workers*per, cancelled)
	}
}

func TestFaults(t *testing.T) {
	boom := errors.New("boom")
	db := ddbmem.New(func(o *ddbmem.Options) {
		o.Faults = map[string]ddbmem.Fault{"GetItem": {Err: boom, Times: 2}}
	})
	in := &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("a", "1")}
	for i := 0; i < 2; i++ {
		if _, err := db.GetItem(ctx, in); !errors.Is(err, boom) {
			t.Fatalf("call %d: %v, want forced error", i, err)
		}
	}
	var rnf *types.ResourceNotFoundException
	if _, err := db.GetItem(ctx, in); !errors.As(err, &rnf) {
		t.Fatalf("after Times: %v", err)
	}
	db.SetFault("*", ddbmem.Fault{ThrottleRate: 1})
	var pte *types.ProvisionedThroughputExceededException
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{}); !errors.As(err, &pte) {
		t.Fatalf("throttle: %v", err)
	}
	db.SetFault("Query", ddbmem.Fault{Latency: time.Hour})
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := db.Query(cctx, &dynamodb.QueryInput{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("latency: %v", err)
	}
	db.ClearFaults()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}); !errors.As(err, &rnf) {
		t.Fatalf("after ClearFaults: %v", err)
	}
	// About half the calls are throttled at rate 0.5.
	db.SetFault("GetItem", ddbmem.Fault{ThrottleRate: 0.5})
	throttled := 0
	for i := 0; i < 1000; i++ {
		if _, err := db.GetItem(ctx, in); errors.As(err, &pte) {
			throttled++
		}
	}
	if throttled < 400 || throttled > 600 {
		t.Fatalf("%d of 1000 calls throttled at rate 0.5", throttled)
	}
}

func TestTTL(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	db := ddbmem.New(func(o *ddbmem.Options) { o.Now = func() time.Time { return now } })
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("ttl"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("ttl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for _, it := range []map[string]av{
		{"pk": s("old"), "exp": n(fmt.Sprint(now.Unix() - 1))},
		{"pk": s("new"), "exp": n(fmt.Sprint(now.Unix() + 60))},
		{"pk": s("str"), "exp": s("1")}, // not a number: never expires
		{"pk": s("none")},
	} {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ttl"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(pk string) bool {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ttl"), Key: map[string]av{"pk": s(pk)}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	if !get("old") {
		t.Fatal("an expired item must stay readable until a sweep")
	}
	if n := db.SweepExpiredNow(); n != 1 {
		t.Fatalf("swept %d, want 1", n)
	}
	if get("old") || !get("new") || !get("str") || !get("none") {
		t.Fatal("wrong items swept")
	}
	if n := db.SweepExpired(now.Add(time.Hour)); n != 1 || get("new") {
		t.Fatalf("later sweep removed %d", n)
	}
}

func TestCopies(t *testing.T) {
	db := newTable(t)
	l := &types.AttributeValueMemberL{Value: []av{s("a")}}
	it := map[string]av{"pk": s("a"), "sk": s("1"), "l": l}
	put(t, db, it)
	l.Value[0] = s("mutated")
	it["x"] = s("added")
	out, _ := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("a", "1")})
	out.Item["l"].(*types.AttributeValueMemberL).Value[0] = s("mutated again")
	again, _ := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("a", "1")})
	if d := cmp.Diff(map[string]av{"pk": s("a"), "sk": s("1"), "l": &types.AttributeValueMemberL{Value: []av{s("a")}}}, again.Item, cmpAV); d != "" {
		t.Fatal(d)
	}
}

func TestTables(t *testing.T) {
	db := newTable(t)
	lt, err := db.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 1 || lt.TableNames[0] != "tbl" {
		t.Fatalf("ListTables %v %v", lt, err)
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil || d.Table.TableStatus != types.TableStatusActive || len(d.Table.GlobalSecondaryIndexes) != 1 {
		t.Fatalf("DescribeTable %v %v", d, err)
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")}); err != nil {
		t.Fatal(err)
	}
	var rnf *types.ResourceNotFoundException
	if _, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")}); !errors.As(err, &rnf) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestNilValues(t *testing.T) {
	db := newTable(t)
	var nilS *types.AttributeValueMemberS
	for name, call := range map[string]func() error{
		"put nil value": func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: map[string]av{"pk": s("a"), "sk": s("1"), "x": nil}})
			return err
		},
		"put nil pointer": func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: map[string]av{"pk": s("a"), "sk": s("1"), "x": nilS}})
			return err
		},
		"get nil key pointer": func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: map[string]av{"pk": nilS, "sk": s("1")}})
			return err
		},
		"nil input": func() error {
			_, err := db.PutItem(ctx, nil)
			return err
		},
	} {
		if err := call(); !isValidation(err) {
			t.Errorf("%s: %v, want ValidationException", name, err)
		}
	}
}

func TestTokenExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	db := ddbmem.New(func(o *ddbmem.Options) { o.Now = func() time.Time { return now } })
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("tok"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	add := func() error {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("t1"), TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("tok"), Key: map[string]av{"pk": s("c")}, UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]av{":one": n("1")}}},
		}})
		return err
	}
	count := func() string {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tok"), Key: map[string]av{"pk": s("c")}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item["n"].(*types.AttributeValueMemberN).Value
	}
	for i := 0; i < 3; i++ {
		if err := add(); err != nil {
			t.Fatal(err)
		}
	}
	if got := count(); got != "1" {
		t.Fatalf("count %s after retries with one token, want 1", got)
	}
	now = now.Add(11 * time.Minute) // the token has expired
	if err := add(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != "2" {
		t.Fatalf("count %s after the token expired, want 2", got)
	}
}

// TestReadCopies checks what a reader may do with what it gets: change
// the returned maps, and even write into their members in place,
// without changing the table.
func TestReadCopies(t *testing.T) {
	db := newTable(t)
	want := map[string]av{
		"pk": s("a"), "sk": s("1"), "n": &types.AttributeValueMemberN{Value: "7"},
		"ok": &types.AttributeValueMemberBOOL{Value: true}, "nil": &types.AttributeValueMemberNULL{Value: true},
		"b": &types.AttributeValueMemberB{Value: []byte("bin")}, "ss": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"m": &types.AttributeValueMemberM{Value: map[string]av{"k": s("v")}},
	}
	put(t, db, ddbexpr.CopyItem(want))
	get := func() map[string]av {
		t.Helper()
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("a", "1")})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	query := func() map[string]av {
		t.Helper()
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]av{":p": s("a")}})
		if err != nil || len(out.Items) != 1 {
			t.Fatal(out, err)
		}
		return out.Items[0]
	}
	for _, read := range []func() map[string]av{get, query, get} {
		it := read()
		if d := cmp.Diff(want, it, cmpAV); d != "" {
			t.Fatal(d)
		}
		// Change the map itself...
		it["added"] = s("x")
		delete(it, "n")
		it["sk"] = s("2")
		// ...and every member in place.
		it["pk"].(*types.AttributeValueMemberS).Value = "evil"
		it["ok"].(*types.AttributeValueMemberBOOL).Value = false
		it["nil"].(*types.AttributeValueMemberNULL).Value = false
		it["b"].(*types.AttributeValueMemberB).Value[0] = 'X'
		it["ss"].(*types.AttributeValueMemberSS).Value[0] = "z"
		it["m"].(*types.AttributeValueMemberM).Value["k"] = s("w")
	}
	// The engine's own view is untouched too: a condition on pk holds.
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: map[string]av{"pk": s("a"), "sk": s("1")},
		ConditionExpression: aws.String("pk = :p AND n = :n"), ExpressionAttributeValues: map[string]av{":p": s("a"), ":n": &types.AttributeValueMemberN{Value: "7"}}}); err != nil {
		t.Fatal(err)
	}
}

// TestReadCopiesEightAttributes covers an item of exactly eight
// attributes with a container (copied key by key) and one of more.
func TestReadCopiesEightAttributes(t *testing.T) {
	db := newTable(t)
	for _, n := range []int{6, 8, 20} {
		it := map[string]av{"pk": s(fmt.Sprint(n)), "sk": s("1"), "l": &types.AttributeValueMemberL{Value: []av{s("a")}}}
		for i := len(it); i < n; i++ {
			it[fmt.Sprint("a", i)] = s(fmt.Sprint(i))
		}
		want := ddbexpr.CopyItem(it)
		put(t, db, it)
		for range 2 {
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key(fmt.Sprint(n), "1")})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, out.Item, cmpAV); d != "" {
				t.Fatalf("%d attributes: %s", n, d)
			}
			out.Item["l"].(*types.AttributeValueMemberL).Value[0] = s("mutated")
			out.Item["a3"].(*types.AttributeValueMemberS).Value = "mutated"
		}
	}
}

// TestConcurrentReads reads and rewrites the same items from many
// goroutines; the race detector checks the shared read templates.
func TestConcurrentReads(t *testing.T) {
	db := newTable(t)
	for i := range 10 {
		put(t, db, map[string]av{"pk": s("p"), "sk": s(fmt.Sprint(i)), "v": s("x")})
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g == 0 && i%10 == 0 {
					if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
						Item: map[string]av{"pk": s("p"), "sk": s(fmt.Sprint(i % 10)), "v": s(fmt.Sprint(i))}}); err != nil {
						t.Error(err)
					}
					continue
				}
				out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
					ExpressionAttributeValues: map[string]av{":p": s("p")}})
				if err != nil || len(out.Items) != 10 {
					t.Error(out, err)
					return
				}
				for _, it := range out.Items {
					it["v"] = s("changed") // a reader's own map
				}
			}
		}()
	}
	wg.Wait()
}

// TestUpdateValuesCopied checks that an update stores copies of the values
// it names (the caller may reuse its values afterwards), that a number is
// stored in canonical form, and that a value only the condition names is
// still validated and compared.
func TestUpdateValuesCopied(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("a"), "sk": s("1"), "c": n("5")})
	v := &types.AttributeValueMemberS{Value: "x"}
	vals := map[string]av{":v": v, ":n": n("007.50"), ":c": n("5.0")}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("a", "1"),
		UpdateExpression: aws.String("SET v = :v, n = :n"), ConditionExpression: aws.String("c = :c"), ExpressionAttributeValues: vals}); err != nil {
		t.Fatal(err)
	}
	v.Value = "changed"
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("a", "1")})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]av{"pk": s("a"), "sk": s("1"), "c": n("5"), "v": s("x"), "n": n("7.5")}, out.Item, cmpAV); d != "" {
		t.Error(d)
	}
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("a", "1"),
		UpdateExpression: aws.String("SET v = :v"), ConditionExpression: aws.String("c = :c"), ExpressionAttributeValues: map[string]av{":v": s("y"), ":c": n("x1")}})
	if apiMsg(err) == "" || !strings.Contains(apiMsg(err), "ExpressionAttributeValues contains invalid value") {
		t.Errorf("bad condition value: %v", err)
	}
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("a", "1"),
		UpdateExpression: aws.String("SET v = :v"), ConditionExpression: aws.String("c = :c"), ExpressionAttributeValues: map[string]av{":v": s("y"), ":c": n("6")}})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Errorf("condition on a changed value: %v", err)
	}
}
