package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
)

// A table that takes time to create, as on DynamoDB, on a clock the test
// moves: code that waits for ACTIVE, or retries a table it cannot use
// yet, is tested without sleeping.
func ExampleLifecycle() {
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	db := ddbmem.New(func(o *ddbmem.Options) {
		o.Now = func() time.Time { return now }
		o.Lifecycle = ddbmem.Lifecycle{Create: 5 * time.Second}
	})
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created:", out.TableDescription.TableStatus)
	put := &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "o1"}}}
	_, err = db.PutItem(ctx, put)
	var nf *types.ResourceNotFoundException
	fmt.Println("write while creating is not found:", errors.As(err, &nf))

	now = now.Add(5 * time.Second)
	d, _ := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	fmt.Println("5 s later:", d.Table.TableStatus)
	_, err = db.PutItem(ctx, put)
	fmt.Println("write:", err)
	// Output:
	// created: CREATING
	// write while creating is not found: true
	// 5 s later: ACTIVE
	// write: <nil>
}
