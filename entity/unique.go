package entity

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/keys"
)

// Unique fields (keygen tag option unique, or unique=Scope) are kept
// unique by one guard item per value, in the same table:
//
//	PK = UNIQUE#<Type>#<attr>[#<scope value>...]#<value>   (every segment escaped as keys are)
//	SK = UNIQUE                                            (when the table has a sort key)
//	Type = UNIQUE, holderPK and holderSK = the key of the item holding the value
//
// A guard is written in the same transaction as its item, and only by
// the runtime; see [Store.Create], [Store.Put], [Store.Update] and
// [Store.Delete] for what each write costs.

// UniqueAttr is a unique attribute of an entity (Schema.Unique): its value
// is held by at most one item of the entity in the table, or, with a
// Scope, by at most one item among those with the same values of the
// scope attributes (an email unique within an account).
type UniqueAttr struct {
	// Attr is the unique attribute; a string or number attribute.
	Attr string
	// Scope lists the attributes whose values scope the uniqueness, in
	// order; empty for uniqueness in the whole table.
	Scope []string
}

// The attributes of a guard item.
const (
	// GuardType is the Type attribute of every guard item, and the first
	// segment and the sort key of its key.
	GuardType = "UNIQUE"
	// GuardHolderPK and GuardHolderSK hold the primary key of the item
	// that holds the guarded value.
	GuardHolderPK = "holderPK"
	GuardHolderSK = "holderSK"
)

// ErrUniqueViolation is matched by every [*UniqueError]: a write that
// would give a unique value to a second item.
var ErrUniqueViolation = errors.New("entity: unique value already taken")

// UniqueError reports a write refused because another item holds the value
// of a unique attribute. Nothing was written. It matches
// [ErrUniqueViolation] and [ErrConditionFailed].
type UniqueError struct {
	Op    string // "Create", "Put", "Update", "Transact"
	Type  string // the entity type
	Attr  string // the unique attribute
	Value string // the value, as stored (a number in its decimal form)
	Scope []string
	// Holder is the key of the item that holds the value; empty when
	// DynamoDB did not return the guard.
	Holder Key
	Err    error // the SDK error
}

func (e *UniqueError) Error() string {
	s := "entity: " + e.Op + " " + e.Type + ": " + e.Attr + " " + strconv.Quote(e.Value)
	if len(e.Scope) > 0 {
		s += fmt.Sprintf(" (within %q)", e.Scope)
	}
	s += " is already taken"
	if e.Holder.PK != "" {
		s += " by " + e.Holder.PK + "/" + e.Holder.SK
	}
	return s + ": choose another value, or free it first (change or delete the holder)"
}

// Unwrap returns [ErrUniqueViolation], [ErrConditionFailed] and the SDK error.
func (e *UniqueError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUniqueViolation, ErrConditionFailed, e.Err}
	}
	return []error{ErrUniqueViolation, ErrConditionFailed}
}

// Guard is the guard item one unique value of an item needs.
type Guard struct {
	Attr  string // the unique attribute
	Value string // its value as stored
	Scope []string
	Key   Key // the guard item's key
}

// GuardKey returns the key of the guard item of value (as stored: the
// string, or a number's decimal form) of the unique attribute attr of
// entity type typ, within the scope values (in the order of
// UniqueAttr.Scope). It fails with a [*ValidationError] for an empty value
// or scope value, and one matching keys.ErrTooLarge for a key over its
// limit.
func (t *Table) GuardKey(typ, attr, value string, scope ...string) (Key, error) {
	if value == "" {
		return Key{}, &ValidationError{Op: "GuardKey", Type: typ, Field: attr, Err: &keys.Error{Field: attr, Err: keys.ErrMissingField}}
	}
	n := len(GuardType) + 2 + keys.EscapedLen(typ) + keys.EscapedLen(attr) + keys.EscapedLen(value)
	for _, s := range scope {
		n += 1 + keys.EscapedLen(s)
	}
	b := make([]byte, 0, n)
	b = append(b, GuardType+"#"...)
	b = keys.AppendEscaped(b, typ)
	b = append(b, '#')
	b = keys.AppendEscaped(b, attr)
	for i, s := range scope {
		if s == "" {
			return Key{}, &ValidationError{Op: "GuardKey", Type: typ, Field: attr, Err: fmt.Errorf("unique %s is scoped by scope value %d, which is empty: %w", attr, i, keys.ErrMissingField)}
		}
		b = append(b, '#')
		b = keys.AppendEscaped(b, s)
	}
	b = append(b, '#')
	b = keys.AppendEscaped(b, value)
	if len(b) > keys.MaxPartitionKeyLen {
		return Key{}, &ValidationError{Op: "GuardKey", Type: typ, Field: attr, Err: &keys.Error{Field: attr, Err: keys.ErrTooLarge}}
	}
	k := Key{PK: string(b)}
	if t.opts.SK != "" {
		k.SK = GuardType
	}
	return k, nil
}

