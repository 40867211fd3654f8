package crashtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/internal/crashtest"
)

func TestInjectorModes(t *testing.T) {
	for _, tc := range []struct {
		mode             crashtest.Mode
		landed           []int
		wantErr          error
		dead, cancelled  bool
		laterCallsLanded bool
	}{
		{crashtest.Fail, []int{1, 3}, crashtest.ErrInjected, false, false, true},
		{crashtest.LoseReply, []int{1, 2, 3}, crashtest.ErrInjected, false, false, true},
		{crashtest.Die, []int{1}, crashtest.ErrDead, true, true, false},
		{crashtest.DieAfter, []int{1, 2}, crashtest.ErrDead, true, true, false},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			in := crashtest.New(2, tc.mode, cancel)
			var landed []int
			var errs []error
			for i := 1; i <= 3; i++ {
				errs = append(errs, crashtest.Do(in, "call", func() error { landed = append(landed, i); return nil }))
			}
			if diff := cmp.Diff(tc.landed, landed); diff != "" {
				t.Errorf("landed (-want +got):\n%s", diff)
			}
			if !errors.Is(errs[1], tc.wantErr) {
				t.Errorf("call 2 = %v, want %v", errs[1], tc.wantErr)
			}
			if in.Dead() != tc.dead || (ctx.Err() != nil) != tc.cancelled {
				t.Errorf("dead %v cancelled %v", in.Dead(), ctx.Err() != nil)
			}
			if tc.laterCallsLanded && errs[2] != nil {
				t.Errorf("call 3 = %v", errs[2])
			}
			if !tc.laterCallsLanded && !errors.Is(errs[2], crashtest.ErrDead) {
				t.Errorf("call 3 of a dead process = %v", errs[2])
			}
			if in.Fired() != "call" {
				t.Errorf("fired at %q", in.Fired())
			}
		})
	}
}

// TestStall: a Stall fault holds its call until Resume, then lets it and
// every later call through.
func TestStall(t *testing.T) {
	in := crashtest.New(2, crashtest.Stall, nil)
	var landed []int
	done := make(chan error, 1)
	if err := crashtest.Do(in, "call", func() error { landed = append(landed, 1); return nil }); err != nil {
		t.Fatal(err)
	}
	go func() { done <- crashtest.Do(in, "call", func() error { landed = append(landed, 2); return nil }) }()
	<-in.Stalled()
	select {
	case err := <-done:
		t.Fatalf("stalled call returned %v before Resume", err)
	case <-time.After(20 * time.Millisecond):
	}
	in.Resume()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := crashtest.Do(in, "call", func() error { landed = append(landed, 3); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, landed); diff != "" {
		t.Errorf("landed (-want +got):\n%s", diff)
	}
	if in.Dead() || in.Fired() != "call" {
		t.Errorf("dead %v, fired %q", in.Dead(), in.Fired())
	}
}
