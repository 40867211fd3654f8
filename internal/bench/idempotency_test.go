package bench

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/internal/testenv"
)

// idempotencyOnEngine chooses where the idempotency benchmarks run:
// DynamoDB Local (false) or the embedded engine, ddbmem (true). Flip it
// once the engine is complete.
const idempotencyOnEngine = true

// idempotencyClient is the one place that builds the benchmarks' client.
func idempotencyClient(b *testing.B) entity.Client {
	if idempotencyOnEngine {
		return ddbmem.New()
	}
	return testenv.DynamoDB(b)
}

// idemCounter counts the DynamoDB calls the benchmarks make.
type idemCounter struct {
	entity.Client
	n atomic.Int64
}

func (c *idemCounter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, f ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.Add(1)
	return c.Client.GetItem(ctx, in, f...)
}

func (c *idemCounter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, f ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.Add(1)
	return c.Client.PutItem(ctx, in, f...)
}

func (c *idemCounter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, f ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.n.Add(1)
	return c.Client.UpdateItem(ctx, in, f...)
}

func (c *idemCounter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, f ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.n.Add(1)
	return c.Client.DeleteItem(ctx, in, f...)
}

func (c *idemCounter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, f ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.n.Add(1)
	return c.Client.TransactWriteItems(ctx, in, f...)
}

type idemResult struct {
	RequestID string
	Status    string
}

// BenchmarkIdempotency measures one Do: FirstCall runs the function on a
// new key (claim + complete), Replay answers a completed key. Both report
// the DynamoDB calls per operation (ddbcalls/op).
func BenchmarkIdempotency(b *testing.B) {
	raw := idempotencyClient(b)
	table := testenv.PKSKTable(b, raw, "bench-idem")
	c := &idemCounter{Client: raw}
	store, err := idempotency.New(c, table)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	payload := []byte(`{"eventId":"ev-1","userId":"u-1"}`)
	fn := func(context.Context) (idemResult, error) {
		return idemResult{RequestID: "req-000001", Status: "QUEUED"}, nil
	}

	b.Run("FirstCall", func(b *testing.B) {
		prefix := testenv.UniqueName("first") + "#"
		b.ReportAllocs()
		c.n.Store(0)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, replayed, err := idempotency.Do(ctx, store, prefix+strconv.Itoa(i), payload, fn); err != nil || replayed {
				b.Fatalf("first call: replayed=%v err=%v", replayed, err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(c.n.Load())/float64(b.N), "ddbcalls/op")
	})

	b.Run("Replay", func(b *testing.B) {
		key := testenv.UniqueName("replay")
		if _, _, err := idempotency.Do(ctx, store, key, payload, fn); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		c.n.Store(0)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, replayed, err := idempotency.Do(ctx, store, key, payload, fn); err != nil || !replayed {
				b.Fatalf("replay: replayed=%v err=%v", replayed, err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(c.n.Load())/float64(b.N), "ddbcalls/op")
	})
}
