package main

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/ddbmem"
)

// The command serves until it is stopped; any DynamoDB client talks to it.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-port", "0"}, io.Discard, ready) }()
	url := <-ready
	out, err := ddbmem.NewEndpointClient(url).ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tables:", len(out.TableNames))
	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// tables: 0
	// stopped: <nil>
}
