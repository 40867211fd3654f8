package ddbmem

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const tokenTTL = 10 * time.Minute

type txToken struct {
	fp [32]byte
	at time.Time
}

// txAction is one validated action of a TransactWriteItems request.
type txAction struct {
	t      *table
	pk, sk string
	x      *exprs
	rv     types.ReturnValuesOnConditionCheckFailure
	put    *preparedPut
	upd    *preparedUpdate
	del    bool
	check  bool
	newIt  item
}

// TransactWriteItems applies up to 100 writes and condition checks on
// distinct items, all or nothing. When a condition fails it returns a
// *types.TransactionCanceledException whose CancellationReasons are in
// request order ("ConditionalCheckFailed", "ValidationError" or "None").
// A ClientRequestToken seen in the last 10 minutes with the same request
// succeeds without applying it again; with a different request it
// returns a *types.IdempotentParameterMismatchException.
func (db *DB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := db.begin(ctx, "TransactWriteItems"); err != nil {
		return nil, err
	}
	if in == nil || len(in.TransactItems) == 0 {
		return nil, validation("1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null")
	}
	if len(in.TransactItems) > 100 {
		return nil, validationf("1 validation error detected: Value '[%d items]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100", len(in.TransactItems))
	}
	if in.ClientRequestToken != nil && (len(*in.ClientRequestToken) < 1 || len(*in.ClientRequestToken) > 36) {
		return nil, validation("1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36")
	}
	if err := enumConstraints(in.ReturnConsumedCapacity, in.ReturnItemCollectionMetrics); err != nil {
		return nil, err
	}
	// First every action's own checks, which need no table (its
	// expressions and values), then each action's against its table (the
	// table, the key, the item), action by action: DynamoDB Local reports
	// an invalid expression in any action before a missing table or a
	// bad key in an earlier one.
	own := make([]txOwn, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		var err error
		if own[i], err = db.txOwnChecks(i, ti); err != nil {
			return nil, err
		}
	}
	acts := make([]*txAction, len(in.TransactItems))
	var ts []*table
	seen := map[string]bool{}
	// A key of the wrong type, or an update of a key attribute, cancels
	// the transaction with a ValidationError reason for that action, as
	// DynamoDB Local does (see txnCases); an update of a key attribute
	// also ends the checks of the actions after it.
	var keyReasons []types.CancellationReason
	for i, ti := range in.TransactItems {
		a, err := db.prepareTx(ti, own[i])
		if err != nil && (isKeyTypeMismatch(err) || isKeyUpdate(err)) {
			if keyReasons == nil {
				keyReasons = make([]types.CancellationReason, len(in.TransactItems))
				for j := range keyReasons {
					keyReasons[j] = types.CancellationReason{Code: aws.String("None")}
				}
			}
			keyReasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(apiMessage(err))}
			if isKeyUpdate(err) {
				break
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		id := a.t.name + "\x00" + a.pk + "\x00" + a.sk
		if seen[id] {
			return nil, validation("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		acts[i] = a
		ts = append(ts, a.t)
	}
	var fp [32]byte
	token := aws.ToString(in.ClientRequestToken)
	if token != "" {
		fp = fingerprint(in)
	}
	// The token table is locked for the whole transaction so a retry
	// racing with the first attempt waits for its outcome.
	if token != "" {
		db.txMu.Lock()
		defer db.txMu.Unlock()
		now := db.now()
		for k, v := range db.tokens {
			if now.Sub(v.at) > tokenTTL {
				delete(db.tokens, k)
			}
		}
		if prev, ok := db.tokens[token]; ok {
			if prev.fp != fp {
				return nil, &types.IdempotentParameterMismatchException{Message: aws.String("Request token reused with different parameters")}
			}
			return &dynamodb.TransactWriteItemsOutput{}, nil
		}
	}
	unlock := lockTables(ts, true)
	defer unlock()
	reasons := make([]types.CancellationReason, len(acts))
	failed := false
	for i, a := range acts {
		if a == nil {
			// A key of the wrong type; the other actions' conditions are
			// still evaluated, as DynamoDB Local does.
			reasons[i] = keyReasons[i]
			failed = true
			continue
		}
		old := a.t.data.get(a.pk, a.sk)
		reasons[i] = types.CancellationReason{Code: aws.String("None")}
		if err := checkCond(a.x, old, a.rv); err != nil {
			if ccf, ok := err.(*types.ConditionalCheckFailedException); ok {
				reasons[i] = types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed"), Item: ccf.Item}
			} else {
				reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(apiMessage(err))}
			}
			failed = true
			continue
		}
		if a.upd != nil {
			it, err := a.upd.apply(old)
			if err != nil {
				// An update that cannot be applied to the stored item (an
				// operand of the wrong type, a path that does not exist,
				// the item growing too large or too deep) cancels the
				// transaction with a ValidationError reason: the
				// TransactWriteItems API reference lists these messages
				// under that reason. DynamoDB Local returns a
				// ValidationException for the whole request instead.
				// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
				reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(apiMessage(err))}
				failed = true
				continue
			}
			a.newIt = it
		}
	}
	if failed {
		return nil, cancelled(reasons)
	}
	// Every write of a transaction, to the table and to its indexes, is
	// charged twice: DynamoDB performs two underlying writes of each item
	// (prepare and commit). A ConditionCheck is charged as a write of the
	// item. Index writes are sized as for a single write (see writeUsage).
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
	var usages map[string]*usage
	if wantCapacity(in.ReturnConsumedCapacity) {
		usages = map[string]*usage{}
	}
	for _, a := range acts {
		oldRec := a.t.data.getRec(a.pk, a.sk)
		old := oldRec.get()
		if usages != nil {
			var u usage
			switch {
			case a.put != nil:
				u = a.t.writeUsage(a.pk, a.sk, old, a.put.it)
			case a.upd != nil:
				u = a.t.writeUsage(a.pk, a.sk, old, a.newIt)
			case a.del:
				u = a.t.writeUsage(a.pk, a.sk, old, nil)
			default: // ConditionCheck: no index changes
				u = usage{table: writeUnits(recSize(old))}
			}
			u.scale(2)
			if usages[a.t.name] == nil {
				usages[a.t.name] = &usage{}
			}
			usages[a.t.name].add(u)
		}
		switch {
		case a.put != nil:
			a.t.write(a.pk, a.sk, oldRec, a.put.it)
		case a.upd != nil:
			a.t.write(a.pk, a.sk, oldRec, a.newIt)
		case a.del:
			a.t.write(a.pk, a.sk, oldRec, nil)
		}
	}
	if token != "" {
		db.tokens[token] = txToken{fp: fp, at: db.now()}
	}
	// The item collections written, measured once every action is (the
	// tables are still locked).
	cols := collections{want: in.ReturnItemCollectionMetrics}
	for i, a := range acts {
		if cols.want == "" || a.check {
			continue
		}
		// The partition key value, from the item put or the key.
		var key item
		switch ti := in.TransactItems[i]; {
		case a.put != nil:
			key = a.put.it
		case ti.Update != nil:
			key = ti.Update.Key
		case ti.Delete != nil:
			key = ti.Delete.Key
		}
		cols.add(a.t, a.pk, key)
	}
	return &dynamodb.TransactWriteItemsOutput{ConsumedCapacity: usageList(in.ReturnConsumedCapacity, usages, 'w'), ItemCollectionMetrics: cols.out}, nil
}

func cancelled(reasons []types.CancellationReason) error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = aws.ToString(r.Code)
	}
	return &types.TransactionCanceledException{
		Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"),
		CancellationReasons: reasons,
	}
}

