package testenv

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestPrivateSQSUnderChurn runs on the private goaws, for two seconds,
// four goroutines that create and delete queues beside four that send to
// and receive from a queue of their own, as the crash tests' parallel
// subtests do. goaws must stay up (queueMapLock keeps its map writes apart
// from the handlers that read the map unlocked) and every message sent
// must come back.
func TestPrivateSQSUnderChurn(t *testing.T) {
	if os.Getenv(GoawsBinEnv) == "" {
		missing(t, "the goaws binary", GoawsBinEnv)
	}
	c := PrivateSQS(t)
	ctx := context.Background()
	stop := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	var churned, sent, got atomic.Int64
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(2)
		go func() { // churn
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				name := fmt.Sprintf("churn-%d-%d-%s", g, i, UniqueName("q"))
				out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: &name})
				if err != nil {
					errs <- err
					return
				}
				if _, err := c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: out.QueueUrl}); err != nil {
					errs <- err
					return
				}
				churned.Add(1)
			}
		}()
		url := SQSQueue(t, c, fmt.Sprintf("traffic-%d", g), nil)
		go func() { // traffic
			defer wg.Done()
			for time.Now().Before(stop) {
				if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")}); err != nil {
					errs <- err
					return
				}
				sent.Add(1)
				for {
					out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})
					if err != nil {
						errs <- err
						return
					}
					if len(out.Messages) == 0 {
						continue
					}
					for _, m := range out.Messages {
						if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle}); err != nil {
							errs <- err
							return
						}
						got.Add(1)
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("goaws under churn: %v (its stderr: %s)", err, private.stderr.String())
	}
	t.Logf("%d queues created and deleted beside %d messages sent and received", churned.Load(), sent.Load())
	if got.Load() != sent.Load() || churned.Load() == 0 || sent.Load() == 0 {
		t.Fatalf("sent %d, received %d, queues churned %d", sent.Load(), got.Load(), churned.Load())
	}
}
