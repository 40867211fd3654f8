package jobworker_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/content/jobworker"
	"github.com/tablekit/tablekit/internal/testenv"
	qc "github.com/tablekit/tablekit/query/content"
)

// The lease on DynamoDB Local: one claimer wins; a live lease refuses
// others; an expired one is reclaimed; the old owner's late completion is
// refused and changes nothing; the new owner completes; a finished job
// cannot be claimed.
func TestJobLease(t *testing.T) {
	w := newWorld(t, testenv.DynamoDB(t), memQueue)
	p := w.process(t, nil)
	ctx := context.Background()
	job := content.Job{ID: "job-img-lease", EventID: "evt-1", Kind: content.KindImageGeneration}
	if err := p.svc.CreateJob(ctx, &job); err != nil {
		t.Fatal(err)
	}

	// 16 workers claim at once: exactly one wins.
	var wins atomic.Int64
	var winner string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := string(rune('a' + i))
			j, err := p.svc.ClaimJob(ctx, job.ID, owner, lease)
			switch {
			case err == nil:
				wins.Add(1)
				mu.Lock()
				winner = owner
				mu.Unlock()
				if j.Status != content.StatusProcessing || j.LeaseOwner != owner || j.Attempts != 1 {
					t.Errorf("claimed job = %+v", j)
				}
			case !errors.Is(err, content.ErrLeaseHeld):
				t.Errorf("losing claim: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d claims won", wins.Load())
	}
	var le *content.LeaseError
	if _, err := p.svc.ClaimJob(ctx, job.ID, "late", lease); !errors.As(err, &le) || le.Holder != winner {
		t.Fatalf("claim under a live lease: %v", err)
	}
	// The winner crashes; its lease runs out; "b2" reclaims.
	w.clk.Advance(lease + time.Second)
	j, err := p.svc.ClaimJob(ctx, job.ID, "b2", lease)
	if err != nil || j.LeaseOwner != "b2" || j.Attempts != 2 {
		t.Fatalf("reclaim: %+v, %v", j, err)
	}
	// The crashed winner comes back: its completion is refused.
	if _, err := p.svc.CompleteJobAs(ctx, job.ID, winner, "late result"); !errors.Is(err, content.ErrLeaseLost) {
		t.Fatalf("late completion = %v, want ErrLeaseLost", err)
	}
	if _, err := p.svc.RenewJob(ctx, job.ID, winner, lease); !errors.Is(err, content.ErrLeaseLost) {
		t.Fatalf("late renewal = %v, want ErrLeaseLost", err)
	}
	cur, err := qc.JobByID(ctx, p.tbl, job.ID, entity.ConsistentRead)
	if err != nil || cur.Status != content.StatusProcessing || cur.ResultMessage != "" {
		t.Fatalf("after the refused completion: %+v, %v", cur, err)
	}
	done, err := p.svc.CompleteJobAs(ctx, job.ID, "b2", "1 image")
	if err != nil || done.Status != content.StatusCompleted || done.Progress != 100 {
		t.Fatalf("owner's completion: %+v, %v", done, err)
	}
	// Repeated (a retry after a lost reply): the same answer.
	if again, err := p.svc.CompleteJobAs(ctx, job.ID, "b2", "1 image"); err != nil || again.Status != content.StatusCompleted {
		t.Fatalf("repeated completion: %+v, %v", again, err)
	}
	var te *content.TransitionError
	if _, err := p.svc.ClaimJob(ctx, job.ID, "c3", lease); !errors.As(err, &te) || te.From != content.StatusCompleted {
		t.Fatalf("claim of a finished job = %v", err)
	}
	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			id, owner string
			lease     time.Duration
		}{{"", "o", lease}, {"bad", "o", lease}, {job.ID, "", lease}, {job.ID, "o", 0}} {
			if _, err := p.svc.ClaimJob(ctx, tc.id, tc.owner, tc.lease); !errors.Is(err, entity.ErrValidation) {
				t.Errorf("ClaimJob(%q, %q, %v) = %v, want a validation error", tc.id, tc.owner, tc.lease, err)
			}
		}
		if _, err := p.svc.ClaimJob(ctx, "job-img-missing", "o", lease); !errors.Is(err, entity.ErrNotFound) {
			t.Errorf("ClaimJob(missing) = %v, want ErrNotFound", err)
		}
	})
}

// A worker whose lease is lost while generating sees its ctx cancelled
// and its completion refused.
func TestWorkerLosesLease(t *testing.T) {
	w := newWorld(t, testenv.DynamoDB(t), memQueue)
	ctx := context.Background()
	tbl := content.NewTable(w.raw, w.name)
	svc := content.NewService(tbl) // real clock: the heartbeat runs
	job := content.Job{ID: "job-img-lost", EventID: "evt-1", Kind: content.KindImageGeneration}
	if err := svc.CreateJob(ctx, &job); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	cancelled := make(chan error, 1)
	wk, err := jobworker.New(svc, tbl, func(context.Context, jobworker.Message) error { return nil },
		func(ctx context.Context, j content.Job) (string, error) {
			close(started)
			<-ctx.Done()
			cancelled <- context.Cause(ctx)
			return "too late", nil
		}, func(o *jobworker.Options) { o.Lease = 600 * time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		res <- wk.Handle(ctx, consumer.Message[jobworker.Message]{Body: jobworker.Message{JobID: job.ID}})
	}()
	<-started
	// Another worker takes the job over (as after an expired lease).
	time.Sleep(700 * time.Millisecond)
	other := content.NewService(tbl, func(o *content.Options) { o.Now = func() time.Time { return time.Now().Add(time.Hour) } })
	if _, err := other.ClaimJob(ctx, job.ID, "other", time.Hour); err != nil && !errors.Is(err, content.ErrLeaseHeld) {
		t.Fatal(err)
	}
	select {
	case cause := <-cancelled:
		if !errors.Is(cause, content.ErrLeaseLost) {
			t.Fatalf("generation ctx cause = %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("generation not cancelled after the lease was lost")
	}
	if err := <-res; err != nil {
		t.Fatalf("Handle = %v, want nil (the job is the other worker's)", err)
	}
	j, _ := qc.JobByID(ctx, tbl, job.ID, entity.ConsistentRead)
	if j.Status != content.StatusProcessing || j.LeaseOwner != "other" {
		t.Fatalf("job = %+v, want PROCESSING under the other worker", j)
	}
}