const keyTypeMismatchMsg = "One or more parameter values were invalid: Type mismatch for key"

func isKeyTypeMismatch(err error) bool {
	return err == errKeyType || strings.HasPrefix(apiMessage(err), keyTypeMismatchMsg)
}

// isKeyUpdate reports whether err is an update expression's write to a
// key attribute (see prepareUpdate).
func isKeyUpdate(err error) bool {
	m := apiMessage(err)
	return strings.HasPrefix(m, "One or more parameter values were invalid: Cannot update attribute ") && strings.HasSuffix(m, ". This attribute is part of the key")
}

// txOwn is what txOwnChecks made of an action: its expressions, parsed
// and checked, and a Put's item, imported.
type txOwn struct {
	x    *exprs
	item item
}

// txOwnChecks checks the i'th action of a transaction as far as it can
// without its table: which kind it is, its required members, what it
// returns on a failed condition, its expressions and values, and a Put's
// item.
func (db *DB) txOwnChecks(i int, ti types.TransactWriteItem) (txOwn, error) {
	n := 0
	for _, set := range []bool{ti.ConditionCheck != nil, ti.Put != nil, ti.Delete != nil, ti.Update != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return txOwn{}, validation("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	member := func(kind, name string) error {
		return validationf("1 validation error detected: Value null at 'transactItems.%d.member.%s.%s' failed to satisfy constraint: Member must not be null", i+1, kind, name)
	}
	var (
		r  exprReq
		rv types.ReturnValuesOnConditionCheckFailure
	)
	switch {
	case ti.ConditionCheck != nil:
		c := ti.ConditionCheck
		if c.ConditionExpression == nil {
			return txOwn{}, member("conditionCheck", "conditionExpression")
		}
		r, rv = exprReq{names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, cond: c.ConditionExpression}, c.ReturnValuesOnConditionCheckFailure
	case ti.Put != nil:
		c := ti.Put
		r, rv = exprReq{names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, cond: c.ConditionExpression, valueExprs: putValueExprs}, c.ReturnValuesOnConditionCheckFailure
	case ti.Delete != nil:
		c := ti.Delete
		r, rv = exprReq{names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, cond: c.ConditionExpression}, c.ReturnValuesOnConditionCheckFailure
	default:
		c := ti.Update
		if c.UpdateExpression == nil {
			return txOwn{}, member("update", "updateExpression")
		}
		r, rv = exprReq{names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, update: c.UpdateExpression, cond: c.ConditionExpression,
			valueExprs: updateValueExprs}, c.ReturnValuesOnConditionCheckFailure
	}
	if err := checkRVOnFailure(rv); err != nil {
		return txOwn{}, err
	}
	x, err := db.parseExprs(r)
	if err != nil {
		return txOwn{}, err
	}
	own := txOwn{x: x}
	if ti.Put != nil {
		// A put's condition before its item, as DynamoDB Local checks a
		// transaction's (PutItem's the other way round).
		if ti.Put.Item == nil {
			return txOwn{}, member("put", "item")
		}
		if own.item, err = importItem(ti.Put.Item); err != nil {
			return txOwn{}, err
		}
	}
	return own, nil
}

// keyAction prepares the part of a ConditionCheck (check) or Delete
// action the two share: the table and the key, with own's condition.
func (db *DB) keyAction(table *string, key item, own txOwn, rv types.ReturnValuesOnConditionCheckFailure, check bool) (*txAction, error) {
	t, err := db.table(table)
	if err != nil {
		return nil, err
	}
	if !check {
		// DynamoDB Local checks a Delete's condition for paths below
		// key attributes, not a ConditionCheck's.
		if err := t.checkNestedKeys(own.x); err != nil {
			return nil, err
		}
	}
	pk, sk, err := t.parseKey(key)
	if err != nil {
		return nil, err
	}
	return &txAction{t: t, pk: pk, sk: sk, x: own.x, rv: rv, check: check, del: !check}, nil
}

// prepareTx checks an action against its table, with what txOwnChecks
// made of it.
func (db *DB) prepareTx(ti types.TransactWriteItem, own txOwn) (*txAction, error) {
	switch {
	case ti.ConditionCheck != nil:
		c := ti.ConditionCheck
		return db.keyAction(c.TableName, c.Key, own, c.ReturnValuesOnConditionCheckFailure, true)
	case ti.Put != nil:
		c := ti.Put
		t, err := db.table(c.TableName)
		if err != nil {
			return nil, err
		}
		if err := t.checkNestedKeys(own.x); err != nil {
			return nil, err
		}
		p, err := t.preparePutItem(own.item, own.x)
		if err != nil {
			return nil, err
		}
		return &txAction{t: t, pk: p.pk, sk: p.sk, x: p.x, rv: c.ReturnValuesOnConditionCheckFailure, put: p}, nil
	case ti.Delete != nil:
		c := ti.Delete
		return db.keyAction(c.TableName, c.Key, own, c.ReturnValuesOnConditionCheckFailure, false)
	default:
		c := ti.Update
		t, err := db.table(c.TableName)
		if err != nil {
			return nil, err
		}
		p, err := db.prepareUpdate(t, c.Key, exprReq{parsed: own.x})
		if err != nil {
			return nil, err
		}
		return &txAction{t: t, pk: p.pk, sk: p.sk, x: p.x, rv: c.ReturnValuesOnConditionCheckFailure, upd: p}, nil
	}
}

// fingerprint hashes the parts of a request that make it "the same
// request" for ClientRequestToken idempotency.
func fingerprint(in *dynamodb.TransactWriteItemsInput) [32]byte {
	h := sha256.New()
	str := func(s string) {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	ptr := func(s *string) {
		if s == nil {
			str("\x00nil")
			return
		}
		str(*s)
	}
	names := func(m map[string]string) {
		str(fmt.Sprint(len(m)))
		for _, k := range sortedTableNames(m) {
			str(k)
			str(m[k])
		}
	}
	// op hashes one action: its kind, table, key (or item), expressions
	// (the update's, then the condition), names, values and what it
	// returns on a failed condition.
	op := func(kind string, table *string, item map[string]types.AttributeValue, n map[string]string,
		values map[string]types.AttributeValue, rv types.ReturnValuesOnConditionCheckFailure, exprs ...*string) {
		str(kind)
		ptr(table)
		hashItem(h, str, item)
		for _, e := range exprs {
			ptr(e)
		}
		names(n)
		hashItem(h, str, values)
		str(string(rv))
	}
	for _, ti := range in.TransactItems {
		switch {
		case ti.ConditionCheck != nil:
			c := ti.ConditionCheck
			op("check", c.TableName, c.Key, c.ExpressionAttributeNames, c.ExpressionAttributeValues,
				c.ReturnValuesOnConditionCheckFailure, c.ConditionExpression)
		case ti.Put != nil:
			c := ti.Put
			op("put", c.TableName, c.Item, c.ExpressionAttributeNames, c.ExpressionAttributeValues,
				c.ReturnValuesOnConditionCheckFailure, c.ConditionExpression)
		case ti.Delete != nil:
			c := ti.Delete
			op("delete", c.TableName, c.Key, c.ExpressionAttributeNames, c.ExpressionAttributeValues,
				c.ReturnValuesOnConditionCheckFailure, c.ConditionExpression)
		case ti.Update != nil:
			c := ti.Update
			op("update", c.TableName, c.Key, c.ExpressionAttributeNames, c.ExpressionAttributeValues,
				c.ReturnValuesOnConditionCheckFailure, c.UpdateExpression, c.ConditionExpression)
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func hashItem(h hash.Hash, str func(string), it map[string]types.AttributeValue) {
	str(fmt.Sprint(len(it)))
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		str(k)
		hashValue(h, str, it[k])
	}
}

func hashValue(h hash.Hash, str func(string), v types.AttributeValue) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		str("S")
		str(x.Value)
	case *types.AttributeValueMemberN:
		str("N")
		str(x.Value)
	case *types.AttributeValueMemberB:
		str("B")
		str(string(x.Value))
	case *types.AttributeValueMemberBOOL:
		str(fmt.Sprint("BOOL", x.Value))
	case *types.AttributeValueMemberNULL:
		str(fmt.Sprint("NULL", x.Value))
	case *types.AttributeValueMemberSS:
		str("SS")
		str(fmt.Sprint(len(x.Value)))
		for _, s := range x.Value {
			str(s)
		}
	case *types.AttributeValueMemberNS:
		str("NS")
		str(fmt.Sprint(len(x.Value)))
		for _, s := range x.Value {
			str(s)
		}
	case *types.AttributeValueMemberBS:
		str("BS")
		str(fmt.Sprint(len(x.Value)))
		for _, s := range x.Value {
			str(string(s))
		}
	case *types.AttributeValueMemberL:
		str("L")
		str(fmt.Sprint(len(x.Value)))
		for _, e := range x.Value {
			hashValue(h, str, e)
		}
	case *types.AttributeValueMemberM:
		str("M")
		hashItem(h, str, x.Value)
	default:
		str("?")
	}
}

// TransactGetItems reads up to 100 items atomically; Responses are in
// request order, with a nil Item for a missing item.
func (db *DB) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	if err := db.begin(ctx, "TransactGetItems"); err != nil {
		return nil, err
	}
	if in == nil || len(in.TransactItems) == 0 {
		return nil, validation("1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null")
	}
	if len(in.TransactItems) > 100 {
		return nil, validationf("1 validation error detected: Value '[%d items]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100", len(in.TransactItems))
	}
	if err := enumConstraints(in.ReturnConsumedCapacity, ""); err != nil {
		return nil, err
	}
	type get struct {
		t      *table
		pk, sk string
		x      *exprs
	}
	gets := make([]get, len(in.TransactItems))
	var ts []*table
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		g := ti.Get
		if g == nil {
			return nil, validation("1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null")
		}
		t, err := db.table(g.TableName)
		if err != nil {
			return nil, err
		}
		x, err := db.parseExprs(exprReq{names: g.ExpressionAttributeNames, proj: g.ProjectionExpression})
		if err != nil {
			return nil, err
		}
		if err := t.checkNestedKeys(x); err != nil {
			return nil, err
		}
		pk, sk, err := t.parseKey(g.Key)
		if err != nil {
			if isKeyTypeMismatch(err) || apiMessage(err) == errKeyCount {
				// As DynamoDB Local does: a key that does not fit the
				// table's schema cancels the transaction (without
				// reasons); a key value of a type no key can have is a
				// ValidationException (see txnCases).
				return nil, &types.TransactionCanceledException{Message: aws.String(apiMessage(err))}
			}
			return nil, err
		}
		id := t.name + "\x00" + pk + "\x00" + sk
		if seen[id] {
			return nil, validation("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		gets[i] = get{t, pk, sk, x}
		ts = append(ts, t)
	}
	unlock := lockTables(ts, false)
	defer unlock()
	out := &dynamodb.TransactGetItemsOutput{Responses: make([]types.ItemResponse, len(gets))}
	units := map[string]float64{}
	for i, g := range gets {
		it := g.t.data.get(g.pk, g.sk)
		units[g.t.name] += 2 * readUnits(recSize(it), true, true)
		if it != nil {
			out.Responses[i].Item = g.x.output(it)
		}
	}
	out.ConsumedCapacity = consumedList(in.ReturnConsumedCapacity, units, 'r')
	return out, nil
}
