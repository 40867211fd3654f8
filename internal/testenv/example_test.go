package testenv_test

import (
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/internal/testenv"
)

// Tests name their tables and key namespaces with a random suffix, so that
// they never collide on a shared server.
func ExampleUniqueName() {
	a, b := testenv.UniqueName("orders"), testenv.UniqueName("orders")
	fmt.Println(strings.HasPrefix(a, "orders-"), len(a), a != b)
	// Output: true 19 true
}
