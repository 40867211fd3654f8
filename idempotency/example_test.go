package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/idempotency"
)

// The record key of one idempotency key, and of a key made of two parts
// (seed 004's IdempotencyLock, "IDEMP#{eventId}#{userId}"): each part is
// escaped, so a '#' inside a part cannot be mistaken for the delimiter.
func ExampleDefaultKey() {
	k := idempotency.DefaultKey("order-1")
	fmt.Println(k.PK, k.SK)
	fmt.Println(idempotency.DefaultKey("ev-42", "user-7").PK)
	fmt.Println(idempotency.DefaultKey("ev#42", "user-7").PK)
	// Output:
	// IDEMP#order-1 LOCK
	// IDEMP#ev-42#user-7
	// IDEMP#ev%2342#user-7
}

// A duplicate that arrives while the first call runs gets an error that
// carries the first call's value (here its request ID).
func ExampleFirstValue() {
	err := fmt.Errorf("participate: %w", &idempotency.InProgressError{Key: "ev-42#user-7", FirstValue: "req-1"})
	first, ok := idempotency.FirstValue(err)
	fmt.Println(errors.Is(err, idempotency.ErrInProgress), first, ok)
	// Output: true req-1 true
}

// Charging an order at most once, on the embedded engine (a
// *dynamodb.Client works the same); the table has string keys PK and SK.
// The second call with the same key replays the first result without
// running the effect.
func ExampleDo() {
	ctx := context.Background()
	db := ddbmem.New()
	if err := entity.NewTable(db, "AppTable").EnsureTable(ctx); err != nil {
		log.Fatal(err)
	}
	store, err := idempotency.New(db, "AppTable")
	if err != nil {
		log.Fatal(err)
	}
	type receipt struct{ ChargeID string }
	payload := []byte(`{"order":"o-1","amount":1200}`) // canonical bytes of the request
	charges := 0
	for range 2 {
		r, replayed, err := idempotency.Do(ctx, store, "charge#o-1", payload,
			func(ctx context.Context) (receipt, error) {
				charges++
				return receipt{ChargeID: "ch_1"}, nil // the effect, run at most once
			},
			func(o *idempotency.Options) { o.WaitForResult = true })
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.ChargeID, replayed)
	}
	fmt.Println("charges:", charges)
	// Output:
	// ch_1 false
	// ch_1 true
	// charges: 1
}
