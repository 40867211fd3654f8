package entity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/keys"
)

// CallOptions are the per-call options of a [Store] operation, set with
// the helpers [ConsistentRead], [If], [IfVersion], [DryRun] and
// [KeepTimestamps]. The zero value is a plain call.
type CallOptions struct {
	// ConsistentRead asks Get for a strongly consistent read. Default:
	// eventually consistent (cheaper, and may miss a write of the last
	// second).
	ConsistentRead bool
	// Condition is a user condition every write adds to its own.
	Condition *expression.ConditionBuilder
	// Version is the expected current version of a versioned entity, for
	// Update and Delete (required there) and for Put (0 or unset: the item
	// must not exist).
	Version int64
	// DryRun, when non-nil, receives the exact request instead of it
	// being sent; the call then returns the zero value and a nil error.
	DryRun *Request
	// KeepTimestamps makes Create and Put keep the UpdatedAt value carried
	// by the item instead of stamping now (migrations); CreatedAt is kept
	// whenever the item carries one.
	KeepTimestamps bool
	// Trace, when non-nil, replaces the table's tracer for this call.
	Trace Tracer
}

// ConsistentRead requests a strongly consistent read.
func ConsistentRead(o *CallOptions) { o.ConsistentRead = true }

// KeepTimestamps keeps the item's own timestamps (see [CallOptions]).
func KeepTimestamps(o *CallOptions) { o.KeepTimestamps = true }

// If adds a user condition to a write. Several If options are ANDed.
func If(cond expression.ConditionBuilder) func(*CallOptions) {
	return func(o *CallOptions) {
		if o.Condition == nil {
			o.Condition = &cond
			return
		}
		c := o.Condition.And(cond)
		o.Condition = &c
	}
}

// IfVersion sets the expected current version (optimistic locking).
func IfVersion(v int64) func(*CallOptions) {
	return func(o *CallOptions) { o.Version = v }
}

// DryRun captures the request into r instead of sending it.
func DryRun(r *Request) func(*CallOptions) {
	return func(o *CallOptions) { o.DryRun = r }
}

// Request is a request captured by [DryRun]: the operation name and the
// exact SDK input (*dynamodb.PutItemInput, *dynamodb.UpdateItemInput, ...).
type Request struct {
	Op    string
	Input any
}

// Store is the typed access to entity T in a [Table]. PT is *T, which the
// generated code makes implement [Item]. A Store is safe for concurrent use.
type Store[T any, PT interface {
	*T
	Item
}] struct {
	t       *Table
	schema  *Schema
	err     error
	plain   map[string]bool
	primary []KeyAttr
	derived []KeyAttr // index keys computed from sources
	// layout is the timestamp layout learned from the codec (a string).
	layout atomic.Value
	// primaryT are the parsed templates of primary (nil if unparseable).
	primaryT []*keys.Template
	srcOf    map[string]bool
}

// NewStore returns the store of entity T in table t, for instance
// entity.NewStore[codex.Post](table). A schema that does not fit the
// table (primary key attributes differ) makes every call return a
// [*ValidationError].
func NewStore[T any, PT interface {
	*T
	Item
}](t *Table) *Store[T, PT] {
	s := &Store[T, PT]{t: t, schema: PT(new(T)).EntitySchema()}
	sc := s.schema
	s.plain = map[string]bool{t.opts.TypeAttr: true}
	for _, a := range []string{sc.VersionAttr, sc.CreatedAttr, sc.UpdatedAttr, sc.TTLAttr} {
		if a != "" {
			s.plain[a] = true
		}
	}
	for _, a := range sc.Attrs {
		s.plain[a] = true
	}
	s.srcOf = map[string]bool{}
	for _, k := range sc.Keys {
		switch {
		case k.Index == "":
			s.primary = append(s.primary, k)
			tmpl, _ := keys.New(k.Template)
			s.primaryT = append(s.primaryT, tmpl)
			for _, src := range k.Sources {
				s.srcOf[src] = true
			}
			want := t.opts.PK
			if k.Role == "sk" {
				want = t.opts.SK
			}
			if k.Attr != want {
				s.err = &ValidationError{Op: "NewStore", Type: sc.Type, Field: k.Attr, Err: fmt.Errorf("primary %s attribute is %q in the table", k.Role, want)}
			}
		case s.plain[k.Attr] || k.Attr == t.opts.TypeAttr || (len(k.Sources) == 1 && k.Sources[0] == k.Attr):
			// The index key is the entity's own attribute (Type,
			// CreatedAt={CreatedAt}): nothing to derive.
			s.plain[k.Attr] = true
		default:
			if _, ok := t.Index(k.Index); !ok {
				s.err = &ValidationError{Op: "NewStore", Type: sc.Type, Field: k.Index, Err: errors.New("index not declared in the table")}
			}
			s.derived = append(s.derived, k)
		}
	}
	return s
}

