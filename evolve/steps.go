package evolve

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/keys"
)

// Item is a raw DynamoDB item.
type Item = map[string]types.AttributeValue

// Entity is what a job knows of one entity type: its schema and a
// round trip through its generated codec. Make one with [EntityOf].
type Entity struct {
	// Schema is the entity's generated schema.
	Schema *entity.Schema
	// remarshal decodes an item and encodes it again: the item as the
	// current code would write it (key attributes of the primary key and
	// of every index whose sources are present, and Type).
	remarshal func(Item) (Item, error)
	// decode reports whether an item decodes with the codec.
	decode func(Item) error
}

// EntityOf returns the [Entity] of T (for instance
// evolve.EntityOf[codex.Post]()).
func EntityOf[T any, PT interface {
	*T
	entity.Item
}]() Entity {
	return Entity{
		Schema: PT(new(T)).EntitySchema(),
		remarshal: func(it Item) (Item, error) {
			var v T
			if err := PT(&v).UnmarshalItem(it); err != nil {
				return nil, err
			}
			return PT(&v).MarshalItem()
		},
		decode: func(it Item) error {
			var v T
			return PT(&v).UnmarshalItem(it)
		},
	}
}

// Type is the entity's Type attribute value.
func (e Entity) Type() string {
	if e.Schema == nil {
		return ""
	}
	return e.Schema.Type
}

// Step is one change a job applies to every item it matches. Make steps
// with [Backfill], [Rename], [Rekey] and [Transform]; a [Job] applies its
// steps in order, each to the output of the one before.
type Step struct {
	// Kind is "backfill", "rename", "rekey", "transform" or "import".
	Kind string
	// Type restricts the step to items whose Type attribute is Type; ""
	// matches every item (but never the job's own lease and job items).
	Type string
	// fn returns the item as it should be (a copy when it changes).
	fn func(t *entity.Table, it Item) (Item, error)
	// check refuses a step that does not fit the table, before any write.
	check func(t *entity.Table) error
	// version is the entity's version attribute ("" when none): the
	// write condition then checks it alone.
	version string
	// source is the table an import step reads ("" for the others), and
	// updated the attribute whose newer value an import's put needs.
	source, updated string
}

// Backfill returns the step that writes what e's code derives and the
// item lacks or has stale: the key attributes of the named indexes (all
// of e's indexes when none is named), honouring sparse rules (a sparse
// index whose sources are missing is removed whole), the Type attribute,
// and CreatedAt when only UpdatedAt is present. Items whose Type is e's,
// and items without a Type whose primary key parses with e's templates,
// are matched. An item that does not decode with e's codec fails with
// [ErrDecode] and is left untouched.
func Backfill(e Entity, indexes ...string) Step {
	var groups [][]entity.KeyAttr
	var typ types.AttributeValue = &types.AttributeValueMemberS{Value: e.Type()}
	fast := e.decode != nil // every key of groups is a built string
	if e.Schema != nil {
		groups = indexGroups(e.Schema, indexes)
		for _, g := range groups {
			for _, k := range g {
				if bare(k.Template) {
					fast = false // a copied field keeps its own type
				}
			}
		}
	}
	return Step{Kind: "backfill", Type: e.Type(), version: versionOf(e),
		check: func(t *entity.Table) error { return checkEntity(t, e, indexes) },
		fn: func(t *entity.Table, it Item) (Item, error) {
			sc := e.Schema
			fill := sc.CreatedAttr != "" && sc.UpdatedAttr != "" && it[sc.CreatedAttr] == nil && it[sc.UpdatedAttr] != nil
			if fast && !fill {
				// The common case, without encoding the whole item: the
				// index keys built from the item's own attributes (as
				// KeyAttr.Build decodes them: the codec's way).
				if err := e.decode(it); err != nil {
					return nil, fmt.Errorf("%w: %w", ErrDecode, err)
				}
				out := edit{src: it}
				if ta := t.TypeAttr(); ta != "" {
					out.set(ta, typ)
				}
				if ok, err := backfillBuilt(&out, groups, it); ok || err != nil {
					return out.item(), err
				}
			}
			want, err := e.remarshal(it)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrDecode, err)
			}
			out := edit{src: it}
			if ta := t.TypeAttr(); ta != "" {
				out.set(ta, typ)
			}
			if sc.CreatedAttr != "" && sc.UpdatedAttr != "" {
				if _, ok := it[sc.CreatedAttr]; !ok {
					if u, ok := it[sc.UpdatedAttr]; ok {
						out.set(sc.CreatedAttr, u)
					}
				}
			}
			for _, g := range groups {
				complete := true
				for _, k := range g {
					if _, ok := want[k.Attr]; !ok {
						complete = false
					}
				}
				for _, k := range g {
					switch {
					case complete:
						out.set(k.Attr, want[k.Attr])
					case g[0].Sparse:
						if !usedByComplete(sc, want, k) {
							out.remove(k.Attr)
						}
					default:
						_, err := k.Build(it)
						return nil, fmt.Errorf("%w: index %s attribute %s: %w", ErrUnbuildable, k.Index, k.Attr, err)
					}
				}
			}
			return out.item(), nil
		}}
}

