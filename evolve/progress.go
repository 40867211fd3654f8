package evolve

import (
	"context"
	"sync"
	"time"
)

// EventKind says what an [Event] reports.
type EventKind int

const (
	// JobStarted: this process starts working on the job.
	JobStarted EventKind = iota
	// SegmentStarted: this process acquired a segment (Takeover: from
	// another owner's checkpoint).
	SegmentStarted
	// PageDone: a page of a segment was processed and checkpointed.
	PageDone
	// SegmentDone: a segment reached its end.
	SegmentDone
	// JobDone: every segment is done (in this process's view).
	JobDone
)

func (k EventKind) String() string {
	switch k {
	case JobStarted:
		return "job-started"
	case SegmentStarted:
		return "segment-started"
	case PageDone:
		return "page-done"
	case SegmentDone:
		return "segment-done"
	case JobDone:
		return "job-done"
	}
	return "unknown"
}

// Event is one progress report of a run.
type Event struct {
	Kind EventKind
	Job  string
	// Segment and Segments identify the segment (for segment events).
	Segment, Segments int
	// Fence is the segment lease's fencing number.
	Fence int64
	// Takeover reports a segment taken over at another owner's
	// checkpoint.
	Takeover bool
	// Counts are the segment's counts so far (checkpointed), Page the
	// last page's.
	Counts, Page Counts
	// Total is this process's counts so far.
	Total Counts
	// Elapsed is the time since the run started.
	Elapsed time.Duration
}

// Progress receives a run's events. Calls come from the run's worker
// goroutines, concurrently: an implementation must be safe for that and
// should return quickly.
type Progress interface {
	Event(Event)
}

// ProgressFunc adapts a function to [Progress].
type ProgressFunc func(Event)

// Event calls f(e).
func (f ProgressFunc) Event(e Event) { f(e) }

func (r *runner) emit(e Event) {
	if r.o.Progress == nil {
		return
	}
	e.Job = r.job.Name
	r.mu.Lock()
	e.Total = r.total
	r.mu.Unlock()
	e.Elapsed = time.Since(r.start)
	r.o.Progress.Event(e)
}

// throttle keeps the consumed capacity units per second to a budget:
// each request waits until the units spent so far fit (a debt that
// drains at the budget's rate).
type throttle struct {
	mu         sync.Mutex
	rate       [2]float64   // read, write units per second
	next       [2]time.Time // when the debt is paid
	maxBacklog time.Duration
}

func newThrottle(read, write float64) *throttle {
	return &throttle{rate: [2]float64{read, write}, maxBacklog: 0}
}

func idx(read bool) int {
	if read {
		return 0
	}
	return 1
}

func (t *throttle) wait(ctx context.Context, read bool) error {
	i := idx(read)
	t.mu.Lock()
	if t.rate[i] <= 0 {
		t.mu.Unlock()
		return nil
	}
	d := time.Until(t.next[i])
	t.mu.Unlock()
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func (t *throttle) spend(read bool, units float64) {
	i := idx(read)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rate[i] <= 0 || units <= 0 {
		return
	}
	now := time.Now()
	if t.next[i].Before(now) {
		t.next[i] = now
	}
	t.next[i] = t.next[i].Add(time.Duration(units / t.rate[i] * float64(time.Second)))
}
