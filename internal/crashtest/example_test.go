package crashtest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/internal/crashtest"
)

// A process dies at its second external call: the call does not land,
// its context is cancelled, and its later calls fail at once.
func Example() {
	ctx, kill := context.WithCancel(context.Background())
	in := crashtest.New(2, crashtest.Die, kill)
	for i := 1; i <= 3; i++ {
		err := crashtest.Do(in, fmt.Sprintf("call%d", i), func() error { return nil })
		fmt.Println(i, errors.Is(err, crashtest.ErrDead))
	}
	fmt.Println(ctx.Err(), in.Fired(), in.Calls())
	// Output:
	// 1 false
	// 2 true
	// 3 true
	// context canceled call2 2
}
