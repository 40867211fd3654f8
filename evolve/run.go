package evolve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/lease"
)

// Job is a named list of steps over a table's items.
type Job struct {
	// Name identifies the job: its leases, checkpoints and record. Runs
	// of the same name share and resume the work. Required.
	Name string
	// Steps are applied in order to each item they match.
	Steps []Step
}

// Options configure a run. The zero value works.
type Options struct {
	// Segments is the number of parallel Scan segments (leases) of the
	// job. Default 4. All processes of one job must agree on it.
	Segments int
	// Workers is how many segments this process works on at once.
	// Default Segments.
	Workers int
	// PageSize is the Scan Limit. Default 100.
	PageSize int32
	// DryRun scans and reports what would change; nothing is written
	// (no item, no lease, no checkpoint, no job record).
	DryRun bool
	// ReadUnits and WriteUnits are this process's budgets of capacity
	// units per second (0: unlimited).
	ReadUnits, WriteUnits float64
	// LeaseTable is the table of the job's leases and record. Default:
	// the job's own table (its PK and SK must then be strings).
	LeaseTable string
	// Lease tunes the job's leases (Duration, Owner, Mode...). Table,
	// PartitionKey and SortKey are set by the runner.
	Lease func(*lease.Options)
	// Progress receives the run's events; nil: none.
	Progress Progress
	// MaxFailures bounds the failures kept in the report (the counts
	// count them all). Default 100.
	MaxFailures int
	// MaxConflicts bounds the rereads of one item. Default 50.
	MaxConflicts int
	// SourceClient reads the source table of an [Import] (default: the
	// job's table's client).
	SourceClient entity.Client
}

func (o *Options) defaults() {
	if o.Segments <= 0 {
		o.Segments = 4
	}
	if o.Workers <= 0 {
		o.Workers = o.Segments
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 100
	}
	if o.MaxConflicts <= 0 {
		o.MaxConflicts = 50
	}
}

