package entity

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/keys"
)

// Store is the typed access to entity T in a [Table]. PT is *T, which the
// generated code makes implement [Item]. A Store is safe for concurrent use.
//
// The operations live one per file, as in guregu/dynamo: get.go, put.go
// (Create and Put), update.go, delete.go, batch.go and tx.go. Every
// request goes through one path (send.go: trace, send, translate the
// error) and every write condition through one builder (cond.go).
type Store[T any, PT interface {
	*T
	Item
}] struct {
	t       *Table
	schema  *Schema
	plain   map[string]bool
	primary []KeyAttr
	derived []KeyAttr // index keys computed from sources
	// primaryT are the parsed templates of primary (nil if unparseable).
	primaryT []*keys.Template
	srcOf    map[string]bool
	// stampFree reports that the primary key is built from no automatic
	// timestamp, so that the key a codec writes into the item is the key
	// PrimaryKey returns (see encode).
	stampFree bool
	// items holds the item maps of Puts sent and done with, for reuse
	// (nil when T's codec cannot write into a map or the table's client
	// may keep its input).
	items *sync.Pool
	// copies holds the *T values that Puts stamp their timestamps on
	// (the caller's value is not modified) and marshal, for reuse when
	// their item maps are reused: each is cleared and given back once
	// its request is done.
	copies sync.Pool
	// refreshes reports that T's codec is an ItemRefresher and no field
	// attribute of the entity is a key or the Type attribute of the
	// table, so that a write refreshes the caller's value with it (see
	// Store.refresh).
	refreshes bool
	// stamps reports that T stamps its own timestamps (TimeStamper) and
	// the entity has a created or updated attribute (see encode).
	stamps bool
}

// NewStore returns the store of entity T in table t, for instance
// entity.NewStore[codex.Post](table). Like regexp.MustCompile, it panics
// when the entity's schema does not fit the table (see [CheckSchema]):
// such a mismatch is a programming error, found when the store is made
// rather than on its first call. Use CheckSchema first to get the error
// instead.
func NewStore[T any, PT interface {
	*T
	Item
}](t *Table) *Store[T, PT] {
	sc := PT(new(T)).EntitySchema()
	if err := CheckSchema(t, sc); err != nil {
		panic(err)
	}
	s := &Store[T, PT]{t: t, schema: sc}
	if _, ok := any(PT(new(T))).(ItemMarshalerTo); ok && reusesInput(t.client) {
		s.items = new(sync.Pool)
	}
	// Attrs lists the codec's own "Type" (a generated codec's RefreshItem
	// decodes no field of that name) and the fields' attributes.
	_, refresher := any(PT(new(T))).(ItemRefresher)
	s.refreshes = refresher && !slices.ContainsFunc(sc.Attrs, func(a string) bool {
		return a != "Type" && (a == t.opts.TypeAttr || a == t.opts.PK || a == t.opts.SK)
	})
	_, stamper := any(PT(new(T))).(TimeStamper)
	s.stamps = stamper && (sc.CreatedAttr != "" || sc.UpdatedAttr != "")
	s.plain = map[string]bool{t.opts.TypeAttr: true}
	for _, a := range []string{sc.VersionAttr, sc.CreatedAttr, sc.UpdatedAttr, sc.TTLAttr} {
		if a != "" {
			s.plain[a] = true
		}
	}
	for _, a := range sc.Attrs {
		s.plain[a] = true
	}
	s.srcOf = map[string]bool{}
	for _, k := range sc.Keys {
		switch {
		case k.Index == "":
			s.primary = append(s.primary, k)
			tmpl, _ := keys.New(k.Template)
			s.primaryT = append(s.primaryT, tmpl)
			for _, src := range k.Sources {
				s.srcOf[src] = true
			}
		case s.plain[k.Attr] || k.Attr == t.opts.TypeAttr || (len(k.Sources) == 1 && k.Sources[0] == k.Attr):
			// The index key is the entity's own attribute (Type,
			// CreatedAt={CreatedAt}): nothing to derive.
			s.plain[k.Attr] = true
		default:
			s.derived = append(s.derived, k)
		}
	}
	s.stampFree = (sc.CreatedAttr == "" || !s.srcOf[sc.CreatedAttr]) && (sc.UpdatedAttr == "" || !s.srcOf[sc.UpdatedAttr])
	return s
}

