// Package jobworker runs the image-generation jobs of seed 003 crash-safely
// on package consumer's at-least-once loop.
//
// A job is created PENDING ([content.Service.CreateJob]) and a [Message]
// naming it is sent to a queue. [Worker.Handle] (the consumer's handler)
// claims the job under a lease ([content.Service.ClaimJob]: PENDING ->
// PROCESSING with leaseOwner and leaseUntil), renews the lease while the
// generation runs, and finishes it as the owner
// ([content.Service.CompleteJobAs] or FailJobAs). So:
//
//   - a duplicate delivery of a finished job changes nothing;
//   - a delivery while another worker's lease is live is retried later;
//   - a worker that crashed in PROCESSING stops renewing; once its lease
//     has run out, the redelivered message (or [Worker.Reconcile]) lets
//     another worker reclaim the job, and the crashed worker's late
//     completion is refused with content.ErrLeaseLost;
//   - after MaxAttempts claims the job ends FAILED;
//   - [Worker.Reconcile] finds jobs stuck PENDING (the message was never
//     sent, or was lost) or PROCESSING with an expired lease through the
//     JOBSTATUS# partitions of GSI2 (only unfinished jobs are read, never
//     a scan) and sends their message again or fails them.
//
// Every job therefore ends COMPLETED or FAILED. The crash-point tests
// prove it call by call with the queue in process (consumer.MemQueue:
// TestCrashJobFlow) and on an SQS-compatible server (goaws, through
// consumer/sqsqueue: TestCrashJobFlowSQS, TestCrashJobFlowSQSDuplicateDelivery,
// TestCrashJobFlowSQSExpiredReceipt for a receipt handle used after the
// visibility timeout). examples/jobworker runs the flow (duplicate
// deliveries, a worker that died holding a job, a lost send) on SQS when
// TABLEKIT_SQS_ENDPOINT names an endpoint, else on consumer.MemQueue.
package jobworker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
)

// Message asks a worker to run a job.
type Message struct {
	JobID string
}

// Generate does the work of a job (the seed's external API call, CDN
// upload and image inserts) and returns the result message. ctx ends when
// the lease is lost or the worker shuts down. It may run more than once
// for a job (after a crash), so its writes must be idempotent (for
// instance images keyed by job).
type Generate func(ctx context.Context, j content.Job) (resultMessage string, err error)

// Options configures a [Worker]. The zero value is valid.
type Options struct {
	// ID names the worker process in lease owners. Default random.
	ID string
	// Lease is the job lease. Default 30 s.
	Lease time.Duration
	// Heartbeat is how often a running job's lease is renewed. Default
	// Lease/3.
	Heartbeat time.Duration
	// MaxAttempts is the number of claims after which a job is failed
	// instead of run again. Default 3.
	MaxAttempts int
	// StuckAfter is how long a job may stay PENDING before Reconcile
	// sends its message again. Default 1 min.
	StuckAfter time.Duration
	// Publish, when set, is called after every job write with the job as
	// written (the seed's Redis write-through); its error is ignored: the
	// table is the truth and the cache entry expires.
	Publish func(ctx context.Context, j content.Job) error
	// Now is the clock of Reconcile. Default time.Now.
	Now func() time.Time
}

// Worker runs jobs. It is safe for concurrent use.
type Worker struct {
	svc  *content.Service
	tbl  *entity.Table
	send func(ctx context.Context, m Message) error
	gen  Generate
	o    Options
}

// New returns a Worker on svc (whose table is tbl) running gen; send
// enqueues a job's message (Reconcile uses it). It returns an error
// matching consumer.ErrInvalidOptions for nil arguments or bad options.
func New(svc *content.Service, tbl *entity.Table, send func(context.Context, Message) error, gen Generate, optFns ...func(*Options)) (*Worker, error) {
	if svc == nil || tbl == nil || send == nil || gen == nil {
		return nil, fmt.Errorf("%w: jobworker: nil service, table, send or generate", consumer.ErrInvalidOptions)
	}
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.ID == "" {
		o.ID = newID()
	}
	if o.Lease == 0 {
		o.Lease = 30 * time.Second
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = o.Lease / 3
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 3
	}
	if o.StuckAfter == 0 {
		o.StuckAfter = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Lease < 0 || o.Heartbeat <= 0 || o.Heartbeat >= o.Lease || o.MaxAttempts < 0 || o.StuckAfter < 0 {
		return nil, fmt.Errorf("%w: jobworker: Lease %v, Heartbeat %v, MaxAttempts %d, StuckAfter %v", consumer.ErrInvalidOptions, o.Lease, o.Heartbeat, o.MaxAttempts, o.StuckAfter)
	}
	return &Worker{svc: svc, tbl: tbl, send: send, gen: gen, o: o}, nil
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (w *Worker) publish(ctx context.Context, j content.Job) {
	if w.o.Publish != nil && j.ID != "" {
		_ = w.o.Publish(ctx, j)
	}
}

// Handle is the consumer handler of a job message. It returns nil when the
// job is finished (by this delivery or an earlier one), and an error to
// have the message delivered again (the job is leased by a live worker, or
// a write failed).
func (w *Worker) Handle(ctx context.Context, m consumer.Message[Message]) error {
	owner := w.o.ID + "/" + newID() // one token per claim
	j, err := w.svc.ClaimJob(ctx, m.Body.JobID, owner, w.o.Lease)
	var te *content.TransitionError
	switch {
	case errors.As(err, &te):
		return nil // finished already: a duplicate delivery
	case err != nil:
		return err
	}
	w.publish(ctx, j)
	if j.Attempts > w.o.MaxAttempts {
		j, err = w.svc.FailJobAs(ctx, j.ID, owner, fmt.Sprintf("gave up after %d attempts", j.Attempts-1))
		if err == nil {
			w.publish(ctx, j)
		}
		return ignoreLost(err)
	}
	result, genErr := w.run(ctx, j, owner)
	if ctx.Err() != nil && genErr != nil {
		return genErr // shutting down or dying: the lease runs out, the job is reclaimed
	}
	if genErr != nil {
		j, err = w.svc.FailJobAs(ctx, j.ID, owner, genErr.Error())
	} else {
		j, err = w.svc.CompleteJobAs(ctx, j.ID, owner, result)
	}
	if err == nil {
		w.publish(ctx, j)
	}
	return ignoreLost(err)
}

// ignoreLost: a refused late write means the job is another worker's now;
// this message is done with.
func ignoreLost(err error) error {
	if errors.Is(err, content.ErrLeaseLost) {
		return nil
	}
	return err
}

// run calls gen with a lease heartbeat; gen's ctx ends if the lease is
// lost.
func (w *Worker) run(ctx context.Context, j content.Job, owner string) (string, error) {
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(w.o.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-gctx.Done():
				return
			case <-t.C:
				rctx, rcancel := context.WithTimeout(gctx, w.o.Heartbeat)
				_, err := w.svc.RenewJob(rctx, j.ID, owner, w.o.Lease)
				rcancel()
				if errors.Is(err, content.ErrLeaseLost) {
					cancel(err)
					return
				}
			}
		}
	}()
	res, err := w.gen(gctx, j)
	close(stop)
	<-done
	if cause := context.Cause(gctx); errors.Is(cause, content.ErrLeaseLost) && err == nil {
		err = cause
	}
	return res, err
}

