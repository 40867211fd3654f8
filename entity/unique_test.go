package entity_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/internal/shop"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
)

// onBackends runs fn on the embedded engine and on DynamoDB Local (when
// configured; required under TABLEKIT_REQUIRE_SERVERS=1).
func onBackends(t *testing.T, fn func(t *testing.T, client entity.Client)) {
	t.Run("engine", func(t *testing.T) { fn(t, ddbmem.New()) })
	t.Run("local", func(t *testing.T) {
		if os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT") == "" && !testenv.Required() {
			t.Skip("TABLEKIT_DYNAMODB_ENDPOINT unset")
		}
		fn(t, testenv.DynamoDB(t))
	})
}

func shopTable(t *testing.T, client entity.Client, optFns ...func(*entity.Options)) *entity.Table {
	t.Helper()
	fns := append([]func(*entity.Options){func(o *entity.Options) { o.GSIs = shop.GSIs }}, optFns...)
	return testenv.Table(t, entity.NewTable(client, testenv.UniqueName("unique"), fns...))
}

// scan returns every item of the table, in key order.
func scan(t *testing.T, tbl *entity.Table) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	var start map[string]types.AttributeValue
	for {
		out, err := tbl.Client().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tbl.Name()), ExclusiveStartKey: start, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		start = out.LastEvaluatedKey
	}
	key := func(m map[string]types.AttributeValue) string {
		return testenv.Text(m, "PK") + "\x00" + testenv.Text(m, "SK")
	}
	sort.Slice(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	return items
}

var avCmp = cmp.Comparer(func(a, b types.AttributeValue) bool { return ddbexpr.Equal(a, b) })

// unchanged fails t when the table's items differ from before: a refused
// write wrote nothing.
func unchanged(t *testing.T, tbl *entity.Table, before []map[string]types.AttributeValue) {
	t.Helper()
	if d := cmp.Diff(before, scan(t, tbl), avCmp); d != "" {
		t.Fatalf("a refused write changed the table (-before +after):\n%s", d)
	}
}

// checkGuards is the doctor's check: every item's unique values have
// their guard held by it, and every guard is held by an item that has its
// value. It returns the number of guards.
func checkGuards(t *testing.T, tbl *entity.Table) int {
	t.Helper()
	schemas := map[string]*entity.Schema{
		shop.CustomerType: new(shop.Customer).EntitySchema(),
		shop.AccountType:  new(shop.Account).EntitySchema(),
	}
	items := scan(t, tbl)
	byKey := map[entity.Key]map[string]types.AttributeValue{}
	guards := map[entity.Key]entity.Key{}
	for _, it := range items {
		k := entity.Key{PK: testenv.Text(it, "PK"), SK: testenv.Text(it, "SK")}
		byKey[k] = it
		if testenv.Text(it, "Type") == entity.GuardType {
			h, ok := tbl.GuardHolder(it)
			if !ok {
				t.Errorf("guard %v names no holder", k)
			}
			guards[k] = h
		}
	}
	want := map[entity.Key]entity.Key{}
	for k, it := range byKey {
		sc := schemas[testenv.Text(it, "Type")]
		if sc == nil {
			continue
		}
		gs, err := tbl.Guards(sc, it)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			want[g.Key] = k
		}
	}
	if d := cmp.Diff(want, guards); d != "" {
		t.Errorf("guards drifted from items (-want +stored):\n%s", d)
	}
	return len(guards)
}

func ptr[V any](v V) *V { return &v }

