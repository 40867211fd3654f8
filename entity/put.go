package entity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Create writes v as a new item: it fails with an error matching
// [ErrAlreadyExists] and [ErrConditionFailed] when an item with the same
// key exists. It stamps Type, CreatedAt (kept when v carries one),
// UpdatedAt and version 1, and refreshes v with what it wrote.
// Bad input is a [*ValidationError] (a missing key or index-key source
// also matches keys.ErrMissingField, a key over its limit
// keys.ErrTooLarge); an item over 400 KB an [*ItemTooLargeError]; a
// unique value another item holds a [*UniqueError]. Nothing is written
// on error. An entity with unique fields is written with its guards in
// one TransactWriteItems (no read); [DryRun] then captures the PutItem
// of the item alone.
func (s *Store[T, PT]) Create(ctx context.Context, v *T, optFns ...func(*CallOptions)) error {
	return s.put(ctx, "Create", v, callOpts(optFns), true)
}

// Put writes v whole, replacing any item with the same key (an upsert
// with PutItem semantics). CreatedAt is the one v carries (as after a
// Get) or now; UpdatedAt is now. For a versioned entity, [IfVersion]
// gives the version v was read at (it becomes version+1); without it the
// item must not exist yet. A failed check is [ErrVersionConflict] or
// [ErrConditionFailed]. v is refreshed with what was written. Bad input
// fails as in [Store.Create]. For an entity with unique fields, a Put
// that may replace an item first reads it (strongly consistent) and then
// writes the item and moves its guards in one TransactWriteItems, on the
// condition that the values read are still there (a concurrent change
// makes it read again); a Put that requires the item to be absent reads
// nothing.
func (s *Store[T, PT]) Put(ctx context.Context, v *T, optFns ...func(*CallOptions)) error {
	return s.put(ctx, "Put", v, callOpts(optFns), false)
}

// CreateInput builds the PutItem request of [Store.Create] without
// sending it; v is not modified.
func (s *Store[T, PT]) CreateInput(v *T, optFns ...func(*CallOptions)) (*dynamodb.PutItemInput, error) {
	o := callOpts(optFns)
	in, _, _, err := s.putInput("Create", v, &o, true, false, nil)
	return in, err
}

// PutInput builds the PutItem request of [Store.Put] without sending it;
// v is not modified.
func (s *Store[T, PT]) PutInput(v *T, optFns ...func(*CallOptions)) (*dynamodb.PutItemInput, error) {
	o := callOpts(optFns)
	in, _, _, err := s.putInput("Put", v, &o, false, false, nil)
	return in, err
}

func (s *Store[T, PT]) put(ctx context.Context, op string, v *T, o CallOptions, create bool) error {
	// The item map goes back to s.items once the call is done with it,
	// unless it leaves the call (a dry run, a unique field's transaction).
	reuse := s.items != nil && o.DryRun == nil && len(s.schema.Unique) == 0
	var scratch *T
	if reuse && s.stamps {
		// The copy the timestamps are stamped on is reused too, once
		// the request is done: a codec may put memory of it in the item.
		scratch, _ = s.copies.Get().(*T)
		if scratch == nil {
			scratch = new(T)
		}
		defer s.reuseCopy(scratch)
	}
	in, item, key, err := s.putInput(op, v, &o, create, reuse, scratch)
	if err != nil {
		return err
	}
	if reuse {
		defer s.reuse(item)
	}
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "PutItem", Input: in}
		return nil
	}
	if len(s.schema.Unique) > 0 {
		if err := s.putUnique(ctx, op, in, item, key, &o, create); err != nil {
			return err
		}
	} else if _, err := send(ctx, s.t, s.tracer(&o), "PutItem", "", in, s.t.client.PutItem, s.t.sdkOpts...); err != nil {
		return s.fail(op, key, &o, create, err)
	}
	if s.schema.CreatedAttr != "" || s.schema.UpdatedAttr != "" || s.schema.VersionAttr != "" {
		if err := s.refresh(v, item); err != nil {
			return fmt.Errorf("entity: refresh %s: %w", s.schema.Type, err)
		}
	}
	return nil
}

// refresh makes v what was written: item, encoded from v. A codec that
// can tell (ItemRefresher) decodes only the fields whose stored form may
// differ from their value, unless one of its attributes is a key or the
// Type attribute of this table (whose values the runtime may set).
func (s *Store[T, PT]) refresh(v *T, item map[string]types.AttributeValue) error {
	if s.refreshes {
		return any(PT(v)).(ItemRefresher).RefreshItem(item)
	}
	return PT(v).UnmarshalItem(item)
}

