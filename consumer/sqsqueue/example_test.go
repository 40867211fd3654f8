package sqsqueue_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/consumer/sqsqueue"
)

type Order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
}

// A worker on a FIFO queue: orders of one customer in order, a
// deduplication ID per order, and a heartbeat that keeps a long handler's
// message hidden. Run starts receiving (not done here: this example sends
// nothing); the tests run the same set-up on goaws.
func Example() {
	client := sqs.New(sqs.Options{Region: "eu-west-1", Credentials: aws.AnonymousCredentials{}})
	q, err := sqsqueue.New[Order](client, func(o *sqsqueue.Options[Order]) {
		o.QueueURL = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo"
		o.GroupID = func(b Order) string { return b.Customer }
		o.DeduplicationID = func(b Order) string { return b.ID }
	})
	if err != nil {
		panic(err)
	}
	worker, err := consumer.New(q, func(ctx context.Context, m consumer.Message[Order]) error {
		fmt.Println("ship", m.Body.ID, "delivery", m.ReceiveCount)
		return nil
	}, func(o *consumer.Options[Order]) {
		o.Heartbeat = 20 * time.Second // under the queue's visibility timeout
	})
	if err != nil {
		panic(err)
	}
	_ = worker // worker.Run(ctx) receives until ctx ends
	// Before the program exits: a receive that Run cut short lets go of
	// what SQS handed it.
	_ = q.WaitReceives(context.Background())
	fmt.Printf("%+v\n", q.Stats())

	_, err = sqsqueue.New[Order](client)
	fmt.Println(errors.Is(err, sqsqueue.ErrInvalidOptions))
	// Output:
	// {Sent:0 Received:0 Deleted:0 Undecodable:0 Requests:0 DeleteBatches:0 VisibilityBatches:0 Released:0 ReleaseFailed:0}
	// true
}