// uniqueString is the stored form of a unique or scope value: a string,
// or a number's decimal text; "" when absent or of another type.
func uniqueString(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return ""
}

// Guards returns the guard items that item, an item of the entity of sc,
// needs: one per unique attribute with a value ("" and absent values need
// none). It fails with a [*ValidationError] when a unique value is set
// but a scope attribute of it is not. The live-table doctor compares them
// with the guards stored.
func (t *Table) Guards(sc *Schema, item map[string]types.AttributeValue) ([]Guard, error) {
	var out []Guard
	for _, u := range sc.Unique {
		v := uniqueString(item[u.Attr])
		if v == "" {
			continue
		}
		var scope []string
		for _, a := range u.Scope {
			s := uniqueString(item[a])
			if s == "" {
				return nil, &ValidationError{Op: "unique", Type: sc.Type, Field: a, Err: fmt.Errorf("unique %s is scoped by %s, which is missing: set %s too: %w", u.Attr, a, a, keys.ErrMissingField)}
			}
			scope = append(scope, s)
		}
		k, err := t.GuardKey(sc.Type, u.Attr, v, scope...)
		if err != nil {
			return nil, err
		}
		out = append(out, Guard{Attr: u.Attr, Value: v, Scope: scope, Key: k})
	}
	return out, nil
}

// GuardHolder returns the key of the item a guard item names as holder.
func (t *Table) GuardHolder(guard map[string]types.AttributeValue) (Key, bool) {
	pk, ok := guard[GuardHolderPK].(*types.AttributeValueMemberS)
	if !ok {
		return Key{}, false
	}
	k := Key{PK: pk.Value}
	if sk, ok := guard[GuardHolderSK].(*types.AttributeValueMemberS); ok {
		k.SK = sk.Value
	}
	return k, true
}

// touchesUnique reports whether changes touch a unique attribute or a
// scope of one. It allocates nothing.
func (s *Store[T, PT]) touchesUnique(changes Changes[T]) bool {
	for _, u := range s.schema.Unique {
		for i := range changes {
			if changes[i].name == u.Attr {
				return true
			}
			for _, a := range u.Scope {
				if changes[i].name == a {
					return true
				}
			}
		}
	}
	return false
}

// guardCond is the condition of a guard write (put or delete): the guard
// is absent or held by key.
func (t *Table) guardCond(key Key) (*string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#gpk": t.opts.PK, "#ghpk": GuardHolderPK}
	values := map[string]types.AttributeValue{":ghpk": str(key.PK)}
	expr := "attribute_not_exists(#gpk) OR #ghpk = :ghpk"
	if t.opts.SK != "" {
		names["#ghsk"] = GuardHolderSK
		values[":ghsk"] = str(key.SK)
		expr = "attribute_not_exists(#gpk) OR (#ghpk = :ghpk AND #ghsk = :ghsk)"
	}
	return &expr, names, values
}

// guardItems returns the transaction items that move the guards of an
// item held by key from old to new: a delete of each old guard that new
// lacks, and a put of each new guard (a put of a guard the item already
// holds rewrites it, and heals an item written before its field was
// unique). kinds records, per item, the guard and whether it is a put.
func (s *Store[T, PT]) guardItems(key Key, old, new []Guard) ([]types.TransactWriteItem, []guardSlot) {
	var items []types.TransactWriteItem
	var slots []guardSlot
	for _, g := range old {
		kept := false
		for _, n := range new {
			kept = kept || n.Key == g.Key
		}
		if kept {
			continue
		}
		expr, names, values := s.t.guardCond(key)
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: &s.t.name, Key: s.t.KeyMap(g.Key), ConditionExpression: expr,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}})
		slots = append(slots, guardSlot{g: g})
	}
	for _, g := range new {
		item := s.t.KeyMap(g.Key)
		item[s.t.opts.TypeAttr] = str(GuardType)
		item[GuardHolderPK] = str(key.PK)
		if s.t.opts.SK != "" {
			item[GuardHolderSK] = str(key.SK)
		}
		expr, names, values := s.t.guardCond(key)
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName: &s.t.name, Item: item, ConditionExpression: expr,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}})
		slots = append(slots, guardSlot{g: g, put: true})
	}
	return items, slots
}

