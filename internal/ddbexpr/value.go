package ddbexpr

import (
	"bytes"
	"maps"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/avtype"
	"github.com/tablekit/tablekit/internal/itemsize"
)

// Item is a DynamoDB item.
type Item = map[string]types.AttributeValue

// TypeName returns DynamoDB's type descriptor of v: S, N, B, BOOL, NULL,
// SS, NS, BS, L or M; "" for nil or unknown.
func TypeName(v types.AttributeValue) string { return avtype.Name(v) }

// Copy returns a deep copy of v. Strings are shared (they are immutable);
// byte slices, lists, maps and sets are copied.
func Copy(v types.AttributeValue) types.AttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: x.Value}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: x.Value}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: bytes.Clone(x.Value)}
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: x.Value}
	case *types.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: x.Value}
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: append([]string(nil), x.Value...)}
	case *types.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: append([]string(nil), x.Value...)}
	case *types.AttributeValueMemberBS:
		bs := make([][]byte, len(x.Value))
		for i, b := range x.Value {
			bs[i] = bytes.Clone(b)
		}
		return &types.AttributeValueMemberBS{Value: bs}
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = Copy(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: CopyItem(x.Value)}
	}
	return v
}

// CopyItem returns a deep copy of it (nil for nil).
func CopyItem(it Item) Item {
	if it == nil {
		return nil
	}
	m := make(Item, len(it))
	for k, v := range it {
		m[k] = Copy(v)
	}
	return m
}

// CopyRoom returns a shallow copy of it (the same values) with room for
// extra more attributes. A Go map of more than 8 entries is a table of at
// least 16 slots, which takes 14 entries before it grows: such a map,
// when the extra ones fit, is cloned (maps.Clone copies its memory,
// about twice as fast as inserting each entry). Any other is copied
// entry by entry into a map sized for the extra ones: its clone would
// grow, and reallocate, on the first insertions. (Only speed depends on
// these sizes: a clone that does grow is still a right copy.)
func CopyRoom(it Item, extra int) Item {
	if n := len(it); n > 8 && n+extra <= 14 {
		return maps.Clone(it)
	}
	out := make(Item, len(it)+extra)
	for k, v := range it {
		out[k] = v
	}
	return out
}

// Equal reports whether a and b are the same DynamoDB value. Numbers
// compare numerically, sets ignore order.
func Equal(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && numEqual(x.Value, y.Value)
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(x.Value, y.Value)
	case *types.AttributeValueMemberBOOL:
		y, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		set := make(map[string]bool, len(x.Value))
		for _, s := range x.Value {
			set[s] = true
		}
		for _, s := range y.Value {
			if !set[s] {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		set := make(map[string]bool, len(x.Value))
		for _, s := range x.Value {
			set[CanonicalNumber(s)] = true
		}
		for _, s := range y.Value {
			if !set[CanonicalNumber(s)] {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberBS:
		y, ok := b.(*types.AttributeValueMemberBS)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		set := make(map[string]bool, len(x.Value))
		for _, s := range x.Value {
			set[string(s)] = true
		}
		for _, s := range y.Value {
			if !set[string(s)] {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !Equal(x.Value[i], y.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for k, v := range x.Value {
			w, ok := y.Value[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// CanonicalNumber returns the canonical form of a number string, or s
// itself when it does not parse.
func CanonicalNumber(s string) string {
	n, err := ParseNumber(s)
	if err != nil {
		return s
	}
	return n.String()
}

func numEqual(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := ParseNumber(a)
	y, err2 := ParseNumber(b)
	return err1 == nil && err2 == nil && x.Cmp(y) == 0
}

// Compare orders two scalars of the same type (S, N or B). ok is false
// when they are not comparable.
func Compare(a, b types.AttributeValue) (c int, ok bool) {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		if !ok {
			return 0, false
		}
		switch {
		case x.Value < y.Value:
			return -1, true
		case x.Value > y.Value:
			return 1, true
		}
		return 0, true
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return 0, false
		}
		n, err1 := ParseNumber(x.Value)
		m, err2 := ParseNumber(y.Value)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		return n.Cmp(m), true
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		if !ok {
			return 0, false
		}
		return bytes.Compare(x.Value, y.Value), true
	}
	return 0, false
}

// Size returns DynamoDB's size in bytes of a value, as counted against
// the 400 KB item limit ([itemsize.Value]).
func Size(v types.AttributeValue) int { return itemsize.Value(v) }

// ItemSize returns the size of an item: attribute names plus values
// ([itemsize.Of]).
func ItemSize(it Item) int { return itemsize.Of(it) }

// sizeFunc is the size() function. Strings count characters (UTF-16
// code units, as DynamoDB Local does), binaries bytes, and sets, lists and
// maps their elements; other types have no size.
func sizeFunc(v types.AttributeValue) (int, bool) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		n := 0
		for _, r := range x.Value {
			if r >= 0x10000 {
				n += 2
			} else {
				n++
			}
		}
		return n, true
	case *types.AttributeValueMemberB:
		return len(x.Value), true
	case *types.AttributeValueMemberSS:
		return len(x.Value), true
	case *types.AttributeValueMemberNS:
		return len(x.Value), true
	case *types.AttributeValueMemberBS:
		return len(x.Value), true
	case *types.AttributeValueMemberL:
		return len(x.Value), true
	case *types.AttributeValueMemberM:
		return len(x.Value), true
	}
	return 0, false
}

func sortedIndexKeys(m map[int]*projNode) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
