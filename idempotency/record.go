package idempotency

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/entity"
)

// record is a decoded idempotency record.
type record struct {
	status  string
	owner   string
	hash    string
	first   string
	errMsg  string
	leaseMs int64 // leaseUntil, epoch milliseconds; 0 when absent
	expires int64 // retention, epoch seconds; 0 when absent
	result  types.AttributeValue
}

// expired reports whether the record no longer answers duplicates at
// now: past its retention, or in progress with its lease ended, both by
// more than the clock-skew margin. It mirrors the claim condition.
func (r *record) expired(now time.Time, skew time.Duration) bool {
	cut := now.Add(-skew)
	if r.expires != 0 && r.expires < cut.Unix() {
		return true
	}
	return r.status == StatusInProgress && r.leaseMs < cut.UnixMilli()
}

// decodeRecord reads item; it returns nil for an empty item.
func decodeRecord(item map[string]types.AttributeValue, o *Options) (*record, error) {
	if len(item) == 0 {
		return nil, nil
	}
	r := &record{result: item[attrResult]}
	str := func(name string, dst *string, required bool) error {
		v, ok := item[name]
		if !ok {
			if required {
				return fmt.Errorf("%w: attribute %q missing", ErrCorruptRecord, name)
			}
			return nil
		}
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return fmt.Errorf("%w: attribute %q is not a string", ErrCorruptRecord, name)
		}
		*dst = s.Value
		return nil
	}
	num := func(name string, dst *int64) error {
		v, ok := item[name]
		if !ok {
			return nil
		}
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			return fmt.Errorf("%w: attribute %q is not a number", ErrCorruptRecord, name)
		}
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: attribute %q: %v", ErrCorruptRecord, name, err)
		}
		*dst = i
		return nil
	}
	for _, err := range []error{
		str(attrStatus, &r.status, true),
		str(attrOwner, &r.owner, true),
		str(attrHash, &r.hash, true),
		str(o.FirstValueAttr, &r.first, false),
		str(attrError, &r.errMsg, false),
		num(attrLease, &r.leaseMs),
		num(o.TTLAttr, &r.expires),
	} {
		if err != nil {
			return nil, err
		}
	}
	if r.status == StatusInProgress && r.leaseMs == 0 {
		return nil, fmt.Errorf("%w: in progress without %q", ErrCorruptRecord, attrLease)
	}
	return r, nil
}

// newOwner returns a random attempt ID.
func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// payloadHash is the hex SHA-256 of the caller's canonical payload.
func payloadHash(payload []byte) string {
	h := sha256.Sum256(payload)
	return hex.EncodeToString(h[:])
}

// epochSecondsCeil rounds t up to whole epoch seconds (TTL attribute).
func epochSecondsCeil(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

func numAV(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func strAV(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// claimCondition is: the record does not exist, OR it is past retention,
// OR it is in progress with its lease ended (both by more than the skew).
func claimCondition(now time.Time, o *Options) expression.ConditionBuilder {
	cut := now.Add(-o.ClockSkew)
	return expression.AttributeNotExists(expression.Name(o.PKAttr)).
		Or(expression.Name(o.TTLAttr).LessThan(expression.Value(numAV(cut.Unix()))),
			expression.Name(attrStatus).Equal(expression.Value(strAV(StatusInProgress))).
				And(expression.Name(attrLease).LessThan(expression.Value(numAV(cut.UnixMilli())))))
}

// ownedCondition is: status = IN_PROGRESS AND owner = :me.
func ownedCondition(owner string) expression.ConditionBuilder {
	return expression.Name(attrStatus).Equal(expression.Value(strAV(StatusInProgress))).
		And(expression.Name(attrOwner).Equal(expression.Value(strAV(owner))))
}

// itemSize is the item's size as DynamoDB counts it (entity.ItemSize).
func itemSize(item map[string]types.AttributeValue) int { return entity.ItemSize(item) }

// valueSize is one value's size as DynamoDB counts it.
func valueSize(v types.AttributeValue) int { return entity.AttributeSize(v) }

// ambiguous reports whether a failed write may nevertheless have been
// applied: anything but a request the server rejected as a client error
// (a timeout, a lost connection, a 5xx).
func ambiguous(err error) bool {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		c := re.HTTPStatusCode()
		return c < 400 || c >= 500
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorFault() == smithy.FaultClient {
		return false
	}
	return true
}
