package ddbmem_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/ddbmem"
)

// A request naming a missing table is validated first, as DynamoDB does:
// the constraint violations of its members are listed together, then come
// the operation's own checks, and only a valid request learns that the
// table is missing. The conformance suite covers what it can through the
// SDK (which renames tables); these are the table names themselves.
func TestMissingTableValidatedFirst(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	long := strings.Repeat("a", 256)
	cases := []struct {
		name string
		call func() error
		want string // "" for ResourceNotFoundException
	}{
		{"GetItem no name", func() error { _, err := db.GetItem(ctx, &dynamodb.GetItemInput{}); return err },
			"2 validation errors detected: Value null at 'key' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{"GetItem bad name", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("a;"), ReturnConsumedCapacity: "hi"})
			return err
		}, "4 validation errors detected: " +
			"Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
			"Value null at 'key' failed to satisfy constraint: Member must not be null; " +
			"Value 'a;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
			"Value 'a;' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"DescribeTable long name", func() error {
			_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(long)})
			return err
		}, "TableName must be at least 3 characters long and at most 255 characters long"},
		{"DescribeTable bad name", func() error {
			_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("abc;")})
			return err
		}, "1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"ListTables", func() error {
			_, err := db.ListTables(ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String(long), Limit: aws.Int32(0)})
			return err
		}, "2 validation errors detected: " +
			"Value '" + long + "' at 'exclusiveStartTableName' failed to satisfy constraint: Member must have length less than or equal to 255; " +
			"Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"PutItem returns", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("nope"), Item: key, ReturnValues: types.ReturnValueAllNew})
			return err
		}, "Return values set to invalid value"},
		{"DeleteItem empty key value", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("nope"), Key: map[string]types.AttributeValue{"pk": nil}})
			return err
		}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"Query legacy and expression", func() error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("nope"), KeyConditionExpression: aws.String("pk = :p"),
				KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{key["pk"]}}}})
			return err
		}, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}"},
		{"Scan filter operator", func() error {
			_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("nope"), ScanFilter: map[string]types.Condition{"a": {}}, ConditionalOperator: "AN"})
			return err
		}, "2 validation errors detected: " +
			"Value 'AN' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]; " +
			"Value null at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null"},
		{"BatchGetItem bad name, empty keys", func() error {
			_, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"a": {Keys: []map[string]types.AttributeValue{}}}})
			return err
		}, "2 validation errors detected: " +
			"Value '{a}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]; " +
			"Value '[]' at 'requestItems.a.member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"BatchWriteItem item too large", func() error {
			big := map[string]types.AttributeValue{"pk": key["pk"], "q": &types.AttributeValueMemberS{Value: strings.Repeat("x", 410_000)}}
			_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"nope": {{PutRequest: &types.PutRequest{Item: big}}}}})
			return err
		}, "Item size has exceeded the maximum allowed size"},
		{"GetItem names before values", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: key, ProjectionExpression: aws.String("a"), ExpressionAttributeNames: map[string]string{}})
			return err
		}, "ExpressionAttributeNames must not be empty"},
		{"BatchWriteItem valid", func() error {
			_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"nope": {{DeleteRequest: &types.DeleteRequest{Key: key}}}}})
			return err
		}, ""},
		{"UpdateTable throughput", func() error {
			_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("nope"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(-1)}})
			return err
		}, "2 validation errors detected: " +
			"Value null at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must not be null; " +
			"Value '-1' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"UpdateTable nothing", func() error {
			_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("nope"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{}})
			return err
		}, "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"},
		{"UpdateTable short name", func() error {
			_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("ab")})
			return err
		}, "TableName must be at least 3 characters long and at most 255 characters long"},
		{"UpdateTable index actions without their members", func() error {
			_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("nope"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
				{Create: &types.CreateGlobalSecondaryIndexAction{}}, {Delete: &types.DeleteGlobalSecondaryIndexAction{}},
				{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("gg"), KeySchema: []types.KeySchemaElement{},
					Projection: &types.Projection{ProjectionType: "SOME"}}}}})
			return err
		}, "7 validation errors detected: " +
			"Value null at 'globalSecondaryIndexUpdates.1.member.create.indexName' failed to satisfy constraint: Member must not be null; " +
			"Value null at 'globalSecondaryIndexUpdates.1.member.create.keySchema' failed to satisfy constraint: Member must not be null; " +
			"Value null at 'globalSecondaryIndexUpdates.1.member.create.projection' failed to satisfy constraint: Member must not be null; " +
			"Value null at 'globalSecondaryIndexUpdates.2.member.delete.indexName' failed to satisfy constraint: Member must not be null; " +
			"Value 'gg' at 'globalSecondaryIndexUpdates.3.member.create.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
			"Value '[]' at 'globalSecondaryIndexUpdates.3.member.create.keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1; " +
			"Value 'SOME' at 'globalSecondaryIndexUpdates.3.member.create.projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]"},
		{"TransactWriteItems action without its expression", func() error {
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("nope"), Item: key}},
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String("nope"), Key: key}}}})
			return err
		}, "1 validation error detected: Value null at 'transactItems.2.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null"},
		{"TransactWriteItems action without its update", func() error {
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Delete: &types.Delete{TableName: aws.String("nope"), Key: key}},
				{Put: &types.Put{TableName: aws.String("nope"), Item: key}},
				{Update: &types.Update{TableName: aws.String("nope"), Key: key}}}})
			return err
		}, "1 validation error detected: Value null at 'transactItems.3.member.update.updateExpression' failed to satisfy constraint: Member must not be null"},
		{"CreateTable no name", func() error {
			_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{})
			return err
		}, "The parameter 'TableName' is required but was not present in the request"},
		{"Query legacy BETWEEN bounds", func() error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("nope"), KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorBetween,
				AttributeValueList: []types.AttributeValue{&types.AttributeValueMemberS{Value: "b"}, &types.AttributeValueMemberS{Value: "a"}}}}})
			return err
		}, "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
		{"Scan start key value", func() error {
			_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("nope"), ExclusiveStartKey: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberSS{Value: []string{}}}})
			return err
		}, "The provided starting key is invalid: One or more parameter values were invalid: An string set  may not be empty"},
		{"UpdateItem valid", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("nope"), Key: key, UpdateExpression: aws.String("SET a = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": key["pk"]}})
			return err
		}, ""},
		{"DeleteTable valid", func() error {
			_, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("nope")})
			return err
		}, ""},
	}
	for _, c := range cases {
		err := c.call()
		if c.want == "" {
			var rnf *types.ResourceNotFoundException
			if !errors.As(err, &rnf) {
				t.Errorf("%s: %v, want ResourceNotFoundException", c.name, err)
			}
			continue
		}
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" || ae.ErrorMessage() != c.want {
			t.Errorf("%s:\n got %v\nwant ValidationException: %s", c.name, err, c.want)
		}
	}
	// DynamoDB's words for a missing table: a table operation names it.
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("nope")})
	if err == nil || !strings.HasSuffix(err.Error(), "Requested resource not found: Table: nope not found") {
		t.Errorf("DescribeTable: %v", err)
	}
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: key})
	if err == nil || !strings.HasSuffix(err.Error(), "ResourceNotFoundException: Requested resource not found") {
		t.Errorf("GetItem: %v", err)
	}
}
