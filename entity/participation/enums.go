package participation

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrUnknownEnum is matched by every [*EnumError].
var ErrUnknownEnum = errors.New("participation: unknown enum value")

// EnumError reports a value outside an enum, found when encoding a value
// or decoding an item.
type EnumError struct {
	Enum  string // "Status", "Mode", ...
	Value string
}

func (e *EnumError) Error() string {
	return fmt.Sprintf("participation: unknown %s %q", e.Enum, e.Value)
}

// Unwrap returns [ErrUnknownEnum].
func (e *EnumError) Unwrap() error { return ErrUnknownEnum }

// Status is the processing status of a [Request].
type Status string

// The statuses of seed 004.
const (
	StatusReceived    Status = "RECEIVED"
	StatusQueued      Status = "QUEUED"
	StatusProcessing  Status = "PROCESSING"
	StatusSucceeded   Status = "SUCCEEDED"
	StatusRejected    Status = "REJECTED"
	StatusFailedFinal Status = "FAILED_FINAL"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{StatusReceived, StatusQueued, StatusProcessing, StatusSucceeded, StatusRejected, StatusFailedFinal}

// Valid reports whether s is one of [Statuses].
func (s Status) Valid() bool {
	switch s {
	case StatusReceived, StatusQueued, StatusProcessing, StatusSucceeded, StatusRejected, StatusFailedFinal:
		return true
	}
	return false
}

// Final reports whether s ends the lifecycle.
func (s Status) Final() bool {
	return s == StatusSucceeded || s == StatusRejected || s == StatusFailedFinal
}

// Mode is how an event picks its winners.
type Mode string

// The modes of seed 004.
const (
	// ModeFirstCome: the first N requests the worker decides win (an
	// atomic decrement of EventCapacity). With an unordered queue (SQS
	// standard) that is close to, not exactly, queuedAt order; queuedAt
	// and GSI2 keep the reference order for audits. Strict queuedAt
	// order needs a FIFO queue with one consumer per event.
	ModeFirstCome Mode = "FIRST_COME"
	ModeLottery   Mode = "LOTTERY" // a draw per request; no EventCapacity
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == ModeFirstCome || m == ModeLottery }

// UIResult is the outcome shown to the user; REJECTED is split by it.
type UIResult string

// The UI results of seed 004.
const (
	UISuccess          UIResult = "SUCCESS"
	UIRejectedCapacity UIResult = "REJECTED_CAPACITY"
	UILotteryWin       UIResult = "LOTTERY_WIN"
	UILotteryLose      UIResult = "LOTTERY_LOSE"
)

// Valid reports whether u is a known UI result.
func (u UIResult) Valid() bool {
	switch u {
	case UISuccess, UIRejectedCapacity, UILotteryWin, UILotteryLose:
		return true
	}
	return false
}

// ErrorCode says why a request ended in FAILED_FINAL.
type ErrorCode string

// The error codes. FAILED_INGEST_ENQUEUE is the seed's; the others name
// the worker's failures.
const (
	// ErrorIngestEnqueue: the message could not be sent to the queue.
	ErrorIngestEnqueue ErrorCode = "FAILED_INGEST_ENQUEUE"
	// ErrorEventNotFound: a FIRST_COME event without an EventCapacity.
	ErrorEventNotFound ErrorCode = "FAILED_EVENT_NOT_FOUND"
	// ErrorProcessing: the worker failed and gave up (retries exhausted).
	ErrorProcessing ErrorCode = "FAILED_PROCESSING"
)

// Valid reports whether c is a known error code.
func (c ErrorCode) Valid() bool {
	switch c {
	case ErrorIngestEnqueue, ErrorEventNotFound, ErrorProcessing:
		return true
	}
	return false
}

// FailureClass classifies a final failure for operators.
type FailureClass string

// The failure classes.
const (
	// FailureTransient: retries were exhausted on an error that may pass.
	FailureTransient FailureClass = "TRANSIENT"
	// FailurePermanent: retrying cannot help (bad data, missing event).
	FailurePermanent FailureClass = "PERMANENT"
)

// Valid reports whether c is a known failure class.
func (c FailureClass) Valid() bool { return c == FailureTransient || c == FailurePermanent }

// encEnum encodes an enum value; the zero value "" encodes as absent
// (nil), which the codec leaves out of the item.
func encEnum(enum, v string, ok bool) (types.AttributeValue, error) {
	if v == "" {
		return nil, nil
	}
	if !ok {
		return nil, &EnumError{Enum: enum, Value: v}
	}
	return &types.AttributeValueMemberS{Value: v}, nil
}

func decEnum(enum string, av types.AttributeValue, valid func(string) bool) (string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if !valid(v.Value) {
			return "", &EnumError{Enum: enum, Value: v.Value}
		}
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return "", nil
	}
	return "", fmt.Errorf("participation: %s must be a string, got %T", enum, av)
}

// MarshalDynamoDBAttributeValue encodes s; an unknown status is an
// *EnumError, and "" is absent (nil).
func (s Status) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return encEnum("Status", string(s), s.Valid())
}

// UnmarshalDynamoDBAttributeValue decodes s; an unknown status is an *EnumError.
func (s *Status) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, err := decEnum("Status", av, func(x string) bool { return Status(x).Valid() })
	*s = Status(v)
	return err
}

// MarshalDynamoDBAttributeValue encodes m; an unknown mode is an *EnumError.
func (m Mode) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return encEnum("Mode", string(m), m.Valid())
}

// UnmarshalDynamoDBAttributeValue decodes m; an unknown mode is an *EnumError.
func (m *Mode) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, err := decEnum("Mode", av, func(x string) bool { return Mode(x).Valid() })
	*m = Mode(v)
	return err
}

// MarshalDynamoDBAttributeValue encodes u; an unknown value is an *EnumError.
func (u UIResult) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return encEnum("UIResult", string(u), u.Valid())
}

// UnmarshalDynamoDBAttributeValue decodes u; an unknown value is an *EnumError.
func (u *UIResult) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, err := decEnum("UIResult", av, func(x string) bool { return UIResult(x).Valid() })
	*u = UIResult(v)
	return err
}

// MarshalDynamoDBAttributeValue encodes c; an unknown code is an *EnumError.
func (c ErrorCode) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return encEnum("ErrorCode", string(c), c.Valid())
}

// UnmarshalDynamoDBAttributeValue decodes c; an unknown code is an *EnumError.
func (c *ErrorCode) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, err := decEnum("ErrorCode", av, func(x string) bool { return ErrorCode(x).Valid() })
	*c = ErrorCode(v)
	return err
}

// MarshalDynamoDBAttributeValue encodes c; an unknown class is an *EnumError.
func (c FailureClass) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return encEnum("FailureClass", string(c), c.Valid())
}

// UnmarshalDynamoDBAttributeValue decodes c; an unknown class is an *EnumError.
func (c *FailureClass) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, err := decEnum("FailureClass", av, func(x string) bool { return FailureClass(x).Valid() })
	*c = FailureClass(v)
	return err
}
