package bench

import (
	"context"
	"strconv"
	"testing"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/internal/crashtest"
)

// lastMessage is a queue that keeps the message just sent, for the
// worker step of the same iteration.
type lastMessage struct{ m participation.Message }

func (q *lastMessage) Send(_ context.Context, m participation.Message) error { q.m = m; return nil }

// BenchmarkParticipation/Flow is one participation of seed 004 end to end
// on the embedded engine: the click (Participate: lock, request, send,
// QUEUED) and the worker's delivery (Process: PROCESSING, capacity,
// SUCCEEDED). It reports the DynamoDB calls per participation
// (ddbcalls/op), counted at the client.
func BenchmarkParticipation(b *testing.B) {
	b.Run("Flow", func(b *testing.B) {
		ctx := context.Background()
		count := crashtest.New(0, crashtest.Fail, nil) // counts, never fires
		client := &crashtest.Client{Client: ddbmem.New(), In: count}
		tbl := participation.NewTable(client, "BenchParticipation")
		if err := tbl.EnsureTable(ctx); err != nil {
			b.Fatal(err)
		}
		q := &lastMessage{}
		svc := participation.NewService(tbl, q)
		if _, err := svc.CreateCapacity(ctx, "ev-bench", 1<<40); err != nil {
			b.Fatal(err)
		}
		start := count.Calls()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			rc, err := svc.Participate(ctx, "ev-bench", "user-"+strconv.Itoa(i), participation.ModeFirstCome)
			if err != nil || rc.Duplicate {
				b.Fatalf("participate: %+v %v", rc, err)
			}
			r, decided, err := svc.Process(ctx, q.m)
			if err != nil || !decided || r.Status != participation.StatusSucceeded {
				b.Fatalf("process: %s decided=%v err=%v", r.Status, decided, err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(count.Calls()-start)/float64(b.N), "ddbcalls/op")
	})
}
