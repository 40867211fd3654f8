package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/ddbmem"
)

// benchPutItemStream is BenchmarkEngine/PutItemStream: BenchmarkEngine's
// PutItem on a table with a NEW_AND_OLD_IMAGES stream (goal: ≤ 1.25×
// PutItem). Its puts alternate two versions of the same 1024 items, so
// that every put changes its item and appends a record (PutItem rewrites
// identical items, which costs a table without a stream the same); the
// stream keeps its default MaxRecords (100,000), so the trimming of old
// records is part of the cost. The two versions are PutItem's 1024
// input maps with their "total" set to one of two values before each
// put (one map assignment, counted in the time): the inputs take the
// memory PutItem's take, so that the ratio is the stream's cost and not
// that of reading twice as many input maps (2048 maps measured 1.22–1.48×
// where these measure the stream alone).
func benchPutItemStream(b *testing.B) {
	ctx := context.Background()
	db := ddbmem.New()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(engineTable),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		b.Fatal(err)
	}
	ins := make([]*dynamodb.PutItemInput, 1024)
	for i := range ins {
		ins[i] = &dynamodb.PutItemInput{TableName: aws.String(engineTable), Item: engineItem(fmt.Sprintf("USER#%04d", i), "ORDER#0001")}
	}
	totals := [2]types.AttributeValue{&types.AttributeValueMemberN{Value: "12345.67"}, &types.AttributeValueMemberN{Value: "12345.68"}} // PutItem's total, and another
	timeOps(b, false, func(i int) {
		in := ins[i%len(ins)]
		in.Item["total"] = totals[i/len(ins)%2]
		if _, err := db.PutItem(ctx, in); err != nil {
			b.Fatal(err)
		}
	})
}
