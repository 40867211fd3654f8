package cachestore

import (
	"context"

	"github.com/tablekit/tablekit/entity"
)

// StepForTest runs the cache step of a write of v with op, as if the
// table write had just succeeded.
func StepForTest[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, s *Store[T, PT], v *T, op string) error {
	return s.liveStep(ctx, v, op)
}
