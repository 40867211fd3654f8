package cachestore

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
)

// Image is one change of an item as a table's change feed reports it
// (package feed's Record: Keys, Old, New): its key attributes and its
// images before and after the write, either of which may be nil.
type Image struct {
	Keys, Old, New map[string]types.AttributeValue
}

// Invalidator keeps the cached stores of a table right for writes that
// bypass them (another service, a console edit, a backfill): fed the
// table's change records, it invalidates the cached item and the derived
// results each change touches, as [cache.Cache.Invalidate] does: the
// generation mark is replaced (no load that began before can fill the
// key) and the entry deleted, so the next read loads the item from the
// table. See "Writes that bypass the cache" in the package documentation
// for the guarantee. It is safe for concurrent use.
type Invalidator struct {
	c        *cache.Cache
	reg      *Registry
	pk, sk   string
	typeAttr string
}

// NewInvalidator returns the invalidator of the cached stores of tbl on
// c (the same namespace); reg is the registry of their derived caches
// (nil for none).
func NewInvalidator(c *cache.Cache, tbl *entity.Table, reg *Registry) *Invalidator {
	return &Invalidator{c: c, reg: reg, pk: tbl.PKAttr(), sk: tbl.SKAttr(), typeAttr: tbl.TypeAttr()}
}

// Keys returns the cache keys (without namespace) a change touches: the
// item's entry (ent:<Type>:<PK>:<SK>, the Type read from the newest image
// that has one) and the derived results computed from the old image and
// from the new one, each key once. A change whose images carry no Type touches only the
// derived results (a cached store caches typed items only).
func (iv *Invalidator) Keys(im Image) []string {
	var out []string
	typ := ""
	for _, m := range []map[string]types.AttributeValue{im.New, im.Old} {
		if s, ok := m[iv.typeAttr].(*types.AttributeValueMemberS); ok && s.Value != "" {
			typ = s.Value
			break
		}
	}
	keys := im.Keys
	if keys == nil {
		keys = im.New
		if keys == nil {
			keys = im.Old
		}
	}
	pk, okPK := attrString(keys[iv.pk])
	sk, okSK := attrString(keys[iv.sk])
	if typ != "" && okPK && (okSK || iv.sk == "") {
		out = append(out, cache.Join("ent", typ, pk, sk))
	}
	if typ != "" {
		for _, k := range iv.reg.keys(typ, im.New, iv.reg.keys(typ, im.Old, nil)) {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// Invalidate invalidates what the changes touch, in one round trip.
// Errors: cache.ErrUnavailable (wrapped) when the server cannot be
// reached or fails; the caller (a feed handler) returns it so that the
// records are delivered again. With no endpoint configured it does
// nothing.
func (iv *Invalidator) Invalidate(ctx context.Context, changes ...Image) error {
	if !iv.c.Enabled() {
		return nil
	}
	seen := map[string]bool{}
	var keys []string
	for _, im := range changes {
		for _, k := range iv.Keys(im) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	if err := iv.c.Invalidate(ctx, keys...); err != nil {
		return fmt.Errorf("cachestore: invalidate %d keys from the feed: %w", len(keys), err)
	}
	return nil
}
