package ddbmem

import (
	"maps"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// outTemplate makes full reads of a record cheap. It holds a map of the
// record's attributes that is never handed out: a read returns a clone
// of it (maps.Clone copies the map's memory instead of inserting key by
// key), so the caller owns the map it gets and may add, remove or
// replace attributes freely.
//
// The clones share the template's scalar members (S, N, BOOL, NULL).
// Those members are the template's own, never the stored item's, so
// the engine's state (keys, indexes, conditions, updates) cannot be
// changed through them. A caller that writes into a member in place
// (v.(*types.AttributeValueMemberS).Value = ...) is caught by intact on
// the next read, which then builds a fresh template; only results
// already handed out for the same record version see such a write.
// Binary, set, list and map attributes are mutable containers and are
// deep-copied into every clone.
type outTemplate struct {
	m     item
	s     []types.AttributeValueMemberS // the record's S attributes, in attrs order
	n     []types.AttributeValueMemberN // and its N attributes
	want  []string                      // the values of s, then of n, as stored
	flags []flagMember
	deep  []attr // attributes deep-copied into each clone
}

// flagMember is a BOOL or NULL member of the template and its value.
type flagMember struct {
	b    *types.AttributeValueMemberBOOL
	null *types.AttributeValueMemberNULL
	want bool
}

// mapGroupSlots is the number of entries a Go map holds before it
// becomes a table; assigning to a full small map grows it, so a record
// of exactly that many attributes with containers is copied key by key.
const mapGroupSlots = 8

// template returns r's output template, building or rebuilding it when
// needed, or nil when r is better copied key by key (decided without
// building anything).
func (r *record) template() *outTemplate {
	if r.nDeep > 0 && len(r.attrs) == mapGroupSlots {
		return nil
	}
	t := r.out.Load()
	if t != nil && t.intact() {
		return t
	}
	t = newTemplate(r)
	r.out.Store(t)
	return t
}

// readBefore reports whether r was read in full before, and marks it
// read: the first full read copies key by key, the later ones clone a
// template.
func (r *record) readBefore() bool {
	return r.out.Load() != nil || r.read.Swap(true)
}

func newTemplate(r *record) *outTemplate {
	t := &outTemplate{m: make(item, len(r.attrs))}
	t.s = make([]types.AttributeValueMemberS, 0, r.nS)
	t.n = make([]types.AttributeValueMemberN, 0, r.nN)
	t.want = make([]string, r.nS+r.nN)
	for _, a := range r.attrs {
		switch x := a.v.(type) {
		case *types.AttributeValueMemberS:
			t.want[len(t.s)] = x.Value
			t.s = append(t.s, types.AttributeValueMemberS{Value: x.Value})
			t.m[a.name] = &t.s[len(t.s)-1]
		case *types.AttributeValueMemberN:
			t.want[r.nS+len(t.n)] = x.Value
			t.n = append(t.n, types.AttributeValueMemberN{Value: x.Value})
			t.m[a.name] = &t.n[len(t.n)-1]
		case *types.AttributeValueMemberBOOL:
			b := &types.AttributeValueMemberBOOL{Value: x.Value}
			t.flags = append(t.flags, flagMember{b: b, want: x.Value})
			t.m[a.name] = b
		case *types.AttributeValueMemberNULL:
			n := &types.AttributeValueMemberNULL{Value: x.Value}
			t.flags = append(t.flags, flagMember{null: n, want: x.Value})
			t.m[a.name] = n
		default:
			t.deep = append(t.deep, a)
			t.m[a.name] = a.v // replaced in every clone
		}
	}
	return t
}

// intact reports whether no caller has written into the template's
// members, comparing them with the values they were built from.
func (t *outTemplate) intact() bool {
	want := t.want[:len(t.s)]
	for i := range t.s {
		if !same(t.s[i].Value, want[i]) {
			return false
		}
	}
	want = t.want[len(t.s):]
	for i := range t.n {
		if !same(t.n[i].Value, want[i]) {
			return false
		}
	}
	for _, f := range t.flags {
		if (f.b != nil && f.b.Value != f.want) || (f.null != nil && f.null.Value != f.want) {
			return false
		}
	}
	return true
}

// same reports whether a and b are the same string value: the same
// bytes in memory. A member a caller overwrote with an equal string
// counts as changed, which only costs a rebuild. This runs for every
// attribute of every item read, where comparing bytes would cost a call.
func same(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// clone returns the caller's copy of the record.
func (t *outTemplate) clone() item {
	out := maps.Clone(t.m)
	for _, a := range t.deep {
		out[a.name] = ddbexpr.Copy(a.v)
	}
	return out
}
