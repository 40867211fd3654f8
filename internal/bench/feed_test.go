package bench

import (
	"context"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/internal/bench/benchent"
	"github.com/tablekit/tablekit/lease"
)

// feedEngine returns an engine whose table "feed" has a
// NEW_AND_OLD_IMAGES stream in one shard holding at least records
// records, and a lease manager on its table "leases".
func feedEngine(b *testing.B, records int) (*ddbmem.DB, *lease.Manager) {
	db := ddbmem.New(func(o *ddbmem.Options) {
		o.Stream.ShardRecords = records + 10
		o.Stream.MaxRecords = records + 10
	})
	ctx := context.Background()
	in := entity.NewTable(db, "feed").CreateTableInput()
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	if _, err := db.CreateTable(ctx, in); err != nil {
		b.Fatal(err)
	}
	if err := entity.NewTable(db, "leases").EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	m, err := lease.New(db, func(o *lease.Options) { o.Table = "leases" })
	if err != nil {
		b.Fatal(err)
	}
	return db, m
}

// feedItem is a benchent.Post item (decoded by the consumer into a
// feed.Change[benchent.Post]) with sequence number n.
func feedItem(b *testing.B, n int) map[string]types.AttributeValue {
	p := benchent.Post{ID: "p" + strconv.Itoa(n%1000), CategoryID: "c1", AuthorID: "u1", Title: "title", Contents: "body",
		Views: int64(n), Version: 1, CreatedAt: time.Unix(1700000000, 0), UpdatedAt: time.Unix(1700000000, 0)}
	m, err := p.MarshalItem()
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func feedPut(b *testing.B, db *ddbmem.DB, item map[string]types.AttributeValue) {
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("feed"), Item: item}); err != nil {
		b.Fatal(err)
	}
}

// feedRun is a consumer of the engine's table "feed" that hands each
// decoded post to onPost and reports, through the returned wait, when
// b.N records were handled; start runs it, wait waits for the records
// and stops it.
func feedRun(b *testing.B, db *ddbmem.DB, leases *lease.Manager, onPost func(now int64, p *benchent.Post)) (start, wait func()) {
	var handled atomic.Int64
	done := make(chan struct{})
	c, err := feed.New(db.Streams(), "feed", func(ctx context.Context, bt feed.Batch) error {
		now := time.Now().UnixNano()
		for _, r := range bt.Records {
			ch, ok := feed.As[benchent.Post](&r)
			if !ok {
				b.Error("record not decoded")
				continue
			}
			onPost(now, ch.New)
		}
		if handled.Add(int64(len(bt.Records))) == int64(b.N) {
			close(done)
		}
		return nil
	}, func(o *feed.Options) {
		o.Leases = leases
		o.PollInterval = time.Millisecond
		o.Decoders = []feed.Decoder{feed.Entity[benchent.Post]()}
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := make(chan error)
	var cpu0 time.Duration
	start = func() {
		cpu0 = cpuTime()
		go func() { run <- c.Run(ctx) }()
	}
	wait = func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			b.Fatalf("handled %d of %d", handled.Load(), b.N)
		}
		b.StopTimer()
		// the process's CPU time per record: on a shared, loaded machine
		// the figure that wall time cannot give
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		cancel()
		<-run
	}
	return start, wait
}

// BenchmarkFeed measures package feed on the engine's in-process Streams.
//
// Latency: a writer puts b.N items at 5,000 writes/s; the handler notes
// the time from each write's acknowledgement (PutItem returned) to the
// handler call, reported as p50-ns and p99-ns (goal p99 ≤ 5 ms). The
// consumer's PollInterval is a millisecond; on the engine's in-process
// Streams client a drained shard also wakes at the table's next write
// (ddbmem's NextWrite).
//
// Throughput: b.N records are in one shard before the timer starts; one
// iteration is one record read, converted, decoded into a
// feed.Change[benchent.Post], handled and checkpointed (a checkpoint per
// batch of 1,000). Goal ≥ 50,000 records/s (≤ 20 µs/op).
//
// Both report cpu-ns/op, the process's CPU time (user and system, all
// goroutines, the engine's side included) per record. Latency's includes
// the writer's.
func BenchmarkFeed(b *testing.B) {
	b.Run("Latency", func(b *testing.B) {
		db, leases := feedEngine(b, b.N)
		acks := make([]atomic.Int64, b.N)
		lat := make([]int64, 0, b.N)
		start, wait := feedRun(b, db, leases, func(now int64, p *benchent.Post) {
			if a := acks[p.Views].Load(); a != 0 {
				lat = append(lat, now-a)
			} else {
				lat = append(lat, 0) // handled before the writer saw its ack
			}
		})
		items := make([]map[string]types.AttributeValue, b.N)
		for i := range items {
			items[i] = feedItem(b, i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		start()
		const every = 200 * time.Microsecond // 5,000 writes/s
		t0 := time.Now()
		for i := range b.N {
			if d := time.Until(t0.Add(time.Duration(i) * every)); d > 0 {
				time.Sleep(d)
			}
			feedPut(b, db, items[i])
			acks[i].Store(time.Now().UnixNano())
		}
		wait()
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
		b.ReportMetric(float64(lat[min(len(lat)*99/100, len(lat)-1)]), "p99-ns")
	})
	b.Run("Throughput", func(b *testing.B) {
		db, leases := feedEngine(b, b.N)
		for i := range b.N {
			feedPut(b, db, feedItem(b, i))
		}
		start, wait := feedRun(b, db, leases, func(int64, *benchent.Post) {})
		b.ReportAllocs()
		b.ResetTimer()
		start()
		wait()
	})
}
