package ddbmem

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// param is a legacy request parameter and whether the request sets it.
type param struct {
	name string
	set  bool
}

// checkSize checks it against the 400 KB item limit. On a table with
// local secondary indexes the limit covers the item and its entries in
// them: "For each local secondary index on a table, there is a 400 KB
// limit on the total of the size of an item's data in the table and the
// size of corresponding entries (including key values and projected
// attributes) in all local secondary indexes."
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items
//
// It returns the size of the item alone.
func (t *table) checkSize(it item, msg string) (int, error) {
	base := ddbexpr.ItemSize(it)
	size := base
	if size <= maxItemSize {
		for _, ix := range t.indexes() {
			if !ix.local {
				continue
			}
			if _, _, ok := t.indexKey(ix, it); !ok {
				continue
			}
			if ix.proj == types.ProjectionTypeAll {
				size += base
			} else {
				size += ix.entrySize(it, base)
			}
			if size > maxItemSize {
				break
			}
		}
	}
	if size > maxItemSize {
		return 0, validation(msg)
	}
	return base, nil
}

const (
	errItemSize   = "Item size has exceeded the maximum allowed size"
	errUpdateSize = "Item size to update has exceeded the maximum allowed size"
)

// checkCond evaluates a write condition against old (nil if absent).
func checkCond(x *exprs, old item, rv types.ReturnValuesOnConditionCheckFailure) error {
	if x == nil || x.cond == nil {
		return nil
	}
	ok, err := x.cond.Eval(old, &x.env)
	if err != nil {
		return evalErr("ConditionExpression", err)
	}
	if !ok {
		return conditionFailed(old, rv)
	}
	return nil
}

func checkRVOnFailure(rv types.ReturnValuesOnConditionCheckFailure) error {
	switch rv {
	case "", types.ReturnValuesOnConditionCheckFailureAllOld, types.ReturnValuesOnConditionCheckFailureNone:
		return nil
	}
	return validationf("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", rv)
}

// checkOldReturns checks what a PutItem or DeleteItem may return: at most
// the old item, as ReturnValues and on a failed condition.
func checkOldReturns(rv types.ReturnValue, onFailure types.ReturnValuesOnConditionCheckFailure) error {
	switch rv {
	case "", types.ReturnValueNone, types.ReturnValueAllOld:
	default:
		return validation("Return values set to invalid value")
	}
	return checkRVOnFailure(onFailure)
}

// preparedPut is a validated put, ready to apply under the table lock.
type preparedPut struct {
	t      *table
	pk, sk string
	it     item
	size   int // ItemSize(it)
	x      *exprs
}