// backfillBuilt sets in out the index keys of groups that KeyAttr.Build
// makes from it. It returns false when a group is incomplete (a source
// is missing), which the caller then handles with the whole encoded item.
func backfillBuilt(out *edit, groups [][]entity.KeyAttr, it Item) (bool, error) {
	var buf [4]types.AttributeValue
	for _, g := range groups {
		vals := buf[:0]
		for _, k := range g {
			v, err := k.Build(it)
			if errors.Is(err, keys.ErrMissingField) {
				return false, nil
			}
			if err != nil {
				return false, fmt.Errorf("%w: index %s attribute %s: %w", ErrUnbuildable, k.Index, k.Attr, err)
			}
			vals = append(vals, &types.AttributeValueMemberS{Value: v})
		}
		for i, k := range g {
			out.set(k.Attr, vals[i])
		}
	}
	return true, nil
}

// bare reports a template of a single bare field ("{CreatedAt}").
func bare(template string) bool {
	return strings.HasPrefix(template, "{") && strings.HasSuffix(template, "}") && strings.Count(template, "{") == 1
}

// edit is an item changed copy-on-write: src until the first change,
// then a copy of it.
type edit struct {
	src, out Item
}

// set makes attribute a v (no copy when it already is).
func (e *edit) set(a string, v types.AttributeValue) {
	if cur, ok := e.src[a]; ok && e.out == nil && avEqual(cur, v) {
		return
	}
	if e.out == nil {
		e.out = grown(e.src)
	}
	e.out[a] = v
}

// grown copies it with room for a few more attributes (see
// ddbexpr.CopyRoom: maps.Clone's copy of a small map would grow, and
// reallocate, on the first attribute added).
func grown(it Item) Item {
	return ddbexpr.CopyRoom(it, 4)
}

// remove removes attribute a (no copy when it is absent).
func (e *edit) remove(a string) {
	if e.out == nil {
		if _, ok := e.src[a]; !ok {
			return
		}
		e.out = grown(e.src)
	}
	delete(e.out, a)
}

// item returns the edited item: src itself when nothing changed.
func (e *edit) item() Item {
	if e.out == nil {
		return e.src
	}
	return e.out
}

// usedByComplete reports whether k's attribute also belongs to another
// index whose keys are all present in want.
func usedByComplete(sc *entity.Schema, want Item, k entity.KeyAttr) bool {
	for _, g := range indexGroups(sc, nil) {
		if g[0].Index == k.Index {
			continue
		}
		has, all := false, true
		for _, o := range g {
			has = has || o.Attr == k.Attr
			if _, ok := want[o.Attr]; !ok {
				all = false
			}
		}
		if has && all {
			return true
		}
	}
	return false
}

