package cache_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// The valkey-go backend with a near cache for hot keys, and one
// connection shared with the lock. Nothing listens on the address here, so
// the read fails open to the loader, as it would while a server is down.
func ExampleNearOptions() {
	opts := cache.Options{AppID: "finance_app", Env: "dev", Service: "api",
		Addresses: []string{"127.0.0.1:1"}, DisableTLS: true, RequestTimeout: 50 * time.Millisecond,
		Backend: cache.BackendValkeyGo,
		Near:    &cache.NearOptions{MaxEntries: 10_000, MaxBytes: 32 << 20, TTL: time.Minute}}
	c, err := cache.New(opts)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	v, err := cache.GetOrLoad(context.Background(), c, "config:flags", time.Minute,
		func(context.Context) (string, error) { return "from the store", nil })
	fmt.Println(v, err)
	// A read ordered after every write acknowledged before it, in any
	// process: a near hit then costs one small round trip.
	_, err = c.GetSynced(context.Background(), "config:flags")
	fmt.Println(errors.Is(err, cache.ErrUnavailable))

	conn, err := cache.DialValkeyGo(cache.ValkeyGoOptions{Addresses: opts.Addresses, DisableTLS: true})
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	b, err := valkeylock.New(conn, func(o *valkeylock.Options) { o.Prefix = "finance_app:dev" })
	if err != nil {
		panic(err)
	}
	_ = lock.New(b)

	// The near cache needs valkey-go: glide delivers no invalidations.
	opts.Backend = cache.BackendGlide
	_, err = cache.New(opts)
	fmt.Println(errors.Is(err, cache.ErrInvalidOptions))
	// Output:
	// from the store <nil>
	// true
	// true
}