// preparePut validates a put of the item in with the condition r names
// (r.cond; r.valueExprs is set here).
func (db *DB) preparePut(t *table, in item, r exprReq) (*preparedPut, error) {
	if in == nil {
		return nil, validation("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
	}
	// Names or values without a condition, then the item's values, then
	// the condition, as DynamoDB checks them (dynalite's suite records
	// the order).
	r.valueExprs = putValueExprs
	if r.cond == nil {
		if err := r.placeholdersWithout(); err != nil {
			return nil, err
		}
	}
	it, err := importItem(in)
	if err != nil {
		return nil, err
	}
	x, err := db.parseExprs(r)
	if err != nil {
		return nil, err
	}
	if err := t.checkNestedKeys(x); err != nil {
		return nil, err
	}
	return t.preparePutItem(it, x)
}

// putValueExprs and updateValueExprs are exprReq.valueExprs of a put and
// of an update.
const (
	putValueExprs    = "ConditionExpression is null"
	updateValueExprs = "UpdateExpression and ConditionExpression are null"
)

// preparePutItem is the rest of preparePut, for an item imported and its
// condition parsed.
func (t *table) preparePutItem(it item, x *exprs) (*preparedPut, error) {
	if err := t.checkItemKeys(it, false); err != nil {
		return nil, err
	}
	size, err := t.checkSize(it, errItemSize)
	if err != nil {
		return nil, err
	}
	pk, sk := t.tableKey(it)
	return &preparedPut{t: t, pk: pk, sk: sk, it: it, size: size, x: x}, nil
}

// PutItem creates or replaces an item. A failed ConditionExpression
// returns a *types.ConditionalCheckFailedException (with the old item
// when ReturnValuesOnConditionCheckFailure is ALL_OLD).
func (db *DB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := db.begin(ctx, "PutItem"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.PutItemInput{}
	}
	if err := putConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, db.missingPut(err, in)
	}
	legacy := in.Expected != nil
	if in, err = legacyPut(in); err != nil {
		return nil, err
	}
	if err := checkOldReturns(in.ReturnValues, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	p, err := db.preparePut(t, in.Item, exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, cond: in.ConditionExpression, legacy: legacy})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	oldRec := t.data.getRec(p.pk, p.sk)
	old := oldRec.get()
	if err := checkCond(p.x, old, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	rec := t.writeSized(p.pk, p.sk, oldRec, p.it, p.size)
	out := &dynamodb.PutItemOutput{ConsumedCapacity: t.writeCapacity(in.ReturnConsumedCapacity, p.pk, p.sk, oldRec, rec),
		ItemCollectionMetrics: t.collectionMetrics(in.ReturnItemCollectionMetrics, p.pk, p.it)}
	if in.ReturnValues == types.ReturnValueAllOld && old != nil {
		out.Attributes = copyItem(old)
	}
	return out, nil
}

// GetItem reads an item; Item is nil when there is none.
func (db *DB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := db.begin(ctx, "GetItem"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.GetItemInput{}
	}
	if err := getConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, db.missingGet(err, in)
	}
	if in, err = legacyGet(in); err != nil {
		return nil, err
	}
	x, err := db.parseExprs(exprReq{names: in.ExpressionAttributeNames, proj: in.ProjectionExpression})
	if err != nil {
		return nil, err
	}
	if err := t.checkNestedKeys(x); err != nil {
		return nil, err
	}
	pk, sk, err := t.parseKey(in.Key)
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	r := t.data.getRec(pk, sk)
	t.mu.RUnlock()
	size := 0
	if r != nil {
		size = r.size
	}
	out := &dynamodb.GetItemOutput{ConsumedCapacity: consumed(in.ReturnConsumedCapacity, t.name, readUnits(size, aws.ToBool(in.ConsistentRead), true), 0)}
	switch {
	case r == nil:
	case x.proj == nil:
		if w := wireSinkOf(ctx); w != nil {
			w.recs = append(w.recs, r)
			break
		}
		var sl slab
		out.Item = sl.copyRecord(r)
	default:
		out.Item = x.output(r.item)
	}
	return out, nil
}

// output returns the copy of it to hand out, projected if asked.
func (x *exprs) output(it item) item {
	var sl slab
	return x.outputSlab(&sl, it)
}

func (x *exprs) outputSlab(sl *slab, it item) item {
	if x.proj != nil {
		return sl.copyItem(x.proj.Apply(it, &x.env))
	}
	return sl.copyItem(it)
}

// DeleteItem deletes an item, which need not exist. A failed
// ConditionExpression returns a *types.ConditionalCheckFailedException.
func (db *DB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := db.begin(ctx, "DeleteItem"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.DeleteItemInput{}
	}
	if err := deleteConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, db.missingDelete(err, in)
	}
	legacy := in.Expected != nil
	if in, err = legacyDelete(in); err != nil {
		return nil, err
	}
	if err := checkOldReturns(in.ReturnValues, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	x, err := db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, cond: in.ConditionExpression, valueExprs: "ConditionExpression is null", legacy: legacy})
	if err != nil {
		return nil, err
	}
	if err := t.checkNestedKeys(x); err != nil {
		return nil, err
	}
	pk, sk, err := t.parseKey(in.Key)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	oldRec := t.data.getRec(pk, sk)
	old := oldRec.get()
	if err := checkCond(x, old, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	t.write(pk, sk, oldRec, nil)
	out := &dynamodb.DeleteItemOutput{ConsumedCapacity: t.writeCapacity(in.ReturnConsumedCapacity, pk, sk, oldRec, nil),
		ItemCollectionMetrics: t.collectionMetrics(in.ReturnItemCollectionMetrics, pk, in.Key)}
	if in.ReturnValues == types.ReturnValueAllOld && old != nil {
		out.Attributes = copyItem(old)
	}
	return out, nil
}

