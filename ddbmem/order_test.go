package ddbmem_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/ddbmem"
)

// sortTable returns an engine with table "srt" whose sort key has type typ.
func sortTable(t *testing.T, typ types.ScalarAttributeType) *ddbmem.DB {
	t.Helper()
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("srt"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("sk"), AttributeType: typ}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestSortOrder(t *testing.T) {
	t.Run("N", func(t *testing.T) {
		db := sortTable(t, "N")
		for _, v := range []string{"10", "-1.5", "2", "0", "-10", "0.001", "1e3", "99999999999999999999999999999999999999", "-0.0001"} {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("srt"), Item: map[string]av{"pk": s("p"), "sk": n(v)}}); err != nil {
				t.Fatal(v, err)
			}
		}
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("srt"), KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :a AND :b"),
			ExpressionAttributeValues: map[string]av{":p": s("p"), ":a": n("-10"), ":b": n("1000")}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberN).Value)
		}
		want := []string{"-10", "-1.5", "-0.0001", "0", "0.001", "2", "10", "1000"}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("S bytewise", func(t *testing.T) {
		db := sortTable(t, "S")
		for _, v := range []string{"b", "a", "B", "가", "a\x00", "ab", "é"} {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("srt"), Item: map[string]av{"pk": s("p"), "sk": s(v)}}); err != nil {
				t.Fatal(v, err)
			}
		}
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("srt"), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]av{":p": s("p")}, ScanIndexForward: aws.Bool(false)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberS).Value)
		}
		want := []string{"가", "é", "b", "ab", "a\x00", "a", "B"}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("B", func(t *testing.T) {
		db := sortTable(t, "B")
		for _, v := range [][]byte{{2}, {1, 0}, {1}, {0xff}, {0, 0xff}} {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("srt"), Item: map[string]av{"pk": s("p"), "sk": &types.AttributeValueMemberB{Value: v}}}); err != nil {
				t.Fatal(v, err)
			}
		}
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("srt"), KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :b)"),
			ExpressionAttributeValues: map[string]av{":p": s("p"), ":b": &types.AttributeValueMemberB{Value: []byte{1}}}})
		if err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for _, it := range out.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberB).Value)
		}
		if d := cmp.Diff([][]byte{{1}, {1, 0}}, got); d != "" {
			t.Fatal(d)
		}
	})
}

