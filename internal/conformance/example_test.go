package conformance

import (
	"fmt"
)

// Results are compared as plain trees: attribute values become one-key
// maps, set members are sorted, and number text is kept exactly as the
// target returned it, so "1.5" and "1.50" differ.
func Example() {
	item := I{"pk": S("a"), "n": N("1.5"), "tags": SS("b", "a"), "bin": B(0xca, 0xfe)}
	fmt.Println(js(plainOf(item, newNameMap())))
	// Output:
	// {"bin":{"B":"cafe"},"n":{"N":"1.5"},"pk":{"S":"a"},"tags":{"SS":["a","b"]}}
}
