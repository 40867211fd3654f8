package query

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// ErrInvalid is matched by errors of a query built wrongly (no partition,
// unknown index, negative limit, a bad filter...), found before sending.
var ErrInvalid = errors.New("query: invalid query")

// SortCond is a condition on the sort key, made by [Eq], [BeginsWith],
// [Between], [Lt], [Le], [Gt] or [Ge]. Values are strings, as built by
// the generated key and prefix builders.
type SortCond struct {
	op   string
	a, b string
}

// Eq matches the sort key equal to v.
func Eq(v string) SortCond { return SortCond{op: "=", a: v} }

// BeginsWith matches sort keys starting with prefix (use a generated
// prefix constant or builder, such as codex.PostSKPrefix).
func BeginsWith(prefix string) SortCond { return SortCond{op: "begins_with", a: prefix} }

// Between matches lo <= sort key <= hi.
func Between(lo, hi string) SortCond { return SortCond{op: "between", a: lo, b: hi} }

// Lt matches sort keys < v.
func Lt(v string) SortCond { return SortCond{op: "<", a: v} }

// Le matches sort keys <= v.
func Le(v string) SortCond { return SortCond{op: "<=", a: v} }

// Gt matches sort keys > v.
func Gt(v string) SortCond { return SortCond{op: ">", a: v} }

// Ge matches sort keys >= v.
func Ge(v string) SortCond { return SortCond{op: ">=", a: v} }

// spec is the untyped part of a query, shared by [Query] and [Collection].
type spec struct {
	t          *entity.Table
	pattern    string
	index      string
	partition  string
	hasPart    bool
	sort       *SortCond
	desc       bool
	limit      int
	filter     *expression.ConditionBuilder
	proj       []string
	consistent bool
	cursor     string
	typ        string // entity type, for the tracer
	err        error
}

