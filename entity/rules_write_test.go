package entity_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/shop"
	"github.com/tablekit/tablekit/keys"
)

// TestRemoveObeysRules: removing a field that a rule requires (nonempty,
// a required enum, prefix=) is refused before any request, through Update
// and TxUpdate; removing an optional field is not.
func TestRemoveObeysRules(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		lines := entity.NewStore[shop.OrderLine](tbl)
		l := shop.OrderLine{OrderID: "o1", LineNo: 1, SKU: "sku-1", State: shop.OrderStateNew, Region: "seoul", Ref: "ref-1", Qty: 2, Memo: "m"}
		if err := lines.Create(ctx, &l); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.OrderLineKey("o1", 1)
		before := scan(t, tbl)
		tests := []struct {
			name   string
			change entity.Change[shop.OrderLine]
			rule   string
		}{
			{"nonempty", entity.Remove(shop.OrderLineSKU), entity.RuleNonEmpty},
			{"required enum", entity.Remove(shop.OrderLineState), entity.RuleEnum},
			{"prefix", entity.Remove(shop.OrderLineRef), entity.RulePrefix},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := lines.Update(ctx, key, entity.Changes[shop.OrderLine]{tc.change})
				var ce *entity.ConstraintError
				if !errors.As(err, &ce) || ce.Rule != tc.rule || !errors.Is(err, entity.ErrValidation) {
					t.Fatalf("Update: %v, want a *ConstraintError of rule %s", err, tc.rule)
				}
				if !strings.Contains(err.Error(), "set a valid value instead") {
					t.Errorf("message %q does not say what to do", err)
				}
				err = tbl.Tx().Add(lines.TxUpdate(key, entity.Changes[shop.OrderLine]{tc.change})).Exec(ctx)
				if !errors.As(err, &ce) || ce.Rule != tc.rule {
					t.Fatalf("TxUpdate: %v, want a *ConstraintError of rule %s", err, tc.rule)
				}
				unchanged(t, tbl, before)
			})
		}
		// Optional fields (omitempty) may be removed.
		got, err := lines.Update(ctx, key, entity.Changes[shop.OrderLine]{entity.Remove(shop.OrderLineMemo), entity.Remove(shop.OrderLineQty)})
		if err != nil || got.Memo != "" || got.Qty != 0 {
			t.Fatalf("removing optional fields: %+v, %v", got, err)
		}
		// What is stored still reads back and writes back.
		if err := lines.Put(ctx, &got); err != nil {
			t.Fatalf("the stored item no longer writes back: %v", err)
		}
	})
}

// TestIfVersionOnUnversionedRefused: IfVersion on an entity without a
// version field is refused with a typed error on every path, as Create
// refuses it, and nothing is written.
func TestIfVersionOnUnversionedRefused(t *testing.T) {
	ctx := context.Background()
	tbl := shopTable(t, ddbmemNew())
	orders := entity.NewStore[shop.Order](tbl)
	o := shop.Order{ID: "o1", CustomerID: "c1", Status: shop.OrderStateNew}
	if err := orders.Create(ctx, &o); err != nil {
		t.Fatal(err)
	}
	key, _ := shop.OrderKey("o1")
	before := scan(t, tbl)
	v7 := entity.IfVersion(7)
	paths := map[string]func() error{
		"Create": func() error { c := o; c.ID = "o2"; return orders.Create(ctx, &c, v7) },
		"Put":    func() error { c := o; return orders.Put(ctx, &c, v7) },
		"Update": func() error {
			_, err := orders.Update(ctx, key, entity.Changes[shop.Order]{entity.Set(shop.OrderNote, "n")}, v7)
			return err
		},
		"Delete": func() error { return orders.Delete(ctx, key, v7) },
		"TxPut":  func() error { c := o; return tbl.Tx().Add(orders.TxPut(&c, v7)).Exec(ctx) },
		"TxUpdate": func() error {
			return tbl.Tx().Add(orders.TxUpdate(key, entity.Changes[shop.Order]{entity.Set(shop.OrderNote, "n")}, v7)).Exec(ctx)
		},
		"TxDelete": func() error { return tbl.Tx().Add(orders.TxDelete(key, v7)).Exec(ctx) },
		"TxCheck": func() error {
			return tbl.Tx().Add(orders.TxCheck(key, entityExists(), v7), orders.TxUpdate(key, entity.Changes[shop.Order]{entity.Set(shop.OrderGift, "g")})).Exec(ctx)
		},
		"BatchPut": func() error { return orders.BatchPut(ctx, []shop.Order{o}, v7) },
	}
	for name, fn := range paths {
		t.Run(name, func(t *testing.T) {
			err := fn()
			var ve *entity.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, entity.ErrValidation) {
				t.Fatalf("%s with IfVersion on an unversioned entity: %v, want a *ValidationError", name, err)
			}
			if name != "Create" && !strings.Contains(err.Error(), "remove IfVersion") {
				t.Errorf("message %q does not say what to do", err)
			}
			unchanged(t, tbl, before)
		})
	}
}