type guardSlot struct {
	g   Guard
	put bool
}

// pinned are the attributes a snapshot condition pins: every attribute
// of old for an unversioned entity when the whole item must be known
// (Update computes the item it returns from old), else the unique
// attributes and their scopes (the version, when there is one, is pinned
// by the write's own condition).
func (s *Store[T, PT]) pinned(old map[string]types.AttributeValue, whole bool) []string {
	if whole && s.schema.VersionAttr == "" {
		out := make([]string, 0, len(old))
		for a := range old {
			if a != s.t.opts.PK && a != s.t.opts.SK {
				out = append(out, a)
			}
		}
		return out
	}
	var out []string
	for _, u := range s.schema.Unique {
		out = append(out, u.Attr)
		out = append(out, u.Scope...)
	}
	return out
}

// snapshot returns the condition that the item is still as read: absent
// when old is nil, else present with the pinned attributes as in old.
func (s *Store[T, PT]) snapshot(old map[string]types.AttributeValue, pinned []string) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#spk": s.t.opts.PK}
	if old == nil {
		return "attribute_not_exists(#spk)", names, nil
	}
	values := map[string]types.AttributeValue{}
	expr := "attribute_exists(#spk)"
	for i, a := range pinned {
		n, v := "#s"+strconv.Itoa(i), ":s"+strconv.Itoa(i)
		names[n] = a
		if av, ok := old[a]; ok {
			values[v] = av
			expr += " AND " + n + " = " + v
		} else {
			expr += " AND attribute_not_exists(" + n + ")"
		}
	}
	return expr, names, values
}

// withSnapshot ANDs the snapshot condition into a write's condition.
func withSnapshot(cond *string, names map[string]string, values map[string]types.AttributeValue,
	snap string, sn map[string]string, sv map[string]types.AttributeValue) (*string, map[string]string, map[string]types.AttributeValue) {
	expr := snap
	if cond != nil && *cond != "" {
		expr = "(" + *cond + ") AND " + snap
	}
	n := make(map[string]string, len(names)+len(sn))
	for k, v := range names {
		n[k] = v
	}
	for k, v := range sn {
		n[k] = v
	}
	var vals map[string]types.AttributeValue
	if len(values)+len(sv) > 0 {
		vals = make(map[string]types.AttributeValue, len(values)+len(sv))
		for k, v := range values {
			vals[k] = v
		}
		for k, v := range sv {
			vals[k] = v
		}
	}
	return &expr, n, vals
}

// moved reports whether the item DynamoDB returned after a failed
// condition differs from the snapshot in a pinned attribute (or in
// existence): a concurrent write, not the caller's condition, failed it.
func moved(old, now map[string]types.AttributeValue, pinned []string) bool {
	if (old == nil) != (len(now) == 0) {
		return true
	}
	for _, a := range pinned {
		x, okx := old[a]
		y, oky := now[a]
		if okx != oky || okx && !ddbexpr.Equal(x, y) {
			return true
		}
	}
	return false
}

// maxSnapshotRetries bounds the read-and-write rounds of a unique write
// whose snapshot a concurrent write keeps changing.
const maxSnapshotRetries = 16

