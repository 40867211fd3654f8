package evolve

import (
	"context"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// Problem classes of the doctor.
const (
	// Undecodable: the item does not decode with its entity's codec.
	Undecodable = "undecodable"
	// UnknownType: the item's Type is missing or names no known entity.
	UnknownType = "unknown-type"
	// KeyMismatch: the primary key is not what the key templates build.
	KeyMismatch = "key-mismatch"
	// IndexMissing: an index key the code derives is absent.
	IndexMissing = "index-missing"
	// IndexStale: an index key differs from what the code derives, or a
	// sparse index key is present without its sources.
	IndexStale = "index-stale"
)

// Finding is the count and a few sample keys of one problem class of one
// entity Type.
type Finding struct {
	Type    string       `json:"type"`
	Class   string       `json:"class"`
	Count   int64        `json:"count"`
	Samples []entity.Key `json:"samples"`
}

// Diagnosis is the doctor's report.
type Diagnosis struct {
	Table   string `json:"table"`
	Scanned int64  `json:"scanned"`
	// ByType counts the scanned items per Type ("" for none).
	ByType map[string]int64 `json:"byType"`
	// Problems counts the items with at least one problem.
	Problems int64 `json:"problems"`
	// Findings are sorted by Type and class.
	Findings []Finding     `json:"findings"`
	Duration time.Duration `json:"durationNs"`
}

// Doctor scans table t read-only, in Options.Segments parallel segments,
// and lists, by entity Type, every item that does not decode, whose keys
// do not match its templates, whose index keys are stale or missing, or
// whose Type is unknown (not among entities), with counts and up to
// samples keys per class (default 3). Items of package lease and of the
// job records are ignored. Options.ReadUnits throttles it; Progress
// receives its pages. It returns a client error, or nil.
func Doctor(ctx context.Context, t *entity.Table, entities []Entity, samples int, optFns ...func(*Options)) (*Diagnosis, error) {
	if samples <= 0 {
		samples = 3
	}
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	o.defaults()
	o.DryRun = true
	byType := map[string]Entity{}
	for _, e := range entities {
		if e.Schema == nil || e.remarshal == nil {
			return nil, &JobError{Reason: "entity made without EntityOf", Err: ErrUnfit}
		}
		byType[e.Type()] = e
	}
	d := &Diagnosis{Table: t.Name(), ByType: map[string]int64{}}
	found := map[[2]string]*Finding{}
	var mu sync.Mutex
	doc := func(it Item) {
		typ := ""
		if v, ok := it[t.TypeAttr()].(*types.AttributeValueMemberS); ok {
			typ = v.Value
		}
		classes := diagnose(t, byType, typ, it)
		mu.Lock()
		defer mu.Unlock()
		d.Scanned++
		d.ByType[typ]++
		if len(classes) > 0 {
			d.Problems++
		}
		for _, c := range classes {
			f := found[[2]string{typ, c}]
			if f == nil {
				f = &Finding{Type: typ, Class: c}
				found[[2]string{typ, c}] = f
			}
			f.Count++
			if len(f.Samples) < samples {
				f.Samples = append(f.Samples, keyOf(t, it))
			}
		}
	}
	r := &runner{t: t, job: Job{Name: "doctor", Steps: []Step{{Kind: "doctor", fn: func(_ *entity.Table, it Item) (Item, error) {
		doc(it)
		return it, nil
	}}}}, o: o, thr: newThrottle(o.ReadUnits, 0), segs: map[int]Counts{}, start: time.Now(),
		ownPK: []string{"LEASE#", jobPrefix}}
	if _, err := r.dryRun(ctx); err != nil {
		return nil, err
	}
	for _, f := range found {
		d.Findings = append(d.Findings, *f)
	}
	sort.Slice(d.Findings, func(i, j int) bool {
		a, b := d.Findings[i], d.Findings[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Class < b.Class
	})
	d.Duration = time.Since(r.start)
	return d, nil
}

func keyOf(t *entity.Table, it Item) entity.Key {
	var k entity.Key
	if v, ok := it[t.PKAttr()].(*types.AttributeValueMemberS); ok {
		k.PK = v.Value
	}
	if sk := t.SKAttr(); sk != "" {
		if v, ok := it[sk].(*types.AttributeValueMemberS); ok {
			k.SK = v.Value
		}
	}
	return k
}

// diagnose returns the problem classes of one item.
func diagnose(t *entity.Table, byType map[string]Entity, typ string, it Item) []string {
	e, ok := byType[typ]
	if !ok {
		return []string{UnknownType}
	}
	want, err := e.remarshal(it)
	if err != nil {
		return []string{Undecodable}
	}
	var out []string
	for _, a := range []string{t.PKAttr(), t.SKAttr()} {
		if a != "" && !reflect.DeepEqual(want[a], it[a]) {
			out = append(out, KeyMismatch)
			break
		}
	}
	missing, stale := false, false
	for _, g := range indexGroups(e.Schema, nil) {
		complete := true
		for _, k := range g {
			if _, ok := want[k.Attr]; !ok {
				complete = false
			}
		}
		for _, k := range g {
			have, ok := it[k.Attr]
			switch {
			case complete && !ok:
				missing = true
			case complete && !reflect.DeepEqual(have, want[k.Attr]):
				stale = true
			case !complete && g[0].Sparse && ok && !usedByComplete(e.Schema, want, k):
				stale = true
			case !complete && !g[0].Sparse:
				missing = true
			}
		}
	}
	if missing {
		out = append(out, IndexMissing)
	}
	if stale {
		out = append(out, IndexStale)
	}
	return out
}