// Counts are the counters of a segment or a job.
type Counts struct {
	// Scanned counts items read by the Scan (the job's own items excluded).
	Scanned int64 `json:"scanned"`
	// Changed counts items written (or, in a dry run, that would be).
	Changed int64 `json:"changed"`
	// Moved counts the changed items that moved to a new key.
	Moved int64 `json:"moved"`
	// Skipped counts items already right or matched by no step.
	Skipped int64 `json:"skipped"`
	// Conflicts counts writes that lost to a concurrent write (the item
	// was reread and retried).
	Conflicts int64 `json:"conflicts"`
	// Failures counts items left untouched because of an error.
	Failures int64 `json:"failures"`
	// Takeovers counts segments taken over from another owner.
	Takeovers int64 `json:"takeovers"`
	// ReadUnits and WriteUnits are the capacity consumed (milli-units
	// in a checkpoint, units in a report).
	ReadUnits  float64 `json:"readUnits"`
	WriteUnits float64 `json:"writeUnits"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Scanned += o.Scanned
	c.Changed += o.Changed
	c.Moved += o.Moved
	c.Skipped += o.Skipped
	c.Conflicts += o.Conflicts
	c.Failures += o.Failures
	c.Takeovers += o.Takeovers
	c.ReadUnits += o.ReadUnits
	c.WriteUnits += o.WriteUnits
}

func (c Counts) toMap() map[string]int64 {
	return map[string]int64{"scanned": c.Scanned, "changed": c.Changed, "moved": c.Moved, "skipped": c.Skipped,
		"conflicts": c.Conflicts, "failures": c.Failures, "takeovers": c.Takeovers,
		"readMilli": int64(c.ReadUnits * 1000), "writeMilli": int64(c.WriteUnits * 1000)}
}

func countsOf(m map[string]int64) Counts {
	return Counts{Scanned: m["scanned"], Changed: m["changed"], Moved: m["moved"], Skipped: m["skipped"],
		Conflicts: m["conflicts"], Failures: m["failures"], Takeovers: m["takeovers"],
		ReadUnits: float64(m["readMilli"]) / 1000, WriteUnits: float64(m["writeMilli"]) / 1000}
}

// runner is one process's run of a job.
type runner struct {
	t      *entity.Table
	job    Job
	o      Options
	leases *lease.Manager
	lt     string // lease table
	thr    *throttle
	ownPK  []string // partition key prefixes of the job's own items
	name   *string  // the table's name, for requests (set by Run)
	src    *string  // the table scanned: name, or an import's source
	imp    *Step    // the job's import step, if any
	texts  texts    // the expression texts of the run's writes

	mu       sync.Mutex
	active   map[string]bool // segments this process's workers hold
	total    Counts          // this process's work
	failures []*ItemError
	segs     map[int]Counts
	start    time.Time
}

// Check refuses, with a [*JobError] matching [ErrUnfit], a job that does
// not fit table t. [Run] calls it before anything else.
func Check(t *entity.Table, job Job) error {
	if job.Name == "" || strings.ContainsAny(job.Name, "#") {
		return &JobError{Reason: fmt.Sprintf("job name %q (empty or with '#')", job.Name), Err: ErrUnfit}
	}
	if len(job.Steps) == 0 {
		return &JobError{Reason: "no steps", Err: ErrUnfit}
	}
	for _, s := range job.Steps {
		if s.source != "" && len(job.Steps) != 1 {
			return &JobError{Reason: "an import must be its job's only step", Err: ErrUnfit}
		}
	}
	for _, s := range job.Steps {
		if s.fn == nil {
			return &JobError{Type: s.Type, Reason: "step made without a constructor", Err: ErrUnfit}
		}
		if s.check != nil {
			if err := s.check(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Run runs job over table t in this process, sharing its segments with
// every other process running the same job, and returns when every
// segment is done (or ctx ends). The report counts this process's work;
// [Status] sums every segment's checkpoint. A job already recorded as
// finished returns its record (Report.AlreadyDone) and writes nothing.
//
// Errors: a [*JobError] (matching [ErrUnfit]) before any write; ctx's
// error; a client error other than throttling that persists. Per-item
// failures are in Report.Failures, not in the error.
func Run(ctx context.Context, t *entity.Table, job Job, optFns ...func(*Options)) (*Report, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	o.defaults()
	if err := Check(t, job); err != nil {
		return nil, err
	}
	r := &runner{t: t, job: job, o: o, thr: newThrottle(o.ReadUnits, o.WriteUnits), segs: map[int]Counts{}, start: time.Now(), name: aws.String(t.Name())}
	r.lt = o.LeaseTable
	if r.lt == "" {
		r.lt = t.Name()
	}
	m, err := lease.New(t.Client(), func(lo *lease.Options) {
		if o.Lease != nil {
			o.Lease(lo)
		}
		lo.Table = r.lt
		if r.lt == t.Name() {
			lo.PartitionKey, lo.SortKey = t.PKAttr(), t.SKAttr()
		}
	})
	if err != nil {
		return nil, &JobError{Reason: "lease options", Err: errors.Join(ErrUnfit, err)}
	}
	r.leases = m
	r.ownPK = []string{m.Options().Prefix, jobPrefix}
	if s := job.Steps[0]; s.source != "" {
		r.imp, r.src = &s, aws.String(s.source)
	}
	if o.DryRun {
		return r.dryRun(ctx)
	}
	if rec, err := r.record(ctx); err != nil || rec != nil {
		return rec, err
	}
	names := make([]string, o.Segments)
	for i := range names {
		names[i] = segName(i)
	}
	if err := m.Create(ctx, r.group(), names...); err != nil {
		return nil, err
	}
	r.emit(Event{Kind: JobStarted})
	var wg sync.WaitGroup
	errc := make(chan error, o.Workers)
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.worker(ctx); err != nil {
				errc <- err
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return r.report(false), err
	}
	if err := r.finish(ctx); err != nil {
		return r.report(false), err
	}
	rep := r.report(true)
	r.emit(Event{Kind: JobDone})
	return rep, nil
}

func (r *runner) group() string { return "evolve:" + r.job.Name }

func segName(i int) string { return fmt.Sprintf("seg-%03d", i) }

func segIndex(name string) int {
	i, _ := strconv.Atoi(strings.TrimPrefix(name, "seg-"))
	return i
}

// worker acquires segments until every one is done.
func (r *runner) worker(ctx context.Context) error {
	poll := min(max(r.leases.Options().Duration/20, 50*time.Millisecond), time.Second)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := r.leases.Next(ctx, r.group())
		if errors.Is(err, lease.ErrNoneFree) {
			ls, err := r.leases.List(ctx, r.group())
			if err != nil {
				return err
			}
			others := false // segments not done and not worked on here
			r.mu.Lock()
			for _, in := range ls {
				others = others || (!in.Done && !r.active[in.Name])
			}
			r.mu.Unlock()
			if !others {
				return nil // done, or in this process's other workers' hands
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(poll):
			}
			continue
		}
		if err != nil {
			return err
		}
		r.setActive(l.Name(), true)
		err = r.segment(ctx, l)
		r.setActive(l.Name(), false)
		if err != nil && !errors.Is(err, lease.ErrLost) {
			_ = l.Release(context.WithoutCancel(ctx))
			return err
		}
	}
}

// segment works on one leased segment from its checkpoint to its end.
func (r *runner) segment(ctx context.Context, l *lease.Lease) error {
	seg := segIndex(l.Name())
	cp := l.Start()
	var c Counts
	if cp.Counts != nil {
		c = countsOf(cp.Counts)
	}
	taken := l.Fence() > 1 && !(cp.Position == "" && c.Scanned == 0)
	if taken {
		c.Takeovers++
		r.addTotal(Counts{Takeovers: 1})
	}
	r.emit(Event{Kind: SegmentStarted, Segment: seg, Segments: r.o.Segments, Fence: l.Fence(), Takeover: taken, Counts: c})
	start, err := decodePosition(cp.Position)
	if err != nil {
		return err
	}
	for {
		if !l.Valid() {
			return fmt.Errorf("%w: segment %d", lease.ErrLost, seg)
		}
		page, next, err := r.scan(ctx, seg, start)
		if err != nil {
			return err
		}
		var pc Counts
		for _, it := range page {
			if !l.Valid() { // a page half done is redone by the next owner
				r.addTotal(pc)
				return fmt.Errorf("%w: segment %d", lease.ErrLost, seg)
			}
			if err := r.item(ctx, it, &pc); err != nil {
				return err
			}
		}
		c.Add(pc)
		r.addTotal(pc)
		r.addSeg(seg, pc)
		pos := encodePosition(next)
		if len(next) == 0 {
			if err := l.Finish(ctx, lease.Checkpoint{Position: "end", Counts: c.toMap()}); err != nil {
				return err
			}
			r.emit(Event{Kind: SegmentDone, Segment: seg, Segments: r.o.Segments, Fence: l.Fence(), Counts: c, Page: pc})
			return nil
		}
		if err := l.Checkpoint(ctx, lease.Checkpoint{Position: pos, Counts: c.toMap()}); err != nil {
			return err
		}
		r.emit(Event{Kind: PageDone, Segment: seg, Segments: r.o.Segments, Fence: l.Fence(), Counts: c, Page: pc})
		start = next
	}
}

// scan reads one page of segment seg.
func (r *runner) scan(ctx context.Context, seg int, start Item) ([]Item, Item, error) {
	src := r.src
	if src == nil {
		src = r.tableName()
	}
	in := &dynamodb.ScanInput{
		TableName:              src,
		Segment:                aws.Int32(int32(seg)),
		TotalSegments:          aws.Int32(int32(r.o.Segments)),
		Limit:                  aws.Int32(r.o.PageSize),
		ExclusiveStartKey:      start,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	var out *dynamodb.ScanOutput
	err := r.call(ctx, true, func() (float64, error) {
		var err error
		c := r.t.Client()
		if r.imp != nil && r.o.SourceClient != nil {
			c = r.o.SourceClient
		}
		out, err = c.Scan(ctx, in, r.t.SDKOptions()...)
		if err != nil {
			return 0, err
		}
		return units(out.ConsumedCapacity, 0.5*float64(len(out.Items))), nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("evolve: scan segment %d: %w", seg, err)
	}
	return out.Items, out.LastEvaluatedKey, nil
}

// call runs one request under the throttle, backing off on throttling.
func (r *runner) call(ctx context.Context, read bool, f func() (float64, error)) error {
	for attempt := 0; ; attempt++ {
		if err := r.thr.wait(ctx, read); err != nil {
			return err
		}
		u, err := f()
		r.thr.spend(read, u)
		r.mu.Lock()
		if read {
			r.total.ReadUnits += u
		} else {
			r.total.WriteUnits += u
		}
		r.mu.Unlock()
		if err == nil || !isThrottle(err) {
			return err
		}
		d := min(time.Duration(1<<min(attempt, 10))*10*time.Millisecond, time.Second)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

func isThrottle(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
		return true
	}
	return false
}

func units(c *types.ConsumedCapacity, guess float64) float64 {
	if c != nil && c.CapacityUnits != nil {
		return *c.CapacityUnits
	}
	return guess
}

func unitsOf(cs []types.ConsumedCapacity, guess float64) float64 {
	if len(cs) == 0 {
		return guess
	}
	var u float64
	for i := range cs {
		u += units(&cs[i], 0)
	}
	return u
}

// own reports whether it is one of the job machinery's items.
func (r *runner) own(it Item) bool {
	pk, _ := it[r.t.PKAttr()].(*types.AttributeValueMemberS)
	if pk == nil {
		return false
	}
	for _, p := range r.ownPK {
		if strings.HasPrefix(pk.Value, p) {
			return true
		}
	}
	return false
}

func (r *runner) typeOf(it Item) string {
	v, _ := it[r.t.TypeAttr()].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

// want applies the steps to it and returns the wanted item (it itself
// when no step matched or changed it).
func (r *runner) want(it Item) (Item, string, error) {
	cur := it
	for _, s := range r.job.Steps {
		if s.Type != "" && r.typeOf(cur) != s.Type {
			continue
		}
		next, err := s.fn(r.t, cur)
		if err != nil {
			return nil, s.Kind, err
		}
		if next != nil {
			cur = next
		}
	}
	return cur, "", nil
}

// item brings one scanned item to what the steps want.
func (r *runner) item(ctx context.Context, it Item, c *Counts) error {
	if r.own(it) {
		return nil
	}
	c.Scanned++
	for attempt := 0; ; attempt++ {
		want, step, err := r.want(it)
		if err != nil {
			c.Failures++
			r.fail(&ItemError{Key: r.keyOf(it), Type: r.typeOf(it), Step: step, Err: err})
			return nil
		}
		if sameItem(want, it) {
			c.Skipped++
			return nil
		}
		if r.o.DryRun {
			c.Changed++
			if r.imp == nil && r.moves(it, want) {
				c.Moved++
			}
			return nil
		}
		if r.imp != nil {
			err = r.put(ctx, want)
			if errors.Is(err, errConflict) { // the table holds it as recent
				c.Skipped++
				return nil
			}
		} else {
			err = r.write(ctx, it, want)
		}
		switch {
		case err == nil:
			c.Changed++
			if r.imp == nil && r.moves(it, want) {
				c.Moved++
			}
			return nil
		case errors.Is(err, errConflict):
		case errors.Is(err, ErrTargetExists):
			c.Failures++
			r.fail(&ItemError{Key: r.keyOf(it), Type: r.typeOf(it), Err: err})
			return nil
		default:
			return err
		}
		c.Conflicts++
		if attempt >= r.o.MaxConflicts {
			c.Failures++
			r.fail(&ItemError{Key: r.keyOf(it), Type: r.typeOf(it), Err: fmt.Errorf("%w after %d conflicts", entity.ErrConditionFailed, attempt+1)})
			return nil
		}
		it, err = r.reread(ctx, r.keyOf(it))
		if err != nil {
			return err
		}
		if it == nil { // deleted by the application: nothing to do
			c.Skipped++
			return nil
		}
	}
}

func (r *runner) fail(e *ItemError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) < r.o.MaxFailures {
		r.failures = append(r.failures, e)
	}
}

func (r *runner) keyOf(it Item) entity.Key {
	var k entity.Key
	if v, ok := it[r.t.PKAttr()].(*types.AttributeValueMemberS); ok {
		k.PK = v.Value
	}
	if sk := r.t.SKAttr(); sk != "" {
		if v, ok := it[sk].(*types.AttributeValueMemberS); ok {
			k.SK = v.Value
		}
	}
	return k
}

// tableName is the table's name for a request (one string for the run:
// requests do not change it).
func (r *runner) tableName() *string {
	if r.name == nil {
		return aws.String(r.t.Name())
	}
	return r.name
}

// keyMap is the primary key of the item it, as it holds it.
func (r *runner) keyMap(it Item) Item {
	k := make(Item, 2)
	r.keyInto(k, it)
	return k
}

// keyInto sets the primary key of the item it in k, an empty map.
func (r *runner) keyInto(k, it Item) {
	pk, sk := r.t.PKAttr(), r.t.SKAttr()
	k[pk] = it[pk]
	if sk != "" {
		k[sk] = it[sk]
	}
}

// moves reports whether want's primary key differs from old's.
func (r *runner) moves(old, want Item) bool {
	if a := r.t.PKAttr(); !avEqual(old[a], want[a]) {
		return true
	}
	if a := r.t.SKAttr(); a != "" && !avEqual(old[a], want[a]) {
		return true
	}
	return false
}

// sameItem reports whether a and b hold the same attributes and values
// (as DynamoDB compares them); a map compared with itself costs nothing.
func sameItem(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	if reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
		return true
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !avEqual(v, w) {
			return false
		}
	}
	return true
}

// placeholders are the expression names and values of the first
// attributes of a write, made once.
var placeholders = func() (p [4][64]string) {
	for i := range p[0] {
		n := strconv.Itoa(i)
		p[0][i], p[1][i], p[2][i], p[3][i] = "#c"+n, ":c"+n, "#s"+n, ":s"+n
	}
	return p
}()

// placeholder returns placeholder kind (0 #c, 1 :c, 2 #s, 3 :s) number i.
func placeholder(kind, i int) string {
	if i < len(placeholders[kind]) {
		return placeholders[kind][i]
	}
	return placeholders[kind][0][:2] + strconv.Itoa(i)
}

func (r *runner) reread(ctx context.Context, k entity.Key) (Item, error) {
	var out *dynamodb.GetItemOutput
	err := r.call(ctx, true, func() (float64, error) {
		var err error
		out, err = r.t.Client().GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(r.t.Name()), Key: r.t.KeyMap(k), ConsistentRead: aws.Bool(true),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		}, r.t.SDKOptions()...)
		if err != nil {
			return 0, err
		}
		return units(out.ConsumedCapacity, 1), nil
	})
	if err != nil {
		return nil, fmt.Errorf("evolve: reread %s/%s: %w", k.PK, k.SK, err)
	}
	return out.Item, nil
}

var errConflict = errors.New("evolve: concurrent write")

// readCondition is the condition that old is still the stored item: its
// version when its entity has one, else each attribute read; plus the
// absence of each attribute that want adds (so that a concurrent writer
// that added it wins).
func (r *runner) readCondition(old, want Item, names map[string]string, vals map[string]types.AttributeValue) string {
	return string(r.appendCondition(nil, old, want, names, vals))
}

// appendCondition appends readCondition's text to b.
func (r *runner) appendCondition(b []byte, old, want Item, names map[string]string, vals map[string]types.AttributeValue) []byte {
	pk, sk := r.t.PKAttr(), r.t.SKAttr()
	names["#pk"] = pk
	b = append(b, "attribute_exists(#pk)"...)
	// Attributes in name order: items of one shape get the same
	// expression, which a server can parse once.
	var buf [32]string
	attrs := buf[:0]
	va := r.versionAttr(old)
	for a := range old {
		if a != pk && a != sk && (va == "" || a == va) {
			attrs = append(attrs, a)
		}
	}
	slices.Sort(attrs)
	i := 0
	for _, a := range attrs {
		n, p := placeholder(0, i), placeholder(1, i)
		i++
		names[n], vals[p] = a, old[a]
		b = append(b, " AND "...)
		b = append(b, n...)
		b = append(b, " = "...)
		b = append(b, p...)
	}
	attrs = attrs[:0]
	for a := range want {
		if _, ok := old[a]; !ok && a != pk && a != sk {
			attrs = append(attrs, a)
		}
	}
	slices.Sort(attrs)
	for _, a := range attrs {
		n := placeholder(0, i)
		i++
		names[n] = a
		b = append(b, " AND attribute_not_exists("...)
		b = append(b, n...)
		b = append(b, ')')
	}
	return b
}

// versionAttr returns the version attribute of old's entity when it has
// one and old carries it.
func (r *runner) versionAttr(old Item) string {
	typ := r.typeOf(old)
	for _, s := range r.job.Steps {
		if s.Type == typ && s.version != "" {
			if _, ok := old[s.version]; ok {
				return s.version
			}
		}
	}
	return ""
}

// placeholderMaps are the Key, ExpressionAttributeNames and Values of
// one conditional update, and the buffer its expressions are built in.
type placeholderMaps struct {
	key   Item
	names map[string]string
	vals  map[string]types.AttributeValue
	buf   []byte
}

var writeMaps = sync.Pool{New: func() any {
	return &placeholderMaps{key: make(Item, 2), names: make(map[string]string, 16), vals: make(map[string]types.AttributeValue, 16)}
}}

// maxTexts bounds the expression texts a run keeps (see texts).
const maxTexts = 1024

// texts interns the expression texts of a run's writes. Items of one
// shape get the same texts: built in a reused buffer and looked up, they
// cost no allocation after the first item of each shape.
type texts struct {
	mu sync.RWMutex
	m  map[string]*string
}

// intern returns the text b as a string, the same *string for the same
// text (while the run keeps at most maxTexts of them).
func (t *texts) intern(b []byte) *string {
	t.mu.RLock()
	p, ok := t.m[string(b)]
	t.mu.RUnlock()
	if ok {
		return p
	}
	p = aws.String(string(b))
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[string]*string)
	}
	if len(t.m) < maxTexts {
		t.m[*p] = p
	}
	t.mu.Unlock()
	return p
}

// write makes the stored item want, on the condition that it is still
// old. It returns errConflict when the condition failed.
func (r *runner) write(ctx context.Context, old, want Item) error {
	if r.moves(old, want) {
		return r.move(ctx, old, want)
	}
	// The maps and buffer are reused from one write to the next: a
	// request's maps are read only during its call, and its expressions
	// are interned copies of the buffer.
	m := writeMaps.Get().(*placeholderMaps)
	defer func() {
		clear(m.key)
		clear(m.names)
		clear(m.vals)
		writeMaps.Put(m)
	}()
	names, vals := m.names, m.vals
	m.buf = r.appendCondition(m.buf[:0], old, want, names, vals)
	cond := r.texts.intern(m.buf)
	upd := m.buf[:0]
	var buf [16]string
	attrs := buf[:0]
	for a, v := range want {
		if ov, ok := old[a]; !ok || !avEqual(ov, v) {
			attrs = append(attrs, a)
		}
	}
	slices.Sort(attrs)
	for j, a := range attrs {
		n, p := placeholder(2, j), placeholder(3, j)
		names[n], vals[p] = a, want[a]
		if j == 0 {
			upd = append(upd, "SET "...)
		} else {
			upd = append(upd, ", "...)
		}
		upd = append(upd, n...)
		upd = append(upd, " = "...)
		upd = append(upd, p...)
	}
	attrs = attrs[:0]
	for a := range old {
		if _, ok := want[a]; !ok {
			attrs = append(attrs, a)
		}
	}
	slices.Sort(attrs)
	for i, a := range attrs {
		n := "#r" + strconv.Itoa(i)
		names[n] = a
		switch {
		case i == 0 && len(upd) > 0:
			upd = append(upd, " REMOVE "...)
		case i == 0:
			upd = append(upd, "REMOVE "...)
		default:
			upd = append(upd, ", "...)
		}
		upd = append(upd, n...)
	}
	m.buf = upd
	r.keyInto(m.key, old)
	in := &dynamodb.UpdateItemInput{
		TableName:                 r.tableName(),
		Key:                       m.key,
		UpdateExpression:          r.texts.intern(upd),
		ConditionExpression:       cond,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if len(vals) == 0 {
		in.ExpressionAttributeValues = nil
	}
	err := r.call(ctx, false, func() (float64, error) {
		out, err := r.t.Client().UpdateItem(ctx, in, r.t.SDKOptions()...)
		if err != nil {
			return 1, err
		}
		return units(out.ConsumedCapacity, 1), nil
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("evolve: update %s: %w", r.keyOf(old).PK, err)
	}
	return nil
}

// put writes want, an import's item, on the condition that the table
// does not hold it or holds it with an older updated timestamp. It
// returns errConflict when the condition failed.
func (r *runner) put(ctx context.Context, want Item) error {
	cond := "attribute_not_exists(#pk)"
	names := map[string]string{"#pk": r.t.PKAttr()}
	var vals map[string]types.AttributeValue
	if u, ok := want[r.imp.updated]; ok && r.imp.updated != "" {
		cond += " OR attribute_not_exists(#u) OR #u < :u"
		names["#u"], vals = r.imp.updated, map[string]types.AttributeValue{":u": u}
	}
	in := &dynamodb.PutItemInput{TableName: r.tableName(), Item: want, ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: vals, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	err := r.call(ctx, false, func() (float64, error) {
		out, err := r.t.Client().PutItem(ctx, in, r.t.SDKOptions()...)
		if err != nil {
			return 1, err
		}
		return units(out.ConsumedCapacity, 1), nil
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("evolve: import put %s: %w", r.keyOf(want).PK, err)
	}
	return nil
}

// move puts want under its new key and deletes old, in one transaction.
func (r *runner) move(ctx context.Context, old, want Item) error {
	names := map[string]string{}
	vals := map[string]types.AttributeValue{}
	cond := r.readCondition(old, old, names, vals)
	if len(vals) == 0 {
		vals = nil
	}
	in := &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{
				TableName: aws.String(r.t.Name()), Item: want,
				ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
				ExpressionAttributeNames: map[string]string{"#pk": r.t.PKAttr()},
			}},
			{Delete: &types.Delete{
				TableName: r.tableName(), Key: r.keyMap(old),
				ConditionExpression:       aws.String(cond),
				ExpressionAttributeNames:  names,
				ExpressionAttributeValues: vals,
			}},
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	err := r.call(ctx, false, func() (float64, error) {
		out, err := r.t.Client().TransactWriteItems(ctx, in, r.t.SDKOptions()...)
		if err != nil {
			return 2, err
		}
		return unitsOf(out.ConsumedCapacity, 4), nil
	})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		rs := tce.CancellationReasons
		if len(rs) == 2 && rs[1].Code != nil && *rs[1].Code == "ConditionalCheckFailed" {
			return errConflict
		}
		if len(rs) >= 1 && rs[0].Code != nil && *rs[0].Code == "ConditionalCheckFailed" {
			return fmt.Errorf("%w: %s/%s", ErrTargetExists, r.keyOf(want).PK, r.keyOf(want).SK)
		}
		if isThrottleTx(rs) {
			return errConflict
		}
	}
	if err != nil {
		return fmt.Errorf("evolve: move %s: %w", r.keyOf(old).PK, err)
	}
	return nil
}

func isThrottleTx(rs []types.CancellationReason) bool {
	for _, c := range rs {
		if c.Code != nil && (*c.Code == "TransactionConflict" || *c.Code == "ThrottlingError" || *c.Code == "ProvisionedThroughputExceeded") {
			return true
		}
	}
	return false
}

// dryRun scans every segment without leases and writes nothing.
func (r *runner) dryRun(ctx context.Context) (*Report, error) {
	r.emit(Event{Kind: JobStarted})
	var wg sync.WaitGroup
	errs := make([]error, r.o.Segments)
	sem := make(chan struct{}, r.o.Workers)
	for seg := 0; seg < r.o.Segments; seg++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var c Counts
			var start Item
			for {
				page, next, err := r.scan(ctx, seg, start)
				if err != nil {
					errs[seg] = err
					return
				}
				var pc Counts
				for _, it := range page {
					if err := r.item(ctx, it, &pc); err != nil {
						errs[seg] = err
						return
					}
				}
				c.Add(pc)
				r.addTotal(pc)
				r.addSeg(seg, pc)
				kind := PageDone
				if len(next) == 0 {
					kind = SegmentDone
				}
				r.emit(Event{Kind: kind, Segment: seg, Segments: r.o.Segments, Counts: c, Page: pc})
				if len(next) == 0 {
					return
				}
				start = next
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return r.report(false), err
	}
	rep := r.report(true)
	rep.DryRun = true
	r.emit(Event{Kind: JobDone})
	return rep, nil
}

func (r *runner) setActive(name string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil {
		r.active = map[string]bool{}
	}
	r.active[name] = on
}

func (r *runner) addTotal(c Counts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ru, wu := r.total.ReadUnits, r.total.WriteUnits
	r.total.Add(c)
	r.total.ReadUnits, r.total.WriteUnits = ru, wu // units are added by call
}

func (r *runner) addSeg(seg int, c Counts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.segs[seg]
	s.Add(c)
	r.segs[seg] = s
}

// Position encoding: the LastEvaluatedKey of a page as JSON of
// {attr: [type, value]}, base64 for binary.
func encodePosition(k Item) string {
	if len(k) == 0 {
		return ""
	}
	m := make(map[string][2]string, len(k))
	for a, v := range k {
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			m[a] = [2]string{"S", x.Value}
		case *types.AttributeValueMemberN:
			m[a] = [2]string{"N", x.Value}
		case *types.AttributeValueMemberB:
			m[a] = [2]string{"B", base64.StdEncoding.EncodeToString(x.Value)}
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func decodePosition(p string) (Item, error) {
	if p == "" {
		return nil, nil
	}
	var m map[string][2]string
	if err := json.Unmarshal([]byte(p), &m); err != nil {
		return nil, fmt.Errorf("evolve: checkpoint position %q: %w", p, err)
	}
	k := make(Item, len(m))
	for a, tv := range m {
		switch tv[0] {
		case "S":
			k[a] = &types.AttributeValueMemberS{Value: tv[1]}
		case "N":
			k[a] = &types.AttributeValueMemberN{Value: tv[1]}
		case "B":
			b, err := base64.StdEncoding.DecodeString(tv[1])
			if err != nil {
				return nil, fmt.Errorf("evolve: checkpoint position %q: %w", p, err)
			}
			k[a] = &types.AttributeValueMemberB{Value: b}
		}
	}
	return k, nil
}

// avEqual reports whether a and b are the same value as DynamoDB compares
// them (numbers numerically, sets in any order); two absent values are
// equal.
func avEqual(a, b types.AttributeValue) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return ddbexpr.Equal(a, b)
}
