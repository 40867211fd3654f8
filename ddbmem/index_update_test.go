package ddbmem_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/ddbmem"
)

// UpdateTable creates a global secondary index on a table that holds
// items, built from them at once, keeps it current under concurrent
// writes, refuses what DynamoDB refuses, and deletes it.
func TestUpdateTableIndexes(t *testing.T) {
	db := ddbmem.New()
	tbl := aws.String("tbl")
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: tbl, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	put := func(pk string, g av) error {
		it := map[string]av{"pk": s(pk)}
		if g != nil {
			it["g"] = g
		}
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: it})
		return err
	}
	for i := 0; i < 50; i++ {
		var g av = s(fmt.Sprint("g", i%5))
		switch i % 10 {
		case 7:
			g = n("7") // another type than the index's: left out
		case 8:
			g = nil // no value: sparse
		case 9:
			g = s("") // empty: an index key violation, left out
		}
		if err := put(fmt.Sprint("p", i), g); err != nil {
			t.Fatal(err)
		}
	}
	create := func(name string, defs ...types.AttributeDefinition) *dynamodb.UpdateTableInput {
		return &dynamodb.UpdateTableInput{TableName: tbl, AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
			Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String(name), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}}}}}
	}
	gDef := types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}
	wantErr := func(what string, err error, code, msg string) {
		t.Helper()
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != code || api.ErrorMessage() != msg {
			t.Errorf("%s: %v, want %s: %s", what, err, code, msg)
		}
	}
	_, err := db.UpdateTable(ctx, create("byG"))
	wantErr("no definitions", err, "ValidationException", "No Attribute Schema Defined")
	_, err = db.UpdateTable(ctx, create("byG", types.AttributeDefinition{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeN}, gDef))
	wantErr("a definition of another type", err, "ValidationException", "invalid attribute, SchemaElement redefined should be of same type as previously defined")
	two := create("byG", gDef)
	two.GlobalSecondaryIndexUpdates = append(two.GlobalSecondaryIndexUpdates, create("byH").GlobalSecondaryIndexUpdates...)
	_, err = db.UpdateTable(ctx, two)
	wantErr("two indexes", err, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("nope")}}}})
	wantErr("delete a missing index", err, "ResourceNotFoundException", "Requested resource not found")
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
		IndexName: aws.String("nope"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}}}})
	wantErr("update a missing index", err, "ValidationException", "This operation cannot be performed with given input values. Please contact DynamoDB service team for more info: Action Blocked: IndexUpdate")

	// Created while writers write: the index holds exactly the items of
	// the right type once both are done.
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if err := put(fmt.Sprint("w", w, "-", i), s(fmt.Sprint("g", i%5))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	out, err := db.UpdateTable(ctx, create("byG", gDef))
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if gs := out.TableDescription.GlobalSecondaryIndexes; len(gs) != 1 || gs[0].IndexStatus != types.IndexStatusActive || len(out.TableDescription.AttributeDefinitions) != 2 {
		t.Fatalf("description: %+v", out.TableDescription)
	}
	for g := 0; g < 5; g++ {
		var got []string
		var start map[string]av
		for {
			q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
				ExpressionAttributeValues: map[string]av{":g": s(fmt.Sprint("g", g))}, ExclusiveStartKey: start, Limit: aws.Int32(37)})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range q.Items {
				got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
			}
			if start = q.LastEvaluatedKey; start == nil {
				break
			}
		}
		var want []string
		for i := 0; i < 50; i++ {
			if i%10 < 7 && i%5 == g {
				want = append(want, fmt.Sprint("p", i))
			}
		}
		for w := 0; w < 4; w++ {
			for i := g; i < 100; i += 5 {
				want = append(want, fmt.Sprint("w", w, "-", i))
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("g%d: index holds %d items, want %d:\n%v\n%v", g, len(got), len(want), got, want)
		}
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: tbl})
	if err != nil || aws.ToInt64(d.Table.GlobalSecondaryIndexes[0].ItemCount) != 35+400 {
		t.Errorf("the index's ItemCount: %v, %v, want %d", err, aws.ToInt64(d.Table.GlobalSecondaryIndexes[0].ItemCount), 35+400)
	}
	wantErr("a write of another type", put("p7", n("8")), "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG")
	_, err = db.UpdateTable(ctx, create("byG", gDef))
	wantErr("create it again", err, "ValidationException", "Attempting to create an index which already exists")

	out, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}}}})
	if err != nil || len(out.TableDescription.GlobalSecondaryIndexes) != 0 || len(out.TableDescription.AttributeDefinitions) != 1 {
		t.Fatalf("delete: %v %+v", err, out)
	}
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]av{":g": s("g1")}})
	wantErr("query a deleted index", err, "ValidationException", "The table does not have the specified index: byG")
	if err := put("p7", n("8")); err != nil {
		t.Errorf("a write once the index is gone: %v", err)
	}
}

// TestUpdateTableSameThroughput checks that setting a table's throughput
// to what it is already is refused, with DynamoDB's text (dynalite's
// suite records it; DynamoDB Local says "The requested throughput value
// equals the current value"), and that a change is taken.
func TestUpdateTableSameThroughput(t *testing.T) {
	db := ddbmem.New()
	pt := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("tput"), ProvisionedThroughput: pt(5, 6),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("a"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tput"), ProvisionedThroughput: pt(5, 6)})
	want := "The provisioned throughput for the table will not change. The requested value equals the current value. " +
		"Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. " +
		"Current WriteCapacityUnits provisioned for the table: 6. Requested WriteCapacityUnits: 6. " +
		"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("same throughput: %v, want %q", err, want)
	}
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tput"), ProvisionedThroughput: pt(5, 7)})
	if err != nil || aws.ToInt64(out.TableDescription.ProvisionedThroughput.WriteCapacityUnits) != 7 {
		t.Errorf("changed throughput: %v", err)
	}
}
