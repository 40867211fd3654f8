package idempotency

import (
	"context"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// Do runs fn once for key and returns its result to every call with the
// same key until the record's retention ends. fn runs a second time only
// if its first owner truly stopped renewing its lease for longer than
// [Options.Lease] (its process died, or it could not reach DynamoDB); a
// cancelled caller's context does not stop the renewals. That owner's
// late writes are then refused with [ErrLeaseLost] and change nothing.
//
// payload is the caller's canonical encoding of the request (for example
// sorted JSON); its SHA-256 is stored with the claim, and a later call
// with the same key and another payload gets [ErrPayloadMismatch]. optFns
// adjust the store's [Options] for this call (typically FirstValue,
// WaitForResult or TransactItems).
//
// The first call claims the key and runs fn with a context derived from
// ctx, which is also cancelled (cause [ErrLeaseLost]) if the claim is
// taken over. The lease is renewed every [Options.Heartbeat] until fn
// returns, whatever happens to ctx: a caller whose ctx is cancelled (a
// client disconnect, a request timeout) keeps the claim while fn runs,
// and fn sees the cancellation through its own ctx. A second run can
// therefore start only after the first owner has stopped renewing for a
// whole lease: its process died, or every renewal failed (a partition).
// Do then stores the result
// (marshalled with attributevalue, so R must round-trip through it);
// replayed is false. A duplicate gets the stored result with replayed
// true, or while the first call runs an [*InProgressError] carrying the
// first value (unless [Options.WaitForResult]), or a [*FailedError] if
// the first call's failure was recorded.
//
// When fn fails, Do returns fn's result and error, after releasing or
// recording the claim ([Options.Failure]). When the completion write
// fails, Do returns fn's result with that error, for instance
// [ErrLeaseLost]. If fn panics the claim is released and the panic goes
// on. A result that cannot be encoded or would exceed [MaxItemSize]
// records the failure (fn's effects happened, so the key is not freed)
// and returns an error ([ErrResultTooLarge] for the size).
func Do[R any](ctx context.Context, s *Store, key string, payload []byte, fn func(ctx context.Context) (R, error), optFns ...func(*Options)) (result R, replayed bool, err error) {
	var zero R
	if s == nil {
		return zero, false, fmt.Errorf("%w: nil Store", ErrInvalidOptions)
	}
	if key == "" {
		return zero, false, ErrEmptyKey
	}
	if fn == nil {
		return zero, false, fmt.Errorf("%w: nil function", ErrInvalidOptions)
	}
	o, err := s.callOptions(optFns)
	if err != nil {
		return zero, false, err
	}
	c, err := s.newCall(o, key, payload)
	if err != nil {
		return zero, false, err
	}
	if o.Tracer != nil {
		return traceDo(ctx, c, fn)
	}
	return do(ctx, c, fn)
}

// do is Do after its checks: claim, then run fn or answer as a duplicate.
func do[R any](ctx context.Context, c *call, fn func(ctx context.Context) (R, error)) (result R, replayed bool, err error) {
	var zero R
	key := c.key
	rec, owned, err := c.claim(ctx)
	polls, reclaims := 0, 0
	for {
		if err != nil {
			return zero, false, err
		}
		if owned {
			if c.o.Now().Sub(c.claimedAt) < c.o.Heartbeat {
				return run(ctx, c, fn)
			}
			// The claim took long enough for its lease to be in doubt:
			// renew it before fn starts, so fn never runs on a claim that
			// was already taken over.
			eerr := c.extend(ctx)
			if eerr == nil {
				return run(ctx, c, fn)
			}
			if !errors.Is(eerr, ErrLeaseLost) {
				fctx, fcancel := c.finishCtx(ctx)
				defer fcancel()
				return zero, false, errors.Join(eerr, c.fail(fctx, ReleaseClaim, eerr))
			}
			c.owner = newOwner()
			rec, owned, err = c.claim(ctx)
			continue
		}
		if rec == nil || rec.expired(c.o.Now(), c.o.ClockSkew) {
			// Released, or expired since we looked: claim again (spaced
			// out if that keeps happening).
			if reclaims++; reclaims > 2 {
				if werr := c.pause(ctx, reclaims-2); werr != nil {
					return zero, false, fmt.Errorf("idempotency: claim %q: %w", key, werr)
				}
			}
			rec, owned, err = c.claim(ctx)
			continue
		}
		if rec.hash != c.hash {
			return zero, false, fmt.Errorf("%w (key %q)", ErrPayloadMismatch, key)
		}
		switch rec.status {
		case StatusComplete:
			if rec.result == nil {
				return zero, false, fmt.Errorf("%w: key %q: complete without a result", ErrCorruptRecord, key)
			}
			var r R
			if err := attributevalue.Unmarshal(rec.result, &r); err != nil {
				return zero, false, fmt.Errorf("%w: key %q: decode result as %T: %v", ErrCorruptRecord, key, r, err)
			}
			return r, true, nil
		case StatusFailed:
			return zero, true, &FailedError{Key: key, FirstValue: rec.first, Message: rec.errMsg}
		case StatusInProgress:
			ipe := &InProgressError{Key: key, FirstValue: rec.first, LeaseUntil: time.UnixMilli(rec.leaseMs)}
			if !c.o.WaitForResult {
				return zero, false, ipe
			}
			if werr := c.pause(ctx, polls+1); werr != nil {
				return zero, false, fmt.Errorf("%w: %w", ipe, werr)
			}
			polls++
			rec, err = c.read(ctx)
			if err != nil && ctx.Err() != nil {
				return zero, false, fmt.Errorf("%w: %w", ipe, ctx.Err())
			}
		default:
			return zero, false, fmt.Errorf("%w: key %q: unknown status %q", ErrCorruptRecord, key, rec.status)
		}
	}
}

// pause waits before retry number attempt (1-based) as [Options.Retry]
// says. It returns ctx's error when ctx ends first, and [retry.ErrGaveUp]
// when the strategy gives up.
func (c *call) pause(ctx context.Context, attempt int) error {
	d, ok := c.o.Retry.Backoff(attempt)
	if !ok {
		return retry.ErrGaveUp
	}
	return retry.Sleep(ctx, d)
}

// run executes fn as the owner of the claim and finishes the record.
func run[R any](ctx context.Context, c *call, fn func(context.Context) (R, error)) (res R, replayed bool, err error) {
	fnCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The heartbeat runs on a context detached from the caller's: fn sees
	// the caller's cancellation, but the claim stays ours until fn returns,
	// so a cancelled caller never lets a second run start beside its own.
	stop := c.heartbeat(context.WithoutCancel(ctx), cancel)
	func() {
		defer func() {
			if p := recover(); p != nil {
				stop()
				fctx, fcancel := c.finishCtx(ctx)
				_ = c.fail(fctx, ReleaseClaim, fmt.Errorf("panic: %v", p))
				fcancel()
				panic(p)
			}
		}()
		res, err = fn(fnCtx)
	}()
	stop()

	fctx, fcancel := c.finishCtx(ctx)
	defer fcancel()
	if err != nil {
		policy := c.o.Failure
		if c.o.FailureFor != nil {
			policy = c.o.FailureFor(err)
		}
		if ferr := c.fail(fctx, policy, err); ferr != nil {
			return res, false, errors.Join(err, ferr)
		}
		return res, false, err
	}
	av, merr := attributevalue.Marshal(res)
	if merr != nil {
		merr = fmt.Errorf("idempotency: key %q: encode result %T: %w", c.key, res, merr)
		return res, false, errors.Join(merr, c.fail(fctx, RecordFailure, merr))
	}
	if size := c.completeSize(av); size > MaxItemSize {
		serr := fmt.Errorf("%w: key %q: record would be %d bytes, limit %d", ErrResultTooLarge, c.key, size, MaxItemSize)
		return res, false, errors.Join(serr, c.fail(fctx, RecordFailure, serr))
	}
	if err := c.complete(fctx, av); err != nil {
		return res, false, err
	}
	return res, false, nil
}

// call is the state of one Do.
type call struct {
	s     *Store
	o     Options
	key   string
	pk    map[string]types.AttributeValue
	hash  string
	owner string
	// claimSize is the size of the claim item, for the completion check.
	claimSize int
	// claimedAt is the clock reading of the last claim attempt.
	claimedAt time.Time
}

func (s *Store) newCall(o Options, key string, payload []byte) (*call, error) {
	k := o.Key(key)
	if k.PK == "" || k.SK == "" {
		return nil, fmt.Errorf("%w: Options.Key(%q) returned an empty PK or SK", ErrInvalidOptions, key)
	}
	return &call{
		s:     s,
		o:     o,
		key:   key,
		pk:    map[string]types.AttributeValue{o.PKAttr: strAV(k.PK), o.SKAttr: strAV(k.SK)},
		hash:  payloadHash(payload),
		owner: newOwner(),
	}, nil
}

func (c *call) finishCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.o.FinishTimeout)
}

