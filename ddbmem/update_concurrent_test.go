package ddbmem_test

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdateConcurrent races updates of one item: UpdateItem works an
// update out on the version it read and writes it only if that version
// is still stored, so no increment is lost and every conditional write
// saw the version it replaced. The GSI key moves with each write.
func TestUpdateConcurrent(t *testing.T) {
	db := newTable(t)
	key := map[string]av{"pk": s("p"), "sk": s("s")}
	const workers, each = 8, 100
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("tbl"), Key: key,
					UpdateExpression:          aws.String("ADD c :one SET gpk = :g, gsk = if_not_exists(c, :zero)"),
					ExpressionAttributeValues: map[string]av{":one": n("1"), ":zero": n("0"), ":g": s("g")},
				})
				if err != nil {
					t.Error(err)
					return
				}
				// Conditional on a version read before: fails when
				// another write came in between, never applies twice.
				out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key, ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Error(err)
					return
				}
				c := out.Item["c"].(*types.AttributeValueMemberN).Value
				_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("tbl"), Key: key,
					UpdateExpression:          aws.String("SET seen = :c"),
					ConditionExpression:       aws.String("c = :c"),
					ExpressionAttributeValues: map[string]av{":c": n(c)},
				})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case errors.As(err, &ccf):
					mu.Lock()
					failed++
					mu.Unlock()
				case err != nil:
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["c"].(*types.AttributeValueMemberN).Value; got != strconv.Itoa(workers*each) {
		t.Fatalf("c = %s, want %d", got, workers*each)
	}
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: map[string]av{":g": s("g")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 1 {
		t.Fatalf("gsi holds %d entries of the item, want 1", len(q.Items))
	}
	t.Logf("%d of %d conditional writes lost to a concurrent one", failed, workers*each)
}
