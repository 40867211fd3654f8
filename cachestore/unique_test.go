package cachestore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/shop"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestCachedStoreUniqueAndRules: the cached store keeps unique guards
// right on every write (its writes are the entity store's), refuses a
// taken value and a Remove that breaks a rule, and its cache then still
// holds the stored item.
func TestCachedStoreUniqueAndRules(t *testing.T) {
	ctx := context.Background()
	tbl := testenv.Table(t, entity.NewTable(testenv.Dynamo(t), testenv.UniqueName("cachestore-unique"), func(o *entity.Options) { o.GSIs = shop.GSIs }))
	c := newCache(t, testenv.UniqueName("cu"), []string{testenv.ValkeyAddr(t)}, false)
	customers, err := cachestore.New(entity.NewStore[shop.Customer](tbl), c)
	if err != nil {
		t.Fatal(err)
	}
	holder := func(email string) string {
		t.Helper()
		got, err := entity.GetUnique(ctx, customers.Entity(), shop.CustomerEmail, email, nil, entity.ConsistentRead)
		if errors.Is(err, entity.ErrNotFound) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return got.ID
	}
	a := shop.Customer{ID: "c1", Email: "kim@example.com"}
	if err := customers.Create(ctx, &a); err != nil {
		t.Fatal(err)
	}
	b := shop.Customer{ID: "c2", Email: "kim@example.com"}
	if err := customers.Create(ctx, &b); !errors.Is(err, entity.ErrUniqueViolation) {
		t.Fatalf("Create of a taken email: %v", err)
	}
	key, _ := shop.CustomerKey("c1")
	if _, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerEmail, "kim@new.example")}); err != nil {
		t.Fatal(err)
	}
	if holder("kim@example.com") != "" || holder("kim@new.example") != "c1" {
		t.Fatal("the cached store's Update did not move the guard")
	}
	if _, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Remove(shop.CustomerID)}); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("Remove of a primary key source: %v", err)
	}
	got, err := customers.Get(ctx, key)
	if err != nil || got.Email != "kim@new.example" {
		t.Fatalf("cached Get: %+v, %v", got, err)
	}
	lines, err := cachestore.New(entity.NewStore[shop.OrderLine](tbl), c)
	if err != nil {
		t.Fatal(err)
	}
	l := shop.OrderLine{OrderID: "o1", LineNo: 1, SKU: "s", State: shop.OrderStateNew, Region: "r", Ref: "ref-1"}
	if err := lines.Create(ctx, &l); err != nil {
		t.Fatal(err)
	}
	lk, _ := shop.OrderLineKey("o1", 1)
	if _, err := lines.Update(ctx, lk, entity.Changes[shop.OrderLine]{entity.Remove(shop.OrderLineSKU)}); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("cached Update removing a nonempty field: %v", err)
	}
	if gl, err := lines.Get(ctx, lk); err != nil || gl.SKU != "s" {
		t.Fatalf("cached line after the refused Remove: %+v, %v", gl, err)
	}
	if err := customers.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if holder("kim@new.example") != "" {
		t.Fatal("the cached store's Delete left the guard")
	}
	if err := customers.Create(ctx, &b); err != nil {
		t.Fatalf("the freed email: %v", err)
	}
}