func (c *call) claimItem(now time.Time) map[string]types.AttributeValue {
	lease := now.Add(c.o.Lease)
	item := make(map[string]types.AttributeValue, 10)
	for k, v := range c.pk {
		item[k] = v
	}
	item[attrStatus] = strAV(StatusInProgress)
	item[attrOwner] = strAV(c.owner)
	item[attrHash] = strAV(c.hash)
	item[attrLease] = numAV(lease.UnixMilli())
	item[attrStarted] = strAV(timestamp(now))
	item[c.o.TTLAttr] = numAV(epochSecondsCeil(lease.Add(c.o.Retention)))
	if c.o.FirstValue != "" {
		item[c.o.FirstValueAttr] = strAV(c.o.FirstValue)
	}
	return item
}

// completeSize bounds the size of the record once completed with av.
func (c *call) completeSize(av types.AttributeValue) int {
	// The completion swaps status, drops leaseUntil and adds completedAt
	// and result; "IN_PROGRESS" is the longest status, so keeping the
	// claim's size counts generously.
	return c.claimSize + len(attrCompleted) + len(time.RFC3339Nano) + len(attrResult) + valueSize(av)
}

// claim tries to take the key. It returns owned, or the existing record
// (nil when absent) that made the claim fail.
func (c *call) claim(ctx context.Context) (rec *record, owned bool, err error) {
	for attempt := 0; ; attempt++ {
		now := c.o.Now()
		c.claimedAt = now
		item := c.claimItem(now)
		c.claimSize = itemSize(item)
		if c.claimSize > MaxItemSize {
			return nil, false, fmt.Errorf("idempotency: key %q: claim record is %d bytes (FirstValue too long?): %w", c.key, c.claimSize, entity.ErrItemTooLarge)
		}
		ex, err := expression.NewBuilder().WithCondition(claimCondition(now, &c.o)).Build()
		if err != nil {
			return nil, false, fmt.Errorf("idempotency: build claim condition: %w", err)
		}
		put := &types.Put{
			TableName:                           &c.s.table,
			Item:                                item,
			ConditionExpression:                 ex.Condition(),
			ExpressionAttributeNames:            ex.Names(),
			ExpressionAttributeValues:           ex.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}
		var werr error
		if len(c.o.TransactItems) == 0 {
			_, werr = c.s.client.PutItem(ctx, &dynamodb.PutItemInput{
				TableName:                           put.TableName,
				Item:                                put.Item,
				ConditionExpression:                 put.ConditionExpression,
				ExpressionAttributeNames:            put.ExpressionAttributeNames,
				ExpressionAttributeValues:           put.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			})
			if werr == nil {
				return nil, true, nil
			}
			var ccf *types.ConditionalCheckFailedException
			if errors.As(werr, &ccf) {
				return c.fromOld(ctx, ccf.Item)
			}
		} else {
			var retry bool
			rec, owned, retry, werr = c.claimTx(ctx, put)
			if werr == nil {
				return rec, owned, nil
			}
			if retry {
				if err := c.pause(ctx, attempt+1); err != nil {
					return nil, false, fmt.Errorf("idempotency: claim %q: %w (after %w)", c.key, err, werr)
				}
				continue
			}
		}
		if !ambiguous(werr) {
			return nil, false, fmt.Errorf("idempotency: claim %q: %w", c.key, werr)
		}
		rec, owned, again, err := c.resolveClaim(ctx, werr)
		if err != nil || !again || attempt >= 2 {
			if err == nil && again {
				err = fmt.Errorf("idempotency: claim %q: %w", c.key, werr)
			}
			return rec, owned, err
		}
	}
}

