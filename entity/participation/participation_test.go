package participation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	p "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
)

var t0 = time.Date(2025, 10, 29, 10, 0, 0, 123456789, time.UTC)

// TestSeedKeys pins every key string of seed 004.
func TestSeedKeys(t *testing.T) {
	must := testenv.Must[entity.Key](t)
	str := testenv.Must[string](t)
	keyCases := []struct {
		name      string
		got, want entity.Key
	}{
		{"lock", must(p.IdempotencyLockKey("evt-1", "user-1")), entity.Key{PK: "IDEMP#evt-1#user-1", SK: "LOCK"}},
		{"request", must(p.RequestKey("req-1")), entity.Key{PK: "REQ#req-1", SK: "META"}},
		{"capacity", must(p.EventCapacityKey("evt-1")), entity.Key{PK: "EVENT#evt-1", SK: "CAPACITY"}},
		{"log", must(p.RequestStatusLogKey("req-1", t0)), entity.Key{PK: "REQ#req-1", SK: "LOG#2025-10-29T10:00:00.123456789Z"}},
	}
	for _, c := range keyCases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Fatal(diff)
			}
		})
	}
	strCases := []struct{ got, want string }{
		{str(p.RequestGSI1PK("user-1")), "USER#user-1"},
		{str(p.RequestGSI1SK(t0, "req-1")), "RAT#2025-10-29T10:00:00.123Z#REQ#req-1"},
		{str(p.RequestGSI2PK("evt-1")), "EVENT#evt-1"},
		{str(p.RequestGSI2SK(t0, "req-1")), "QAT#2025-10-29T10:00:00.123Z#REQ#req-1"},
		{str(p.RequestGSI2SKPrefixByQueuedAt(t0)), "QAT#2025-10-29T10:00:00.123Z#REQ#"},
		{str(p.IdempotencyLockPKPrefixByEventID("evt-1")), "IDEMP#evt-1#"},
		{p.RequestGSI2SKPrefix, "QAT#"},
		{p.RequestGSI1SKPrefix, "RAT#"},
		{p.RequestStatusLogSKPrefix, "LOG#"},
		{p.IdempotencyLockSK + p.RequestSK + p.EventCapacitySK, "LOCKMETACAPACITY"},
		{p.RequestType + p.IdempotencyLockType + p.EventCapacityType + p.RequestStatusLogType, "RequestIdempotencyLockEventCapacityRequestStatusLog"},
	}
	for i, c := range strCases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
	// Parsers reverse the builders.
	ev, us, err := p.ParseIdempotencyLockKey(must(p.IdempotencyLockKey("e#1", "u%2")))
	if err != nil || ev != "e#1" || us != "u%2" {
		t.Fatalf("parse lock: %q %q %v", ev, us, err)
	}
	qat, rid, err := p.ParseRequestGSI2SK("QAT#2025-10-29T10:00:00.123Z#REQ#req-1")
	if err != nil || rid != "req-1" || !qat.Equal(t0.Truncate(time.Millisecond)) {
		t.Fatalf("parse GSI2SK: %v %q %v", qat, rid, err)
	}
	if _, err := p.ParseRequestKey(entity.Key{PK: "REQ#r", SK: "LOG#x"}); !errors.Is(err, keys.ErrMalformed) {
		t.Fatalf("parse a log key as a request: %v", err)
	}
	// Times sort as strings.
	a, _ := p.RequestGSI2SK(t0, "z")
	b, _ := p.RequestGSI2SK(t0.Add(time.Millisecond), "a")
	if !(a < b) {
		t.Fatalf("%q should sort before %q", a, b)
	}
}

// TestBadKeys: an empty ID is keys.ErrMissingField; a delimiter inside an
// ID is escaped, so it cannot forge another key.
func TestBadKeys(t *testing.T) {
	for name, err := range map[string]error{
		"lock event": func() error { _, err := p.IdempotencyLockKey("", "u"); return err }(),
		"lock user":  func() error { _, err := p.IdempotencyLockKey("e", ""); return err }(),
		"request":    func() error { _, err := p.RequestKey(""); return err }(),
		"capacity":   func() error { _, err := p.EventCapacityKey(""); return err }(),
		"log time":   func() error { _, err := p.RequestStatusLogKey("r", time.Time{}); return err }(),
		"gsi2 time":  func() error { _, err := p.RequestGSI2SK(time.Time{}, "r"); return err }(),
	} {
		if !errors.Is(err, keys.ErrMissingField) {
			t.Errorf("%s: %v, want ErrMissingField", name, err)
		}
	}
	k, err := p.IdempotencyLockKey("evt#1", "user")
	if err != nil || k.PK != "IDEMP#evt%231#user" {
		t.Fatalf("delimiter: %v %v", k, err)
	}
	k2, _ := p.IdempotencyLockKey("evt", "1#user")
	if k.PK == k2.PK {
		t.Fatal("two different (event, user) pairs share a lock key")
	}
}

