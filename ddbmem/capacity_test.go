package ddbmem_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestConsumedCapacity replays a scenario whose units were recorded on
// DynamoDB Local, but for the empty Query, where AWS documents otherwise.
func TestConsumedCapacity(t *testing.T) {
	db := newTable(t)
	tbl := aws.String("tbl")
	const total = types.ReturnConsumedCapacityTotal
	units := func(label string, c *types.ConsumedCapacity, want float64) {
		t.Helper()
		if c == nil || aws.ToString(c.TableName) != "tbl" || aws.ToFloat64(c.CapacityUnits) != want {
			t.Errorf("%s: %+v, want %v units", label, c, want)
		}
	}
	big := key("a", "1")
	big["x"] = s(strings.Repeat("x", 5000))
	p, _ := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: big, ReturnConsumedCapacity: total})
	units("put 5 KB", p.ConsumedCapacity, 5)
	p, _ = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: key("a", "2"), ReturnConsumedCapacity: total})
	units("put small", p.ConsumedCapacity, 1)
	g, _ := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "1"), ReturnConsumedCapacity: total})
	units("get 5 KB", g.ConsumedCapacity, 1)
	g, _ = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "1"), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: total})
	units("get 5 KB consistent", g.ConsumedCapacity, 2)
	g, _ = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "9"), ReturnConsumedCapacity: total})
	units("get missing", g.ConsumedCapacity, 0.5)
	q, _ := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]av{":p": s("a")}, ReturnConsumedCapacity: total})
	units("query", q.ConsumedCapacity, 1)
	q, _ = db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]av{":p": s("zz")}, ReturnConsumedCapacity: total})
	// DynamoDB Local answers 0 here; AWS documents the minimum read
	// ("Queries that do not return results consume the minimum number of
	// read capacity units for that type of read operation", API_Query).
	units("query empty", q.ConsumedCapacity, 0.5)
	d, _ := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: key("a", "9"), ReturnConsumedCapacity: total})
	units("delete missing", d.ConsumedCapacity, 1)
	bg, _ := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: []map[string]av{key("a", "1"), key("a", "2"), key("a", "3")}}}, ReturnConsumedCapacity: total})
	if len(bg.ConsumedCapacity) != 1 {
		t.Fatalf("batch get capacity %v", bg.ConsumedCapacity)
	}
	units("batch get", &bg.ConsumedCapacity[0], 2)
	tw, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: tbl, Item: key("c", "1")}}, {Put: &types.Put{TableName: tbl, Item: key("c", "2")}}}, ReturnConsumedCapacity: total})
	if err != nil || len(tw.ConsumedCapacity) != 1 {
		t.Fatalf("transact write capacity %v %v", tw, err)
	}
	units("transact write", &tw.ConsumedCapacity[0], 4)
	if g, _ := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "1")}); g.ConsumedCapacity != nil {
		t.Error("capacity reported without being asked for")
	}
}

// TestIndexReadTablePart checks that, with INDEXES, a read of an index
// alone lists the table's part with 0 units, as DynamoDB does
// (dynalite's suite records it; DynamoDB Local leaves it out).
func TestIndexReadTablePart(t *testing.T) {
	db := newTable(t)
	it := key("a", "1")
	it["gpk"], it["gsk"] = s("g"), &types.AttributeValueMemberN{Value: "1"}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: it}); err != nil {
		t.Fatal(err)
	}
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: map[string]av{":g": s("g")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	c := q.ConsumedCapacity
	if c == nil || c.Table == nil || aws.ToFloat64(c.Table.CapacityUnits) != 0 || aws.ToFloat64(c.GlobalSecondaryIndexes["gsi"].CapacityUnits) != 0.5 {
		t.Errorf("index query capacity %+v, want the table's 0 units and the index's 0.5", c)
	}
}

// TestEmptyIndexReadCapacity checks the capacity of index reads that
// read nothing: a Query consumes the minimum read (AWS's API_Query: "Queries
// that do not return results consume the minimum number of read capacity
// units"), a Scan nothing, and with INDEXES both list the index they
// read.
func TestEmptyIndexReadCapacity(t *testing.T) {
	db := newTable(t)
	const indexes = types.ReturnConsumedCapacityIndexes
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: map[string]av{":g": s("none")}, ReturnConsumedCapacity: indexes})
	if err != nil {
		t.Fatal(err)
	}
	gsi, listed := q.ConsumedCapacity.GlobalSecondaryIndexes["gsi"]
	if c := q.ConsumedCapacity; aws.ToFloat64(c.CapacityUnits) != 0.5 || !listed || aws.ToFloat64(gsi.CapacityUnits) != 0.5 {
		t.Errorf("empty index query capacity %+v, want 0.5 units, all on the index", c)
	}
	sc, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"), ReturnConsumedCapacity: indexes})
	if err != nil {
		t.Fatal(err)
	}
	gsi, listed = sc.ConsumedCapacity.GlobalSecondaryIndexes["gsi"]
	if c := sc.ConsumedCapacity; aws.ToFloat64(c.CapacityUnits) != 0 || !listed || aws.ToFloat64(gsi.CapacityUnits) != 0 {
		t.Errorf("empty index scan capacity %+v, want 0 units, the index listed", c)
	}
}
