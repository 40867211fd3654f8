package layout_test

import (
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/internal/layout"
)

func Example() {
	opts := func(o *entity.Options) { layout.Options(o, "ExpiresAt") }
	tbl := layout.NewTable(ddbmem.New(), "", "SeedTable", opts, nil)
	s := tbl.Options()
	fmt.Println(tbl.Name(), s.PK, s.SK, s.TypeAttr, s.TTLAttr, s.BillingMode)
	// Output: SeedTable PK SK Type ExpiresAt PAY_PER_REQUEST
}