// claimTx claims inside one TransactWriteItems with the caller's items.
// retry reports a transaction conflict worth retrying.
func (c *call) claimTx(ctx context.Context, put *types.Put) (rec *record, owned, retry bool, err error) {
	items := make([]types.TransactWriteItem, 0, 1+len(c.o.TransactItems))
	items = append(items, types.TransactWriteItem{Put: put})
	items = append(items, c.o.TransactItems...)
	_, err = c.s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if err == nil {
		return nil, true, false, nil
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false, false, err
	}
	reasons := tce.CancellationReasons
	code := func(i int) string {
		if i < len(reasons) && reasons[i].Code != nil {
			return *reasons[i].Code
		}
		return ""
	}
	if code(0) == "ConditionalCheckFailed" {
		rec, owned, err = c.fromOld(ctx, reasons[0].Item)
		return rec, owned, false, err
	}
	for i := 1; i < len(reasons); i++ {
		if code(i) == "ConditionalCheckFailed" {
			return nil, false, false, fmt.Errorf("idempotency: claim %q: TransactItems[%d]: %w", c.key, i-1, entity.ErrConditionFailed)
		}
	}
	for i := range reasons {
		if code(i) == "TransactionConflict" {
			return nil, false, true, err
		}
	}
	return nil, false, false, err
}

