package sqsqueue_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/consumer"
	"github.com/tablekit/tablekit/consumer/sqsqueue"
	"github.com/tablekit/tablekit/internal/testenv"
)

type job struct {
	N     int    `json:"n"`
	Group string `json:"group,omitempty"`
}

func newQueue(t *testing.T, c *sqs.Client, url string, optFns ...func(*sqsqueue.Options[job])) *sqsqueue.Queue[job] {
	t.Helper()
	q, err := sqsqueue.New(c, append([]func(*sqsqueue.Options[job]){func(o *sqsqueue.Options[job]) {
		o.QueueURL = url
		o.WaitTime = time.Second
		o.NoVisibilityBatch = true // goaws lacks ChangeMessageVisibilityBatch
		o.CountReceives = true     // goaws always reports ApproximateReceiveCount 1
	}}, optFns...)...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestConsumerOnSQS: 40 messages sent at once are each handled once by a
// consumer of concurrency 10 on goaws; deletes go out in batches.
func TestConsumerOnSQS(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq-roundtrip", nil)
	q := newQueue(t, c, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); _ = q.Send(ctx, job{N: i}) }()
	}
	wg.Wait()
	var (
		mu   sync.Mutex
		seen = map[int]int{}
		left atomic.Int32
	)
	left.Store(n)
	rctx, stop := context.WithCancel(ctx)
	cons, err := consumer.New(q, func(ctx context.Context, m consumer.Message[job]) error {
		mu.Lock()
		seen[m.Body.N]++
		mu.Unlock()
		if left.Add(-1) == 0 {
			stop()
		}
		return nil
	}, func(o *consumer.Options[job]) { o.Concurrency = 10 })
	if err != nil {
		t.Fatal(err)
	}
	_ = cons.Run(rctx)
	if len(seen) != n {
		t.Fatalf("%d distinct messages handled, want %d", len(seen), n)
	}
	for k, v := range seen {
		if v != 1 {
			t.Errorf("message %d handled %d times", k, v)
		}
	}
	st := q.Stats()
	t.Logf("stats %+v, consumer %+v", st, cons.Metrics())
	if st.Sent != n || st.Deleted != n {
		t.Errorf("sent %d, deleted %d, want %d each", st.Sent, st.Deleted, n)
	}
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})
	if err != nil || len(out.Messages) != 0 {
		t.Errorf("queue not empty after the run: %d messages, %v", len(out.Messages), err)
	}
}

// TestRedeliveryAndExpiredHandle: a message not deleted within its
// visibility timeout comes back (a duplicate delivery) with the receive
// count 2 and a new handle; the old handle then fails with
// consumer.ErrInvalidHandle on Delete and ChangeVisibility.
func TestRedeliveryAndExpiredHandle(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq-redeliver", map[string]string{"VisibilityTimeout": "1"})
	q := newQueue(t, c, url)
	ctx := context.Background()
	if err := q.Send(ctx, job{N: 7}); err != nil {
		t.Fatal(err)
	}
	first := receiveOne(t, q)
	if first.ReceiveCount != 1 || first.Body.N != 7 || first.SentAt.IsZero() {
		t.Fatalf("first delivery %+v", first)
	}
	time.Sleep(2500 * time.Millisecond)
	second := receiveOne(t, q)
	if second.ID != first.ID || second.ReceiveCount != 2 || second.Handle == first.Handle {
		t.Fatalf("second delivery %+v after %+v", second, first)
	}
	if err := q.Delete(ctx, first.Handle); !errors.Is(err, consumer.ErrInvalidHandle) {
		t.Errorf("Delete with the expired handle: %v, want ErrInvalidHandle", err)
	}
	if err := q.ChangeVisibility(ctx, first.Handle, time.Second); !errors.Is(err, consumer.ErrInvalidHandle) {
		t.Errorf("ChangeVisibility with the expired handle: %v, want ErrInvalidHandle", err)
	}
	if err := q.Delete(ctx, second.Handle); err != nil {
		t.Errorf("Delete with the current handle: %v", err)
	}
}

