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

func Example_canonNum() {
	for _, s := range []string{"1.50", "-0", "3e1", "-1.0E-3", "00012", "1E+3"} {
		fmt.Println(s, "->", canonNum(s))
	}
	// Output:
	// 1.50 -> 1.5
	// -0 -> 0
	// 3e1 -> 30
	// -1.0E-3 -> -0.001
	// 00012 -> 12
	// 1E+3 -> 1000
}
