package lock

import (
	"context"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"sort"
	"sync"
	"time"
)

// Preset names a lock an application uses again and again: its key and
// its TTL, declared once (for instance one per scheduler job) and passed to
// [Manager.WithPreset].
type Preset struct {
	Key string
	TTL time.Duration
}

// DefaultManagerTimeout is how long [Manager.WithLock] waits for a held
// lock by default.
const DefaultManagerTimeout = 10 * time.Second

// Manager is a distributed lock manager: it runs functions
// under a lock and keeps a registry of the locks this process holds, so that
// [Manager.ForceReleaseAll] can free them on shutdown. It is safe for
// concurrent use.
//
// Unless the optFns given to NewManager say otherwise, the locks it obtains
// retry with retry.Exponential(5ms, 500ms) for up to
// [DefaultManagerTimeout] and refresh themselves (AutoRefresh).
type Manager struct {
	lk   *Locker
	opts []func(*Options)

	mu   sync.Mutex
	held map[*Lock]struct{}
}

// NewManager returns a Manager on lk. optFns adjust the Options of every
// lock it obtains, after the Manager's defaults and lk's own.
func NewManager(lk *Locker, optFns ...func(*Options)) *Manager {
	defaults := func(o *Options) {
		o.Retry = retry.Exponential(5*time.Millisecond, 500*time.Millisecond)
		o.Timeout = DefaultManagerTimeout
		o.AutoRefresh = true
	}
	return &Manager{lk: lk, opts: append([]func(*Options){defaults}, optFns...), held: map[*Lock]struct{}{}}
}

// Obtain obtains key like [Locker.Obtain] and registers the lock until it
// is released.
func (m *Manager) Obtain(ctx context.Context, key string, ttl time.Duration, optFns ...func(*Options)) (*Lock, error) {
	l, err := m.lk.Obtain(ctx, key, ttl, append(append([]func(*Options){}, m.opts...), optFns...)...)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.held[l] = struct{}{}
	l.mu.Lock()
	l.onRelease = m.forget
	l.mu.Unlock()
	m.mu.Unlock()
	return l, nil
}

func (m *Manager) forget(l *Lock) {
	m.mu.Lock()
	delete(m.held, l)
	m.mu.Unlock()
}

// WithLock runs fn while holding key (ttl 0 means DefaultTTL), then releases
// the lock. The ctx given to fn is cancelled, with cause ErrLost, when the
// lock is lost; fn should stop then.
//
// It returns the Obtain error (ErrNotObtained after the Manager's timeout,
// a ctx error, ...) without running fn; otherwise fn's error, or an error
// matching ErrLost when fn succeeded but the lock was lost while it ran
// (another process may have run at the same time: use [Lock.Fence] with
// [FenceCondition] to make that harmless). Release errors after a
// successful fn are returned too, except ErrNotHeld after a loss.
func (m *Manager) WithLock(ctx context.Context, key string, ttl time.Duration, fn func(ctx context.Context, l *Lock) error) error {
	l, err := m.Obtain(ctx, key, ttl)
	if err != nil {
		return err
	}
	fctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-l.Lost():
			cancel(fmt.Errorf("%w: %q", ErrLost, key))
		case <-fctx.Done():
		}
	}()
	ferr := fn(fctx, l)
	lost := false
	select {
	case <-l.Lost():
		lost = true
	default:
	}
	cancel(nil)
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	rerr := l.Release(rctx)
	switch {
	case ferr != nil:
		return ferr
	case lost:
		return fmt.Errorf("%w: %q was lost while the function ran", ErrLost, key)
	case rerr != nil:
		return rerr
	}
	return nil
}

// WithPreset runs fn under the lock of p, with its TTL: WithLock(ctx,
// p.Key, p.TTL, fn).
func (m *Manager) WithPreset(ctx context.Context, p Preset, fn func(ctx context.Context, l *Lock) error) error {
	return m.WithLock(ctx, p.Key, p.TTL, fn)
}

// IsLocked reports whether any process holds key now.
func (m *Manager) IsLocked(ctx context.Context, key string) (bool, error) {
	return m.lk.IsLocked(ctx, key)
}

// Held returns the keys of the locks this Manager holds, sorted.
func (m *Manager) Held() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.held))
	for l := range m.held {
		keys = append(keys, l.key)
	}
	sort.Strings(keys)
	return keys
}

// ForceReleaseAll releases every lock this Manager holds, for shutdown.
// Each release compares the lock's token, so it never frees a lock of
// another process, even one that took over a key this process lost. It
// returns the joined errors of the releases that failed other than with
// ErrNotHeld.
func (m *Manager) ForceReleaseAll(ctx context.Context) error {
	m.mu.Lock()
	locks := make([]*Lock, 0, len(m.held))
	for l := range m.held {
		locks = append(locks, l)
	}
	m.mu.Unlock()
	var errs []error
	for _, l := range locks {
		if err := l.Release(ctx); err != nil && !errors.Is(err, ErrNotHeld) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