// putInput prepares the PutItem of Create (create) or Put.
func (s *Store[T, PT]) putInput(op string, v *T, o *CallOptions, create, reuse bool, scratch *T) (*dynamodb.PutItemInput, map[string]types.AttributeValue, Key, error) {
	if create && o.Version != 0 {
		return nil, nil, Key{}, &ValidationError{Op: op, Type: s.schema.Type, Field: "Version", Err: errors.New("Create takes no expected version")}
	}
	if o.Version != 0 && s.schema.VersionAttr == "" {
		return nil, nil, Key{}, s.unversioned(op)
	}
	item, key, err := s.encode(op, v, o, create, reuse, scratch)
	if err != nil {
		return nil, nil, key, err
	}
	e := anyItem
	if create || (s.schema.VersionAttr != "" && o.Version == 0) {
		e = mustNot
	}
	c, err := s.writeCond(op, o, e)
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

// encode marshals v for a full-item write and stamps the automatic
// attributes. create reports a Create (version 1). The timestamps are
// stamped on a copy of v, in scratch when it is not nil (see
// Store.copies).
func (s *Store[T, PT]) encode(op string, v *T, o *CallOptions, create, reuse bool, scratch *T) (map[string]types.AttributeValue, Key, error) {
	sc := s.schema
	pv := PT(v)
	// The key is the one PrimaryKey builds from v. A generated codec
	// writes that same key into the item, so when no timestamp it stamps
	// below is a source of the key, it is read from the item instead of
	// being built twice; a codec that does not write it (a hand-written
	// entity) gets PrimaryKey's.
	var key Key
	if !s.stampFree {
		k, err := s.primaryKey(op, pv)
		if err != nil {
			return nil, k, err
		}
		key = k
	}
	// Generated entities stamp their own timestamps (on a copy: the
	// caller's value is not modified), so that index keys built from them
	// (GSI1SK={CreatedAt}) and the stored attributes use the field's own
	// format.
	stamped := false
	if s.stamps {
		cp := scratch
		if cp == nil {
			cp = new(T)
		}
		*cp = *v
		any(PT(cp)).(TimeStamper).StampTimes(s.t.opts.Now().UTC(), o.KeepTimestamps)
		pv, stamped = PT(cp), true
	}
	item, err := s.marshal(pv, reuse)
	if err != nil {
		if k, kerr := s.primaryKey(op, PT(v)); kerr != nil {
			return nil, k, kerr
		}
		return nil, key, &ValidationError{Op: op, Type: sc.Type, Err: err}
	}
	if s.stampFree {
		k, ok := s.itemKey(item)
		if !ok {
			if k, err = s.primaryKey(op, PT(v)); err != nil {
				return nil, k, err
			}
		}
		key = k
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

// marshal encodes v, into a map of s.items when reuse is set.
func (s *Store[T, PT]) marshal(v PT, reuse bool) (map[string]types.AttributeValue, error) {
	if reuse {
		m, _ := s.items.Get().(map[string]types.AttributeValue)
		return any(v).(ItemMarshalerTo).MarshalItemTo(m)
	}
	return v.MarshalItem()
}

// reuse gives item, sent and done with, back to s.items.
func (s *Store[T, PT]) reuse(item map[string]types.AttributeValue) {
	clear(item)
	s.items.Put(item)
}

// reuseCopy clears cp, a copy of Store.copies done with, and gives it
// back.
func (s *Store[T, PT]) reuseCopy(cp *T) {
	*cp = *new(T)
	s.copies.Put(cp)
}

// primaryKey is v's PrimaryKey, checked; its errors are ValidationErrors.
func (s *Store[T, PT]) primaryKey(op string, v PT) (Key, error) {
	key, err := v.PrimaryKey()
	if err != nil {
		return key, &ValidationError{Op: op, Type: s.schema.Type, Field: "key", Err: err}
	}
	return key, s.checkKey(op, key)
}

// itemKey is the primary key a codec wrote into item, if it wrote one
// that passes checkKey.
func (s *Store[T, PT]) itemKey(item map[string]types.AttributeValue) (Key, bool) {
	pk, ok := item[s.t.opts.PK].(*types.AttributeValueMemberS)
	if !ok || pk.Value == "" {
		return Key{}, false
	}
	key := Key{PK: pk.Value}
	if s.t.opts.SK != "" {
		sk, ok := item[s.t.opts.SK].(*types.AttributeValueMemberS)
		if !ok || sk.Value == "" {
			return Key{}, false
		}
		key.SK = sk.Value
	}
	return key, true
}

// TimeFormat is the layout of the automatic CreatedAt and UpdatedAt
// attributes when the schema names none: ISO 8601 in UTC with second
// precision ("2025-11-14T03:00:00Z"), whose byte order is time order.
const TimeFormat = "2006-01-02T15:04:05Z"

// now is the current time in the schema's TimeLayout (TimeFormat when
// the schema names none).
func (s *Store[T, PT]) now() string {
	layout := s.schema.TimeLayout
	if layout == "" {
		layout = TimeFormat
	}
	return s.t.opts.Now().UTC().Format(layout)
}

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