// Table returns the store's table.
func (s *Store[T, PT]) Table() *Table { return s.t }

// Schema returns the entity's schema.
func (s *Store[T, PT]) Schema() *Schema { return s.schema }

func callOpts(optFns []func(*CallOptions)) CallOptions {
	var o CallOptions
	for _, fn := range optFns {
		fn(&o)
	}
	return o
}

func (s *Store[T, PT]) trace(o *CallOptions, op string, start time.Time, cc []types.ConsumedCapacity, err error) {
	tr := s.t.opts.Tracer
	if o.Trace != nil {
		tr = o.Trace
	}
	if tr == nil {
		return
	}
	tr.Trace(TraceEvent{Op: op, Table: s.t.name, Consumed: cc, Duration: time.Since(start), Err: err})
}

func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}

// KeyMap returns the primary key attributes of key in this table.
func (t *Table) KeyMap(key Key) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, 2)
	m[t.opts.PK] = &types.AttributeValueMemberS{Value: key.PK}
	if t.opts.SK != "" {
		m[t.opts.SK] = &types.AttributeValueMemberS{Value: key.SK}
	}
	return m
}

func (s *Store[T, PT]) checkKey(op string, key Key) error {
	if s.err != nil {
		return s.err
	}
	if key.PK == "" {
		return &ValidationError{Op: op, Type: s.schema.Type, Field: s.t.opts.PK, Err: errors.New("empty partition key")}
	}
	if s.t.opts.SK != "" && key.SK == "" {
		return &ValidationError{Op: op, Type: s.schema.Type, Field: s.t.opts.SK, Err: errors.New("empty sort key")}
	}
	return nil
}

// Get reads the item with the given key. It is eventually consistent
// unless [ConsistentRead] is given. It returns an error matching
// [ErrNotFound] when the item does not exist, and a [*ValidationError]
// for an empty key or an item of another Type.
func (s *Store[T, PT]) Get(ctx context.Context, key Key, optFns ...func(*CallOptions)) (T, error) {
	var v T
	if err := s.checkKey("Get", key); err != nil {
		return v, err
	}
	o := callOpts(optFns)
	in := &dynamodb.GetItemInput{
		TableName: &s.t.name,
		Key:       s.t.KeyMap(key),
	}
	if o.ConsistentRead {
		in.ConsistentRead = aws.Bool(true)
	}
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "GetItem", Input: in}
		return v, nil
	}
	if s.t.opts.Tracer != nil || o.Trace != nil {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	start := time.Now()
	out, err := s.t.client.GetItem(ctx, in, s.t.sdkOpts...)
	if err != nil {
		s.trace(&o, "GetItem", start, nil, err)
		return v, fmt.Errorf("entity: get %s %s/%s: %w", s.schema.Type, key.PK, key.SK, err)
	}
	s.trace(&o, "GetItem", start, one(out.ConsumedCapacity), nil)
	if len(out.Item) == 0 {
		return v, fmt.Errorf("entity: get %s %s/%s: %w", s.schema.Type, key.PK, key.SK, ErrNotFound)
	}
	if err := s.decode(out.Item, &v); err != nil {
		return v, err
	}
	return v, nil
}

