package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/internal/testenv"
)

// TestRun runs the example end to end: on goaws and DynamoDB Local when
// the test environment provides them (in CI it must: a missing SQS
// endpoint fails the test), else on MemQueue and the embedded engine.
func TestRun(t *testing.T) {
	onSQS := testenv.OptionalSQS(t) != nil
	out := stdout(t, main)
	if want := "queue: SQS at " + os.Getenv(testenv.SQSEndpointEnv); onSQS && !strings.Contains(out, want) {
		t.Errorf("output does not say %q", want)
	}
	for _, want := range []string{"concert-2025 capacity: 0 of 3 left", "reconciler: 0 requests stuck"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestRunTraced runs the example once more with its OpenTelemetry spans
// written to stdout (PARTICIPATION_TRACE=stdout): the test output shows
// each request and delivery as a span, requests under deliveries.
func TestRunTraced(t *testing.T) {
	t.Setenv("PARTICIPATION_TRACE", "stdout")
	main()
	_ = os.Stdout.Sync()
}

// stdout runs f with os.Stdout captured, writes what f wrote to the real
// stdout too, and returns it.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	real := os.Stdout
	os.Stdout = w
	var buf bytes.Buffer
	copied := make(chan struct{})
	go func() { defer close(copied); _, _ = io.Copy(io.MultiWriter(&buf, real), r) }()
	defer func() {
		os.Stdout = real
		_ = w.Close()
		<-copied
		_ = r.Close()
	}()
	f()
	os.Stdout = real
	_ = w.Close()
	<-copied
	return buf.String()
}
