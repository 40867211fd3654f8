package query

import (
	"context"
	"strings"

	"github.com/tablekit/tablekit/entity"
)

// Op is the DynamoDB operation of an access [Pattern].
type Op string

// The operations an access pattern runs. The query functions run OpGet
// and OpQuery patterns; the write operations declare a service's writes
// (run by its own methods) so that the design document and the IAM policy
// list them.
const (
	OpGet        Op = "GetItem"
	OpQuery      Op = "Query"
	OpPut        Op = "PutItem"
	OpUpdate     Op = "UpdateItem"
	OpDelete     Op = "DeleteItem"
	OpBatchWrite Op = "BatchWriteItem"
	OpBatchGet   Op = "BatchGetItem"
	OpScan       Op = "Scan"
)

// KeyCond is one side of a pattern's key condition: the operator ("=" or,
// for a sort key, "begins_with", "<", "<=", ">" or ">="; "" for no
// condition on the sort key) and
// the key template the value is built from, in keygen's template syntax
// ("CATEGORY#{CategoryID}", "POST#").
type KeyCond struct {
	Op       string
	Template string
}

// Pattern is one documented access pattern, declared once as data: the
// domain's query function runs it ([From], [Get], [FromCollection]), the
// cursors of its pages are bound to its Name, and package design renders
// it into the design document, the IAM policy and the picture, so that the
// three cannot disagree. A Pattern is a plain value; declare it as a
// package-level variable and do not modify it after first use.
type Pattern struct {
	// Name identifies the pattern ("codex/posts-of-category"); it is part
	// of the cursor fingerprint, so a cursor of one pattern is invalid for
	// another.
	Name string
	// Func is the Go function that runs the pattern ("PostsOfCategory").
	Func string
	// Doc is the purpose in the design document's words ("카테고리 내 게시물").
	Doc string
	// Op is OpGet (a single item by its primary key) or OpQuery.
	Op Op
	// Returns lists the schemas of the entities the pattern returns.
	Returns []*entity.Schema
	// Index is the GSI or LSI read; "" for the table.
	Index string
	// PK is the partition-key condition (always "="). An empty Template
	// means the template of Returns[0]'s key on Index.
	PK KeyCond
	// SK is the sort-key condition; Op "" reads the whole partition. An
	// empty Template with Op "=" means Returns[0]'s template on Index, and
	// with Op "begins_with" the constant prefix of that template.
	SK KeyCond
	// Desc returns items in descending sort-key order (newest first for
	// time-ordered keys); PageOptions.Reverse flips it.
	Desc bool
	// Limit is the default page size (PageOptions.Limit 0); 0 means one
	// DynamoDB response page.
	Limit int
	// Consistent reports that the pattern may read consistently
	// (PageOptions.ConsistentRead, entity.ConsistentRead); false refuses
	// it with an [ErrInvalid] error. A global index never can.
	Consistent bool
	// Filter documents a filter applied after the key condition
	// ("selected = true"); the function adds it with [Query.Filter].
	Filter string
	// Condition documents the condition expression of a write
	// ("attribute_not_exists(PK)").
	Condition string
	// Tx reports that the write is one action of a TransactWriteItems
	// request (IAM still checks it as Op).
	Tx bool
}

// keyAttr returns the template of role ("pk" or "sk") of Returns[0] on the
// pattern's index; "" when not declared.
func (p Pattern) keyTemplate(role string) string {
	if len(p.Returns) == 0 || p.Returns[0] == nil {
		return ""
	}
	for _, k := range p.Returns[0].Keys {
		if k.Index == p.Index && k.Role == role {
			return k.Template
		}
	}
	return ""
}

// PKTemplate returns the template of the partition-key value.
func (p Pattern) PKTemplate() string {
	if p.PK.Template != "" {
		return p.PK.Template
	}
	return p.keyTemplate("pk")
}

// SKTemplate returns the template of the sort-key condition's value: for
// begins_with without an explicit template, the constant prefix of the
// entity's sort-key template ("POST#"); "" when SK.Op is "".
func (p Pattern) SKTemplate() string {
	if p.SK.Op == "" {
		return ""
	}
	if p.SK.Template != "" {
		return p.SK.Template
	}
	t := p.keyTemplate("sk")
	if p.SK.Op == "begins_with" {
		return LiteralPrefix(t)
	}
	return t
}

// LiteralPrefix returns the constant part of a key template before its
// first placeholder: "POST#" for "POST#{ID}", the template itself when it
// has none.
func LiteralPrefix(template string) string {
	if i := strings.IndexByte(template, '{'); i >= 0 {
		return template[:i]
	}
	return template
}