func (s *spec) setErr(err error) {
	if s.err == nil {
		s.err = err
	}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// keyAttrs returns the partition and sort attribute of the queried index.
func (s *spec) keyAttrs() (pk, sk string, err error) {
	attrs, err := s.t.KeyAttrs(s.index)
	if err != nil {
		return "", "", invalid("unknown index %q", s.index)
	}
	if len(attrs) > 1 {
		sk = attrs[1]
	}
	return attrs[0], sk, nil
}

// cursorAttrs lists the attributes of a start key: the index keys, then
// the table keys.
func (s *spec) cursorAttrs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(names []string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	if s.index != "" {
		a, _ := s.t.KeyAttrs(s.index)
		add(a)
	}
	a, _ := s.t.KeyAttrs("")
	add(a)
	return out
}

func (s *spec) fingerprint() []byte {
	return fingerprint(s.t.Name(), s.index, s.partition, s.pattern)
}

// input builds the Query request; a cursor is decoded and checked here.
func (s *spec) input() (*dynamodb.QueryInput, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.t == nil {
		return nil, invalid("nil table")
	}
	if !s.hasPart || s.partition == "" {
		return nil, invalid("no partition value (pattern %q)", s.pattern)
	}
	if s.limit < 0 {
		return nil, invalid("negative limit %d", s.limit)
	}
	pk, sk, err := s.keyAttrs()
	if err != nil {
		return nil, err
	}
	if s.filter == nil && len(s.proj) == 0 {
		in, err := s.fastInput(pk, sk)
		if err != nil {
			return nil, err
		}
		return s.finish(in)
	}
	kc := expression.Key(pk).Equal(expression.Value(&types.AttributeValueMemberS{Value: s.partition}))
	if s.sort != nil {
		if sk == "" {
			return nil, invalid("index %q has no sort key", s.index)
		}
		k := expression.Key(sk)
		v := func(x string) expression.ValueBuilder {
			return expression.Value(&types.AttributeValueMemberS{Value: x})
		}
		var c expression.KeyConditionBuilder
		switch s.sort.op {
		case "=":
			c = k.Equal(v(s.sort.a))
		case "begins_with":
			if s.sort.a == "" {
				return nil, invalid("empty begins_with prefix")
			}
			c = k.BeginsWith(s.sort.a)
		case "between":
			if s.sort.a > s.sort.b {
				return nil, invalid("between %q and %q: low bound above high bound", s.sort.a, s.sort.b)
			}
			c = k.Between(v(s.sort.a), v(s.sort.b))
		case "<":
			c = k.LessThan(v(s.sort.a))
		case "<=":
			c = k.LessThanEqual(v(s.sort.a))
		case ">":
			c = k.GreaterThan(v(s.sort.a))
		case ">=":
			c = k.GreaterThanEqual(v(s.sort.a))
		default:
			return nil, invalid("zero SortCond")
		}
		kc = kc.And(c)
	}
	b := expression.NewBuilder().WithKeyCondition(kc)
	if s.filter != nil {
		b = b.WithFilter(*s.filter)
	}
	if len(s.proj) > 0 {
		names := expression.NamesList(expression.Name(s.proj[0]))
		seen := map[string]bool{s.proj[0]: true}
		for _, n := range append(s.proj[1:], append(s.cursorAttrs(), s.t.TypeAttr())...) {
			if !seen[n] {
				seen[n] = true
				names = names.AddNames(expression.Name(n))
			}
		}
		b = b.WithProjection(names)
	}
	e, err := b.Build()
	if err != nil {
		return nil, invalid("%v", err)
	}
	tn := s.t.Name()
	in := &dynamodb.QueryInput{
		TableName:                 &tn,
		KeyConditionExpression:    e.KeyCondition(),
		FilterExpression:          e.Filter(),
		ProjectionExpression:      e.Projection(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
	}
	return s.finish(in)
}

// fastInput writes the key condition by hand, for queries without filter
// or projection (the common case): the same expression the expression
// package would build, without its allocations.
func (s *spec) fastInput(pk, sk string) (*dynamodb.QueryInput, error) {
	names := map[string]string{"#0": pk}
	values := map[string]types.AttributeValue{":0": &types.AttributeValueMemberS{Value: s.partition}}
	cond := "#0 = :0"
	if s.sort != nil {
		if sk == "" {
			return nil, invalid("index %q has no sort key", s.index)
		}
		names["#1"] = sk
		values[":1"] = &types.AttributeValueMemberS{Value: s.sort.a}
		switch s.sort.op {
		case "=", "<", "<=", ">", ">=":
			cond = "(#0 = :0) AND (#1 " + s.sort.op + " :1)"
		case "begins_with":
			if s.sort.a == "" {
				return nil, invalid("empty begins_with prefix")
			}
			cond = "(#0 = :0) AND (begins_with (#1, :1))"
		case "between":
			if s.sort.a > s.sort.b {
				return nil, invalid("between %q and %q: low bound above high bound", s.sort.a, s.sort.b)
			}
			values[":2"] = &types.AttributeValueMemberS{Value: s.sort.b}
			cond = "(#0 = :0) AND (#1 BETWEEN :1 AND :2)"
		default:
			return nil, invalid("zero SortCond")
		}
	}
	tn := s.t.Name()
	return &dynamodb.QueryInput{
		TableName:                 &tn,
		KeyConditionExpression:    &cond,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}, nil
}

// finish sets the options common to both ways of building the input.
func (s *spec) finish(in *dynamodb.QueryInput) (*dynamodb.QueryInput, error) {
	if s.index != "" {
		in.IndexName = aws.String(s.index)
	}
	if s.desc {
		in.ScanIndexForward = aws.Bool(false)
	}
	if s.consistent {
		if _, ok := s.t.Index(s.index); ok && isGSI(s.t, s.index) {
			return nil, invalid("consistent read on global index %q", s.index)
		}
		in.ConsistentRead = aws.Bool(true)
	}
	if s.limit > 0 && s.filter == nil {
		in.Limit = aws.Int32(int32(s.limit))
	}
	if s.cursor != "" {
		start, err := decodeCursor(s.t.CursorKey(), s.fingerprint(), s.cursor, s.cursorAttrs())
		if err != nil {
			return nil, err
		}
		in.ExclusiveStartKey = start
	}
	return in, nil
}

func isGSI(t *entity.Table, index string) bool {
	for _, g := range t.Options().GSIs {
		if g.Name == index {
			return true
		}
	}
	return false
}

func (s *spec) send(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	out, err := entity.SendAs(ctx, s.t, entity.TraceStartEvent{Op: "Query", Index: s.index, Type: s.typ, Pattern: s.pattern}, in, s.t.Client().Query, s.t.SDKOptions()...)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", s.pattern, err)
	}
	return out, nil
}

// startKeyOf extracts the start key of an item (index and table keys).
func (s *spec) startKeyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	names := s.cursorAttrs()
	m := make(map[string]types.AttributeValue, len(names))
	for _, n := range names {
		if v, ok := item[n]; ok {
			m[n] = v
		}
	}
	return m
}