// fromOld answers a failed claim from the record the condition saw. A
// record that carries our own owner token means an SDK retry of a claim
// that had in fact succeeded. A server that does not return the old item
// costs one consistent read.
func (c *call) fromOld(ctx context.Context, old map[string]types.AttributeValue) (*record, bool, error) {
	var rec *record
	var err error
	if len(old) == 0 {
		rec, err = c.read(ctx)
	} else {
		rec, err = decodeRecord(old, &c.o)
	}
	if err != nil {
		return nil, false, err
	}
	if rec != nil && rec.owner == c.owner && rec.status == StatusInProgress {
		return nil, true, nil
	}
	return rec, false, nil
}

// resolveClaim settles an ambiguous claim write with a consistent read
// comparing the owner token. again asks for another claim attempt (the
// write did not land and the context is alive).
func (c *call) resolveClaim(ctx context.Context, werr error) (rec *record, owned, again bool, err error) {
	rctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		rctx, cancel = c.finishCtx(ctx)
		defer cancel()
	}
	cur, rerr := c.read(rctx)
	if rerr != nil {
		return nil, false, false, errors.Join(fmt.Errorf("idempotency: claim %q: %w", c.key, werr), rerr)
	}
	mine := cur != nil && cur.owner == c.owner
	switch {
	case mine && ctx.Err() != nil:
		// We hold a claim we can no longer use: give it back.
		return nil, false, false, errors.Join(ctx.Err(), c.fail(rctx, ReleaseClaim, ctx.Err()))
	case mine:
		return nil, true, false, nil
	case ctx.Err() != nil:
		return nil, false, false, fmt.Errorf("idempotency: claim %q: %w", c.key, ctx.Err())
	case cur != nil:
		return cur, false, false, nil
	}
	return nil, false, true, nil
}

// read is a consistent GetItem of the record; nil when absent.
func (c *call) read(ctx context.Context) (*record, error) {
	out, err := c.s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &c.s.table,
		Key:            c.pk,
		ConsistentRead: ptrTrue(),
	})
	if err != nil {
		return nil, fmt.Errorf("idempotency: read %q: %w", c.key, err)
	}
	return decodeRecord(out.Item, &c.o)
}

func ptrTrue() *bool { b := true; return &b }