func TestUniqueCreateRefusedAndLookup(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		a := shop.Customer{ID: "c1", Email: "kim@example.com", Phone: ptr("010-1"), AccountID: "acc1", Handle: "kim"}
		if err := customers.Create(ctx, &a); err != nil {
			t.Fatal(err)
		}
		if n := checkGuards(t, tbl); n != 3 {
			t.Fatalf("%d guards, want 3 (email, phone, handle)", n)
		}
		before := scan(t, tbl)
		tests := []struct {
			name string
			c    shop.Customer
			attr string
		}{
			{"email", shop.Customer{ID: "c2", Email: "kim@example.com"}, "email"},
			{"phone", shop.Customer{ID: "c2", Email: "lee@example.com", Phone: ptr("010-1")}, "phone"},
			{"handle in the same account", shop.Customer{ID: "c2", Email: "lee@example.com", AccountID: "acc1", Handle: "kim"}, "handle"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := customers.Create(ctx, &tc.c)
				var ue *entity.UniqueError
				if !errors.As(err, &ue) || !errors.Is(err, entity.ErrUniqueViolation) || !errors.Is(err, entity.ErrConditionFailed) {
					t.Fatalf("Create: %v, want a *UniqueError", err)
				}
				wantKey, _ := shop.CustomerKey("c1")
				if ue.Attr != tc.attr || ue.Holder != wantKey || ue.Type != shop.CustomerType {
					t.Fatalf("UniqueError %+v: want attr %s held by %v", ue, tc.attr, wantKey)
				}
				if !strings.Contains(err.Error(), "choose another value") {
					t.Errorf("message %q does not say what to do", err)
				}
				unchanged(t, tbl, before)
			})
		}
		// The same handle in another account is free.
		b := shop.Customer{ID: "c3", Email: "park@example.com", AccountID: "acc2", Handle: "kim"}
		if err := customers.Create(ctx, &b); err != nil {
			t.Fatal(err)
		}
		got, err := entity.GetUnique(ctx, customers, shop.CustomerEmail, "kim@example.com", nil, entity.ConsistentRead)
		if err != nil || got.ID != "c1" {
			t.Fatalf("GetUnique email: %+v, %v", got, err)
		}
		got, err = entity.GetUnique(ctx, customers, shop.CustomerHandle, "kim", []string{"acc2"}, entity.ConsistentRead)
		if err != nil || got.ID != "c3" {
			t.Fatalf("GetUnique handle in acc2: %+v, %v", got, err)
		}
		if _, err := entity.GetUnique(ctx, customers, shop.CustomerEmail, "nobody@example.com", nil); !errors.Is(err, entity.ErrNotFound) {
			t.Fatalf("GetUnique of a free value: %v, want ErrNotFound", err)
		}
		if _, err := entity.GetUnique(ctx, customers, shop.CustomerName, "x", nil); !errors.Is(err, entity.ErrValidation) {
			t.Fatalf("GetUnique of a field that is not unique: %v, want ErrValidation", err)
		}
		if _, err := entity.GetUnique(ctx, customers, shop.CustomerHandle, "kim", nil); !errors.Is(err, entity.ErrValidation) {
			t.Fatalf("GetUnique without the scope: %v, want ErrValidation", err)
		}
		checkGuards(t, tbl)
	})
}

// countingTracer counts the requests of each operation.
type countingTracer struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countingTracer) TraceStart(ctx context.Context, _ entity.TraceStartEvent) context.Context {
	return ctx
}

func (c *countingTracer) TraceEnd(_ context.Context, ev entity.TraceEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[ev.Op]++
}

func (c *countingTracer) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	return n
}

// TestUniqueOneTable129NoExtraRead: a write that touches no unique field
// costs what it costs without unique fields (one request, no read), and a
// Create costs one TransactWriteItems and no read.
func TestUniqueOneTable129NoExtraRead(t *testing.T) {
	ctx := context.Background()
	tr := &countingTracer{}
	tbl := shopTable(t, ddbmem.New(), func(o *entity.Options) { o.Tracer = tr })
	customers := entity.NewStore[shop.Customer](tbl)
	tr.take()
	c := shop.Customer{ID: "c1", Email: "kim@example.com"}
	if err := customers.Create(ctx, &c); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"TransactWriteItems": 1}, tr.take()); d != "" {
		t.Errorf("Create requests (-want +got):\n%s", d)
	}
	key, _ := shop.CustomerKey("c1")
	if _, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerName, "Kim"), entity.Add(shop.CustomerVisits, 1)}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"UpdateItem": 1}, tr.take()); d != "" {
		t.Errorf("Update of other fields (-want +got):\n%s", d)
	}
	if _, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerEmail, "k@example.com")}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"GetItem": 1, "TransactWriteItems": 1}, tr.take()); d != "" {
		t.Errorf("Update of the unique field (-want +got):\n%s", d)
	}
	checkGuards(t, tbl)
}

