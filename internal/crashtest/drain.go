package crashtest

import (
	"context"
	"time"
)

// Drain runs a process's consumer (run) for at most limit, until its
// queue is empty, the process died (in), or nothing visible is left to
// do for a few polls: every queued message is in flight elsewhere and
// the consumer handles none (the rest is hidden, such as the leftovers of
// a crash). state reports the queue's length, how many of its messages
// are in flight, and how many the consumer is handling. Drain returns
// after the consumer stopped.
func Drain(ctx context.Context, in *Injector, limit time.Duration, run func(context.Context) error, state func() (queued, inFlight, handling int)) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = run(ctx) }()
	idle := 0
	for ctx.Err() == nil && !in.Dead() {
		queued, inFlight, handling := state()
		if queued == 0 {
			break
		}
		if queued == inFlight && handling == 0 {
			if idle++; idle > 3 {
				break
			}
		} else {
			idle = 0
		}
		time.Sleep(2 * time.Millisecond)
	}
	cancel()
	<-done
}
