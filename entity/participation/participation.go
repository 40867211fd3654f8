// Package participation holds the entities of the participation-event
// system of seed 004 ("Access Pattern 매핑 표"), all in one table with the
// primary key PK/SK and two global secondary indexes, GSI1 (GSI1PK/GSI1SK)
// and GSI2 (GSI2PK/GSI2SK), projection ALL:
//
//	IdempotencyLock   IDEMP#<eventId>#<userId>  LOCK
//	Request           REQ#<requestId>           META
//	  GSI1            USER#<userId>             RAT#<requestedAt>#REQ#<requestId>
//	  GSI2 (sparse)   EVENT#<eventId>           QAT#<queuedAt>#REQ#<requestId>
//	EventCapacity     EVENT#<eventId>           CAPACITY
//	RequestStatusLog  REQ#<requestId>           LOG#<occurredAt>
//	OpenRequest       OPEN#<shard>              RAT#<requestedAt>#REQ#<requestId>
//
// The seed fixes every string above except GSI1SK, which it leaves open
// ("newest first"): tablekit uses RAT#<requestedAt>#REQ#<requestId>, the
// twin of GSI2SK. Times in keys are fixed-width ISO 8601 UTC
// ("2025-10-29T10:00:00.000Z", nanoseconds for occurredAt), so string
// order is time order. Values are escaped by package keys, so an ID that
// contains '#' can never forge another key.
//
// # The request lifecycle
//
// [Service] implements the write side of the seed's tables A and B:
// [Service.Participate] (the API) and [Service.Process] (the worker), with
// the status machine
//
//	RECEIVED -> QUEUED -> PROCESSING -> SUCCEEDED | REJECTED | FAILED_FINAL
//	RECEIVED -> FAILED_FINAL            (enqueue failed: FAILED_INGEST_ENQUEUE)
//	QUEUED   -> FAILED_FINAL            (the reconciler gave up: FAILED_PROCESSING)
//
// Every transition is one conditional write (status = the expected
// status); an illegal or lost transition is a [*TransitionError]
// (errors.Is [ErrIllegalTransition]). Enum attributes (status, mode,
// uiResult, errorCode, failureClass) refuse unknown values on every write
// and on read with an *entity.ConstraintError (errors.Is
// entity.ErrValidation): the enums and the rules (a capacity of at least
// one seat, never below zero remaining) are declared below and checked by
// the generated codec, whatever path writes the item.
//
// # The five easy mistakes, enforced
//
//  1. No Request before its IdempotencyLock: Participate writes the lock
//     and the Request in one TransactWriteItems, so a Request exists only
//     if its lock was won; a duplicate writes nothing and gets the first
//     requestId.
//  2. queuedAt only after the enqueue succeeded: Participate sends to the
//     [Queue] first and only then sets QUEUED, queuedAt and the GSI2 key;
//     a failed send ends in FAILED_FINAL with no queuedAt and no GSI2 key.
//     The message carries the queuedAt chosen before the send; a delivered
//     message proves the send succeeded, so the worker may record QUEUED
//     with that same queuedAt when the API could not (it crashed after
//     the send).
//  3. GSI2SK and queuedAt are never modified after QUEUED: they are set
//     by the RECEIVED -> QUEUED transition alone, conditioned on
//     attribute_not_exists(queuedAt); no other transition touches them.
//  4. Worker transitions are always conditional: each update carries
//     status = <expected> (tests check every UpdateItem and transaction).
//  5. GSI attributes exist only on Request items: no other entity declares
//     an index key, and the GSI2 key is sparse until QUEUED.
//
// # No stuck state
//
// Each step is a separate write, a process can die between any two, and
// the queue delivers at least once. Every window is closed:
//
//   - a crash after the participation transaction and before the send,
//     or a message lost by the queue: the request stays RECEIVED (or
//     QUEUED, PROCESSING) and its [OpenRequest] marker stays in the
//     OPEN#<shard> partitions; [Service.Reconcile] finds it there after
//     [Options.StuckAfter] (one Query per shard, never a scan) and sends
//     its message again, up to [Options.MaxReenqueues] times, then ends it
//     FAILED_FINAL with failureClass TRANSIENT;
//   - a crash between the send and the QUEUED write: the delivered
//     message promotes the request (RECEIVED -> QUEUED with the message's
//     queuedAt), so Process never waits for a write that will not come;
//   - a worker crash in PROCESSING: the queue redelivers, and Process
//     decides (the capacity decrement and SUCCEEDED are one transaction,
//     so a seat is never taken twice);
//   - a message dead-lettered: the consumer's final-failure hook calls
//     [Service.Fail]; if that fails too, the reconciler finishes the job.
//
// The transition to a final status deletes the marker in the same
// transaction. internal/crashtest proves all this call by call
// (TestCrashParticipation and friends), with the queue in process
// (consumer.MemQueue) and on an SQS-compatible server (goaws, through
// consumer/sqsqueue: TestCrashParticipationSQS, and
// TestCrashSQSSendBeforeQueued, TestCrashSQSExpiredReceipt for a receipt
// handle used after the visibility timeout, TestCrashSQSDuplicateDelivery).
// examples/participation runs the flow on SQS when TABLEKIT_SQS_ENDPOINT
// names an endpoint, else on consumer.MemQueue.
//
// # After a final failure
//
// FAILED_FINAL is the system's failure, not the user's choice, so it does
// not lock the user out: the transition that ends a request FAILED_FINAL
// also deletes its IdempotencyLock, and the user's next click creates a
// new request (a new requestId, a new place in the queue order). Until
// the request fails, every duplicate click gets its requestId. A user
// thus has at most one request that has not failed per event.
//
// # Errors
//
// Bad input is an *entity.ValidationError (errors.Is entity.ErrValidation,
// and keys.ErrMissingField for an empty ID) or, for a broken rule (a
// capacity below 1, an unknown mode), an *entity.ConstraintError naming
// the attribute, value and rule; a missing item matches
// entity.ErrNotFound; see also [ErrIllegalTransition], [ErrNotReady] and
// [ErrEnqueue].
//
// The enums, key builders, codecs, typed fields and the index list [GSIs]
// (participation_keys.go) are generated by keygen from the directives
// below. GSI2 is sparse and the runtime writes a sparse index whole or not
// at all, so a RECEIVED request (no queuedAt, hence no GSI2SK) carries
// neither GSI2 key until QUEUED.
package participation

