package retry_test

import (
	"fmt"
	"time"

	"github.com/tablekit/tablekit/retry"
)

// A strategy that retries three times with jittered exponential waits.
func Example() {
	s := retry.Limit(retry.Exponential(10*time.Millisecond, time.Second), 3)
	for attempt := 1; ; attempt++ {
		wait, ok := s.Backoff(attempt)
		if !ok {
			fmt.Println("gave up before retry", attempt)
			break
		}
		fmt.Println("retry", attempt, "within", wait <= 10*time.Millisecond<<(attempt-1))
	}
	// Output:
	// retry 1 within true
	// retry 2 within true
	// retry 3 within true
	// gave up before retry 4
}