// check verifies that value fits template: it must begin with the
// template's constant prefix (and equal a template without placeholders).
func check(p Pattern, part, template, value string) error {
	lit := LiteralPrefix(template)
	if !strings.HasPrefix(value, lit) || (lit == template && value != template) {
		return invalid("pattern %q: %s %q does not fit its template %q", p.Name, part, value, template)
	}
	return nil
}

// From starts a query of entity T that runs the declared pattern p: its
// index, order, default page size (when o.Limit is 0) and the pattern name
// bound into cursors come from p, the paging options from o. pk is the
// partition value and sk, when p declares a sort-key condition, its value
// (omit it to use the template's constant prefix for begins_with); both
// must fit the declared templates. A wrong declaration, an argument that
// does not fit, or o.ConsistentRead on a pattern that is not Consistent
// is an [ErrInvalid] error returned by the terminal call. Add a filter
// with [Query.Filter].
func From[T any, PT interface {
	*T
	entity.Item
}](t *entity.Table, p Pattern, o PageOptions, pk string, sk ...string) Query[T, PT] {
	q := New[T, PT](t, p.Name)
	q.s.index = p.Index
	q.s.desc = p.Desc
	q.s.partition, q.s.hasPart = pk, true
	if err := p.apply(&q.s, o, pk, sk); err != nil {
		q.s.setErr(err)
	}
	return q
}

// FromCollection starts a [Collection] of the declared pattern p (a
// partition holding several entity types), as [From] does for one type.
func FromCollection(t *entity.Table, p Pattern, reg *Registry, o PageOptions, pk string, sk ...string) Collection {
	c := NewCollection(t, p.Name, reg)
	c.s.index = p.Index
	c.s.desc = p.Desc
	c.s.partition, c.s.hasPart = pk, true
	if err := p.apply(&c.s, o, pk, sk); err != nil {
		c.s.setErr(err)
	}
	return c
}

func (p Pattern) apply(s *spec, o PageOptions, pk string, sk []string) error {
	o.apply(s, p.Limit)
	if p.Op != OpQuery {
		return invalid("pattern %q is %s, not Query", p.Name, p.Op)
	}
	if o.ConsistentRead && !p.Consistent {
		return invalid("pattern %q does not read consistently", p.Name)
	}
	if pk != "" { // an empty partition is reported when the query runs
		if err := check(p, "partition", p.PKTemplate(), pk); err != nil {
			return err
		}
	}
	if len(sk) > 1 {
		return invalid("pattern %q: %d sort values", p.Name, len(sk))
	}
	if p.SK.Op == "" {
		if len(sk) > 0 {
			return invalid("pattern %q has no sort-key condition", p.Name)
		}
		return nil
	}
	tmpl := p.SKTemplate()
	v := LiteralPrefix(tmpl)
	if len(sk) == 1 {
		v = sk[0]
		if err := check(p, "sort key", tmpl, v); err != nil {
			return err
		}
	}
	switch p.SK.Op {
	case "=", "begins_with", "<", "<=", ">", ">=":
		s.sort = &SortCond{op: p.SK.Op, a: v}
	default:
		return invalid("pattern %q: sort operator %q", p.Name, p.SK.Op)
	}
	return nil
}

// Get reads the single item of the declared GetItem pattern p at key
// (built by the entity's generated key builder): the key must fit the
// pattern's templates, and a consistent read (entity.ConsistentRead) is
// refused with an [ErrInvalid] error unless p is Consistent. A missing
// item is entity.ErrNotFound, as from entity.Store.Get.
func Get[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, t *entity.Table, p Pattern, key entity.Key, optFns ...func(*entity.CallOptions)) (T, error) {
	var zero T
	if p.Op != OpGet {
		return zero, invalid("pattern %q is %s, not GetItem", p.Name, p.Op)
	}
	if err := check(p, "partition", p.PKTemplate(), key.PK); err != nil {
		return zero, err
	}
	if err := check(p, "sort key", p.SKTemplate(), key.SK); err != nil {
		return zero, err
	}
	if !p.Consistent && len(optFns) > 0 {
		var co entity.CallOptions
		for _, fn := range optFns {
			fn(&co)
		}
		if co.ConsistentRead {
			return zero, invalid("pattern %q does not read consistently", p.Name)
		}
	}
	return entity.NewStore[T, PT](t).Get(ctx, key, append(optFns[:len(optFns):len(optFns)], entity.WithPattern(p.Name))...)
}

// Schemas returns the schemas of the given entity values, for
// [Pattern].Returns: query.Schemas(&codex.Post{}).
func Schemas(items ...entity.Item) []*entity.Schema {
	out := make([]*entity.Schema, len(items))
	for i, it := range items {
		out[i] = it.EntitySchema()
	}
	return out
}
