package lease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lease"
)

// targets runs f on the embedded engine and on DynamoDB Local.
func targets(t *testing.T, f func(t *testing.T, c entity.Client, table string)) {
	t.Run("engine", func(t *testing.T) {
		t.Parallel()
		c := ddbmem.New()
		f(t, c, testenv.PKSKTable(t, c, "lease"))
	})
	t.Run("dynamodb-local", func(t *testing.T) {
		t.Parallel()
		c := testenv.DynamoDB(t)
		f(t, c, testenv.PKSKTable(t, c, "lease"))
	})
}

func manager(t *testing.T, c entity.Client, table, owner string, d time.Duration, optFns ...func(*lease.Options)) *lease.Manager {
	t.Helper()
	m, err := lease.New(c, append([]func(*lease.Options){func(o *lease.Options) {
		o.Table, o.Owner, o.Duration = table, owner, d
	}}, optFns...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestTakeoverAtCheckpoint: a holder that dies (stops renewing) is taken
// over one lease later; the new holder starts at the dead one's last
// checkpoint with a greater fence, and the dead holder's late checkpoint
// is refused with a LostError naming the new owner.
func TestTakeoverAtCheckpoint(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client, table string) {
		ctx := ctxT(t, 2*time.Minute)
		const d = 600 * time.Millisecond
		a := manager(t, c, table, "a", d, func(o *lease.Options) { o.Heartbeat = time.Hour }) // a never renews by itself
		b := manager(t, c, table, "b", d)
		if err := a.Create(ctx, "job", "seg-0", "seg-1"); err != nil {
			t.Fatal(err)
		}
		la, err := a.Acquire(ctx, "job", "seg-0")
		if err != nil {
			t.Fatal(err)
		}
		if err := la.Checkpoint(ctx, lease.Checkpoint{Position: "p1", Counts: map[string]int64{"scanned": 10}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Acquire(ctx, "job", "seg-0"); !errors.Is(err, lease.ErrHeld) {
			t.Fatalf("acquire of a live lease = %v, want ErrHeld", err)
		}
		// a is "dead": no renewals. b watches one lease duration, then takes over.
		var lb *lease.Lease
		deadline := time.Now().Add(10 * d)
		for lb == nil {
			if time.Now().After(deadline) {
				t.Fatal("no takeover")
			}
			time.Sleep(d / 4)
			lb, err = b.Next(ctx, "job")
			if err != nil && !errors.Is(err, lease.ErrNoneFree) {
				t.Fatal(err)
			}
			if lb != nil && lb.Name() != "seg-0" { // seg-1 is free: take it, then look again
				defer lb.Release(ctx)
				lb = nil
			}
		}
		defer lb.Release(ctx)
		if lb.Fence() <= la.Fence() {
			t.Fatalf("fence %d after %d", lb.Fence(), la.Fence())
		}
		if got := lb.Start(); got.Position != "p1" || got.Counts["scanned"] != 10 {
			t.Fatalf("start = %+v", got)
		}
		err = la.Checkpoint(ctx, lease.Checkpoint{Position: "late"})
		var le *lease.LostError
		if !errors.As(err, &le) || !errors.Is(err, lease.ErrLost) || !errors.Is(err, entity.ErrConditionFailed) || le.CurrentOwner != "b" || le.CurrentFence != lb.Fence() {
			t.Fatalf("stale checkpoint = %v", err)
		}
		select {
		case <-la.Lost():
		default:
			t.Fatal("Lost not closed")
		}
		ls, err := b.List(ctx, "job")
		if err != nil {
			t.Fatal(err)
		}
		if ls[0].Owner != "b" || ls[0].Position != "p1" {
			t.Fatalf("list = %+v", ls)
		}
	})
}

// TestRaceExactlyOneHolder: 32 goroutines (each its own Manager) race for
// one lease; exactly one holds it, and after each release exactly one
// more does, each with a greater fence.
func TestRaceExactlyOneHolder(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client, table string) {
		ctx := ctxT(t, 3*time.Minute)
		workers, rounds := 32, 5
		if strings.Contains(t.Name(), "dynamodb-local") {
			workers = 8 // a shared DynamoDB Local answers slowly; the claim is the same
		}
		var holders, maxHolders, acquired atomic.Int64
		var mu sync.Mutex
		var fences []int64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			m := manager(t, c, table, fmt.Sprint("w", w), 10*time.Second)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for acquired.Load() < int64(rounds) {
					l, err := m.Acquire(ctx, "race", "one")
					if errors.Is(err, lease.ErrHeld) {
						time.Sleep(5 * time.Millisecond)
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					h := holders.Add(1)
					for {
						mx := maxHolders.Load()
						if h <= mx || maxHolders.CompareAndSwap(mx, h) {
							break
						}
					}
					mu.Lock()
					fences = append(fences, l.Fence())
					mu.Unlock()
					if err := l.Checkpoint(ctx, lease.Checkpoint{Position: fmt.Sprint(l.Fence())}); err != nil {
						t.Error(err)
					}
					time.Sleep(5 * time.Millisecond)
					holders.Add(-1)
					acquired.Add(1)
					if err := l.Release(ctx); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if maxHolders.Load() != 1 {
			t.Fatalf("max simultaneous holders %d", maxHolders.Load())
		}
		for i := 1; i < len(fences); i++ {
			if fences[i] <= fences[i-1] {
				t.Fatalf("fences not increasing: %v", fences)
			}
		}
		t.Logf("%d acquisitions by %d racing workers, fences %v", len(fences), workers, fences)
	})
}

// TestFinishAndRelease: a finished lease is never acquired again; a
// released one is, at its checkpoint; writes after release are refused.
func TestFinishAndRelease(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client, table string) {
		ctx := ctxT(t, 2*time.Minute)
		m := manager(t, c, table, "a", 5*time.Second)
		l, err := m.Acquire(ctx, "g", "x")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Checkpoint(ctx, lease.Checkpoint{Position: "half"}); err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.Checkpoint(ctx, lease.Checkpoint{}); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("checkpoint after release = %v", err)
		}
		l2, err := m.Acquire(ctx, "g", "x")
		if err != nil {
			t.Fatal(err)
		}
		if l2.Start().Position != "half" || l2.Fence() != l.Fence()+1 {
			t.Fatalf("reacquired at %+v fence %d", l2.Start(), l2.Fence())
		}
		if err := l2.Finish(ctx, lease.Checkpoint{Position: "end", Counts: map[string]int64{"n": 3}}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Acquire(ctx, "g", "x"); !errors.Is(err, lease.ErrDone) {
			t.Fatalf("acquire of a done lease = %v", err)
		}
		if _, err := m.Next(ctx, "g"); !errors.Is(err, lease.ErrNoneFree) {
			t.Fatalf("next = %v", err)
		}
		done, err := m.AllDone(ctx, "g")
		if err != nil || !done {
			t.Fatalf("AllDone = %v, %v", done, err)
		}
	})
}

// TestHeartbeatKeepsLease: a renewing holder is never taken over.
func TestHeartbeatKeepsLease(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client, table string) {
		ctx := ctxT(t, 2*time.Minute)
		d := time.Second
		if strings.Contains(t.Name(), "dynamodb-local") {
			d = 5 * time.Second
		}
		a := manager(t, c, table, "a", d)
		b := manager(t, c, table, "b", d)
		la, err := a.Acquire(ctx, "hb", "x")
		if err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(4 * d); time.Now().Before(end); time.Sleep(d / 8) {
			if _, err := b.Acquire(ctx, "hb", "x"); !errors.Is(err, lease.ErrHeld) {
				t.Fatalf("takeover of a renewing holder: %v", err)
			}
		}
		if !la.Valid() {
			t.Fatal("holder's lease not valid")
		}
		if err := la.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFastTakeover: in FastTakeover mode a lease is stale once its
// expiresAt plus the skew margin has passed.
func TestFastTakeover(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client, table string) {
		ctx := ctxT(t, 2*time.Minute)
		fast := func(o *lease.Options) {
			o.Mode, o.SkewMargin, o.Heartbeat = lease.FastTakeover, 50*time.Millisecond, time.Hour
		}
		a := manager(t, c, table, "a", 300*time.Millisecond, fast)
		b := manager(t, c, table, "b", 300*time.Millisecond, fast)
		la, err := a.Acquire(ctx, "fast", "x")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		lb, err := b.Acquire(ctx, "fast", "x")
		if err != nil {
			t.Fatal(err)
		}
		if lb.Fence() != la.Fence()+1 {
			t.Fatalf("fences %d then %d", la.Fence(), lb.Fence())
		}
		if err := la.Renew(ctx); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("renew by the deposed holder = %v", err)
		}
		_ = lb.Release(ctx)
	})
}

