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
// records is part of the cost.
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
	ins := make([]*dynamodb.PutItemInput, 2048)
	for i := range ins {
		it := engineItem(fmt.Sprintf("USER#%04d", i%1024), "ORDER#0001")
		it["total"] = &types.AttributeValueMemberN{Value: fmt.Sprint(i / 1024)}
		ins[i] = &dynamodb.PutItemInput{TableName: aws.String(engineTable), Item: it}
	}
	timeOps(b, false, func(i int) {
		if _, err := db.PutItem(ctx, ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	})
}
