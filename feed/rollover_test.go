package feed_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/feed"
)

// TestForcedRollover: two shards, both split in two (the engine's forced
// rollover) in the middle of 4,000 writes over 40 items, then each
// rolled over into one child (10 shards in all). No record is lost, every item's records are handled in
// order across parent and child shards (so parents were finished first),
// and the children start at once after their parent ends although the
// periodic discovery runs only every 10 s.
func TestForcedRollover(t *testing.T) {
	tg := engineTarget(func(o *ddbmem.Options) { o.Stream.Shards = 2 })
	db := tg.db.(*ddbmem.DB)
	table := streamTable(t, tg.db, "feedroll")
	type handled struct {
		shard string
		v     int
	}
	var mu sync.Mutex
	byItem := map[string][]handled{}
	firstAt, lastAt := map[string]time.Time{}, map[string]time.Time{}
	c, err := feed.New(tg.streams, table, func(ctx context.Context, b feed.Batch) error {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := firstAt[b.Shard]; !ok {
			firstAt[b.Shard] = time.Now()
		}
		lastAt[b.Shard] = time.Now()
		for _, r := range b.Records {
			v, _ := strconv.Atoi(r.New["v"].(*types.AttributeValueMemberN).Value)
			pk := r.Keys["PK"].(*types.AttributeValueMemberS).Value
			byItem[pk] = append(byItem[pk], handled{b.Shard, v})
		}
		return nil
	}, func(o *feed.Options) {
		o.Leases = leaseTable(t, tg.db)
		o.PollInterval = time.Millisecond
		o.DiscoverInterval = 10 * time.Second
		o.Limit = 100
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	const writes, items = 4_000, 40
	versions := map[string]int{}
	for n := range writes {
		if n == writes/2 {
			if err := db.RolloverStream(table, true); err != nil {
				t.Fatal(err)
			}
		}
		if n == 3*writes/4 {
			if err := db.RolloverStream(table, false); err != nil {
				t.Fatal(err)
			}
		}
		pk := fmt.Sprintf("item%02d", n%items)
		versions[pk]++
		putV(t, tg.db, table, pk, versions[pk])
	}
	waitFor(t, 30*time.Second, "every record", func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, h := range byItem {
			n += len(h)
		}
		return n >= writes
	})
	cancel()
	<-done
	ms := c.Metrics()
	parents := map[string]string{}
	for _, m := range ms {
		parents[m.Shard] = m.Parent
	}
	total, disorder := 0, 0
	for pk, hs := range byItem {
		total += len(hs)
		for i, h := range hs {
			if h.v != i+1 {
				disorder++
				if disorder < 5 {
					t.Errorf("%s: record %d handled as the %d-th (shard %s)", pk, h.v, i+1, h.shard)
				}
			}
		}
	}
	ended := 0
	for _, m := range ms {
		if m.Ended {
			ended++
		}
	}
	// children started right after their parent's last batch (periodic
	// discovery is every 10 s)
	var slowest time.Duration
	for shard, p := range parents {
		if p == "" {
			continue
		}
		if at, ok := firstAt[shard]; ok {
			slowest = max(slowest, at.Sub(lastAt[p]))
		}
	}
	t.Logf("records %d of %d, out of per-item order %d, shards %d (ended %d), slowest child start after its parent's last batch %v",
		total, writes, disorder, len(ms), ended, slowest)
	if total != writes || len(ms) != 10 || ended != 6 {
		t.Fatalf("want %d records in 10 shards (2, split in 4, rolled over), 6 ended; metrics %+v", writes, ms)
	}
	if slowest > 2*time.Second {
		t.Fatalf("a child started %v after its parent's last batch", slowest)
	}
}
