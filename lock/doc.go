// Package lock is tablekit's distributed lock with fencing tokens, on Valkey
// (package lock/valkeylock) or on a DynamoDB table (package lock/dynamolock).
//
// A [Locker] obtains a [Lock] for a key and a TTL:
//
//	b, _ := valkeylock.New(cache.NewGlideConn(glideClient), func(o *valkeylock.Options) { o.Prefix = "finance_app:prod" })
//	lk := lock.New(b)
//	l, err := lk.Obtain(ctx, "scheduler:outbox_events", 300*time.Second)
//	if errors.Is(err, lock.ErrNotObtained) { ... another process holds it ... }
//	defer l.Release(ctx)
//
// Each Lock carries its random token, its fencing number ([Lock.Fence]),
// which grows strictly per key across holders, and its validity
// ([Lock.Deadline]), measured on the monotonic clock from the instant before
// the acquire request was sent, less 1% of the TTL. [Lock.Refresh] extends
// the lock; with [Options.AutoRefresh] a heartbeat does it until Release or
// until the ctx given to Obtain ends. [Lock.Lost] is closed when a refresh
// finds the lock gone. [Manager] adds a lock manager: WithLock, IsLocked,
// a registry of this process's locks, ForceReleaseAll, and named locks
// declared once ([Preset], [Manager.WithPreset]).
//
// # Defaults
//
// TTL 0 means [DefaultTTL] (30 s). Obtain makes one attempt unless
// [Options.Retry] says otherwise (any [retry.Strategy]: [retry.Constant],
// [retry.Exponential], [retry.Limit]); retries stop at the ctx deadline, or at now+[Options.Timeout],
// or, when neither is set, after twice the TTL, and the last attempt is
// made at that deadline (a wait that would overrun it is cut short). The
// heartbeat runs every TTL/3.
//
// # Fairness
//
// Polling is unfair and, on DynamoDB, costly: every failed conditional
// write consumes capacity. dynamolock therefore serves waiters in ticket
// order (a waiter polls with reads and writes only on its turn; see its
// package documentation and Backend.Stats); a backend tells Obtain when
// to poll next through [AcquireRequest].RetryAfter, learns whether an
// attempt is the last ([AcquireRequest].LastAttempt), and is told when a
// waiter gives up ([Leaver]). A Manager's locks retry with exponential backoff for 10 s and
// refresh themselves.
//
// # Errors
//
// [ErrNotObtained] (the key stayed held), [ErrNotHeld] (release or refresh
// of a handle that no longer holds the key), [ErrLost] (a refresh found the
// lock gone), [ErrInvalidKey], [ErrInvalidTTL] and [ErrInvalidOptions] (bad
// input, before any I/O). A cancelled or expired ctx comes back as the ctx
// error, never as ErrNotObtained. Check them with errors.Is.
//
// # A slow or failing server
//
// Obtain retries a transient backend error (a command timeout, a reset or
// refused connection, a failover, throttling) within its deadline as it
// retries a held key, paced by [Options.Retry]. The failed attempt may
// have landed, so its token is deleted by compare-and-delete before the
// next attempt (and before each later one until the backend confirms),
// and the next attempt uses a new token. Errors that cannot heal (an
// invalid key, a script error, a missing table) return at once. The
// backend classifies its errors ([Classifier]; valkeylock and dynamolock
// do), [Transient] otherwise. When the deadline passes after a transient
// error, Obtain returns that error rather than ErrNotObtained.
//
// # Safety assumptions
//
// A lock gives mutual exclusion between holders that respect their validity
// only under these assumptions. Write them into your runbook.
//
//  1. Clock rates. The lock's validity is measured by the holder's monotonic
//     clock and its expiry by the server's clock; the two run at the same
//     rate to within 1% of the TTL. (Wall-clock steps do not matter, except in
//     dynamolock's FastTakeover mode, which assumes all clocks agree to
//     within its SkewMargin.)
//  2. The holder checks validity. A holder stops acting as the holder once
//     [Lock.Validity] is zero or [Lock.Lost] is closed. A process can pause
//     (GC, swap, a stopped VM) between checking and acting; no lock service
//     can prevent that. Fencing closes the hole: pass [Lock.Fence] to the
//     store you write to ([FenceCondition], [PutFenced], [UpdateFenced] for
//     DynamoDB) so that a write of an older holder fails after a newer holder
//     has written.
//  3. Valkey durability. A Valkey primary that restarts without persistence,
//     or fails over to a replica that had not yet received the lock, forgets
//     held locks. Keep such a server down for at least one TTL before it
//     serves again (a delayed restart), or rely on fencing: valkeylock seeds a
//     lost fence counter from the server clock in microseconds, so fencing
//     numbers keep growing across the restart as long as the server clock
//     does not step back. The holder learns of the loss at its next refresh
//     (ErrLost and Lost).
//  4. Best-effort cleanup. glide does not withdraw a command whose ctx was
//     cancelled, and an HTTP request to DynamoDB may land after its client
//     gave up. Obtain therefore deletes the lock by token after such an
//     attempt. Should that cleanup fail (server unreachable), the orphan lock
//     blocks the key for at most one TTL; it is never held by anyone.
//  5. Fence counters live forever: valkeylock keeps one counter key per lock
//     key without TTL, dynamolock never deletes a lease item. Deleting them
//     by hand restarts the fence of that key (valkeylock from the clock).
package lock
