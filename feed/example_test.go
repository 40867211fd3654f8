package feed_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/lease"
)

// A consumer of the Codex table's stream on the embedded engine: posts
// come as typed changes (codex.Post, old and new images), other types raw.
func Example() {
	ctx := context.Background()
	db := ddbmem.New()
	tbl := codex.NewTable(db, "")
	in := tbl.CreateTableInput()
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	if _, err := db.CreateTable(ctx, in); err != nil {
		panic(err)
	}
	// leases live in another table: a checkpoint in the consumed table
	// would itself be a record
	leaseTbl := entity.NewTable(db, "FeedLeases")
	if err := leaseTbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	leases, err := lease.New(db, func(o *lease.Options) { o.Table = "FeedLeases" })
	if err != nil {
		panic(err)
	}

	posts := entity.NewStore[codex.Post](tbl)
	p := codex.Post{ID: "p001", CategoryID: "c001", Title: "Hello"}
	_ = posts.Create(ctx, &p)
	k, _ := p.PrimaryKey()
	_, _ = posts.Update(ctx, k, entity.Changes[codex.Post]{entity.Set(codex.PostTitle, "Hello, feed")})
	_ = entity.NewStore[codex.Category](tbl).Create(ctx, &codex.Category{ID: "c001", Title: "News"})
	_ = posts.Delete(ctx, k)

	seen := make(chan string, 10)
	c, err := feed.New(db.Streams(), tbl.Name(), func(ctx context.Context, b feed.Batch) error {
		for _, r := range b.Records {
			if ch, ok := feed.As[codex.Post](&r); ok {
				switch r.Event {
				case feed.Insert:
					seen <- fmt.Sprintf("post %s created: %q", ch.New.ID, ch.New.Title)
				case feed.Modify:
					seen <- fmt.Sprintf("post %s retitled: %q -> %q", ch.New.ID, ch.Old.Title, ch.New.Title)
				case feed.Remove:
					seen <- fmt.Sprintf("post %s deleted", ch.Old.ID)
				}
				continue
			}
			seen <- fmt.Sprintf("%s %s (raw, %d attributes)", r.Event, r.Type, len(r.New))
		}
		return nil
	}, func(o *feed.Options) {
		o.Leases = leases
		o.Decoders = []feed.Decoder{feed.Entity[codex.Post]()}
		o.PollInterval = 5 * time.Millisecond
	})
	if err != nil {
		panic(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- c.Run(runCtx) }()
	for range 4 {
		fmt.Println(<-seen)
	}
	stop() // drain: checkpoint and release the lease
	fmt.Println(<-done)
	m := c.Metrics()[0]
	fmt.Println("handled", m.Handled, "lag records", m.LagRecords)
	// Output:
	// post p001 created: "Hello"
	// post p001 retitled: "Hello" -> "Hello, feed"
	// INSERT Category (raw, 7 attributes)
	// post p001 deleted
	// <nil>
	// handled 4 lag records 0
}
