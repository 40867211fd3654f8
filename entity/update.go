package entity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/keys"
)

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
// primary key, and written in the same request. If a source is removed or
// emptied the update fails with a [*ValidationError] that matches
// keys.ErrMissingField, as Create does, and nothing is written; when a
// source of a sparse index key is removed or emptied, every key attribute
// of that index is removed instead (a sparse index is whole or absent).
// Primary key attributes and their sources cannot be changed.
//
// Unique fields: an update that touches no unique field (nor the scope of
// one) is this single UpdateItem. One that does reads the item (strongly
// consistent), then sends the update, the delete of each guard it frees
// (on the condition that the guard is this item's) and the put of each
// guard it takes (on the condition that it is free) in one
// TransactWriteItems, on the condition that the item is still as read
// (its version, or every attribute); the item returned is computed from
// the one read and the update. A taken value is a [*UniqueError]; a
// concurrent change makes it read again.
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
	if len(s.schema.Unique) > 0 && s.touchesUnique(changes) {
		return s.updateUnique(ctx, key, in, &o)
	}
	out, err := send(ctx, s.t, s.tracer(&o), "UpdateItem", "", in, s.t.client.UpdateItem, s.t.sdkOpts...)
	if err != nil {
		return v, s.fail("Update", key, &o, false, err)
	}
	err = s.decode(out.Attributes, &v)
	return v, err
}

// UpdateInput builds the UpdateItem request of [Store.Update] without
// sending it.
func (s *Store[T, PT]) UpdateInput(key Key, changes Changes[T], optFns ...func(*CallOptions)) (*dynamodb.UpdateItemInput, error) {
	o := callOpts(optFns)
	in, err := s.updateInput(key, changes, &o)
	if err != nil {
		return nil, err
	}
	in.ReturnValues = types.ReturnValueAllNew
	return in, nil
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
	if o.Version != 0 && sc.VersionAttr == "" {
		return nil, s.unversioned(op)
	}
	if len(changes) == 0 {
		return nil, &ValidationError{Op: op, Type: sc.Type, Err: errors.New("no changes")}
	}
	var (
		acts      = make([]updAction, 0, len(changes)+4)
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
		switch c.kind {
		case changeSet:
			av := c.val.(types.AttributeValue)
			vals[c.name] = av
			if isEmptyAttr(av) {
				removed[c.name] = true
			}
			acts = append(acts, updAction{mode: updSet, name: c.name, val: av})
		case changeAdd:
			uncertain[c.name] = true
			acts = append(acts, updAction{mode: updAdd, name: c.name, val: c.val.(types.AttributeValue)})
		case changeSetIfNotExists:
			uncertain[c.name] = true
			acts = append(acts, updAction{mode: updSet, name: c.name, val: c.val.(types.AttributeValue), ifNotExists: true})
		case changeRemove:
			removed[c.name] = true
			acts = append(acts, updAction{mode: updRemove, name: c.name})
		}
	}
	now := str(s.now())
	acts = append(acts, updAction{mode: updSet, name: s.t.opts.TypeAttr, val: str(sc.Type)})
	if sc.UpdatedAttr != "" {
		vals[sc.UpdatedAttr] = now
		touched[sc.UpdatedAttr] = true
		acts = append(acts, updAction{mode: updSet, name: sc.UpdatedAttr, val: now})
	}
	if sc.CreatedAttr != "" {
		acts = append(acts, updAction{mode: updSet, name: sc.CreatedAttr, val: now, ifNotExists: true})
	}
	if sc.VersionAttr != "" {
		acts = append(acts, updAction{mode: updSet, name: sc.VersionAttr, val: &types.AttributeValueMemberN{Value: strconv.FormatInt(o.Version+1, 10)}})
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
					acts = append(acts, updAction{mode: updRemove, name: k.Attr})
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
					return nil, &ValidationError{Op: op, Type: sc.Type, Field: k.Attr, Err: fmt.Errorf("index %s key: %w", k.Index, missingSource(k, removed))}
				}
				kv, err := k.Build(vals)
				if err != nil {
					return nil, &ValidationError{Op: op, Type: sc.Type, Field: k.Attr, Err: partialIndexKey(k, vals, touched, err)}
				}
				acts = append(acts, updAction{mode: updSet, name: k.Attr, val: str(kv)})
			}
		}
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                           &s.t.name,
		Key:                                 s.t.KeyMap(key),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	simple := s.fastCond(o)
	for i := 0; simple && i < len(acts); i++ {
		simple = simpleName(acts[i].name)
	}
	if simple {
		// The condition is aliased first, as the expression package does.
		parts, n := s.condParts(o, mustExist)
		var w exprWriter
		in.ConditionExpression = w.condition(parts[:n])
		in.UpdateExpression = w.update(acts)
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = w.maps()
		return in, nil
	}
	c, _ := s.condition(o, mustExist)
	e, err := expression.NewBuilder().WithUpdate(updBuilder(acts)).WithCondition(c).Build()
	if err != nil {
		return nil, &ValidationError{Op: op, Type: sc.Type, Err: err}
	}
	in.UpdateExpression, in.ConditionExpression = e.Update(), e.Condition()
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.Names(), e.Values()
	return in, nil
}

// missingSource is the error of an index key whose source an update
// removes or empties: a *keys.Error wrapping keys.ErrMissingField, naming
// the template's field as the generated key builders do for a missing
// source.
func missingSource(k KeyAttr, removed map[string]bool) error {
	var fields []string
	if t, err := keys.New(k.Template); err == nil {
		fields = t.Fields()
	}
	for i, src := range k.Sources {
		if removed[src] {
			if len(fields) == len(k.Sources) {
				src = fields[i]
			}
			return &keys.Error{Template: k.Template, Field: src, Err: keys.ErrMissingField}
		}
	}
	return &keys.Error{Template: k.Template, Err: keys.ErrMissingField}
}

// partialIndexKey is the error of an index key that an update cannot
// rebuild because it changes some of its sources but not the others: it
// names the sources to set in the same update.
func partialIndexKey(k KeyAttr, vals map[string]types.AttributeValue, touched map[string]bool, err error) error {
	var missing, changed []string
	for _, src := range k.Sources {
		switch {
		case touched[src]:
			changed = append(changed, src)
		case vals[src] == nil:
			missing = append(missing, src)
		}
	}
	if len(missing) == 0 {
		return fmt.Errorf("index %s key %s needs %v: %w", k.Index, k.Attr, k.Sources, err)
	}
	return fmt.Errorf("index %s key %s is built from %s; the update changes %s: set %s in the same update (with its current value if it does not change): %w",
		k.Index, k.Attr, strings.Join(k.Sources, " and "), strings.Join(changed, " and "), strings.Join(missing, " and "), err)
}
