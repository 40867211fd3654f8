package shop_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/shop"
)

// Example shows a unique email: a second customer with it is refused with
// an error naming the holder, and GetUnique finds the customer by email.
func Example() {
	ctx := context.Background()
	tbl := entity.NewTable(ddbmem.New(), "shop", func(o *entity.Options) { o.GSIs = append(o.GSIs, shop.GSIs...) })
	if err := tbl.EnsureTable(ctx); err != nil {
		fmt.Println(err)
		return
	}
	customers := entity.NewStore[shop.Customer](tbl)
	kim := shop.Customer{ID: "c1", Email: "kim@example.com"}
	if err := customers.Create(ctx, &kim); err != nil {
		fmt.Println(err)
		return
	}
	lee := shop.Customer{ID: "c2", Email: "kim@example.com"}
	err := customers.Create(ctx, &lee)
	var ue *entity.UniqueError
	if errors.As(err, &ue) {
		fmt.Println("taken:", ue.Attr, ue.Value, "held by", ue.Holder.PK)
	}
	got, err := entity.GetUnique(ctx, customers, shop.CustomerEmail, "kim@example.com", nil)
	fmt.Println(got.ID, err)
	// Output:
	// taken: email kim@example.com held by CUSTOMER#c1
	// c1 <nil>
}
