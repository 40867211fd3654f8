package jobworker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/content/jobworker"
	"github.com/tablekit/tablekit/internal/crashtest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
	"github.com/tablekit/tablekit/retry"
)

const lease = time.Minute

// world is one run of the content job flow: a table, a queue, a cache.
type world struct {
	raw   entity.Client
	name  string
	clk   *crashtest.Clock
	q     crashtest.WorldQueue[jobworker.Message]
	mu    sync.Mutex
	cache map[string]content.Status // the Redis job cache (write-through)
	gens  map[string]int            // generations run per job
}

// queueOf makes the queue of a world: [memQueue] or [sqsQueue].
type queueOf func(t testing.TB) crashtest.WorldQueue[jobworker.Message]

// memQueue is the in-process queue (visibility timeout 30 s: a crashed
// delivery comes back with Redeliver).
func memQueue(t testing.TB) crashtest.WorldQueue[jobworker.Message] {
	return crashtest.MemWorld[jobworker.Message]{MemQueue: consumer.NewMemQueue(func(o *consumer.MemQueueOptions[jobworker.Message]) { o.WaitTime = 5 * time.Millisecond })}
}

// sqsQueue is a fresh queue on goaws per world (testenv.PrivateSQS: the
// test process's own goaws; in CI a missing server fails the test); a
// crashed delivery comes back with Redeliver.
func sqsQueue(t testing.TB) crashtest.WorldQueue[jobworker.Message] {
	return crashtest.SQS[jobworker.Message](t, testenv.PrivateSQS(t), time.Hour)
}

func newWorld(t testing.TB, raw entity.Client, newQ queueOf) *world {
	t.Helper()
	w := &world{
		raw: raw, name: testenv.UniqueName("crashjobs"),
		// Real time: items carry TTLs, which DynamoDB Local enforces.
		clk:   crashtest.NewClock(time.Now().UTC()),
		q:     newQ(t),
		cache: map[string]content.Status{}, gens: map[string]int{},
	}
	tbl := content.NewTable(raw, w.name)
	if err := tbl.EnsureTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	return w
}

// process is one process of the flow (API and worker) on client c.
type process struct {
	w      *world
	tbl    *entity.Table
	svc    *content.Service
	q      *crashtest.Queue[jobworker.Message]
	worker *jobworker.Worker
	c      *consumer.Consumer[jobworker.Message]
}

