package feed_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/retry"
)

func putN(t testing.TB, c entity.Client, table, pk string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "A"},
			"v": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// putV puts the item pk with attribute v.
func putV(t testing.TB, c entity.Client, table, pk string, v int) {
	t.Helper()
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "A"},
		"v": &types.AttributeValueMemberN{Value: strconv.Itoa(v)}}})
	if err != nil {
		t.Fatal(err)
	}
}

// collector records what a handler saw.
type collector struct {
	mu   sync.Mutex
	seen []feed.Record
}

func (c *collector) handle(ctx context.Context, b feed.Batch) error {
	c.mu.Lock()
	c.seen = append(c.seen, b.Records...)
	c.mu.Unlock()
	return nil
}

func (c *collector) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func waitFor(t testing.TB, d time.Duration, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fast(o *feed.Options) {
	o.PollInterval = 10 * time.Millisecond
	o.DiscoverInterval = 200 * time.Millisecond
}

func TestConsumeInOrder(t *testing.T) { eachTarget(t, testConsumeInOrder) }

func testConsumeInOrder(t *testing.T, tg target) {
	table := streamTable(t, tg.db, "feed")
	leases := leaseTable(t, tg.db)
	putN(t, tg.db, table, "item", 50)
	col := &collector{}
	c, err := feed.New(tg.streams, table, col.handle, func(o *feed.Options) { o.Leases = leases; fast(o) })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, 2*time.Minute, "50 records", func() bool { return col.len() >= 50 })
	putN(t, tg.db, table, "item2", 10)
	waitFor(t, 2*time.Minute, "60 records", func() bool { return col.len() >= 60 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, r := range col.seen[:50] {
		if got := r.New["v"].(*types.AttributeValueMemberN).Value; got != fmt.Sprint(i+1) {
			t.Fatalf("record %d has v %s", i, got)
		}
	}
	t.Logf("metrics %+v", c.Metrics())
}

// TestPoisonRecord: one record the handler always fails on goes to the
// dead letter after bisection, and every other record of its shard is
// handled, in order, after it.
func TestPoisonRecord(t *testing.T) { eachTarget(t, testPoisonRecord) }

func testPoisonRecord(t *testing.T, tg target) {
	table := streamTable(t, tg.db, "feedpoison")
	leases := leaseTable(t, tg.db)
	putN(t, tg.db, table, "item", 40)
	col := &collector{}
	var dead []feed.Record
	var deadErr error
	h := func(ctx context.Context, b feed.Batch) error {
		for _, r := range b.Records {
			if r.New["v"].(*types.AttributeValueMemberN).Value == "17" {
				return errPoison
			}
		}
		return col.handle(ctx, b)
	}
	c, err := feed.New(tg.streams, table, h, func(o *feed.Options) {
		o.Leases = leases
		fast(o)
		o.Retry = retry.Constant(time.Millisecond)
		o.DeadLetter = func(ctx context.Context, r feed.Record, err error) error {
			dead, deadErr = append(dead, r), err
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, 2*time.Minute, "39 records", func() bool { return col.len() >= 39 })
	cancel()
	<-done
	if len(dead) != 1 || dead[0].New["v"].(*types.AttributeValueMemberN).Value != "17" || !errors.Is(deadErr, errPoison) {
		t.Fatalf("dead letters %v (%v)", dead, deadErr)
	}
	var got []string
	for _, r := range col.seen {
		got = append(got, r.New["v"].(*types.AttributeValueMemberN).Value)
	}
	var want []string
	for i := 1; i <= 40; i++ {
		if i != 17 {
			want = append(want, strconv.Itoa(i))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("handled (-want +got):\n%s", diff)
	}
	m := c.Metrics()[0]
	t.Logf("handled %d, retried %d, dead-lettered %d", m.Handled, m.Retried, m.DeadLettered)
	if m.DeadLettered != 1 {
		t.Fatalf("metrics %+v", m)
	}
}

var errPoison = errors.New("poison")

// TestDrainHandsOver: a consumer whose Run ctx ends checkpoints and
// releases its lease, so that another consumer goes on at once (well
// within the lease duration) from the next record: no record twice, none
// lost.
func TestDrainHandsOver(t *testing.T) {
	tg := engineTarget()
	table := streamTable(t, tg.db, "feeddrain")
	leaseTbl := testenv.PKSKTable(t, tg.db, "feeddrainlease")
	seen := map[string]int{}
	var mu sync.Mutex
	h := func(ctx context.Context, b feed.Batch) error {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range b.Records {
			seen[r.Keys["PK"].(*types.AttributeValueMemberS).Value+"/"+r.New["v"].(*types.AttributeValueMemberN).Value]++
		}
		return nil
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
	mk := func(owner string) *feed.Consumer {
		c, err := feed.New(tg.streams, table, h, func(o *feed.Options) {
			o.Leases = leases(t, tg.db, leaseTbl, owner)
			o.PollInterval = time.Millisecond
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := mk("a")
	actx, stopA := context.WithCancel(context.Background())
	adone := make(chan error)
	go func() { adone <- a.Run(actx) }()
	putN(t, tg.db, table, "first", 300)
	waitFor(t, 10*time.Second, "300 records", func() bool { return count() >= 300 })
	stopA()
	if err := <-adone; err != nil {
		t.Fatal(err)
	}
	b := mk("b")
	bctx, stopB := context.WithCancel(context.Background())
	bdone := make(chan error)
	started := time.Now()
	go func() { bdone <- b.Run(bctx) }()
	putN(t, tg.db, table, "second", 300)
	waitFor(t, 10*time.Second, "600 records", func() bool { return count() >= 600 })
	took := time.Since(started)
	stopB()
	<-bdone
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s handled %d times", k, n)
		}
	}
	m := b.Metrics()[0]
	t.Logf("second consumer went on after %v (lease duration 2 s), takeovers %d, handled %d", took, m.Takeovers, m.Handled)
	if took > time.Second || m.Takeovers != 0 || m.Handled != 300 {
		t.Fatalf("handover: %v, metrics %+v", took, m)
	}
}

// TestDecode: a record of a registered Type comes as a typed change, one
// of another Type raw, and one whose image does not decode with
// DecodeErr matching feed.ErrDecode.
func TestDecode(t *testing.T) {
	tg := engineTarget()
	table := streamTable(t, tg.db, "feeddecode")
	put := func(item map[string]types.AttributeValue) {
		if _, err := tg.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	good := post{ID: "p1", CategoryID: "c1", Title: "t", Views: 3}
	item, err := good.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	put(item)
	put(map[string]types.AttributeValue{"PK": s("U#1"), "SK": s("A"), "Type": s("USER")})
	put(map[string]types.AttributeValue{"PK": s("CATEGORY#c1"), "SK": s("POST#p2"), "Type": s("POST"), "views": s("not a number")})
	col := &collector{}
	c, err := feed.New(tg.streams, table, col.handle, func(o *feed.Options) {
		o.Leases = leaseTable(t, tg.db)
		o.Decoders = []feed.Decoder{feed.Entity[post]()}
		o.PollInterval = time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, 10*time.Second, "3 records", func() bool { return col.len() >= 3 })
	cancel()
	<-done
	ch, ok := feed.As[post](&col.seen[0])
	if !ok || ch.Old != nil || ch.New == nil || ch.New.Views != 3 || col.seen[0].Event != feed.Insert {
		t.Fatalf("typed change: %+v %v", ch, ok)
	}
	if _, ok := feed.As[post](&col.seen[1]); ok || col.seen[1].Type != "USER" || col.seen[1].Change != nil {
		t.Fatalf("raw record: %+v", col.seen[1])
	}
	if r := col.seen[2]; r.Change != nil || !errors.Is(r.DecodeErr, feed.ErrDecode) {
		t.Fatalf("bad image: %+v", r)
	}
}

func TestNewInvalid(t *testing.T) {
	tg := engineTarget()
	h := func(context.Context, feed.Batch) error { return nil }
	ls := leaseTable(t, tg.db)
	for _, tc := range []struct {
		name  string
		s     feed.Streams
		table string
		h     feed.Handler
		opt   func(*feed.Options)
	}{
		{"no leases", tg.streams, "t", h, func(o *feed.Options) {}},
		{"no handler", tg.streams, "t", nil, func(o *feed.Options) { o.Leases = ls }},
		{"no streams client", nil, "t", h, func(o *feed.Options) { o.Leases = ls }},
		{"no table", tg.streams, "", h, func(o *feed.Options) { o.Leases = ls }},
		{"negative limit", tg.streams, "t", h, func(o *feed.Options) { o.Leases, o.Limit = ls, -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := feed.New(tc.s, tc.table, tc.h, tc.opt); !errors.Is(err, feed.ErrInvalidOptions) {
				t.Fatalf("got %v", err)
			}
		})
	}
	c, err := feed.New(tg.streams, "missing", h, func(o *feed.Options) { o.Leases = ls })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); !errors.Is(err, feed.ErrNoStream) {
		t.Fatalf("Run on a table without a stream: %v", err)
	}
}

// TestWaitsForWrites: on the engine's in-process Streams client, a
// drained shard waits for the table's next write (ddbmem's NextWrite)
// instead of sleeping PollInterval, so with an interval of an hour each
// write is still handled at once.
func TestWaitsForWrites(t *testing.T) {
	tg := engineTarget()
	table := streamTable(t, tg.db, "wait")
	leases := leaseTable(t, tg.db)
	col := &collector{}
	c, err := feed.New(tg.streams, table, col.handle, func(o *feed.Options) {
		o.Leases = leases
		fast(o)
		o.PollInterval = time.Hour
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, 30*time.Second, "the shard's worker", func() bool { return len(c.Metrics()) > 0 })
	for i := 1; i <= 5; i++ {
		putV(t, tg.db, table, "item", i)
		waitFor(t, 30*time.Second, fmt.Sprintf("record %d", i), func() bool { return col.len() >= i })
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