// indexGroups returns e's secondary index keys grouped by index, limited
// to names when given.
func indexGroups(sc *entity.Schema, names []string) [][]entity.KeyAttr {
	var out [][]entity.KeyAttr
	pos := map[string]int{}
	for _, k := range sc.Keys {
		if k.Index == "" || (len(names) > 0 && !contains(names, k.Index)) {
			continue
		}
		i, ok := pos[k.Index]
		if !ok {
			i = len(out)
			pos[k.Index] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], k)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// checkEntity refuses an entity whose keys do not fit the table, a named
// index the entity or the table does not declare, and a key template
// that does not parse.
func checkEntity(t *entity.Table, e Entity, indexes []string) error {
	if e.Schema == nil || e.remarshal == nil {
		return &JobError{Reason: "entity made without EntityOf", Err: ErrUnfit}
	}
	if err := entity.CheckSchema(t, e.Schema); err != nil {
		return &JobError{Type: e.Type(), Reason: "schema does not fit the table", Err: errors.Join(ErrUnfit, err)}
	}
	for _, ix := range indexes {
		if _, ok := t.Index(ix); !ok {
			return &JobError{Type: e.Type(), Reason: fmt.Sprintf("the table declares no index %q", ix), Err: ErrUnfit}
		}
		if len(indexGroups(e.Schema, []string{ix})) == 0 {
			return &JobError{Type: e.Type(), Reason: fmt.Sprintf("%s writes no key of index %q", e.Type(), ix), Err: ErrUnfit}
		}
	}
	for _, k := range e.Schema.Keys {
		if _, err := keys.New(k.Template); err != nil || k.Build == nil {
			return &JobError{Type: e.Type(), Reason: fmt.Sprintf("key template %q of %s cannot be built", k.Template, k.Attr), Err: errors.Join(ErrUnfit, err)}
		}
	}
	return nil
}

// Rename returns the step that moves attribute from to attribute to on
// the items of Type typ ("" for every item). An item that has from and
// not to gets to (with from's value) and loses from; an item that has
// both keeps to (written by newer code) and loses from. Key attributes
// cannot be renamed ([ErrUnfit]).
func Rename(typ, from, to string) Step {
	return Step{Kind: "rename", Type: typ,
		check: func(t *entity.Table) error {
			if from == "" || to == "" || from == to {
				return &JobError{Type: typ, Reason: fmt.Sprintf("rename %q to %q", from, to), Err: ErrUnfit}
			}
			for _, a := range []string{from, to} {
				if a == t.PKAttr() || a == t.SKAttr() || a == t.TypeAttr() {
					return &JobError{Type: typ, Reason: fmt.Sprintf("rename of key or Type attribute %q", a), Err: ErrUnfit}
				}
			}
			return nil
		},
		fn: func(_ *entity.Table, it Item) (Item, error) {
			v, ok := it[from]
			if !ok {
				return it, nil
			}
			out := maps.Clone(it)
			if _, has := it[to]; !has {
				out[to] = v
			}
			delete(out, from)
			return out, nil
		}}
}

// Rekey returns the step that moves every item of e whose primary key is
// not the one e's (changed) key templates build: the runner puts the item
// under its new key and deletes the old one in one transaction,
// conditioned on the old item as read and on the new key being free. It
// also backfills what [Backfill] would (all of e's indexes). Reads by the
// old key find an item until it moves, reads by the new key from the
// moment it moved; the transaction makes the move atomic. An entity with
// unique fields is refused ([ErrUnfit]): the move does not rewrite its
// guard items.
func Rekey(e Entity) Step {
	bf := Backfill(e)
	check := func(t *entity.Table) error {
		if err := bf.check(t); err != nil {
			return err
		}
		if len(e.Schema.Unique) > 0 {
			return &JobError{Type: e.Type(), Reason: "re-key of an entity with unique fields (its guard items would still name the old keys)", Err: ErrUnfit}
		}
		return nil
	}
	return Step{Kind: "rekey", Type: e.Type(), check: check, version: bf.version,
		fn: func(t *entity.Table, it Item) (Item, error) {
			out, err := bf.fn(t, it)
			if err != nil {
				return nil, err
			}
			want, _ := e.remarshal(it)
			ed := edit{src: out}
			for _, a := range []string{t.PKAttr(), t.SKAttr()} {
				if a == "" {
					continue
				}
				v, ok := want[a]
				if !ok {
					return nil, fmt.Errorf("%w: primary key attribute %s", ErrUnbuildable, a)
				}
				ed.set(a, v)
			}
			return ed.item(), nil
		}}
}

// Transform returns the step that applies fn to every item of Type typ
// ("" for every item): fn gets a copy of the item and returns the item as
// it should be. Returning the item unchanged skips it; an error leaves
// the item untouched and is reported as a failure matching
// [ErrTransform]. fn may change the key attributes: the runner then moves
// the item as [Rekey] does. fn must be safe for concurrent use.
func Transform(typ string, fn func(Item) (Item, error)) Step {
	return Step{Kind: "transform", Type: typ,
		check: func(*entity.Table) error {
			if fn == nil {
				return &JobError{Type: typ, Reason: "nil transform", Err: ErrUnfit}
			}
			return nil
		},
		fn: func(_ *entity.Table, it Item) (Item, error) {
			out, err := fn(maps.Clone(it))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrTransform, err)
			}
			return out, nil
		}}
}

