package ddbexpr_test

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// Numbers are compared and stored as exact decimals in canonical form.
func ExampleNormalizeNumber() {
	for _, s := range []string{"1.50", "-0", "3e1", "0.000100"} {
		n, err := ddbexpr.NormalizeNumber(s)
		fmt.Println(s, "->", n, err)
	}
	// Output:
	// 1.50 -> 1.5 <nil>
	// -0 -> 0 <nil>
	// 3e1 -> 30 <nil>
	// 0.000100 -> 0.0001 <nil>
}

// A malformed condition is rejected when it is parsed.
func ExampleParseCondition() {
	_, err := ddbexpr.ParseCondition("attribute_exists(#a) AND #n BETWEEN :lo AND :hi")
	fmt.Println("valid:", err == nil)
	_, err = ddbexpr.ParseCondition("#a = ")
	fmt.Println("malformed:", err != nil)
	// Output:
	// valid: true
	// malformed: true
}