// preparedUpdate is a validated update, ready to apply to a version of
// the item.
type preparedUpdate struct {
	t      *table
	pk, sk string
	key    item // the request's Key, imported only to create the item
	// attrUpdates: the update was made from AttributeUpdates, whose
	// empty index key values DynamoDB words as a put's.
	attrUpdates bool
	x           *exprs
	xs          exprs // what x points to, allocated with the update
}

// keyUpdateError is DynamoDB's answer to an update of a key attribute.
func keyUpdateError(name string) error {
	return validationf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", name)
}

// prepareUpdate validates an update of the item of the key with the
// update and condition r names (r.update, r.cond; r.valueExprs is set
// here).
func (db *DB) prepareUpdate(t *table, key item, r exprReq) (*preparedUpdate, error) {
	p := &preparedUpdate{t: t, key: key, attrUpdates: r.legacy && r.update != nil}
	r.valueExprs = updateValueExprs
	if err := db.parseExprsInto(&p.xs, r); err != nil {
		return nil, err
	}
	p.x = &p.xs
	var err error
	if p.pk, p.sk, err = t.parseKey(key); err != nil {
		return nil, err
	}
	if u := p.x.update; u != nil {
		for path := range u.AllPaths() {
			if name := p.x.env.TopName(path); t.isKeyAttr(name) {
				return nil, keyUpdateError(name)
			}
		}
	}
	if u := p.x.update; u != nil {
		if err := t.checkIndexKeyTypes(u, &p.x.env); err != nil {
			return nil, err
		}
	}
	if err := t.checkNestedKeys(p.x); err != nil {
		return nil, err
	}
	return p, nil
}

