package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/idempotency"
)

type result struct {
	RequestID string
	Seq       int
}

func TestFirstCallAndReplayCallCounts(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	cc := &counting{Client: db}
	s := newStore(t, cc, table)
	ctx := context.Background()
	var runs atomic.Int64
	fn := func(context.Context) (result, error) {
		return result{RequestID: "req-1", Seq: int(runs.Add(1))}, nil
	}

	got, replayed, err := idempotency.Do(ctx, s, "order-1", []byte(`{"a":1}`), fn)
	if err != nil || replayed {
		t.Fatalf("first call: replayed=%v err=%v", replayed, err)
	}
	if d := cmp.Diff(counts{puts: 1, updates: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
		t.Errorf("first call: DynamoDB calls (-want +got):\n%s", d)
	}

	cc.reset()
	again, replayed, err := idempotency.Do(ctx, s, "order-1", []byte(`{"a":1}`), fn)
	if err != nil || !replayed {
		t.Fatalf("replay: replayed=%v err=%v", replayed, err)
	}
	if d := cmp.Diff(counts{puts: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
		t.Errorf("replay: DynamoDB calls (-want +got):\n%s", d)
	}
	if d := cmp.Diff(got, again); d != "" {
		t.Errorf("replayed result differs (-first +replay):\n%s", d)
	}
	if runs.Load() != 1 {
		t.Errorf("fn ran %d times, want 1", runs.Load())
	}

	item := getItem(t, db, table, "PK", "IDEMP#order-1", "SK", "LOCK")
	if got := str(item, "status"); got != idempotency.StatusComplete {
		t.Errorf("status = %q, want COMPLETE", got)
	}
	if _, ok := item["leaseUntil"]; ok {
		t.Errorf("completed record still has leaseUntil")
	}
	if _, ok := item["ttl"].(*types.AttributeValueMemberN); !ok {
		t.Errorf("ttl attribute missing or not a number: %#v", item["ttl"])
	}
}

func TestConcurrentDuplicates(t *testing.T) {
	const callers = 200
	for _, wait := range []bool{false, true} {
		t.Run(fmt.Sprintf("WaitForResult=%v", wait), func(t *testing.T) {
			db, table := newTable(t, "PK", "SK")
			// 200 simultaneous requests under -race on a shared 2-core
			// machine can take DynamoDB Local several hundred milliseconds:
			// a lease must outlast the latency of the claim itself.
			s := newStore(t, db, table)
			var runs atomic.Int64
			type outcome struct {
				mine     string
				res      result
				replayed bool
				err      error
			}
			out := make([]outcome, callers)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mine := fmt.Sprintf("req-%03d", i)
					<-start
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					res, replayed, err := idempotency.Do(ctx, s, "same-key", []byte("p"),
						func(context.Context) (result, error) {
							n := runs.Add(1)
							time.Sleep(150 * time.Millisecond)
							return result{RequestID: mine, Seq: int(n)}, nil
						},
						func(o *idempotency.Options) { o.FirstValue = mine; o.WaitForResult = wait })
					out[i] = outcome{mine, res, replayed, err}
				}()
			}
			close(start)
			wg.Wait()

			if n := runs.Load(); n != 1 {
				for _, o := range out {
					if o.err != nil && !errors.Is(o.err, idempotency.ErrInProgress) || !o.replayed && o.err == nil {
						t.Logf("%s: %+v %v %v", o.mine, o.res, o.replayed, o.err)
					}
				}
				t.Fatalf("fn ran %d times, want exactly 1", n)
			}
			var winner *outcome
			for i := range out {
				if out[i].err == nil && !out[i].replayed {
					if winner != nil {
						t.Fatalf("two callers ran fn: %s and %s", winner.mine, out[i].mine)
					}
					winner = &out[i]
				}
			}
			if winner == nil {
				t.Fatal("no caller ran fn")
			}
			if winner.res.RequestID != winner.mine {
				t.Fatalf("winner %s got result of %s", winner.mine, winner.res.RequestID)
			}
			var replays, inProgress int
			for _, o := range out {
				switch {
				case o.err == nil:
					if o.res != winner.res {
						t.Errorf("%s got %+v, want %+v", o.mine, o.res, winner.res)
					}
					if o.replayed {
						replays++
					}
				case errors.Is(o.err, idempotency.ErrInProgress) && !wait:
					inProgress++
					if first, ok := idempotency.FirstValue(o.err); !ok || first != winner.mine {
						t.Errorf("%s: in-progress first value %q, want %q", o.mine, first, winner.mine)
					}
				default:
					t.Errorf("%s: unexpected error %v", o.mine, o.err)
				}
			}
			if replays+inProgress != callers-1 {
				t.Errorf("replays %d + in progress %d != %d", replays, inProgress, callers-1)
			}
			if wait && replays != callers-1 {
				t.Errorf("WaitForResult: %d replays, want %d", replays, callers-1)
			}
			t.Logf("winner %s; %d replays, %d in progress", winner.mine, replays, inProgress)
		})
	}
}