func (s *Store[T, PT]) decode(item map[string]types.AttributeValue, v *T) error {
	if tv, ok := item[s.t.opts.TypeAttr].(*types.AttributeValueMemberS); ok && tv.Value != s.schema.Type {
		return &ValidationError{Op: "decode", Type: s.schema.Type, Field: s.t.opts.TypeAttr, Err: fmt.Errorf("item has Type %q", tv.Value)}
	}
	if err := PT(v).UnmarshalItem(item); err != nil {
		return fmt.Errorf("entity: decode %s: %w", s.schema.Type, err)
	}
	return nil
}

// Decode decodes an item of this entity (for instance from a query).
func (s *Store[T, PT]) Decode(item map[string]types.AttributeValue) (T, error) {
	var v T
	err := s.decode(item, &v)
	return v, err
}

func (s *Store[T, PT]) now() string {
	layout := s.schema.TimeLayout
	if layout == "" {
		if l, ok := s.layout.Load().(string); ok {
			layout = l
		} else {
			layout = TimeFormat
		}
	}
	return s.t.opts.Now().UTC().Format(layout)
}

// learnLayout infers the codec's timestamp layout from a value it wrote
// (keygen's isosec, iso and isonano have distinct lengths), so stamps
// always decode. Schema.TimeLayout, when set, wins.
func (s *Store[T, PT]) learnLayout(av types.AttributeValue) {
	v, ok := av.(*types.AttributeValueMemberS)
	if !ok || s.schema.TimeLayout != "" {
		return
	}
	switch len(v.Value) {
	case len(TimeFormat):
		s.layout.Store(TimeFormat)
	case len("2006-01-02T15:04:05.000Z"):
		s.layout.Store("2006-01-02T15:04:05.000Z")
	case len("2006-01-02T15:04:05.000000000Z"):
		s.layout.Store("2006-01-02T15:04:05.000000000Z")
	}
}

// TimeFormat is the layout of the automatic CreatedAt and UpdatedAt
// attributes: ISO 8601 in UTC with second precision ("2025-11-14T03:00:00Z"),
// whose byte order is time order.
const TimeFormat = "2006-01-02T15:04:05Z"

func str(v string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: v} }

func isEmptyAttr(av types.AttributeValue) bool {
	switch v := av.(type) {
	case nil:
		return true
	case *types.AttributeValueMemberS:
		return v.Value == "" || strings.HasPrefix(v.Value, "0001-01-01T00:00:00")
	case *types.AttributeValueMemberNULL:
		return true
	}
	return false
}

func versionOf(av types.AttributeValue) int64 {
	if n, ok := av.(*types.AttributeValueMemberN); ok {
		v, _ := strconv.ParseInt(n.Value, 10, 64)
		return v
	}
	return 0
}

