package participation_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	p "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/internal/crashtest"
	"github.com/tablekit/tablekit/internal/testenv"
	qp "github.com/tablekit/tablekit/query/participation"
	"github.com/tablekit/tablekit/retry"
)

const (
	stuckAfter    = time.Minute
	maxReenqueues = 2
	crashEvent    = "evt-crash"
)

// crashWorld is one run of seed 004: a table, a queue, a clock.
type crashWorld struct {
	raw  entity.Client
	name string
	clk  *crashtest.Clock
	q    crashtest.WorldQueue[p.Message]
	// statusLog turns on the seed's audit log (every transition becomes a
	// transaction with a RequestStatusLog put).
	statusLog bool
}

// queueOf makes the queue of a crash world: [crashMem] or [crashSQS].
type queueOf func(t testing.TB) crashtest.WorldQueue[p.Message]

// crashMem is the in-process queue of a crash world: a crashed delivery
// comes back when the test says (Redeliver).
func crashMem(optFns ...func(*consumer.MemQueueOptions[p.Message])) queueOf {
	return func(testing.TB) crashtest.WorldQueue[p.Message] {
		return crashtest.MemWorld[p.Message]{MemQueue: consumer.NewMemQueue(append([]func(*consumer.MemQueueOptions[p.Message]){func(o *consumer.MemQueueOptions[p.Message]) {
			o.WaitTime = 5 * time.Millisecond
			o.VisibilityTimeout = time.Hour
		}}, optFns...)...)}
	}
}

// crashSQS is a fresh queue on goaws per world (testenv.PrivateSQS: the
// test process's own goaws; in CI a missing server fails the test), with
// the visibility timeout
// visibility: an hour for the crash-point runs (a crashed delivery comes
// back when the test says), seconds to let goaws's own timeout expire.
func crashSQS(visibility time.Duration) queueOf {
	return func(t testing.TB) crashtest.WorldQueue[p.Message] {
		return crashtest.SQS[p.Message](t, testenv.PrivateSQS(t), visibility)
	}
}

func newCrashWorld(t testing.TB, raw entity.Client, capacity int64, newQ queueOf) *crashWorld {
	t.Helper()
	w := &crashWorld{
		raw: raw, name: testenv.UniqueName("crash004"),
		clk: crashtest.NewClock(time.Now().UTC()),
		q:   newQ(t),
	}
	tbl := p.NewTable(raw, w.name)
	ctx := context.Background()
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	if _, err := p.NewService(tbl, nil).CreateCapacity(ctx, crashEvent, capacity); err != nil {
		t.Fatal(err)
	}
	return w
}

// crashProcess is one process: API, worker and reconciler on one client.
type crashProcess struct {
	in  *crashtest.Injector
	tbl *entity.Table
	svc *p.Service
	q   *crashtest.Queue[p.Message]
	c   *consumer.Consumer[p.Message]
}