// A crashed owner (its heartbeats and writes lost) loses the key after its
// lease; a new call runs fn; the crashed owner's late COMPLETE is refused
// and changes nothing.
func TestCrashTakeoverRejectsLateComplete(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	crashing := &faulty{Client: db}
	a := newStore(t, crashing, table, shortLease)
	b := newStore(t, db, table, shortLease)
	ctx := context.Background()

	var runs atomic.Int64
	entered := make(chan struct{})
	resume := make(chan struct{})
	type res struct {
		v   string
		err error
	}
	aDone := make(chan res, 1)
	go func() {
		v, _, err := idempotency.Do(ctx, a, "k", []byte("p"), func(context.Context) (string, error) {
			runs.Add(1)
			crashing.failUpdates.Store(true) // from now on A's heartbeats are lost
			close(entered)
			<-resume
			crashing.failUpdates.Store(false) // A comes back and tries to complete
			return "from A", nil
		})
		aDone <- res{v, err}
	}()
	<-entered

	// A's lease (300 ms) plus the skew margin (50 ms) runs out in real time.
	time.Sleep(450 * time.Millisecond)
	got, replayed, err := idempotency.Do(ctx, b, "k", []byte("p"), func(context.Context) (string, error) {
		runs.Add(1)
		return "from B", nil
	})
	if err != nil || replayed || got != "from B" {
		t.Fatalf("B after lease: got %q replayed=%v err=%v", got, replayed, err)
	}

	close(resume)
	ra := <-aDone
	if !errors.Is(ra.err, idempotency.ErrLeaseLost) {
		t.Fatalf("A's late COMPLETE: err = %v, want ErrLeaseLost", ra.err)
	}
	if runs.Load() != 2 {
		t.Errorf("fn ran %d times, want 2 (A then B)", runs.Load())
	}
	// The record is B's, untouched by A.
	again, replayed, err := idempotency.Do(ctx, b, "k", []byte("p"), func(context.Context) (string, error) {
		t.Error("fn ran again")
		return "", nil
	})
	if err != nil || !replayed || again != "from B" {
		t.Fatalf("replay after takeover: %q replayed=%v err=%v, want B's result", again, replayed, err)
	}
	// One crash point (the owner partitioned while running fn).
	if !t.Failed() {
		fmt.Printf("%s: crash points: 1 covered, invariant violations: 0\n", t.Name())
	}
}

