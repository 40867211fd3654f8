package cache_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/cache"
)

// With no endpoint configured the cache is bypassed: the loader runs on
// every call and nothing fails (seed 000). With Addresses set, the same
// code caches in Valkey.
func Example() {
	c, err := cache.New(cache.Options{AppID: "finance_app", Env: "dev", Service: "api"})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	ctx := context.Background()

	full, _ := c.Key(cache.Join("session_list", "u1", "p1"))
	fmt.Println(full)
	fmt.Println(cache.Join("session_list", "a:b", "c"), cache.Join("session_list", "a", "b:c"))

	projects, err := cache.GetOrLoad(ctx, c, "query_projects", time.Hour, func(context.Context) ([]string, error) {
		return []string{"alpha", "beta"}, nil
	})
	fmt.Println(projects, err)

	_, err = c.Key("user:{user_id}")
	fmt.Println(errors.Is(err, cache.ErrInvalidKey))

	m := c.Metrics()
	fmt.Println(m.Total, m.Misses, m.Bypassed)
	// Output:
	// finance_app:dev:api:session_list:u1:p1
	// session_list:a%3Ab:c session_list:a:b%3Ac
	// [alpha beta] <nil>
	// true
	// 1 1 1
}
