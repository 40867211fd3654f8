package cachestore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/bench/benchent"
)

// A cached store over the embedded engine. Without a cache endpoint the
// cache is bypassed: every read goes to the table, and writes still work.
// With Addresses set, reads hit Valkey and writes keep it right.
func Example() {
	ctx := context.Background()
	tbl := entity.NewTable(ddbmem.New(), "posts")
	_ = tbl.EnsureTable(ctx)
	c, _ := cache.New(cache.Options{AppID: "blog", Env: "dev", Service: "ent"}) // no Addresses: bypass
	reg := cachestore.NewRegistry()
	byAuthor := reg.MustDeclare(cachestore.Derived{Name: "posts_by_author", Fields: []string{"authorId"},
		TTL: 3600e9, On: []string{"POST"}})
	posts, _ := cachestore.New(entity.NewStore[benchent.Post](tbl), c, func(o *cachestore.Options) { o.Registry = reg })

	p := benchent.Post{ID: "p1", CategoryID: "c1", AuthorID: "u1", Title: "hello"}
	_ = posts.Create(ctx, &p)
	k, _ := p.PrimaryKey()
	got, _ := posts.Get(ctx, k)
	fmt.Println(got.Title, got.Version, posts.CacheKey(k))
	_ = posts.Delete(ctx, k, entity.IfVersion(1))
	_, err := posts.Get(ctx, k)
	fmt.Println(errors.Is(err, entity.ErrNotFound), byAuthor.Key("u1"))
	// Output:
	// hello 1 ent:POST:CATEGORY#c1:POST#p1
	// true posts_by_author:u1
}