// TestIndexKeyPartMessage: updating one source of a two-source index key
// says to set the other in the same update.
func TestIndexKeyPartMessage(t *testing.T) {
	ctx := context.Background()
	tbl := shopTable(t, ddbmemNew())
	lines := entity.NewStore[shop.OrderLine](tbl)
	l := shop.OrderLine{OrderID: "o1", LineNo: 1, SKU: "s", State: shop.OrderStateNew, Region: "seoul", Ref: "ref-1"}
	if err := lines.Create(ctx, &l); err != nil {
		t.Fatal(err)
	}
	key, _ := shop.OrderLineKey("o1", 1)
	_, err := lines.Update(ctx, key, entity.Changes[shop.OrderLine]{entity.Set(shop.OrderLineState, shop.OrderStatePaid)})
	if !errors.Is(err, keys.ErrMissingField) || !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("Update of one part: %v, want ErrMissingField", err)
	}
	if !strings.Contains(err.Error(), "set region in the same update") {
		t.Fatalf("message %q does not say to set region in the same update", err)
	}
	got, err := lines.Update(ctx, key, entity.Changes[shop.OrderLine]{entity.Set(shop.OrderLineState, shop.OrderStatePaid), entity.Set(shop.OrderLineRegion, "seoul")})
	if err != nil || got.State != shop.OrderStatePaid {
		t.Fatalf("with both parts: %+v, %v", got, err)
	}
}

// TestPutVersionedNamesIfVersion: a Put over an existing versioned item
// without IfVersion says to pass IfVersion.
func TestPutVersionedNamesIfVersion(t *testing.T) {
	ctx := context.Background()
	tbl := shopTable(t, ddbmemNew())
	accounts := entity.NewStore[shop.Account](tbl)
	a := shop.Account{ID: "a1", Slug: "s"}
	if err := accounts.Create(ctx, &a); err != nil {
		t.Fatal(err)
	}
	b := shop.Account{ID: "a1", Slug: "s", Name: "n"}
	err := accounts.Put(ctx, &b)
	if !errors.Is(err, entity.ErrVersionConflict) || !strings.Contains(err.Error(), "IfVersion(1)") {
		t.Fatalf("Put without IfVersion: %v, want a conflict naming IfVersion(1)", err)
	}
}

func ddbmemNew() entity.Client { return ddbmem.New() }

func entityExists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name("PK"))
}

// TestTxItemTooLarge: a transaction update that grows an item past 400 KB
// fails with ErrItemTooLarge, as Store.Update does, on both backends.
func TestTxItemTooLarge(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		orders := entity.NewStore[shop.Order](tbl)
		o := shop.Order{ID: "o1", CustomerID: "c1", Status: shop.OrderStateNew, Note: strings.Repeat("n", 300<<10)}
		if err := orders.Create(ctx, &o); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.OrderKey("o1")
		grow := entity.Changes[shop.Order]{entity.Set(shop.OrderGift, strings.Repeat("g", 200<<10))}
		if _, err := orders.Update(ctx, key, grow); !errors.Is(err, entity.ErrItemTooLarge) {
			t.Fatalf("Store.Update: %v, want ErrItemTooLarge", err)
		}
		before := scan(t, tbl)
		err := tbl.Tx().Add(orders.TxUpdate(key, grow)).Exec(ctx)
		if !errors.Is(err, entity.ErrItemTooLarge) {
			t.Fatalf("Tx.Exec: %v, want ErrItemTooLarge", err)
		}
		t.Logf("Tx.Exec: %v", err)
		unchanged(t, tbl, before)
	})
}

// TestNewStoreSaysWhichIndex: a table made without the entity's indexes
// makes NewStore fail with an error that says what to add.
func TestNewStoreSaysWhichIndex(t *testing.T) {
	tbl := entity.NewTable(ddbmemNew(), "shop")
	err := entity.CheckSchema(tbl, new(shop.Customer).EntitySchema())
	if !errors.Is(err, entity.ErrSchemaMismatch) {
		t.Fatalf("CheckSchema: %v, want ErrSchemaMismatch", err)
	}
	for _, want := range []string{"o.GSIs = append(o.GSIs, yourpkg.GSIs...)", `entity.Index{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"}`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	tbl = entity.NewTable(ddbmemNew(), "shop", func(o *entity.Options) { o.GSIs = append(o.GSIs, shop.GSIs...) })
	if err := entity.CheckSchema(tbl, new(shop.Customer).EntitySchema()); err != nil {
		t.Fatal(err)
	}
}