//go:generate go run github.com/tablekit/tablekit/keys/keygen

import (
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/internal/layout"
)

// DefaultTableName is the table name used when NewTable gets "".
const DefaultTableName = "ParticipationTable"

// Index names.
const (
	GSI1 = "GSI1" // a user's requests, newest first
	GSI2 = "GSI2" // an event's requests in queue order
)

// TTLAttr is the table's time-to-live attribute (epoch seconds). No
// entity of the seed expires; it is enabled for users' own entities.
const TTLAttr = "ttl"

// TableOptions configures an entity.Table with the seed 004 layout: PK
// and SK strings, the Type attribute, GSI1 and GSI2 (projection ALL), the
// TTL attribute "ttl" and on-demand billing.
func TableOptions(o *entity.Options) {
	layout.Options(o, TTLAttr, GSIs...)
}

// NewTable returns the participation table on client. name "" means
// [DefaultTableName]; optFns run after [TableOptions].
func NewTable(client entity.Client, name string, optFns ...func(*entity.Options)) *entity.Table {
	return layout.NewTable(client, name, DefaultTableName, TableOptions, optFns)
}

// Status is the processing status of a [Request], in lifecycle order.
//
//keygen:enum Status RECEIVED QUEUED PROCESSING SUCCEEDED REJECTED FAILED_FINAL

// Final reports whether s ends the lifecycle.
func (s Status) Final() bool {
	return s == StatusSucceeded || s == StatusRejected || s == StatusFailedFinal
}

// Mode is how an event picks its winners. FIRST_COME: the first N
// requests the worker decides win (an atomic decrement of EventCapacity).
// With an unordered queue (SQS standard) that is close to, not exactly,
// queuedAt order; queuedAt and GSI2 keep the reference order for audits.
// Strict queuedAt order needs a FIFO queue with one consumer per event.
// LOTTERY: a draw per request; no EventCapacity.
//
//keygen:enum Mode FIRST_COME LOTTERY

// UIResult is the outcome shown to the user; REJECTED is split by it.
//
//keygen:enum UIResult UISuccess=SUCCESS UIRejectedCapacity=REJECTED_CAPACITY UILotteryWin=LOTTERY_WIN UILotteryLose=LOTTERY_LOSE

// ErrorCode says why a request ended in FAILED_FINAL.
// FAILED_INGEST_ENQUEUE (the seed's): the message could not be sent to
// the queue; FAILED_EVENT_NOT_FOUND: a FIRST_COME event without an
// EventCapacity; FAILED_PROCESSING: the worker failed and gave up
// (retries exhausted).
//
//keygen:enum ErrorCode ErrorIngestEnqueue=FAILED_INGEST_ENQUEUE ErrorEventNotFound=FAILED_EVENT_NOT_FOUND ErrorProcessing=FAILED_PROCESSING