func receiveOne(t *testing.T, q *sqsqueue.Queue[job]) consumer.Message[job] {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ms, err := q.Receive(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 1 {
			return ms[0]
		}
		if len(ms) > 1 {
			t.Fatalf("%d messages, want 1", len(ms))
		}
	}
	t.Fatal("no message within 10 s")
	return consumer.Message[job]{}
}

// TestQueueNotFound: every call on a queue that does not exist fails with
// ErrQueueNotFound.
func TestQueueNotFound(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq-missing", nil) + "-gone"
	q := newQueue(t, c, url)
	ctx := context.Background()
	if err := q.Send(ctx, job{}); !errors.Is(err, sqsqueue.ErrQueueNotFound) {
		t.Errorf("Send: %v", err)
	}
	if _, err := q.Receive(ctx, 1); !errors.Is(err, sqsqueue.ErrQueueNotFound) {
		t.Errorf("Receive: %v", err)
	}
}

// TestHeartbeat: a handler that runs 3 s on a queue with a 1 s visibility
// timeout keeps its message hidden through consumer.Options.Heartbeat: a
// second consumer on the same queue never sees it, and it is handled once.
func TestHeartbeat(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq-heartbeat", map[string]string{"VisibilityTimeout": "1"})
	q := newQueue(t, c, url)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := q.Send(ctx, job{N: 1}); err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	done := make(chan struct{})
	h := func(ctx context.Context, m consumer.Message[job]) error {
		if handled.Add(1) == 1 {
			time.Sleep(3 * time.Second)
			close(done)
		}
		return nil
	}
	opts := func(o *consumer.Options[job]) {
		o.Heartbeat = 300 * time.Millisecond
		o.HeartbeatVisibility = 2 * time.Second
	}
	c1, _ := consumer.New(q, h, opts)
	c2, _ := consumer.New(newQueue(t, c, url), h, opts)
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, cons := range []*consumer.Consumer[job]{c1, c2} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = cons.Run(rctx) }()
	}
	<-done
	time.Sleep(1500 * time.Millisecond) // a lapse of the heartbeat would show now
	stop()
	wg.Wait()
	if n := handled.Load(); n != 1 {
		t.Errorf("handled %d times, want 1", n)
	}
	if m := c1.Metrics(); m.Heartbeats+c2.Metrics().Heartbeats < 5 || m.HeartbeatFailed+c2.Metrics().HeartbeatFailed != 0 {
		t.Errorf("heartbeats %+v %+v", m, c2.Metrics())
	}
}

// TestFIFO: on a FIFO queue each message carries its group ID and
// deduplication ID; messages of one group come back in send order.
func TestFIFO(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq.fifo", map[string]string{"FifoQueue": "true"})
	q := newQueue(t, c, url, func(o *sqsqueue.Options[job]) {
		o.GroupID = func(b job) string { return b.Group }
		o.DeduplicationID = func(b job) string { return fmt.Sprint(b.Group, b.N) }
	})
	ctx := context.Background()
	for i := range 6 {
		if err := q.Send(ctx, job{N: i, Group: []string{"a", "b"}[i%2]}); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string][]int{}
	deadline := time.Now().Add(20 * time.Second)
	for total := 0; total < 6 && time.Now().Before(deadline); {
		ms, err := q.Receive(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			got[m.Body.Group] = append(got[m.Body.Group], m.Body.N)
			total++
			if err := q.Delete(ctx, m.Handle); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := cmp.Diff(map[string][]int{"a": {0, 2, 4}, "b": {1, 3, 5}}, got); d != "" {
		t.Errorf("per group (-want +got):\n%s", d)
	}
}

func TestNewErrors(t *testing.T) {
	for name, fn := range map[string]func(*sqsqueue.Options[job]){
		"no url":               func(o *sqsqueue.Options[job]) {},
		"negative wait":        func(o *sqsqueue.Options[job]) { o.QueueURL = "u"; o.WaitTime = -1 },
		"negative delete wait": func(o *sqsqueue.Options[job]) { o.QueueURL = "u"; o.DeleteWait = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := sqsqueue.New(&fakeClient{}, fn); !errors.Is(err, sqsqueue.ErrInvalidOptions) {
				t.Errorf("err = %v", err)
			}
		})
	}
	if _, err := sqsqueue.New[job](nil, func(o *sqsqueue.Options[job]) { o.QueueURL = "u" }); !errors.Is(err, sqsqueue.ErrInvalidOptions) {
		t.Errorf("nil client: %v", err)
	}
}

// fakeClient answers every call with err and every batch with the
// failures fail; it records the batch sizes. A fake of our own narrow
// interface: SQS's throttling cannot be provoked on goaws.
type fakeClient struct {
	sqsqueue.Client
	err     error
	fail    []types.BatchResultErrorEntry
	mu      sync.Mutex
	batches []int
}

func (f *fakeClient) SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return &sqs.SendMessageOutput{}, f.err
}

