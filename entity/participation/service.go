package participation

import (
	"context"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// Errors of the request lifecycle. Check them with errors.Is.
var (
	// ErrIllegalTransition is matched by [*TransitionError].
	ErrIllegalTransition = errors.New("participation: illegal status transition")
	// ErrNotReady is returned by [Service.Process] for a request that is
	// still RECEIVED: its message arrived before the API recorded QUEUED.
	// The delivery should be retried later (the queue redelivers).
	ErrNotReady = errors.New("participation: request not queued yet")
	// ErrEnqueue is returned by [Service.Participate] when the queue
	// refused the message; the request is then FAILED_FINAL with error
	// code FAILED_INGEST_ENQUEUE.
	ErrEnqueue = errors.New("participation: enqueue failed")
)

// TransitionError reports a status change that the status machine does
// not allow, or that lost a race: From is the status the request really
// had (read from the failed conditional write) and To the one asked for.
type TransitionError struct {
	RequestID string
	From, To  Status
}

func (e *TransitionError) Error() string {
	s := "participation: illegal status transition " + string(e.From) + " -> " + string(e.To)
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// Unwrap returns [ErrIllegalTransition].
func (e *TransitionError) Unwrap() error { return ErrIllegalTransition }

var next = map[Status][]Status{
	StatusReceived:   {StatusQueued, StatusFailedFinal},
	StatusQueued:     {StatusProcessing},
	StatusProcessing: {StatusSucceeded, StatusRejected, StatusFailedFinal},
}

// CheckTransition reports whether the status machine allows from -> to:
// nil, a [*TransitionError], or an *entity.ConstraintError for an
// unknown status.
func CheckTransition(from, to Status) error {
	for _, s := range []Status{from, to} {
		if err := entity.Check(RequestStatus, s); err != nil {
			return err
		}
	}
	for _, s := range next[from] {
		if s == to {
			return nil
		}
	}
	return &TransitionError{From: from, To: to}
}

// Message is what the API sends to the queue for the worker.
type Message struct {
	RequestID string
	EventID   string
}

// Queue is the message queue between the API and the worker (SQS in the
// seed). Send returns nil only once the message is durably accepted. The
// queue may deliver a message more than once; [Service.Process] is
// idempotent.
type Queue interface {
	Send(ctx context.Context, m Message) error
}

// Options configures a [Service]. The zero value is valid.
type Options struct {
	// Now is the clock; default time.Now.
	Now func() time.Time
	// NewRequestID returns a new request ID; default keys.NewID (26
	// characters, time-ordered).
	NewRequestID func() string
	// StatusLog writes a RequestStatusLog item in the same transaction as
	// every status change (the seed's optional audit log). Default false:
	// a transition is then a single UpdateItem where it can be.
	StatusLog bool
	// Draw decides a LOTTERY request: true wins. Default: a fair coin.
	Draw func(r Request) bool
	// Retry paces retries of transaction conflicts (many workers on one
	// EventCapacity); it is given to entity.Tx.Retry. Default: jittered
	// backoff from 5 ms to 200 ms, bounded by the context.
	Retry retry.Strategy
}

// Service runs the participation lifecycle on a table made with
// [NewTable] (or [TableOptions]): the API step [Service.Participate] and
// the worker step [Service.Process]. It is safe for concurrent use.
type Service struct {
	t     *entity.Table
	q     Queue
	o     Options
	locks *entity.Store[IdempotencyLock, *IdempotencyLock]
	reqs  *entity.Store[Request, *Request]
	caps  *entity.Store[EventCapacity, *EventCapacity]
	logs  *entity.Store[RequestStatusLog, *RequestStatusLog]
}

// NewService returns a Service on table t that sends to q (q may be nil
// for a worker-only service; Participate then fails with [ErrEnqueue]).
func NewService(t *entity.Table, q Queue, optFns ...func(*Options)) *Service {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewRequestID == nil {
		o.NewRequestID = keys.NewID
	}
	if o.Draw == nil {
		o.Draw = func(Request) bool { return rand.IntN(2) == 0 }
	}
	if o.Retry == nil {
		o.Retry = retry.Exponential(5*time.Millisecond, 200*time.Millisecond)
	}
	return &Service{
		t: t, q: q, o: o,
		locks: entity.NewStore[IdempotencyLock](t),
		reqs:  entity.NewStore[Request](t),
		caps:  entity.NewStore[EventCapacity](t),
		logs:  entity.NewStore[RequestStatusLog](t),
	}
}

// Table returns the service's table.
func (s *Service) Table() *entity.Table { return s.t }

func (s *Service) now() time.Time { return s.o.Now().UTC() }

func invalid(op, typ, field string, err error) error {
	return &entity.ValidationError{Op: op, Type: typ, Field: field, Err: err}
}

// CreateCapacity creates the EventCapacity of a FIRST_COME event with
// capacity seats. It fails with entity.ErrAlreadyExists when the event
// has one, with an *entity.ValidationError for an empty or malformed
// eventID, and with an *entity.ConstraintError for a capacity below 1.
func (s *Service) CreateCapacity(ctx context.Context, eventID string, capacity int64) (EventCapacity, error) {
	ec := EventCapacity{EventID: eventID, CapacityTotal: capacity, CapacityRemaining: capacity}
	err := s.caps.Create(ctx, &ec)
	return ec, err
}

// Receipt is the answer to a participation click.
type Receipt struct {
	// RequestID is the request of the first click of this user for this
	// event (this click's own when Duplicate is false).
	RequestID string
	// Duplicate reports that an earlier click won the IdempotencyLock.
	Duplicate bool
	// Status is the request's status after this click: QUEUED, or
	// FAILED_FINAL when the enqueue failed; "" for a duplicate (read the
	// request to know it).
	Status Status
}

// Participate is POST /events/{eventId}/participations: table A of the
// seed, rows one to four.
//
// In one transaction (entity.Tx) it creates the IdempotencyLock
// (condition attribute_not_exists(PK): no item with that key) and the Request
// (status RECEIVED, requestedAt now), so a Request never exists without
// its lock. A duplicate click writes nothing and gets the first requestId,
// from the failed condition's old item (ALL_OLD) or, failing that, a
// GetItem of the lock. Then it sends the [Message] to the queue; only
// when the send succeeded does it set QUEUED, queuedAt and the GSI2 key
// (condition status = RECEIVED AND attribute_not_exists(queuedAt)). A
// failed send sets FAILED_FINAL with FAILED_INGEST_ENQUEUE and returns an
// error matching [ErrEnqueue]. Duplicates of that click keep getting its
// requestId: the seed's lock is never released.
//
// Bad input (empty IDs, an unknown mode) is an *entity.ValidationError
// (an *entity.ConstraintError for the mode) and writes nothing.
func (s *Service) Participate(ctx context.Context, eventID, userID string, mode Mode) (Receipt, error) {
	const op = "Participate"
	lockKey, err := IdempotencyLockKey(eventID, userID)
	if err != nil {
		return Receipt{}, invalid(op, IdempotencyLockType, "eventId/userId", err)
	}
	if err := entity.Check(RequestMode, mode); err != nil {
		return Receipt{}, err
	}
	rid := s.o.NewRequestID()
	now := s.now()
	lock := IdempotencyLock{EventID: eventID, UserID: userID, RequestID: rid, CreatedAt: now}
	req := Request{RequestID: rid, EventID: eventID, UserID: userID, Mode: mode, Status: StatusReceived, RequestedAt: now}
	tx := s.t.Tx().Retry(s.o.Retry).Add(s.locks.TxCreate(&lock), s.reqs.TxCreate(&req))
	if s.o.StatusLog {
		tx.Add(s.logCreate(rid, "", StatusReceived, now, "participation received"))
	}
	if err := tx.Exec(ctx); err != nil {
		var tce *entity.TxCanceledError
		if errors.As(err, &tce) && len(tce.Failures) > 0 && tce.Failures[0].Index == 0 && tce.Failures[0].Code == "ConditionalCheckFailed" {
			first, ferr := s.firstRequestID(ctx, lockKey, tce.Failures[0].Item)
			if ferr != nil {
				return Receipt{}, ferr
			}
			return Receipt{RequestID: first, Duplicate: true}, nil
		}
		return Receipt{}, fmt.Errorf("participation: %s %s: %w", op, rid, err)
	}

	var sendErr error
	if s.q == nil {
		sendErr = errors.New("no queue configured")
	} else {
		sendErr = s.q.Send(ctx, Message{RequestID: rid, EventID: eventID})
	}
	if sendErr != nil {
		ferr := s.apply(ctx, &req, step{
			to: StatusFailedFinal,
			changes: entity.Changes[Request]{
				entity.Set(RequestErrorCode, ErrorIngestEnqueue),
				entity.Set(RequestFailureClass, FailureTransient),
				entity.Set(RequestErrorMessage, sendErr.Error()),
				entity.Set(RequestFinishedAt, s.now()),
			},
			detail: string(ErrorIngestEnqueue),
		})
		return Receipt{RequestID: rid, Status: req.Status}, errors.Join(fmt.Errorf("%w: request %s: %w", ErrEnqueue, rid, sendErr), ferr)
	}
	// Easy mistake 2: queuedAt is written only now, after the send.
	if err := s.markQueued(ctx, &req); err != nil {
		return Receipt{RequestID: rid, Status: req.Status}, err
	}
	return Receipt{RequestID: rid, Status: req.Status}, nil
}

// markQueued is RECEIVED -> QUEUED: it writes queuedAt and the GSI2 key
// once (easy mistake 3), conditioned on status = RECEIVED AND
// attribute_not_exists(queuedAt) AND attribute_not_exists(GSI2SK).
func (s *Service) markQueued(ctx context.Context, r *Request) error {
	return s.apply(ctx, r, step{
		to: StatusQueued,
		changes: entity.Changes[Request]{
			entity.Set(RequestQueuedAt, s.now()),
			// eventId is rewritten with its own value (checked below) so
			// that the runtime can compute the GSI2 key in this update.
			entity.Set(RequestEventID, r.EventID),
		},
		conds: []expression.ConditionBuilder{
			expression.AttributeNotExists(expression.Name("queuedAt")),
			expression.AttributeNotExists(expression.Name("GSI2SK")),
			expression.Name("eventId").Equal(expression.Value(r.EventID)),
		},
		detail: "enqueued",
	})
}

// firstRequestID reads the first requestId from the lock's old image, or
// with a consistent GetItem of the lock (the seed's duplicate-click row).
func (s *Service) firstRequestID(ctx context.Context, key entity.Key, old map[string]types.AttributeValue) (string, error) {
	if v, ok := old["requestId"].(*types.AttributeValueMemberS); ok && v.Value != "" {
		return v.Value, nil
	}
	l, err := s.locks.Get(ctx, key, entity.ConsistentRead)
	if err != nil {
		return "", err
	}
	return l.RequestID, nil
}

// Process is one delivery of m to the worker (table B of the seed). It is
// idempotent, so at-least-once delivery is safe:
//
//   - RECEIVED: the API has not recorded QUEUED yet; returns [ErrNotReady]
//     (redeliver later);
//   - QUEUED: moves to PROCESSING (startedAt; condition status = QUEUED),
//     then decides;
//   - PROCESSING (a redelivery after a crash, or a concurrent delivery):
//     decides;
//   - final: a duplicate delivery; nothing changes.
//
// Deciding a FIRST_COME request is one transaction: the EventCapacity
// decrement (condition capacityRemaining > 0) and PROCESSING -> SUCCEEDED
// (uiResult SUCCESS), so a redelivered message can never take a second
// seat. When no seat is left the request becomes REJECTED
// (REJECTED_CAPACITY); an event without EventCapacity ends FAILED_FINAL
// (FAILED_EVENT_NOT_FOUND, PERMANENT). A LOTTERY request is decided by
// Options.Draw: SUCCEEDED/LOTTERY_WIN or REJECTED/LOTTERY_LOSE, with no
// capacity. Every change is conditioned on the status it leaves.
//
// It returns the request as this delivery left it, and decided = true
// when this delivery took the final decision. Other errors (the
// request's absence matches entity.ErrNotFound) leave the message for
// redelivery; after too many, call [Service.Fail].
func (s *Service) Process(ctx context.Context, m Message) (r Request, decided bool, err error) {
	key, err := RequestKey(m.RequestID)
	if err != nil {
		return r, false, invalid("Process", RequestType, "requestId", err)
	}
	if r, err = s.reqs.Get(ctx, key, entity.ConsistentRead); err != nil {
		return r, false, err
	}
	for {
		var te *TransitionError
		switch r.Status {
		case StatusReceived:
			return r, false, fmt.Errorf("%w: request %s", ErrNotReady, r.RequestID)
		case StatusQueued:
			err = s.apply(ctx, &r, step{
				to:      StatusProcessing,
				changes: entity.Changes[Request]{entity.Set(RequestStartedAt, s.now())},
				detail:  "worker started",
			})
		case StatusProcessing:
			err = s.decide(ctx, &r)
			if err == nil {
				return r, true, nil
			}
		default:
			return r, false, nil
		}
		if err != nil && !errors.As(err, &te) {
			return r, false, err
		}
		// A lost race: r now holds the current status; go on from there.
	}
}

func (s *Service) decide(ctx context.Context, r *Request) error {
	now := s.now()
	if r.Mode == ModeLottery {
		to, ui := StatusRejected, UILotteryLose
		if s.o.Draw(*r) {
			to, ui = StatusSucceeded, UILotteryWin
		}
		return s.apply(ctx, r, step{
			to:      to,
			changes: entity.Changes[Request]{entity.Set(RequestUIResult, ui), entity.Set(RequestFinishedAt, now)},
			detail:  string(ui),
		})
	}
	capKey, err := EventCapacityKey(r.EventID)
	if err != nil {
		return invalid("Process", EventCapacityType, "eventId", err)
	}
	take := s.caps.TxUpdate(capKey,
		entity.Changes[EventCapacity]{entity.Add(EventCapacityCapacityRemaining, -1)},
		entity.If(expression.Name("capacityRemaining").GreaterThan(expression.Value(0))))
	err = s.apply(ctx, r, step{
		to:      StatusSucceeded,
		changes: entity.Changes[Request]{entity.Set(RequestUIResult, UISuccess), entity.Set(RequestFinishedAt, now)},
		extra:   []entity.TxOp{take},
		detail:  string(UISuccess),
	})
	var xf *extraFailed
	if !errors.As(err, &xf) {
		return err
	}
	if len(xf.old) == 0 {
		return s.Fail(ctx, r, FailurePermanent, ErrorEventNotFound, "no EventCapacity for event "+r.EventID)
	}
	return s.apply(ctx, r, step{
		to:      StatusRejected,
		changes: entity.Changes[Request]{entity.Set(RequestUIResult, UIRejectedCapacity), entity.Set(RequestFinishedAt, now)},
		detail:  string(UIRejectedCapacity),
	})
}

// Fail ends a request in FAILED_FINAL with class, code and message (the
// seed's "최종 실패" row), for instance after a message exhausted its
// deliveries. The request must be RECEIVED or PROCESSING (as r says and
// as the table confirms), else the error is a [*TransitionError]; an
// unknown class or code is an *entity.ConstraintError and writes nothing.
// r is updated with the result.
func (s *Service) Fail(ctx context.Context, r *Request, class FailureClass, code ErrorCode, message string) error {
	if err := entity.Check(RequestFailureClass, class); err != nil {
		return err
	}
	if err := entity.Check(RequestErrorCode, code); err != nil {
		return err
	}
	return s.apply(ctx, r, step{
		to: StatusFailedFinal,
		changes: entity.Changes[Request]{
			entity.Set(RequestFailureClass, class),
			entity.Set(RequestErrorCode, code),
			entity.Set(RequestErrorMessage, message),
			entity.Set(RequestFinishedAt, s.now()),
		},
		detail: string(code),
	})
}

// step is one status transition of a request.
type step struct {
	to      Status
	changes entity.Changes[Request]
	conds   []expression.ConditionBuilder
	// extra actions join the transaction after the request's update.
	extra  []entity.TxOp
	detail string
}

// extraFailed reports that an extra item's condition failed.
type extraFailed struct {
	index int
	old   map[string]types.AttributeValue
}

func (e *extraFailed) Error() string {
	return fmt.Sprintf("participation: item %d condition failed", e.index)
}

// apply performs one transition of r, always conditioned on
// status = r.Status (easy mistake 4). On success r is the new state. A
// lost condition is a *TransitionError from the real status, and r is
// then the current state.
func (s *Service) apply(ctx context.Context, r *Request, st step) error {
	from := r.Status
	if err := CheckTransition(from, st.to); err != nil {
		var te *TransitionError
		if errors.As(err, &te) {
			te.RequestID = r.RequestID
		}
		return err
	}
	key, err := RequestKey(r.RequestID)
	if err != nil {
		return invalid("transition", RequestType, "requestId", err)
	}
	changes := append(entity.Changes[Request]{entity.Set(RequestStatus, st.to)}, st.changes...)
	cond := expression.Name("status").Equal(expression.Value(string(from)))
	for _, c := range st.conds {
		cond = cond.And(c)
	}
	if len(st.extra) == 0 && !s.o.StatusLog {
		v, err := s.reqs.Update(ctx, key, changes, entity.If(cond))
		var ce *entity.ConditionError
		if errors.As(err, &ce) {
			return s.lost(ctx, r, key, st.to, ce.Old)
		}
		if err != nil {
			return fmt.Errorf("participation: %s -> %s (request %s): %w", from, st.to, r.RequestID, err)
		}
		*r = v
		return nil
	}
	tx := s.t.Tx().Retry(s.o.Retry).Add(s.reqs.TxUpdate(key, changes, entity.If(cond))).Add(st.extra...)
	if s.o.StatusLog {
		tx.Add(s.logCreate(r.RequestID, from, st.to, s.now(), st.detail))
	}
	if err := tx.Exec(ctx); err != nil {
		var tce *entity.TxCanceledError
		if errors.As(err, &tce) {
			for _, f := range tce.Failures {
				if f.Code != "ConditionalCheckFailed" {
					continue
				}
				if f.Index == 0 {
					return s.lost(ctx, r, key, st.to, f.Item)
				}
				if f.Index <= len(st.extra) {
					return &extraFailed{index: f.Index - 1, old: f.Item}
				}
			}
		}
		return fmt.Errorf("participation: %s -> %s (request %s): %w", from, st.to, r.RequestID, err)
	}
	v, err := s.reqs.Get(ctx, key, entity.ConsistentRead)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// lost explains a failed status condition from the old item.
func (s *Service) lost(ctx context.Context, r *Request, key entity.Key, to Status, old map[string]types.AttributeValue) error {
	var cur Request
	var err error
	if len(old) > 0 {
		cur, err = s.reqs.Decode(old)
	} else {
		cur, err = s.reqs.Get(ctx, key, entity.ConsistentRead)
	}
	if err != nil {
		return err
	}
	*r = cur
	return &TransitionError{RequestID: r.RequestID, From: cur.Status, To: to}
}

// logCreate is the transaction action that writes a RequestStatusLog.
func (s *Service) logCreate(requestID string, from, to Status, at time.Time, detail string) entity.TxOp {
	l := RequestStatusLog{RequestID: requestID, OccurredAt: at, From: from, To: to, Detail: detail}
	return s.logs.TxCreate(&l)
}
