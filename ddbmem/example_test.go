package ddbmem_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

// A test creates a table in the engine and uses it through
// entity.Client, exactly as it would use DynamoDB.
func Example() {
	ctx := context.Background()
	var client entity.Client = ddbmem.New()

	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("app"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range []struct{ id, total string }{{"002", "15.50"}, {"001", "9.90"}, {"003", "120"}} {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String("app"),
			Item: map[string]types.AttributeValue{
				"pk":    &types.AttributeValueMemberS{Value: "USER#kim"},
				"sk":    &types.AttributeValueMemberS{Value: "ORDER#" + o.id},
				"total": &types.AttributeValueMemberN{Value: o.total},
			},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	out, err := client.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String("app"),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :order)"),
		FilterExpression:       aws.String("#total > :min"),
		ExpressionAttributeNames: map[string]string{
			"#total": "total",
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":    &types.AttributeValueMemberS{Value: "USER#kim"},
			":order": &types.AttributeValueMemberS{Value: "ORDER#"},
			":min":   &types.AttributeValueMemberN{Value: "10"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range out.Items {
		fmt.Println(it["sk"].(*types.AttributeValueMemberS).Value, it["total"].(*types.AttributeValueMemberN).Value)
	}
	fmt.Println("scanned", out.ScannedCount)

	// Writing the same order again fails its condition, with the SDK's
	// own error type.
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("app"),
		Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "USER#kim"},
			"sk": &types.AttributeValueMemberS{Value: "ORDER#001"},
		},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	fmt.Println(errors.As(err, &ccf))
	// Output:
	// ORDER#002 15.5
	// ORDER#003 120
	// scanned 3
	// true
}

// Fault injection makes a retry path testable: here the first two reads
// are throttled.
func ExampleDB_SetFault() {
	ctx := context.Background()
	db := ddbmem.New()
	db.SetFault("GetItem", ddbmem.Fault{
		Err:   &types.ProvisionedThroughputExceededException{Message: aws.String("throttled")},
		Times: 2,
	})
	for attempt := 1; ; attempt++ {
		_, err := db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String("app"),
			Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}},
		})
		var pte *types.ProvisionedThroughputExceededException
		if errors.As(err, &pte) {
			fmt.Println("attempt", attempt, "throttled")
			continue
		}
		fmt.Println("attempt", attempt, "reached the engine:", err != nil)
		break
	}
	// Output:
	// attempt 1 throttled
	// attempt 2 throttled
	// attempt 3 reached the engine: true
}
