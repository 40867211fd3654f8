package cache

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Tracer observes the reads of a [Cache] ([Cache.Get], [Cache.GetSynced]):
// CacheRead is called once per read, when it returned, with the caller's
// ctx and what the read found. It is called on the reader's goroutine and
// must be safe for concurrent use. Set it in [Options].Tracer; a cache
// without one pays a nil check per read.
type Tracer interface {
	CacheRead(ctx context.Context, ev ReadEvent)
}

// Results of a read ([ReadEvent].Result).
const (
	// ReadHit: the server had the key.
	ReadHit = "hit"
	// ReadNearHit: Get answered from the near cache, with no round trip.
	ReadNearHit = "near_hit"
	// ReadBarrierHit: GetSynced answered from the near cache after a
	// barrier round trip confirmed the copy.
	ReadBarrierHit = "barrier_hit"
	// ReadMiss: the key does not exist (ErrMiss), or the cache has no
	// endpoint (bypass).
	ReadMiss = "miss"
	// ReadError: the read failed (Err); callers fail open.
	ReadError = "error"
)

// ReadEvent describes one read.
type ReadEvent struct {
	Op      string // "GET" or "GETSYNCED"
	Key     string // the key without the namespace
	Service string // the namespace's service part
	// Result is one of the Read constants.
	Result string
	Start  time.Time
	// Duration is the read's time, retries included.
	Duration time.Duration
	Err      error // nil unless Result is ReadError
}

// tracedCaches counts the caches with a tracer, so that the near cache's
// barrier path looks for a read note only when one may be there.
var tracedCaches atomic.Int32

type noteKey struct{}

// readNote carries what the near cache learned about a traced read.
type readNote struct{ result string }

// noteRead records result in ctx's read note, if it has one.
func noteRead(ctx context.Context, result string) {
	if n, ok := ctx.Value(noteKey{}).(*readNote); ok {
		n.result = result
	}
}

// traceRead runs read observed by the cache's tracer.
func (c *Cache) traceRead(ctx context.Context, op, key string, read func(context.Context, string) (string, error)) (string, error) {
	note := &readNote{}
	start := time.Now()
	v, err := read(context.WithValue(ctx, noteKey{}, note), key)
	ev := ReadEvent{Op: op, Key: key, Service: c.o.Service, Start: start, Duration: time.Since(start)}
	switch {
	case err == nil && note.result != "":
		ev.Result = note.result
	case err == nil:
		ev.Result = ReadHit
	case errors.Is(err, ErrMiss):
		ev.Result = ReadMiss
	default:
		ev.Result, ev.Err = ReadError, err
	}
	c.o.Tracer.CacheRead(ctx, ev)
	return v, err
}
