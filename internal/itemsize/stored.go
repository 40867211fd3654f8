package itemsize

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// PageMax is the most data one Query or Scan page reads: 1 MB. The page
// ends with the item that reaches it, counted by [Stored].
const PageMax = 1 << 20

// Stored returns the size DynamoDB counts an item at against a Query or
// Scan's 1 MB page, which is not its item size ([Of]) but the size of
// the form it is stored in. AWS does not document it; this is the
// formula dynalite fitted to AWS's answers (its suite records the
// boundaries byte by byte):
//
//   - every attribute but the sort key counts its stored value ([storedValue]) and
//     one byte for its name, whatever the name's length;
//   - the item adds 2 bytes, and, for each started 3,072 bytes of that,
//     18 bytes plus the size of its sort key's value (sortKey, "" for a
//     table without one).
func Stored(item map[string]types.AttributeValue, sortKey string) int {
	size, sk := 0, 0
	for name, v := range item {
		if name == sortKey {
			sk = keyValue(v)
			continue
		}
		size += storedValue(v) + 1
	}
	return 2 + size + (1+(1+size)/3072)*(18+sk)
}

// keyValue is the size of a key value: its bytes, or its number's stored
// bytes.
func keyValue(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return Number(v.Value)
	}
	return 0
}

// storedValue is the stored size of one value: a string's bytes and 1 to
// 3 bytes of length; a binary's or number's and 1; a set's elements, 1
// byte each and 1; a boolean 1, a null 0; a list 3 bytes plus 1 for each
// element and its own; a map 3 bytes plus 2 for each member (its count
// and its name) and its value's.
func storedValue(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		n := len(v.Value)
		switch {
		case n < 128:
			return n + 1
		case n < 16384:
			return n + 2
		}
		return n + 3
	case *types.AttributeValueMemberB:
		return len(v.Value) + 1
	case *types.AttributeValueMemberN:
		return Number(v.Value) + 1
	case *types.AttributeValueMemberBOOL:
		return 1
	case *types.AttributeValueMemberNULL:
		return 0
	case *types.AttributeValueMemberSS:
		n := len(v.Value) + 1
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := len(v.Value) + 1
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := len(v.Value) + 1
		for _, s := range v.Value {
			n += Number(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + storedValue(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for _, e := range v.Value {
			n += 2 + storedValue(e)
		}
		return n
	}
	return 0
}

// Number returns the bytes of a number in DynamoDB's stored form
// (Oracle's NUMBER layout): one exponent byte, one byte for each pair of
// decimal digits, the pairs aligned on even powers of ten, and one more
// for a negative number. Zero is one byte. s is DynamoDB's string form,
// as validated.
//
// AWS documents a number's size as "approximately" one byte per two
// significant digits plus one
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
// The stored form is that size exactly where the digit pairs fall on even
// powers of ten and the number is positive, and one or two bytes more
// otherwise (2.5 is 3 bytes, -7 is 3): DynamoDB Local sizes numbers this
// way against the 400 KB limit and in capacity units, and so does
// dynalite, whose sizes were measured on DynamoDB. DynamoDB keeps its
// numbers in this form: its scan order is theirs (see ddbexpr's
// Number.AppendStored).
func Number(s string) int {
	neg := len(s) > 0 && s[0] == '-'
	// exp10 is the power of ten of the first digit before any exponent
	// part; first and last are the positions (powers of ten) of the
	// first and last significant digits.
	point, seen, exp := -1, 0, 0
	first, last := 0, 0
	found := false
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			break
		}
		switch {
		case c == '.':
			point = seen
		case c >= '0' && c <= '9':
			if c != '0' {
				if !found {
					first, found = seen, true
				}
				last = seen
			}
			seen++
		}
	}
	if !found {
		return 1
	}
	if i < len(s) { // the exponent part
		sign, j := 1, i+1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			if s[j] == '-' {
				sign = -1
			}
			j++
		}
		for ; j < len(s); j++ {
			exp = exp*10 + int(s[j]-'0')
		}
		exp *= sign
	}
	if point < 0 {
		point = seen
	}
	// digit k (0-based among those seen) stands at power point-1-k.
	hi, lo := point-1-first+exp, point-1-last+exp
	n := floorDiv2(hi) - floorDiv2(lo) + 1 + 1
	if neg {
		n++
	}
	return n
}

func floorDiv2(x int) int {
	if x < 0 {
		return -((1 - x) / 2)
	}
	return x / 2
}
