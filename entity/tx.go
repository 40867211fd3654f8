package entity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/retry"
)

// MaxTxItems is DynamoDB's limit on the items of one transaction.
const MaxTxItems = 100

// TxOp is one action of a transaction, made by [Store.TxCreate],
// [Store.TxPut], [Store.TxUpdate], [Store.TxDelete] or [Store.TxCheck].
// An op built from bad input carries its error, and the transaction fails
// with it before sending.
type TxOp struct {
	item    types.TransactWriteItem
	op      string
	typ     string
	key     Key
	version int64
	create  bool
	vattr   string
	decode  func(map[string]types.AttributeValue) (any, error)
	after   func() error
	err     error
	// guards are the guard writes of a unique value (TxCreate), sent
	// after item; slots describe them.
	guards []types.TransactWriteItem
	slots  []guardSlot
}

func (s *Store[T, PT]) txOp(op string, key Key, o *CallOptions) TxOp {
	return TxOp{op: op, typ: s.schema.Type, key: key, version: o.Version, vattr: s.schema.VersionAttr,
		decode: func(item map[string]types.AttributeValue) (any, error) {
			var v T
			err := s.decode(item, &v)
			return v, err
		}}
}

// TxCreate is the transactional [Store.Create] of v. The guards of its
// unique values are written in the same transaction (they count toward
// the 100 actions); a taken value cancels it with a [*TxCanceledError]
// whose failure's Err is a [*UniqueError].
func (s *Store[T, PT]) TxCreate(v *T, optFns ...func(*CallOptions)) TxOp {
	return s.txPut("Create", v, optFns, true)
}

// TxPut is the transactional [Store.Put] of v. For an entity with unique
// fields it is accepted only when the item must be absent (a versioned
// entity without [IfVersion]); otherwise it carries a [*ValidationError]
// (moving the guards needs a read: use Store.Put).
func (s *Store[T, PT]) TxPut(v *T, optFns ...func(*CallOptions)) TxOp {
	return s.txPut("Put", v, optFns, false)
}

