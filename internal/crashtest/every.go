package crashtest

import (
	"fmt"
	"strings"
	"testing"
)

// Flow runs a flow once with its fault at external call k in mode (no
// fault when k is 0) and returns the names of the external calls it made
// and the invariants it found violated after recovery.
type Flow func(k int, mode Mode) (calls, violations []string)

// Every runs flow once clean to list its external calls, then once per
// call (every sample-th one, plus the first and the last, when sample > 0)
// and per mode, and reports every violation as a test error. what names
// the calls in the log. It ends by printing "crash points: X covered,
// invariant violations: Y".
func Every(t *testing.T, what string, sample int, flow Flow) {
	t.Helper()
	calls, v := flow(0, Fail)
	if len(v) > 0 {
		t.Fatalf("clean run: %v", v)
	}
	t.Logf("%d external calls%s: %s", len(calls), what, strings.Join(calls, ", "))
	points, violations := 0, 0
	for k := 1; k <= len(calls); k++ {
		if sample > 0 && k%sample != 0 && k != 1 && k != len(calls) {
			continue
		}
		for _, mode := range Modes {
			_, v := flow(k, mode)
			points++
			for _, s := range v {
				violations++
				t.Errorf("crash at call %d (%s), %s: %s", k, calls[k-1], mode, s)
			}
		}
	}
	t.Logf("crash points: %d covered, invariant violations: %d", points, violations)
	fmt.Printf("%s: crash points: %d covered, invariant violations: %d\n", t.Name(), points, violations)
}