func versionOf(e Entity) string {
	if e.Schema == nil {
		return ""
	}
	return e.Schema.VersionAttr
}

// Import returns the step of a job that copies the items of another table,
// from, into the job's table, as T (a legacy table moved into the single
// table): fn maps an item of from to the T to write (nil: skip the item;
// an error: the item is reported as a failure matching [ErrTransform],
// and nothing is written for it). A job with an import scans from instead
// of its own table and has no other step.
//
// Each T is encoded with its codec and put on the condition that the
// job's table does not hold it yet, or holds it with an older value of
// T's updated timestamp (Schema.UpdatedAttr; an entity without one is
// only ever created): a re-run (a job of a new name) copies only what is
// new or newer, and a newer write of the application wins. In the
// report, Changed counts the items written and Skipped those the table
// already held as recent (or that fn skipped). A T whose primary key
// cannot be built fails with an entity.ValidationError.
func Import[T any, PT interface {
	*T
	entity.Item
}](from string, fn func(Item) (*T, error)) Step {
	sc := PT(new(T)).EntitySchema()
	return Step{Kind: "import", source: from, updated: sc.UpdatedAttr,
		check: func(t *entity.Table) error {
			if fn == nil || from == "" {
				return &JobError{Type: sc.Type, Reason: "import with no function or no source table", Err: ErrUnfit}
			}
			if from == t.Name() {
				return &JobError{Type: sc.Type, Reason: "import from the job's own table", Err: ErrUnfit}
			}
			if err := entity.CheckSchema(t, sc); err != nil {
				return &JobError{Type: sc.Type, Reason: "schema does not fit the table", Err: errors.Join(ErrUnfit, err)}
			}
			return nil
		},
		fn: func(_ *entity.Table, it Item) (Item, error) {
			v, err := fn(maps.Clone(it))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrTransform, err)
			}
			if v == nil {
				return it, nil
			}
			if _, err := PT(v).PrimaryKey(); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrTransform, &entity.ValidationError{Op: "Import", Type: sc.Type, Field: "key", Err: err})
			}
			out, err := PT(v).MarshalItem()
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrTransform, &entity.ValidationError{Op: "Import", Type: sc.Type, Err: err})
			}
			return out, nil
		}}
}
