package ddbmem

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The checks of a valid request's members, which every request runs,
// allocate nothing.
func TestConstraintsAllocateNothing(t *testing.T) {
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	get := &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	put := &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: key, ReturnValues: types.ReturnValueAllOld,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize}
	query := &dynamodb.QueryInput{TableName: aws.String("orders"), IndexName: aws.String("byDate"), Limit: aws.Int32(10),
		Select: types.SelectAllProjectedAttributes, ReturnConsumedCapacity: types.ReturnConsumedCapacityNone}
	if n := testing.AllocsPerRun(100, func() {
		if getConstraints(get) != nil || putConstraints(put) != nil || queryConstraints(query) != nil {
			t.Fatal("a valid request fails its constraints")
		}
	}); n != 0 {
		t.Errorf("%.0f allocations", n)
	}
}
