package cachestore

import (
	"context"
	"time"

	"github.com/tablekit/tablekit/entity"
)

// Tracer observes the reads of a [Store] ([Store.Get]), in the style of
// entity.Tracer: GetStart is called with the caller's ctx and returns the
// ctx the read runs with (the cache's read and the table's load, when
// traced, nest under a span started there); GetEnd is called with that
// ctx when Get returns. Both must be safe for concurrent use. The cache's
// own tracer (cache.Options.Tracer) tells a near-cache hit and a barrier
// apart.
type Tracer interface {
	GetStart(ctx context.Context, ev GetStartEvent) context.Context
	GetEnd(ctx context.Context, ev GetEvent)
}

// GetResult says what answered a [Store.Get].
type GetResult string

// The answers of a Get.
const (
	// GetHit: the cache held the item.
	GetHit GetResult = "hit"
	// GetNegativeHit: the cache held a "not found" or a tombstone.
	GetNegativeHit GetResult = "negative_hit"
	// GetMiss: the cache held nothing; the table answered (a load, shared
	// with concurrent misses of the key).
	GetMiss GetResult = "miss"
	// GetFailOpen: the cache failed; the table answered.
	GetFailOpen GetResult = "fail_open"
	// GetBypass: the cache was not asked (no endpoint, or an earlier write
	// of the key could not reach it and the key is not yet clean again);
	// the table answered.
	GetBypass GetResult = "bypass"
)

// GetStartEvent describes a Get about to run.
type GetStartEvent struct {
	Type string // the entity type
	Key  entity.Key
}

// GetEvent describes the end of a Get.
type GetEvent struct {
	Type     string
	Key      entity.Key
	Result   GetResult
	Duration time.Duration
	// Err is Get's error: one matching entity.ErrNotFound for an item
	// that does not exist, the table's error, or the ctx's.
	Err error
}

// traceGet is get observed by the store's tracer.
func (s *Store[T, PT]) traceGet(ctx context.Context, k entity.Key, optFns []func(*entity.CallOptions)) (T, error) {
	tr := s.o.Tracer
	ctx = tr.GetStart(ctx, GetStartEvent{Type: s.schema.Type, Key: k})
	start := time.Now()
	var res GetResult
	v, err := s.get(ctx, k, optFns, &res)
	tr.GetEnd(ctx, GetEvent{Type: s.schema.Type, Key: k, Result: res, Duration: time.Since(start), Err: err})
	return v, err
}
