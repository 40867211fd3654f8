package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/lease"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, ddbmem.New()); err != nil {
		t.Fatal(err)
	}
	want := `records applied 12, duplicate deliveries without effect 12
category c1: 2 posts
category c2: 3 posts
category c3: 2 posts
latest posts: post 8 (edited) (c2), post 7 (c1), post 6 (c3)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Fatalf("output (-want +got):\n%s", diff)
	}
}

// TestWholeStreamTwice: 200 post changes are synced by one consumer
// group, then the whole stream is delivered again by a second group (a
// fresh checkpoint, from TRIM_HORIZON, as after a lost checkpoint
// table): the counts and the latest list do not move.
func TestWholeStreamTwice(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	tbl := codex.NewTable(db, "")
	if err := CreateStreamTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := entity.NewTable(db, "Leases").EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	y := &Syncer{C: db, Table: tbl.Name(), Latest: 5}
	sync := func(group string, want int64) {
		leases, err := lease.New(db, func(o *lease.Options) { o.Table = "Leases" })
		if err != nil {
			t.Fatal(err)
		}
		c, err := feed.New(db.Streams(), tbl.Name(), y.Handle, func(o *feed.Options) {
			o.Leases, o.Group, o.PollInterval = leases, group, time.Millisecond
			o.Decoders = []feed.Decoder{feed.Entity[codex.Post]()}
		})
		if err != nil {
			t.Fatal(err)
		}
		rctx, stop := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- c.Run(rctx) }()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var handled int64
			for _, m := range c.Metrics() {
				handled += m.Total
			}
			if handled >= want || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		stop()
		<-done
	}
	posts := entity.NewStore[codex.Post](tbl)
	counts := map[string]int{}
	for i := range 150 {
		p := codex.Post{ID: codex.NewID(), CategoryID: fmt.Sprintf("c%d", i%4), Title: fmt.Sprint(i)}
		if err := posts.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		counts[p.CategoryID]++
		if i%3 == 0 {
			k, _ := p.PrimaryKey()
			if err := posts.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
			counts[p.CategoryID]--
		}
	}
	// the stream also holds the syncer's own writes; wait for the posts'
	// 200 records at least
	sync("first", 200)
	snap := func() (map[string]string, []entry) {
		got := map[string]string{}
		for c := range counts {
			out := testGet(t, db, tbl.Name(), "CATEGORY#"+c, "STATS")
			got[c] = out
		}
		l, _, err := y.latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got, l
	}
	c1, l1 := snap()
	for c, n := range counts {
		if c1[c] != fmt.Sprint(n) {
			t.Fatalf("category %s: count %s, want %d", c, c1[c], n)
		}
	}
	sync("second", 200)
	c2, l2 := snap()
	if diff := cmp.Diff(c1, c2); diff != "" {
		t.Fatalf("counts moved on redelivery (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(l1, l2); diff != "" {
		t.Fatalf("latest moved on redelivery:\n%s", diff)
	}
	t.Logf("counts %v, latest %d posts, unchanged after the whole stream was delivered again", c1, len(l1))
}

func testGet(t *testing.T, db *ddbmem.DB, table, pk, sk string) string {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(pk, sk)})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := out.Item["postCount"].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return "0"
}
