package exampleenv_test

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/exampleenv"
)

// With no endpoint the examples run on the embedded engine.
func ExampleClient() {
	_, where := exampleenv.Client("")
	fmt.Println(where)
	_, where = exampleenv.Client("http://127.0.0.1:8000")
	fmt.Println(where)
	// Output:
	// the embedded engine (ddbmem)
	// DynamoDB at http://127.0.0.1:8000
}