func (f *fakeClient) ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	return &sqs.ReceiveMessageOutput{}, f.err
}

func (f *fakeClient) DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	f.mu.Lock()
	f.batches = append(f.batches, 1)
	f.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	return &sqs.DeleteMessageOutput{}, f.err
}

func (f *fakeClient) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	f.mu.Lock()
	f.batches = append(f.batches, len(in.Entries))
	f.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	if f.err != nil {
		return nil, f.err
	}
	return &sqs.DeleteMessageBatchOutput{Failed: f.fail}, nil
}

func (f *fakeClient) ChangeMessageVisibility(context.Context, *sqs.ChangeMessageVisibilityInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	return &sqs.ChangeMessageVisibilityOutput{}, f.err
}

func (f *fakeClient) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &sqs.ChangeMessageVisibilityBatchOutput{Failed: f.fail}, nil
}

// TestErrorTranslation: SQS's error codes map to the package's sentinels
// on every call, and a batch entry's failure to that entry only.
func TestErrorTranslation(t *testing.T) {
	api := func(code string) error { return &smithy.GenericAPIError{Code: code, Message: "m"} }
	cases := []struct {
		code string
		want error
	}{
		{"AWS.SimpleQueueService.NonExistentQueue", sqsqueue.ErrQueueNotFound},
		{"QueueDoesNotExist", sqsqueue.ErrQueueNotFound},
		{"ReceiptHandleIsInvalid", consumer.ErrInvalidHandle},
		{"AWS.SimpleQueueService.MessageNotInFlight", consumer.ErrInvalidHandle},
		{"RequestThrottled", sqsqueue.ErrThrottled},
		{"ThrottlingException", sqsqueue.ErrThrottled},
		{"OverLimit", sqsqueue.ErrThrottled},
		{"KmsThrottled", sqsqueue.ErrThrottled},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			f := &fakeClient{err: api(tc.code)}
			q, err := sqsqueue.New(f, func(o *sqsqueue.Options[job]) { o.QueueURL = "u" })
			if err != nil {
				t.Fatal(err)
			}
			check := func(op string, err error) {
				t.Helper()
				var ae smithy.APIError
				if !errors.Is(err, tc.want) || !errors.As(err, &ae) {
					t.Errorf("%s: %v, want errors.Is %v and the APIError kept", op, err, tc.want)
				}
			}
			check("Send", q.Send(ctx, job{}))
			_, rerr := q.Receive(ctx, 1)
			check("Receive", rerr)
			check("Delete", q.Delete(ctx, "h"))
			check("ChangeVisibility", q.ChangeVisibility(ctx, "h", time.Second))
		})
	}
	t.Run("batch entry", func(t *testing.T) {
		f := &fakeClient{fail: []types.BatchResultErrorEntry{{Id: aws.String("1"), Code: aws.String("ReceiptHandleIsInvalid"), Message: aws.String("gone")}}}
		q, _ := sqsqueue.New(f, func(o *sqsqueue.Options[job]) { o.QueueURL = "u" })
		errs := make([]error, 12)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = q.Delete(ctx, fmt.Sprint("h", i)) }()
		}
		wg.Wait()
		bad := 0
		for _, err := range errs {
			switch {
			case errors.Is(err, consumer.ErrInvalidHandle):
				bad++
			case err != nil:
				t.Errorf("unexpected %v", err)
			}
		}
		f.mu.Lock()
		sizes := append([]int(nil), f.batches...)
		f.mu.Unlock()
		sort.Ints(sizes)
		t.Logf("batch sizes %v", sizes)
		if len(sizes) >= 12 {
			t.Errorf("12 concurrent deletes went out in %d requests: no batching", len(sizes))
		}
		if want := len(sizes) - countOnes(sizes); bad != want {
			t.Errorf("%d entries failed, want one per batch request (%d)", bad, want)
		}
	})
}

