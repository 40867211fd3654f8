package lock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/lock"
)

func TestManager(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			ctx := ctxT(t, 30*time.Second)
			m := lock.NewManager(bc.locker)
			key := uniqueKey("mgr")
			ran := false
			err := m.WithLock(ctx, key, 2*time.Second*bc.slow, func(ctx context.Context, l *lock.Lock) error {
				ran = true
				if diff := cmp.Diff([]string{key}, m.Held()); diff != "" {
					t.Errorf("Held (-want +got):\n%s", diff)
				}
				locked, err := m.IsLocked(ctx, key)
				if err != nil || !locked {
					t.Errorf("IsLocked inside = %v, %v", locked, err)
				}
				// A second manager (another process) cannot get it quickly.
				other := lock.NewManager(bc.locker, func(o *lock.Options) { o.Timeout = 100 * time.Millisecond })
				err = other.WithLock(ctx, key, time.Second, func(context.Context, *lock.Lock) error {
					t.Error("ran while the key was held")
					return nil
				})
				if !errors.Is(err, lock.ErrNotObtained) {
					t.Errorf("other manager: %v", err)
				}
				return nil
			})
			if err != nil || !ran {
				t.Fatalf("WithLock = %v, ran %v", err, ran)
			}
			if len(m.Held()) != 0 {
				t.Errorf("Held after WithLock = %v", m.Held())
			}
			if locked, _ := m.IsLocked(ctx, key); locked {
				t.Error("still locked after WithLock")
			}

			// fn's error comes back, and the lock is released.
			boom := errors.New("boom")
			if err := m.WithLock(ctx, key, time.Second, func(context.Context, *lock.Lock) error { return boom }); !errors.Is(err, boom) {
				t.Fatalf("WithLock = %v, want boom", err)
			}
			if locked, _ := m.IsLocked(ctx, key); locked {
				t.Error("still locked after a failed fn")
			}

			// ForceReleaseAll frees this process's locks only.
			k1, k2, k3 := uniqueKey("f1"), uniqueKey("f2"), uniqueKey("f3")
			for _, k := range []string{k1, k2} {
				if _, err := m.Obtain(ctx, k, 10*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			foreign, err := bc.locker.Obtain(ctx, k3, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer foreign.Release(ctx)
			if err := m.ForceReleaseAll(ctx); err != nil {
				t.Fatalf("ForceReleaseAll: %v", err)
			}
			for k, want := range map[string]bool{k1: false, k2: false, k3: true} {
				if got, err := m.IsLocked(ctx, k); err != nil || got != want {
					t.Errorf("IsLocked(%s) = %v, %v; want %v", k, got, err, want)
				}
			}
			if len(m.Held()) != 0 {
				t.Errorf("Held after ForceReleaseAll = %v", m.Held())
			}

			// Losing the lock cancels fn's ctx with ErrLost, and WithLock says so.
			lk := uniqueKey("mgrlost")
			err = m.WithLock(ctx, lk, 300*time.Millisecond*bc.slow, func(fctx context.Context, l *lock.Lock) error {
				if err := bc.backend.Abandon(ctx, lk, l.Token()); err != nil {
					t.Fatal(err)
				}
				select {
				case <-fctx.Done():
				case <-time.After(3 * time.Second):
					t.Fatal("fn's ctx not cancelled after the loss")
				}
				if !errors.Is(context.Cause(fctx), lock.ErrLost) {
					t.Errorf("cause = %v", context.Cause(fctx))
				}
				return nil
			})
			mustIs(t, err, lock.ErrLost)

			// Presets carry the seed's TTLs.
			err = m.WithPreset(ctx, lock.Preset{Key: uniqueKey("scheduler:outbox_events"), TTL: 300 * time.Second},
				func(_ context.Context, l *lock.Lock) error {
					if l.TTL() != 300*time.Second {
						t.Errorf("TTL = %v", l.TTL())
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