// With working heartbeats, the owner learns of a takeover and its fn's
// context is cancelled with cause ErrLeaseLost.
func TestHeartbeatDetectsTakeover(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	a := newStore(t, db, table, shortLease)
	clk := &clock{}
	b := newStore(t, db, table, func(o *idempotency.Options) { o.Now = clk.Now })
	ctx := context.Background()

	entered := make(chan struct{})
	var cause error
	aErr := make(chan error, 1)
	go func() {
		_, _, err := idempotency.Do(ctx, a, "k", []byte("p"), func(ctx context.Context) (string, error) {
			close(entered)
			<-ctx.Done()
			cause = context.Cause(ctx)
			return "", ctx.Err()
		})
		aErr <- err
	}()
	<-entered
	clk.Advance(time.Hour)
	if _, _, err := idempotency.Do(ctx, b, "k", []byte("p"), func(context.Context) (string, error) { return "B", nil }); err != nil {
		t.Fatalf("takeover: %v", err)
	}
	select {
	case err := <-aErr:
		if !errors.Is(err, idempotency.ErrLeaseLost) || !errors.Is(cause, idempotency.ErrLeaseLost) {
			t.Fatalf("A: err=%v cause=%v, want ErrLeaseLost for both", err, cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("A's fn was not cancelled after the takeover")
	}
	item := getItem(t, db, table, "PK", "IDEMP#k", "SK", "LOCK")
	if got := str(item, "status"); got != idempotency.StatusComplete {
		t.Errorf("status = %q, want B's COMPLETE untouched", got)
	}
}

// A function running for several leases keeps its claim by heartbeats.
func TestHeartbeatKeepsLongFunction(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	s := newStore(t, db, table, shortLease)
	ctx := context.Background()
	var runs atomic.Int64
	fn := func(context.Context) (int, error) {
		runs.Add(1)
		time.Sleep(time.Second) // > 3 leases of 300 ms
		return 42, nil
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := idempotency.Do(ctx, s, "long", nil, fn, func(o *idempotency.Options) { o.FirstValue = "first" })
		done <- err
	}()
	time.Sleep(700 * time.Millisecond)
	_, _, err := idempotency.Do(ctx, s, "long", nil, fn)
	if first, ok := idempotency.FirstValue(err); !errors.Is(err, idempotency.ErrInProgress) || !ok || first != "first" {
		t.Fatalf("duplicate at 700 ms: err=%v first=%q, want ErrInProgress with first value", err, first)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	v, replayed, err := idempotency.Do(ctx, s, "long", nil, fn)
	if err != nil || !replayed || v != 42 || runs.Load() != 1 {
		t.Fatalf("after: v=%d replayed=%v err=%v runs=%d", v, replayed, err, runs.Load())
	}
}

func TestPayloadMismatch(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	s := newStore(t, db, table)
	ctx := context.Background()
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = idempotency.Do(ctx, s, "k", []byte(`{"qty":1}`), func(context.Context) (string, error) {
			<-release
			return "ok", nil
		})
	}()
	waitStatus(t, db, table, "IDEMP#k", idempotency.StatusInProgress)
	never := func(context.Context) (string, error) { t.Error("fn ran"); return "", nil }
	if _, _, err := idempotency.Do(ctx, s, "k", []byte(`{"qty":2}`), never); !errors.Is(err, idempotency.ErrPayloadMismatch) {
		t.Errorf("in progress: err = %v, want ErrPayloadMismatch", err)
	}
	close(release)
	<-done
	if _, _, err := idempotency.Do(ctx, s, "k", []byte(`{"qty":2}`), never); !errors.Is(err, idempotency.ErrPayloadMismatch) {
		t.Errorf("complete: err = %v, want ErrPayloadMismatch", err)
	}
	if v, replayed, err := idempotency.Do(ctx, s, "k", []byte(`{"qty":1}`), never); err != nil || !replayed || v != "ok" {
		t.Errorf("same payload: %q %v %v", v, replayed, err)
	}
}

func waitStatus(t *testing.T, db entity.Client, table, pk, status string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if str(getItem(t, db, table, "PK", pk, "SK", "LOCK"), "status") == status {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("record %s never reached %s", pk, status)
}

// Retention is decided by comparing times, with the skew margin, never by
// TTL deletion (DynamoDB Local does not delete at all).
func TestRetentionExpiry(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	clk := &clock{}
	s := newStore(t, db, table, func(o *idempotency.Options) {
		o.Now = clk.Now
		o.Retention = 10 * time.Second
		o.ClockSkew = 5 * time.Second
	})
	ctx := context.Background()
	var runs atomic.Int64
	fn := func(context.Context) (int64, error) { return runs.Add(1), nil }

	if v, replayed, err := idempotency.Do(ctx, s, "r", nil, fn); err != nil || replayed || v != 1 {
		t.Fatalf("first: %d %v %v", v, replayed, err)
	}
	clk.Advance(12 * time.Second) // past retention, but within the skew margin
	if v, replayed, err := idempotency.Do(ctx, s, "r", nil, fn); err != nil || !replayed || v != 1 {
		t.Fatalf("within skew margin: %d replayed=%v %v, want replay of 1", v, replayed, err)
	}
	clk.Advance(5 * time.Second) // now 17 s: past retention + skew (+1 s TTL rounding)
	if v, replayed, err := idempotency.Do(ctx, s, "r", nil, fn); err != nil || replayed || v != 2 {
		t.Fatalf("past retention: %d replayed=%v %v, want a new run", v, replayed, err)
	}
	if v, replayed, err := idempotency.Do(ctx, s, "r", nil, fn); err != nil || !replayed || v != 2 {
		t.Fatalf("replay of the new run: %d replayed=%v %v", v, replayed, err)
	}
}

func TestEmptyKeyAndBadInput(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	cc := &counting{Client: db}
	s := newStore(t, cc, table)
	ctx := context.Background()
	fn := func(context.Context) (int, error) { t.Error("fn ran"); return 0, nil }
	if _, _, err := idempotency.Do(ctx, s, "", nil, fn); !errors.Is(err, idempotency.ErrEmptyKey) {
		t.Errorf("empty key: %v, want ErrEmptyKey", err)
	}
	if _, _, err := idempotency.Do[int](ctx, s, "k", nil, nil); !errors.Is(err, idempotency.ErrInvalidOptions) {
		t.Errorf("nil fn: %v", err)
	}
	if _, _, err := idempotency.Do(ctx, nil, "k", nil, fn); !errors.Is(err, idempotency.ErrInvalidOptions) {
		t.Errorf("nil store: %v", err)
	}
	if _, _, err := idempotency.Do(ctx, s, "k", nil, fn, func(o *idempotency.Options) { o.Heartbeat = time.Hour }); !errors.Is(err, idempotency.ErrInvalidOptions) {
		t.Errorf("heartbeat > lease: %v", err)
	}
	if _, _, err := idempotency.Do(ctx, s, "k", nil, fn, func(o *idempotency.Options) {
		o.Key = func(string) entity.Key { return entity.Key{PK: "X"} }
	}); !errors.Is(err, idempotency.ErrInvalidOptions) {
		t.Errorf("empty SK from Key: %v", err)
	}
	if _, _, err := idempotency.Do(ctx, s, "k", nil, fn, func(o *idempotency.Options) {
		o.FirstValue = strings.Repeat("x", idempotency.MaxItemSize)
	}); !errors.Is(err, entity.ErrItemTooLarge) {
		t.Errorf("huge first value: %v, want entity.ErrItemTooLarge", err)
	}
	if got := cc.snapshot(); got != (counts{}) {
		t.Errorf("bad input reached DynamoDB: %+v", got)
	}
}

func TestNewValidation(t *testing.T) {
	db := &counting{}
	for _, tc := range []struct {
		name   string
		client entity.Client
		table  string
		opt    func(*idempotency.Options)
	}{
		{"nil client", nil, "t", nil},
		{"empty table", db, "", nil},
		{"negative lease", db, "t", func(o *idempotency.Options) { o.Lease = -time.Second }},
		{"heartbeat >= lease", db, "t", func(o *idempotency.Options) { o.Lease = time.Second; o.Heartbeat = time.Second }},
		{"negative retention", db, "t", func(o *idempotency.Options) { o.Retention = -1 }},
		{"negative skew", db, "t", func(o *idempotency.Options) { o.ClockSkew = -1 }},
		{"unknown policy", db, "t", func(o *idempotency.Options) { o.Failure = 7 }},
		{"ttl collides", db, "t", func(o *idempotency.Options) { o.TTLAttr = "status" }},
		{"pk = sk", db, "t", func(o *idempotency.Options) { o.SKAttr = "PK" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fns []func(*idempotency.Options)
			if tc.opt != nil {
				fns = append(fns, tc.opt)
			}
			if _, err := idempotency.New(tc.client, tc.table, fns...); !errors.Is(err, idempotency.ErrInvalidOptions) {
				t.Errorf("err = %v, want ErrInvalidOptions", err)
			}
		})
	}
	if _, err := idempotency.New(db, "t"); err != nil {
		t.Errorf("zero options: %v", err)
	}
}

// Seed 004's IdempotencyLock layout: PK IDEMP#{eventId}#{userId}, SK LOCK,
// and any other layout and attribute names.
func TestKeyLayouts(t *testing.T) {
	ctx := context.Background()
	t.Run("seed004", func(t *testing.T) {
		db, table := newTable(t, "PK", "SK")
		s := newStore(t, db, table, func(o *idempotency.Options) { o.FirstValueAttr = "requestId" })
		eventID, userID := "ev-42", "user#7%"
		if _, _, err := idempotency.Do(ctx, s, eventID+"#"+userID, nil,
			func(context.Context) (string, error) { return "req-1", nil },
			func(o *idempotency.Options) {
				o.FirstValue = "req-1"
				o.Key = func(string) entity.Key { return idempotency.DefaultKey(eventID, userID) }
			}); err != nil {
			t.Fatal(err)
		}
		item := getItem(t, db, table, "PK", "IDEMP#ev-42#user%237%25", "SK", "LOCK")
		if str(item, "requestId") != "req-1" {
			t.Fatalf("no lock at IDEMP#ev-42#user%%237%%25 / LOCK with requestId: %v", item)
		}
	})
	t.Run("custom", func(t *testing.T) {
		db, table := newTable(t, "pk", "sk")
		s := newStore(t, db, table, func(o *idempotency.Options) {
			o.PKAttr, o.SKAttr, o.TTLAttr = "pk", "sk", "expiresAt"
			o.Key = func(k string) entity.Key { return entity.Key{PK: "TENANT#t1", SK: "IDEMP#" + k} }
		})
		for range 2 {
			if _, _, err := idempotency.Do(ctx, s, "x", nil, func(context.Context) (int, error) { return 1, nil }); err != nil {
				t.Fatal(err)
			}
		}
		item := getItem(t, db, table, "pk", "TENANT#t1", "sk", "IDEMP#x")
		if str(item, "status") != idempotency.StatusComplete || item["expiresAt"] == nil {
			t.Fatalf("record at TENANT#t1 / IDEMP#x: %v", item)
		}
	})
}

func TestFailurePolicies(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	ctx := context.Background()
	boom := errors.New("boom")
	t.Run("release", func(t *testing.T) {
		s := newStore(t, db, table)
		if _, _, err := idempotency.Do(ctx, s, "rel", nil, func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
		if item := getItem(t, db, table, "PK", "IDEMP#rel", "SK", "LOCK"); item != nil {
			t.Fatalf("released record still there: %v", item)
		}
		if v, replayed, err := idempotency.Do(ctx, s, "rel", nil, func(context.Context) (int, error) { return 7, nil }); err != nil || replayed || v != 7 {
			t.Fatalf("retry after release: %d %v %v", v, replayed, err)
		}
	})
	t.Run("record", func(t *testing.T) {
		s := newStore(t, db, table, func(o *idempotency.Options) { o.Failure = idempotency.RecordFailure })
		_, _, err := idempotency.Do(ctx, s, "rec", nil, func(context.Context) (int, error) { return 0, boom },
			func(o *idempotency.Options) { o.FirstValue = "req-9" })
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
		_, replayed, err := idempotency.Do(ctx, s, "rec", nil, func(context.Context) (int, error) { t.Error("fn ran"); return 0, nil })
		var fe *idempotency.FailedError
		if !errors.As(err, &fe) || !errors.Is(err, idempotency.ErrFailed) || !replayed {
			t.Fatalf("duplicate of a recorded failure: %v replayed=%v", err, replayed)
		}
		if fe.Message != "boom" || fe.FirstValue != "req-9" {
			t.Errorf("FailedError = %+v", fe)
		}
	})
	t.Run("per error", func(t *testing.T) {
		transient := errors.New("transient")
		s := newStore(t, db, table, func(o *idempotency.Options) {
			o.FailureFor = func(err error) idempotency.FailurePolicy {
				if errors.Is(err, transient) {
					return idempotency.ReleaseClaim
				}
				return idempotency.RecordFailure
			}
		})
		_, _, _ = idempotency.Do(ctx, s, "pe", nil, func(context.Context) (int, error) { return 0, transient })
		_, _, _ = idempotency.Do(ctx, s, "pe", nil, func(context.Context) (int, error) { return 0, boom })
		if _, _, err := idempotency.Do(ctx, s, "pe", nil, func(context.Context) (int, error) { return 1, nil }); !errors.Is(err, idempotency.ErrFailed) {
			t.Fatalf("err = %v, want the recorded boom", err)
		}
	})
	t.Run("panic releases", func(t *testing.T) {
		s := newStore(t, db, table)
		func() {
			defer func() {
				if recover() == nil {
					t.Error("panic swallowed")
				}
			}()
			_, _, _ = idempotency.Do(ctx, s, "pan", nil, func(context.Context) (int, error) { panic("oops") })
		}()
		if v, _, err := idempotency.Do(ctx, s, "pan", nil, func(context.Context) (int, error) { return 3, nil }); err != nil || v != 3 {
			t.Fatalf("after panic: %d %v", v, err)
		}
	})
	t.Run("stale owner release", func(t *testing.T) {
		// A failure write by an owner that lost the key changes nothing.
		clk := &clock{}
		crashing := &faulty{Client: db}
		a := newStore(t, crashing, table)
		b := newStore(t, db, table, func(o *idempotency.Options) { o.Now = clk.Now })
		entered, resume := make(chan struct{}), make(chan struct{})
		aErr := make(chan error, 1)
		go func() {
			_, _, err := idempotency.Do(ctx, a, "stale", nil, func(context.Context) (int, error) {
				crashing.failUpdates.Store(true)
				close(entered)
				<-resume
				return 0, boom
			})
			aErr <- err
		}()
		<-entered
		clk.Advance(2 * time.Minute)
		if _, _, err := idempotency.Do(ctx, b, "stale", nil, func(context.Context) (int, error) { return 5, nil }); err != nil {
			t.Fatal(err)
		}
		close(resume)
		if err := <-aErr; !errors.Is(err, idempotency.ErrLeaseLost) || !errors.Is(err, boom) {
			t.Fatalf("stale release: %v, want boom joined with ErrLeaseLost", err)
		}
		if v, replayed, err := idempotency.Do(ctx, b, "stale", nil, func(context.Context) (int, error) { return 0, nil }); err != nil || !replayed || v != 5 {
			t.Fatalf("B's record damaged: %d %v %v", v, replayed, err)
		}
	})
}

// A claim whose response is lost is resolved by a consistent read that
// compares the owner token.
func TestAmbiguousClaim(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	ctx := context.Background()
	t.Run("landed", func(t *testing.T) {
		f := &faulty{Client: db}
		f.losePutResponses.Store(1)
		cc := &counting{Client: f}
		s := newStore(t, cc, table)
		var runs atomic.Int64
		v, replayed, err := idempotency.Do(ctx, s, "amb1", nil, func(context.Context) (int64, error) { return runs.Add(1), nil })
		if err != nil || replayed || v != 1 {
			t.Fatalf("%d %v %v", v, replayed, err)
		}
		if d := cmp.Diff(counts{puts: 1, gets: 1, updates: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
	})
	t.Run("lost", func(t *testing.T) {
		f := &faulty{Client: db}
		f.dropPuts.Store(1)
		cc := &counting{Client: f}
		s := newStore(t, cc, table)
		v, replayed, err := idempotency.Do(ctx, s, "amb2", nil, func(context.Context) (int, error) { return 9, nil })
		if err != nil || replayed || v != 9 {
			t.Fatalf("%d %v %v", v, replayed, err)
		}
		if d := cmp.Diff(counts{puts: 2, gets: 1, updates: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
	})
	t.Run("cancelled caller gives the claim back", func(t *testing.T) {
		f := &faulty{Client: db}
		f.losePutResponses.Store(1)
		cctx, cancel := context.WithCancel(ctx)
		s := newStore(t, &cancelOnPut{Client: f, cancel: cancel}, table)
		_, _, err := idempotency.Do(cctx, s, "amb3", nil, func(context.Context) (int, error) { t.Error("fn ran"); return 0, nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if item := getItem(t, db, table, "PK", "IDEMP#amb3", "SK", "LOCK"); item != nil {
			t.Fatalf("claim not released: %v", item)
		}
	})
}

// cancelOnPut cancels the caller's context while its PutItem is in flight.
type cancelOnPut struct {
	entity.Client
	cancel context.CancelFunc
}

func (c *cancelOnPut) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := c.Client.PutItem(ctx, in, o...)
	c.cancel()
	return out, err
}

func TestResultTooLarge(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	cc := &counting{Client: db}
	s := newStore(t, cc, table)
	ctx := context.Background()
	big := strings.Repeat("x", idempotency.MaxItemSize)
	_, _, err := idempotency.Do(ctx, s, "big", nil, func(context.Context) (string, error) { return big, nil })
	if !errors.Is(err, idempotency.ErrResultTooLarge) || !errors.Is(err, entity.ErrItemTooLarge) {
		t.Fatalf("err = %v, want ErrResultTooLarge", err)
	}
	if !strings.Contains(err.Error(), "reference") {
		t.Errorf("error gives no guidance: %v", err)
	}
	item := getItem(t, db, table, "PK", "IDEMP#big", "SK", "LOCK")
	if str(item, "status") != idempotency.StatusFailed || item["result"] != nil {
		t.Fatalf("record after too-large result: status %q, result present %v", str(item, "status"), item["result"] != nil)
	}
	if _, _, err := idempotency.Do(ctx, s, "big", nil, func(context.Context) (string, error) { return "", nil }); !errors.Is(err, idempotency.ErrFailed) {
		t.Fatalf("duplicate: %v, want ErrFailed (fn's effects happened once)", err)
	}
	// Just under the limit is stored.
	fits := strings.Repeat("y", idempotency.MaxItemSize-1024)
	if _, _, err := idempotency.Do(ctx, s, "fits", nil, func(context.Context) (string, error) { return fits, nil }); err != nil {
		t.Fatalf("result just under the limit: %v", err)
	}
	v, replayed, err := idempotency.Do(ctx, s, "fits", nil, func(context.Context) (string, error) { return "", nil })
	if err != nil || !replayed || v != fits {
		t.Fatalf("replay of a large result: len %d %v %v", len(v), replayed, err)
	}
}

func TestWaitForResultStopsAtContext(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	s := newStore(t, db, table)
	ctx := context.Background()
	release := make(chan struct{})
	defer close(release)
	go func() {
		_, _, _ = idempotency.Do(ctx, s, "w", nil, func(context.Context) (int, error) { <-release; return 1, nil },
			func(o *idempotency.Options) { o.FirstValue = "req-first" })
	}()
	waitStatus(t, db, table, "IDEMP#w", idempotency.StatusInProgress)
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, _, err := idempotency.Do(wctx, s, "w", nil, func(context.Context) (int, error) { return 2, nil },
		func(o *idempotency.Options) { o.WaitForResult = true })
	first, ok := idempotency.FirstValue(err)
	if !errors.Is(err, idempotency.ErrInProgress) || !errors.Is(err, context.DeadlineExceeded) || !ok || first != "req-first" {
		t.Fatalf("err = %v (first %q), want ErrInProgress + DeadlineExceeded with the first value", err, first)
	}
}

// The claim and the caller's business write commit together; a duplicate
// writes neither.
func TestTransactItems(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	cc := &counting{Client: db}
	s := newStore(t, cc, table)
	ctx := context.Background()
	bump := types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "COUNTER"}, "SK": &types.AttributeValueMemberS{Value: "C"}},
		UpdateExpression:          aws.String("ADD n :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
	}}
	withTx := func(o *idempotency.Options) { o.TransactItems = []types.TransactWriteItem{bump} }
	counter := func() string {
		item := getItem(t, db, table, "PK", "COUNTER", "SK", "C")
		if n, ok := item["n"].(*types.AttributeValueMemberN); ok {
			return n.Value
		}
		return "0"
	}

	v, replayed, err := idempotency.Do(ctx, s, "tx", nil, func(context.Context) (string, error) { return "done", nil }, withTx)
	if err != nil || replayed || v != "done" {
		t.Fatalf("first: %q %v %v", v, replayed, err)
	}
	if d := cmp.Diff(counts{txs: 1, updates: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
		t.Errorf("first call (-want +got):\n%s", d)
	}
	cc.reset()
	v, replayed, err = idempotency.Do(ctx, s, "tx", nil, func(context.Context) (string, error) { return "again", nil }, withTx)
	if err != nil || !replayed || v != "done" {
		t.Fatalf("replay: %q %v %v", v, replayed, err)
	}
	if d := cmp.Diff(counts{txs: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
		t.Errorf("replay (-want +got):\n%s", d)
	}
	if got := counter(); got != "1" {
		t.Fatalf("business write applied %s times, want 1", got)
	}

	t.Run("business condition fails", func(t *testing.T) {
		// A transaction may touch an item once only (DynamoDB rejects the
		// request otherwise), so the failing check is on another item.
		failing := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName:           aws.String(table),
			Key:                 map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ACCOUNT#missing"}, "SK": &types.AttributeValueMemberS{Value: "META"}},
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}}
		_, _, err := idempotency.Do(ctx, s, "tx2", nil, func(context.Context) (int, error) { t.Error("fn ran"); return 0, nil },
			func(o *idempotency.Options) { o.TransactItems = []types.TransactWriteItem{bump, failing} })
		if !errors.Is(err, entity.ErrConditionFailed) {
			t.Fatalf("err = %v, want entity.ErrConditionFailed", err)
		}
		if item := getItem(t, db, table, "PK", "IDEMP#tx2", "SK", "LOCK"); item != nil {
			t.Fatalf("claim written although the transaction failed: %v", item)
		}
		if got := counter(); got != "1" {
			t.Fatalf("counter = %s, want 1 (nothing half-written)", got)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		var runs atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, errs[i] = idempotency.Do(ctx, s, "tx3", nil, func(context.Context) (int64, error) { return runs.Add(1), nil },
					withTx, func(o *idempotency.Options) { o.WaitForResult = true })
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("concurrent tx call: %v", err)
			}
		}
		if runs.Load() != 1 || counter() != "2" {
			t.Fatalf("runs %d, counter %s; want 1 and 2", runs.Load(), counter())
		}
	})
}

// A record whose result does not decode as R is reported, not guessed at.
func TestResultOfAnotherType(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	s := newStore(t, db, table)
	ctx := context.Background()
	if _, _, err := idempotency.Do(ctx, s, "typed", nil, func(context.Context) (string, error) { return "text", nil }); err != nil {
		t.Fatal(err)
	}
	_, _, err := idempotency.Do(ctx, s, "typed", nil, func(context.Context) (result, error) { return result{}, nil })
	if !errors.Is(err, idempotency.ErrCorruptRecord) {
		t.Fatalf("err = %v, want ErrCorruptRecord", err)
	}
}

// The SDK retries a write whose response was lost; the retry then fails its
// own condition. Seeing our owner token in the old item, Do knows that the
// first attempt succeeded.
func TestRetriedWritesAreRecognised(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	ctx := context.Background()
	f := &faulty{Client: db}
	f.repeatWrites.Store(true)
	s := newStore(t, f, table)
	var runs atomic.Int64
	v, replayed, err := idempotency.Do(ctx, s, "rep", nil, func(context.Context) (int64, error) { return runs.Add(1), nil })
	if err != nil || replayed || v != 1 {
		t.Fatalf("complete: %d %v %v", v, replayed, err)
	}
	boom := errors.New("boom")
	if _, _, err := idempotency.Do(ctx, s, "rep-release", nil, func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) || errors.Is(err, idempotency.ErrLeaseLost) {
		t.Fatalf("release: %v", err)
	}
	if _, _, err := idempotency.Do(ctx, s, "rep-record", nil, func(context.Context) (int, error) { return 0, boom },
		func(o *idempotency.Options) { o.Failure = idempotency.RecordFailure }); !errors.Is(err, boom) || errors.Is(err, idempotency.ErrLeaseLost) {
		t.Fatalf("record: %v", err)
	}
	if runs.Load() != 1 {
		t.Fatalf("fn ran %d times", runs.Load())
	}
}

// A completion whose response is lost is confirmed by a consistent read.
func TestAmbiguousComplete(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	f := &faulty{Client: db}
	f.loseUpdateResponses.Store(1)
	cc := &counting{Client: f}
	s := newStore(t, cc, table)
	v, _, err := idempotency.Do(context.Background(), s, "ac", nil, func(context.Context) (int, error) { return 4, nil })
	if err != nil || v != 4 {
		t.Fatalf("%d %v", v, err)
	}
	if d := cmp.Diff(counts{puts: 1, updates: 1, gets: 1}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

// A claim so slow that its lease is in doubt is renewed before fn starts;
// if it was taken over meanwhile, fn does not run and the call is answered
// as a duplicate.
func TestSlowClaim(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	ctx := context.Background()
	t.Run("renewed", func(t *testing.T) {
		f := &faulty{Client: db, afterPut: func() { time.Sleep(150 * time.Millisecond) }}
		cc := &counting{Client: f}
		s := newStore(t, cc, table, shortLease)
		if _, _, err := idempotency.Do(ctx, s, "slow1", nil, func(context.Context) (int, error) { return 1, nil }); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(counts{puts: 1, updates: 2}, cc.snapshot(), cmp.AllowUnexported(counts{})); d != "" {
			t.Errorf("calls (-want +got): renewal + completion expected\n%s", d)
		}
	})
	t.Run("taken over", func(t *testing.T) {
		clk := &clock{}
		b := newStore(t, db, table, func(o *idempotency.Options) { o.Now = clk.Now })
		f := &faulty{Client: db}
		f.afterPut = func() {
			time.Sleep(150 * time.Millisecond)
			clk.Advance(time.Hour)
			if _, _, err := idempotency.Do(ctx, b, "slow2", nil, func(context.Context) (string, error) { return "B", nil }); err != nil {
				t.Errorf("B: %v", err)
			}
		}
		a := newStore(t, f, table, shortLease)
		v, replayed, err := idempotency.Do(ctx, a, "slow2", nil, func(context.Context) (string, error) {
			t.Error("A ran fn on a claim that was taken over")
			return "A", nil
		})
		if err != nil || !replayed || v != "B" {
			t.Fatalf("A: %q replayed=%v err=%v, want B's result", v, replayed, err)
		}
	})
}

// The first caller's ctx is cancelled 200 ms into a 3 s function (a client
// that disconnected). The function sees the cancellation but goes on; the
// claim stays its own until it returns, so a second caller never runs the
// function again and gets the first run's result.
func TestCancelledCallerKeepsClaim(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	// A 1 s lease (renewed every 333 ms): shorter leases let a renewal
	// delayed by a loaded machine (race detector, DynamoDB Local's pauses)
	// end the claim, which is not what this test is about.
	s := newStore(t, db, table, func(o *idempotency.Options) { o.Lease = time.Second }, func(o *idempotency.Options) { o.Heartbeat = time.Second / 3 })
	var runs atomic.Int64
	sawCancel := make(chan struct{})
	fn := func(ctx context.Context) (string, error) {
		runs.Add(1)
		<-ctx.Done()
		close(sawCancel)
		time.Sleep(4500 * time.Millisecond) // the effects go on regardless
		return "first", nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	type res struct {
		v   string
		err error
	}
	first := make(chan res, 1)
	go func() {
		v, _, err := idempotency.Do(ctx, s, "cancelled", []byte("p"), fn)
		first <- res{v, err}
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case <-sawCancel:
	case <-time.After(5 * time.Second):
		t.Fatal("fn did not see the caller's cancellation")
	}
	// Well past several leases: the claim must still be held.
	time.Sleep(3 * time.Second)
	second := func(ctx context.Context) (string, error) {
		runs.Add(1)
		return "second", nil
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	v, replayed, err := idempotency.Do(wctx, s, "cancelled", []byte("p"), second, func(o *idempotency.Options) { o.WaitForResult = true })
	if err != nil || !replayed || v != "first" {
		t.Fatalf("second caller: %q replayed=%v err=%v, want the first run's result replayed", v, replayed, err)
	}
	if r := <-first; r.err != nil || r.v != "first" {
		t.Fatalf("first caller: %q, %v; want its own result stored", r.v, r.err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("fn ran %d times, want 1", n)
	}
}
