package idempotency_test

import (
	"context"
	"errors"
	"github.com/tablekit/tablekit/retry"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/internal/testenv"
)

// newTable creates a fresh pay-per-request table with string keys pk and
// sk on DynamoDB Local and deletes it when the test ends.
func newTable(t testing.TB, pk, sk string) (*dynamodb.Client, string) {
	t.Helper()
	db := testenv.DynamoDB(t)
	return db, testenv.KeyTable(t, db, "idem", pk, sk)
}

// counting counts the calls that reach the wrapped client.
type counting struct {
	entity.Client
	gets, puts, updates, deletes, txs atomic.Int64
}

func (c *counting) GetItem(ctx context.Context, in *dynamodb.GetItemInput, f ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets.Add(1)
	return c.Client.GetItem(ctx, in, f...)
}

func (c *counting) PutItem(ctx context.Context, in *dynamodb.PutItemInput, f ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.puts.Add(1)
	return c.Client.PutItem(ctx, in, f...)
}

func (c *counting) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, f ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.updates.Add(1)
	return c.Client.UpdateItem(ctx, in, f...)
}

func (c *counting) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, f ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.deletes.Add(1)
	return c.Client.DeleteItem(ctx, in, f...)
}

func (c *counting) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, f ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.txs.Add(1)
	return c.Client.TransactWriteItems(ctx, in, f...)
}

type counts struct{ gets, puts, updates, deletes, txs int64 }

func (c *counting) snapshot() counts {
	return counts{c.gets.Load(), c.puts.Load(), c.updates.Load(), c.deletes.Load(), c.txs.Load()}
}

func (c *counting) reset() {
	c.gets.Store(0)
	c.puts.Store(0)
	c.updates.Store(0)
	c.deletes.Store(0)
	c.txs.Store(0)
}

// errInjected plays a lost response or a dead network.
var errInjected = errors.New("injected: connection reset")

// faulty injects network faults into the wrapped client.
type faulty struct {
	entity.Client
	// failUpdates makes every UpdateItem fail without reaching the server
	// (a partitioned process: heartbeats and completions are lost).
	failUpdates atomic.Bool
	// losePutResponses makes that many PutItems reach the server and then
	// report errInjected (the response was lost).
	losePutResponses atomic.Int64
	// dropPuts makes that many PutItems fail without reaching the server.
	dropPuts atomic.Int64
	// loseUpdateResponses makes that many UpdateItems reach the server and
	// then report errInjected.
	loseUpdateResponses atomic.Int64
	// repeatWrites sends every write twice and returns the second answer,
	// as the SDK's retryer does when a response is lost.
	repeatWrites atomic.Bool
	// afterPut runs once after the first PutItem reached the server.
	afterPut func()
	once     sync.Once
}

func (f *faulty) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.failUpdates.Load() {
		return nil, errInjected
	}
	out, err := f.Client.UpdateItem(ctx, in, o...)
	if f.repeatWrites.Load() {
		out, err = f.Client.UpdateItem(ctx, in, o...)
	}
	if f.loseUpdateResponses.Add(-1) >= 0 {
		return nil, errInjected
	}
	return out, err
}

func (f *faulty) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := f.Client.DeleteItem(ctx, in, o...)
	if f.repeatWrites.Load() {
		out, err = f.Client.DeleteItem(ctx, in, o...)
	}
	return out, err
}

func (f *faulty) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if f.dropPuts.Add(-1) >= 0 {
		return nil, errInjected
	}
	out, err := f.Client.PutItem(ctx, in, o...)
	if f.repeatWrites.Load() {
		out, err = f.Client.PutItem(ctx, in, o...)
	}
	if f.afterPut != nil {
		f.once.Do(f.afterPut)
	}
	if f.losePutResponses.Add(-1) >= 0 {
		return nil, errInjected
	}
	return out, err
}

// clock is the real clock plus an adjustable offset.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// fast are the base test options: a 50 ms skew margin, quick polls, and a
// one-minute lease, so that a slow server under load never lets a lease
// lapse by accident. Tests of expiry move an injected clock instead
// (see [clock]); tests of heartbeats use [shortLease].
func fast(o *idempotency.Options) {
	o.Lease = time.Minute
	o.ClockSkew = 50 * time.Millisecond
	o.Retry = retry.Exponential(5*time.Millisecond, 50*time.Millisecond)
}

// shortLease is a 300 ms lease, renewed every 100 ms.
func shortLease(o *idempotency.Options) { o.Lease = 300 * time.Millisecond }

func newStore(t testing.TB, c entity.Client, table string, optFns ...func(*idempotency.Options)) *idempotency.Store {
	t.Helper()
	s, err := idempotency.New(c, table, append([]func(*idempotency.Options){fast}, optFns...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func getItem(t testing.TB, db entity.Client, table, pkAttr, pk, skAttr, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{pkAttr: &types.AttributeValueMemberS{Value: pk}, skAttr: &types.AttributeValueMemberS{Value: sk}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	return out.Item
}

func str(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