func TestUniqueOneTable83GuardLeftOnDelete(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		c := shop.Customer{ID: "c1", Email: "kim@example.com", Phone: ptr("010-1"), AccountID: "a", Handle: "h"}
		if err := customers.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.CustomerKey("c1")
		if err := customers.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if items := scan(t, tbl); len(items) != 0 {
			t.Fatalf("after Delete the table holds %d items, want none: %v", len(items), items)
		}
		// The values are free again.
		d := shop.Customer{ID: "c2", Email: "kim@example.com", Phone: ptr("010-1"), AccountID: "a", Handle: "h"}
		if err := customers.Create(ctx, &d); err != nil {
			t.Fatal(err)
		}
		// Deleting a missing item still succeeds and writes nothing.
		before := scan(t, tbl)
		if err := customers.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		unchanged(t, tbl, before)
		checkGuards(t, tbl)
	})
}

func TestUniqueOneTable244IndexKeyFollows(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		c := shop.Customer{ID: "c1", Email: "kim@example.com"}
		if err := customers.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.CustomerKey("c1")
		got, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerEmail, "kim@new.example"), entity.Set(shop.CustomerName, "Kim")})
		if err != nil {
			t.Fatal(err)
		}
		if got.Email != "kim@new.example" || got.Name != "Kim" || got.UpdatedAt.IsZero() {
			t.Fatalf("Update returned %+v", got)
		}
		stored, _ := customers.Get(ctx, key, entity.ConsistentRead)
		if d := cmp.Diff(stored, got); d != "" {
			t.Fatalf("Update's result differs from the stored item (-stored +returned):\n%s", d)
		}
		raw := rawItem(t, tbl, key)
		if pk := testenv.Text(raw, "GSI1PK"); pk != "EMAIL#kim@new.example" {
			t.Fatalf("GSI1PK = %q, want it to follow the email", pk)
		}
		if _, err := entity.GetUnique(ctx, customers, shop.CustomerEmail, "kim@example.com", nil, entity.ConsistentRead); !errors.Is(err, entity.ErrNotFound) {
			t.Fatalf("old email still held: %v", err)
		}
		if g, err := entity.GetUnique(ctx, customers, shop.CustomerEmail, "kim@new.example", nil, entity.ConsistentRead); err != nil || g.ID != "c1" {
			t.Fatalf("new email: %+v, %v", g, err)
		}
		// A taken value is refused, index key and guards unchanged.
		o := shop.Customer{ID: "c2", Email: "lee@example.com"}
		if err := customers.Create(ctx, &o); err != nil {
			t.Fatal(err)
		}
		before := scan(t, tbl)
		if _, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerEmail, "lee@example.com")}); !errors.Is(err, entity.ErrUniqueViolation) {
			t.Fatalf("Update to a taken email: %v, want ErrUniqueViolation", err)
		}
		unchanged(t, tbl, before)
		if n := checkGuards(t, tbl); n != 2 {
			t.Fatalf("%d guards, want 2", n)
		}
	})
}