// DeadLetter is the consumer's final-failure hook: it fails the job (after
// claiming it, if its lease has run out) so that it does not stay
// PENDING or PROCESSING. A job under a live lease, or a write error,
// returns an error: the message comes back and the hook runs again.
func (w *Worker) DeadLetter(ctx context.Context, m consumer.Message[Message], cause error) error {
	owner := w.o.ID + "/" + newID()
	j, err := w.svc.ClaimJob(ctx, m.Body.JobID, owner, w.o.Lease)
	var te *content.TransitionError
	switch {
	case errors.As(err, &te):
		return nil
	case err != nil:
		return err
	}
	j, err = w.svc.FailJobAs(ctx, j.ID, owner, fmt.Sprintf("dead letter after %d deliveries: %v", m.ReceiveCount, cause))
	if err == nil {
		w.publish(ctx, j)
	}
	return ignoreLost(err)
}

// ReconcileStats counts what one [Worker.Reconcile] pass did.
type ReconcileStats struct {
	// Seen counts the unfinished jobs read; Resent the messages sent
	// again; Failed the jobs failed after MaxAttempts.
	Seen, Resent, Failed int
}

// Reconcile is one pass over the unfinished jobs (the JOBSTATUS#PENDING
// and JOBSTATUS#PROCESSING partitions of GSI2): a job PENDING for longer
// than StuckAfter, or PROCESSING with an expired lease, gets its message
// sent again (the next claim reclaims it); one already claimed
// MaxAttempts times is failed here. Run it periodically (under a lock if
// several processes run it; two passes at once only send duplicates).
func (w *Worker) Reconcile(ctx context.Context) (ReconcileStats, error) {
	var st ReconcileStats
	now := w.o.Now().UTC()
	for _, status := range []content.Status{content.StatusPending, content.StatusProcessing} {
		after := ""
		for {
			page, err := qc.JobsByStatus(ctx, w.tbl, status, query.PageOptions{Limit: 100, After: after})
			if err != nil {
				return st, err
			}
			for _, j := range page.Items {
				st.Seen++
				if err := w.reconcileOne(ctx, j, now, &st); err != nil {
					return st, err
				}
			}
			if after = page.Next; after == "" {
				break
			}
		}
	}
	return st, nil
}

func (w *Worker) reconcileOne(ctx context.Context, j content.Job, now time.Time, st *ReconcileStats) error {
	switch {
	case j.Status == content.StatusPending && now.Sub(j.CreatedAt) < w.o.StuckAfter:
		return nil
	case j.Status == content.StatusProcessing && j.LeaseUntil.After(now):
		return nil
	case j.Status == content.StatusProcessing && j.Attempts >= w.o.MaxAttempts:
		owner := w.o.ID + "/reconcile/" + newID()
		cj, err := w.svc.ClaimJob(ctx, j.ID, owner, w.o.Lease)
		var te *content.TransitionError
		if errors.As(err, &te) || errors.Is(err, content.ErrLeaseHeld) {
			return nil // finished or taken meanwhile
		}
		if err != nil {
			return err
		}
		cj, err = w.svc.FailJobAs(ctx, cj.ID, owner, fmt.Sprintf("reconciler: gave up after %d attempts", j.Attempts))
		if err == nil {
			st.Failed++
			w.publish(ctx, cj)
		}
		return ignoreLost(err)
	}
	if err := w.send(ctx, Message{JobID: j.ID}); err != nil {
		return err
	}
	st.Resent++
	return nil
}