func countOnes(s []int) int {
	n := 0
	for _, v := range s {
		if v == 1 {
			n++
		}
	}
	return n
}

// TestDeleteWait on goaws: the Deletes of the 10 messages of one receive,
// made by 10 handlers finishing at different moments, go out in one
// request; a Delete while no other message is held does not wait; one
// whose companions are never deleted waits DeleteWait at most.
func TestDeleteWait(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq-deletewait", nil)
	const wait = 2 * time.Second
	q := newQueue(t, c, url, func(o *sqsqueue.Options[job]) { o.DeleteWait = wait })
	ctx := context.Background()
	receive := func(n int) []consumer.Message[job] {
		t.Helper()
		for i := range n {
			if err := q.Send(ctx, job{N: i}); err != nil {
				t.Fatal(err)
			}
		}
		var got []consumer.Message[job]
		for deadline := time.Now().Add(10 * time.Second); len(got) < n && time.Now().Before(deadline); {
			ms, err := q.Receive(ctx, n-len(got))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ms...)
		}
		if len(got) != n {
			t.Fatalf("received %d of %d", len(got), n)
		}
		return got
	}
	t.Run("one batch", func(t *testing.T) {
		ms := receive(10)
		before := q.Stats()
		start := time.Now()
		var wg sync.WaitGroup
		for i, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 5 * time.Millisecond) // handlers finish one by one
				if err := q.Delete(ctx, m.Handle); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		after := q.Stats()
		if reqs := after.Requests - before.Requests; reqs != 1 || after.DeleteBatches-before.DeleteBatches != 1 {
			t.Errorf("10 deletes in %d requests (%d batches), want 1 batch", reqs, after.DeleteBatches-before.DeleteBatches)
		}
		if d := time.Since(start); d >= wait {
			t.Errorf("a full batch waited %v (DeleteWait %v)", d, wait)
		}
	})
	t.Run("alone", func(t *testing.T) {
		m := receive(1)[0]
		start := time.Now()
		if err := q.Delete(ctx, m.Handle); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d >= wait {
			t.Errorf("a lone Delete waited %v", d)
		}
	})
	t.Run("companions never deleted", func(t *testing.T) {
		ms := receive(2)
		start := time.Now()
		if err := q.Delete(ctx, ms[0].Handle); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < wait/2 || d > wait+5*time.Second {
			t.Errorf("Delete took %v, want about DeleteWait (%v)", d, wait)
		}
		// A ChangeVisibility releases the other: the next Delete does not wait.
		if err := q.ChangeVisibility(ctx, ms[1].Handle, 0); err != nil {
			t.Fatal(err)
		}
		m := receiveOne(t, q)
		start = time.Now()
		if err := q.Delete(ctx, m.Handle); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d >= wait {
			t.Errorf("Delete after the companion was re-hidden waited %v", d)
		}
	})
}

