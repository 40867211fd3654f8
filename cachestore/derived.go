package cachestore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/cache"
)

// Derived declares a cached query result and the entity writes that make
// it stale. Its key is Name followed by the values of Fields, escaped with
// cache.Join: Derived{Name: "session_list", Fields: {"user_id",
// "project_id"}} caches at session_list:<user_id>:<project_id>.
//
// A write through a cached store of an entity whose Type is in On
// invalidates the result whose key it computes from the written item's
// attributes named by Fields (an item lacking one of them touches no
// result). Declare only Fields that do not change over an item's life,
// such as the sources of its key: a write invalidates the result of the
// item's current values.
type Derived struct {
	// Name is the first key segment, for instance "query_projects".
	Name string
	// Fields are the attribute names (as the entities store them) whose
	// values make the rest of the key; none for a single result.
	Fields []string
	// TTL is how long a result is cached.
	TTL time.Duration
	// On lists the entity Types whose writes invalidate the result.
	On []string
	// NearRelaxed, on a cache with a near cache, serves a result held in
	// process with no round trip, at the near cache's own guarantee (see
	// the package documentation). False (the default) reads it as
	// cache.Cache.GetSynced does, so no result older than an acknowledged
	// write's invalidation is returned.
	NearRelaxed bool
}

// Key returns the cache key (without namespace) of the result for the
// given field values, one per Fields entry.
func (d *Derived) Key(values ...string) string {
	return cache.Join(append([]string{d.Name}, values...)...)
}

// Registry holds derived-cache declarations. Share one between the cached
// stores of a process (and declare the same things in every process). It
// is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	byType map[string][]*Derived
	names  map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byType: map[string][]*Derived{}, names: map[string]bool{}}
}

// Declare adds d and returns it. It returns ErrInvalidOptions (wrapped)
// for an empty or duplicate Name, a non-positive TTL, an empty On or an
// empty field name.
func (r *Registry) Declare(d Derived) (*Derived, error) {
	if d.Name == "" || d.TTL <= 0 || len(d.On) == 0 {
		return nil, fmt.Errorf("%w: derived cache %q needs a name, a positive TTL and the types it depends on", ErrInvalidOptions, d.Name)
	}
	for _, f := range d.Fields {
		if f == "" {
			return nil, fmt.Errorf("%w: derived cache %q: empty field name", ErrInvalidOptions, d.Name)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names[d.Name] {
		return nil, fmt.Errorf("%w: derived cache %q declared twice", ErrInvalidOptions, d.Name)
	}
	r.names[d.Name] = true
	p := &d
	for _, t := range d.On {
		r.byType[t] = append(r.byType[t], p)
	}
	return p, nil
}

// MustDeclare is Declare for package-level declarations; it panics on error.
func (r *Registry) MustDeclare(d Derived) *Derived {
	p, err := r.Declare(d)
	if err != nil {
		panic(err)
	}
	return p
}

func (r *Registry) forType(t string) []*Derived {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byType[t]
}

// GetDerived returns the result of d for values from c, or runs load and
// caches its result for d.TTL (cache.GetOrLoad: singleflight, fail-open,
// invalidation always wins). A hit is a synced read (cache.LoadOptions.Synced)
// unless d.NearRelaxed is set.
func GetDerived[V any](ctx context.Context, c *cache.Cache, d *Derived, values []string,
	load func(context.Context) (V, error)) (V, error) {
	var zero V
	if len(values) != len(d.Fields) {
		return zero, fmt.Errorf("%w: derived cache %q takes %d values, got %d", ErrInvalidOptions, d.Name, len(d.Fields), len(values))
	}
	return cache.GetOrLoad(ctx, c, d.Key(values...), d.TTL, load, func(o *cache.LoadOptions) { o.Synced = !d.NearRelaxed })
}

// derivedKeys returns the keys of the derived results a write of an item
// with attrs invalidates. With attrs nil (unknown), only results without
// fields are returned.
func (s *Store[T, PT]) derivedKeys(attrs map[string]types.AttributeValue) []string {
	return s.o.Registry.keys(s.schema.Type, attrs, nil)
}

// keys appends to out the keys of the derived results of entity type typ
// that a write of an item with attrs invalidates.
func (r *Registry) keys(typ string, attrs map[string]types.AttributeValue, out []string) []string {
	for _, d := range r.forType(typ) {
		vals := make([]string, 0, len(d.Fields))
		for _, f := range d.Fields {
			v, ok := attrString(attrs[f])
			if !ok {
				break
			}
			vals = append(vals, v)
		}
		if len(vals) == len(d.Fields) {
			out = append(out, d.Key(vals...))
		}
	}
	return out
}

// needsFields reports whether a derived cache on this store's Type reads
// item fields.
func (s *Store[T, PT]) needsFields() bool {
	for _, d := range s.o.Registry.forType(s.schema.Type) {
		if len(d.Fields) > 0 {
			return true
		}
	}
	return false
}

func attrString(av types.AttributeValue) (string, bool) {
	switch a := av.(type) {
	case *types.AttributeValueMemberS:
		return a.Value, a.Value != ""
	case *types.AttributeValueMemberN:
		return a.Value, true
	}
	return "", false
}
