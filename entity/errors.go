package entity

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/notfound"
)

// Sentinel errors of the table runtime. Check them with errors.Is.
var (
	// ErrNotFound is returned when the item does not exist. It is the
	// same value as cache.ErrNotFound.
	ErrNotFound = notfound.Err
	// ErrConditionFailed is returned when a write's condition failed,
	// including a Create whose item already exists. It translates the
	// SDK's ConditionalCheckFailedException.
	ErrConditionFailed = errors.New("entity: condition failed")
	// ErrVersionConflict is returned when an optimistic-version check failed.
	ErrVersionConflict = errors.New("entity: version conflict")
	// ErrItemTooLarge is returned, before sending, for an item over 400 KB.
	ErrItemTooLarge = errors.New("entity: item too large")
)

// More sentinels of the table runtime.
var (
	// ErrAlreadyExists is returned by Create when the item exists. It
	// also matches ErrConditionFailed.
	ErrAlreadyExists = errors.New("entity: item already exists")
	// ErrValidation is matched by every [*ValidationError]: bad input
	// detected before anything is sent.
	ErrValidation = errors.New("entity: invalid input")
	// ErrTransactionCanceled is matched by [*TxCanceledError].
	ErrTransactionCanceled = errors.New("entity: transaction canceled")
	// ErrUnprocessed is matched by [*BatchError]: a batch left items
	// unprocessed when its context ended or its retry strategy gave up.
	ErrUnprocessed = errors.New("entity: batch items left unprocessed")
	// ErrSchemaMismatch is matched by every [*SchemaError]: an entity
	// schema that does not fit its table.
	ErrSchemaMismatch = errors.New("entity: schema does not fit the table")
)

// ValidationError reports bad input found before sending. It matches
// [ErrValidation] and unwraps to its cause (for instance
// keys.ErrMissingField).
type ValidationError struct {
	Op    string // the operation: "Put", "Update", ...
	Type  string // the entity type, when known
	Field string // the attribute or option at fault, when known
	Err   error
}

func (e *ValidationError) Error() string {
	s := "entity: invalid " + e.Op
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ValidationError) Unwrap() []error { return []error{ErrValidation, e.Err} }

// ItemTooLargeError reports an item over DynamoDB's 400 KB limit, found
// before sending. It matches [ErrItemTooLarge].
type ItemTooLargeError struct {
	Type string
	Key  Key
	Size int // bytes, computed as DynamoDB does; 0 when DynamoDB refused the item (an update or a transaction that grows it)
}

func (e *ItemTooLargeError) Error() string {
	if e.Size == 0 {
		return "entity: item too large: " + e.Type + " " + e.Key.PK + "/" + e.Key.SK + " would exceed " + itoa(MaxItemSize) + " bytes: store large values elsewhere (S3) and keep a reference"
	}
	return "entity: item too large: " + e.Type + " " + e.Key.PK + "/" + e.Key.SK + " is " + itoa(e.Size) + " bytes (limit " + itoa(MaxItemSize) + ")"
}

func (e *ItemTooLargeError) Unwrap() error { return ErrItemTooLarge }

// ConditionError reports a write whose condition failed. It matches
// [ErrConditionFailed], and also [ErrAlreadyExists] (Create on an existing
// item) or [ErrNotFound] (Update/Delete of a missing item) when that was
// the reason. Old holds the item as it was, when DynamoDB returned it.
type ConditionError struct {
	Op    string
	Table string
	Type  string
	Key   Key
	Old   map[string]types.AttributeValue
	cause error // ErrAlreadyExists, ErrNotFound or nil
	Err   error // the SDK error
}

func (e *ConditionError) Error() string {
	s := "entity: " + e.Op + " " + e.Type + " " + e.Key.PK + "/" + e.Key.SK + ": condition failed"
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

func (e *ConditionError) Unwrap() []error {
	errs := []error{ErrConditionFailed}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// VersionConflictError reports an optimistic-version mismatch. It matches
// [ErrVersionConflict] and [ErrConditionFailed].
type VersionConflictError struct {
	Op       string
	Type     string
	Key      Key
	Expected int64 // the version the caller expected
	Actual   int64 // the version found in the table
}

func (e *VersionConflictError) Error() string {
	if e.Expected == 0 && e.Op == "Put" {
		return "entity: Put " + e.Type + " " + e.Key.PK + "/" + e.Key.SK + ": version conflict: the item exists at version " + itoa64(e.Actual) +
			"; to replace it, pass IfVersion(" + itoa64(e.Actual) + ") (the version you read), or change it with Update"
	}
	return "entity: " + e.Op + " " + e.Type + " " + e.Key.PK + "/" + e.Key.SK + ": version conflict: expected " + itoa64(e.Expected) + ", found " + itoa64(e.Actual)
}

func (e *VersionConflictError) Unwrap() []error {
	return []error{ErrVersionConflict, ErrConditionFailed}
}

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// SchemaError reports an entity schema that does not fit its table: a
// primary key attribute with another name, or a key of an index the table
// does not declare or declares with other attribute names. It matches
// [ErrSchemaMismatch].
type SchemaError struct {
	Table string // the table name
	Type  string // the entity type
	Index string // the index at fault; "" for the primary key
	Attr  string // the key attribute the entity writes
	Err   error  // what does not fit
}

func (e *SchemaError) Error() string {
	where := "primary key"
	if e.Index != "" {
		where = "index " + e.Index
	}
	return fmt.Sprintf("entity: schema of %s does not fit table %s: %s attribute %s: %v", e.Type, e.Table, where, e.Attr, e.Err)
}

// Unwrap returns [ErrSchemaMismatch] and the cause.
func (e *SchemaError) Unwrap() []error { return []error{ErrSchemaMismatch, e.Err} }

// unversioned is the error of IfVersion given to a write of an entity
// without a version field: the caller's concurrency guard would be
// ignored.
func (s *Store[T, PT]) unversioned(op string) error {
	return &ValidationError{Op: op, Type: s.schema.Type, Field: "IfVersion", Err: fmt.Errorf("%s has no version field, so IfVersion cannot be checked: remove IfVersion, guard the write with If(condition), or declare a version field (keygen tag option version)", s.schema.Type)}
}
