package entity_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys/codec"
	"github.com/tablekit/tablekit/retry"
)

// stingy wraps the real client: each batch call sends only the first
// `take` requests and reports the rest unprocessed (as DynamoDB does under
// load); take < 0 sends nothing. It also counts calls.
type stingy struct {
	entity.Client
	mu         sync.Mutex
	take       int
	leave      int // when > 0: leave this many of each request unprocessed instead (never all)
	gets, puts int
	tx         int
	conflicts  int // transaction calls to fail with TransactionConflict
}

// quota counts one call in *calls and returns how many of the n requests
// of its table to process.
func (c *stingy) quota(calls *int, n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	*calls++
	take := c.take
	if c.leave > 0 {
		take = n - min(c.leave, n-1)
	}
	return min(max(take, 0), n)
}

func (c *stingy) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	for name, ka := range in.RequestItems {
		n := c.quota(&c.gets, len(ka.Keys))
		if len(ka.Keys) > 100 {
			return nil, fmt.Errorf("chunk of %d keys", len(ka.Keys))
		}
		send, rest := ka.Keys[:n], ka.Keys[n:]
		out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
		if len(send) > 0 {
			ka2 := ka
			ka2.Keys = send
			real, err := c.Client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{name: ka2}})
			if err != nil {
				return nil, err
			}
			out.Responses = real.Responses
		}
		if len(rest) > 0 {
			ka3 := ka
			ka3.Keys = rest
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{name: ka3}
		}
		return out, nil
	}
	return &dynamodb.BatchGetItemOutput{}, nil
}

func (c *stingy) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for name, reqs := range in.RequestItems {
		n := c.quota(&c.puts, len(reqs))
		if len(reqs) > 25 {
			return nil, fmt.Errorf("chunk of %d writes", len(reqs))
		}
		if n > 0 {
			if _, err := c.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: reqs[:n]}}); err != nil {
				return nil, err
			}
		}
		out := &dynamodb.BatchWriteItemOutput{}
		if n < len(reqs) {
			out.UnprocessedItems = map[string][]types.WriteRequest{name: reqs[n:]}
		}
		return out, nil
	}
	return &dynamodb.BatchWriteItemOutput{}, nil
}

func (c *stingy) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.mu.Lock()
	c.tx++
	conflict := c.conflicts > 0
	if conflict {
		c.conflicts--
	}
	c.mu.Unlock()
	if conflict {
		reasons := make([]types.CancellationReason, len(in.TransactItems))
		for i := range reasons {
			reasons[i].Code = aws.String("None")
		}
		reasons[0].Code = aws.String("TransactionConflict")
		return nil, &types.TransactionCanceledException{Message: aws.String("conflict"), CancellationReasons: reasons}
	}
	return c.Client.TransactWriteItems(ctx, in, optFns...)
}

func fastRetry(o *entity.Options) {
	o.Retry = retry.Limit(retry.Exponential(time.Millisecond, 5*time.Millisecond), 10)
}