// checkIndexKeyTypes refuses an update that sets an index key attribute
// to a value whose type is known before the item is read (a value, a
// sum or difference, a list_append, an ADD's value) and is not the key's,
// as DynamoDB does (dynalite's suite records it; DynamoDB Local accepts
// the update and stores the item). Other values are checked on the new
// item (checkItemKeys).
func (t *table) checkIndexKeyTypes(u *ddbexpr.Update, env *ddbexpr.Env) error {
	ixs := t.indexes()
	if len(ixs) == 0 {
		return nil
	}
	check := func(path ddbexpr.Path, typ string) error {
		if len(path) != 1 || typ == "" {
			return nil
		}
		name := env.TopName(path)
		for _, ix := range ixs {
			for _, k := range []keyAttr{ix.pk, ix.sk} {
				if k.name == name && string(k.typ) != typ {
					return validationf("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.name, k.typ, typ, ix.name)
				}
			}
		}
		return nil
	}
	for _, a := range u.Set {
		typ := ""
		switch a.Value.Kind {
		case ddbexpr.OpValue:
			typ = describeType(env.Values[a.Value.Value])
		case ddbexpr.OpPlus, ddbexpr.OpMinus:
			typ = "N"
		case ddbexpr.OpListAppend:
			typ = "L"
		}
		if err := check(a.Path, typ); err != nil {
			return err
		}
	}
	for _, a := range u.Add {
		if err := check(a.Path, describeType(env.Values[a.Value])); err != nil {
			return err
		}
	}
	return nil
}

// apply computes the new item from old (nil if absent). It reads only
// old and the request, so it needs no lock: stored items are never
// modified in place.
func (p *preparedUpdate) apply(old item) (item, error) {
	it, _, _, err := p.applyEffective(old)
	return it, err
}

// applyEffective is apply that also returns the paths of the update
// actions that took effect.
// The size is ItemSize of the item, or -1 when it was not computed.
func (p *preparedUpdate) applyEffective(old item) (item, []ddbexpr.Path, int, error) {
	base := old
	if base == nil {
		base, _ = importItem(p.key) // parseKey validated it
	}
	if p.x.update == nil {
		return base, nil, -1, nil
	}
	it, eff, err := p.x.update.ApplyEffective(base, &p.x.uenv)
	if err != nil {
		return nil, nil, 0, evalErr("UpdateExpression", err)
	}
	if err := p.t.checkItemKeys(it, !p.attrUpdates); err != nil {
		return nil, nil, 0, err
	}
	size, err := p.t.checkSize(it, errUpdateSize)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, up := range eff {
		if err := checkTree(it[p.x.env.TopName(up)], 1, errNestingUpdate); err != nil {
			return nil, nil, 0, err
		}
	}
	return it, eff, size, nil
}

// UpdateItem edits an item's attributes, creating the item if it does not
// exist. A failed ConditionExpression returns a
// *types.ConditionalCheckFailedException.
func (db *DB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := db.begin(ctx, "UpdateItem"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.UpdateItemInput{}
	}
	if err := updateConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, db.missingUpdate(err, in)
	}
	legacy := in.AttributeUpdates != nil
	legacyExprs := legacy || in.Expected != nil
	if in, err = legacyUpdate(in, t.isKeyAttr); err != nil {
		return nil, err
	}
	switch in.ReturnValues {
	case "", types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew:
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]", in.ReturnValues)
	}
	if err := checkRVOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	p, err := db.prepareUpdate(t, in.Key, exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, update: in.UpdateExpression, cond: in.ConditionExpression, legacy: legacyExprs})
	if err != nil {
		return nil, err
	}
	// The update is worked out on the item as read under the read lock,
	// and written under the write lock if the item is still that
	// version (a record is never modified, so the same record is the
	// same version); otherwise worked out again on the current version,
	// under the write lock. Condition and update are pure functions of
	// the item, so the outcome is the one of an update done wholly
	// under the lock; concurrent updates of other items meanwhile
	// proceed. A failed condition or update reports the version read.
	t.mu.RLock()
	oldRec := t.data.getRec(p.pk, p.sk)
	t.mu.RUnlock()
	rec, eff, err := p.applyTo(oldRec, in.ReturnValuesOnConditionCheckFailure, legacy)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if cur := t.data.getRec(p.pk, p.sk); cur != oldRec {
		oldRec = cur
		if rec, eff, err = p.applyTo(oldRec, in.ReturnValuesOnConditionCheckFailure, legacy); err != nil {
			t.mu.Unlock()
			return nil, err
		}
	}
	t.writeRecord(p.pk, p.sk, oldRec, rec)
	metrics := t.collectionMetrics(in.ReturnItemCollectionMetrics, p.pk, in.Key)
	t.mu.Unlock()
	// The records are immutable: the rest needs no lock.
	old, it := oldRec.get(), rec.get()
	out := &dynamodb.UpdateItemOutput{ConsumedCapacity: t.writeCapacity(in.ReturnConsumedCapacity, p.pk, p.sk, oldRec, rec), ItemCollectionMetrics: metrics}
	switch in.ReturnValues {
	case types.ReturnValueAllOld:
		if old != nil {
			out.Attributes = copyItem(old)
		}
	case types.ReturnValueAllNew:
		out.Attributes = copyItem(it)
	case types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew:
		src := it
		if in.ReturnValues == types.ReturnValueUpdatedOld {
			src = old
		}
		if src != nil && p.x.update != nil {
			// DynamoDB returns only the updated attributes: the paths
			// the actions which took effect name, projected out of the
			// old or new item as a ProjectionExpression would (SET a.b
			// returns {a: {b}}, SET l[1] returns {l: [l[1]]}), not the
			// whole top-level attributes, which DynamoDB Local returns.
			// A path is taken as the update names it: a SET past the end
			// of a list appends the element at the list's end, where the
			// named index does not reach, so nothing (or the element
			// another action put at that index) is returned for it, as
			// DynamoDB (and DynamoDB Local) does.
			// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues
			pr := &ddbexpr.Projection{Paths: eff}
			if a := pr.Apply(src, &p.x.env); len(a) > 0 {
				out.Attributes = copyItem(a)
			}
		}
	}
	return out, nil
}

// applyTo checks the condition against the item stored as oldRec (nil
// if absent) and applies the update to it, returning the new item's
// record and the paths of the actions that took effect.
func (p *preparedUpdate) applyTo(oldRec *record, onFailure types.ReturnValuesOnConditionCheckFailure, legacy bool) (*record, []ddbexpr.Path, error) {
	old := oldRec.get()
	if err := checkCond(p.x, old, onFailure); err != nil {
		return nil, nil, err
	}
	it, eff, size, err := p.applyEffective(old)
	if err != nil {
		if legacy {
			err = legacyUpdateError(err)
		}
		return nil, nil, err
	}
	if size < 0 {
		size = ddbexpr.ItemSize(it)
	}
	return newRecord(it, size), eff, nil
}
