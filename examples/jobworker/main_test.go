package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/internal/testenv"
)

// TestRun runs the example end to end: on goaws and DynamoDB Local when
// the test environment provides them (in CI it must: a missing SQS
// endpoint fails the test), else on MemQueue and the embedded engine.
// Every job ends COMPLETED with one image made by one generation.
func TestRun(t *testing.T) {
	onSQS := testenv.OptionalSQS(t) != nil
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	t.Log("\n" + got)
	if want := "queue: SQS at " + os.Getenv(testenv.SQSEndpointEnv); onSQS && !strings.Contains(got, want) {
		t.Errorf("output does not say %q", want)
	}
	for _, want := range []string{
		"reconciler: 1 unfinished jobs, 1 messages sent again",
		"reconciler again: 0 unfinished jobs",
		`job-img-crashed: COMPLETED 100% "1 image", attempts 2, generations 1, images 1`,
		`job-img-lost: COMPLETED 100% "1 image", attempts 1, generations 1, images 1`,
		`job-img-poster1: COMPLETED 100% "1 image", attempts 1, generations 1, images 1`,
		`job-img-poster2: COMPLETED 100% "1 image", attempts 1, generations 1, images 1`,
		`job-img-poster3: COMPLETED 100% "1 image", attempts 1, generations 1, images 1`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