// heartbeat renews the lease every Heartbeat until stop is called (ctx is
// detached from the caller's, so only stop ends it). Each renewal is
// bounded by one Heartbeat interval. When the claim turns out lost it
// cancels the function's context with ErrLeaseLost. Other errors are
// retried at the next beat.
func (c *call) heartbeat(ctx context.Context, lost context.CancelCauseFunc) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(c.o.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				ectx, cancel := context.WithTimeout(ctx, c.o.Heartbeat)
				err := c.extend(ectx)
				cancel()
				if errors.Is(err, ErrLeaseLost) {
					lost(err)
					return
				}
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

func (c *call) leaseLost() error {
	return fmt.Errorf("%w: key %q was taken over by another caller", ErrLeaseLost, c.key)
}

// update runs a conditional UpdateItem on the record, owned by us.
func (c *call) update(ctx context.Context, upd expression.UpdateBuilder) (*dynamodb.UpdateItemOutput, error) {
	ex, err := expression.NewBuilder().WithUpdate(upd).WithCondition(ownedCondition(c.owner)).Build()
	if err != nil {
		return nil, fmt.Errorf("idempotency: build update: %w", err)
	}
	return c.s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &c.s.table,
		Key:                                 c.pk,
		UpdateExpression:                    ex.Update(),
		ConditionExpression:                 ex.Condition(),
		ExpressionAttributeNames:            ex.Names(),
		ExpressionAttributeValues:           ex.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
}

// extend renews the lease.
func (c *call) extend(ctx context.Context) error {
	lease := c.o.Now().Add(c.o.Lease)
	_, err := c.update(ctx, expression.
		Set(expression.Name(attrLease), expression.Value(numAV(lease.UnixMilli()))).
		Set(expression.Name(c.o.TTLAttr), expression.Value(numAV(epochSecondsCeil(lease.Add(c.o.Retention))))))
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return c.leaseLost()
	}
	return err
}

// finish writes a final state (COMPLETE or FAILED) if we still own the
// claim. A condition failure whose old item already shows our token in
// that state is an SDK retry of our own successful write.
func (c *call) finish(ctx context.Context, status string, upd expression.UpdateBuilder) error {
	_, err := c.update(ctx, upd)
	if err == nil {
		return nil
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		old, derr := decodeRecord(ccf.Item, &c.o)
		if derr == nil && old != nil && old.owner == c.owner && old.status == status {
			return nil
		}
		return c.leaseLost()
	}
	if ambiguous(err) {
		if cur, rerr := c.read(ctx); rerr == nil && cur != nil && cur.owner == c.owner && cur.status == status {
			return nil
		}
	}
	return fmt.Errorf("idempotency: key %q: write %s: %w", c.key, status, err)
}

// complete stores the result.
func (c *call) complete(ctx context.Context, av types.AttributeValue) error {
	now := c.o.Now()
	return c.finish(ctx, StatusComplete, expression.
		Set(expression.Name(attrStatus), expression.Value(strAV(StatusComplete))).
		Set(expression.Name(attrResult), expression.Value(av)).
		Set(expression.Name(attrCompleted), expression.Value(strAV(timestamp(now)))).
		Set(expression.Name(c.o.TTLAttr), expression.Value(numAV(epochSecondsCeil(now.Add(c.o.Retention))))).
		Remove(expression.Name(attrLease)))
}

// maxErrorMessage caps a recorded error message.
const maxErrorMessage = 4096

// fail releases or records the claim after fn failed.
func (c *call) fail(ctx context.Context, policy FailurePolicy, cause error) error {
	if policy == RecordFailure {
		msg := cause.Error()
		if len(msg) > maxErrorMessage {
			msg = msg[:maxErrorMessage]
		}
		now := c.o.Now()
		return c.finish(ctx, StatusFailed, expression.
			Set(expression.Name(attrStatus), expression.Value(strAV(StatusFailed))).
			Set(expression.Name(attrError), expression.Value(strAV(msg))).
			Set(expression.Name(attrCompleted), expression.Value(strAV(timestamp(now)))).
			Set(expression.Name(c.o.TTLAttr), expression.Value(numAV(epochSecondsCeil(now.Add(c.o.Retention))))).
			Remove(expression.Name(attrLease)))
	}
	ex, err := expression.NewBuilder().WithCondition(ownedCondition(c.owner)).Build()
	if err != nil {
		return fmt.Errorf("idempotency: build release condition: %w", err)
	}
	_, err = c.s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                           &c.s.table,
		Key:                                 c.pk,
		ConditionExpression:                 ex.Condition(),
		ExpressionAttributeNames:            ex.Names(),
		ExpressionAttributeValues:           ex.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return nil
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if len(ccf.Item) == 0 {
			return nil // already gone (a retried delete of ours): nothing is held
		}
		return c.leaseLost()
	}
	return fmt.Errorf("idempotency: key %q: release: %w", c.key, err)
}
