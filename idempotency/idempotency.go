package idempotency

import (
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// Sentinel errors. Check them with errors.Is.
var (
	// ErrEmptyKey is returned when the idempotency key is empty.
	ErrEmptyKey = errors.New("idempotency: empty key")
	// ErrInProgress is matched by [*InProgressError]: the first call with
	// the key is still running. It is retryable.
	ErrInProgress = errors.New("idempotency: first call still in progress")
	// ErrPayloadMismatch is returned when the key was first used with a
	// different payload.
	ErrPayloadMismatch = errors.New("idempotency: payload differs from the first call with this key")
	// ErrFailed is matched by [*FailedError]: the first call failed and
	// its failure was recorded ([RecordFailure]).
	ErrFailed = errors.New("idempotency: first call failed")
	// ErrLeaseLost is returned when this call's claim was taken over by
	// another caller after its lease expired (or was deleted); the
	// write that found out changed nothing.
	ErrLeaseLost = errors.New("idempotency: lease lost")
	// ErrResultTooLarge is returned, before the write, when the result
	// would push the record past DynamoDB's 400 KB item limit. It also
	// matches entity.ErrItemTooLarge.
	ErrResultTooLarge = fmt.Errorf("idempotency: result too large for the record (store it elsewhere, e.g. in S3 or its own items, and return a reference): %w", entity.ErrItemTooLarge)
	// ErrInvalidOptions is returned for options that cannot work.
	ErrInvalidOptions = errors.New("idempotency: invalid options")
	// ErrCorruptRecord is returned when the stored record cannot be read
	// (written by something else, or a result of another Go type).
	ErrCorruptRecord = errors.New("idempotency: malformed record")
)

// InProgressError is returned to a duplicate while the first call with the
// same key is running. It matches [ErrInProgress]. Retry later, or call
// with [Options.WaitForResult].
type InProgressError struct {
	// Key is the idempotency key.
	Key string
	// FirstValue is the value the first call stored (for example its
	// request ID); "" when it stored none.
	FirstValue string
	// LeaseUntil is when the first call's lease ends unless renewed.
	LeaseUntil time.Time
}

func (e *InProgressError) Error() string {
	return fmt.Sprintf("idempotency: key %q: first call still in progress (first value %q); retry later", e.Key, e.FirstValue)
}

// Is reports whether target is [ErrInProgress].
func (e *InProgressError) Is(target error) bool { return target == ErrInProgress }

// Retryable reports true: the same call may succeed later.
func (e *InProgressError) Retryable() bool { return true }

// FailedError is returned to a duplicate when the first call failed and
// [RecordFailure] kept its failure. It matches [ErrFailed].
type FailedError struct {
	// Key is the idempotency key.
	Key string
	// FirstValue is the value the first call stored.
	FirstValue string
	// Message is the first call's error text.
	Message string
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("idempotency: key %q: first call failed: %s", e.Key, e.Message)
}

// Is reports whether target is [ErrFailed].
func (e *FailedError) Is(target error) bool { return target == ErrFailed }

// FirstValue returns the first value carried by err, an [*InProgressError]
// or a [*FailedError] (possibly wrapped). ok is false for other errors.
func FirstValue(err error) (value string, ok bool) {
	var ip *InProgressError
	if errors.As(err, &ip) {
		return ip.FirstValue, true
	}
	var fe *FailedError
	if errors.As(err, &fe) {
		return fe.FirstValue, true
	}
	return "", false
}

// FailurePolicy says what happens to the record when the function fails.
type FailurePolicy int

const (
	// ReleaseClaim deletes the record (conditionally), so the next call
	// with the key runs the function again. The default.
	ReleaseClaim FailurePolicy = iota
	// RecordFailure keeps the failure until retention ends: duplicates get
	// a [*FailedError] and the function does not run again.
	RecordFailure
)

// Default option values.
const (
	DefaultLease     = 30 * time.Second
	DefaultRetention = 24 * time.Hour
	DefaultClockSkew = time.Second
	// DefaultFinishTimeout bounds the completion and failure writes,
	// which run even when the caller's context has ended.
	DefaultFinishTimeout = 10 * time.Second
)

// MaxItemSize is DynamoDB's item size limit in bytes, the same constant
// as entity.MaxItemSize.
const MaxItemSize = entity.MaxItemSize

// Options configures a [Store] and, through the optFns of [Do], a single
// call. The zero value is valid: every zero field takes its default.
type Options struct {
	// Key maps an idempotency key to the record's primary key.
	// Default [DefaultKey] of the key: PK "IDEMP#" and the escaped key,
	// SK "LOCK".
	Key func(key string) entity.Key
	// PKAttr and SKAttr name the table's key attributes (both strings).
	// Default "PK" and "SK".
	PKAttr string
	SKAttr string
	// TTLAttr names the retention attribute (epoch seconds). Default "ttl".
	TTLAttr string
	// FirstValueAttr names the attribute that holds [Options.FirstValue].
	// Default "firstValue" (an application that stores the first
	// request's ID there might name it "requestId").
	FirstValueAttr string

	// Lease is how long a claim holds without a heartbeat. Default 30 s.
	Lease time.Duration
	// Heartbeat is how often a running call renews its lease. Default
	// Lease/3; it must be shorter than Lease.
	Heartbeat time.Duration
	// Retention is how long a finished record answers duplicates; a
	// record in progress is kept Retention past its lease. Default 24 h.
	Retention time.Duration
	// ClockSkew is the margin by which a lease or retention must be past
	// before a caller treats it as expired. Default 1 s. Set it above the
	// worst clock difference between your hosts.
	ClockSkew time.Duration
	// FinishTimeout bounds each completion or failure write, which runs
	// detached from the caller's context. Default 10 s.
	FinishTimeout time.Duration

	// FirstValue is stored with the claim and handed to duplicates (see
	// [FirstValue]). Set it per call. Default none.
	FirstValue string
	// WaitForResult makes a duplicate of a running call wait (polling with
	// Retry) for its outcome, or until its context ends, instead of
	// returning [ErrInProgress]. Default false.
	WaitForResult bool
	// Retry spaces the polls of WaitForResult and retries of transaction
	// conflicts. Nil means retry.Exponential(20ms, 1s), which never gives up
	// (the context ends the wait); a strategy that gives up makes the call
	// return [retry.ErrGaveUp].
	Retry retry.Strategy

	// Failure is what a failed function does to the record. Default
	// [ReleaseClaim].
	Failure FailurePolicy
	// FailureFor, when set, chooses the policy per error (for example
	// record validation errors, release transient ones); it overrides
	// Failure.
	FailureFor func(err error) FailurePolicy

	// TransactItems, when set, makes the claim one TransactWriteItems
	// with these items (the business write): all are written or none,
	// and a duplicate writes none. A takeover after an expired lease
	// claims with the items again, so key them on something the takeover
	// also has, or make them conditional. The caller's own failed
	// conditions return an error matching entity.ErrConditionFailed.
	TransactItems []types.TransactWriteItem

	// Now is the clock. Default time.Now.
	Now func() time.Time

	// Tracer observes each call of [Do] (package otelkit has one for
	// OpenTelemetry). Default none.
	Tracer Tracer
}

// DefaultKey is the default record key: PK "IDEMP#" followed by the parts
// joined with '#', SK "LOCK". Each part is escaped as the keys package
// escapes a template field ('#' as "%23", '%' as "%25"), so
// DefaultKey(a, b) equals the key of the template "IDEMP#{A}#{B}" built
// from a and b, and no two different lists of parts share a key. [Do] calls
// it with the call's key as the only part; set [Options.Key] to build the
// record key from several parts.
func DefaultKey(parts ...string) entity.Key {
	n := len("IDEMP")
	for _, p := range parts {
		n += 1 + keys.EscapedLen(p)
	}
	pk := make([]byte, 0, n)
	pk = append(pk, "IDEMP"...)
	for _, p := range parts {
		pk = append(pk, keys.Delimiter)
		pk = keys.AppendEscaped(pk, p)
	}
	return entity.Key{PK: string(pk), SK: "LOCK"}
}

// Record attribute names (besides the configurable ones).
const (
	attrStatus    = "status"
	attrOwner     = "owner"
	attrHash      = "payloadHash"
	attrLease     = "leaseUntil"
	attrStarted   = "startedAt"
	attrCompleted = "completedAt"
	attrResult    = "result"
	attrError     = "errorMessage"
)

// Record status values.
const (
	StatusInProgress = "IN_PROGRESS"
	StatusComplete   = "COMPLETE"
	StatusFailed     = "FAILED"
)

func (o *Options) setDefaults() {
	if o.Key == nil {
		o.Key = func(key string) entity.Key { return DefaultKey(key) }
	}
	if o.PKAttr == "" {
		o.PKAttr = "PK"
	}
	if o.SKAttr == "" {
		o.SKAttr = "SK"
	}
	if o.TTLAttr == "" {
		o.TTLAttr = "ttl"
	}
	if o.FirstValueAttr == "" {
		o.FirstValueAttr = "firstValue"
	}
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = o.Lease / 3
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
	}
	if o.ClockSkew == 0 {
		o.ClockSkew = DefaultClockSkew
	}
	if o.FinishTimeout == 0 {
		o.FinishTimeout = DefaultFinishTimeout
	}
	if o.Retry == nil {
		o.Retry = retry.Exponential(20*time.Millisecond, time.Second)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

func (o *Options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case o.Lease < 0:
		return bad("Lease %v is negative", o.Lease)
	case o.Heartbeat <= 0 || o.Heartbeat >= o.Lease:
		return bad("Heartbeat %v must be positive and shorter than Lease %v", o.Heartbeat, o.Lease)
	case o.Retention < 0:
		return bad("Retention %v is negative", o.Retention)
	case o.ClockSkew < 0:
		return bad("ClockSkew %v is negative", o.ClockSkew)
	case o.FinishTimeout < 0:
		return bad("FinishTimeout %v is negative", o.FinishTimeout)
	case o.Failure != ReleaseClaim && o.Failure != RecordFailure:
		return bad("unknown Failure policy %d", o.Failure)
	}
	seen := map[string]bool{}
	for _, n := range []string{attrStatus, attrOwner, attrHash, attrLease, attrStarted, attrCompleted, attrResult, attrError} {
		seen[n] = true
	}
	for _, n := range []string{o.PKAttr, o.SKAttr, o.TTLAttr, o.FirstValueAttr} {
		if seen[n] {
			return bad("attribute name %q is used twice or collides with a record attribute", n)
		}
		seen[n] = true
	}
	return nil
}

// Store claims and completes idempotency records in one table. It is
// safe for concurrent use; create it once and share it.
type Store struct {
	client entity.Client
	table  string
	opts   Options
}

// New returns a Store on table through client (a *dynamodb.Client or the
// embedded engine). The table needs string key attributes named
// [Options.PKAttr] and [Options.SKAttr]. It returns an error matching
// [ErrInvalidOptions] for a nil client, an empty table name or bad options.
func New(client entity.Client, table string, optFns ...func(*Options)) (*Store, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidOptions)
	}
	if table == "" {
		return nil, fmt.Errorf("%w: empty table name", ErrInvalidOptions)
	}
	var o Options
	for _, f := range optFns {
		f(&o)
	}
	o.setDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &Store{client: client, table: table, opts: o}, nil
}

// callOptions returns the store's options with optFns applied on a copy.
func (s *Store) callOptions(optFns []func(*Options)) (Options, error) {
	o := s.opts
	if len(optFns) == 0 {
		return o, nil
	}
	leaseSet, hbSet := o.Lease, o.Heartbeat
	for _, f := range optFns {
		f(&o)
	}
	// A call that changes the lease without choosing a heartbeat gets
	// Lease/3 of its own lease.
	if o.Lease != leaseSet && o.Heartbeat == hbSet {
		o.Heartbeat = 0
	}
	o.setDefaults()
	if err := o.validate(); err != nil {
		return o, err
	}
	return o, nil
}
