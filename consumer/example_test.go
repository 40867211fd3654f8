package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/retry"
)

// A handler that fails its first delivery of "flaky" and always fails
// "broken": the first is retried, the second dead-lettered after three
// deliveries.
func Example() {
	q := consumer.NewMemQueue[string]()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var log []string
	c, err := consumer.New(q, func(ctx context.Context, m consumer.Message[string]) error {
		if m.Body == "broken" || (m.Body == "flaky" && m.ReceiveCount == 1) {
			return errors.New("boom")
		}
		mu.Lock()
		log = append(log, fmt.Sprintf("handled %s at delivery %d", m.Body, m.ReceiveCount))
		mu.Unlock()
		return nil
	}, func(o *consumer.Options[string]) {
		o.MaxReceives = 3
		o.Retry = retry.Constant(time.Millisecond)
		o.DeadLetter = func(ctx context.Context, m consumer.Message[string], err error) error {
			mu.Lock()
			log = append(log, fmt.Sprintf("dead letter %s after %d deliveries: %v", m.Body, m.ReceiveCount, err))
			mu.Unlock()
			return nil
		}
	})
	if err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for _, body := range []string{"ok", "flaky", "broken"} {
		_ = q.Send(ctx, body)
	}
	_ = q.WaitEmpty(ctx)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, l := range slices.Sorted(slices.Values(log)) {
		fmt.Println(l)
	}
	m := c.Metrics()
	fmt.Printf("received %d, succeeded %d, retried %d, dead-lettered %d\n", m.Received, m.Succeeded, m.Retried, m.DeadLettered)
	// Output:
	// dead letter broken after 3 deliveries: boom
	// handled flaky at delivery 2
	// handled ok at delivery 1
	// received 6, succeeded 2, retried 3, dead-lettered 1
}
