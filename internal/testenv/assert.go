package testenv

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// Text returns the value of the S or N attribute name of item, and
// "<absent>" when it has no such attribute (or one of another type).
func Text(item map[string]types.AttributeValue, name string) string {
	switch v := item[name].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return "<absent>"
}

// WantRule fails the test unless err is an *entity.ConstraintError (and
// an entity.ErrValidation) of entity type typ, attribute attr and rule;
// name says which check failed.
func WantRule(t testing.TB, name string, err error, typ, attr, rule string) {
	t.Helper()
	var ce *entity.ConstraintError
	if !errors.As(err, &ce) || !errors.Is(err, entity.ErrValidation) {
		t.Errorf("%s: %v is not an *entity.ConstraintError", name, err)
		return
	}
	if ce.Type != typ || ce.Attr != attr || ce.Rule != rule {
		t.Errorf("%s: got %s %s %s, want %s %s %s (%v)", name, ce.Type, ce.Attr, ce.Rule, typ, attr, rule, err)
	}
}

// Transitions checks a status machine: check(from, to) for every pair of
// values must return nil when the pair is in legal and otherwise an error
// that illegal accepts.
func Transitions[S comparable](t testing.TB, values []S, legal [][2]S, check func(from, to S) error, illegal func(err error, from, to S) bool) {
	t.Helper()
	ok := make(map[[2]S]bool, len(legal))
	for _, p := range legal {
		ok[p] = true
	}
	for _, from := range values {
		for _, to := range values {
			err := check(from, to)
			switch {
			case ok[[2]S{from, to}]:
				if err != nil {
					t.Errorf("%v -> %v: %v", from, to, err)
				}
			case !illegal(err, from, to):
				t.Errorf("%v -> %v: %v is not the error of an illegal transition", from, to, err)
			}
		}
	}
}

// Clock is a fake clock for Options.Now: each reading is one second after
// the previous one, the first one second after the start. It is safe for
// concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a [Clock] that starts at start.
func NewClock(start time.Time) *Clock { return &Clock{t: start} }

// Now moves the clock one second forward and returns the new time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}
