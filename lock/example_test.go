package lock_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// The seed 002 scenarios and the condition that fences the application's
// own DynamoDB writes with a lock's fencing number.
func Example() {
	for _, p := range lock.Presets() {
		fmt.Println(p.Key, p.TTL)
	}
	expr, err := lock.FencedExpression("", 42)
	if err != nil {
		panic(err)
	}
	fmt.Println(aws.ToString(expr.Condition()))
	fmt.Println(expr.Names())
	// Output:
	// scheduler:outbox_events 5m0s
	// scheduler:create_table 1m0s
	// scheduler:cleanup_queues 1h0m0s
	// scheduler:monthly_summary 30m0s
	// (attribute_not_exists (#0)) OR (#0 < :0)
	// map[#0:fence]
}

// A scheduler job that runs on one server at a time, with fenced writes.
// It needs a Valkey server and a DynamoDB table, so it is not run.
func ExampleManager_WithPreset() {
	ctx := context.Background()
	client, err := glide.NewClient(config.NewClientConfiguration().
		WithAddress(&config.NodeAddress{Host: "localhost", Port: 6379}))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	b, err := valkeylock.New(cache.NewGlideConn(client), func(o *valkeylock.Options) { o.Prefix = "finance_app:prod" })
	if err != nil {
		log.Fatal(err)
	}
	m := lock.NewManager(lock.New(b))
	defer m.ForceReleaseAll(context.Background()) // on shutdown

	var db *dynamodb.Client // your DynamoDB client
	err = m.WithPreset(ctx, lock.OutboxEvents, func(ctx context.Context, l *lock.Lock) error {
		_, err := lock.PutFenced(ctx, db, &dynamodb.PutItemInput{
			TableName: aws.String("FMWebAppTable"),
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
		log.Print("another server is processing the outbox")
	case err != nil:
		log.Print(err)
	}
}
