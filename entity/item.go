package entity

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file is the contract between the keygen code generator
// (github.com/tablekit/tablekit/keys/keygen) and the table runtime.
// Generated code implements [Item] on *T for each entity type T, and
// exposes typed [Field] descriptors for update setters.

// Key is the value of a table's primary key. Both parts are strings built
// by a generated key builder; SK is empty for a table without a sort key.
type Key struct {
	PK string
	SK string
}

// KeyAttr describes one key attribute an entity writes: the table's own
// PK or SK attribute, or a key attribute of a secondary index.
type KeyAttr struct {
	// Index is "" for the table's primary key, else the GSI or LSI name.
	Index string
	// Role is "pk" or "sk".
	Role string
	// Attr is the attribute name, for instance "PK" or "GSI1SK".
	Attr string
	// Template documents the layout, for instance "PROJ#{ProjectID}".
	// A template of a single bare field ("{CreatedAt}") copies that field.
	Template string
	// Sources are the item attribute names the key is built from, in
	// template order. Empty for a constant key such as "CORP#INFO".
	Sources []string
	// Sparse reports that an item without the sources is legal: the
	// item is then written without the index, whole: when any key
	// attribute of a sparse index cannot be built, every key attribute of
	// that index is omitted (and removed on update).
	Sparse bool
	// Build computes the key value from item attributes. It returns an
	// error wrapping keys.ErrMissingField when a source is absent or empty.
	Build func(item map[string]types.AttributeValue) (string, error)
}

// Schema is what the runtime knows of one entity type. Generated code
// returns a pointer to a package-level Schema that must not be mutated.
type Schema struct {
	// Type is the value written to the table's Type attribute ("POST").
	Type string
	// Keys lists every key attribute the entity writes (primary first).
	Keys []KeyAttr
	// Attrs lists every non-key attribute name the codec writes.
	Attrs []string
	// VersionAttr names the optimistic-lock attribute; "" when unversioned.
	VersionAttr string
	// CreatedAttr and UpdatedAttr name the automatic timestamps; "" when absent.
	CreatedAttr string
	UpdatedAttr string
	// TTLAttr names the epoch-seconds expiry attribute; "" when absent.
	TTLAttr string
	// TimeLayout is the time layout in which the runtime stamps the
	// CreatedAttr and UpdatedAttr string values; "" means TimeFormat
	// ("2006-01-02T15:04:05Z", keygen's isosec). keygen emits the layout
	// the codec decodes with, so stamps always round-trip.
	TimeLayout string
	// Unique lists the unique attributes (keygen tag option unique): the
	// runtime keeps one guard item per value (see [UniqueAttr]).
	Unique []UniqueAttr
}

// Item is implemented by the generated code for *T of each entity type.
type Item interface {
	// EntitySchema returns the entity's schema (a shared, read-only value).
	EntitySchema() *Schema
	// PrimaryKey returns the primary key built from the value's fields.
	PrimaryKey() (Key, error)
	// MarshalItem encodes every attribute, including the key attributes
	// of the primary key and of every index whose sources are present, and
	// the Type attribute.
	MarshalItem() (map[string]types.AttributeValue, error)
	// UnmarshalItem decodes an item. Unknown attributes are ignored; an
	// attribute of the wrong type is an error naming it.
	UnmarshalItem(item map[string]types.AttributeValue) error
}

// Field is a typed descriptor of one attribute of entity T, generated as
// a package-level variable (for example codex.PostTitle). Update setters
// take a Field so that the value's Go type is checked at compile time.
type Field[T any, V any] struct {
	// Name is the attribute name.
	Name string
	// Encode converts a Go value into its attribute value, exactly as the
	// item codec does. A nil result means "absent" (omitempty, nil pointer).
	Encode func(V) (types.AttributeValue, error)
	// Check applies the rules declared on the attribute (an enum, a
	// range...) and returns a *ConstraintError; nil when it has none.
	// Set and SetIfNotExists call it before Encode, Add does not (a delta
	// is not a value of the attribute).
	Check func(V) error
}

// ItemMarshalerTo is implemented by generated codecs: MarshalItemTo is
// MarshalItem writing into item, an empty map, or into a new map when
// item is nil. A [Store] whose client keeps no input (see [InputCopier])
// encodes its Puts into maps it reuses.
type ItemMarshalerTo interface {
	MarshalItemTo(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error)
}

// ItemRefresher is implemented by generated codecs whose entities have
// fields that always decode back to the value they were marshalled from
// (strings, integers, booleans outside the attributes the runtime sets).
// RefreshItem(item), where item was marshalled from the value's fields
// and then stamped by the runtime, leaves the value exactly as
// UnmarshalItem(item) would, decoding only the other fields. A write
// refreshes the caller's value with it.
type ItemRefresher interface {
	RefreshItem(item map[string]types.AttributeValue) error
}

// TimeStamper is implemented by the generated code of entities with
// created or updated time fields. The runtime calls it on a copy of the
// value before encoding a Put or Create, so that index keys built from
// those fields (GSI1SK={CreatedAt}) see the stamped times.
type TimeStamper interface {
	// StampTimes sets the created field when it is zero, and the updated
	// field unless keepUpdated is true and it is already set.
	StampTimes(now time.Time, keepUpdated bool)
}
