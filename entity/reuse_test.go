package entity_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
)

// recordingClient keeps every PutItem input it forwards, as a test double
// or a logging wrapper may: it is no InputCopier, so the store must not
// reuse the maps it sent through it.
type recordingClient struct {
	entity.Client
	mu   sync.Mutex
	puts []*dynamodb.PutItemInput
}

func (c *recordingClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.mu.Lock()
	c.puts = append(c.puts, in)
	c.mu.Unlock()
	return c.Client.PutItem(ctx, in, optFns...)
}

func reusePost(g, i int) codex.Post {
	p := codex.Post{ID: fmt.Sprintf("p%02d-%04d", g, i), CategoryID: fmt.Sprintf("c%d", g), Title: fmt.Sprintf("title %d/%d", g, i)}
	if i%2 == 0 {
		p.Contents = "본문 " + p.ID // an optional attribute, present every other item
	}
	if i%3 == 0 {
		p.AuthorID = "a" + p.ID
	}
	return p
}

// TestPutReusesItemMaps writes from many goroutines through the engine
// (an InputCopier: the store reuses its item maps) and checks that every
// item reads back as written, with no attribute of another item.
func TestPutReusesItemMaps(t *testing.T) {
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := reusePost(g, i)
				if err := posts.Put(ctx, &p); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := 0
	for g := range goroutines {
		for i := range each {
			want := reusePost(g, i)
			key, err := codex.PostKey(want.CategoryID, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := posts.Get(ctx, key)
			if err != nil {
				t.Fatalf("get %s: %v", want.ID, err)
			}
			got.CreatedAt, got.UpdatedAt = time.Time{}, time.Time{}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s (-want +got):\n%s", want.ID, d)
			}
			n++
		}
	}
	t.Logf("%d items written by %d goroutines read back intact", n, goroutines)
}

// TestPutKeepsMapsOfOtherClients checks that a client which is no
// InputCopier keeps the maps it was given: each recorded input still
// holds its own item after later Puts.
func TestPutKeepsMapsOfOtherClients(t *testing.T) {
	ctx := context.Background()
	rc := &recordingClient{Client: ddbmem.New()}
	tbl := codex.NewTable(rc, "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	for i := range 50 {
		p := reusePost(0, i)
		if err := posts.Put(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	if len(rc.puts) != 50 {
		t.Fatalf("%d puts recorded, want 50", len(rc.puts))
	}
	for i, in := range rc.puts {
		id, _ := in.Item["id"].(*types.AttributeValueMemberS)
		if id == nil || id.Value != reusePost(0, i).ID {
			t.Fatalf("recorded put %d holds id %v, want %s", i, in.Item["id"], reusePost(0, i).ID)
		}
	}
}

// TestPutRefreshesAsRead: a Put leaves the caller's value as a Get of the
// item returns it (times at the stored precision, in UTC), through the
// codec's RefreshItem, which decodes only the timestamps of a Post.
func TestPutRefreshesAsRead(t *testing.T) {
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	posts := entity.NewStore[codex.Post](tbl)
	if !posts.Refreshes() {
		t.Fatal("a Post store does not refresh with RefreshItem")
	}
	created := time.Date(2026, 11, 26, 23, 1, 6, 987654321, time.FixedZone("KST", 9*3600))
	for _, p := range []codex.Post{
		{ID: codex.NewID(), CategoryID: "c1", Title: "t", AuthorID: "a", Contents: "x", CreatedAt: created},
		{ID: codex.NewID(), CategoryID: "c1", Title: "t"},
	} {
		if err := posts.Put(ctx, &p); err != nil {
			t.Fatal(err)
		}
		key, err := codex.PostKey(p.CategoryID, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := posts.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, p); diff != "" {
			t.Errorf("value after Put differs from the item read (-read +put):\n%s", diff)
		}
	}
}
