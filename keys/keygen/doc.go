// Keygen generates typed key builders and a reflection-free item codec for
// tablekit entities. Add it to your module as a tool once,
//
//	go get -tool github.com/tablekit/tablekit/keys/keygen
//
// and run it from a host package with
//
//	//go:generate go tool keygen
//
// (the form README shows; `go run github.com/tablekit/tablekit/keys/keygen`
// works too, and is what tablekit's own packages use). With tablekit in a
// local checkout, `go get -tool` asks the module proxy and fails; edit
// go.mod instead:
//
//	go mod edit -require=github.com/tablekit/tablekit@v0.0.0 -replace=github.com/tablekit/tablekit=../tablekit
//	go mod edit -tool=github.com/tablekit/tablekit/keys/keygen
//	go generate ./... && go mod tidy
//
// It reads every non-test .go file of the current directory (files it
// generated itself excepted) and, for each source file x.go that declares at
// least one entity or enum, writes x_keys.go next to it. A file that no
// longer declares any loses its x_keys.go. Flags:
//
//	-dir DIR   package directory to process (default ".")
//	-check     write nothing; exit 1 and list the files that are stale
//	-version   print the generator's version (also in every file's header)
//
// # Declaring an entity
//
// An entity is a struct type whose doc comment holds keygen directives, one
// per line. Templates contain no spaces; they may be double-quoted. A
// directive anywhere else (say, separated from the type by a blank line) is
// an error.
//
//	// Post is a blog post.
//	//
//	//keygen:entity POST
//	//keygen:key PK=CATEGORY#{CategoryID} SK=POST#{ID}
//	//keygen:gsi Type_CreatedAt Type=POST CreatedAt={CreatedAt}
//	//keygen:gsi AuthorId_CreatedAt GSI2PK=AUTHOR#{AuthorID} GSI2SK={CreatedAt} sparse
//	type Post struct {
//		ID         string    `ddb:"id"`
//		CategoryID string    `ddb:"categoryId"`
//		AuthorID   string    `ddb:"authorId,omitempty"`
//		Title      string    `ddb:"title"`
//		Tags       []string  `ddb:"tags,set,omitempty"`
//		CreatedAt  time.Time `ddb:"CreatedAt,created"`
//		UpdatedAt  time.Time `ddb:"UpdatedAt,updated"`
//		Version    int64     `ddb:"Version,version"`
//	}
//
// The directives:
//
//	//keygen:entity TYPE
//	    Required, first. TYPE is the value of the item's "Type" attribute.
//	//keygen:key PKATTR=TEMPLATE [SKATTR=TEMPLATE]
//	    Required. The table's partition key attribute and template, then
//	    the optional sort key attribute and template.
//	//keygen:gsi NAME PKATTR=TEMPLATE [SKATTR=TEMPLATE] [sparse]
//	    A global secondary index: its name, its partition key attribute and
//	    template, its optional sort key attribute and template.
//	//keygen:lsi NAME SKATTR=TEMPLATE [sparse]
//	    A local secondary index (it shares the table's partition key).
//
// An index key whose template fields are empty (or a zero time) is an error
// at marshal time, unless the index is marked sparse: then the item is
// stored without that index (an item that lacks a key attribute of an
// index is not in the index). A sparse index is written whole or not at
// all: MarshalItem leaves out each key attribute it cannot build, and the
// entity runtime, on every write, then leaves out the index's other key
// attributes too, so a stored item never carries half an index key.
//
// # Templates
//
// A template is a list of segments separated by '#'. Each segment is either
// a literal (letters, digits and any byte but '#', '{', '}', '%', space) or
// exactly one field reference {Field} or {Field:W}, where Field is the Go
// name of a struct field and W the decimal width of an integer field (see
// package keys for the encodings). Examples:
//
//	PROJ#{ProjectID}
//	USR#{UserID}#PROJ#{ProjectID}#ART
//	QAT#{QueuedAt}#REQ#{RequestID}
//	SEG#{Index:6}                    Index int: SEG#000002 sorts before SEG#000010
//	CORP#INFO                        a constant key
//	{CreatedAt}                      a bare field: a copy of its string form
//
// Fields in templates must not be pointers; they must be strings,
// integers (any size) or times with a string format (iso, isosec,
// isonano), or named types of these. Strings are escaped by
// [keys.AppendEscaped] ('#' and '%' become %23 and %25, anything else is
// kept byte for byte, case included), except in a template of one bare
// field, which copies the value as is; integers use the fixed-width, sign-offset encoding of [keys.AppendInt]
// with width W, else the field's width= tag option, else the widest value
// of the type (19 digits for int64); times use the field's format in UTC.
//
// A key attribute may share its name with the entity's own attribute only
// in two cases, both written once: the attribute "Type" with the constant
// template equal to the entity type (Type=POST above), and an attribute
// named like a field's attribute with the bare template of that field
// (CreatedAt={CreatedAt}). Several indexes may share a key attribute with the same template, for
// instance CreatedAt={CreatedAt} as the sort key of two GSIs.
//
// # Field tags
//
// Every exported field is an attribute, named by the field name unless a
// `ddb:"name,options"` tag says otherwise. `ddb:"-"` skips the field;
// unexported fields are skipped too. Embedded fields are not supported.
// Options, comma-separated:
//
//	omitempty   leave the attribute out when the value is the zero value,
//	            an empty slice/map, or a nil pointer
//	set         []string (or a named type of it) as a string set (SS);
//	            an empty set is always omitted (DynamoDB has no empty set).
//	            Default: a list (L) of strings; a nil slice is omitted, an
//	            empty one written as an empty list
//	iso         time.Time as "2006-01-02T15:04:05.000Z" (UTC, fixed-width
//	            milliseconds; sorts as a string). The default for times
//	isosec      time.Time as "2006-01-02T15:04:05Z" (UTC, seconds)
//	isonano     time.Time as "2006-01-02T15:04:05.000000000Z" (UTC)
//	unix        time.Time as a number of epoch seconds (N)
//	unixms      time.Time as a number of epoch milliseconds (N)
//	width=W     integer width used when the field appears in a key template
//	version     Schema.VersionAttr: the optimistic-lock counter (an integer)
//	created     Schema.CreatedAttr (a time.Time)
//	updated     Schema.UpdatedAttr (a time.Time)
//	ttl         Schema.TTLAttr: a time.Time (then implies unix) or an
//	            integer of epoch seconds
//	av          force the attributevalue.Marshaler/Unmarshaler fallback
//	nonempty    rule: not "" (strings), not the zero time, not an empty
//	            []byte, list or map
//	min=N       rule: a number >= N (N decimal; an integer for integers)
//	max=N       rule: a number <= N
//	prefix=P    rule: a string that starts with P and is longer than P
//	            (P holds no ',' nor '"')
//	unique      the value is held by at most one item of the entity in
//	            the table (a string, an integer, or a time with a string
//	            format; "" and absent values are not guarded)
//	unique=F    unique within the values of field F (unique=F+G: of F
//	            and G), for instance an email unique within an account
//
// omitempty has no effect on a type encoded through the fallback (use a
// pointer to make it optional). A nil []byte or map is always omitted.
//
// Supported Go types: string, bool, int, int8..int64, uint, uint8..uint64,
// float32, float64, time.Time, []byte (B), []string (L or SS),
// map[string]string (M of S), a pointer to any of these but the slices and
// the map (nil = absent), and named types defined in the same package
// whose underlying type is one of these (unless the package gives the type
// a MarshalDynamoDBAttributeValue method). Any other type (a named type of
// another package, a struct) is encoded through its
// MarshalDynamoDBAttributeValue method and decoded through
// (*T).UnmarshalDynamoDBAttributeValue, the attributevalue.Marshaler and
// attributevalue.Unmarshaler interfaces; the build fails if it lacks them.
//
// Decoding accepts a string list as L or SS, and a time in any RFC 3339
// form whatever the field's format (so items written by other tools
// decode); the encoder always writes the field's own format. Decoding
// ignores unknown attributes and a NULL attribute; an attribute of
// the wrong DynamoDB type, a number that does not fit, or a malformed time
// is a *codec.AttrError naming the attribute (errors.Is codec.ErrType for a
// type mismatch); a value outside its enum is an *entity.ConstraintError.
//
// # Enums
//
// An enum is a closed set of strings. Declare it in a comment of its own
// (separated from any declaration by a blank line), its doc text first:
//
//	// Style is the look of a generated image.
//	//
//	//keygen:enum Style FANCY SIMPLE TRENDY
//
//	// UIResult is the outcome shown to the user.
//	//
//	//keygen:enum UIResult UISuccess=SUCCESS UILotteryWin=LOTTERY_WIN
//
// keygen generates the type (type Style string, with the comment's text
// as its doc), one constant per value, named TYPE + the value in
// CamelCase (StyleFancy; IN_PROGRESS gives ...InProgress) unless written
// NAME=VALUE, a function StyleValues() []Style listing the values in
// order, and the method (Style) Valid() bool. Other methods of the type
// may be written by hand in the package. A field of an enum type is a
// string attribute (it may be part of keys) whose value must be one of
// the enum's; "" counts as absent only for an omitempty field.
//
// # Rules
//
// Rules (the enum of a field's type, and the nonempty, min, max and
// prefix options) are checked by the generated code on every write and
// need nothing from the runtime:
//
//   - MarshalItem, which the runtime calls for every full write (Create,
//     Put, batch puts, transaction puts), checks every field's rules, then
//     calls the type's Validate method when it has one (a method
//     Validate() error on T or *T declared in the package): a whole-value
//     rule that no single attribute can state. A field left out by
//     omitempty (or a nil pointer) is absent and breaks no rule but
//     nonempty.
//   - The Check of each constrained field's entity.Field, which
//     entity.Set and entity.SetIfNotExists apply in an Update (entity.Add
//     does not: a delta is not a value), and entity.Check for arguments.
//   - UnmarshalItem refuses a stored value outside an enum.
//
// A broken rule is an *entity.ConstraintError naming the entity type, the
// attribute, the value and the rule (entity.RuleEnum, RuleMin, RuleMax,
// RuleNonEmpty, RulePrefix, or RuleValidate wrapping Validate's error); it
// matches entity.ErrValidation and nothing is sent.
//
// # Unique fields
//
// The runtime keeps a unique field unique with one guard item per value
// in the same table (see entity.UniqueAttr): Create writes the item and
// its guards in one transaction, Update and Put move them atomically,
// Delete removes them, and a taken value is an *entity.UniqueError naming
// the field, the value and the key of the item that holds it.
// entity.GetUnique reads the item holding a value. Schema.Unique lists
// the unique fields.
//
// # Generated API
//
// For an entity type Post declared in post.go, post_keys.go contains
// (names of fields and key attributes as declared; Field names are Go
// field names, parameters are lower-cased Go field names):
//
//	const PostType = "POST"
//	    The entity type.
//	func PostKey(categoryID, id string) (entity.Key, error)
//	    The primary key, from the fields of the PK then the SK template
//	    (each field once, in order of first appearance).
//	func PostPK(categoryID string) (string, error)
//	func PostSK(id string) (string, error)
//	func PostGSI2PK(authorID string) (string, error)
//	func PostGSI2SK(createdAt time.Time) (string, error)
//	    One builder per key attribute, named <Entity><Attr>; parameters
//	    are the template's fields in order, typed as the struct fields.
//	    A template without fields gives a constant instead:
//	    const CorpInfoPK = "CORP#INFO". No builder is generated for the
//	    "Type" key attribute or for a key attribute that is the field's
//	    own attribute (CreatedAt={CreatedAt}): use PostType and the Field
//	    var's Encode.
//	const PostSKPrefix = "POST#"
//	func ArtifactGSI2PKPrefixByUserID(userID string) (string, error)
//	    Prefix builders for begins_with, for every key attribute with a
//	    builder (a query uses the sort key's; the others are for scans
//	    and checks): <Entity><Attr>Prefix is the literal text before the first field
//	    (generated only when not empty); <Entity><Attr>PrefixBy<F1>..<Fk>
//	    covers the first k fields (k < number of fields) and ends with the
//	    template's text up to the next field, so on a '#' boundary:
//	    RequestGSI2SKPrefixByQueuedAt(t) is "QAT#<t>#REQ#".
//	func ParsePostKey(k entity.Key) (categoryID, id string, err error)
//	func ParsePostSK(sk string) (id string, err error)
//	    Parsers: one for the primary key and one per key attribute that
//	    has a builder; they return the template's fields in order and an
//	    error wrapping keys.ErrMalformed on a key that does not match.
//	var PostTitle = entity.Field[Post, string]{Name: "title", Encode: ...}
//	    One typed descriptor per attribute field, named <Entity><Field>;
//	    Check is set when the field has rules (checkPostTitle, and
//	    checkPost for the whole value, are the unexported functions
//	    behind Check and MarshalItem).
//	var GSIs = []entity.Index{{Name: "AuthorId_CreatedAt", PK: "authorId", SK: "CreatedAt"}}
//	var LSIs = []entity.Index{...}
//	    Once per package (in the file of the first entity with an
//	    index), the indexes that the keygen:gsi and keygen:lsi directives
//	    declare, merged by name, for entity.Options (string keys,
//	    projection ALL): append(o.GSIs, GSIs...). Two entities that give
//	    one index different key attributes are a generation error.
//	func (*Post) EntitySchema() *entity.Schema
//	func (p *Post) PrimaryKey() (entity.Key, error)
//	func (p *Post) MarshalItem() (map[string]types.AttributeValue, error)
//	func (p *Post) MarshalItemTo(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error)
//	func (p *Post) UnmarshalItem(item map[string]types.AttributeValue) error
//	func (p *Post) RefreshItem(item map[string]types.AttributeValue) error
//	    The entity.Item implementation (and entity.ItemMarshalerTo:
//	    MarshalItemTo writes into a given empty map, which a Store reuses
//	    when its client keeps no input; entity.ItemRefresher: RefreshItem
//	    leaves p as UnmarshalItem would, given an item marshalled from p,
//	    but decodes only the fields whose stored form may differ from
//	    their value, such as times, floats, pointers, slices and maps,
//	    keeping strings, booleans and integers; a Store refreshes a
//	    written value with it; it is generated when some field is kept).
//	    MarshalItem writes Type, every
//	    attribute field and every key attribute (a sparse index key whose
//	    fields are empty is left out; the runtime then drops the rest of
//	    that index, see above); UnmarshalItem reads the fields back
//	    (after resetting *p; key attributes and Type are not read).
//	    Schema.Keys lists the
//	    primary key attributes first, then each index's in declaration
//	    order; Schema.Attrs lists "Type" and every field attribute that is
//	    not also a key attribute; VersionAttr, CreatedAttr, UpdatedAttr
//	    and TTLAttr come from the tag options above, TimeLayout from the
//	    time format of the updated (else created) field. KeyAttr.Build decodes
//	    the source attributes from an item map with the codec's rules and
//	    applies the template; an absent or empty source gives an error
//	    wrapping keys.ErrMissingField.
//
// A name clash among generated identifiers (for example a field named
// Type next to the PostType constant, or an enum OrderStatus beside the
// descriptor OrderStatus of Order.Status) is a generation error that says
// what to rename.
//
// Builders return an error wrapping keys.ErrMissingField for an empty
// string or zero time, keys.ErrOverflow for an integer wider than its width
// or a time outside years 0000-9999, and keys.ErrTooLarge for a partition
// key over 2048 bytes or a sort key over 1024 bytes, each inside a
// *keys.Error naming the template and field.
//
// # Staleness guard
//
// Each generated file holds, per entity, an assignment of the entity to an
// unnamed struct type with the same fields, types and tags as at generation
// time, for example
//
//	var _ struct {
//		ID string `ddb:"id"`
//		...
//	} = Post{}
//
// Go allows it only while the struct is identical, so adding, removing,
// retyping, reordering or retagging a field (rules included) breaks the
// build until keygen runs again. The first line of a generated file names
// the generator's version: "// Code generated by keygen v1.1.0; DO NOT
// EDIT.". The file also refers to keys.KeygenV1, so output of an older
// generator stops compiling when the runtime changes incompatibly. A change
// to a directive comment alone is not visible to the compiler: the
// repository test that regenerates every package with a keygen go:generate
// line (and keygen -check) catches it.
package main
