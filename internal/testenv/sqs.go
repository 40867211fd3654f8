package testenv

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SQSEndpointEnv names the variable that holds the endpoint of the
// SQS-compatible test server (goaws, which the test command starts):
// http://127.0.0.1:PORT.
const SQSEndpointEnv = "TABLEKIT_SQS_ENDPOINT"

// SQSEndpoint returns the SQS endpoint URL; it skips the test (fails it in
// CI) when none is configured.
func SQSEndpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv(SQSEndpointEnv)
	if ep == "" {
		missing(t, "an SQS server (goaws)", SQSEndpointEnv)
	}
	return ep
}

// SQS returns an SDK client for the SQS endpoint (see [SQSEndpoint]).
func SQS(t testing.TB) *sqs.Client {
	t.Helper()
	return NewSQSClient(SQSEndpoint(t))
}

// OptionalSQS returns an SDK client for the SQS endpoint when one is
// configured, and nil otherwise: a flow that runs on SQS when it can and
// on consumer.MemQueue when it cannot. In CI (see [Required]) a missing
// endpoint fails the test.
func OptionalSQS(t testing.TB) *sqs.Client {
	t.Helper()
	if os.Getenv(SQSEndpointEnv) == "" && !Required() {
		return nil
	}
	return SQS(t)
}

// NewSQSClient returns an SDK client that sends every request to endpoint
// (never to the host of a queue URL, which goaws fills with its
// configured name) with dummy static credentials.
func NewSQSClient(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test", Source: "testenv"}, nil
		}),
	})
}

// SQSQueue creates a queue with a unique name from prefix (goaws keeps
// every queue in one global per process, so names must not collide) and
// the attributes attrs (VisibilityTimeout, FifoQueue, ...), deletes it at
// the end of the test, and returns its URL. A prefix ending in ".fifo"
// makes a FIFO queue.
func SQSQueue(t testing.TB, c *sqs.Client, prefix string, attrs map[string]string) string {
	t.Helper()
	name := UniqueName(prefix)
	if len(prefix) > 5 && prefix[len(prefix)-5:] == ".fifo" {
		name = UniqueName(prefix[:len(prefix)-5]) + ".fifo"
	}
	out, err := c.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: &name, Attributes: attrs})
	if err != nil {
		t.Fatalf("testenv: create queue %s: %v", name, err)
	}
	url := aws.ToString(out.QueueUrl)
	t.Cleanup(func() { _, _ = c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: &url}) })
	return url
}
