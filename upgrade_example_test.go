package tablekit_test

// The upgrade guide from v0.1.0: each change of v0.2.0 that breaks a call,
// the old spelling beside the new one (CHANGELOG.md has the whole list).

import (
	"context"
	"fmt"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	cx "github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/query/codex"
	"github.com/tablekit/tablekit/retry"
)

// Retry strategies moved to package retry. The v0.1.0 spelling still
// compiles for one more version, marked Deprecated.
func Example_upgradeRetry() {
	// v0.1.0:
	//lint:ignore SA1019 the upgrade guide calls the old spelling on purpose
	old := lock.Options{Retry: lock.ExponentialBackoff(10*time.Millisecond, time.Second)}
	// v0.2.0 and later:
	now := lock.Options{Retry: retry.Exponential(10*time.Millisecond, time.Second)}

	for _, o := range []lock.Options{old, now} {
		wait, ok := o.Retry.Backoff(1) // first retry: in [5ms, 10ms]
		fmt.Println(ok, wait >= 5*time.Millisecond && wait <= 10*time.Millisecond)
	}
	// Output:
	// true true
	// true true
}

// The paging options of every domain list function are one type,
// query.PageOptions. The per-package Opts types are gone: their fields
// differ (OldestFirst, NewestFirst), so an alias could not keep old code
// compiling.
func Example_upgradePageOptions() {
	ctx := context.Background()
	tbl := cx.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	posts := entity.NewStore[cx.Post](tbl)
	day := time.Date(2025, 11, 12, 0, 0, 0, 0, time.UTC)
	for i, title := range []string{"first", "second", "third"} {
		created := day.Add(time.Duration(i) * time.Hour)
		p := cx.Post{ID: cx.NewPostID(created), CategoryID: "c001", Title: title, CreatedAt: created}
		if err := posts.Create(ctx, &p); err != nil {
			panic(err)
		}
	}

	// v0.1.0:
	//   codex.PostsOfCategory(ctx, tbl, "c001", codex.Opts{Limit: 2, OldestFirst: true})
	// v0.2.0 and later:
	page, err := codex.PostsOfCategory(ctx, tbl, "c001", query.PageOptions{Limit: 2, Reverse: true})
	if err != nil {
		panic(err)
	}
	for _, p := range page.Items {
		fmt.Println(p.Title)
	}
	// v0.1.0 (query/participation):
	//   participation.MyParticipations(ctx, tbl, userID, after)
	// v0.2.0 and later:
	//   participation.MyParticipations(ctx, tbl, userID, query.PageOptions{After: after})

	// Output:
	// first
	// second
}

// valkeylock.New takes any cache connection (glide standalone or cluster,
// or valkey-go) instead of glide's client. Go has no overloading, so the old
// call cannot be kept: wrap the client.
func Example_upgradeValkeyLock() {
	var c *glide.Client // your client, from glide.NewClient

	// v0.1.0:
	//   backend, err := valkeylock.New(c)
	// v0.2.0 and later:
	backend, err := valkeylock.New(cache.NewGlideConn(c))
	fmt.Println(backend != nil, err)
	// Output:
	// true <nil>
}