func TestUniqueOneTable317DeleteWithoutOptionalValue(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		c := shop.Customer{ID: "c1", Email: "kim@example.com"} // no phone, no handle
		if err := customers.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
		if n := checkGuards(t, tbl); n != 1 {
			t.Fatalf("%d guards, want 1 (email only)", n)
		}
		key, _ := shop.CustomerKey("c1")
		if err := customers.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if items := scan(t, tbl); len(items) != 0 {
			t.Fatalf("left behind: %v", items)
		}
	})
}

func TestUniqueOneTable323SecondUpsert(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		for i := 0; i < 3; i++ {
			c := shop.Customer{ID: "c1", Email: "kim@example.com", Name: fmt.Sprint("take ", i)}
			if err := customers.Put(ctx, &c); err != nil {
				t.Fatalf("Put %d: %v", i, err)
			}
		}
		// A Put that changes the value moves the guard.
		c := shop.Customer{ID: "c1", Email: "kim@new.example", Phone: ptr("010")}
		if err := customers.Put(ctx, &c); err != nil {
			t.Fatal(err)
		}
		if n := checkGuards(t, tbl); n != 2 {
			t.Fatalf("%d guards, want 2", n)
		}
		// Emptying the optional unique field frees it.
		c.Phone = nil
		if err := customers.Put(ctx, &c); err != nil {
			t.Fatal(err)
		}
		if n := checkGuards(t, tbl); n != 1 {
			t.Fatalf("%d guards after emptying phone, want 1", n)
		}
		// A Put over another item's value is refused.
		d := shop.Customer{ID: "c2", Email: "lee@example.com"}
		if err := customers.Put(ctx, &d); err != nil {
			t.Fatal(err)
		}
		before := scan(t, tbl)
		d.Email = "kim@new.example"
		if err := customers.Put(ctx, &d); !errors.Is(err, entity.ErrUniqueViolation) {
			t.Fatalf("Put over a taken email: %v", err)
		}
		unchanged(t, tbl, before)
	})
}

// TestUniqueOptionalEmptied: an Update that empties or removes an
// optional unique field frees its value.
func TestUniqueOptionalEmptied(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		c := shop.Customer{ID: "c1", Email: "kim@example.com", Phone: ptr("010"), AccountID: "a", Handle: "h"}
		if err := customers.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.CustomerKey("c1")
		if _, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerPhone, nil), entity.Remove(shop.CustomerHandle)}); err != nil {
			t.Fatal(err)
		}
		if n := checkGuards(t, tbl); n != 1 {
			t.Fatalf("%d guards, want 1", n)
		}
		d := shop.Customer{ID: "c2", Email: "lee@example.com", Phone: ptr("010"), AccountID: "a", Handle: "h"}
		if err := customers.Create(ctx, &d); err != nil {
			t.Fatalf("the freed values are still taken: %v", err)
		}
	})
}

// TestUniqueOneTable509ComputedValue: the guard follows the value as
// stored, also when the server computes it (SetIfNotExists keeps an
// existing value).
func TestUniqueOneTable509ComputedValue(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		c := shop.Customer{ID: "c1", Email: "kim@example.com"}
		if err := customers.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.CustomerKey("c1")
		got, err := customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.SetIfNotExists(shop.CustomerPhone, ptr("010-1"))})
		if err != nil || got.Phone == nil || *got.Phone != "010-1" {
			t.Fatalf("first SetIfNotExists: %+v, %v", got, err)
		}
		got, err = customers.Update(ctx, key, entity.Changes[shop.Customer]{entity.SetIfNotExists(shop.CustomerPhone, ptr("010-2"))})
		if err != nil || *got.Phone != "010-1" {
			t.Fatalf("second SetIfNotExists: %+v, %v", got, err)
		}
		if _, err := entity.GetUnique(ctx, customers, shop.CustomerPhone, ptr("010-2"), nil, entity.ConsistentRead); !errors.Is(err, entity.ErrNotFound) {
			t.Fatalf("a value never stored is guarded: %v", err)
		}
		if n := checkGuards(t, tbl); n != 2 {
			t.Fatalf("%d guards, want 2", n)
		}
	})
}

