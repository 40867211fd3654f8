package main

import (
	"os"
	"testing"
)

// TestRun runs the example end to end (on DynamoDB Local and on goaws when
// the test environment provides them, else embedded and on MemQueue).
func TestRun(t *testing.T) {
	main()
}

// TestRunTraced runs the example once more with its OpenTelemetry spans
// written to stdout (PARTICIPATION_TRACE=stdout): the test output shows
// each request and delivery as a span, requests under deliveries.
func TestRunTraced(t *testing.T) {
	t.Setenv("PARTICIPATION_TRACE", "stdout")
	main()
	_ = os.Stdout.Sync()
}
