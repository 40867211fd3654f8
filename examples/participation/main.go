// Command participation is the runnable example of the participation-event
// system of seed 004: users click "participate" (some twice, at once), the
// API writes the IdempotencyLock and the Request in one transaction and
// sends a message to a queue, and workers process the messages from an
// in-process queue with at-least-once delivery. The queue delivers some
// messages twice and redelivers every message whose processing failed
// (for instance one that arrived before the API recorded QUEUED), so the
// idempotent worker is exercised. One event is FIRST_COME with three
// seats, one is a LOTTERY. The program prints what the admin and the users
// would see.
//
// It runs on the embedded engine (package ddbmem) when
// TABLEKIT_DYNAMODB_ENDPOINT is unset, else on that DynamoDB (Local)
// endpoint, in a table of its own that it deletes at the end.
//
//	go run ./examples/participation
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/query"
	qp "github.com/tablekit/tablekit/query/participation"
)

// newClient returns the embedded engine, or a client of the DynamoDB
// endpoint in TABLEKIT_DYNAMODB_ENDPOINT.
func newClient() (entity.Client, string) {
	if ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"); ep != "" {
		return entity.LocalClient(ep), "DynamoDB at " + ep
	}
	return ddbmem.New(), "the embedded engine (ddbmem)"
}

// delivery is one delivery of a message.
type delivery struct {
	m       participation.Message
	attempt int
}

// memQueue is an in-process queue with at-least-once delivery: every
// dupEvery-th message is delivered twice, and a message whose handler
// failed comes back after retryDelay, up to maxAttempts deliveries.
type memQueue struct {
	ch         chan delivery
	pending    sync.WaitGroup
	sent       atomic.Int64
	dupEvery   int64
	retryDelay time.Duration
}

func newQueue() *memQueue {
	return &memQueue{ch: make(chan delivery, 1024), dupEvery: 3, retryDelay: 5 * time.Millisecond}
}

// Send implements participation.Queue.
func (q *memQueue) Send(_ context.Context, m participation.Message) error {
	n := q.sent.Add(1)
	q.push(delivery{m: m, attempt: 1})
	if n%q.dupEvery == 0 {
		q.push(delivery{m: m, attempt: 1}) // at-least-once: a duplicate
	}
	return nil
}

func (q *memQueue) push(d delivery) {
	q.pending.Add(1)
	q.ch <- d
}

// redeliver puts d back after a delay (a visibility timeout).
func (q *memQueue) redeliver(d delivery) {
	q.pending.Add(1)
	time.AfterFunc(q.retryDelay, func() {
		d.attempt++
		q.ch <- d
	})
}

const maxAttempts = 20

type stats struct {
	deliveries, decided, duplicates, notReady, failed atomic.Int64
}

