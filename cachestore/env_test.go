package cachestore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/bench/benchent"
	"github.com/tablekit/tablekit/internal/testenv"
)

type Post = benchent.Post

var (
	benchentTitle = benchent.PostTitle
	postViews     = benchent.PostViews
)

func newTable(t testing.TB) *entity.Table {
	t.Helper()
	tbl := entity.NewTable(testenv.Dynamo(t), testenv.UniqueName("cachestore"))
	return testenv.Table(t, tbl)
}

func newCache(t testing.TB, app string, addrs []string, cluster bool, optFns ...func(*cache.Options)) *cache.Cache {
	t.Helper()
	c, err := cache.New(cache.Options{AppID: app, Env: "test", Service: "ent", Addresses: addrs, Cluster: cluster,
		DisableTLS: true, RequestTimeout: time.Second, LoadTimeout: 5 * time.Second}, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// eachMode runs f against the shared standalone server and cluster.
func eachMode(t *testing.T, f func(t *testing.T, addrs []string, cluster bool)) {
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cluster" {
				f(t, testenv.ValkeyClusterAddrs(t), true)
			} else {
				f(t, []string{testenv.ValkeyAddr(t)}, false)
			}
		})
	}
}

// eachBackend runs f with caches on valkey-glide and on valkey-go.
func eachBackend(t *testing.T, f func(t *testing.T, be cache.Backend)) {
	for _, be := range []cache.Backend{cache.BackendGlide, cache.BackendValkeyGo} {
		t.Run(be.String(), func(t *testing.T) { f(t, be) })
	}
}

type counted struct {
	loads atomic.Int64
	delay atomic.Int64 // ns
}

func (c *counted) hook(o *cachestore.Options) {
	o.LoadHook = func(ctx context.Context, _ entity.Key) {
		c.loads.Add(1)
		if d := time.Duration(c.delay.Load()); d > 0 {
			time.Sleep(d)
		}
	}
}

func newStore(t testing.TB, tbl *entity.Table, c *cache.Cache, optFns ...func(*cachestore.Options)) *cachestore.Store[Post, *Post] {
	t.Helper()
	s, err := cachestore.New(entity.NewStore[Post](tbl), c, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func post(id string) Post {
	return Post{ID: id, CategoryID: "c1", AuthorID: "u1", Title: "t", Contents: "body"}
}

func key(t testing.TB, p Post) entity.Key {
	t.Helper()
	k, err := p.PrimaryKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
