package ddbmem_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/tablekit/tablekit/ddbmem"
)

// recordReader is what a change-feed reader needs of the DynamoDB
// Streams client: *dynamodbstreams.Client and the engine's *ddbmem.Streams
// both have it.
type recordReader interface {
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// A table with a stream records every change; DB.Streams reads them with
// the Streams API's own types, as the SDK's dynamodbstreams client does.
func ExampleDB_Streams() {
	ctx := context.Background()
	db := ddbmem.New()
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("orders"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	streamArn := out.TableDescription.LatestStreamArn
	for _, status := range []string{"NEW", "PAID", "PAID"} { // the last put changes nothing
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "o-1"}, "status": &types.AttributeValueMemberS{Value: status}}})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("orders"), Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "o-1"}}}); err != nil {
		fmt.Println(err)
		return
	}

	var r recordReader = db.Streams()
	desc, err := r.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: streamArn})
	if err != nil {
		fmt.Println(err)
		return
	}
	it, err := r.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
		StreamArn: streamArn, ShardId: desc.StreamDescription.Shards[0].ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, err := r.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		fmt.Println(err)
		return
	}
	status := func(img map[string]st.AttributeValue) string {
		if s, ok := img["status"].(*st.AttributeValueMemberS); ok {
			return s.Value
		}
		return "-"
	}
	for _, rec := range recs.Records {
		fmt.Printf("%s %s -> %s\n", rec.EventName, status(rec.Dynamodb.OldImage), status(rec.Dynamodb.NewImage))
	}
	// Output:
	// INSERT - -> NEW
	// MODIFY NEW -> PAID
	// REMOVE PAID -> -
}