func TestBatchFinishes(t *testing.T) {
	base := noteTable(t, fastRetry)
	fake := &stingy{Client: base.Client(), take: 7}
	tbl := entity.NewTable(fake, base.Name(), func(o *entity.Options) { *o = base.Options() }, fastRetry)
	ctx := context.Background()
	posts := entity.NewStore[codex.Post](tbl)
	var items []codex.Post
	for i := 0; i < 60; i++ {
		items = append(items, codex.Post{ID: fmt.Sprintf("p%03d", i), CategoryID: "c1", Title: fmt.Sprintf("글 %d", i)})
	}
	// A duplicate key: the last write wins.
	items = append(items, codex.Post{ID: "p000", CategoryID: "c1", Title: "last"})
	if err := posts.BatchPut(ctx, items); err != nil {
		t.Fatal(err)
	}
	if fake.puts < 9 {
		t.Fatalf("%d BatchWriteItem calls: unprocessed items were not retried", fake.puts)
	}
	var keys []entity.Key
	for i := 59; i >= 0; i-- { // reverse order, with duplicates and missing keys
		k, _ := codex.PostKey("c1", fmt.Sprintf("p%03d", i))
		keys = append(keys, k)
		if i%10 == 0 {
			keys = append(keys, k)
			m, _ := codex.PostKey("c1", fmt.Sprintf("missing%d", i))
			keys = append(keys, m)
		}
	}
	for len(keys) < 230 { // more than two chunks of 100
		k, _ := codex.PostKey("c1", "p030")
		keys = append(keys, k)
	}
	got, err := posts.BatchGet(ctx, keys, entity.ConsistentRead)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 60 || got[0].ID != "p059" || got[59].ID != "p000" || got[59].Title != "last" {
		t.Fatalf("BatchGet: %d items, first %s last %s %q", len(got), got[0].ID, got[len(got)-1].ID, got[len(got)-1].Title)
	}
	// Deletes through the table-level batch, mixed types.
	cats := entity.NewStore[codex.Category](tbl)
	if err := cats.Put(ctx, &codex.Category{ID: "c1", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	ck, _ := codex.CategoryKey("c1")
	ops := []entity.WriteOp{cats.DeleteOp(ck)}
	for _, p := range got[:30] {
		k, _ := p.PrimaryKey()
		ops = append(ops, posts.DeleteOp(k))
	}
	if err := tbl.BatchWrite(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	left, err := posts.BatchGet(ctx, keys, entity.ConsistentRead)
	if err != nil || len(left) != 30 {
		t.Fatalf("after deletes: %d %v", len(left), err)
	}
	// Bad input fails the batch before anything is sent.
	before := fake.puts
	err = tbl.BatchWrite(ctx, posts.DeleteOp(ck), posts.DeleteOp(entity.Key{}))
	if !errors.Is(err, entity.ErrValidation) || fake.puts != before {
		t.Fatalf("bad batch: %v (sent %d)", err, fake.puts-before)
	}
	notes := entity.NewStore[Note](tbl)
	if err := notes.BatchPut(ctx, []Note{{ID: "x", Owner: "o", Region: "r", Title: "t"}}); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("versioned batch: %v", err)
	}
}

func TestBatchLeftoversAtDeadline(t *testing.T) {
	base := noteTable(t)
	fake := &stingy{Client: base.Client(), take: -1}
	tbl := entity.NewTable(fake, base.Name(), func(o *entity.Options) { *o = base.Options() }, func(o *entity.Options) {
		o.Retry = retry.Exponential(10*time.Millisecond, 20*time.Millisecond)
	})
	posts := entity.NewStore[codex.Post](tbl)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	items := make([]codex.Post, 30)
	for i := range items {
		items[i] = codex.Post{ID: fmt.Sprintf("p%d", i), CategoryID: "c1", Title: "t"}
	}
	start := time.Now()
	err := posts.BatchPut(ctx, items)
	var be *entity.BatchError
	if !errors.Is(err, entity.ErrUnprocessed) || !errors.As(err, &be) || len(be.Unprocessed) != 30 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("leftovers: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("did not stop at the deadline: %v", d)
	}
	k, _ := codex.PostKey("c1", "p1")
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	_, err = posts.BatchGet(ctx2, []entity.Key{k})
	if !errors.As(err, &be) || len(be.Unprocessed) != 1 || be.Unprocessed[0] != k {
		t.Fatalf("get leftovers: %v", err)
	}
}

func TestTransactions(t *testing.T) {
	base := noteTable(t, fastRetry)
	fake := &stingy{Client: base.Client()}
	tbl := entity.NewTable(fake, base.Name(), func(o *entity.Options) { *o = base.Options() }, fastRetry)
	ctx := context.Background()
	notes := entity.NewStore[Note](tbl)
	posts := entity.NewStore[codex.Post](tbl)
	users := entity.NewStore[codex.User](tbl)
	n := Note{ID: "t1", Owner: "o", Region: "r", Title: "t"}
	if err := notes.Create(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if err := users.Put(ctx, &codex.User{ID: "u001", DisplayName: "김대연"}); err != nil {
		t.Fatal(err)
	}
	nk, _ := NoteKey("t1")
	uk, _ := codex.UserKey("u001")
	p := codex.Post{ID: "p1", CategoryID: "c1", AuthorID: "u001", Title: "첫 글"}

	// A mixed transaction: create, update with version, condition check; a
	// conflict on the first attempt is retried.
	fake.conflicts = 1
	token := testenv.UniqueName("tok") // tokens are account-wide for 10 minutes
	tx := tbl.Tx().Add(
		posts.TxCreate(&p),
		notes.TxUpdate(nk, entity.Changes[Note]{entity.Add(NoteViews, 1)}, entity.IfVersion(1)),
		users.TxCheck(uk, expression.AttributeExists(expression.Name("PK"))),
	).Token(token)
	in, err := tx.Params()
	if err != nil || *in.ClientRequestToken != token || len(in.TransactItems) != 3 {
		t.Fatalf("params %v", err)
	}
	if err := tx.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if fake.tx != 2 {
		t.Fatalf("%d TransactWriteItems calls, want 2 (one conflict retried)", fake.tx)
	}
	if p.CreatedAt.IsZero() {
		t.Fatal("TxCreate did not refresh the value")
	}
	if got, _ := notes.Get(ctx, nk, entity.ConsistentRead); got.Version != 2 || got.Views != 1 {
		t.Fatalf("note after tx %+v", got)
	}

	// A canceled transaction lists each failure with its old item.
	pk, _ := p.PrimaryKey()
	err = tbl.Tx().Add(
		users.TxCheck(uk, expression.AttributeExists(expression.Name("PK"))),
		posts.TxCreate(&codex.Post{ID: "p1", CategoryID: "c1", Title: "dup"}),
		notes.TxDelete(nk, entity.IfVersion(1)),
	).Exec(ctx)
	var tce *entity.TxCanceledError
	if !errors.As(err, &tce) || !errors.Is(err, entity.ErrTransactionCanceled) || !errors.Is(err, entity.ErrVersionConflict) || !errors.Is(err, entity.ErrAlreadyExists) {
		t.Fatalf("canceled: %v", err)
	}
	if len(tce.Failures) != 2 {
		t.Fatalf("failures %+v", tce.Failures)
	}
	f0, f1 := tce.Failures[0], tce.Failures[1]
	if f0.Index != 1 || f0.Type != "Post" || f0.Key != pk || f0.Code != "ConditionalCheckFailed" {
		t.Fatalf("failure 0 %+v", f0)
	}
	if old, ok := f0.Old.(codex.Post); !ok || old.Title != "첫 글" {
		t.Fatalf("old post %#v", f0.Old)
	}
	if old, ok := f1.Old.(Note); f1.Index != 2 || f1.Type != "NOTE" || !ok || old.Version != 2 {
		t.Fatalf("failure 1 %+v", f1)
	}
	var vc *entity.VersionConflictError
	if !errors.As(f1.Err, &vc) || vc.Actual != 2 {
		t.Fatalf("failure 1 err %v", f1.Err)
	}
	if got, _ := notes.Get(ctx, nk, entity.ConsistentRead); got.Version != 2 {
		t.Fatal("canceled transaction wrote")
	}

	// More than 100 actions is rejected before sending.
	before := fake.tx
	big := tbl.Tx()
	for i := 0; i < 101; i++ {
		big.Add(posts.TxPut(&codex.Post{ID: fmt.Sprintf("b%d", i), CategoryID: "c1", Title: "t"}))
	}
	if err := big.Exec(ctx); !errors.Is(err, entity.ErrValidation) || fake.tx != before {
		t.Fatalf("101 actions: %v", err)
	}
	// Two actions on one item, an invalid action, an empty transaction.
	if err := tbl.Tx().Add(posts.TxDelete(pk), posts.TxDelete(pk)).Exec(ctx); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("same item twice: %v", err)
	}
	if err := tbl.Tx().Add(posts.TxDelete(entity.Key{})).Exec(ctx); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("invalid action: %v", err)
	}
	if err := tbl.Tx().Exec(ctx); !errors.Is(err, entity.ErrValidation) || fake.tx != before {
		t.Fatalf("empty: %v", err)
	}
}

// patient is a strategy that gives up after 3 retries in a row without
// progress: a batch that progresses must never reach that limit.
func patient(o *entity.Options) {
	o.Retry = retry.Limit(retry.Exponential(time.Millisecond, 2*time.Millisecond), 3)
}

// batchTargets are the two ways a test gets a server that leaves one item
// of every batch request unprocessed: the engine's own fault, and the
// real server (DynamoDB Local when configured) behind the stingy wrapper.
func batchTargets(t *testing.T, optFns ...func(*entity.Options)) map[string]func(t *testing.T) (*entity.Table, *ddbmem.DB) {
	return map[string]func(t *testing.T) (*entity.Table, *ddbmem.DB){
		"engine": func(t *testing.T) (*entity.Table, *ddbmem.DB) {
			db := ddbmem.New()
			tbl := noteTableOn(t, db, optFns...)
			db.SetFault("BatchWriteItem", ddbmem.Fault{Unprocessed: 1})
			db.SetFault("BatchGetItem", ddbmem.Fault{Unprocessed: 1})
			return tbl, db
		},
		"server": func(t *testing.T) (*entity.Table, *ddbmem.DB) {
			base := noteTable(t, optFns...)
			fake := &stingy{Client: base.Client(), leave: 1}
			return entity.NewTable(fake, base.Name(), func(o *entity.Options) { *o = base.Options() }), nil
		},
	}
}

func manyPosts(n int) []codex.Post {
	items := make([]codex.Post, n)
	for i := range items {
		items[i] = codex.Post{ID: fmt.Sprintf("p%03d", i), CategoryID: "c1", Title: fmt.Sprintf("글 %d", i)}
	}
	return items
}

func postKeys(items []codex.Post) []entity.Key {
	keys := make([]entity.Key, len(items))
	for i, p := range items {
		keys[i], _ = p.PrimaryKey()
	}
	return keys
}

// TestBatchProgressResetsAttempts: a server that leaves one item of every
// request unprocessed makes progress on each request, so a 300-item
// BatchPut and BatchGet finish even with a strategy that gives up after
// three retries without progress.
func TestBatchProgressResetsAttempts(t *testing.T) {
	for name, target := range batchTargets(t, patient) {
		t.Run(name, func(t *testing.T) {
			tbl, _ := target(t)
			posts := entity.NewStore[codex.Post](tbl)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			items := manyPosts(300)
			if err := posts.BatchPut(ctx, items); err != nil {
				t.Fatalf("BatchPut: %v", err)
			}
			got, err := posts.BatchGet(ctx, postKeys(items), entity.ConsistentRead)
			if err != nil {
				t.Fatalf("BatchGet: %v", err)
			}
			ids := func(ps []codex.Post) []string {
				out := make([]string, len(ps))
				for i, p := range ps {
					out[i] = p.ID
				}
				return out
			}
			if diff := cmp.Diff(ids(items), ids(got)); diff != "" {
				t.Fatalf("BatchGet after BatchPut (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchThrottledChunk: a throttled request is retried like unprocessed
// items and the other chunks are still sent, for BatchWrite and BatchGet.
func TestBatchThrottledChunk(t *testing.T) {
	throttles := map[string]error{
		"ProvisionedThroughputExceeded": &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")},
		"ThrottlingException":           &types.ThrottlingException{Message: aws.String("slow down")},
		"RequestLimitExceeded":          &types.RequestLimitExceeded{Message: aws.String("slow down")},
	}
	for name, terr := range throttles {
		t.Run(name, func(t *testing.T) {
			db := ddbmem.New()
			tbl := noteTableOn(t, db, patient)
			posts := entity.NewStore[codex.Post](tbl)
			ctx := context.Background()
			items := manyPosts(120) // 5 write chunks, 2 read chunks
			db.SetFault("BatchWriteItem", ddbmem.Fault{Err: terr, Times: 2})
			if err := posts.BatchPut(ctx, items); err != nil {
				t.Fatalf("BatchPut: %v", err)
			}
			db.SetFault("BatchGetItem", ddbmem.Fault{Err: terr, Times: 1})
			got, err := posts.BatchGet(ctx, postKeys(items), entity.ConsistentRead)
			if err != nil || len(got) != len(items) {
				t.Fatalf("BatchGet: %d items, %v", len(got), err)
			}
			// Throttling that never stops ends the batch once the strategy
			// gives up, with every item listed.
			db.SetFault("BatchWriteItem", ddbmem.Fault{ThrottleRate: 1, ThrottleErr: terr})
			err = posts.BatchPut(ctx, items[:30])
			var be *entity.BatchError
			if !errors.As(err, &be) || !errors.Is(err, entity.ErrUnprocessed) || !errors.Is(err, retry.ErrGaveUp) || len(be.Unprocessed) != 30 {
				t.Fatalf("endless throttling: %v", err)
			}
		})
	}
	// A request that fails for another reason ends the batch at once.
	db := ddbmem.New()
	tbl := noteTableOn(t, db, patient)
	posts := entity.NewStore[codex.Post](tbl)
	boom := errors.New("boom")
	db.SetFault("BatchWriteItem", ddbmem.Fault{Err: boom, Times: 1})
	err := posts.BatchPut(context.Background(), manyPosts(60))
	var be *entity.BatchError
	if !errors.Is(err, boom) || !errors.As(err, &be) || len(be.Unprocessed) != 60 {
		t.Fatalf("non-retryable failure: %v", err)
	}
}

// TestBatchGetDecodeError: an item BatchGet cannot decode is the same
// typed error Get returns, not a missing item.
func TestBatchGetDecodeError(t *testing.T) {
	tbl := noteTable(t)
	posts := entity.NewStore[codex.Post](tbl)
	ctx := context.Background()
	items := manyPosts(3)
	if err := posts.BatchPut(ctx, items); err != nil {
		t.Fatal(err)
	}
	bad := postKeys(items)[1]
	// The title stored as a number: the codec cannot decode it.
	if _, err := tbl.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(bad),
		UpdateExpression:          aws.String("SET title = :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "7"}},
	}); err != nil {
		t.Fatal(err)
	}
	_, getErr := posts.Get(ctx, bad, entity.ConsistentRead)
	got, batchErr := posts.BatchGet(ctx, postKeys(items), entity.ConsistentRead)
	for name, err := range map[string]error{"Get": getErr, "BatchGet": batchErr} {
		var ae *codec.AttrError
		if !errors.As(err, &ae) || ae.Attr != "title" {
			t.Errorf("%s: %v, want a *codec.AttrError about title", name, err)
		}
	}
	if got != nil {
		t.Errorf("BatchGet returned %d items with the error", len(got))
	}
}

// TestTxRetry: conflicts are retried with the strategy of Tx.Retry (or the
// table's), and a transaction that keeps conflicting ends with the
// cancellation joined with retry.ErrGaveUp; throttling is retried too.
func TestTxRetry(t *testing.T) {
	base := noteTable(t, patient)
	fake := &stingy{Client: base.Client()}
	tbl := entity.NewTable(fake, base.Name(), func(o *entity.Options) { *o = base.Options() })
	posts := entity.NewStore[codex.Post](tbl)
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		conflicts int
		strategy  retry.Strategy
		calls     int
		want      []error
	}{
		{"table strategy gives up", 10, nil, 4, []error{entity.ErrTransactionCanceled, retry.ErrGaveUp}},
		{"Never", 10, retry.Never(), 1, []error{entity.ErrTransactionCanceled, retry.ErrGaveUp}},
		{"commits after conflicts", 3, retry.Constant(time.Millisecond), 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake.mu.Lock()
			fake.tx, fake.conflicts = 0, tc.conflicts
			fake.mu.Unlock()
			p := codex.Post{ID: testenv.UniqueName("tx"), CategoryID: "c1", Title: "t"}
			err := tbl.Tx().Retry(tc.strategy).Add(posts.TxCreate(&p)).Exec(ctx)
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("err %v, want it to match %v", err, w)
				}
			}
			if tc.want == nil && err != nil {
				t.Fatal(err)
			}
			if fake.tx != tc.calls {
				t.Errorf("%d TransactWriteItems calls, want %d", fake.tx, tc.calls)
			}
		})
	}
	db := ddbmem.New()
	etbl := noteTableOn(t, db, patient)
	eposts := entity.NewStore[codex.Post](etbl)
	db.SetFault("TransactWriteItems", ddbmem.Fault{Err: &types.ThrottlingException{Message: aws.String("slow down")}, Times: 2})
	p := codex.Post{ID: "throttled", CategoryID: "c1", Title: "t"}
	if err := etbl.Tx().Add(eposts.TxCreate(&p)).Exec(ctx); err != nil {
		t.Fatalf("throttled transaction: %v", err)
	}
}
