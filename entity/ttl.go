package entity

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TTL is an expiry instant stored as epoch seconds (a DynamoDB number),
// the format of a table's time-to-live attribute. Use it for the field
// tagged `ttl` (with omitempty: the zero TTL means "never expires").
// DynamoDB deletes expired items in the background, typically within a
// few days, so readers should still compare with the current time
// ([TTL.Expired]).
type TTL int64

// ExpiresAt returns the TTL of instant t (truncated to the second).
func ExpiresAt(t time.Time) TTL { return TTL(t.Unix()) }

// Time returns the expiry instant in UTC; the zero TTL gives the zero time.
func (t TTL) Time() time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(int64(t), 0).UTC()
}

// Expired reports whether t is set and not after now.
func (t TTL) Expired(now time.Time) bool { return t != 0 && now.Unix() >= int64(t) }

// MarshalDynamoDBAttributeValue encodes t as a number of epoch seconds.
func (t TTL) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(t), 10)}, nil
}

// UnmarshalDynamoDBAttributeValue decodes a number of epoch seconds; NULL
// gives the zero TTL.
func (t *TTL) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			return fmt.Errorf("entity: TTL %q: %w", v.Value, err)
		}
		*t = TTL(n)
		return nil
	case *types.AttributeValueMemberNULL, nil:
		*t = 0
		return nil
	}
	return fmt.Errorf("entity: TTL must be a number, got %T", av)
}