// worker consumes deliveries until the queue is closed.
func worker(ctx context.Context, svc *participation.Service, q *memQueue, st *stats) {
	for d := range q.ch {
		st.deliveries.Add(1)
		r, decided, err := svc.Process(ctx, d.m)
		switch {
		case err == nil && decided:
			st.decided.Add(1)
		case err == nil:
			st.duplicates.Add(1)
		case d.attempt < maxAttempts:
			if errors.Is(err, participation.ErrNotReady) {
				st.notReady.Add(1)
			}
			q.redeliver(d)
		default:
			// Deliveries exhausted: the seed's final failure.
			st.failed.Add(1)
			if ferr := svc.Fail(ctx, &r, participation.FailureTransient, participation.ErrorProcessing, err.Error()); ferr != nil {
				log.Printf("fail %s: %v", d.m.RequestID, ferr)
			}
		}
		q.pending.Done()
	}
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, where := newClient()
	name := fmt.Sprintf("ParticipationExample-%d", time.Now().UnixNano())
	tbl := participation.NewTable(client, name)
	if err := tbl.EnsureTable(ctx); err != nil {
		log.Fatal(err)
	}
	defer func() { _ = tbl.DeleteTable(context.Background()) }()
	fmt.Printf("table %s on %s\n", name, where)

	q := newQueue()
	svc := participation.NewService(tbl, q, func(o *participation.Options) {
		o.StatusLog = true
		// A reproducible draw: the parity of the bytes of the user ID.
		o.Draw = func(r participation.Request) bool {
			sum := 0
			for _, c := range []byte(r.UserID) {
				sum += int(c)
			}
			return sum%2 == 0
		}
	})
	if _, err := svc.CreateCapacity(ctx, "concert-2025", 3); err != nil {
		log.Fatal(err)
	}

	var st stats
	var workers sync.WaitGroup
	for range 4 {
		workers.Add(1)
		go func() { defer workers.Done(); worker(ctx, svc, q, &st) }()
	}

	// Clicks: every user clicks twice at once on the FIRST_COME event, and
	// once on the LOTTERY.
	users := []string{"minji", "jisoo", "hyun", "alice", "bob", "chloe", "dae", "eun"}
	var clicks sync.WaitGroup
	var dupClicks atomic.Int64
	for _, u := range users {
		for _, ev := range []struct {
			id   string
			mode participation.Mode
			n    int
		}{{"concert-2025", participation.ModeFirstCome, 2}, {"lottery-2025", participation.ModeLottery, 1}} {
			for range ev.n {
				clicks.Add(1)
				go func() {
					defer clicks.Done()
					rc, err := svc.Participate(ctx, ev.id, u, ev.mode)
					if err != nil {
						log.Fatal(err)
					}
					if rc.Duplicate {
						dupClicks.Add(1)
					}
				}()
			}
		}
	}
	clicks.Wait()
	q.pending.Wait()
	close(q.ch)
	workers.Wait()

	fmt.Printf("clicks: %d, duplicate clicks answered with the first requestId: %d\n", 3*len(users), dupClicks.Load())
	fmt.Printf("queue: %d messages, %d deliveries; %d decided, %d duplicate deliveries ignored, %d early deliveries redelivered, %d failed\n",
		q.sent.Load(), st.deliveries.Load(), st.decided.Load(), st.duplicates.Load(), st.notReady.Load(), st.failed.Load())

	for _, ev := range []string{"concert-2025", "lottery-2025"} {
		fmt.Printf("\nevent %s (admin, GSI2 in queue order):\n", ev)
		var lines []string
		after := ""
		for {
			page, err := qp.EventRequests(ctx, tbl, ev, query.PageOptions{Limit: 5, After: after})
			if err != nil {
				log.Fatal(err)
			}
			for _, r := range page.Items {
				lines = append(lines, fmt.Sprintf("  %-6s %-12s %s", r.UserID, r.Status, r.UIResult))
			}
			if after = page.Next; after == "" {
				break
			}
		}
		fmt.Println(strings.Join(lines, "\n"))
		sum, err := qp.StatusCounts(ctx, tbl, ev)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  total %d: %s\n", sum.Total, counts(sum))
	}
	c, err := qp.Capacity(ctx, tbl, "concert-2025", entity.ConsistentRead)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nconcert-2025 capacity: %d of %d left\n", c.CapacityRemaining, c.CapacityTotal)

	mine, err := qp.MyParticipations(ctx, tbl, "minji", query.PageOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\nminji's participations (GSI1, newest first):")
	for _, r := range mine.Items {
		fmt.Printf("  %s %s %s\n", r.EventID, r.Status, r.UIResult)
		logs, err := qp.RequestLogs(ctx, tbl, r.RequestID, query.PageOptions{ConsistentRead: true})
		if err != nil {
			log.Fatal(err)
		}
		var steps []string
		for _, l := range logs.Items {
			steps = append(steps, string(l.To))
		}
		fmt.Printf("    log: %s\n", strings.Join(steps, " -> "))
	}
}

func counts(s qp.Summary) string {
	var parts []string
	for k, n := range s.ByUIResult {
		parts = append(parts, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