func TestUniqueOneTable528ScopedUpdate(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		for _, c := range []shop.Customer{
			{ID: "c1", Email: "1@x", AccountID: "acc1", Handle: "kim"},
			{ID: "c2", Email: "2@x", AccountID: "acc1", Handle: "lee"},
			{ID: "c3", Email: "3@x", AccountID: "acc2", Handle: "lee"},
		} {
			if err := customers.Create(ctx, &c); err != nil {
				t.Fatal(err)
			}
		}
		k2, _ := shop.CustomerKey("c2")
		before := scan(t, tbl)
		if _, err := customers.Update(ctx, k2, entity.Changes[shop.Customer]{entity.Set(shop.CustomerHandle, "kim")}); !errors.Is(err, entity.ErrUniqueViolation) {
			t.Fatalf("Update to a handle taken in the account: %v", err)
		}
		unchanged(t, tbl, before)
		// Moving c2 to acc2, where lee is taken: refused.
		if _, err := customers.Update(ctx, k2, entity.Changes[shop.Customer]{entity.Set(shop.CustomerAccountID, "acc2")}); !errors.Is(err, entity.ErrUniqueViolation) {
			t.Fatalf("moving into an account where the handle is taken: %v", err)
		}
		unchanged(t, tbl, before)
		// Moving c2 to acc3 moves its guard.
		if _, err := customers.Update(ctx, k2, entity.Changes[shop.Customer]{entity.Set(shop.CustomerAccountID, "acc3")}); err != nil {
			t.Fatal(err)
		}
		if g, err := entity.GetUnique(ctx, customers, shop.CustomerHandle, "lee", []string{"acc3"}, entity.ConsistentRead); err != nil || g.ID != "c2" {
			t.Fatalf("handle in acc3: %+v, %v", g, err)
		}
		// Emptying the scope of a set handle is refused: the guard would
		// have no scope.
		if _, err := customers.Update(ctx, k2, entity.Changes[shop.Customer]{entity.Remove(shop.CustomerAccountID)}); !errors.Is(err, entity.ErrValidation) || !errors.Is(err, keys.ErrMissingField) {
			t.Fatalf("removing the scope of a handle: %v, want ErrValidation", err)
		}
		checkGuards(t, tbl)
	})
}

// TestUniqueOneTable551EncodedValue: values are guarded as stored, keys
// escaped: "a#b" and "a%23b" are two values, both guarded.
func TestUniqueOneTable551EncodedValue(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		for i, email := range []string{"a#b@x", "a%23b@x", "A#B@x"} {
			c := shop.Customer{ID: fmt.Sprint("c", i), Email: email}
			if err := customers.Create(ctx, &c); err != nil {
				t.Fatalf("Create %q: %v", email, err)
			}
		}
		c := shop.Customer{ID: "c9", Email: "a#b@x"}
		if err := customers.Create(ctx, &c); !errors.Is(err, entity.ErrUniqueViolation) {
			t.Fatalf("Create of a taken escaped value: %v", err)
		}
		k, err := tbl.GuardKey(shop.CustomerType, "email", "a#b@x")
		if err != nil || k.PK != "UNIQUE#Customer#email#a%23b@x" {
			t.Fatalf("guard key %v, %v", k, err)
		}
		if n := checkGuards(t, tbl); n != 3 {
			t.Fatalf("%d guards, want 3", n)
		}
	})
}

