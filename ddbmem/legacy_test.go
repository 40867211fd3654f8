package ddbmem_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

// TestLegacyParameters runs the legacy parameters in process (the
// conformance suite compares them with DynamoDB Local): each case's
// result, or its error code and message.
func TestLegacyParameters(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	tbl := aws.String("legacy")
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: tbl,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	for i, name := range []string{"a", "b", "c"} {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{
			"pk": s("p"), "sk": n(string(rune('1' + i))), "name": s(name), "odd.attr": n("1")}}); err != nil {
			t.Fatal(err)
		}
	}
	eq := func(v types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{v}}
	}
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": n("1")}
	names := func(items []map[string]types.AttributeValue) []string {
		var out []string
		for _, it := range items {
			out = append(out, it["name"].(*types.AttributeValueMemberS).Value)
		}
		return out
	}
	cases := []struct {
		name string
		call func() (any, error)
		want any    // result, when the call succeeds
		msg  string // ValidationException message, when it fails
	}{
		{"KeyConditions with a range condition", func() (any, error) {
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditions: map[string]types.Condition{
				"pk": eq(s("p")), "sk": {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{n("2")}}}})
			if err != nil {
				return nil, err
			}
			return names(out.Items), nil
		}, []string{"b", "c"}, ""},
		{"QueryFilter with OR", func() (any, error) {
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditions: map[string]types.Condition{"pk": eq(s("p"))},
				QueryFilter: map[string]types.Condition{"name": eq(s("a")), "odd.attr": eq(n("2"))}, ConditionalOperator: types.ConditionalOperatorOr})
			if err != nil {
				return nil, err
			}
			return names(out.Items), nil
		}, []string{"a"}, ""},
		{"ScanFilter and AttributesToGet", func() (any, error) {
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, AttributesToGet: []string{"name"},
				ScanFilter: map[string]types.Condition{"name": {ComparisonOperator: types.ComparisonOperatorIn, AttributeValueList: []types.AttributeValue{s("b"), s("c")}}}})
			if err != nil {
				return nil, err
			}
			got := names(out.Items)
			if len(got) == 2 && got[0] > got[1] {
				got[0], got[1] = got[1], got[0]
			}
			return []any{got, len(out.Items[0])}, nil
		}, []any{[]string{"b", "c"}, 1}, ""},
		{"AttributeUpdates with Expected", func() (any, error) {
			out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key,
				AttributeUpdates: map[string]types.AttributeValueUpdate{
					"odd.attr": {Action: types.AttributeActionAdd, Value: n("4")},
					"name":     {Action: types.AttributeActionDelete},
					"tags":     {Value: &types.AttributeValueMemberSS{Value: []string{"x"}}},
				},
				Expected:     map[string]types.ExpectedAttributeValue{"name": {Value: s("a")}, "tags": {Exists: aws.Bool(false)}},
				ReturnValues: types.ReturnValueUpdatedNew})
			if err != nil {
				return nil, err
			}
			return []any{out.Attributes["odd.attr"].(*types.AttributeValueMemberN).Value, out.Attributes["name"] == nil, len(out.Attributes)}, nil
		}, []any{"5", true, 2}, ""},
		{"failed Expected", func() (any, error) {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: key,
				Expected: map[string]types.ExpectedAttributeValue{"name": {ComparisonOperator: types.ComparisonOperatorNotNull}}})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				return "condition failed", nil
			}
			return nil, err
		}, "condition failed", ""},
		{"GetItem AttributesToGet", func() (any, error) {
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("p"), "sk": n("2")},
				AttributesToGet: []string{"name", "missing"}})
			if err != nil {
				return nil, err
			}
			return names([]map[string]types.AttributeValue{out.Item}), nil
		}, []string{"b"}, ""},
		{"mixed with an expression", func() (any, error) {
			return db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}, QueryFilter: map[string]types.Condition{"name": eq(s("a"))}})
		}, nil, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter} Expression parameters: {KeyConditionExpression}"},
		{"KeyConditions without the partition key", func() (any, error) {
			return db.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditions: map[string]types.Condition{"sk": eq(n("1"))}})
		}, nil, "Query condition missed key schema element: pk"},
		{"wrong number of values", func() (any, error) {
			return db.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, ScanFilter: map[string]types.Condition{"name": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{s("a")}}}})
		}, nil, "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{"Expected without a value", func() (any, error) {
			return db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: key, Expected: map[string]types.ExpectedAttributeValue{"name": {}}})
		}, nil, "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: name"},
		{"ADD of a string", func() (any, error) {
			return db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"name": {Action: types.AttributeActionAdd, Value: s("x")}}})
		}, nil, "One or more parameter values were invalid: ADD action is not supported for the type S"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.call()
			if c.msg != "" {
				var api smithy.APIError
				if !errors.As(err, &api) || api.ErrorCode() != ddbmem.ValidationException || api.ErrorMessage() != c.msg {
					t.Fatalf("got %v, want a ValidationException %q", err, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
