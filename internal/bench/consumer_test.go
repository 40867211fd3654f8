package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/consumer/sqsqueue"
	"github.com/tablekit/tablekit/internal/testenv"
)

// BenchmarkConsumer consumes b.N messages, sent beforehand, from an SQS
// queue on goaws (TABLEKIT_SQS_ENDPOINT): one iteration is one message
// received, handled (a no-op) and deleted. SQS is the consumer loop on
// sqsqueue (concurrency 20, receives of 10, deletes batched; BatchWait and
// DeleteWait at their defaults); RawSQS is the loop a user writes by hand:
// ReceiveMessage of 10, then DeleteMessageBatch of what came. Goal: SQS
// within 1.11× RawSQS per message. Without the two waits the loop made
// 0.35 requests per message (RawSQS 0.20): the first handler of a receive
// to finish deleted alone and freed one slot, and the loop received one
// message into it, so receives and deletes fell out of step.
func BenchmarkConsumer(b *testing.B) {
	c := testenv.SQS(b)
	b.Run("SQS", func(b *testing.B) {
		url := benchQueue(b, c)
		q, err := sqsqueue.New[string](c, func(o *sqsqueue.Options[string]) {
			o.QueueURL = url
			o.WaitTime = time.Second
			o.NoVisibilityBatch = true
		})
		if err != nil {
			b.Fatal(err)
		}
		var left atomic.Int64
		left.Store(int64(b.N))
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		cons, err := consumer.New(q, func(context.Context, consumer.Message[string]) error {
			if left.Add(-1) == 0 {
				stop()
			}
			return nil
		}, func(o *consumer.Options[string]) { o.Concurrency = 20 })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		_ = cons.Run(ctx)
		b.StopTimer()
		if m := cons.Metrics(); m.Succeeded < int64(b.N) || m.AckFailed != 0 {
			b.Fatalf("metrics %+v for %d messages", m, b.N)
		}
		b.ReportMetric(float64(q.Stats().Requests)/float64(b.N), "requests/msg")
	})
	b.Run("RawSQS", func(b *testing.B) {
		url := benchQueue(b, c)
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		requests := 0
		defer func() { b.ReportMetric(float64(requests)/float64(b.N), "requests/msg") }()
		for done := 0; done < b.N; {
			requests++
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
			if err != nil {
				b.Fatal(err)
			}
			if len(out.Messages) == 0 {
				continue
			}
			entries := make([]types.DeleteMessageBatchRequestEntry, len(out.Messages))
			for i, m := range out.Messages {
				entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: m.ReceiptHandle}
			}
			requests++
			if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: entries}); err != nil {
				b.Fatal(err)
			}
			done += len(out.Messages)
		}
	})
}

// benchQueue creates a queue holding b.N messages.
func benchQueue(b *testing.B, c *sqs.Client) string {
	b.Helper()
	url := testenv.SQSQueue(b, c, "bench-consumer", nil)
	ctx := context.Background()
	for i := 0; i < b.N; i += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for j := i; j < min(i+10, b.N); j++ {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(j - i)), MessageBody: aws.String(fmt.Sprintf("%q", fmt.Sprint("m", j)))})
		}
		if _, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: entries}); err != nil {
			b.Fatal(err)
		}
	}
	return url
}