func (w *crashWorld) process(t testing.TB, in *crashtest.Injector, concurrency int) *crashProcess {
	t.Helper()
	tbl := p.NewTable(&crashtest.Client{Client: w.raw, In: in}, w.name)
	q := &crashtest.Queue[p.Message]{Q: w.q, In: in}
	svc := p.NewService(tbl, q, func(o *p.Options) {
		o.Now = w.clk.Now
		o.StuckAfter = stuckAfter
		o.MaxReenqueues = maxReenqueues
		o.OpenShards = 2
		o.StatusLog = w.statusLog
		o.Retry = retry.Exponential(time.Millisecond, 10*time.Millisecond)
	})
	pr := &crashProcess{in: in, tbl: tbl, svc: svc, q: q}
	var err error
	pr.c, err = consumer.New[p.Message](q, func(ctx context.Context, m consumer.Message[p.Message]) error {
		_, _, err := svc.Process(ctx, m.Body)
		return err
	}, func(o *consumer.Options[p.Message]) {
		o.Concurrency = concurrency
		o.MaxReceives = 4
		o.Retry = retry.Constant(time.Millisecond)
		o.DeadLetter = func(ctx context.Context, m consumer.Message[p.Message], cause error) error {
			r, err := qp.Request(ctx, tbl, m.Body.RequestID, entity.ConsistentRead)
			if errors.Is(err, entity.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			var te *p.TransitionError
			if err := svc.Fail(ctx, &r, p.FailureTransient, p.ErrorProcessing, cause.Error()); err != nil && !errors.As(err, &te) {
				return err
			}
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// drain runs the process's consumer until the queue is empty, the process
// died, or nothing visible is left to do (the rest is hidden: in flight
// elsewhere, or the leftovers of a crash).
func (pr *crashProcess) drain(ctx context.Context, w *crashWorld, limit time.Duration) {
	crashtest.Drain(ctx, pr.in, limit, pr.c.Run, func() (int, int, int) {
		queued, inFlight, err := w.q.Counts(ctx)
		if err != nil {
			return 1, 0, 1 // keep going: the next poll asks again
		}
		return queued, inFlight, int(pr.c.Metrics().InFlight)
	})
}

// click is one click; it records what the user saw.
type click struct {
	user string
	rc   p.Receipt
	err  error
}

// crashFlow runs seed 004 with a fault at call k (0: none) in mode, then
// recovers (new process, users click again, reconciler passes and
// redeliveries) and checks the invariants. It returns the calls of the
// faulty run and the violations.
func crashFlow(t testing.TB, raw entity.Client, newQ queueOf, statusLog bool, k int, mode crashtest.Mode) (calls []string, violations []string) {
	const capacity = 2
	users := []string{"u1", "u2", "u3"}
	w := newCrashWorld(t, raw, capacity, newQ)
	w.statusLog = statusLog
	ctx := context.Background()
	pctx, kill := context.WithCancel(ctx)
	defer kill()
	in := crashtest.New(k, mode, kill)
	a := w.process(t, in, 1)
	bad := func(format string, args ...any) { violations = append(violations, fmt.Sprintf(format, args...)) }

	// Phase A: u1 clicks twice, the others once; the worker drains.
	var clicks []click
	for _, u := range []string{"u1", "u1", "u2", "u3"} {
		rc, err := a.svc.Participate(pctx, crashEvent, u, p.ModeFirstCome)
		clicks = append(clicks, click{u, rc, err})
		if in.Dead() {
			break
		}
	}
	a.drain(pctx, w, 2*time.Second)
	calls = in.Names()
	gsi2First := snapshotGSI2(ctx, t, w)

	// Phase B: a new process. Every user clicks again (their retry, or a
	// duplicate); then reconciler passes, each after StuckAfter.
	b := w.process(t, crashtest.New(0, crashtest.Fail, nil), 1)
	live := map[string]string{} // user -> live request ID
	for _, c := range clicks {
		if c.err == nil && c.rc.RequestID != "" && c.rc.Status != p.StatusFailedFinal {
			live[c.user] = c.rc.RequestID
		}
	}
	reclick := func(u string) {
		before, _ := lockOf(ctx, b, u)
		rc, err := b.svc.Participate(ctx, crashEvent, u, p.ModeFirstCome)
		if err != nil {
			bad("click of %s in recovery: %v", u, err)
			return
		}
		// A live request (not FAILED_FINAL) always answers the click.
		if before != "" {
			r, gerr := qp.Request(ctx, b.tbl, before, entity.ConsistentRead)
			if gerr == nil && r.Status != p.StatusFailedFinal && (!rc.Duplicate || rc.RequestID != before) {
				bad("%s clicked while request %s (%s) lives: got %+v", u, before, r.Status, rc)
			}
		}
	}
	for _, u := range users {
		reclick(u)
	}
	const maxPasses = maxReenqueues + 3
	passes := 0
	for ; passes < maxPasses; passes++ {
		w.clk.Advance(stuckAfter + time.Second)
		if _, err := b.svc.Reconcile(ctx); err != nil {
			bad("reconcile: %v", err)
		}
		if err := w.q.Redeliver(ctx); err != nil {
			bad("redeliver: %v", err)
		}
		b.drain(ctx, w, 2*time.Second)
		// The documented policy: after FAILED_FINAL the user may click
		// again, and their new request must be processed too.
		for _, u := range users {
			if id, _ := lockOf(ctx, b, u); id == "" {
				reclick(u)
			}
		}
		if allRequestsFinal(ctx, t, w) {
			break
		}
	}
	if passes == maxPasses {
		bad("requests not final after %d reconciler passes", maxPasses)
	}
	// What is left on the queue (duplicates, late copies) is delivered too,
	// and changes nothing.
	b.drain(ctx, w, 2*time.Second)
	violations = append(violations, checkInvariants(ctx, t, w, users, capacity, gsi2First)...)
	_ = live
	return calls, violations
}

// lockOf returns the requestId of u's IdempotencyLock, "" if none.
func lockOf(ctx context.Context, pr *crashProcess, u string) (string, error) {
	l, err := qp.Lock(ctx, pr.tbl, crashEvent, u, entity.ConsistentRead)
	if errors.Is(err, entity.ErrNotFound) {
		return "", nil
	}
	return l.RequestID, err
}

// items reads every item of the run's table (the checker's view; the
// system itself never scans).
func items(ctx context.Context, t testing.TB, w *crashWorld) []map[string]types.AttributeValue {
	var out []map[string]types.AttributeValue
	var start map[string]types.AttributeValue
	for {
		page, err := w.raw.Scan(ctx, &dynamodb.ScanInput{TableName: &w.name, ExclusiveStartKey: start, ConsistentRead: ptr(true)})
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		out = append(out, page.Items...)
		if start = page.LastEvaluatedKey; len(start) == 0 {
			return out
		}
	}
}

func ptr[T any](v T) *T { return &v }

func str(item map[string]types.AttributeValue, a string) string {
	if v, ok := item[a].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func snapshotGSI2(ctx context.Context, t testing.TB, w *crashWorld) map[string]string {
	out := map[string]string{}
	for _, it := range items(ctx, t, w) {
		if str(it, "Type") == p.RequestType && str(it, "GSI2SK") != "" {
			out[str(it, "requestId")] = str(it, "GSI2SK")
		}
	}
	return out
}

func allRequestsFinal(ctx context.Context, t testing.TB, w *crashWorld) bool {
	for _, it := range items(ctx, t, w) {
		if str(it, "Type") == p.RequestType && !p.Status(str(it, "status")).Final() {
			return false
		}
	}
	return true
}

// checkInvariants checks the invariants on the final table.
func checkInvariants(ctx context.Context, t testing.TB, w *crashWorld, users []string, capacity int64, gsi2First map[string]string) (v []string) {
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	all := items(ctx, t, w)
	winners, open := 0, 0
	liveByUser := map[string][]string{}
	locks := map[string]string{}
	var remaining int64 = -1
	for _, it := range all {
		switch str(it, "Type") {
		case p.RequestType:
			id, st := str(it, "requestId"), p.Status(str(it, "status"))
			if !st.Final() {
				bad("request %s ends %s", id, st)
			}
			if st == p.StatusSucceeded {
				winners++
			}
			if st != p.StatusFailedFinal {
				liveByUser[str(it, "userId")] = append(liveByUser[str(it, "userId")], id)
			}
			qa, g2pk, g2sk := str(it, "queuedAt"), str(it, "GSI2PK"), str(it, "GSI2SK")
			// GSI2 entries exist only for queued requests, as a pair.
			if (g2pk != "") != (g2sk != "") || (g2sk != "") != (qa != "") {
				bad("request %s: queuedAt %q GSI2PK %q GSI2SK %q", id, qa, g2pk, g2sk)
			}
			if g2sk != "" && !strings.HasPrefix(g2sk, "QAT#"+qa+"#REQ#") {
				bad("request %s: GSI2SK %q does not match queuedAt %q", id, g2sk, qa)
			}
			if (st == p.StatusSucceeded || st == p.StatusRejected) && qa == "" {
				bad("request %s %s without queuedAt", id, st)
			}
			// GSI2SK is written once: what phase A saw never changes.
			if first, ok := gsi2First[id]; ok && first != g2sk {
				bad("request %s: GSI2SK changed from %q to %q", id, first, g2sk)
			}
		case p.OpenRequestType:
			open++
		case p.IdempotencyLockType:
			locks[str(it, "userId")] = str(it, "requestId")
		case p.EventCapacityType:
			if n, ok := it["capacityRemaining"].(*types.AttributeValueMemberN); ok {
				fmt.Sscan(n.Value, &remaining)
			}
		}
	}
	if int64(winners) != capacity || remaining != 0 {
		bad("%d winners, %d seats left; want exactly %d winners", winners, remaining, capacity)
	}
	if open != 0 {
		bad("%d OpenRequest markers left with every request final", open)
	}
	for _, u := range users {
		if n := len(liveByUser[u]); n != 1 {
			bad("user %s has %d requests that did not fail (%v); want exactly 1 (nobody locked out, nobody twice)", u, n, liveByUser[u])
		} else if locks[u] != liveByUser[u][0] {
			bad("user %s: lock names %q, live request %q", u, locks[u], liveByUser[u][0])
		}
	}
	return v
}

// crashAll runs the flow once clean to list the external calls, then once
// per call (every sample-th one when sample > 0) and mode.
func crashAll(t *testing.T, raw func() entity.Client, newQ queueOf, statusLog bool, sample int) {
	crashtest.Every(t, " in Participate x4, Process, the consumer's acks", sample, func(k int, mode crashtest.Mode) ([]string, []string) {
		return crashFlow(t, raw(), newQ, statusLog, k, mode)
	})
}

// TestCrashParticipation: seed 004 (Participate, Process, the consumer
// loop, the reconciler) survives a fault at every external call of a run,
// in every mode (the call fails; it lands and its reply is lost; the
// process dies before it lands; it lands and then the process dies):
// every request ends final within a bounded number of reconciler passes,
// exactly N winners, duplicate clicks get the live requestId, nobody is
// locked out (after FAILED_FINAL the user may click again), GSI2 only on
// queued requests, GSI2SK written once, no marker left.
func TestCrashParticipation(t *testing.T) {
	for _, statusLog := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "status log"}[statusLog], func(t *testing.T) {
			crashAll(t, func() entity.Client { return ddbmem.New() }, crashMem(), statusLog, 0)
		})
	}
}

// TestCrashParticipationDynamoDBLocal runs a sample of the points on
// DynamoDB Local.
func TestCrashParticipationDynamoDBLocal(t *testing.T) {
	db := testenv.DynamoDB(t)
	crashAll(t, func() entity.Client { return db }, crashMem(), false, 5)
}

// TestCrashReconcilerPass: faults inside the reconciler's passes (its
// marker query, request read, marker update, send, finalisation), for a
// request stuck RECEIVED (its process died before the send). With a
// working queue the re-sent message finishes it; with a queue that loses
// every message the reconciler finalises it (FAILED_FINAL, TRANSIENT)
// after MaxReenqueues attempts and releases the user's lock. Either way
// it ends final within a bounded number of passes.
func TestCrashReconcilerPass(t *testing.T) {
	crashReconcilerPass(t, crashMem())
}

func crashReconcilerPass(t *testing.T, newQ queueOf) {
	run := func(lossy bool, k int, mode crashtest.Mode) (calls []string, v []string) {
		w := newCrashWorld(t, ddbmem.New(), 1, newQ)
		ctx := context.Background()
		// The API dies right after the participation transaction.
		dctx, kill := context.WithCancel(ctx)
		a := w.process(t, crashtest.New(2, crashtest.Die, kill), 1)
		_, _ = a.svc.Participate(dctx, crashEvent, "u1", p.ModeFirstCome)
		rctx, rkill := context.WithCancel(ctx)
		defer rkill()
		in := crashtest.New(k, mode, rkill)
		r := w.process(t, in, 1)
		const maxPasses = maxReenqueues + 3
		pass := 0
		for ; pass < maxPasses; pass++ {
			w.clk.Advance(stuckAfter + time.Second)
			if in.Dead() { // the reconciler's process died: a new one
				r, rctx = w.process(t, nil, 1), ctx
			}
			_, _ = r.svc.Reconcile(rctx)
			if lossy {
				if err := crashtest.Purge(ctx, w.q); err != nil {
					v = append(v, fmt.Sprintf("purge: %v", err))
				}
			} else {
				if err := w.q.Redeliver(ctx); err != nil {
					v = append(v, fmt.Sprintf("redeliver: %v", err))
				}
				r.drain(ctx, w, time.Second)
			}
			if allRequestsFinal(ctx, t, w) {
				break
			}
		}
		calls = in.Names()
		if pass == maxPasses {
			v = append(v, fmt.Sprintf("not final after %d passes", maxPasses))
		}
		if !lossy {
			return calls, append(v, checkInvariants(ctx, t, w, []string{"u1"}, 1, nil)...)
		}
		for _, it := range items(ctx, t, w) {
			switch str(it, "Type") {
			case p.RequestType:
				if str(it, "status") != string(p.StatusFailedFinal) || str(it, "failureClass") != string(p.FailureTransient) || str(it, "errorCode") != string(p.ErrorIngestEnqueue) {
					v = append(v, fmt.Sprintf("lost messages: request ends %s/%s/%s", str(it, "status"), str(it, "failureClass"), str(it, "errorCode")))
				}
			case p.OpenRequestType, p.IdempotencyLockType:
				v = append(v, fmt.Sprintf("%s left after the final failure", str(it, "Type")))
			}
		}
		return calls, v
	}
	for _, lossy := range []bool{false, true} {
		t.Run(map[bool]string{false: "queue works", true: "queue loses messages"}[lossy], func(t *testing.T) {
			crashtest.Every(t, " (reconciler passes)", 0, func(k int, mode crashtest.Mode) ([]string, []string) {
				return run(lossy, k, mode)
			})
		})
	}
}

// TestCrashLoad: 2,000 participations on DynamoDB Local (capacity 100),
// 20 % of the messages delivered twice, 5 % of the participations and of
// the deliveries crashed at a random call in a random mode; workers on the
// consumer loop; then reconciler passes. Exactly 100 winners and every
// request final. TABLEKIT_CRASH_LOAD sets the number of participations:
// default 2000, or 500 under the race detector (2000 took 2m50s with
// -race on a loaded two-core machine, 44 s without), so that the project
// test command stays within its budget; the printed figures say how many
// ran.
func TestCrashLoad(t *testing.T) {
	def := 2000
	if raceEnabled {
		def = 500
	}
	n := envInt("TABLEKIT_CRASH_LOAD", def)
	const capacity = 100
	db := testenv.DynamoDB(t)
	var dups atomic.Int64
	w := newCrashWorld(t, db, capacity, crashMem(func(o *consumer.MemQueueOptions[p.Message]) {
		o.VisibilityTimeout = 300 * time.Millisecond
		o.Duplicate = func(p.Message) bool {
			if rand.Float64() < 0.2 {
				dups.Add(1)
				return true
			}
			return false
		}
	}))
	ctx := context.Background()
	start := time.Now()
	var apiCrashes, workerCrashes, clickErrs atomic.Int64
	// A process per click: 5 % of them crash at one of their calls.
	crashy := func(calls int, counter *atomic.Int64) (*crashtest.Injector, context.Context, context.CancelFunc) {
		cctx, kill := context.WithCancel(ctx)
		if rand.Float64() >= 0.05 {
			return nil, cctx, kill
		}
		counter.Add(1)
		return crashtest.New(1+rand.IntN(calls), crashtest.Modes[rand.IntN(len(crashtest.Modes))], kill), cctx, kill
	}
	// Workers: 4 consumer loops; a delivery crashes (5 %) in its own
	// process view, so its writes stop where the fault hit.
	clean := w.process(t, nil, 1)
	wk, err := consumer.New[p.Message](w.q, func(hctx context.Context, m consumer.Message[p.Message]) error {
		in, dctx, kill := crashy(5, &workerCrashes)
		defer kill()
		pr := w.process(t, in, 1)
		stop := context.AfterFunc(hctx, kill)
		defer stop()
		_, _, err := pr.svc.Process(dctx, m.Body)
		return err
	}, func(o *consumer.Options[p.Message]) {
		o.Concurrency = 8
		o.MaxReceives = 10
		o.Retry = retry.Exponential(5*time.Millisecond, 100*time.Millisecond)
	})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	wdone := make(chan struct{})
	go func() { defer close(wdone); _ = wk.Run(wctx) }()

	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			in, cctx, kill := crashy(3, &apiCrashes)
			defer kill()
			pr := w.process(t, in, 1)
			if _, err := pr.svc.Participate(cctx, crashEvent, fmt.Sprintf("user-%05d", i), p.ModeFirstCome); err != nil {
				clickErrs.Add(1)
			}
		}()
	}
	wg.Wait()
	qctx, qcancel := context.WithTimeout(ctx, 2*time.Minute)
	for qctx.Err() == nil {
		if queued, _, err := w.q.Counts(qctx); err == nil && queued == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	qcancel()
	stopWorkers()
	<-wdone
	api := time.Since(start)

	passes := 0
	var reconciled p.ReconcileStats
	for ; passes < maxReenqueues+3 && !allRequestsFinal(ctx, t, w); passes++ {
		w.clk.Advance(stuckAfter + time.Second)
		st, err := clean.svc.Reconcile(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reconciled.Reenqueued += st.Reenqueued
		reconciled.Finalised += st.Finalised
		clean.drain(ctx, w, 30*time.Second)
	}
	all := items(ctx, t, w)
	byStatus := map[p.Status]int{}
	open := 0
	var remaining string
	for _, it := range all {
		switch str(it, "Type") {
		case p.RequestType:
			byStatus[p.Status(str(it, "status"))]++
		case p.OpenRequestType:
			open++
		case p.EventCapacityType:
			if v, ok := it["capacityRemaining"].(*types.AttributeValueMemberN); ok {
				remaining = v.Value
			}
		}
	}
	var parts []string
	for s, c := range byStatus {
		parts = append(parts, fmt.Sprintf("%s=%d", s, c))
	}
	sort.Strings(parts)
	m := wk.Metrics()
	fig := fmt.Sprintf("load: %d participations in %v (+%d reconciler passes: %d re-enqueued, %d finalised); %d duplicate messages, %d deliveries; crashes injected: %d API, %d worker; %d clicks answered with an error; requests %s; %d seats left, %d markers left",
		n, api.Round(time.Millisecond), passes, reconciled.Reenqueued, reconciled.Finalised, dups.Load(), m.Received,
		apiCrashes.Load(), workerCrashes.Load(), clickErrs.Load(), strings.Join(parts, " "), atoiOr(remaining), open)
	t.Log(fig)
	fmt.Println(fig)
	if byStatus[p.StatusSucceeded] != capacity || remaining != "0" {
		t.Errorf("%d winners, %s seats left; want exactly %d", byStatus[p.StatusSucceeded], remaining, capacity)
	}
	for s, c := range byStatus {
		if !s.Final() {
			t.Errorf("%d requests end %s", c, s)
		}
	}
	if open != 0 {
		t.Errorf("%d markers left", open)
	}
}

func atoiOr(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil && n > 0 {
			return n
		}
	}
	return def
}
