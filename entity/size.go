package entity

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/itemsize"
)

// MaxItemSize is DynamoDB's item size limit: 400 KB (409,600 bytes). The
// embedded engine (ddbmem) and package idempotency enforce the same
// constant.
const MaxItemSize = itemsize.Max

// ItemSize returns the size of item as DynamoDB counts it: the UTF-8
// length of every attribute name plus the size of its value. Strings and
// binaries count their length; numbers the bytes of DynamoDB's stored
// form (an exponent byte, a byte per pair of digits aligned on even powers
// of ten, one more when negative: about one byte per two significant
// digits plus one, as AWS documents it); booleans and nulls one byte;
// lists and maps three bytes plus one per element plus their elements. The embedded engine (ddbmem)
// and package idempotency use this same function.
func ItemSize(item map[string]types.AttributeValue) int { return itemsize.Of(item) }

// AttributeSize returns the size DynamoDB counts for one attribute value
// (without its name), as [ItemSize] does for a whole item.
func AttributeSize(v types.AttributeValue) int { return itemsize.Value(v) }
