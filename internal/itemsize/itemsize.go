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
// Strings and binaries count their length in bytes; numbers about one byte
// per two significant digits plus one; booleans and nulls one byte; sets
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

// Number returns the size of a number given as DynamoDB's string form:
// (significant digits + 1) / 2 + 1 bytes, where the significant digits
// exclude the sign, the decimal point, the exponent and leading and
// trailing zeros. Zero is one byte.
func Number(s string) int {
	first, last, digits := -1, -1, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			continue
		}
		if c != '0' {
			if first < 0 {
				first = digits
			}
			last = digits
		}
		digits++
	}
	if first < 0 {
		return 1
	}
	return (last-first+1+1)/2 + 1
}
