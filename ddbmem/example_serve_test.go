package ddbmem_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
)

// Code that holds a concrete *dynamodb.Client runs on the engine through
// its HTTP endpoint.
func ExampleServe() {
	ctx := context.Background()
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	var client *dynamodb.Client = srv.Client()
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("users"), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "u1"}, "name": &types.AttributeValueMemberS{Value: "Minji"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("users"),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "u1"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Item["name"].(*types.AttributeValueMemberS).Value)
	// Output: Minji
}
