package apidump_test

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/apidump"
)

// A line of the API file, the identifier a changelog names for it, and a
// change between two versions.
func Example() {
	old := []string{
		"pkg example.com/m/lock, func ExponentialBackoff(time.Duration, time.Duration) RetryStrategy",
		"pkg example.com/m/lock, type Options struct, Retry RetryStrategy",
	}
	now := []string{
		"pkg example.com/m/lock, type Options struct, Retry retry.Strategy",
	}
	removed, added := apidump.Diff(old, now)
	for _, l := range removed {
		fmt.Println("-", apidump.Ident(l))
	}
	for _, l := range added {
		fmt.Println("+", apidump.Ident(l))
	}
	// Output:
	// - lock.ExponentialBackoff
	// - lock.Options.Retry
	// + lock.Options.Retry
}