// FailureClass classifies a final failure for operators: TRANSIENT,
// retries were exhausted on an error that may pass; PERMANENT, retrying
// cannot help (bad data, missing event).
//
//keygen:enum FailureClass FailureTransient=TRANSIENT FailurePermanent=PERMANENT

// IdempotencyLock is the first write of a participation: one per event
// and user. Its conditional put decides which click is the first one; it
// keeps that click's requestId for the duplicates.
//
//keygen:entity IdempotencyLock
//keygen:key PK=IDEMP#{EventID}#{UserID} SK=LOCK
type IdempotencyLock struct {
	EventID   string    `ddb:"eventId"`
	UserID    string    `ddb:"userId"`
	RequestID string    `ddb:"requestId"`
	CreatedAt time.Time `ddb:"createdAt,created"`
}

// Request is one participation request and its processing state.
// GSI1 lists a user's requests (newest first when read descending); GSI2
// lists an event's requests in the order they were queued. The GSI2 key
// is absent until the request is QUEUED, and never changes afterwards.
//
//keygen:entity Request
//keygen:key PK=REQ#{RequestID} SK=META
//keygen:gsi GSI1 GSI1PK=USER#{UserID} GSI1SK=RAT#{RequestedAt}#REQ#{RequestID}
//keygen:gsi GSI2 GSI2PK=EVENT#{EventID} GSI2SK=QAT#{QueuedAt}#REQ#{RequestID} sparse
type Request struct {
	RequestID    string       `ddb:"requestId"`
	EventID      string       `ddb:"eventId"`
	UserID       string       `ddb:"userId"`
	Mode         Mode         `ddb:"mode"`
	Status       Status       `ddb:"status"`
	UIResult     UIResult     `ddb:"uiResult,omitempty"`
	RequestedAt  time.Time    `ddb:"requestedAt"`
	QueuedAt     time.Time    `ddb:"queuedAt,omitempty"`
	StartedAt    time.Time    `ddb:"startedAt,omitempty"`
	FinishedAt   time.Time    `ddb:"finishedAt,omitempty"`
	FailureClass FailureClass `ddb:"failureClass,omitempty"`
	ErrorCode    ErrorCode    `ddb:"errorCode,omitempty"`
	ErrorMessage string       `ddb:"errorMessage,omitempty"`
	UpdatedAt    time.Time    `ddb:"updatedAt,updated"`
}

// EventCapacity is the seat counter of a FIRST_COME event. The worker
// decrements CapacityRemaining atomically under the condition
// capacityRemaining > 0, so exactly CapacityTotal requests succeed.
// LOTTERY events have no EventCapacity.
//
//keygen:entity EventCapacity
//keygen:key PK=EVENT#{EventID} SK=CAPACITY
type EventCapacity struct {
	EventID           string    `ddb:"eventId"`
	CapacityTotal     int64     `ddb:"capacityTotal,min=1"`
	CapacityRemaining int64     `ddb:"capacityRemaining,min=0"`
	CreatedAt         time.Time `ddb:"createdAt,created"`
	UpdatedAt         time.Time `ddb:"updatedAt,updated"`
}

// OpenRequest marks a request that is not final yet, for the reconciler
// ([Service.Reconcile]). Participate writes it in the transaction that
// creates the request; the transition that makes the request final
// deletes it in the same transaction. The OPEN#<shard> partitions thus
// list exactly the requests still in flight, oldest first, and the
// reconciler reads them with one Query per shard, never a scan. Shard is
// a hash of the request ID modulo [Options.OpenShards], so no partition
// gets hot. Attempts and NextAt are the reconciler's own bookkeeping. It
// has no index attribute (easy mistake 5).
//
//keygen:entity OpenRequest
//keygen:key PK=OPEN#{Shard} SK=RAT#{RequestedAt}#REQ#{RequestID}
type OpenRequest struct {
	Shard       string    `ddb:"shard"`
	RequestID   string    `ddb:"requestId"`
	EventID     string    `ddb:"eventId"`
	RequestedAt time.Time `ddb:"requestedAt"`
	Attempts    int       `ddb:"attempts,omitempty"`
	NextAt      time.Time `ddb:"nextAt,omitempty"`
}

// RequestStatusLog is one status change of a request (the seed's optional
// audit log), in the request's partition, sorted by time.
//
//keygen:entity RequestStatusLog
//keygen:key PK=REQ#{RequestID} SK=LOG#{OccurredAt}
type RequestStatusLog struct {
	RequestID  string    `ddb:"requestId"`
	OccurredAt time.Time `ddb:"occurredAt,isonano"`
	From       Status    `ddb:"fromStatus,omitempty"`
	To         Status    `ddb:"toStatus"`
	Detail     string    `ddb:"detail,omitempty"`
}
