package evolvecmd

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/tablekit/tablekit/evolve"
)

func describe(name string) *dynamodb.DescribeTableInput {
	return &dynamodb.DescribeTableInput{TableName: aws.String(name)}
}

// renderer shows a run's progress: live bars on a terminal, plain lines
// elsewhere, nothing for "none".
type renderer struct {
	mode  string
	w     io.Writer
	job   string
	total int64 // approximate items in the table (0: unknown)

	mu    sync.Mutex
	p     *mpb.Progress
	all   *mpb.Bar
	segs  map[int]*mpb.Bar
	stats map[int]evolve.Counts
	last  time.Time
}

func newRenderer(mode string, w io.Writer, job string, segments int, total int64) *renderer {
	if mode == "auto" {
		mode = "lines"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = "bars"
		}
	}
	r := &renderer{mode: mode, w: w, job: job, total: total, segs: map[int]*mpb.Bar{}, stats: map[int]evolve.Counts{}}
	if mode == "bars" {
		r.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond))
		r.all = r.p.AddBar(max(total, 1),
			mpb.PrependDecorators(decor.Name(job+" ", decor.WC{W: len(job) + 1}), decor.CountersNoUnit("%d/%d scanned")),
			mpb.AppendDecorators(decor.AverageSpeed(0, " %.0f items/s"), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO),
				decor.Any(func(decor.Statistics) string { return r.summary() })),
		)
	}
	return r
}

func (r *renderer) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var c evolve.Counts
	for _, s := range r.stats {
		c.Add(s)
	}
	return fmt.Sprintf(" changed %d skipped %d conflicts %d failures %d takeovers %d", c.Changed, c.Skipped, c.Conflicts, c.Failures, c.Takeovers)
}

// Event implements evolve.Progress.
func (r *renderer) Event(e evolve.Event) {
	switch r.mode {
	case "bars":
		r.bar(e)
	case "lines":
		r.line(e)
	}
}

func (r *renderer) line(e evolve.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Kind == evolve.PageDone && time.Since(r.last) < time.Second {
		return // at most a line a second for pages
	}
	r.last = time.Now()
	t := e.Total
	switch e.Kind {
	case evolve.JobStarted, evolve.JobDone:
		fmt.Fprintf(r.w, "%s evolve %s: %s scanned=%d changed=%d skipped=%d conflicts=%d failures=%d takeovers=%d elapsed=%s\n",
			time.Now().UTC().Format(time.RFC3339), e.Job, e.Kind, t.Scanned, t.Changed, t.Skipped, t.Conflicts, t.Failures, t.Takeovers, e.Elapsed.Round(time.Millisecond))
	default:
		rate := float64(t.Scanned) / max(e.Elapsed.Seconds(), 1e-3)
		eta := "?"
		if r.total > 0 && rate > 0 && t.Scanned < r.total {
			eta = (time.Duration(float64(r.total-t.Scanned)/rate) * time.Second).Round(time.Second).String()
		}
		fmt.Fprintf(r.w, "%s evolve %s: %s segment %d/%d fence %d takeover=%v segment-scanned=%d | process scanned=%d changed=%d skipped=%d conflicts=%d failures=%d rate=%.0f/s eta=%s\n",
			time.Now().UTC().Format(time.RFC3339), e.Job, e.Kind, e.Segment, e.Segments, e.Fence, e.Takeover, e.Counts.Scanned,
			t.Scanned, t.Changed, t.Skipped, t.Conflicts, t.Failures, rate, eta)
	}
}

func (r *renderer) bar(e evolve.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Kind == evolve.SegmentStarted || e.Kind == evolve.PageDone || e.Kind == evolve.SegmentDone {
		r.stats[e.Segment] = e.Counts
		b := r.segs[e.Segment]
		if b == nil {
			seg := e.Segment
			per := max(r.total/int64(max(e.Segments, 1)), 1)
			b = r.p.AddBar(per,
				mpb.PrependDecorators(decor.Name(fmt.Sprintf("  seg %03d ", seg)), decor.CountersNoUnit("%d/%d")),
				mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
					r.mu.Lock()
					defer r.mu.Unlock()
					c := r.stats[seg]
					return fmt.Sprintf(" changed %d skipped %d conflicts %d failures %d", c.Changed, c.Skipped, c.Conflicts, c.Failures)
				})))
			r.segs[e.Segment] = b
		}
		if e.Counts.Scanned > b.Current() {
			b.SetCurrent(e.Counts.Scanned)
		}
		if e.Kind == evolve.SegmentDone {
			b.SetTotal(-1, true)
		}
	}
	if r.all != nil && e.Total.Scanned > r.all.Current() {
		if e.Total.Scanned > r.total {
			r.all.SetTotal(e.Total.Scanned+1, false)
		}
		r.all.SetCurrent(e.Total.Scanned)
	}
}

