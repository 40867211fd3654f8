package keys

import (
	"errors"
	"strconv"
	"strings"
)

// DynamoDB's limits on key attribute values, in bytes (UTF-8).
const (
	MaxPartitionKeyLen = 2048
	MaxSortKeyLen      = 1024
)

// Sentinel errors. Every error of this package wraps exactly one of them;
// check with errors.Is, and use errors.As with *[Error] for the details.
var (
	// ErrMissingField reports an empty string value or a zero time where
	// a key needs a value, or a key built with too few values.
	ErrMissingField = errors.New("keys: missing field value")
	// ErrTooLarge reports a key over its size limit.
	ErrTooLarge = errors.New("keys: key too large")
	// ErrOverflow reports an integer that does not fit in its declared
	// width, or a time outside the years 0000-9999.
	ErrOverflow = errors.New("keys: value overflows its width")
	// ErrMalformed reports a key that does not match its template: a wrong
	// literal, a wrong number of segments, an empty segment, a bad escape
	// sequence, or a field that does not decode.
	ErrMalformed = errors.New("keys: malformed key")
	// ErrTemplate reports a template that cannot be parsed.
	ErrTemplate = errors.New("keys: invalid template")
	// ErrArgs reports a call with the wrong number or type of values.
	ErrArgs = errors.New("keys: wrong values for template")
)

// Error describes a failure to build or parse a key. Err is one of the
// package's sentinel errors, possibly wrapped with a detail.
type Error struct {
	// Template is the template's layout, for instance "PROJ#{ProjectID}".
	Template string
	// Field is the template field at fault; "" when not about one field.
	Field string
	// Key is the key being parsed; "" while building.
	Key string
	// Err wraps the sentinel.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	if e.Template != "" {
		b.WriteString(" of template ")
		b.WriteString(strconv.Quote(e.Template))
	}
	if e.Key != "" {
		b.WriteString(" in key ")
		b.WriteString(strconv.Quote(e.Key))
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }
