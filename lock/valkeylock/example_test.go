package valkeylock_test

import (
	"fmt"

	glide "github.com/valkey-io/valkey-glide/go/v2"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// The keys of the seed 002 namespace. In a program, wrap your connected
// client in a cache.Conn (cache.NewGlideConn, cache.NewGlideClusterConn,
// cache.NewValkeyGoConn or cache.DialValkeyGo) and hand the backend to
// lock.New.
func Example() {
	var client *glide.Client // your connected client
	b, err := valkeylock.New(cache.NewGlideConn(client), func(o *valkeylock.Options) { o.Prefix = "finance_app:test" })
	if err != nil {
		panic(err)
	}
	fence, _ := b.FenceKey("scheduler:outbox_events")
	fmt.Println(b.Key("scheduler:outbox_events"))
	fmt.Println(fence)
	// Output:
	// finance_app:test:lock:scheduler:outbox_events
	// {finance_app:test:lock:scheduler:outbox_events}:fence
}
