package lock_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
)

// The condition that fences the application's own DynamoDB writes with a
// lock's fencing number.
func Example() {
	expr, err := lock.FencedExpression("", 42)
	if err != nil {
		panic(err)
	}
	fmt.Println(aws.ToString(expr.Condition()))
	fmt.Println(expr.Names())
	// Output:
	// (attribute_not_exists (#0)) OR (#0 < :0)
	// map[#0:fence]
}

// A scheduler job that runs on one server at a time, with fenced writes:
// here the lock lives in a DynamoDB table (package lock/dynamolock) on the
// embedded engine; with Valkey use package lock/valkeylock instead.
func ExampleManager_WithPreset() {
	ctx := context.Background()
	db := ddbmem.New()
	tbl := entity.NewTable(db, "FMWebAppTable") // string keys PK and SK
	if err := tbl.EnsureTable(ctx); err != nil {
		log.Fatal(err)
	}
	b, err := dynamolock.New(db, func(o *dynamolock.Options) { o.Table = tbl.Name() })
	if err != nil {
		log.Fatal(err)
	}
	m := lock.NewManager(lock.New(b))
	defer m.ForceReleaseAll(context.Background()) // on shutdown

	outbox := lock.Preset{Key: "scheduler:outbox_events", TTL: 5 * time.Minute} // one per job
	err = m.WithPreset(ctx, outbox, func(ctx context.Context, l *lock.Lock) error {
		fmt.Println("held:", m.Held())
		_, err := lock.PutFenced(ctx, db, &dynamodb.PutItemInput{
			TableName: aws.String(tbl.Name()),
			Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "OUTBOX#cursor"},
				"SK": &types.AttributeValueMemberS{Value: "STATE"},
			},
		}, l.Fence())
		if errors.Is(err, entity.ErrConditionFailed) {
			return fmt.Errorf("a newer holder wrote first: %w", err)
		}
		return err
	})
	switch {
	case errors.Is(err, lock.ErrNotObtained):
		fmt.Println("another server is processing the outbox")
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("held after:", m.Held())
	// Output:
	// held: [scheduler:outbox_events]
	// held after: []
}
