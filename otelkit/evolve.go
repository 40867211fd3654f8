package otelkit

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/evolve"
)

// Evolve returns an [evolve.Progress] (evolve's Options.Progress) that
// turns a live-table job's events into spans and metrics: the job is an
// internal span "evolve JOB", a child of ctx's span, from JobStarted to
// JobDone, with tablekit.evolve.job and the totals (tablekit.evolve.scanned,
// .changed, .moved, .skipped, .conflicts, .failures); each segment this
// process works is a child span "evolve JOB segment" with
// tablekit.evolve.segment, tablekit.evolve.segments, tablekit.evolve.fence
// and tablekit.evolve.takeover, each page a "page" event on it. Counters:
// tablekit.evolve.items by job and tablekit.evolve.count, and
// tablekit.evolve.segments. A run that returns before JobDone (an error,
// a cancelled ctx) leaves spans open: call [EvolveProgress.End] after Run.
func (t *Telemetry) Evolve(ctx context.Context) *EvolveProgress {
	return &EvolveProgress{t: t, ctx: ctx, jobs: map[string]trace.Span{}, segs: map[segKey]trace.Span{}}
}

// EvolveProgress is the [evolve.Progress] of [Telemetry.Evolve]. It is
// safe for concurrent use.
type EvolveProgress struct {
	t    *Telemetry
	ctx  context.Context
	mu   sync.Mutex
	jobs map[string]trace.Span
	segs map[segKey]trace.Span
}

type segKey struct {
	job string
	seg int
}

var _ evolve.Progress = (*EvolveProgress)(nil)

func countAttrs(prefix string, c evolve.Counts) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Int64(prefix+"scanned", c.Scanned), attribute.Int64(prefix+"changed", c.Changed),
		attribute.Int64(prefix+"moved", c.Moved), attribute.Int64(prefix+"skipped", c.Skipped),
		attribute.Int64(prefix+"conflicts", c.Conflicts), attribute.Int64(prefix+"failures", c.Failures),
	}
}

// Event records e.
func (p *EvolveProgress) Event(e evolve.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	job := attribute.String("tablekit.evolve.job", e.Job)
	switch e.Kind {
	case evolve.JobStarted:
		if _, ok := p.jobs[e.Job]; !ok {
			_, span := p.t.tracer.Start(p.ctx, "evolve "+e.Job, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(job))
			p.jobs[e.Job] = span
		}
	case evolve.SegmentStarted:
		parent := p.ctx
		if js, ok := p.jobs[e.Job]; ok {
			parent = trace.ContextWithSpan(parent, js)
		}
		_, span := p.t.tracer.Start(parent, "evolve "+e.Job+" segment", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(job,
			attribute.Int("tablekit.evolve.segment", e.Segment), attribute.Int("tablekit.evolve.segments", e.Segments),
			attribute.Int64("tablekit.evolve.fence", e.Fence), attribute.Bool("tablekit.evolve.takeover", e.Takeover)))
		p.segs[segKey{e.Job, e.Segment}] = span
	case evolve.PageDone:
		p.page(e, job)
	case evolve.SegmentDone:
		p.page(e, job) // the segment's last page
		k := segKey{e.Job, e.Segment}
		if span, ok := p.segs[k]; ok {
			span.SetAttributes(countAttrs("tablekit.evolve.", e.Counts)...)
			span.End()
			delete(p.segs, k)
		}
		p.t.evolveSegments.Add(context.Background(), 1, metric.WithAttributes(job))
	case evolve.JobDone:
		if span, ok := p.jobs[e.Job]; ok {
			span.SetAttributes(countAttrs("tablekit.evolve.", e.Total)...)
			span.End()
			delete(p.jobs, e.Job)
		}
	}
}

// page records the page of e: an event on its segment's span and the
// items counter.
func (p *EvolveProgress) page(e evolve.Event, job attribute.KeyValue) {
	if span, ok := p.segs[segKey{e.Job, e.Segment}]; ok {
		span.AddEvent("page", trace.WithAttributes(countAttrs("tablekit.evolve.", e.Page)...))
	}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		n    int64
	}{{"scanned", e.Page.Scanned}, {"changed", e.Page.Changed}, {"moved", e.Page.Moved},
		{"skipped", e.Page.Skipped}, {"conflicts", e.Page.Conflicts}, {"failures", e.Page.Failures}} {
		if c.n > 0 {
			p.t.evolveItems.Add(ctx, c.n, metric.WithAttributes(job, attribute.String("tablekit.evolve.count", c.name)))
		}
	}
}

// End ends the spans still open, marking them failed with err when it is
// not nil: call it after the job's Run returned.
func (p *EvolveProgress) End(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, span := range p.segs {
		if err != nil {
			fail(span, err)
		}
		span.End()
		delete(p.segs, k)
	}
	for k, span := range p.jobs {
		if err != nil {
			fail(span, err)
		}
		span.End()
		delete(p.jobs, k)
	}
}
