// Command codexsync is seed 001's Codex Syncer: a consumer of the Codex
// table's stream (package feed, NEW_AND_OLD_IMAGES) that keeps a post
// count per category and a "latest posts" item up to date on every Post
// change, once per record even when the feed delivers a record twice
// (see [Syncer]).
//
// It runs on the embedded engine (its Streams API in process). The
// example writes posts in three categories, deletes and retitles some,
// delivers every batch to the syncer twice (as a redelivery after a
// takeover would) and prints the counts and the latest posts.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/lease"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, ddbmem.New()); err != nil {
		fmt.Fprintln(os.Stderr, "codexsync:", err)
		os.Exit(1)
	}
}

// CreateStreamTable creates the Codex table with a NEW_AND_OLD_IMAGES
// stream (seed 001 §1: Streams enabled for the Codex Syncer).
func CreateStreamTable(ctx context.Context, tbl *entity.Table) error {
	in := tbl.CreateTableInput()
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	_, err := tbl.Client().CreateTable(ctx, in)
	return err
}

func run(ctx context.Context, w io.Writer, db *ddbmem.DB) error {
	tbl := codex.NewTable(db, "")
	if err := CreateStreamTable(ctx, tbl); err != nil {
		return err
	}
	if err := entity.NewTable(db, "CodexSyncLeases").EnsureTable(ctx); err != nil {
		return err
	}
	leases, err := lease.New(db, func(o *lease.Options) { o.Table = "CodexSyncLeases" })
	if err != nil {
		return err
	}
	y := &Syncer{C: db, Table: tbl.Name(), Latest: 3}
	var applied, dups atomic.Int64
	c, err := feed.New(db.Streams(), tbl.Name(), func(ctx context.Context, b feed.Batch) error {
		for range 2 { // every batch twice: the second changes nothing
			for i := range b.Records {
				ch, ok := feed.As[codex.Post](&b.Records[i])
				if !ok {
					continue
				}
				ok, err := y.Apply(ctx, &b.Records[i], ch)
				if err != nil {
					return err
				}
				if ok {
					applied.Add(1)
				} else {
					dups.Add(1)
				}
			}
		}
		return nil
	}, func(o *feed.Options) {
		o.Leases = leases
		o.Decoders = []feed.Decoder{feed.Entity[codex.Post]()}
		o.PollInterval = 5 * time.Millisecond
	})
	if err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	posts := entity.NewStore[codex.Post](tbl)
	base := time.Date(2025, 11, 14, 3, 0, 0, 0, time.UTC)
	var keys []entity.Key
	for i := range 9 {
		at := base.Add(time.Duration(i) * time.Minute)
		p := codex.Post{ID: codex.NewPostID(at), CategoryID: fmt.Sprintf("c%d", i%3+1), Title: fmt.Sprintf("post %d", i+1), CreatedAt: at}
		if err := posts.Create(ctx, &p); err != nil {
			return err
		}
		k, _ := p.PrimaryKey()
		keys = append(keys, k)
	}
	if err := posts.Delete(ctx, keys[8]); err != nil { // the newest post of c3
		return err
	}
	if err := posts.Delete(ctx, keys[0]); err != nil {
		return err
	}
	if _, err := posts.Update(ctx, keys[7], entity.Changes[codex.Post]{entity.Set(codex.PostTitle, "post 8 (edited)")}); err != nil {
		return err
	}
	const changes = 12 // 9 creates, 2 deletes, 1 update
	for applied.Load() < changes {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	stop()
	if err := <-done; err != nil {
		return err
	}
	fmt.Fprintf(w, "records applied %d, duplicate deliveries without effect %d\n", applied.Load(), dups.Load())
	for _, cat := range []string{"c1", "c2", "c3"} {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: key("CATEGORY#"+cat, "STATS")})
		if err != nil {
			return err
		}
		cnt := "0"
		if v, ok := out.Item["postCount"].(*types.AttributeValueMemberN); ok {
			cnt = v.Value
		}
		fmt.Fprintf(w, "category %s: %s posts\n", cat, cnt)
	}
	latest, _, err := y.latest(ctx)
	if err != nil {
		return err
	}
	var titles []string
	for _, e := range latest {
		titles = append(titles, e.Title+" ("+e.CategoryID+")")
	}
	fmt.Fprintf(w, "latest posts: %s\n", strings.Join(titles, ", "))
	return nil
}