// encode marshals v for a full-item write and stamps the automatic
// attributes. create reports a Create (version 1).
func (s *Store[T, PT]) encode(op string, v *T, o *CallOptions, create bool) (map[string]types.AttributeValue, Key, error) {
	if s.err != nil {
		return nil, Key{}, s.err
	}
	sc := s.schema
	pv := PT(v)
	key, err := pv.PrimaryKey()
	if err != nil {
		return nil, key, &ValidationError{Op: op, Type: sc.Type, Field: "key", Err: err}
	}
	if err := s.checkKey(op, key); err != nil {
		return nil, key, err
	}
	// Generated entities stamp their own timestamps (on a copy: the
	// caller's value is not modified), so that index keys built from them
	// (GSI1SK={CreatedAt}) and the stored attributes use the field's own
	// format.
	stamped := false
	if sc.CreatedAttr != "" || sc.UpdatedAttr != "" {
		if _, ok := any(pv).(TimeStamper); ok {
			cp := *v
			any(PT(&cp)).(TimeStamper).StampTimes(s.t.opts.Now().UTC(), o.KeepTimestamps)
			pv, stamped = PT(&cp), true
		}
	}
	item, err := pv.MarshalItem()
	if err != nil {
		return nil, key, &ValidationError{Op: op, Type: sc.Type, Err: err}
	}
	// The codec writes the key and Type attributes; set them only when it
	// did not (or wrote something else).
	if v, ok := item[s.t.opts.PK].(*types.AttributeValueMemberS); !ok || v.Value != key.PK {
		item[s.t.opts.PK] = str(key.PK)
	}
	if s.t.opts.SK != "" {
		if v, ok := item[s.t.opts.SK].(*types.AttributeValueMemberS); !ok || v.Value != key.SK {
			item[s.t.opts.SK] = str(key.SK)
		}
	}
	if v, ok := item[s.t.opts.TypeAttr].(*types.AttributeValueMemberS); !ok || v.Value != sc.Type {
		item[s.t.opts.TypeAttr] = str(sc.Type)
	}
	for _, k := range s.derived {
		if _, ok := item[k.Attr]; ok {
			continue
		}
		kv, err := k.Build(item)
		switch {
		case err == nil:
			item[k.Attr] = str(kv)
		case !k.Sparse:
			return nil, key, &ValidationError{Op: op, Type: sc.Type, Field: k.Attr, Err: fmt.Errorf("index %s key: %w", k.Index, err)}
		}
	}
	s.dropPartialSparse(item)
	if !stamped && (sc.CreatedAttr != "" || sc.UpdatedAttr != "") {
		if av, ok := item[sc.UpdatedAttr]; ok {
			s.learnLayout(av)
		} else if av, ok := item[sc.CreatedAttr]; ok {
			s.learnLayout(av)
		}
		now := s.now()
		if sc.CreatedAttr != "" && isEmptyAttr(item[sc.CreatedAttr]) {
			item[sc.CreatedAttr] = str(now)
		}
		if sc.UpdatedAttr != "" && (!o.KeepTimestamps || isEmptyAttr(item[sc.UpdatedAttr])) {
			item[sc.UpdatedAttr] = str(now)
		}
	}
	if sc.VersionAttr != "" {
		next := int64(1)
		if !create && o.Version > 0 {
			next = o.Version + 1
		}
		item[sc.VersionAttr] = &types.AttributeValueMemberN{Value: strconv.FormatInt(next, 10)}
	}
	if n := ItemSize(item); n > MaxItemSize {
		return nil, key, &ItemTooLargeError{Type: sc.Type, Key: key, Size: n}
	}
	return item, key, nil
}

type condExpr struct {
	expr   *string
	names  map[string]string
	values map[string]types.AttributeValue
}

// writeCond builds the condition of a write: the runtime's own part
// (existence, version) ANDed with the user's condition.
func (s *Store[T, PT]) writeCond(o *CallOptions, mustExist, mustNotExist bool) (condExpr, error) {
	var parts []expression.ConditionBuilder
	if mustNotExist {
		parts = append(parts, expression.AttributeNotExists(expression.Name(s.t.opts.PK)))
	}
	if mustExist {
		parts = append(parts, expression.AttributeExists(expression.Name(s.t.opts.PK)))
	}
	if s.schema.VersionAttr != "" && o.Version > 0 {
		parts = append(parts, expression.Name(s.schema.VersionAttr).Equal(expression.Value(o.Version)))
	}
	if o.Condition != nil {
		parts = append(parts, *o.Condition)
	}
	if len(parts) == 0 {
		return condExpr{}, nil
	}
	c := parts[0]
	if len(parts) > 1 {
		c = expression.And(parts[0], parts[1], parts[2:]...)
	}
	e, err := expression.NewBuilder().WithCondition(c).Build()
	if err != nil {
		return condExpr{}, &ValidationError{Op: "condition", Type: s.schema.Type, Err: err}
	}
	return condExpr{expr: e.Condition(), names: e.Names(), values: e.Values()}, nil
}

// putInput prepares the PutItem of Create (create) or Put.
func (s *Store[T, PT]) putInput(op string, v *T, o *CallOptions, create bool) (*dynamodb.PutItemInput, map[string]types.AttributeValue, Key, error) {
	item, key, err := s.encode(op, v, o, create)
	if err != nil {
		return nil, nil, key, err
	}
	mustNotExist := create || (s.schema.VersionAttr != "" && o.Version == 0)
	if create && o.Version != 0 {
		return nil, nil, key, &ValidationError{Op: op, Type: s.schema.Type, Field: "Version", Err: errors.New("Create takes no expected version")}
	}
	c, err := s.writeCond(o, false, mustNotExist)
	if err != nil {
		return nil, nil, key, err
	}
	in := &dynamodb.PutItemInput{
		TableName:                 &s.t.name,
		Item:                      item,
		ConditionExpression:       c.expr,
		ExpressionAttributeNames:  c.names,
		ExpressionAttributeValues: c.values,
	}
	if c.expr != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, item, key, nil
}

