package benchent_test

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/bench/benchent"
)

func ExamplePostKey() {
	k, _ := benchent.PostKey("c001", "p001")
	fmt.Println(k.PK, k.SK)
	// Output: CATEGORY#c001 POST#p001
}