// TestUniqueVersioned: a versioned entity keeps its guards through Put,
// Update and Delete with IfVersion.
func TestUniqueVersioned(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		accounts := entity.NewStore[shop.Account](tbl)
		a := shop.Account{ID: "a1", Slug: "acme"}
		if err := accounts.Create(ctx, &a); err != nil {
			t.Fatal(err)
		}
		a.Slug = "acme2"
		if err := accounts.Put(ctx, &a, entity.IfVersion(1)); err != nil {
			t.Fatal(err)
		}
		key, _ := shop.AccountKey("a1")
		before := scan(t, tbl)
		if _, err := accounts.Update(ctx, key, entity.Changes[shop.Account]{entity.Set(shop.AccountSlug, "acme3")}, entity.IfVersion(1)); !errors.Is(err, entity.ErrVersionConflict) {
			t.Fatalf("stale version: %v, want ErrVersionConflict", err)
		}
		unchanged(t, tbl, before)
		got, err := accounts.Update(ctx, key, entity.Changes[shop.Account]{entity.Set(shop.AccountSlug, "acme3")}, entity.IfVersion(2))
		if err != nil || got.Version != 3 || got.Slug != "acme3" {
			t.Fatalf("Update: %+v, %v", got, err)
		}
		if n := checkGuards(t, tbl); n != 1 {
			t.Fatalf("%d guards, want 1", n)
		}
		if err := accounts.Delete(ctx, key, entity.IfVersion(2)); !errors.Is(err, entity.ErrVersionConflict) {
			t.Fatalf("Delete at a stale version: %v", err)
		}
		if err := accounts.Delete(ctx, key, entity.IfVersion(3)); err != nil {
			t.Fatal(err)
		}
		if items := scan(t, tbl); len(items) != 0 {
			t.Fatalf("left behind: %v", items)
		}
	})
}

// TestUniqueBatchAndTx: batches refuse entities with unique fields;
// TxCreate writes the guards in the transaction; the transactional
// writes that would need a read are refused.
func TestUniqueBatchAndTx(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		orders := entity.NewStore[shop.Order](tbl)
		c := shop.Customer{ID: "c1", Email: "kim@example.com"}
		if err := customers.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
		before := scan(t, tbl)
		key, _ := shop.CustomerKey("c1")
		if err := customers.BatchPut(ctx, []shop.Customer{{ID: "c2", Email: "x@x"}}); !errors.Is(err, entity.ErrValidation) {
			t.Fatalf("BatchPut: %v, want ErrValidation", err)
		}
		if err := customers.BatchDelete(ctx, []entity.Key{key}); !errors.Is(err, entity.ErrValidation) {
			t.Fatalf("BatchDelete: %v, want ErrValidation", err)
		}
		for name, op := range map[string]entity.TxOp{
			"TxPut":    customers.TxPut(&shop.Customer{ID: "c2", Email: "x@x"}),
			"TxDelete": customers.TxDelete(key),
			"TxUpdate": customers.TxUpdate(key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerEmail, "y@x")}),
		} {
			if err := tbl.Tx().Add(op).Exec(ctx); !errors.Is(err, entity.ErrValidation) {
				t.Fatalf("%s: %v, want ErrValidation", name, err)
			}
		}
		// Two creates of one value in one transaction.
		err := tbl.Tx().Add(customers.TxCreate(&shop.Customer{ID: "c2", Email: "x@x"}), customers.TxCreate(&shop.Customer{ID: "c3", Email: "x@x"})).Exec(ctx)
		if !errors.Is(err, entity.ErrUniqueViolation) {
			t.Fatalf("two TxCreates of one email: %v", err)
		}
		// A taken value cancels the transaction, naming the holder.
		o := shop.Order{ID: "o1", CustomerID: "c2", Status: shop.OrderStateNew}
		err = tbl.Tx().Add(orders.TxCreate(&o), customers.TxCreate(&shop.Customer{ID: "c2", Email: "kim@example.com"})).Exec(ctx)
		var ue *entity.UniqueError
		if !errors.Is(err, entity.ErrTransactionCanceled) || !errors.As(err, &ue) || ue.Holder != key {
			t.Fatalf("TxCreate of a taken email: %v (%+v)", err, ue)
		}
		unchanged(t, tbl, before)
		// Not taken: both land, with the guard.
		if err := tbl.Tx().Add(orders.TxCreate(&o), customers.TxCreate(&shop.Customer{ID: "c2", Email: "lee@example.com"})).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// TxUpdate of other fields works as before.
		if err := tbl.Tx().Add(customers.TxUpdate(key, entity.Changes[shop.Customer]{entity.Set(shop.CustomerName, "Kim")})).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if n := checkGuards(t, tbl); n != 2 {
			t.Fatalf("%d guards, want 2", n)
		}
	})
}

