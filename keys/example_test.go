package keys_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/keys"
)

func Example() {
	artifacts := keys.MustNew("USR#{UserID}#PROJ#{ProjectID}#ART")

	key, _ := artifacts.Build("u001", "team#1")
	fmt.Println(key)

	fields, _ := artifacts.Parse(key)
	fmt.Println(fields[0], fields[1])

	prefix, _ := artifacts.Prefix("u001")
	fmt.Println(prefix)

	_, err := artifacts.Build("", "p1")
	fmt.Println(errors.Is(err, keys.ErrMissingField))
	// Output:
	// USR#u001#PROJ#team%231#ART
	// u001 team#1
	// USR#u001#PROJ#
	// true
}

func ExampleAppendInt() {
	for _, v := range []int64{-1, 2, 10} {
		b, _ := keys.AppendInt([]byte("SEG#"), v, 4)
		fmt.Println(string(b))
	}
	_, err := keys.AppendInt(nil, 10000, 4)
	fmt.Println(errors.Is(err, keys.ErrOverflow))
	// Output:
	// SEG#-9999
	// SEG#0002
	// SEG#0010
	// true
}

func ExampleTemplate_Build_time() {
	queue := keys.MustNew("QAT#{QueuedAt}#REQ#{RequestID}", func(o *keys.Options) {
		o.MaxLen = keys.MaxSortKeyLen
	})
	at := time.Date(2025, 11, 14, 12, 0, 0, 0, time.FixedZone("KST", 9*3600))
	key, _ := queue.Build(at, "r1")
	fmt.Println(key)
	// Output: QAT#2025-11-14T03:00:00.000Z#REQ#r1
}

func ExampleIDTime() {
	id := keys.NewID()
	at, _ := keys.IDTime(id)
	fmt.Println(len(id), time.Since(at) < time.Minute)
	// Output: 26 true
}

// An ID for a record created before it is stored, and the deterministic ID
// of a migrated record: its creation time and its id in the old system
// give the same ID on every run.
func ExampleIDFrom() {
	created := time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC)
	backdated := keys.NewIDAt(created)
	migrated := keys.IDFrom(created, "post/p001")
	at1, _ := keys.IDTime(backdated)
	at2, _ := keys.IDTime(migrated)
	fmt.Println(at1, at2)
	fmt.Println(migrated == keys.IDFrom(created, "post/p001"), migrated < keys.NewID())
	// Output:
	// 2025-11-12 05:00:00 +0000 UTC 2025-11-12 05:00:00 +0000 UTC
	// true true
}