func (s *spec) cursorOf(start map[string]types.AttributeValue) (string, error) {
	return encodeCursor(s.t.CursorKey(), s.fingerprint(), start)
}

// run fetches one page of at most s.limit items (one response when the
// limit is 0), calling keep for each item; keep reports whether the item
// counts toward the limit.
func (s *spec) run(ctx context.Context, keep func(map[string]types.AttributeValue) (bool, error), grow func(n int)) (string, error) {
	pt, ok := s.t.Options().Tracer.(PageTracer)
	if !ok {
		return s.runPage(ctx, keep, grow)
	}
	return s.tracePage(ctx, pt, keep, grow)
}

func (s *spec) runPage(ctx context.Context, keep func(map[string]types.AttributeValue) (bool, error), grow func(n int)) (string, error) {
	in, err := s.input()
	if err != nil {
		return "", err
	}
	n := 0
	for {
		// Without a filter, ask for exactly what is missing. With one,
		// DynamoDB's Limit would count items the filter drops, so read
		// whole response pages and stop inside one (the cursor is then
		// built from the last item returned).
		in.Limit = nil
		if s.limit > 0 && s.filter == nil {
			in.Limit = aws.Int32(int32(s.limit - n))
		}
		out, err := s.send(ctx, in)
		if err != nil {
			return "", err
		}
		if grow != nil {
			grow(len(out.Items))
		}
		for i, item := range out.Items {
			ok, err := keep(item)
			if err != nil {
				return "", err
			}
			if ok {
				n++
			}
			if s.limit > 0 && n == s.limit {
				if i < len(out.Items)-1 || out.LastEvaluatedKey != nil {
					// Stopped inside (or at the end of) a response page:
					// resume after the last item returned.
					return s.cursorOf(s.startKeyOf(item))
				}
				return "", nil
			}
		}
		if out.LastEvaluatedKey == nil {
			return "", nil
		}
		if s.limit == 0 {
			return s.cursorOf(out.LastEvaluatedKey)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Page is one page of a query: the items and the cursor of the next page
// ("" when there is none). Skipped counts items of another entity Type
// that the page left out.
type Page[T any] struct {
	Items   []T
	Next    string
	Skipped int
}

// Query is a typed query of entity T, built with [New] and refined by
// its methods, which return a modified copy (a Query value can be reused
// as a template). Errors are kept and returned by the terminal methods
// [Query.Page], [Query.All], [Query.Count] and [Query.Params].
type Query[T any, PT interface {
	*T
	entity.Item
}] struct {
	s spec
}

// New starts a query of entity T in table t. pattern names the access
// pattern ("posts-of-category"); it is part of the cursor fingerprint, so
// a cursor of one pattern is invalid for another.
func New[T any, PT interface {
	*T
	entity.Item
}](t *entity.Table, pattern string) Query[T, PT] {
	return Query[T, PT]{s: spec{t: t, pattern: pattern}}
}

// Index queries the named GSI or LSI instead of the table.
func (q Query[T, PT]) Index(name string) Query[T, PT] {
	q.s.index = name
	return q
}

// Partition sets the partition key value (from a generated builder, for
// instance codex.PostPK(categoryID)).
func (q Query[T, PT]) Partition(value string) Query[T, PT] {
	q.s.partition, q.s.hasPart = value, true
	return q
}

// PartitionKey sets the partition from a builder returning (value, error),
// keeping the error for the terminal call:
// q.PartitionKey(codex.PostPK(categoryID)).
func (q Query[T, PT]) PartitionKey(value string, err error) Query[T, PT] {
	if err != nil {
		q.s.setErr(fmt.Errorf("%w: partition: %w", ErrInvalid, err))
	}
	return q.Partition(value)
}

// Sort sets the sort-key condition.
func (q Query[T, PT]) Sort(c SortCond) Query[T, PT] {
	q.s.sort = &c
	return q
}

// Desc returns items in descending sort-key order (newest first for
// time-ordered keys). The default is ascending.
func (q Query[T, PT]) Desc() Query[T, PT] {
	q.s.desc = true
	return q
}

// Limit caps a page at n items (0, the default, means one DynamoDB
// response page, up to 1 MB). Without a filter the request asks for
// exactly n items; with one, whole response pages are read until n items
// pass it or the range ends, and the page stops inside a response.
func (q Query[T, PT]) Limit(n int) Query[T, PT] {
	q.s.limit = n
	return q
}

// Filter adds a filter expression (applied after the key condition; it
// does not reduce read cost). Several filters are ANDed.
func (q Query[T, PT]) Filter(c expression.ConditionBuilder) Query[T, PT] {
	if q.s.filter != nil {
		c = q.s.filter.And(c)
	}
	q.s.filter = &c
	return q
}

// Project reads only the named attributes (plus the key attributes and
// Type, which cursors and decoding need).
func (q Query[T, PT]) Project(attrs ...string) Query[T, PT] {
	q.s.proj = append(append([]string(nil), q.s.proj...), attrs...)
	return q
}

// ConsistentRead asks for a strongly consistent read (not on a GSI).
// Default: eventually consistent.
func (q Query[T, PT]) ConsistentRead() Query[T, PT] {
	q.s.consistent = true
	return q
}

// After resumes after the cursor of a previous page ("" starts at the
// beginning). A cursor that fails verification makes the terminal call
// return [ErrInvalidCursor].
func (q Query[T, PT]) After(cursor string) Query[T, PT] {
	q.s.cursor = cursor
	return q
}

// Params returns the exact first request without sending it (dry run).
func (q Query[T, PT]) Params() (*dynamodb.QueryInput, error) {
	return q.s.input()
}

func (q Query[T, PT]) decoder(typeAttr, want string, skipped *int, add func(T)) func(map[string]types.AttributeValue) (bool, error) {
	return func(item map[string]types.AttributeValue) (bool, error) {
		if tv, ok := item[typeAttr].(*types.AttributeValueMemberS); ok && tv.Value != want {
			*skipped++
			return false, nil
		}
		var v T
		if err := PT(&v).UnmarshalItem(item); err != nil {
			return false, fmt.Errorf("query %s: decode %s: %w", q.s.pattern, want, err)
		}
		add(v)
		return true, nil
	}
}

// Page runs the query and returns one page. Items of another Type in the
// range are skipped and counted in Page.Skipped.
func (q Query[T, PT]) Page(ctx context.Context) (Page[T], error) {
	var p Page[T]
	want := PT(new(T)).EntitySchema().Type
	q.s.typ = want
	next, err := q.s.run(ctx, q.decoder(q.s.t.TypeAttr(), want, &p.Skipped, func(v T) { p.Items = append(p.Items, v) }),
		func(n int) { p.Items = slices.Grow(p.Items, n) })
	p.Next = next
	return p, err
}

// All streams every matching item across pages (Limit sets the page
// size). Iteration stops at the first error, which it yields.
func (q Query[T, PT]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cur := q
		for {
			p, err := cur.Page(ctx)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, v := range p.Items {
				if !yield(v, nil) {
					return
				}
			}
			if p.Next == "" {
				return
			}
			cur = cur.After(p.Next)
		}
	}
}

// Count returns the number of matching items (after the filter) across
// all pages, reading with Select=COUNT. It counts every Type in the range.
func (q Query[T, PT]) Count(ctx context.Context) (int, error) {
	return q.s.count(ctx)
}

func (s *spec) count(ctx context.Context) (int, error) {
	in, err := s.countInput()
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		out, err := s.send(ctx, in)
		if err != nil {
			return 0, err
		}
		n += int(out.Count)
		if out.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func (s *spec) countInput() (*dynamodb.QueryInput, error) {
	c := *s
	c.proj = nil
	in, err := c.input()
	if err != nil {
		return nil, err
	}
	in.Select = types.SelectCount
	in.Limit = nil
	return in, nil
}
