// Package itemsize computes the size of a DynamoDB item the way DynamoDB
// counts it against its 400 KB item limit. It is the one implementation
// shared by the runtime (entity.ItemSize), the embedded engine (ddbmem)
// and the idempotency records.
package itemsize

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// Max is DynamoDB's item size limit: 400 KB (409,600 bytes).
const Max = 400 * 1024

// Of returns the size of item: the UTF-8 length of every attribute name
// plus the size of its value ([Value]).
func Of(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + Value(v)
	}
	return n
}

// Value returns the size of one attribute value, without its name.
// Strings and binaries count their length in bytes; numbers the bytes of
// their stored form ([Number]); booleans and nulls one byte; sets
// the sum of their elements; lists and maps three bytes plus, for each
// element, one byte, its size and (maps) its name's length.
func Value(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return Number(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += Number(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + Value(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + Value(e)
		}
		return n
	}
	return 0
}