func (w *world) process(t testing.TB, in *crashtest.Injector) *process {
	t.Helper()
	client := &crashtest.Client{Client: w.raw, In: in}
	tbl := content.NewTable(client, w.name)
	svc := content.NewService(tbl, func(o *content.Options) { o.Now = w.clk.Now })
	q := &crashtest.Queue[jobworker.Message]{Q: w.q, In: in}
	p := &process{w: w, tbl: tbl, svc: svc, q: q}
	var err error
	p.worker, err = jobworker.New(svc, tbl, q.Send, p.generate, func(o *jobworker.Options) {
		o.Lease = lease
		o.Heartbeat = lease / 2 // never beats within a test: the call sequence is fixed
		o.MaxAttempts = 3
		o.StuckAfter = time.Minute
		o.Now = w.clk.Now
		o.Publish = func(ctx context.Context, j content.Job) error {
			return crashtest.Do(in, "Cache.PutJob", func() error {
				w.mu.Lock()
				w.cache[j.ID] = j.Status
				w.mu.Unlock()
				return nil
			})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	p.c, err = consumer.New[jobworker.Message](q, p.worker.Handle, func(o *consumer.Options[jobworker.Message]) {
		o.Concurrency = 1
		o.MaxReceives = 6
		o.Retry = retry.Constant(time.Millisecond)
		o.DeadLetter = p.worker.DeadLetter
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// generate stores the job's image under an ID derived from the job, so a
// second run (after a crash) finds it and does not add another.
func (p *process) generate(ctx context.Context, j content.Job) (string, error) {
	p.w.mu.Lock()
	p.w.gens[j.ID]++
	p.w.mu.Unlock()
	g := content.NewImage(j.EventID, content.StyleSimple, content.PlatformInstagram, "https://cdn.example/"+j.ID+".png", "a poster")
	g.ID = "img-" + strings.TrimPrefix(j.ID, content.JobIDPrefix)
	err := p.svc.AddImage(ctx, &g)
	if err != nil && !errors.Is(err, entity.ErrAlreadyExists) {
		return "", err
	}
	return "1 image", nil
}

// submit is the API: create the job and send its message. A retried
// submit finds the job created and sends again.
func (p *process) submit(ctx context.Context, jobID string) error {
	j := content.Job{ID: jobID, EventID: "evt-crash", Kind: content.KindImageGeneration}
	if err := p.svc.CreateJob(ctx, &j); err != nil && !errors.Is(err, entity.ErrAlreadyExists) {
		return err
	}
	return p.q.Send(ctx, jobworker.Message{JobID: jobID})
}

// drain runs the process's consumer until the queue is empty, the process
// died, or nothing visible is left to do (the rest is hidden: the
// leftovers of a crash, which come back with Redeliver).
func (p *process) drain(ctx context.Context, in *crashtest.Injector, limit time.Duration) {
	crashtest.Drain(ctx, in, limit, p.c.Run, func() (int, int, int) {
		queued, inFlight, err := p.w.q.Counts(ctx)
		if err != nil {
			return 1, 0, 1 // keep going: the next poll asks again
		}
		return queued, inFlight, int(p.c.Metrics().InFlight)
	})
}

// flow runs the whole job flow with a fault at call k (0: none) and
// recovers; it returns the calls of the faulty run and the violations.
func flow(t testing.TB, raw entity.Client, newQ queueOf, k int, mode crashtest.Mode) (calls []string, violations []string) {
	w := newWorld(t, raw, newQ)
	ctx := context.Background()
	pctx, kill := context.WithCancel(ctx)
	defer kill()
	in := crashtest.New(k, mode, kill)
	a := w.process(t, in)
	jobIDs := []string{"job-img-a1", "job-img-b2"}
	for _, id := range jobIDs {
		if err := a.submit(pctx, id); err != nil {
			// The client sees the error and retries (below, on a live process).
			break
		}
	}
	a.drain(pctx, in, 2*time.Second)
	calls = in.Names()

	// Recovery: a new process; the client's retried submits; the lease
	// runs out; reconciler passes, redeliveries.
	bin := crashtest.New(0, crashtest.Fail, nil)
	b := w.process(t, bin)
	for _, id := range jobIDs {
		if err := b.submit(ctx, id); err != nil {
			violations = append(violations, fmt.Sprintf("retried submit %s: %v", id, err))
		}
	}
	const maxPasses = 6
	passes := 0
	for ; passes < maxPasses; passes++ {
		w.clk.Advance(lease + time.Second)
		if _, err := b.worker.Reconcile(ctx); err != nil {
			violations = append(violations, fmt.Sprintf("reconcile: %v", err))
		}
		if err := w.q.Redeliver(ctx); err != nil {
			violations = append(violations, fmt.Sprintf("redeliver: %v", err))
		}
		b.drain(ctx, bin, 2*time.Second)
		if allFinal(ctx, t, b, jobIDs) {
			break
		}
	}
	if passes == maxPasses {
		violations = append(violations, fmt.Sprintf("jobs not final after %d reconciler passes", maxPasses))
	}
	// What is left on the queue (copies sent by a retried submit or the
	// reconciler) is delivered too, and changes nothing.
	b.drain(ctx, bin, 2*time.Second)
	for _, id := range jobIDs {
		j, err := qc.JobByID(ctx, b.tbl, id, entity.ConsistentRead)
		if err != nil {
			violations = append(violations, fmt.Sprintf("%s: %v", id, err))
			continue
		}
		if j.Status != content.StatusCompleted && j.Status != content.StatusFailed {
			violations = append(violations, fmt.Sprintf("%s ended %s", id, j.Status))
		}
		if j.Status == content.StatusCompleted && j.Progress != 100 {
			violations = append(violations, fmt.Sprintf("%s COMPLETED at progress %d", id, j.Progress))
		}
		imgs, err := qc.ImagesOfEvent(ctx, b.tbl, "evt-crash", query.PageOptions{Limit: 100, ConsistentRead: true})
		if err != nil {
			violations = append(violations, err.Error())
			continue
		}
		n := 0
		for _, g := range imgs.Items {
			if g.ID == "img-"+strings.TrimPrefix(id, content.JobIDPrefix) {
				n++
			}
		}
		if j.Status == content.StatusCompleted && n != 1 {
			violations = append(violations, fmt.Sprintf("%s COMPLETED with %d images", id, n))
		}
	}
	return calls, violations
}

func allFinal(ctx context.Context, t testing.TB, p *process, ids []string) bool {
	for _, id := range ids {
		j, err := qc.JobByID(ctx, p.tbl, id, entity.ConsistentRead)
		if err != nil || (j.Status != content.StatusCompleted && j.Status != content.StatusFailed) {
			return false
		}
	}
	return true
}

// crashAll runs the flow once clean to list its external calls, then
// once per call and mode with the fault at that call.
func crashAll(t *testing.T, raw func() entity.Client, newQ queueOf, sample int) {
	crashtest.Every(t, "", sample, func(k int, mode crashtest.Mode) ([]string, []string) {
		return flow(t, raw(), newQ, k, mode)
	})
}

// TestCrashJobFlow: the content job flow (submit: CreateJob, send; worker:
// claim, image write, completion, cache write-through) survives a fault
// at every external call, in every mode: every job ends COMPLETED (with
// exactly one image) or FAILED within a bounded number of reconciler
// passes.
func TestCrashJobFlow(t *testing.T) {
	crashAll(t, func() entity.Client { return ddbmem.New() }, memQueue, 0)
}

// TestCrashJobFlowDynamoDBLocal runs a sample of the points on DynamoDB
// Local.
func TestCrashJobFlowDynamoDBLocal(t *testing.T) {
	db := testenv.DynamoDB(t)
	crashAll(t, func() entity.Client { return db }, memQueue, 4)
}

// TestCrashJobFlowSQS runs TestCrashJobFlow with its queue on goaws (a
// fresh SQS queue per run, through consumer/sqsqueue), every crash point
// enumerated in every mode: among them the send that lands before the
// process dies, and a Delete that fails or whose process dies (the
// message comes back: a duplicate delivery of a finished job).
func TestCrashJobFlowSQS(t *testing.T) {
	crashAll(t, func() entity.Client { return ddbmem.New() }, sqsQueue, 0)
}
