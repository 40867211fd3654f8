package evolve

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
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
	// GuardOrphan: a unique guard item (entity.GuardType) whose holder
	// no longer exists (or that names no holder). Reported under the
	// entity Type the guard's key names.
	GuardOrphan = "guard-orphan"
	// GuardStale: a unique guard item whose holder exists but no longer
	// has the guarded value (or scope). Reported under the holder's Type.
	GuardStale = "guard-stale"
	// GuardMissing: an item with a unique value whose guard item is
	// absent or names another holder.
	GuardMissing = "guard-missing"
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
// samples keys per class (default 3). It also checks the guard items of
// unique fields (entity.Table.Guards): a guard whose holder is gone
// ([GuardOrphan]) or no longer has the value ([GuardStale]), and an item
// whose guard is absent or names another holder ([GuardMissing]); these
// cross-item findings of the scan are confirmed by consistent reads of
// both items before they are reported, so that writes of the
// application during the scan do not show as problems. Items of package
// lease and of the job records are ignored. Options.ReadUnits throttles
// the scan; Progress receives its pages. It returns a client error, or
// nil.
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
	problem := map[entity.Key]bool{} // items counted in d.Problems
	add := func(typ, class string, k entity.Key) {
		f := found[[2]string{typ, class}]
		if f == nil {
			f = &Finding{Type: typ, Class: class}
			found[[2]string{typ, class}] = f
		}
		f.Count++
		if len(f.Samples) < samples {
			f.Samples = append(f.Samples, k)
		}
		if !problem[k] {
			problem[k] = true
			d.Problems++
		}
	}
	// Unique guards, cross-checked after the scan: the guards stored
	// (guard key -> holder) and the guards the items need (guard key ->
	// item).
	stored := map[entity.Key]entity.Key{}
	needed := map[entity.Key][]entity.Key{}
	neededType := map[entity.Key]string{}
	doc := func(it Item) {
		typ := ""
		if v, ok := it[t.TypeAttr()].(*types.AttributeValueMemberS); ok {
			typ = v.Value
		}
		k := keyOf(t, it)
		if typ == entity.GuardType {
			holder, _ := t.GuardHolder(it)
			mu.Lock()
			defer mu.Unlock()
			d.Scanned++
			d.ByType[typ]++
			stored[k] = holder
			return
		}
		classes := diagnose(t, byType, typ, it)
		var guards []entity.Guard
		if e, ok := byType[typ]; ok && len(e.Schema.Unique) > 0 && !contains(classes, Undecodable) {
			guards, _ = t.Guards(e.Schema, it) // a missing scope is not a guard's problem
		}
		mu.Lock()
		defer mu.Unlock()
		d.Scanned++
		d.ByType[typ]++
		for _, c := range classes {
			add(typ, c, k)
		}
		for _, g := range guards {
			needed[g.Key] = append(needed[g.Key], k)
			neededType[k] = typ
		}
	}
	r := &runner{t: t, job: Job{Name: "doctor", Steps: []Step{{Kind: "doctor", fn: func(_ *entity.Table, it Item) (Item, error) {
		doc(it)
		return it, nil
	}}}}, o: o, thr: newThrottle(o.ReadUnits, 0), segs: map[int]Counts{}, start: time.Now(),
		ownPK: []string{"LEASE#", jobPrefix}, name: aws.String(t.Name())}
	if _, err := r.dryRun(ctx); err != nil {
		return nil, err
	}
	if err := checkGuards(ctx, t, byType, stored, needed, neededType, add); err != nil {
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
		if a != "" && !avEqual(want[a], it[a]) {
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
			case complete && !avEqual(have, want[k.Attr]):
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

// checkGuards compares the guards stored with the guards the items need
// and confirms each mismatch with consistent reads before reporting it.
func checkGuards(ctx context.Context, t *entity.Table, byType map[string]Entity, stored map[entity.Key]entity.Key,
	needed map[entity.Key][]entity.Key, neededType map[entity.Key]string, add func(typ, class string, k entity.Key)) error {
	get := func(k entity.Key) (Item, error) {
		out, err := t.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(t.Name()), Key: t.KeyMap(k),
			ConsistentRead: aws.Bool(true)}, t.SDKOptions()...)
		if err != nil {
			return nil, fmt.Errorf("evolve: doctor: read %s/%s: %w", k.PK, k.SK, err)
		}
		return out.Item, nil
	}
	// needs reports whether the stored item it (nil: none) still needs
	// guard g.
	needs := func(it Item, g entity.Key) bool {
		if it == nil {
			return false
		}
		typ, _ := it[t.TypeAttr()].(*types.AttributeValueMemberS)
		if typ == nil {
			return false
		}
		e, ok := byType[typ.Value]
		if !ok {
			return true // an entity the doctor does not know: not judged
		}
		gs, err := t.Guards(e.Schema, it)
		if err != nil {
			return true
		}
		for _, x := range gs {
			if x.Key == g {
				return true
			}
		}
		return false
	}
	// Items whose guard is absent or names another holder.
	for _, g := range sortedKeys(needed) {
		for _, item := range needed[g] {
			if h, ok := stored[g]; ok && h == item {
				continue
			}
			gi, err := get(g)
			if err != nil {
				return err
			}
			if h, ok := t.GuardHolder(gi); gi != nil && ok && h == item {
				continue // written since the scan read it
			}
			it, err := get(item)
			if err != nil {
				return err
			}
			if needs(it, g) {
				add(neededType[item], GuardMissing, item)
			}
		}
	}
	// Guards whose holder is gone or no longer has the value.
	for _, g := range sortedKeys(stored) {
		holder := stored[g]
		if holder != (entity.Key{}) && slices.Contains(needed[g], holder) {
			continue
		}
		gi, err := get(g)
		if err != nil {
			return err
		}
		if gi == nil {
			continue // deleted since the scan
		}
		typ := guardEntity(g)
		h, ok := t.GuardHolder(gi)
		if !ok {
			add(typ, GuardOrphan, g)
			continue
		}
		it, err := get(h)
		if err != nil {
			return err
		}
		switch {
		case it == nil:
			add(typ, GuardOrphan, g)
		case !needs(it, g):
			add(typ, GuardStale, g)
		}
	}
	return nil
}

// guardEntity is the entity Type a guard key names
// (UNIQUE#<Type>#<attr>...).
func guardEntity(g entity.Key) string {
	rest := strings.TrimPrefix(g.PK, entity.GuardType+"#")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if typ, err := keys.Unescape(rest); err == nil {
		return typ
	}
	return rest
}

func sortedKeys[V any](m map[entity.Key]V) []entity.Key {
	out := make([]entity.Key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PK != out[j].PK {
			return out[i].PK < out[j].PK
		}
		return out[i].SK < out[j].SK
	})
	return out
}