// current reads the item with key, strongly consistent; nil when absent.
func (s *Store[T, PT]) current(ctx context.Context, op string, key Key, o *CallOptions) (map[string]types.AttributeValue, error) {
	in := &dynamodb.GetItemInput{TableName: &s.t.name, Key: s.t.KeyMap(key), ConsistentRead: aws.Bool(true)}
	out, err := send(ctx, s.t, s.tracer(o), "GetItem", "", in, s.t.client.GetItem, s.t.sdkOpts...)
	if err != nil {
		return nil, s.fail(op, key, o, false, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// uniqueWrite is the write of one item and its guards: the item's own
// request (put, update or delete) as the first transaction item, then
// the guard writes. A write without guard writes is sent alone.
type uniqueWrite struct {
	first  types.TransactWriteItem
	guards []types.TransactWriteItem
	slots  []guardSlot
}

// send sends w. A failed item condition is returned as the SDK's error
// with the old item (as a *types.ConditionalCheckFailedException) so
// that the callers translate it as they do for a single request; a failed
// guard condition is a *UniqueError.
func (s *Store[T, PT]) sendUnique(ctx context.Context, op string, key Key, o *CallOptions, w uniqueWrite) (failedItem map[string]types.AttributeValue, itemFailed bool, err error) {
	tr := s.tracer(o)
	if len(w.guards) == 0 {
		switch {
		case w.first.Put != nil:
			p := w.first.Put
			_, err = send(ctx, s.t, tr, "PutItem", "", &dynamodb.PutItemInput{TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression,
				ExpressionAttributeNames: p.ExpressionAttributeNames, ExpressionAttributeValues: p.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}, s.t.client.PutItem)
		case w.first.Update != nil:
			u := w.first.Update
			_, err = send(ctx, s.t, tr, "UpdateItem", "", &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
				ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}, s.t.client.UpdateItem)
		case w.first.Delete != nil:
			d := w.first.Delete
			_, err = send(ctx, s.t, tr, "DeleteItem", "", &dynamodb.DeleteItemInput{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
				ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}, s.t.client.DeleteItem)
		}
		var ccf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			return nil, false, nil
		case errors.As(err, &ccf):
			return ccf.Item, true, err
		}
		return nil, false, s.fail(op, key, o, false, err)
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{w.first}, w.guards...)}
	for attempt := 1; ; attempt++ {
		_, err = send(ctx, s.t, tr, "TransactWriteItems", "", in, s.t.client.TransactWriteItems)
		if err == nil {
			return nil, false, nil
		}
		var tce *types.TransactionCanceledException
		retryable := throttled(err)
		if errors.As(err, &tce) {
			rs := tce.CancellationReasons
			if len(rs) > 0 && aws.ToString(rs[0].Code) == "ConditionalCheckFailed" {
				return rs[0].Item, true, err
			}
			for i := 1; i < len(rs) && i-1 < len(w.slots); i++ {
				if aws.ToString(rs[i].Code) != "ConditionalCheckFailed" {
					continue
				}
				sl := w.slots[i-1]
				ue := &UniqueError{Op: op, Type: s.schema.Type, Attr: sl.g.Attr, Value: sl.g.Value, Scope: sl.g.Scope, Err: err}
				ue.Holder, _ = s.t.GuardHolder(rs[i].Item)
				if !sl.put {
					// The old value's guard names another holder: the
					// table was inconsistent before this write.
					return nil, false, fmt.Errorf("entity: %s %s %s/%s: the guard of %s %q names another holder %s/%s: %w", op, s.schema.Type, key.PK, key.SK, sl.g.Attr, sl.g.Value, ue.Holder.PK, ue.Holder.SK, ErrConditionFailed)
				}
				return nil, false, ue
			}
			if big := txTooLarge(tce); big != nil {
				return nil, false, fmt.Errorf("entity: %s %s %s/%s: %w: %w", op, s.schema.Type, key.PK, key.SK, ErrItemTooLarge, err)
			}
			retryable = (&TxCanceledError{Failures: reasonsOnly(rs)}).retryable()
		}
		if !retryable {
			return nil, false, s.fail(op, key, o, false, err)
		}
		if berr := s.t.backoff(ctx, nil, attempt); berr != nil {
			return nil, false, errors.Join(s.fail(op, key, o, false, err), berr)
		}
	}
}

// reasonsOnly lists the failed reasons of a cancellation, for retryable.
func reasonsOnly(rs []types.CancellationReason) []TxFailure {
	var out []TxFailure
	for _, r := range rs {
		if c := aws.ToString(r.Code); c != "" && c != "None" {
			out = append(out, TxFailure{Code: c})
		}
	}
	return out
}

// txTooLarge returns the reason of a cancellation caused by an item over
// DynamoDB's size limit (a ValidationError reason), or nil.
func txTooLarge(tce *types.TransactionCanceledException) *types.CancellationReason {
	for i, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "ValidationError" && containsSize(aws.ToString(r.Message)) {
			return &tce.CancellationReasons[i]
		}
	}
	return nil
}

