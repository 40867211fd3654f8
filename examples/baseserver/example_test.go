package main

import (
	"context"
	"os"
)

// Without a server the cache runs in bypass mode: keys are still
// namespaced, loaders run on every read, nothing fails, and sessions, which
// cannot be bypassed, say so.
func Example_bypass() {
	if err := runBypass(context.Background(), os.Stdout, cfg{}.withDefaults()); err != nil {
		panic(err)
	}
	// Output:
	//
	// == cache without a server (bypass mode)
	// key namespace {app_id}:{env}:{service}:{key}:
	//   finance_app:dev:cache:user:profile:123
	//   finance_app:dev:session:abc123-def456
	//   finance_app:dev:mq:message:uuid-1234
	//   finance_app:dev:lock:scheduler:outbox_events
	//   a placeholder copied from the document is rejected: cache: invalid key: "user:profile:{user_id}" contains a brace (placeholders must be filled in; enable Options.HashTags for a cluster hash tag)
	// GetOrLoad user:profile:123 twice: the loader ran 2 times (nothing is cached)
	// Get user:profile:123: cache: miss (reads miss, writes do nothing, nothing fails)
	// sessions: session: the cache has no endpoint (sessions cannot be bypassed)
	// metrics: operations=2 bypassed=2 misses=3
	// health: healthy=true enabled=false (nothing depends on a server)
}
