package idpcache_test

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/entity/idp/idpcache"
)

// The list caches of seed 000. Without a cache endpoint (as here) the
// cache is bypassed and every call loads; with one, the second call is a
// hit until a write of a session of that user and project.
func Example() {
	ctx := context.Background()
	tbl := idp.NewTable(ddbmem.New(), "")
	_ = tbl.EnsureTable(ctx)
	c, _ := cache.New(cache.Options{AppID: "idp", Env: "dev", Service: "api"})
	s, _ := idpcache.New(tbl, c)
	loads := 0
	query := func(context.Context) ([]string, error) { loads++; return []string{"s1"}, nil }
	for i := 0; i < 2; i++ {
		_, _ = idpcache.SessionList(ctx, s, "u1", "p1", query)
	}
	_ = s.Sessions.Create(ctx, &idpcache.Session{UserID: "u1", ProjectID: "p1", SessionID: "s1"})
	fmt.Println(loads, s.Caches.Sessions.Key("u1", "p1"))
	// Output:
	// 2 session_list:u1:p1
}