func (r *renderer) close() {
	if r.p == nil {
		return
	}
	r.mu.Lock()
	for _, b := range r.segs {
		b.SetTotal(-1, true)
	}
	r.all.SetTotal(-1, true)
	r.mu.Unlock()
	r.p.Wait()
}

// ReportMarkdown renders a run's report as Markdown.
func ReportMarkdown(r *evolve.Report) string {
	var b strings.Builder
	mode := "apply"
	if r.DryRun {
		mode = "plan (dry run: nothing written)"
	}
	fmt.Fprintf(&b, "# evolve %s on %s: %s\n\n", r.Job, r.Table, mode)
	switch {
	case r.AlreadyDone:
		b.WriteString("The job was already recorded as finished; nothing was done. Recorded totals:\n\n")
	case r.Finished:
		fmt.Fprintf(&b, "Finished in %s. This process's counts:\n\n", r.Duration.Round(time.Millisecond))
	default:
		fmt.Fprintf(&b, "Stopped after %s, not finished. This process's counts:\n\n", r.Duration.Round(time.Millisecond))
	}
	c := r.Counts
	b.WriteString("| scanned | changed | moved | skipped | conflicts | failures | takeovers | RCU | WCU |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d | %.1f | %.1f |\n", c.Scanned, c.Changed, c.Moved, c.Skipped, c.Conflicts, c.Failures, c.Takeovers, c.ReadUnits, c.WriteUnits)
	if len(r.Segments) > 0 {
		b.WriteString("\n| segment | scanned | changed | skipped | conflicts | failures |\n|---:|---:|---:|---:|---:|---:|\n")
		var segs []int
		for s := range r.Segments {
			segs = append(segs, s)
		}
		sort.Ints(segs)
		for _, s := range segs {
			x := r.Segments[s]
			fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d |\n", s, x.Scanned, x.Changed, x.Skipped, x.Conflicts, x.Failures)
		}
	}
	if len(r.Failures) > 0 {
		b.WriteString("\n## Items left untouched\n\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "- `%s` / `%s` (%s): %v\n", f.Key.PK, f.Key.SK, f.Type, f.Err)
		}
	}
	return b.String()
}

// DoctorMarkdown renders the doctor's diagnosis as Markdown.
func DoctorMarkdown(d *evolve.Diagnosis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# evolve doctor on %s\n\n%d items scanned in %s; %d with problems.\n\n", d.Table, d.Scanned, d.Duration.Round(time.Millisecond), d.Problems)
	var types []string
	for t := range d.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	b.WriteString("| Type | items |\n|---|---:|\n")
	for _, t := range types {
		fmt.Fprintf(&b, "| %s | %d |\n", orNone(t), d.ByType[t])
	}
	if len(d.Findings) > 0 {
		b.WriteString("\n| Type | problem | items | samples |\n|---|---|---:|---|\n")
		for _, f := range d.Findings {
			var s []string
			for _, k := range f.Samples {
				s = append(s, fmt.Sprintf("`%s` / `%s`", k.PK, k.SK))
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", orNone(f.Type), f.Class, f.Count, strings.Join(s, ", "))
		}
	}
	return b.String()
}

// StatusMarkdown renders a job's status as Markdown.
func StatusMarkdown(s *evolve.JobStatus) string {
	var b strings.Builder
	state := "not finished"
	switch {
	case len(s.Segments) == 0:
		state = "never run"
	case s.Finished:
		state = "finished"
	}
	t := s.Total
	fmt.Fprintf(&b, "# evolve %s: %s\n\nscanned %d, changed %d, skipped %d, conflicts %d, failures %d, takeovers %d\n\n",
		s.Job, state, t.Scanned, t.Changed, t.Skipped, t.Conflicts, t.Failures, t.Takeovers)
	if len(s.Segments) > 0 {
		b.WriteString("| segment | owner | fence | done | scanned | changed |\n|---:|---|---:|---|---:|---:|\n")
		for _, g := range s.Segments {
			fmt.Fprintf(&b, "| %d | %s | %d | %v | %d | %d |\n", g.Segment, orNone(g.Owner), g.Fence, g.Done, g.Counts.Scanned, g.Counts.Changed)
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
