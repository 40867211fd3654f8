package query

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// Registry maps entity Type values to decoders, for [Collection]s. Fill it
// with [Register] before use; afterwards it is safe for concurrent reads.
type Registry struct {
	dec map[string]func(map[string]types.AttributeValue) (any, error)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{dec: map[string]func(map[string]types.AttributeValue) (any, error){}}
}

// Register adds entity T to r, under its schema's Type, and returns r.
func Register[T any, PT interface {
	*T
	entity.Item
}](r *Registry) *Registry {
	typ := PT(new(T)).EntitySchema().Type
	r.dec[typ] = func(item map[string]types.AttributeValue) (any, error) {
		var v T
		if err := PT(&v).UnmarshalItem(item); err != nil {
			return nil, err
		}
		return v, nil
	}
	return r
}

// Collection queries one partition that holds several entity types (for
// instance a category and its posts) and decodes each item by its Type
// attribute through a [Registry]. Items of an unregistered Type, or
// without a Type, are skipped and counted; the Type is never filtered on
// the server. Methods return modified copies, like [Query].
type Collection struct {
	s   spec
	reg *Registry
}

// NewCollection starts a collection query in table t for the named
// access pattern, decoding through reg.
func NewCollection(t *entity.Table, pattern string, reg *Registry) Collection {
	c := Collection{s: spec{t: t, pattern: pattern}, reg: reg}
	if reg == nil {
		c.s.setErr(invalid("nil registry"))
	}
	return c
}

// CollectionPage is one page of a [Collection]: Items holds values of the
// registered types (T, not *T) in key order; use [Of] to pick one type.
type CollectionPage struct {
	Items   []any
	Next    string
	Skipped int // items of an unknown Type
}

// Of returns the items of type T, in order.
func Of[T any](items []any) []T {
	var out []T
	for _, it := range items {
		if v, ok := it.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// Index queries the named index.
func (c Collection) Index(name string) Collection { c.s.index = name; return c }

// Partition sets the partition key value.
func (c Collection) Partition(value string) Collection {
	c.s.partition, c.s.hasPart = value, true
	return c
}

// Sort sets the sort-key condition.
func (c Collection) Sort(cond SortCond) Collection { c.s.sort = &cond; return c }

// Desc returns items in descending sort-key order.
func (c Collection) Desc() Collection { c.s.desc = true; return c }

// Limit caps a page at n decoded items (skipped ones do not count).
func (c Collection) Limit(n int) Collection { c.s.limit = n; return c }

// Filter adds a filter expression.
func (c Collection) Filter(cond expression.ConditionBuilder) Collection {
	if c.s.filter != nil {
		cond = c.s.filter.And(cond)
	}
	c.s.filter = &cond
	return c
}

// ConsistentRead asks for a strongly consistent read.
func (c Collection) ConsistentRead() Collection { c.s.consistent = true; return c }

// After resumes after a previous page's cursor.
func (c Collection) After(cursor string) Collection { c.s.cursor = cursor; return c }

// Params returns the first request without sending it.
func (c Collection) Params() (*dynamodb.QueryInput, error) { return c.s.input() }

// Page runs the query and returns one page.
func (c Collection) Page(ctx context.Context) (CollectionPage, error) {
	var p CollectionPage
	typeAttr := c.s.t.TypeAttr()
	next, err := c.s.run(ctx, func(item map[string]types.AttributeValue) (bool, error) {
		tv, _ := item[typeAttr].(*types.AttributeValueMemberS)
		if tv == nil {
			p.Skipped++
			return false, nil
		}
		dec, ok := c.reg.dec[tv.Value]
		if !ok {
			p.Skipped++
			return false, nil
		}
		v, err := dec(item)
		if err != nil {
			return false, fmt.Errorf("query %s: decode %s: %w", c.s.pattern, tv.Value, err)
		}
		p.Items = append(p.Items, v)
		return true, nil
	}, nil)
	p.Next = next
	return p, err
}

// Count returns the number of items in the range, of every Type.
func (c Collection) Count(ctx context.Context) (int, error) { return c.s.count(ctx) }