// Create writes v as a new item: it fails with an error matching
// [ErrAlreadyExists] and [ErrConditionFailed] when an item with the same
// key exists. It stamps Type, CreatedAt (kept when v carries one),
// UpdatedAt and version 1, and refreshes v with what it wrote.
// Bad input is a [*ValidationError]; an item over 400 KB an
// [*ItemTooLargeError]. Nothing is written on error.
func (s *Store[T, PT]) Create(ctx context.Context, v *T, optFns ...func(*CallOptions)) error {
	return s.put(ctx, "Create", v, callOpts(optFns), true)
}

// Put writes v whole, replacing any item with the same key (an upsert
// with PutItem semantics). CreatedAt is the one v carries (as after a
// Get) or now; UpdatedAt is now. For a versioned entity, [IfVersion]
// gives the version v was read at (it becomes version+1); without it the
// item must not exist yet. A failed check is [ErrVersionConflict] or
// [ErrConditionFailed]. v is refreshed with what was written.
func (s *Store[T, PT]) Put(ctx context.Context, v *T, optFns ...func(*CallOptions)) error {
	return s.put(ctx, "Put", v, callOpts(optFns), false)
}

func (s *Store[T, PT]) put(ctx context.Context, op string, v *T, o CallOptions, create bool) error {
	in, item, key, err := s.putInput(op, v, &o, create)
	if err != nil {
		return err
	}
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "PutItem", Input: in}
		return nil
	}
	if s.t.opts.Tracer != nil || o.Trace != nil {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	start := time.Now()
	out, err := s.t.client.PutItem(ctx, in)
	if err != nil {
		s.trace(&o, "PutItem", start, nil, err)
		return s.writeErr(op, key, &o, create, err)
	}
	s.trace(&o, "PutItem", start, one(out.ConsumedCapacity), nil)
	if s.schema.CreatedAttr != "" || s.schema.UpdatedAttr != "" || s.schema.VersionAttr != "" {
		if err := PT(v).UnmarshalItem(item); err != nil {
			return fmt.Errorf("entity: refresh %s: %w", s.schema.Type, err)
		}
	}
	return nil
}

// writeErr translates a failed write.
func (s *Store[T, PT]) writeErr(op string, key Key, o *CallOptions, create bool, err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return s.condErr(op, key, o, create, ccf.Item, err)
	}
	var big *types.ItemCollectionSizeLimitExceededException
	var api smithy.APIError
	if errors.As(err, &big) || (errors.As(err, &api) && api.ErrorCode() == "ValidationException" && strings.Contains(api.ErrorMessage(), "exceeded the maximum allowed size")) {
		return fmt.Errorf("entity: %s %s %s/%s: %w: %w", op, s.schema.Type, key.PK, key.SK, ErrItemTooLarge, err)
	}
	return fmt.Errorf("entity: %s %s %s/%s: %w", op, s.schema.Type, key.PK, key.SK, err)
}

// condErr explains a condition failure from the old item.
func (s *Store[T, PT]) condErr(op string, key Key, o *CallOptions, create bool, old map[string]types.AttributeValue, err error) error {
	ce := &ConditionError{Op: op, Table: s.t.name, Type: s.schema.Type, Key: key, Old: old, Err: err}
	switch {
	case create && len(old) > 0:
		ce.cause = ErrAlreadyExists
	case len(old) == 0 && (op == "Update" || op == "Delete") && o.Version > 0:
		ce.cause = ErrNotFound
	case len(old) == 0 && op == "Update":
		ce.cause = ErrNotFound
	case s.schema.VersionAttr != "" && len(old) > 0:
		got := versionOf(old[s.schema.VersionAttr])
		if o.Version > 0 && got != o.Version {
			return &VersionConflictError{Op: op, Type: s.schema.Type, Key: key, Expected: o.Version, Actual: got}
		}
		if o.Version == 0 && !create && op == "Put" {
			return &VersionConflictError{Op: op, Type: s.schema.Type, Key: key, Expected: 0, Actual: got}
		}
	}
	return ce
}

