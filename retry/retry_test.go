package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/retry"
)

func TestStrategies(t *testing.T) {
	if _, ok := retry.Never().Backoff(1); ok {
		t.Error("Never retried")
	}
	if w, ok := retry.Constant(7 * time.Millisecond).Backoff(9); !ok || w != 7*time.Millisecond {
		t.Errorf("Constant = %v, %v", w, ok)
	}
	if w, _ := retry.Constant(0).Backoff(1); w != time.Millisecond {
		t.Errorf("Constant(0) = %v", w)
	}
	e := retry.Exponential(10*time.Millisecond, 80*time.Millisecond)
	for attempt, ceil := range map[int]time.Duration{1: 10 * time.Millisecond, 2: 20 * time.Millisecond, 4: 80 * time.Millisecond, 50: 80 * time.Millisecond} {
		for range 100 {
			w, ok := e.Backoff(attempt)
			if !ok || w < ceil/2 || w > ceil {
				t.Fatalf("Exponential.Backoff(%d) = %v, %v; want [%v, %v]", attempt, w, ok, ceil/2, ceil)
			}
		}
	}
	l := retry.Limit(retry.Constant(time.Millisecond), 3)
	var got []bool
	for a := 1; a <= 5; a++ {
		_, ok := l.Backoff(a)
		got = append(got, ok)
	}
	if diff := cmp.Diff([]bool{true, true, true, false, false}, got); diff != "" {
		t.Errorf("Limit (-want +got):\n%s", diff)
	}
}

func TestSleep(t *testing.T) {
	if err := retry.Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if retry.Fits(ctx, time.Hour) {
		t.Error("an hour fits in 10 ms")
	}
	start := time.Now()
	if err := retry.Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sleep past deadline = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Error("Sleep did not stop at the deadline")
	}
}