// CheckSchema reports whether an entity schema fits table t: each primary
// key attribute must be the table's own PK or SK attribute, and each index
// key must belong to an index that t declares (Options.GSIs or LSIs) in
// the same role (partition or sort) under the same attribute name. It
// returns nil or a [*SchemaError]. [NewStore] panics with that error; call
// CheckSchema(t, new(T).EntitySchema()) first where a program would rather
// handle it.
func CheckSchema(t *Table, sc *Schema) error {
	for _, k := range sc.Keys {
		fail := func(format string, args ...any) error {
			return &SchemaError{Table: t.name, Type: sc.Type, Index: k.Index, Attr: k.Attr, Err: fmt.Errorf(format, args...)}
		}
		if k.Role != "pk" && k.Role != "sk" {
			return fail("role %q is neither pk nor sk", k.Role)
		}
		if k.Index == "" {
			want := t.opts.PK
			if k.Role == "sk" {
				want = t.opts.SK
			}
			if k.Attr != want {
				return fail("the table's %s attribute is %q", k.Role, want)
			}
			continue
		}
		ix, ok := t.Index(k.Index)
		if !ok {
			return fail("the table declares no index %q: declare the indexes of the entity's package when making the table, "+
				"entity.NewTable(client, name, func(o *entity.Options) { o.GSIs = append(o.GSIs, yourpkg.GSIs...) }) "+
				"(keygen generates GSIs and LSIs next to the entity), or add %s", k.Index, indexLiteral(sc, k.Index))
		}
		want := ix.PK
		if k.Role == "sk" {
			want = ix.SK
		}
		if k.Attr != want {
			return fail("the table's index %s has %s attribute %q", k.Index, k.Role, want)
		}
	}
	return nil
}

// Table returns the store's table.
func (s *Store[T, PT]) Table() *Table { return s.t }

// Schema returns the entity's schema.
func (s *Store[T, PT]) Schema() *Schema { return s.schema }

// KeyMap returns the primary key attributes of key in this table.
func (t *Table) KeyMap(key Key) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, 2)
	m[t.opts.PK] = &types.AttributeValueMemberS{Value: key.PK}
	if t.opts.SK != "" {
		m[t.opts.SK] = &types.AttributeValueMemberS{Value: key.SK}
	}
	return m
}

// keyOf reads the primary key of an item (or of a key map).
func (t *Table) keyOf(item map[string]types.AttributeValue) Key {
	var k Key
	if v, ok := item[t.opts.PK].(*types.AttributeValueMemberS); ok {
		k.PK = v.Value
	}
	if t.opts.SK != "" {
		if v, ok := item[t.opts.SK].(*types.AttributeValueMemberS); ok {
			k.SK = v.Value
		}
	}
	return k
}

func (s *Store[T, PT]) checkKey(op string, key Key) error {
	if key.PK == "" {
		return &ValidationError{Op: op, Type: s.schema.Type, Field: s.t.opts.PK, Err: errors.New("empty partition key")}
	}
	if s.t.opts.SK != "" && key.SK == "" {
		return &ValidationError{Op: op, Type: s.schema.Type, Field: s.t.opts.SK, Err: errors.New("empty sort key")}
	}
	return nil
}

func (s *Store[T, PT]) decode(item map[string]types.AttributeValue, v *T) error {
	if tv, ok := item[s.t.opts.TypeAttr].(*types.AttributeValueMemberS); ok && tv.Value != s.schema.Type {
		return &ValidationError{Op: "decode", Type: s.schema.Type, Field: s.t.opts.TypeAttr, Err: fmt.Errorf("item has Type %q", tv.Value)}
	}
	if err := PT(v).UnmarshalItem(item); err != nil {
		return fmt.Errorf("entity: decode %s: %w", s.schema.Type, err)
	}
	return nil
}

// Decode decodes an item of this entity (for instance from a query). An
// item of another Type is a [*ValidationError]; an attribute the codec
// cannot decode is the codec's error, wrapped.
func (s *Store[T, PT]) Decode(item map[string]types.AttributeValue) (T, error) {
	var v T
	err := s.decode(item, &v)
	return v, err
}

// indexLiteral is the entity.Index literal of the named index of sc, as
// its key attributes give it.
func indexLiteral(sc *Schema, name string) string {
	pk, sk := "", ""
	for _, k := range sc.Keys {
		if k.Index != name {
			continue
		}
		if k.Role == "pk" {
			pk = k.Attr
		} else {
			sk = k.Attr
		}
	}
	lit := fmt.Sprintf("entity.Index{Name: %q", name)
	if pk != "" {
		lit += fmt.Sprintf(", PK: %q", pk)
	}
	if sk != "" {
		lit += fmt.Sprintf(", SK: %q", sk)
	}
	return lit + "} to Options.GSIs (Options.LSIs for a local index)"
}