// TestEnums: unknown values are refused on encode and on decode with a
// typed error.
func TestEnums(t *testing.T) {
	r := p.Request{RequestID: "r1", EventID: "e1", UserID: "u1", Mode: p.ModeFirstCome, Status: "DONE", RequestedAt: t0.Truncate(time.Millisecond)}
	_, err := r.MarshalItem()
	var ee *entity.ConstraintError
	if !errors.Is(err, entity.ErrValidation) || !errors.As(err, &ee) || ee.Attr != "status" || ee.Rule != entity.RuleEnum || ee.Value != p.Status("DONE") {
		t.Fatalf("marshal unknown status: %v", err)
	}
	r.Status = p.StatusQueued
	item, err := r.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	for attr, bad := range map[string]string{"status": "DONE", "mode": "RANDOM", "uiResult": "MAYBE", "errorCode": "E42", "failureClass": "FLAKY"} {
		m := map[string]types.AttributeValue{}
		for k, v := range item {
			m[k] = v
		}
		m[attr] = &types.AttributeValueMemberS{Value: bad}
		var back p.Request
		err := back.UnmarshalItem(m)
		if !errors.Is(err, entity.ErrValidation) || !errors.As(err, &ee) || ee.Attr != attr || ee.Type != p.RequestType || fmt.Sprint(ee.Value) != bad {
			t.Errorf("decode %s=%s: %v", attr, bad, err)
		}
	}
	var back p.Request
	if err := back.UnmarshalItem(item); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Fatal(diff)
	}
}

// isRule reports whether err is an *entity.ConstraintError of attr and rule.
func isRule(err error, attr, rule string) bool {
	var ce *entity.ConstraintError
	return errors.Is(err, entity.ErrValidation) && errors.As(err, &ce) && ce.Attr == attr && ce.Rule == rule
}

func TestCheckTransition(t *testing.T) {
	S := func(s string) p.Status { return p.Status(s) }
	legal := [][2]p.Status{
		{p.StatusReceived, p.StatusQueued},
		{p.StatusReceived, p.StatusFailedFinal},
		{p.StatusQueued, p.StatusProcessing},
		{p.StatusQueued, p.StatusFailedFinal},
		{p.StatusProcessing, p.StatusSucceeded},
		{p.StatusProcessing, p.StatusRejected},
		{p.StatusProcessing, p.StatusFailedFinal},
	}
	testenv.Transitions(t, p.StatusValues(), legal, p.CheckTransition, func(err error, from, to p.Status) bool {
		var te *p.TransitionError
		return errors.Is(err, p.ErrIllegalTransition) && errors.As(err, &te) && te.From == from && te.To == to
	})
	if err := p.CheckTransition(S("NEW"), p.StatusQueued); !isRule(err, "status", entity.RuleEnum) {
		t.Errorf("unknown from: %v", err)
	}
}

// ---- integration tests against DynamoDB Local ----

func newTable(t *testing.T, client entity.Client) *entity.Table {
	t.Helper()
	if client == nil {
		client = testenv.Dynamo(t)
	}
	tbl := p.NewTable(client, testenv.UniqueName("participation"))
	return testenv.Table(t, tbl)
}

// memQueue records messages; fail makes Send fail.
type memQueue struct {
	mu   sync.Mutex
	msgs []p.Message
	fail error
}

func (q *memQueue) Send(_ context.Context, m p.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return q.fail
	}
	q.msgs = append(q.msgs, m)
	return nil
}

func (q *memQueue) all() []p.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]p.Message(nil), q.msgs...)
}

func raw(t *testing.T, tbl *entity.Table, k entity.Key) map[string]types.AttributeValue {
	t.Helper()
	return testenv.RawItem(t, tbl, k)
}