func (s *Store[T, PT]) txPut(op string, v *T, optFns []func(*CallOptions), create bool) TxOp {
	o := callOpts(optFns)
	in, item, key, err := s.putInput(op, v, &o, create, false, nil)
	x := s.txOp(op, key, &o)
	x.create = create
	if err != nil {
		x.err = err
		return x
	}
	x.item.Put = &types.Put{
		TableName: in.TableName, Item: in.Item, ConditionExpression: in.ConditionExpression,
		ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	x.after = func() error { return PT(v).UnmarshalItem(item) }
	if len(s.schema.Unique) > 0 {
		if !create && (s.schema.VersionAttr == "" || o.Version != 0) {
			x.err = s.txUniqueRefused(op)
			return x
		}
		guards, err := s.t.Guards(s.schema, item)
		if err != nil {
			x.err = err
			return x
		}
		x.guards, x.slots = s.guardItems(key, nil, guards)
	}
	return x
}

// txUniqueRefused is the error of a transaction op that would have to
// read the item to keep its unique guards right.
func (s *Store[T, PT]) txUniqueRefused(op string) error {
	return &ValidationError{Op: "Tx" + op, Type: s.schema.Type, Field: "unique", Err: fmt.Errorf("%s has unique attributes: a transactional %s would have to read the item to move their guards; use Store.%s (one read and one transaction), or TxCreate", s.schema.Type, op, op)}
}

// TxUpdate is the transactional [Store.Update] (without the returned
// item). An update that touches a unique field carries a
// [*ValidationError] (use Store.Update).
func (s *Store[T, PT]) TxUpdate(key Key, changes Changes[T], optFns ...func(*CallOptions)) TxOp {
	o := callOpts(optFns)
	x := s.txOp("Update", key, &o)
	if len(s.schema.Unique) > 0 && s.touchesUnique(changes) {
		x.err = s.txUniqueRefused("Update")
		return x
	}
	in, err := s.updateInput(key, changes, &o)
	if err != nil {
		x.err = err
		return x
	}
	x.item.Update = &types.Update{
		TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
		ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
		ExpressionAttributeValues:           in.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return x
}

// TxDelete is the transactional [Store.Delete]. For an entity with
// unique fields it carries a [*ValidationError] (use Store.Delete).
func (s *Store[T, PT]) TxDelete(key Key, optFns ...func(*CallOptions)) TxOp {
	o := callOpts(optFns)
	x := s.txOp("Delete", key, &o)
	if len(s.schema.Unique) > 0 {
		x.err = s.txUniqueRefused("Delete")
		return x
	}
	in, err := s.deleteInput(key, &o)
	if err != nil {
		x.err = err
		return x
	}
	x.item.Delete = &types.Delete{
		TableName: in.TableName, Key: in.Key, ConditionExpression: in.ConditionExpression,
		ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return x
}

// TxCheck adds a condition on the item with the given key that must hold
// for the transaction to commit; [IfVersion] checks its version too.
func (s *Store[T, PT]) TxCheck(key Key, cond expression.ConditionBuilder, optFns ...func(*CallOptions)) TxOp {
	o := callOpts(append(optFns, If(cond)))
	x := s.txOp("ConditionCheck", key, &o)
	if err := s.checkKey("ConditionCheck", key); err != nil {
		x.err = err
		return x
	}
	if o.Version != 0 && s.schema.VersionAttr == "" {
		x.err = s.unversioned("ConditionCheck")
		return x
	}
	c, err := s.writeCond("ConditionCheck", &o, anyItem)
	if err != nil {
		x.err = err
		return x
	}
	x.item.ConditionCheck = &types.ConditionCheck{
		TableName: &s.t.name, Key: s.t.KeyMap(key), ConditionExpression: c.expr,
		ExpressionAttributeNames: c.names, ExpressionAttributeValues: c.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return x
}

// Tx is a write transaction across entity types of one or more tables.
// Build it with [Table.Tx] and [Tx.Add]; it is not safe for concurrent
// use while being built.
type Tx struct {
	t     *Table
	ops   []TxOp
	token string
	retry retry.Strategy
}

// Tx starts a transaction sent through this table's client.
func (t *Table) Tx() *Tx { return &Tx{t: t} }

// Add appends actions.
func (x *Tx) Add(ops ...TxOp) *Tx {
	x.ops = append(x.ops, ops...)
	return x
}

// Token sets the ClientRequestToken that makes the transaction idempotent
// for 10 minutes (retries of the same call send it too).
func (x *Tx) Token(token string) *Tx {
	x.token = token
	return x
}

// Retry sets the strategy that paces the retries of a transaction
// canceled only by conflicts or throttling; nil (default) means the
// table's [Options.Retry].
func (x *Tx) Retry(s retry.Strategy) *Tx {
	x.retry = s
	return x
}

// Params returns the exact request without sending it. It fails with a
// [*ValidationError] for an empty transaction, more than 100 actions, two
// actions on one item, or an invalid action.
func (x *Tx) Params() (*dynamodb.TransactWriteItemsInput, error) {
	if len(x.ops) == 0 {
		return nil, &ValidationError{Op: "Transact", Err: errors.New("no actions")}
	}
	n := len(x.ops)
	for _, op := range x.ops {
		n += len(op.guards)
	}
	if n > MaxTxItems {
		return nil, &ValidationError{Op: "Transact", Err: fmt.Errorf("%d actions (unique guards included), the limit is %d", n, MaxTxItems)}
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: make([]types.TransactWriteItem, len(x.ops), n)}
	seen := map[string]int{}
	for i, op := range x.ops {
		if op.err != nil {
			return nil, fmt.Errorf("entity: transaction action %d: %w", i, op.err)
		}
		if op.op == "" {
			return nil, &ValidationError{Op: "Transact", Err: fmt.Errorf("action %d is the zero TxOp", i)}
		}
		id := tableOf(op.item) + "\x00" + op.key.PK + "\x00" + op.key.SK
		if j, ok := seen[id]; ok {
			return nil, &ValidationError{Op: "Transact", Type: op.typ, Err: fmt.Errorf("actions %d and %d touch the same item %s/%s", j, i, op.key.PK, op.key.SK)}
		}
		seen[id] = i
		in.TransactItems[i] = op.item
	}
	for i, op := range x.ops {
		for j, g := range op.guards {
			id := tableOf(g) + "\x00" + op.slots[j].g.Key.PK + "\x00" + op.slots[j].g.Key.SK
			if k, ok := seen[id]; ok {
				return nil, &UniqueError{Op: "Transact", Type: op.typ, Attr: op.slots[j].g.Attr, Value: op.slots[j].g.Value, Scope: op.slots[j].g.Scope, Holder: x.ops[k].key}
			}
			seen[id] = i
		}
		in.TransactItems = append(in.TransactItems, op.guards...)
	}
	if x.token != "" {
		in.ClientRequestToken = aws.String(x.token)
	}
	return in, nil
}

func tableOf(it types.TransactWriteItem) string {
	switch {
	case it.Put != nil:
		return aws.ToString(it.Put.TableName)
	case it.Update != nil:
		return aws.ToString(it.Update.TableName)
	case it.Delete != nil:
		return aws.ToString(it.Delete.TableName)
	case it.ConditionCheck != nil:
		return aws.ToString(it.ConditionCheck.TableName)
	}
	return ""
}

// Exec sends the transaction. A cancellation caused only by transaction
// conflicts or throttling, and a throttled request, are retried, with the strategy of [Tx.Retry] or
// else the table's, until it commits, the strategy gives up or ctx ends
// (the last error, a [*TxCanceledError] or the throttling error, is then
// returned joined with retry.ErrGaveUp or the context's error). Any other cancellation is a
// *TxCanceledError listing each failed action; any other failure is
// returned wrapped. Objects of TxCreate and TxPut are refreshed on
// success. This is the one transaction path of tablekit: packages built
// on the runtime send their transactions through it.
func (x *Tx) Exec(ctx context.Context) error {
	in, err := x.Params()
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		_, err := send(ctx, x.t, tracing{tr: x.t.opts.Tracer}, "TransactWriteItems", "", in, x.t.client.TransactWriteItems)
		if err == nil {
			for _, op := range x.ops {
				if op.after != nil {
					if err := op.after(); err != nil {
						return err
					}
				}
			}
			return nil
		}
		var tce *types.TransactionCanceledException
		var fail error
		switch {
		case errors.As(err, &tce):
			cerr := x.canceled(tce)
			if !cerr.retryable() {
				return cerr
			}
			fail = cerr
		case throttled(err):
			fail = fmt.Errorf("entity: transaction: %w", err)
		case isTooLarge(err):
			return fmt.Errorf("entity: transaction: %w: %w", ErrItemTooLarge, err)
		default:
			return fmt.Errorf("entity: transaction: %w", err)
		}
		if berr := x.t.backoff(ctx, x.retry, attempt); berr != nil {
			return errors.Join(fail, berr)
		}
	}
}

// TxFailure is one failed action of a canceled transaction.
type TxFailure struct {
	Index   int    // position of the action in the transaction
	Op      string // "Create", "Put", "Update", "Delete", "ConditionCheck"
	Type    string // entity type
	Key     Key
	Code    string // DynamoDB's reason code: "ConditionalCheckFailed", ...
	Message string
	// Old is the item as it was, decoded into the entity's Go type (a T
	// value), when DynamoDB returned it (condition failures); else nil.
	Old any
	// Item is the same old item as DynamoDB returned it; nil when absent.
	Item map[string]types.AttributeValue
	// Err classifies the failure: a *VersionConflictError, or
	// ErrAlreadyExists, ErrNotFound, ErrConditionFailed, or nil.
	Err error
}

// TxCanceledError reports a canceled transaction. It matches
// [ErrTransactionCanceled], and also each classified failure
// ([ErrConditionFailed], [ErrVersionConflict], ...).
type TxCanceledError struct {
	Failures []TxFailure
	Err      error // the SDK error
}

func (e *TxCanceledError) Error() string {
	var b strings.Builder
	b.WriteString("entity: transaction canceled:")
	for _, f := range e.Failures {
		b.WriteString(" [" + strconv.Itoa(f.Index) + " " + f.Op + " " + f.Type + " " + f.Key.PK + "/" + f.Key.SK + ": " + f.Code)
		var ue *UniqueError
		switch {
		case errors.As(f.Err, &ue):
			b.WriteString(": " + ue.Error())
		case f.Code == "ValidationError" && f.Message != "":
			b.WriteString(": " + f.Message)
		}
		b.WriteString("]")
	}
	return b.String()
}

func (e *TxCanceledError) Unwrap() []error {
	errs := []error{ErrTransactionCanceled}
	for _, f := range e.Failures {
		if f.Err != nil {
			errs = append(errs, f.Err)
		}
	}
	return errs
}

func (e *TxCanceledError) retryable() bool {
	if len(e.Failures) == 0 {
		return false
	}
	for _, f := range e.Failures {
		switch f.Code {
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
		default:
			return false
		}
	}
	return true
}

func (x *Tx) canceled(tce *types.TransactionCanceledException) *TxCanceledError {
	e := &TxCanceledError{Err: tce}
	for i, r := range tce.CancellationReasons {
		code := aws.ToString(r.Code)
		if code == "" || code == "None" {
			continue
		}
		if i >= len(x.ops) {
			x.guardFailure(e, i, r)
			continue
		}
		op := x.ops[i]
		f := TxFailure{Index: i, Op: op.op, Type: op.typ, Key: op.key, Code: code, Message: aws.ToString(r.Message), Item: r.Item}
		if len(r.Item) > 0 && op.decode != nil {
			if v, err := op.decode(r.Item); err == nil {
				f.Old = v
			}
		}
		if code == "ValidationError" && containsSize(f.Message) {
			f.Err = &ItemTooLargeError{Type: op.typ, Key: op.key}
		}
		if code == "ConditionalCheckFailed" {
			switch {
			case op.create && len(r.Item) > 0:
				f.Err = ErrAlreadyExists
			case len(r.Item) == 0 && (op.op == "Update" || (op.op == "Delete" && op.version > 0)):
				f.Err = ErrNotFound
			case op.vattr != "" && op.version > 0 && len(r.Item) > 0 && versionOf(r.Item[op.vattr]) != op.version:
				f.Err = &VersionConflictError{Op: op.op, Type: op.typ, Key: op.key, Expected: op.version, Actual: versionOf(r.Item[op.vattr])}
			default:
				f.Err = ErrConditionFailed
			}
			if !errors.Is(f.Err, ErrConditionFailed) {
				f.Err = errors.Join(f.Err, ErrConditionFailed)
			}
		}
		e.Failures = append(e.Failures, f)
	}
	return e
}

// guardFailure records the failure of the guard write at position i of
// the request (the guards follow the actions, op by op).
func (x *Tx) guardFailure(e *TxCanceledError, i int, r types.CancellationReason) {
	j := i - len(x.ops)
	for _, op := range x.ops {
		if j >= len(op.slots) {
			j -= len(op.slots)
			continue
		}
		sl := op.slots[j]
		f := TxFailure{Index: i, Op: op.op, Type: op.typ, Key: op.key, Code: aws.ToString(r.Code), Message: aws.ToString(r.Message), Item: r.Item}
		if f.Code == "ConditionalCheckFailed" {
			ue := &UniqueError{Op: "Transact", Type: op.typ, Attr: sl.g.Attr, Value: sl.g.Value, Scope: sl.g.Scope}
			ue.Holder, _ = x.t.GuardHolder(r.Item)
			f.Err = ue
		}
		e.Failures = append(e.Failures, f)
		return
	}
}
