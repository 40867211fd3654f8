package ddbmem_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tablekit/tablekit/ddbmem"
)

// lsiTable creates "lsi" (pk, sk) with a local index on l, and "plain"
// with none.
func lsiTable(t *testing.T) *ddbmem.DB {
	t.Helper()
	db := ddbmem.New()
	for _, name := range []string{"lsi", "plain"} {
		in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}}}
		if name == "lsi" {
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS})
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: aws.String("byL"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a"}}}}
		}
		if _, err := db.CreateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestItemCollectionMetrics checks that writes to a table with a local
// index return the item collection they wrote when asked for SIZE, and
// that writes to a table without one, or not asking, return none
// (API_ItemCollectionMetrics).
func TestItemCollectionMetrics(t *testing.T) {
	db := lsiTable(t)
	const size = types.ReturnItemCollectionMetricsSize
	want := func(pk string) *types.ItemCollectionMetrics {
		return &types.ItemCollectionMetrics{ItemCollectionKey: map[string]types.AttributeValue{"pk": s(pk)}, SizeEstimateRangeGB: []float64{0, 1}}
	}
	same := func(label string, got, want any) {
		t.Helper()
		if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(types.ItemCollectionMetrics{}, types.AttributeValueMemberS{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", label, d)
		}
	}
	item := func(pk, sk string) map[string]av {
		return map[string]av{"pk": s(pk), "sk": s(sk), "l": s("x"), "a": s("projected")}
	}
	p, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("lsi"), Item: item("a", "1"), ReturnItemCollectionMetrics: size})
	if err != nil {
		t.Fatal(err)
	}
	same("put", p.ItemCollectionMetrics, want("a"))
	u, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("lsi"), Key: key("a", "2"), UpdateExpression: aws.String("SET q = :q"),
		ExpressionAttributeValues: map[string]av{":q": s("q")}, ReturnItemCollectionMetrics: size})
	if err != nil {
		t.Fatal(err)
	}
	same("update", u.ItemCollectionMetrics, want("a"))
	d, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("lsi"), Key: key("b", "9"), ReturnItemCollectionMetrics: size})
	if err != nil {
		t.Fatal(err)
	}
	same("delete of an item that is not there", d.ItemCollectionMetrics, want("b"))
	b, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{ReturnItemCollectionMetrics: size, RequestItems: map[string][]types.WriteRequest{
		"lsi":   {{PutRequest: &types.PutRequest{Item: item("c", "1")}}, {PutRequest: &types.PutRequest{Item: item("c", "2")}}, {DeleteRequest: &types.DeleteRequest{Key: key("a", "1")}}},
		"plain": {{PutRequest: &types.PutRequest{Item: key("c", "1")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	same("batch (one per collection, none for a table without a local index)", b.ItemCollectionMetrics,
		map[string][]types.ItemCollectionMetrics{"lsi": {*want("c"), *want("a")}})
	tw, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnItemCollectionMetrics: size, TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("lsi"), Item: item("d", "1")}},
		{Update: &types.Update{TableName: aws.String("lsi"), Key: key("e", "1"), UpdateExpression: aws.String("SET q = :q"), ExpressionAttributeValues: map[string]av{":q": s("q")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("lsi"), Key: key("f", "1"), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		{Delete: &types.Delete{TableName: aws.String("lsi"), Key: key("d", "2")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	same("transaction (no ConditionCheck)", tw.ItemCollectionMetrics, map[string][]types.ItemCollectionMetrics{"lsi": {*want("d"), *want("e")}})

	p, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("plain"), Item: key("a", "1"), ReturnItemCollectionMetrics: size})
	if err != nil || p.ItemCollectionMetrics != nil {
		t.Errorf("put to a table without a local index: %v, %+v, want no metrics", err, p.ItemCollectionMetrics)
	}
	p, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("lsi"), Item: item("a", "1")})
	if err != nil || p.ItemCollectionMetrics != nil {
		t.Errorf("put not asking: %v, %+v, want no metrics", err, p.ItemCollectionMetrics)
	}
}

// TestItemCollectionMetricsLarge writes a collection of more items than
// could reach 1 GB were each small, so that its size is added up.
func TestItemCollectionMetricsLarge(t *testing.T) {
	db := lsiTable(t)
	var last *types.ItemCollectionMetrics
	for i := range 1400 {
		it := key("big", fmt.Sprintf("%05d", i))
		it["l"], it["a"] = s("x"), s("projected")
		p, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("lsi"), Item: it, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		if err != nil {
			t.Fatal(err)
		}
		last = p.ItemCollectionMetrics
	}
	if last == nil || len(last.SizeEstimateRangeGB) != 2 || last.SizeEstimateRangeGB[0] != 0 || last.SizeEstimateRangeGB[1] != 1 {
		t.Errorf("metrics of a collection of 1,400 small items %+v, want [0, 1] GB", last)
	}
}
