package ddbmem_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

// hashTable returns an engine with table "hsh", keyed by a hash key "a" of
// type typ only, and a global index "byC" keyed by "c".
func hashTable(t *testing.T, typ types.ScalarAttributeType, rangeKey bool) *ddbmem.DB {
	t.Helper()
	db := ddbmem.New()
	in := &dynamodb.CreateTableInput{
		TableName: aws.String("hsh"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("a"), AttributeType: typ}, {AttributeName: aws.String("c"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byC"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("c"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}
	if rangeKey {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("b"), AttributeType: "S"})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("b"), KeyType: types.KeyTypeRange})
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	return db
}

func putAll(t *testing.T, db *ddbmem.DB, items ...map[string]av) {
	t.Helper()
	for _, it := range items {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hsh"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// keysOf returns the text of attribute name of each item.
func keysOf(items []map[string]av, names ...string) []string {
	var out []string
	for _, it := range items {
		k := ""
		for _, name := range names {
			switch v := it[name].(type) {
			case *types.AttributeValueMemberS:
				k += v.Value
			case *types.AttributeValueMemberN:
				k += v.Value
			}
		}
		out = append(out, k)
	}
	return out
}

// TestScanHashOrder checks that a Scan returns partitions in DynamoDB's
// order, for string and number keys. The expected orders are what AWS
// returned for these keys, as dynalite's test suite records them
// ("should return items in string hash order", "... number hash order").
func TestScanHashOrder(t *testing.T) {
	for _, c := range []struct {
		typ  types.ScalarAttributeType
		keys []string
		want []string
	}{
		{"S", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "aardman", "hello", "zapf", "äáöü"},
			[]string{"2", "8", "9", "1", "6", "hello", "0", "5", "4", "äáöü", "aardman", "7", "3", "zapf"}},
		{"N", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-0.09", "999.9", "0.012345", "-999.9"},
			[]string{"7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1", "0", "0.012345", "5"}},
	} {
		t.Run(string(c.typ), func(t *testing.T) {
			db := hashTable(t, c.typ, false)
			for _, k := range c.keys {
				v := s(k)
				if c.typ == "N" {
					v = n(k)
				}
				putAll(t, db, map[string]av{"a": v})
			}
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hsh")})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, keysOf(out.Items, "a")); d != "" {
				t.Fatalf("scan order (-want +got):\n%s", d)
			}
			// Pages of one item follow the same order.
			var paged []map[string]av
			in := &dynamodb.ScanInput{TableName: aws.String("hsh"), Limit: aws.Int32(1)}
			for {
				out, err := db.Scan(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				paged = append(paged, out.Items...)
				if out.LastEvaluatedKey == nil {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			if d := cmp.Diff(c.want, keysOf(paged, "a")); d != "" {
				t.Fatalf("paged scan order (-want +got):\n%s", d)
			}
		})
	}
}

// TestScanHashSegments checks which segment of a parallel scan of 4096
// segments holds a key, as AWS answered for these keys (dynalite's suite,
// "should return items from correct string/number hash segments"), and
// that for other totals the segments split the table: every item in
// exactly one segment, in scan order, each segment paged by its own
// LastEvaluatedKey.
func TestScanHashSegments(t *testing.T) {
	segmentOf := func(t *testing.T, db *ddbmem.DB, total int32, key av) int32 {
		t.Helper()
		for seg := range total {
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hsh"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total)})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				if cmp.Equal(it["a"], key, cmp.AllowUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{})) {
					return seg
				}
			}
		}
		return -1
	}
	for _, c := range []struct {
		typ  types.ScalarAttributeType
		val  func(string) av
		want map[string]int32
	}{
		{"S", s, map[string]int32{"3635": 0, "228": 0, "1668": 1, "3435": 4}},
		{"N", n, map[string]int32{"251": 1, "2388": 4095}},
	} {
		t.Run(string(c.typ), func(t *testing.T) {
			db := hashTable(t, c.typ, false)
			for k := range c.want {
				putAll(t, db, map[string]av{"a": c.val(k)})
			}
			for k, seg := range c.want {
				if got := segmentOf(t, db, 4096, c.val(k)); got != seg {
					t.Errorf("%q in segment %d of 4096, want %d", k, got, seg)
				}
			}
		})
	}
	t.Run("split", func(t *testing.T) {
		db := hashTable(t, "S", false)
		for i := range 300 {
			putAll(t, db, map[string]av{"a": s(fmt.Sprintf("k%03d", i))})
		}
		all, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hsh")})
		if err != nil {
			t.Fatal(err)
		}
		for _, total := range []int32{1, 2, 3, 7, 4096, 5000} {
			var got []string
			for seg := range total {
				in := &dynamodb.ScanInput{TableName: aws.String("hsh"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(16)}
				for {
					out, err := db.Scan(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, keysOf(out.Items, "a")...)
					if out.LastEvaluatedKey == nil {
						break
					}
					in.ExclusiveStartKey = out.LastEvaluatedKey
				}
			}
			if d := cmp.Diff(keysOf(all.Items, "a"), got); d != "" {
				t.Fatalf("segments of %d, concatenated, against one scan (-scan +segments):\n%s", total, d)
			}
		}
	})
}

// TestIndexTieOrder checks the order of items that share the key of a
// hash-only global index: DynamoDB's hash of their table key, as AWS
// answered (dynalite's suite, "should query on basic hash global index"),
// forward, in reverse and from an ExclusiveStartKey.
func TestIndexTieOrder(t *testing.T) {
	db := hashTable(t, "S", true)
	for _, k := range [][2]string{{"a", "a"}, {"b", "b"}, {"c", "e"}, {"c", "d"}, {"d", "a"}, {"e", "a"}} {
		putAll(t, db, map[string]av{"a": s(k[0]), "b": s(k[1]), "c": s("x")})
	}
	putAll(t, db, map[string]av{"a": s("c"), "b": s("c"), "c": s("y")})
	want := []string{"bb", "aa", "ce", "ea", "da", "cd"}
	query := func(forward bool, limit int32, start map[string]av) *dynamodb.QueryOutput {
		t.Helper()
		in := &dynamodb.QueryInput{TableName: aws.String("hsh"), IndexName: aws.String("byC"), KeyConditionExpression: aws.String("c = :c"),
			ExpressionAttributeValues: map[string]av{":c": s("x")}, ScanIndexForward: aws.Bool(forward), ExclusiveStartKey: start}
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		out, err := db.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if d := cmp.Diff(want, keysOf(query(true, 0, nil).Items, "a", "b")); d != "" {
		t.Fatalf("forward (-want +got):\n%s", d)
	}
	reversed := []string{"cd", "da", "ea", "ce", "aa", "bb"}
	if d := cmp.Diff(reversed, keysOf(query(false, 0, nil).Items, "a", "b")); d != "" {
		t.Fatalf("reverse (-want +got):\n%s", d)
	}
	first := query(true, 4, nil)
	if d := cmp.Diff(want[:4], keysOf(first.Items, "a", "b")); d != "" {
		t.Fatalf("first page (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want[4:], keysOf(query(true, 0, first.LastEvaluatedKey).Items, "a", "b")); d != "" {
		t.Fatalf("from LastEvaluatedKey (-want +got):\n%s", d)
	}
	back := query(false, 2, nil)
	if d := cmp.Diff(reversed[2:], keysOf(query(false, 0, back.LastEvaluatedKey).Items, "a", "b")); d != "" {
		t.Fatalf("reverse from LastEvaluatedKey (-want +got):\n%s", d)
	}
}
