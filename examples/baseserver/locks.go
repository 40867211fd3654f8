package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/retry"
)

// The lock scenarios of seed 002's table: the key and TTL of each
// scheduler job that must run on one server at a time.
var (
	// outboxEvents guards outbox event processing against duplicates.
	outboxEvents = lock.Preset{Key: "scheduler:outbox_events", TTL: 300 * time.Second}
	// createTable guards table creation against concurrent creation.
	createTable = lock.Preset{Key: "scheduler:create_table", TTL: 60 * time.Second}
	// cleanupQueues guards queue cleanup against duplicate runs.
	cleanupQueues = lock.Preset{Key: "scheduler:cleanup_queues", TTL: 3600 * time.Second}
	// monthlySummary guards the monthly aggregation against duplicates.
	monthlySummary = lock.Preset{Key: "scheduler:monthly_summary", TTL: 1800 * time.Second}
)

// presets returns the scenarios of seed 002 in the order of its table.
func presets() []lock.Preset {
	return []lock.Preset{outboxEvents, createTable, cleanupQueues, monthlySummary}
}

// locks runs the lock manager demo: each preset of the seed's table as a
// scheduler job under WithLock on two competing servers (one on lk, one on
// lk2), then a shutdown with ForceReleaseAll. describe tells where the lock
// lives.
func locks(ctx context.Context, w io.Writer, lk, lk2 *lock.Locker, describe func(context.Context, string) string) error {
	// Each "server" has its own manager. A scheduler tick that finds the job
	// running elsewhere skips it rather than waiting: one attempt, no retry.
	// (A Manager's default is to wait up to DefaultManagerTimeout.)
	noWait := func(o *lock.Options) { o.Retry = retry.Never() }
	servers := []*lock.Manager{lock.NewManager(lk, noWait), lock.NewManager(lk2, noWait)}
	defer func() {
		// Whatever happens (an error, Ctrl-C), a server going down frees its
		// locks so the others need not wait out the TTLs. A fresh ctx: the
		// run's ctx may be what ended.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, m := range servers {
			_ = m.ForceReleaseAll(sctx)
		}
	}()
	for _, p := range presets() {
		var (
			mu      sync.Mutex
			ran     []string
			skipped []string
			notes   []string
		)
		// The job lasts until every server has tried, so the demo shows the
		// exclusion deterministically; a real job takes as long as it takes.
		var tried sync.WaitGroup
		tried.Add(len(servers))
		var done sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, len(servers))
		for i, m := range servers {
			name := fmt.Sprintf("server-%d", i+1)
			done.Add(1)
			go func() {
				defer done.Done()
				<-start
				triedOnce := sync.OnceFunc(tried.Done)
				defer triedOnce()
				err := m.WithLock(ctx, p.Key, p.TTL, func(ctx context.Context, l *lock.Lock) error {
					triedOnce()
					locked, err := m.IsLocked(ctx, p.Key)
					if err != nil {
						return err
					}
					mu.Lock()
					ran = append(ran, fmt.Sprintf("%s (fence %d)", name, l.Fence()))
					notes = append(notes, fmt.Sprintf("IsLocked=%t held=%v %s", locked, m.Held(), describe(ctx, p.Key)))
					mu.Unlock()
					waitOrTimeout(&tried, 5*time.Second)
					return nil // the job: process_pending_outbox_events() etc.
				})
				switch {
				case errors.Is(err, lock.ErrNotObtained):
					mu.Lock()
					skipped = append(skipped, name)
					mu.Unlock()
				case err != nil:
					errs[i] = fmt.Errorf("%s %s: %w", name, p.Key, err)
				}
			}()
		}
		close(start)
		done.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		locked, err := lk.IsLocked(ctx, p.Key)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s (TTL %s): %d server ran the job %v, %d skipped %v (lock: not obtained); IsLocked after: %t\n",
			p.Key, p.TTL, len(ran), ran, len(skipped), skipped, locked)
		for _, n := range notes {
			fmt.Fprintf(w, "  while running: %s\n", n)
		}
	}

	// Shutdown while long jobs hold their locks: ForceReleaseAll frees what
	// this server holds (comparing tokens, so never another server's lock).
	m := servers[0]
	for _, p := range []lock.Preset{cleanupQueues, monthlySummary} {
		if _, err := m.Obtain(ctx, p.Key, p.TTL); err != nil {
			return err
		}
	}
	before, err := lk.IsLocked(ctx, cleanupQueues.Key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "shutdown: active locks %v (IsLocked %s=%t)\n", m.Held(), cleanupQueues.Key, before)
	if err := m.ForceReleaseAll(ctx); err != nil {
		return err
	}
	after, err := lk.IsLocked(ctx, cleanupQueues.Key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ForceReleaseAll: active locks %v (IsLocked %s=%t)\n", m.Held(), cleanupQueues.Key, after)
	return nil
}

func waitOrTimeout(wg *sync.WaitGroup, d time.Duration) {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(d):
	}
}