// Delete deletes the item with the given key. For a versioned entity
// [IfVersion] is required, and a mismatch is [ErrVersionConflict]; a
// missing item then matches [ErrNotFound]. Without a version or condition,
// deleting a missing item succeeds.
func (s *Store[T, PT]) Delete(ctx context.Context, key Key, optFns ...func(*CallOptions)) error {
	o := callOpts(optFns)
	in, err := s.deleteInput(key, &o)
	if err != nil {
		return err
	}
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "DeleteItem", Input: in}
		return nil
	}
	if s.t.opts.Tracer != nil || o.Trace != nil {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	start := time.Now()
	out, err := s.t.client.DeleteItem(ctx, in)
	if err != nil {
		s.trace(&o, "DeleteItem", start, nil, err)
		return s.writeErr("Delete", key, &o, false, err)
	}
	s.trace(&o, "DeleteItem", start, one(out.ConsumedCapacity), nil)
	return nil
}

func (s *Store[T, PT]) deleteInput(key Key, o *CallOptions) (*dynamodb.DeleteItemInput, error) {
	if err := s.checkKey("Delete", key); err != nil {
		return nil, err
	}
	if s.schema.VersionAttr != "" && o.Version <= 0 {
		return nil, &ValidationError{Op: "Delete", Type: s.schema.Type, Field: s.schema.VersionAttr, Err: errors.New("versioned entity: IfVersion is required")}
	}
	c, err := s.writeCond(o, o.Version > 0, false)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.DeleteItemInput{
		TableName:                 &s.t.name,
		Key:                       s.t.KeyMap(key),
		ConditionExpression:       c.expr,
		ExpressionAttributeNames:  c.names,
		ExpressionAttributeValues: c.values,
	}
	if c.expr != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, nil
}

// Update modifies the existing item with the given key and returns it as
// it is after the update. It fails with [ErrNotFound] (inside a
// [*ConditionError]) when the item does not exist.
//
// Every write sets Type and UpdatedAt, and CreatedAt if it is missing.
// For a versioned entity [IfVersion] is required; the version is checked
// and incremented, and a mismatch is a [*VersionConflictError].
//
// Index keys never drift: when a change touches a source of a secondary
// index key, the key is recomputed from the update's values and the
// primary key, and written in the same request. If a source is missing
// the update fails with a [*ValidationError] and nothing is written; when
// a source of a sparse index key is removed or emptied, every key
// attribute of that index is removed (a sparse index is whole or absent).
// Primary key attributes and their sources cannot be changed.
func (s *Store[T, PT]) Update(ctx context.Context, key Key, changes Changes[T], optFns ...func(*CallOptions)) (T, error) {
	var v T
	o := callOpts(optFns)
	in, err := s.updateInput(key, changes, &o)
	if err != nil {
		return v, err
	}
	in.ReturnValues = types.ReturnValueAllNew
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "UpdateItem", Input: in}
		return v, nil
	}
	if s.t.opts.Tracer != nil || o.Trace != nil {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	start := time.Now()
	out, err := s.t.client.UpdateItem(ctx, in)
	if err != nil {
		s.trace(&o, "UpdateItem", start, nil, err)
		return v, s.writeErr("Update", key, &o, false, err)
	}
	s.trace(&o, "UpdateItem", start, one(out.ConsumedCapacity), nil)
	err = s.decode(out.Attributes, &v)
	return v, err
}

