package ext_test

import (
	"fmt"

	"github.com/tablekit/tablekit/entity/codex/ext"
)

// A composite sort key and its begins_with prefix (seed 001 §7).
func Example() {
	k, _ := ext.PostLikeKey("c001", "u001", "p001")
	prefix, _ := ext.PostLikeSKPrefixByUserID("u001")
	fmt.Println(k.PK, k.SK, prefix)
	// Output: CATEGORY#c001 USER#u001#POST#p001 USER#u001#POST#
}