// TestUniqueRaceCreate: 64 goroutines create customers with one email:
// exactly one wins, every other gets the typed error.
func TestUniqueRaceCreate(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		const n = 64
		var wins, taken atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				c := shop.Customer{ID: fmt.Sprint("c", i), Email: "same@example.com"}
				err := customers.Create(ctx, &c)
				switch {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, entity.ErrUniqueViolation):
					taken.Add(1)
				default:
					errs <- err
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		t.Logf("%d goroutines: %d won, %d got ErrUniqueViolation", n, wins.Load(), taken.Load())
		if wins.Load() != 1 || taken.Load() != n-1 {
			t.Fatalf("wins %d, taken %d; want 1 and %d", wins.Load(), taken.Load(), n-1)
		}
		if items := scan(t, tbl); len(items) != 2 {
			t.Fatalf("%d items, want the winner and its guard", len(items))
		}
		checkGuards(t, tbl)
	})
}

// TestUniqueRaceChangeVersusCreate: changing A's email to x races with
// creating B with x: exactly one holds x, and no guard is orphaned.
func TestUniqueRaceChangeVersusCreate(t *testing.T) {
	onBackends(t, func(t *testing.T, client entity.Client) {
		ctx := context.Background()
		tbl := shopTable(t, client)
		customers := entity.NewStore[shop.Customer](tbl)
		// TABLEKIT_UNIQUE_ROUNDS raises the number of races (default 8).
		rounds := 8
		if n, err := strconv.Atoi(os.Getenv("TABLEKIT_UNIQUE_ROUNDS")); err == nil && n > 0 {
			rounds = n
		}
		var aWins, bWins int
		for r := 0; r < rounds; r++ {
			x := fmt.Sprintf("x%d@example.com", r)
			a := shop.Customer{ID: fmt.Sprint("a", r), Email: fmt.Sprintf("a%d@example.com", r)}
			if err := customers.Create(ctx, &a); err != nil {
				t.Fatal(err)
			}
			ka, _ := shop.CustomerKey(a.ID)
			var errA, errB error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, errA = customers.Update(ctx, ka, entity.Changes[shop.Customer]{entity.Set(shop.CustomerEmail, x)})
			}()
			go func() {
				defer wg.Done()
				b := shop.Customer{ID: fmt.Sprint("b", r), Email: x}
				errB = customers.Create(ctx, &b)
			}()
			wg.Wait()
			for _, err := range []error{errA, errB} {
				if err != nil && !errors.Is(err, entity.ErrUniqueViolation) {
					t.Fatalf("round %d: %v", r, err)
				}
			}
			if (errA == nil) == (errB == nil) {
				t.Fatalf("round %d: change %v, create %v: want exactly one to win", r, errA, errB)
			}
			if errA == nil {
				aWins++
			} else {
				bWins++
			}
			holder, err := entity.GetUnique(ctx, customers, shop.CustomerEmail, x, nil, entity.ConsistentRead)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: a.ID, false: "b" + fmt.Sprint(r)}[errA == nil]; holder.ID != want {
				t.Fatalf("round %d: %s holds x, want %s", r, holder.ID, want)
			}
		}
		t.Logf("%d rounds: the change won %d, the create %d", rounds, aWins, bWins)
		if n := checkGuards(t, tbl); n != rounds+bWins {
			t.Fatalf("%d guards, want %d", n, rounds+bWins)
		}
	})
}