func (s *Store[T, PT]) updateInput(key Key, changes Changes[T], o *CallOptions) (*dynamodb.UpdateItemInput, error) {
	const op = "Update"
	sc := s.schema
	if err := s.checkKey(op, key); err != nil {
		return nil, err
	}
	if sc.VersionAttr != "" && o.Version <= 0 {
		return nil, &ValidationError{Op: op, Type: sc.Type, Field: sc.VersionAttr, Err: errors.New("versioned entity: IfVersion is required")}
	}
	if len(changes) == 0 {
		return nil, &ValidationError{Op: op, Type: sc.Type, Err: errors.New("no changes")}
	}
	var (
		ub        expression.UpdateBuilder
		vals      = map[string]types.AttributeValue{}
		touched   = map[string]bool{}
		removed   = map[string]bool{}
		uncertain = map[string]bool{}
	)
	auto := map[string]bool{s.t.opts.TypeAttr: true, s.t.opts.PK: true, s.t.opts.SK: true}
	for _, a := range []string{sc.VersionAttr, sc.CreatedAttr, sc.UpdatedAttr} {
		if a != "" {
			auto[a] = true
		}
	}
	for _, k := range sc.Keys {
		if !s.plain[k.Attr] {
			auto[k.Attr] = true // derived index keys are the runtime's
		}
	}
	for i, c := range changes {
		if c.kind == 0 {
			return nil, &ValidationError{Op: op, Type: sc.Type, Err: fmt.Errorf("change %d is the zero Change", i)}
		}
		if c.err != nil {
			return nil, &ValidationError{Op: op, Type: sc.Type, Field: c.name, Err: c.err}
		}
		if auto[c.name] || s.srcOf[c.name] {
			return nil, &ValidationError{Op: op, Type: sc.Type, Field: c.name, Err: errors.New("attribute is a primary key source or maintained by the runtime")}
		}
		if touched[c.name] {
			return nil, &ValidationError{Op: op, Type: sc.Type, Field: c.name, Err: errors.New("attribute changed twice")}
		}
		touched[c.name] = true
		name := expression.Name(c.name)
		switch c.kind {
		case changeSet:
			av := c.val.(types.AttributeValue)
			vals[c.name] = av
			if isEmptyAttr(av) {
				removed[c.name] = true
			}
			ub = ub.Set(name, expression.Value(av))
		case changeAdd:
			uncertain[c.name] = true
			ub = ub.Add(name, expression.Value(c.val))
		case changeSetIfNotExists:
			uncertain[c.name] = true
			ub = ub.Set(name, name.IfNotExists(expression.Value(c.val)))
		case changeRemove:
			removed[c.name] = true
			ub = ub.Remove(name)
		}
	}
	now := s.now()
	ub = ub.Set(expression.Name(s.t.opts.TypeAttr), expression.Value(str(sc.Type)))
	if sc.UpdatedAttr != "" {
		vals[sc.UpdatedAttr] = str(now)
		touched[sc.UpdatedAttr] = true
		ub = ub.Set(expression.Name(sc.UpdatedAttr), expression.Value(str(now)))
	}
	if sc.CreatedAttr != "" {
		n := expression.Name(sc.CreatedAttr)
		ub = ub.Set(n, n.IfNotExists(expression.Value(str(now))))
	}
	if sc.VersionAttr != "" {
		ub = ub.Set(expression.Name(sc.VersionAttr), expression.Value(&types.AttributeValueMemberN{Value: strconv.FormatInt(o.Version+1, 10)}))
	}
	// Index keys: when a source of a key changed, recompute it. For a
	// sparse index recompute every key of the index, as the item may just
	// be entering it.
	if len(s.derived) > 0 {
		s.primarySources(key, vals)
		for _, group := range s.indexGroups() {
			hit, gone := false, false
			for _, k := range group {
				for _, src := range k.Sources {
					if touched[src] {
						hit = true
					}
				}
			}
			if !hit {
				continue
			}
			for _, k := range group {
				for _, src := range k.Sources {
					if uncertain[src] {
						return nil, &ValidationError{Op: op, Type: sc.Type, Field: src, Err: fmt.Errorf("index %s key %s cannot be computed: %s changed by Add or SetIfNotExists", k.Index, k.Attr, src)}
					}
					if removed[src] {
						gone = true
					}
				}
			}
			if gone && group[0].Sparse {
				for _, k := range group {
					ub = ub.Remove(expression.Name(k.Attr))
				}
				continue
			}
			for _, k := range group {
				own := false
				for _, src := range k.Sources {
					own = own || touched[src]
				}
				if !own && !k.Sparse {
					// A non-sparse key is always present; it did not change.
					continue
				}
				if gone {
					return nil, &ValidationError{Op: op, Type: sc.Type, Field: k.Attr, Err: fmt.Errorf("index %s key needs %v: %w", k.Index, k.Sources, errMissingSource)}
				}
				kv, err := k.Build(vals)
				if err != nil {
					return nil, &ValidationError{Op: op, Type: sc.Type, Field: k.Attr, Err: fmt.Errorf("index %s key needs %v: %w", k.Index, k.Sources, err)}
				}
				ub = ub.Set(expression.Name(k.Attr), expression.Value(str(kv)))
			}
		}
	}
	c, err := s.condBuilder(o, true)
	if err != nil {
		return nil, err
	}
	b := expression.NewBuilder().WithUpdate(ub).WithCondition(c)
	e, err := b.Build()
	if err != nil {
		return nil, &ValidationError{Op: op, Type: sc.Type, Err: err}
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                           &s.t.name,
		Key:                                 s.t.KeyMap(key),
		UpdateExpression:                    e.Update(),
		ConditionExpression:                 e.Condition(),
		ExpressionAttributeNames:            e.Names(),
		ExpressionAttributeValues:           e.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return in, nil
}

var errMissingSource = errors.New("source removed or empty")

// dropPartialSparse writes a sparse index whole or not at all: when one of
// its derived key attributes could not be built, the others are left out
// too (DynamoDB would not index the item anyway, and a stray half key
// would only mislead readers of the item). An attribute that another,
// complete index also uses is kept.
func (s *Store[T, PT]) dropPartialSparse(item map[string]types.AttributeValue) {
	groups := s.indexGroups()
	complete := make([]bool, len(groups))
	for i, g := range groups {
		complete[i] = true
		for _, k := range g {
			if _, ok := item[k.Attr]; !ok {
				complete[i] = false
			}
		}
	}
	for i, g := range groups {
		if complete[i] || !g[0].Sparse {
			continue
		}
	attrs:
		for _, k := range g {
			for j, o := range groups {
				if j == i || !complete[j] {
					continue
				}
				for _, ok := range o {
					if ok.Attr == k.Attr {
						continue attrs
					}
				}
			}
			delete(item, k.Attr)
		}
	}
}

// indexGroups returns the derived keys grouped by index, in schema order.
func (s *Store[T, PT]) indexGroups() [][]KeyAttr {
	var out [][]KeyAttr
	pos := map[string]int{}
	for _, k := range s.derived {
		i, ok := pos[k.Index]
		if !ok {
			i = len(out)
			pos[k.Index] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], k)
	}
	return out
}

func (s *Store[T, PT]) condBuilder(o *CallOptions, mustExist bool) (expression.ConditionBuilder, error) {
	c := expression.AttributeExists(expression.Name(s.t.opts.PK))
	if !mustExist {
		c = expression.AttributeNotExists(expression.Name(s.t.opts.PK))
	}
	if s.schema.VersionAttr != "" && o.Version > 0 {
		c = c.And(expression.Name(s.schema.VersionAttr).Equal(expression.Value(o.Version)))
	}
	if o.Condition != nil {
		c = c.And(*o.Condition)
	}
	return c, nil
}

// primarySources adds to vals the string source attributes of the
// primary key, parsed back from key through the key templates.
func (s *Store[T, PT]) primarySources(key Key, vals map[string]types.AttributeValue) {
	for i, k := range s.primary {
		if s.primaryT[i] == nil {
			continue
		}
		v := key.PK
		if k.Role == "sk" {
			v = key.SK
		}
		parts, err := s.primaryT[i].Parse(v)
		if err != nil || len(parts) != len(k.Sources) {
			continue
		}
		for j, name := range k.Sources {
			if _, ok := vals[name]; !ok {
				vals[name] = str(parts[j])
			}
		}
	}
}
