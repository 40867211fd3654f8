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

// CreateTable checks a request in DynamoDB's order and words each rule as
// DynamoDB does (dynalite's suite records both): the members' constraints
// listed together, then the billing mode, the key schema against the
// definitions, the local indexes and the global ones, one rule at a time.
// Nothing is created when a check fails.
func TestCreateTableChecks(t *testing.T) {
	ctx := context.Background()
	def := func(names ...string) []types.AttributeDefinition {
		ds := []types.AttributeDefinition{} // never null
		for _, n := range names {
			ds = append(ds, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS})
		}
		return ds
	}
	key := func(kv ...string) []types.KeySchemaElement {
		var ks []types.KeySchemaElement
		for i := 0; i+1 < len(kv); i += 2 {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(kv[i]), KeyType: types.KeyType(kv[i+1])})
		}
		return ks
	}
	pt := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	lsi := func(name string) types.LocalSecondaryIndex {
		return types.LocalSecondaryIndex{IndexName: aws.String(name), KeySchema: key("a", "HASH", "c", "RANGE"), Projection: all}
	}
	const invalid = "One or more parameter values were invalid: "
	cases := []struct {
		name string
		in   dynamodb.CreateTableInput
		want string
	}{
		{"members listed together", dynamodb.CreateTableInput{TableName: aws.String("abc;")},
			"3 validation errors detected: " +
				"Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null; " +
				"Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value null at 'keySchema' failed to satisfy constraint: Member must not be null"},
		{"key schema elements", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def(),
			KeySchema: []types.KeySchemaElement{{KeyType: "HASH"}, {AttributeName: aws.String("a")}, {AttributeName: aws.String("a"), KeyType: "Woop"}}},
			"4 validation errors detected: " +
				"Value '[{KeyType: HASH}, {AttributeName: a}, {AttributeName: a,KeyType: Woop}]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2; " +
				"Value null at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'keySchema.2.member.keyType' failed to satisfy constraint: Member must not be null; " +
				"Value 'Woop' at 'keySchema.3.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{"throughput with PAY_PER_REQUEST", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def(),
			KeySchema: key("a", "HASH", "a", "HASH"), ProvisionedThroughput: pt(1, 1), BillingMode: types.BillingModePayPerRequest},
			invalid + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"no throughput", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def(), KeySchema: key("a", "HASH")},
			invalid + "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"throughput out of bounds", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def(), KeySchema: key("a", "HASH"),
			ProvisionedThroughput: pt(1_000_000_000_000, 1_000_000_000_001)},
			"Given value 1000000000001 for WriteCapacityUnits is out of bounds"},
		{"more keys than definitions", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a"),
			KeySchema: key("a", "HASH", "a", "HASH"), ProvisionedThroughput: pt(1, 1)},
			"Invalid KeySchema: Some index key attribute have no definition"},
		{"undefined key", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("b", "c"),
			KeySchema: key("a", "HASH", "b", "RANGE"), ProvisionedThroughput: pt(1, 1)},
			invalid + "Some index key attributes are not defined in AttributeDefinitions. Keys: [a, b], AttributeDefinitions: [b, c]"},
		{"hash and range of one name", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "b"),
			KeySchema: key("a", "HASH", "a", "RANGE"), ProvisionedThroughput: pt(1, 1)},
			"Both the Hash Key and the Range Key element in the KeySchema have the same name"},
		{"two hash keys", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "b"),
			KeySchema: key("a", "HASH", "b", "HASH"), ProvisionedThroughput: pt(1, 1)},
			"Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"},
		{"a definition too many", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "b"),
			KeySchema: key("a", "HASH"), ProvisionedThroughput: pt(1, 1)},
			invalid + "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"a local index on a hash table", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "c"),
			KeySchema: key("a", "HASH"), ProvisionedThroughput: pt(1, 1), LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("abc")}},
			invalid + "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"},
		{"a projection without a type", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "b", "c"),
			KeySchema: key("a", "HASH", "b", "RANGE"), ProvisionedThroughput: pt(1, 1), LocalSecondaryIndexes: []types.LocalSecondaryIndex{
				{IndexName: aws.String("abc"), KeySchema: key("a", "HASH", "c", "RANGE"), Projection: &types.Projection{}}}},
			invalid + "Unknown ProjectionType: null"},
		{"six local indexes", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "b", "c"),
			KeySchema: key("a", "HASH", "b", "RANGE"), ProvisionedThroughput: pt(1, 1), LocalSecondaryIndexes: []types.LocalSecondaryIndex{
				lsi("ab1"), lsi("ab2"), lsi("ab3"), lsi("ab4"), lsi("ab5"), lsi("ab6")}},
			invalid + "Number of LocalSecondaryIndexes exceeds per-table limit of 5"},
		{"a global index's throughput with PAY_PER_REQUEST", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "c"),
			KeySchema: key("a", "HASH"), BillingMode: types.BillingModePayPerRequest, GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				{IndexName: aws.String("abc"), KeySchema: key("c", "HASH"), Projection: all, ProvisionedThroughput: pt(1, 1)}}},
			invalid + "ProvisionedThroughput should not be specified for index: abc when BillingMode is PAY_PER_REQUEST"},
		{"one name for two indexes", dynamodb.CreateTableInput{TableName: aws.String("abc"), AttributeDefinitions: def("a", "b", "c"),
			KeySchema: key("a", "HASH", "b", "RANGE"), ProvisionedThroughput: pt(1, 1), LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("abc")},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("abc"), KeySchema: key("c", "HASH"), Projection: all, ProvisionedThroughput: pt(1, 1)}}},
			invalid + "Duplicate index name: abc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := ddbmem.New()
			_, err := db.CreateTable(ctx, &c.in)
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" || api.ErrorMessage() != c.want {
				t.Fatalf("got %v\nwant ValidationException: %s", err, c.want)
			}
			if out, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 0 {
				t.Fatalf("tables after a failed CreateTable: %v, %v", out, err)
			}
		})
	}
	// The valid requests of the cases above, completed, are created.
	db := ddbmem.New()
	for i, in := range []dynamodb.CreateTableInput{
		{AttributeDefinitions: def("a", "b", "c"), KeySchema: key("a", "HASH", "b", "RANGE"), ProvisionedThroughput: pt(1, 1),
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("ab1"), lsi("ab2"), lsi("ab3"), lsi("ab4"), lsi("ab5")}},
		{AttributeDefinitions: def("a", "c"), KeySchema: key("a", "HASH"), BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("abc"), KeySchema: key("c", "HASH"), Projection: all}}},
	} {
		in.TableName = aws.String("valid" + strings.Repeat("x", i))
		if _, err := db.CreateTable(ctx, &in); err != nil {
			t.Errorf("%d: %v", i, err)
		}
	}
}
