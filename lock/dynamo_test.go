package lock_test

import (
	"context"
	"errors"
	"github.com/tablekit/tablekit/retry"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
)

// faultClient wraps the real client to lose the reply of the next UpdateItem
// (after it was applied) or to drop the next one before it is sent.
type faultClient struct {
	entity.Client
	loseReply, dropRequest, duplicate atomic.Bool
}

var errInjected = errors.New("injected: connection reset")

func (f *faultClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.dropRequest.Swap(false) {
		return nil, errInjected
	}
	out, err := f.Client.UpdateItem(ctx, in, optFns...)
	if f.duplicate.Swap(false) { // the SDK retried a request that had landed
		return f.Client.UpdateItem(ctx, in, optFns...)
	}
	if f.loseReply.Swap(false) {
		return nil, errInjected
	}
	return out, err
}

func newDynamoLocker(t *testing.T, c entity.Client, optFns ...func(*dynamolock.Options)) (*dynamolock.Backend, *lock.Locker) {
	t.Helper()
	b, err := dynamolock.New(c, append([]func(*dynamolock.Options){func(o *dynamolock.Options) { o.Table = leaseTable }}, optFns...)...)
	if err != nil {
		t.Fatal(err)
	}
	return b, lock.New(b)
}

// TestDynamoAmbiguousHeartbeat: a refresh whose write landed but whose
// reply was lost, or one that never left, does not lose the lock.
func TestDynamoAmbiguousHeartbeat(t *testing.T) {
	fc := &faultClient{Client: dynamo(t)}
	_, lk := newDynamoLocker(t, fc)
	ctx := ctxT(t, 20*time.Second)
	key := uniqueKey("ambiguous")
	l, err := lk.Obtain(ctx, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range []*atomic.Bool{&fc.loseReply, &fc.dropRequest, &fc.loseReply, &fc.loseReply} {
		fault.Store(true)
		err := l.Refresh(ctx)
		if !errors.Is(err, errInjected) || errors.Is(err, lock.ErrLost) {
			t.Fatalf("faulty refresh = %v", err)
		}
	}
	if err := l.Refresh(ctx); err != nil {
		t.Fatalf("refresh after ambiguous refreshes: %v", err)
	}
	select {
	case <-l.Lost():
		t.Fatal("lost")
	default:
	}
	fc.loseReply.Store(true)
	_ = l.Refresh(ctx)
	if err := l.Release(ctx); err != nil {
		t.Fatalf("release after an ambiguous refresh: %v", err)
	}
	if locked, _ := lk.IsLocked(ctx, key); locked {
		t.Fatal("still locked")
	}
}

// TestDynamoSDKRetry: a request that landed and is sent again (the SDK
// retries when it gets no reply) fails its condition against its own write;
// the backend recognises its write instead of reporting a loss.
func TestDynamoSDKRetry(t *testing.T) {
	fc := &faultClient{Client: dynamo(t)}
	_, lk := newDynamoLocker(t, fc)
	ctx := ctxT(t, 20*time.Second)
	key := uniqueKey("sdkretry")
	first, err := lk.Obtain(ctx, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	fc.duplicate.Store(true)
	l, err := lk.Obtain(ctx, key, 5*time.Second)
	if err != nil {
		t.Fatalf("Obtain with a retried request: %v", err)
	}
	if l.Fence() != first.Fence()+1 {
		t.Errorf("fence %d after %d", l.Fence(), first.Fence())
	}
	fc.duplicate.Store(true)
	if err := l.Refresh(ctx); err != nil {
		t.Fatalf("Refresh with a retried request: %v", err)
	}
	if err := l.Refresh(ctx); err != nil {
		t.Fatalf("Refresh after: %v", err)
	}
	fc.duplicate.Store(true)
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release with a retried request: %v", err)
	}
	if locked, _ := lk.IsLocked(ctx, key); locked {
		t.Fatal("still locked")
	}
}

// TestDynamoSkewSafe: a contender takes a stale lease only after watching
// its record version unchanged for one full lease, and never while the
// holder refreshes.
func TestDynamoSkewSafe(t *testing.T) {
	_, lk := newDynamoLocker(t, dynamo(t))
	ctx := ctxT(t, 30*time.Second)
	const ttl = 2 * time.Second
	retry := func(o *lock.Options) {
		o.Retry = retry.Constant(20 * time.Millisecond)
		o.Timeout = 5 * time.Second
	}

	key := uniqueKey("skew")
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	a, err := lk.Obtain(hctx, key, ttl, patient, autoRefresh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lk.Obtain(ctx, key, ttl, retry); !errors.Is(err, lock.ErrNotObtained) {
		select {
		case <-a.Lost():
			t.Fatalf("the holder's heartbeat could not refresh in time (server too slow): %v", err)
		default:
		}
		t.Fatalf("contender got a refreshed lease: %v", err)
	}
	stop() // the holder dies: no more refreshes
	start := time.Now()
	b, err := lk.Obtain(ctx, key, ttl, retry)
	if err != nil {
		t.Fatalf("takeover: %v", err)
	}
	if el := time.Since(start); el < ttl {
		t.Errorf("took over after %v, before one full lease (%v)", el, ttl)
	}
	if b.Fence() <= a.Fence() {
		t.Errorf("fences %d then %d", a.Fence(), b.Fence())
	}
	mustIs(t, a.Refresh(ctx), lock.ErrLost)
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestDynamoFastTakeover: a lease is taken over once expiresAt plus the
// skew margin has passed, not before.
func TestDynamoFastTakeover(t *testing.T) {
	_, lk := newDynamoLocker(t, dynamo(t), func(o *dynamolock.Options) {
		o.Mode = dynamolock.FastTakeover
		o.SkewMargin = time.Second
	})
	ctx := ctxT(t, 20*time.Second)
	key := uniqueKey("fast")
	// TTLs of seconds: DynamoDB Local on a loaded machine answers slowly.
	a, err := lk.Obtain(ctx, key, time.Second, patient)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond) // past expiresAt, inside the margin
	if _, err := lk.Obtain(ctx, key, 2*time.Second); !errors.Is(err, lock.ErrNotObtained) {
		t.Fatalf("took over inside the skew margin: %v", err)
	}
	time.Sleep(1300 * time.Millisecond)
	b, err := lk.Obtain(ctx, key, 2*time.Second, patient)
	if err != nil {
		t.Fatalf("takeover after the margin: %v", err)
	}
	mustIs(t, a.Refresh(ctx), lock.ErrLost)
	_ = b.Release(ctx)
}

// TestDynamoKeyLayout pins the default lease item and a custom layout on a
// table with a partition key only.
func TestDynamoKeyLayout(t *testing.T) {
	dc := dynamo(t)
	ctx := ctxT(t, 20*time.Second)
	b, lk := newDynamoLocker(t, dc)
	key := uniqueKey("scheduler:layout")
	l, err := lk.Obtain(ctx, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	out, err := dc.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(leaseTable), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "LOCK#" + key},
			"SK": &types.AttributeValueMemberS{Value: "LOCK"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := out.Item[dynamolock.AttrOwner].(*types.AttributeValueMemberS); o == nil || o.Value != l.Token() {
		t.Fatalf("lease item = %v", out.Item)
	}
	for _, a := range []string{dynamolock.AttrVersion, dynamolock.AttrLease, dynamolock.AttrExpiresAt, dynamolock.AttrFence} {
		if _, ok := out.Item[a]; !ok {
			t.Errorf("lease item lacks %s", a)
		}
	}
	_ = l.Release(ctx)
	if k, _ := b.ItemKey(key); k["PK"].(*types.AttributeValueMemberS).Value != "LOCK#"+key {
		t.Errorf("ItemKey = %v", k)
	}

	// A table keyed by "id" only, with the application's own key values.
	table := testenv.UniqueName("lockhash")
	if _, err := dc.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	defer dc.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	_, lk2 := newDynamoLocker(t, dc, func(o *dynamolock.Options) {
		o.Table = table
		o.PartitionKey = "id"
		o.NoSortKey = true
		o.Key = func(k string) (string, string) { return "lock/" + k, "" }
	})
	l2, err := lk2.Obtain(ctx, "job", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	out, err = dc.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "lock/job"}}})
	if err != nil || out.Item == nil {
		t.Fatalf("custom lease item: %v %v", out, err)
	}
	if err := l2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	// The fence survives release: the item is kept.
	l3, err := lk2.Obtain(ctx, "job", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if l3.Fence() != l2.Fence()+1 {
		t.Errorf("fence %d then %d", l2.Fence(), l3.Fence())
	}
	_ = l3.Release(ctx)
}

func TestDynamoOptions(t *testing.T) {
	dc := dynamo(t)
	for name, fn := range map[string]func(*dynamolock.Options){
		"no table":      func(o *dynamolock.Options) {},
		"empty pk name": func(o *dynamolock.Options) { o.Table = "t"; o.PartitionKey = "" },
		"empty sk name": func(o *dynamolock.Options) { o.Table = "t"; o.SortKey = "" },
		"unknown mode":  func(o *dynamolock.Options) { o.Table = "t"; o.Mode = 7 },
		"negative skew": func(o *dynamolock.Options) { o.Table = "t"; o.SkewMargin = -1 },
	} {
		if _, err := dynamolock.New(dc, fn); !errors.Is(err, lock.ErrInvalidOptions) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := dynamolock.New(nil, func(o *dynamolock.Options) { o.Table = "t" }); !errors.Is(err, lock.ErrInvalidOptions) {
		t.Errorf("nil client: %v", err)
	}
	_, lk := newDynamoLocker(t, dc, func(o *dynamolock.Options) { o.Key = func(string) (string, string) { return "", "" } })
	_, err := lk.Obtain(ctxT(t, 5*time.Second), "k", time.Second)
	mustIs(t, err, lock.ErrInvalidKey)
}