// TestReceiveCutShortReleases, on goaws: a Receive whose ctx ends during
// its long poll returns at once, though goaws keeps the poll open on its
// side and hands it the message sent next. That message does not stay
// hidden for the queue's visibility timeout (an hour): the Queue lets the
// request finish and makes the message visible again, so the next Receive
// gets it, first time.
func TestReceiveCutShortReleases(t *testing.T) {
	c := testenv.SQS(t)
	url := testenv.SQSQueue(t, c, "sqsq-cutshort", map[string]string{"VisibilityTimeout": "3600"})
	q := newQueue(t, c, url, func(o *sqsqueue.Options[job]) { o.WaitTime = 3 * time.Second })
	ctx := context.Background()
	rctx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() {
		ms, err := q.Receive(rctx, 10)
		if err == nil {
			err = fmt.Errorf("%d messages, want the ctx's error", len(ms))
		}
		got <- err
	}()
	time.Sleep(300 * time.Millisecond) // the long poll is open on goaws
	cancel()
	select {
	case err := <-got:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cut-short Receive: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Receive did not return when its ctx ended")
	}
	if err := q.Send(ctx, job{N: 1}); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := q.WaitReceives(wctx); err != nil {
		t.Fatal(err)
	}
	if st := q.Stats(); st.Released != 1 || st.ReleaseFailed != 0 {
		t.Fatalf("stats %+v, want the message goaws gave the open poll released", st)
	}
	ms, err := q.Receive(ctx, 10)
	if err != nil || len(ms) != 1 || ms[0].Body.N != 1 {
		t.Fatalf("next Receive: %v, %+v; want the released message", err, ms)
	}
	if err := q.Delete(ctx, ms[0].Handle); err != nil {
		t.Fatal(err)
	}
}

// cutShortClient answers a ReceiveMessage with msgs once answer is
// closed, and records the visibility batches.
type cutShortClient struct {
	fakeClient
	answer  chan struct{}
	msgs    []types.Message
	entries [][]types.ChangeMessageVisibilityBatchRequestEntry
}

func (f *cutShortClient) ReceiveMessage(ctx context.Context, _ *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	select {
	case <-f.answer:
		return &sqs.ReceiveMessageOutput{Messages: f.msgs}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *cutShortClient) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries = append(f.entries, in.Entries)
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		out.Successful = append(out.Successful, types.ChangeMessageVisibilityBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

// TestReceiveCutShortBatch: the messages a cut-short receive brings are
// released in one ChangeMessageVisibilityBatch of visibility 0 where the
// server has it; WaitReceives waits for that.
func TestReceiveCutShortBatch(t *testing.T) {
	f := &cutShortClient{answer: make(chan struct{}), msgs: []types.Message{
		{MessageId: aws.String("a"), ReceiptHandle: aws.String("ha"), Body: aws.String(`{"n":1}`)},
		{MessageId: aws.String("b"), ReceiptHandle: aws.String("hb"), Body: aws.String(`{"n":2}`)},
	}}
	q, err := sqsqueue.New[job](f, func(o *sqsqueue.Options[job]) { o.QueueURL = "u" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.Receive(ctx, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("Receive with an ended ctx: %v", err) // no request at all
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := q.Receive(ctx, 10); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cut-short Receive: %v", err)
	}
	close(f.answer)
	if err := q.WaitReceives(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.entries) != 1 || len(f.entries[0]) != 2 || *f.entries[0][0].ReceiptHandle != "ha" || f.entries[0][1].VisibilityTimeout != 0 {
		t.Fatalf("visibility batches %+v, want one of both handles with timeout 0", f.entries)
	}
	if st := q.Stats(); st.Released != 2 || st.Received != 0 || st.Requests != 2 {
		t.Fatalf("stats %+v", st)
	}
}