func TestQueryValidation(t *testing.T) {
	db := newTable(t)
	vals := map[string]av{":p": s("a"), ":e": s(""), ":q": s("b")}
	cases := []struct {
		name string
		in   dynamodb.QueryInput
		msg  string
	}{
		{"OR", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p OR sk = :p")}, "Invalid operator used in KeyConditionExpression: OR"},
		{"no partition key", dynamodb.QueryInput{KeyConditionExpression: aws.String("sk = :p")}, "Query condition missed key schema element: pk"},
		{"not a key attribute", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND zz = :q")}, "Query condition missed key schema element: sk"},
		{"partition key range", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk < :p")}, "Query key condition not supported"},
		{"three conditions", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk > :p AND sk < :p")}, "KeyConditionExpressions must only contain one condition per key"},
		{"type", dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gpk = :p AND gsk = :p")}, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"no index", dynamodb.QueryInput{IndexName: aws.String("nope"), KeyConditionExpression: aws.String("pk = :p")}, "The table does not have the specified index: nope"},
		{"count with projection", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectCount, ProjectionExpression: aws.String("x")}, "Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{"consistent GSI", dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gpk = :p"), ConsistentRead: aws.Bool(true)}, "Consistent reads are not supported on global secondary indexes"},
		{"start key elsewhere", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExclusiveStartKey: key("b", "1")}, "The provided starting key is outside query boundaries based on provided conditions"},
		{"start key elsewhere, with a sort key term", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk < :q"), ExclusiveStartKey: key("b", "a")}, "The query can return at most one row and cannot be restarted"},
		{"start key outside the sort key range", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk > :p"), ExclusiveStartKey: key("a", "0")}, "The provided starting key does not match the range key predicate"},
		{"start key on the far bound", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :p AND :q"), ExclusiveStartKey: key("a", "b")}, "The provided starting key does not match the range key predicate"},
		{"empty begins_with", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :e)")}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk"},
		// A start key is checked in DynamoDB's order: its size, the key
		// the read reads by (interleaved with the key condition), then the
		// table's key.
		{"start key of the wrong size", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExclusiveStartKey: map[string]av{"pk": s("a")}}, "The provided starting key is invalid"},
		{"start key of the wrong type", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExclusiveStartKey: map[string]av{"pk": n("1"), "sk": s("a")}}, "The provided key element does not match the schema"},
		{"start key before the key condition", dynamodb.QueryInput{KeyConditionExpression: aws.String("sk = :p"), ExclusiveStartKey: map[string]av{"pk": s("a"), "zz": s("a")}}, "Query condition missed key schema element: pk"},
		{"index start key without the table's key", dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gpk = :p"),
			ExclusiveStartKey: map[string]av{"gpk": s("a"), "gsk": n("1"), "pk": s("a"), "zz": s("a")}}, "The provided starting key is invalid: The provided key element does not match the schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.TableName = aws.String("tbl")
			in.ExpressionAttributeValues = map[string]av{}
			for k, v := range vals {
				if strings.Contains(aws.ToString(in.KeyConditionExpression)+aws.ToString(in.FilterExpression), k) {
					in.ExpressionAttributeValues[k] = v
				}
			}
			_, err := db.Query(ctx, &in)
			if !isValidation(err) || apiMsg(err) != c.msg {
				t.Fatalf("got %v, want %q", err, c.msg)
			}
		})
	}
}

// A Scan's start key is checked in DynamoDB's order and words: its size
// (worded by whether the scan reads an index), the index's key, the
// read's own checks, the table's key, then its segment.
func TestScanStartKey(t *testing.T) {
	db := newTable(t)
	for i := 0; i < 40; i++ {
		put(t, db, map[string]av{"pk": s(fmt.Sprint("p", i)), "sk": s("1")})
	}
	cases := []struct {
		name string
		in   dynamodb.ScanInput
		msg  string
	}{
		{"wrong size", dynamodb.ScanInput{ExclusiveStartKey: map[string]av{"pk": s("a")}}, "The provided starting key is invalid: The provided key element does not match the schema"},
		{"wrong size on an index", dynamodb.ScanInput{IndexName: aws.String("gsi"), ExclusiveStartKey: map[string]av{"pk": s("a")}}, "The provided starting key is invalid"},
		{"index key of the wrong type", dynamodb.ScanInput{IndexName: aws.String("gsi"), ExclusiveStartKey: map[string]av{"pk": s("a"), "sk": s("1"), "gpk": s("g"), "gsk": s("1")}}, "The provided key element does not match the schema"},
		{"table key of the wrong type", dynamodb.ScanInput{ExclusiveStartKey: map[string]av{"pk": s("a"), "sk": n("1")}}, "The provided starting key is invalid: The provided key element does not match the schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.TableName = aws.String("tbl")
			if _, err := db.Scan(ctx, &in); !isValidation(err) || apiMsg(err) != c.msg {
				t.Fatalf("got %v, want %q", err, c.msg)
			}
		})
	}
	// A key of another segment: find one.
	for i := 0; i < 40; i++ {
		_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Segment: aws.Int32(0), TotalSegments: aws.Int32(2),
			ExclusiveStartKey: map[string]av{"pk": s(fmt.Sprint("p", i)), "sk": s("1")}})
		if err != nil {
			if want := "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 0"; apiMsg(err) != want {
				t.Fatalf("got %v, want %q", err, want)
			}
			return
		}
	}
	t.Fatal("no key of segment 1 among 40")
}
