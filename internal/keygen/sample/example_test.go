package sample_test

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/keygen/sample"
)

func ExampleSegmentSK() {
	for _, i := range []int{2, 10} {
		sk, _ := sample.SegmentSK(i)
		fmt.Println(sk)
	}
	// Output:
	// SEG#000002
	// SEG#000010
}