// TestInvalid: bad options and names are ErrInvalid before any I/O.
func TestInvalid(t *testing.T) {
	c := ddbmem.New()
	for name, fn := range map[string]func(*lease.Options){
		"no table":       func(o *lease.Options) {},
		"zero duration":  func(o *lease.Options) { o.Table, o.Duration = "t", -1 },
		"unknown mode":   func(o *lease.Options) { o.Table, o.Mode = "t", 7 },
		"empty prefix":   func(o *lease.Options) { o.Table, o.Prefix = "t", "" },
		"negative skew":  func(o *lease.Options) { o.Table, o.SkewMargin = "t", -time.Second },
		"negative pulse": func(o *lease.Options) { o.Table, o.Heartbeat = "t", -time.Second },
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := lease.New(c, fn); !errors.Is(err, lease.ErrInvalid) {
				t.Fatalf("New = %v", err)
			}
		})
	}
	if _, err := lease.New(nil, func(o *lease.Options) { o.Table = "t" }); !errors.Is(err, lease.ErrInvalid) {
		t.Fatalf("nil client: %v", err)
	}
	m := manager(t, c, "t", "a", time.Second)
	ctx := context.Background()
	if _, err := m.Acquire(ctx, "", "x"); !errors.Is(err, lease.ErrInvalid) {
		t.Fatal(err)
	}
	if _, err := m.List(ctx, ""); !errors.Is(err, lease.ErrInvalid) {
		t.Fatal(err)
	}
	if err := m.Create(ctx, "g", ""); !errors.Is(err, lease.ErrInvalid) {
		t.Fatal(err)
	}
}