func containsSize(m string) bool {
	return contains(m, "exceeded the maximum allowed size") || contains(m, "Item size has exceeded") || contains(m, "maximum allowed size")
}

// isTooLarge reports whether err is DynamoDB refusing an item over its
// size limit, as a request error or as a transaction cancellation.
func isTooLarge(err error) bool {
	var big *types.ItemCollectionSizeLimitExceededException
	if errors.As(err, &big) {
		return true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && txTooLarge(tce) != nil {
		return true
	}
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException" && containsSize(api.ErrorMessage())
}

// putUnique is Create and Put of an entity with unique attributes: the
// item and its guards in one TransactWriteItems. A Create (and a Put that
// requires the item to be absent) reads nothing; a Put that may replace an
// item reads it first (strongly consistent) to free the guards of the
// values it replaces, and writes on the condition that the unique values
// read are still there (a concurrent change makes it read again).
func (s *Store[T, PT]) putUnique(ctx context.Context, op string, in *dynamodb.PutItemInput, item map[string]types.AttributeValue, key Key, o *CallOptions, create bool) error {
	guards, err := s.t.Guards(s.schema, item)
	if err != nil {
		return err
	}
	absent := create || (s.schema.VersionAttr != "" && o.Version == 0)
	for attempt := 0; ; attempt++ {
		var old map[string]types.AttributeValue
		var oldGuards []Guard
		put := &types.Put{TableName: in.TableName, Item: item, ConditionExpression: in.ConditionExpression,
			ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
		var pinned []string
		if !absent {
			if old, err = s.current(ctx, op, key, o); err != nil {
				return err
			}
			if old != nil {
				oldGuards, _ = s.t.Guards(s.schema, old)
			}
			pinned = s.pinned(old, false)
			snap, sn, sv := s.snapshot(old, pinned)
			put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues = withSnapshot(put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues, snap, sn, sv)
		}
		w := uniqueWrite{first: types.TransactWriteItem{Put: put}}
		w.guards, w.slots = s.guardItems(key, oldGuards, guards)
		retry, err := s.attemptUnique(ctx, op, key, o, create, w, old, pinned, !absent && attempt < maxSnapshotRetries)
		if !retry {
			return err
		}
	}
}

// attemptUnique sends w and settles it: retry reports that a concurrent
// write changed the item since it was read as old (mayRetry allowing
// another round); otherwise err is the write's outcome, a failed item
// condition translated as for a single request.
func (s *Store[T, PT]) attemptUnique(ctx context.Context, op string, key Key, o *CallOptions, create bool, w uniqueWrite,
	old map[string]types.AttributeValue, pinned []string, mayRetry bool) (retry bool, err error) {
	failed, itemFailed, err := s.sendUnique(ctx, op, key, o, w)
	switch {
	case err == nil || !itemFailed:
		return false, err
	case mayRetry && moved(old, failed, pinned):
		return true, nil
	}
	return false, s.condErr(op, key, o, create, failed, err)
}

// updateUnique is Update when changes touch a unique attribute or its
// scope: it reads the item (strongly consistent), then sends the update
// and the guard swap in one TransactWriteItems, on the condition that the
// item is still as read (its version, or else every attribute), and
// returns the item computed from the one read and the update. A
// concurrent change makes it read again.
func (s *Store[T, PT]) updateUnique(ctx context.Context, key Key, in *dynamodb.UpdateItemInput, o *CallOptions) (T, error) {
	const op = "Update"
	var v T
	upd, err := ddbexpr.ParseUpdate(aws.ToString(in.UpdateExpression))
	if err != nil {
		return v, &ValidationError{Op: op, Type: s.schema.Type, Err: err}
	}
	for attempt := 0; ; attempt++ {
		old, err := s.current(ctx, op, key, o)
		if err != nil {
			return v, err
		}
		if old == nil {
			return v, s.condErr(op, key, o, false, nil, nil)
		}
		next, err := upd.Apply(old, &ddbexpr.Env{Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues})
		if err != nil {
			return v, &ValidationError{Op: op, Type: s.schema.Type, Err: err}
		}
		guards, err := s.t.Guards(s.schema, next)
		if err != nil {
			return v, err
		}
		oldGuards, _ := s.t.Guards(s.schema, old)
		pinned := s.pinned(old, true)
		snap, sn, sv := s.snapshot(old, pinned)
		u := &types.Update{TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
		u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues = withSnapshot(in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, snap, sn, sv)
		w := uniqueWrite{first: types.TransactWriteItem{Update: u}}
		w.guards, w.slots = s.guardItems(key, oldGuards, guards)
		retry, err := s.attemptUnique(ctx, op, key, o, false, w, old, pinned, attempt < maxSnapshotRetries)
		switch {
		case retry:
			continue
		case err != nil:
			return v, err
		}
		err = s.decode(next, &v)
		return v, err
	}
}

// deleteUnique is Delete of an entity with unique attributes: it reads the
// item (strongly consistent), then deletes it and its guards in one
// TransactWriteItems, on the condition that its unique values are still
// as read. A missing item is deleted as Delete does, on the condition
// that it is still missing.
func (s *Store[T, PT]) deleteUnique(ctx context.Context, key Key, in *dynamodb.DeleteItemInput, o *CallOptions) error {
	const op = "Delete"
	for attempt := 0; ; attempt++ {
		old, err := s.current(ctx, op, key, o)
		if err != nil {
			return err
		}
		var oldGuards []Guard
		if old != nil {
			oldGuards, _ = s.t.Guards(s.schema, old)
		}
		pinned := s.pinned(old, false)
		snap, sn, sv := s.snapshot(old, pinned)
		d := &types.Delete{TableName: in.TableName, Key: in.Key, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
		d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues = withSnapshot(in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, snap, sn, sv)
		w := uniqueWrite{first: types.TransactWriteItem{Delete: d}}
		w.guards, w.slots = s.guardItems(key, oldGuards, nil)
		retry, err := s.attemptUnique(ctx, op, key, o, false, w, old, pinned, attempt < maxSnapshotRetries)
		if !retry {
			return err
		}
	}
}

// GetUnique returns the item of s whose unique attribute f holds v, within
// scope (the values of the attribute's scope attributes, in the order the
// keygen tag names them, as stored: strings, or numbers in decimal). It
// reads the guard, then the item it names ([ConsistentRead] applies to
// both). It returns an error matching [ErrNotFound] when no item holds v,
// and a [*ValidationError] when f is not unique or v is empty.
func GetUnique[T any, PT interface {
	*T
	Item
}, V any](ctx context.Context, s *Store[T, PT], f Field[T, V], v V, scope []string, optFns ...func(*CallOptions)) (T, error) {
	var zero T
	var u *UniqueAttr
	for i := range s.schema.Unique {
		if s.schema.Unique[i].Attr == f.Name {
			u = &s.schema.Unique[i]
		}
	}
	if u == nil {
		return zero, &ValidationError{Op: "GetUnique", Type: s.schema.Type, Field: f.Name, Err: errors.New("not a unique attribute (declare it with the keygen tag option unique)")}
	}
	if len(scope) != len(u.Scope) {
		return zero, &ValidationError{Op: "GetUnique", Type: s.schema.Type, Field: f.Name, Err: fmt.Errorf("unique within %q: give %d scope values, not %d", u.Scope, len(u.Scope), len(scope))}
	}
	av, err := encodeField(f, v)
	if err != nil {
		return zero, &ValidationError{Op: "GetUnique", Type: s.schema.Type, Field: f.Name, Err: err}
	}
	value := ""
	if a, ok := av.(types.AttributeValue); ok {
		value = uniqueString(a)
	}
	gk, err := s.t.GuardKey(s.schema.Type, u.Attr, value, scope...)
	if err != nil {
		return zero, err
	}
	o := callOpts(optFns)
	in := &dynamodb.GetItemInput{TableName: &s.t.name, Key: s.t.KeyMap(gk)}
	if o.ConsistentRead {
		in.ConsistentRead = aws.Bool(true)
	}
	out, err := send(ctx, s.t, s.tracer(&o), "GetItem", "", in, s.t.client.GetItem, s.t.sdkOpts...)
	if err != nil {
		return zero, fmt.Errorf("entity: GetUnique %s %s=%q: %w", s.schema.Type, u.Attr, value, err)
	}
	holder, ok := s.t.GuardHolder(out.Item)
	if !ok {
		return zero, fmt.Errorf("entity: GetUnique %s %s=%q: %w", s.schema.Type, u.Attr, value, ErrNotFound)
	}
	return s.Get(ctx, holder, optFns...)
}