func scan(t *testing.T, tbl *entity.Table) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(tbl.Name()), ConsistentRead: aws.Bool(true)}
	for {
		out, err := tbl.Client().Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, out.Items...)
		if out.LastEvaluatedKey == nil {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func countType(items []map[string]types.AttributeValue, typ string) int {
	n := 0
	for _, it := range items {
		if testenv.Text(it, "Type") == typ {
			n++
		}
	}
	return n
}

func reqKey(t *testing.T, id string) entity.Key {
	k, err := p.RequestKey(id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestFirstComeLifecycle walks one request through the whole machine and
// checks easy mistakes 2 and 3 on the stored item.
func TestFirstComeLifecycle(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{}
	svc := p.NewService(tbl, q, func(o *p.Options) { o.StatusLog = true })
	if _, err := svc.CreateCapacity(ctx, "evt-fc", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateCapacity(ctx, "evt-fc", 5); !errors.Is(err, entity.ErrAlreadyExists) {
		t.Fatalf("second capacity: %v", err)
	}

	rc, err := svc.Participate(ctx, "evt-fc", "user-1", p.ModeFirstCome)
	if err != nil || rc.Duplicate || rc.Status != p.StatusQueued {
		t.Fatalf("participate: %+v %v", rc, err)
	}
	dup, err := svc.Participate(ctx, "evt-fc", "user-1", p.ModeFirstCome)
	if err != nil || !dup.Duplicate || dup.RequestID != rc.RequestID {
		t.Fatalf("duplicate click: %+v %v, want request %s", dup, err, rc.RequestID)
	}
	if n := len(q.all()); n != 1 {
		t.Fatalf("%d messages, want 1", n)
	}
	lock := raw(t, tbl, entity.Key{PK: "IDEMP#evt-fc#user-1", SK: "LOCK"})
	if testenv.Text(lock, "requestId") != rc.RequestID || testenv.Text(lock, "Type") != "IdempotencyLock" {
		t.Fatalf("lock %v", lock)
	}
	item := raw(t, tbl, reqKey(t, rc.RequestID))
	queuedAt := testenv.Text(item, "queuedAt")
	gsi2sk := testenv.Text(item, "GSI2SK")
	if testenv.Text(item, "status") != "QUEUED" || testenv.Text(item, "GSI2PK") != "EVENT#evt-fc" || gsi2sk != "QAT#"+queuedAt+"#REQ#"+rc.RequestID ||
		testenv.Text(item, "GSI1PK") != "USER#user-1" || testenv.Text(item, "GSI1SK") != "RAT#"+testenv.Text(item, "requestedAt")+"#REQ#"+rc.RequestID {
		t.Fatalf("queued item %v", item)
	}

	r, decided, err := svc.Process(ctx, q.all()[0])
	if err != nil || !decided || r.Status != p.StatusSucceeded || r.UIResult != p.UISuccess || r.FinishedAt.IsZero() || r.StartedAt.IsZero() {
		t.Fatalf("process: %+v %v %v", r, decided, err)
	}
	// A redelivery changes nothing.
	r2, decided, err := svc.Process(ctx, q.all()[0])
	if err != nil || decided || r2.Status != p.StatusSucceeded {
		t.Fatalf("redelivery: %+v %v %v", r2, decided, err)
	}
	// Easy mistake 3: queuedAt and GSI2SK never change after QUEUED.
	item = raw(t, tbl, reqKey(t, rc.RequestID))
	if testenv.Text(item, "queuedAt") != queuedAt || testenv.Text(item, "GSI2SK") != gsi2sk || testenv.Text(item, "GSI2PK") != "EVENT#evt-fc" {
		t.Fatalf("GSI2 key changed: %v", item)
	}
	capItem := raw(t, tbl, entity.Key{PK: "EVENT#evt-fc", SK: "CAPACITY"})
	if n := capItem["capacityRemaining"].(*types.AttributeValueMemberN).Value; n != "0" {
		t.Fatalf("capacityRemaining %s", n)
	}

	// Illegal transitions: checked before sending, and by the condition
	// when the caller's copy is stale.
	err = svc.Fail(ctx, &r, p.FailurePermanent, p.ErrorProcessing, "late")
	var te *p.TransitionError
	if !errors.As(err, &te) || te.From != p.StatusSucceeded || te.To != p.StatusFailedFinal || te.RequestID != rc.RequestID {
		t.Fatalf("fail a succeeded request: %v", err)
	}
	stale := r
	stale.Status = p.StatusProcessing
	err = svc.Fail(ctx, &stale, p.FailurePermanent, p.ErrorProcessing, "stale")
	if !errors.As(err, &te) || te.From != p.StatusSucceeded || stale.Status != p.StatusSucceeded {
		t.Fatalf("stale copy: %v (status now %s)", err, stale.Status)
	}
	if err := svc.Fail(ctx, &stale, "FLAKY", p.ErrorProcessing, ""); !isRule(err, "failureClass", entity.RuleEnum) {
		t.Fatalf("unknown failure class: %v", err)
	}

	// The status log holds the whole history, in time order.
	var logs []string
	for _, it := range scan(t, tbl) {
		if testenv.Text(it, "Type") == p.RequestStatusLogType && testenv.Text(it, "PK") == "REQ#"+rc.RequestID {
			if !strings.HasPrefix(testenv.Text(it, "SK"), "LOG#") {
				t.Fatalf("log SK %q", testenv.Text(it, "SK"))
			}
			logs = append(logs, testenv.Text(it, "SK")+" "+testenv.Text(it, "toStatus"))
		}
	}
	var got []string
	for _, l := range slices.Sorted(slices.Values(logs)) {
		got = append(got, l[strings.IndexByte(l, ' ')+1:])
	}
	if diff := cmp.Diff([]string{"RECEIVED", "QUEUED", "PROCESSING", "SUCCEEDED"}, got); diff != "" {
		t.Fatal(diff)
	}
}

// TestEnqueueFailure: easy mistake 2. A failed send ends in FAILED_FINAL
// with FAILED_INGEST_ENQUEUE, no queuedAt and no GSI2 key. The documented
// policy after a final failure: the user may participate again, so the
// next click is a new request (the failed one stays, for the record).
func TestEnqueueFailure(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{fail: errors.New("sqs: service unavailable")}
	svc := p.NewService(tbl, q)
	rc, err := svc.Participate(ctx, "evt-x", "user-1", p.ModeLottery)
	if !errors.Is(err, p.ErrEnqueue) || rc.Status != p.StatusFailedFinal || rc.RequestID == "" {
		t.Fatalf("participate: %+v %v", rc, err)
	}
	item := raw(t, tbl, reqKey(t, rc.RequestID))
	for _, a := range []string{"queuedAt", "GSI2PK", "GSI2SK"} {
		if _, ok := item[a]; ok {
			t.Errorf("%s present after a failed enqueue: %v", a, item)
		}
	}
	if testenv.Text(item, "status") != "FAILED_FINAL" || testenv.Text(item, "errorCode") != "FAILED_INGEST_ENQUEUE" || testenv.Text(item, "finishedAt") == "<absent>" {
		t.Fatalf("item %v", item)
	}
	q.fail = nil
	again, err := svc.Participate(ctx, "evt-x", "user-1", p.ModeLottery)
	if err != nil || again.Duplicate || again.RequestID == rc.RequestID || again.Status != p.StatusQueued {
		t.Fatalf("click after a final failure: %+v %v; want a new, queued request", again, err)
	}
	dup, err := svc.Participate(ctx, "evt-x", "user-1", p.ModeLottery)
	if err != nil || !dup.Duplicate || dup.RequestID != again.RequestID {
		t.Fatalf("duplicate of the new request: %+v %v", dup, err)
	}
	if item := raw(t, tbl, reqKey(t, rc.RequestID)); testenv.Text(item, "status") != "FAILED_FINAL" {
		t.Fatalf("the failed request changed: %v", item)
	}
}

// TestNoRequestWithoutLock: easy mistake 1. With the lock already held,
// no Request is written; and when the Request cannot be written, the lock
// is not written either (one transaction).
func TestNoRequestWithoutLock(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{}
	// A lock written by an earlier click.
	_, err := tbl.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "IDEMP#evt-1#user-1"}, "SK": &types.AttributeValueMemberS{Value: "LOCK"},
		"Type": &types.AttributeValueMemberS{Value: "IdempotencyLock"}, "requestId": &types.AttributeValueMemberS{Value: "first"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	svc := p.NewService(tbl, q)
	rc, err := svc.Participate(ctx, "evt-1", "user-1", p.ModeFirstCome)
	if err != nil || !rc.Duplicate || rc.RequestID != "first" {
		t.Fatalf("participate: %+v %v", rc, err)
	}
	if n := countType(scan(t, tbl), p.RequestType); n != 0 || len(q.all()) != 0 {
		t.Fatalf("%d requests and %d messages written without winning the lock", n, len(q.all()))
	}
	// A request ID that collides with an existing Request: the transaction
	// fails whole, so no lock is left behind.
	fixed := p.NewService(tbl, q, func(o *p.Options) { o.NewRequestID = func() string { return "same-id" } })
	if _, err := fixed.Participate(ctx, "evt-1", "user-2", p.ModeFirstCome); err != nil {
		t.Fatal(err)
	}
	if _, err := fixed.Participate(ctx, "evt-1", "user-3", p.ModeFirstCome); err == nil {
		t.Fatal("colliding request id accepted")
	}
	if it := raw(t, tbl, entity.Key{PK: "IDEMP#evt-1#user-3", SK: "LOCK"}); len(it) != 0 {
		t.Fatalf("lock written without its request: %v", it)
	}
}

// TestBadInput: each bad input is typed and writes nothing.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{}
	svc := p.NewService(tbl, q)
	cases := []struct {
		name string
		err  error
		is   []error
	}{
		{"empty event", func() error { _, err := svc.Participate(ctx, "", "u", p.ModeFirstCome); return err }(), []error{entity.ErrValidation, keys.ErrMissingField}},
		{"empty user", func() error { _, err := svc.Participate(ctx, "e", "", p.ModeFirstCome); return err }(), []error{entity.ErrValidation, keys.ErrMissingField}},
		{"unknown mode", func() error { _, err := svc.Participate(ctx, "e", "u", "RAFFLE"); return err }(), []error{entity.ErrValidation}},
		{"zero capacity", func() error { _, err := svc.CreateCapacity(ctx, "e", 0); return err }(), []error{entity.ErrValidation}},
		{"empty capacity event", func() error { _, err := svc.CreateCapacity(ctx, "", 3); return err }(), []error{entity.ErrValidation, keys.ErrMissingField}},
		{"empty message", func() error { _, _, err := svc.Process(ctx, p.Message{}); return err }(), []error{entity.ErrValidation, keys.ErrMissingField}},
		{"unknown request", func() error { _, _, err := svc.Process(ctx, p.Message{RequestID: "nope"}); return err }(), []error{entity.ErrNotFound}},
	}
	for _, c := range cases {
		for _, want := range c.is {
			if !errors.Is(c.err, want) {
				t.Errorf("%s: %v, want %v", c.name, c.err, want)
			}
		}
	}
	if items := scan(t, tbl); len(items) != 0 || len(q.all()) != 0 {
		t.Fatalf("bad input wrote %d items", len(items))
	}
	// An item with an unknown status in the table: decoding is a typed error.
	_, err := tbl.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "REQ#weird"}, "SK": &types.AttributeValueMemberS{Value: "META"},
		"Type": &types.AttributeValueMemberS{Value: "Request"}, "requestId": &types.AttributeValueMemberS{Value: "weird"},
		"status": &types.AttributeValueMemberS{Value: "ARCHIVED"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Process(ctx, p.Message{RequestID: "weird"}); !isRule(err, "status", entity.RuleEnum) {
		t.Fatalf("unknown stored status: %v", err)
	}
}

// TestNotReady: a message delivered before the API recorded QUEUED proves
// the enqueue: the worker records QUEUED with the message's queuedAt and
// decides; the API's own QUEUED write then finds the request moved on.
// GSI2SK is written once, from the message's queuedAt. A message without
// queuedAt (an older sender) is refused with ErrNotReady and processed
// once the API recorded QUEUED.
func TestNotReady(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	var svc *p.Service
	var early error
	q := queueFunc(func(ctx context.Context, m p.Message) error {
		_, _, early = svc.Process(ctx, m) // the worker is faster than the API
		return nil
	})
	svc = p.NewService(tbl, q, func(o *p.Options) { o.Draw = func(p.Request) bool { return true } })
	rc, err := svc.Participate(ctx, "evt-l", "user-1", p.ModeLottery)
	if err != nil || early != nil || rc.Status != p.StatusSucceeded {
		t.Fatalf("early delivery: %v; receipt %+v %v", early, rc, err)
	}
	item := raw(t, tbl, reqKey(t, rc.RequestID))
	if testenv.Text(item, "queuedAt") == "<absent>" || !strings.HasPrefix(testenv.Text(item, "GSI2SK"), "QAT#"+testenv.Text(item, "queuedAt")) {
		t.Fatalf("queuedAt/GSI2SK after the worker's promotion: %v", item)
	}

	// An older sender's message carries no queuedAt.
	var old p.Message
	svc2 := p.NewService(tbl, queueFunc(func(ctx context.Context, m p.Message) error {
		old = p.Message{RequestID: m.RequestID, EventID: m.EventID}
		_, _, early = svc.Process(ctx, old)
		return nil
	}), func(o *p.Options) { o.Draw = func(p.Request) bool { return true } })
	rc2, err := svc2.Participate(ctx, "evt-l", "user-2", p.ModeLottery)
	if err != nil || !errors.Is(early, p.ErrNotReady) {
		t.Fatalf("early delivery without queuedAt: %v (participate %v)", early, err)
	}
	r, decided, err := svc.Process(ctx, old)
	if err != nil || !decided || r.RequestID != rc2.RequestID || r.Status != p.StatusSucceeded || r.UIResult != p.UILotteryWin {
		t.Fatalf("redelivery: %+v %v %v", r, decided, err)
	}
}

type queueFunc func(ctx context.Context, m p.Message) error

func (f queueFunc) Send(ctx context.Context, m p.Message) error { return f(ctx, m) }

// TestLottery: LOTTERY uses no capacity; the draw decides WIN or LOSE.
func TestLottery(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{}
	svc := p.NewService(tbl, q, func(o *p.Options) {
		o.Draw = func(r p.Request) bool { return r.UserID == "winner" }
	})
	for _, u := range []string{"winner", "loser"} {
		if _, err := svc.Participate(ctx, "evt-lot", u, p.ModeLottery); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]p.UIResult{}
	for _, m := range q.all() {
		r, _, err := svc.Process(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		got[r.UserID] = r.UIResult
	}
	if got["winner"] != p.UILotteryWin || got["loser"] != p.UILotteryLose {
		t.Fatalf("results %v", got)
	}
	if n := countType(scan(t, tbl), p.EventCapacityType); n != 0 {
		t.Fatalf("lottery created %d capacity items", n)
	}
}

// TestEventWithoutCapacity: a FIRST_COME event with no EventCapacity ends
// FAILED_FINAL, PERMANENT, FAILED_EVENT_NOT_FOUND.
func TestEventWithoutCapacity(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{}
	svc := p.NewService(tbl, q)
	if _, err := svc.Participate(ctx, "evt-none", "u", p.ModeFirstCome); err != nil {
		t.Fatal(err)
	}
	r, decided, err := svc.Process(ctx, q.all()[0])
	if err != nil || !decided || r.Status != p.StatusFailedFinal || r.ErrorCode != p.ErrorEventNotFound || r.FailureClass != p.FailurePermanent {
		t.Fatalf("%+v %v %v", r, decided, err)
	}
}

// recorder records the write requests that reach DynamoDB.
type recorder struct {
	entity.Client
	mu      sync.Mutex
	updates []*dynamodb.UpdateItemInput
	txs     []*dynamodb.TransactWriteItemsInput
}

func (r *recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	r.mu.Lock()
	r.updates = append(r.updates, in)
	r.mu.Unlock()
	return r.Client.UpdateItem(ctx, in, o...)
}

func (r *recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.mu.Lock()
	r.txs = append(r.txs, in)
	r.mu.Unlock()
	return r.Client.TransactWriteItems(ctx, in, o...)
}

// TestExactlyNWinners: many users, many workers, every message delivered
// twice at once: exactly N requests succeed, every other is rejected for
// capacity, the counter ends at 0. It also checks easy mistakes 4 (every
// status change is conditioned on status) and 5 (GSI attributes only on
// Request items).
func TestExactlyNWinners(t *testing.T) {
	const (
		capacity = 7
		users    = 30
		workers  = 12
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &recorder{Client: testenv.Dynamo(t)}
	tbl := newTable(t, rec)
	q := &memQueue{}
	svc := p.NewService(tbl, q)
	if _, err := svc.CreateCapacity(ctx, "evt-n", capacity); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := svc.Participate(ctx, "evt-n", fmt.Sprintf("user-%02d", i), p.ModeFirstCome); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	msgs := q.all()
	if len(msgs) != users {
		t.Fatalf("%d messages, want %d", len(msgs), users)
	}
	deliveries := make(chan p.Message, 2*users)
	for _, m := range msgs {
		deliveries <- m
		deliveries <- m // at-least-once: a duplicate of every message
	}
	close(deliveries)
	var decided, dupes atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range deliveries {
				_, d, err := svc.Process(ctx, m)
				if err != nil {
					t.Error(err)
					return
				}
				if d {
					decided.Add(1)
				} else {
					dupes.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if decided.Load() != users || dupes.Load() != users {
		t.Fatalf("decided %d, duplicates %d; want %d each", decided.Load(), dupes.Load(), users)
	}
	items := scan(t, tbl)
	won, lost := 0, 0
	for _, it := range items {
		if testenv.Text(it, "Type") != p.RequestType {
			continue
		}
		switch testenv.Text(it, "uiResult") {
		case "SUCCESS":
			won++
		case "REJECTED_CAPACITY":
			lost++
		default:
			t.Errorf("request %s ended %s/%s", testenv.Text(it, "requestId"), testenv.Text(it, "status"), testenv.Text(it, "uiResult"))
		}
	}
	if won != capacity || lost != users-capacity {
		t.Fatalf("%d winners, %d rejected; want %d and %d", won, lost, capacity, users-capacity)
	}
	capItem := raw(t, tbl, entity.Key{PK: "EVENT#evt-n", SK: "CAPACITY"})
	if n := capItem["capacityRemaining"].(*types.AttributeValueMemberN).Value; n != "0" {
		t.Fatalf("capacityRemaining %s, want 0", n)
	}

	// Easy mistake 5: GSI attributes only on Request items.
	for _, it := range items {
		for _, a := range []string{"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"} {
			if _, ok := it[a]; ok && testenv.Text(it, "Type") != p.RequestType {
				t.Errorf("%s on a %s item", a, testenv.Text(it, "Type"))
			}
		}
	}
	for _, sc := range []*entity.Schema{(*p.IdempotencyLock)(nil).EntitySchema(), (*p.EventCapacity)(nil).EntitySchema(), (*p.RequestStatusLog)(nil).EntitySchema()} {
		for _, k := range sc.Keys {
			if k.Index != "" {
				t.Errorf("%s declares index key %s", sc.Type, k.Attr)
			}
		}
	}

	// Easy mistake 4: every write to a Request item is conditioned on status.
	checkCond := func(what string, key map[string]types.AttributeValue, cond *string, names map[string]string) {
		if !strings.HasPrefix(testenv.Text(key, "PK"), "REQ#") || testenv.Text(key, "SK") != "META" {
			return
		}
		hasStatus := false
		for ph, n := range names {
			if n == "status" && cond != nil && strings.Contains(*cond, ph) {
				hasStatus = true
			}
		}
		if !hasStatus {
			t.Errorf("%s of %s without a status condition: %v", what, testenv.Text(key, "PK"), aws.ToString(cond))
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	nReq := 0
	for _, in := range rec.updates {
		checkCond("UpdateItem", in.Key, in.ConditionExpression, in.ExpressionAttributeNames)
		nReq++
	}
	for _, tx := range rec.txs {
		for _, it := range tx.TransactItems {
			if it.Update != nil {
				checkCond("transaction Update", it.Update.Key, it.Update.ConditionExpression, it.Update.ExpressionAttributeNames)
				nReq++
			}
		}
	}
	if nReq < users*3 {
		t.Fatalf("only %d request updates recorded", nReq)
	}
}

// TestConcurrentClicks: 20 simultaneous clicks of one user make one
// Request and one message, and every click gets the same requestId.
func TestConcurrentClicks(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	q := &memQueue{}
	svc := p.NewService(tbl, q)
	ids := make([]string, 20)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := svc.Participate(ctx, "evt-c", "user-1", p.ModeLottery)
			if err != nil {
				t.Error(err)
			}
			ids[i] = rc.RequestID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("clicks got different requestIds: %v", ids)
		}
	}
	if n := countType(scan(t, tbl), p.RequestType); n != 1 || len(q.all()) != 1 {
		t.Fatalf("%d requests, %d messages; want 1 and 1", n, len(q.all()))
	}
}
