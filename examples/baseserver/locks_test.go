package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/lock"
)

// The presets are seed 002's table of lock scenarios, in its order.
func TestPresets(t *testing.T) {
	want := []lock.Preset{
		{Key: "scheduler:outbox_events", TTL: 300 * time.Second},
		{Key: "scheduler:create_table", TTL: 60 * time.Second},
		{Key: "scheduler:cleanup_queues", TTL: 3600 * time.Second},
		{Key: "scheduler:monthly_summary", TTL: 1800 * time.Second},
	}
	if diff := cmp.Diff(want, presets()); diff != "" {
		t.Errorf("presets (-want +got):\n%s", diff)
	}
}
