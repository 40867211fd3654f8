package dynamolock_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/lock/dynamolock"
)

// The lease item's key in the application's single table. In a program,
// hand the backend to lock.New.
func Example() {
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1"}) // makes no call here
	b, err := dynamolock.New(client, func(o *dynamolock.Options) {
		o.Table = "FMWebAppTable"
		o.Key = func(key string) (string, string) { return "LOCK#" + key, "LEASE" }
	})
	if err != nil {
		panic(err)
	}
	k, _ := b.ItemKey("scheduler:monthly_summary")
	fmt.Println(k["PK"].(*types.AttributeValueMemberS).Value, k["SK"].(*types.AttributeValueMemberS).Value)
	// Output:
	// LOCK#scheduler:monthly_summary LEASE
}
