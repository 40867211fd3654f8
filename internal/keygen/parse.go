package keygen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/tablekit/tablekit/keys"
)

// Kinds of fields the codec knows.
const (
	kindString    = "string"
	kindBool      = "bool"
	kindInt       = "int"
	kindUint      = "uint"
	kindFloat     = "float"
	kindTime      = "time"
	kindBytes     = "bytes"
	kindStrings   = "strings"
	kindStringMap = "stringmap"
	kindAV        = "av" // attributevalue.Marshaler fallback
)

// Time formats of the tag options.
var timeFormats = map[string]string{
	"iso":     "keys.TimeMillis",
	"isosec":  "keys.TimeSeconds",
	"isonano": "keys.TimeNanos",
	"unix":    "unix",
	"unixms":  "unixms",
}

type pkg struct {
	dir   string
	name  string
	fset  *token.FileSet
	files []*srcFile
	// named maps local type names to their declared type expression.
	named map[string]ast.Expr
	// avTypes holds local type names with a MarshalDynamoDBAttributeValue method.
	avTypes map[string]bool
	// decls holds top-level identifiers of the hand-written files.
	decls map[string]bool
	// enums holds the enums declared by //keygen:enum, by type name.
	enums map[string]*Enum
	// validators holds local type names with a Validate() error method.
	validators map[string]bool
}

// Enum is a closed set of strings declared by //keygen:enum; keygen
// generates its type, constants, values function and Valid method.
type Enum struct {
	Name   string
	Doc    []string // the comment's text lines, the type's doc
	Values []EnumValue
	pos    token.Position
}

// EnumValue is one constant of an enum.
type EnumValue struct {
	Const, Value string
}

type srcFile struct {
	path     string
	ast      *ast.File
	imports  map[string]string // local name -> path
	entities []*Entity
	enums    []*Enum
}

// Entity is one struct type with keygen directives.
type Entity struct {
	Name   string // Go type name
	Type   string // value of the Type attribute
	Fields []*Field
	Keys   []*Key
	Guard  string // the struct type text for the staleness guard
	// Validate: the type has a Validate() error method, which
	// MarshalItem calls.
	Validate bool
	srcFile  *srcFile
	pos      token.Position
}

// Field is one attribute field.
type Field struct {
	Name      string // Go field name
	Attr      string
	Kind      string
	GoType    string // the field's type expression, e.g. "*Status"
	Elem      string // without the pointer
	Ptr       bool
	Named     bool   // Elem is a named type: convert to/from Base
	Base      string // the Go type the codec works with: string, int64, time.Time...
	Bits      int    // for int, uint, float
	OmitEmpty bool
	Set       bool
	TimeFmt   string // keys.TimeMillis..., "unix", "unixms"
	Width     int    // key width of an integer field; 0 = default
	Version   bool
	Created   bool
	Updated   bool
	TTL       bool
	// Rules.
	Enum     *Enum  // the field's type is a generated enum
	NonEmpty bool   // nonempty
	Min, Max string // min=, max=: number literals; "" when absent
	Prefix   string // prefix=
	// Unique: the value is unique in the table (unique) or within the
	// values of the Scope fields (unique=Field+Field).
	Unique bool
	Scope  []string // Go names of the scope fields
	scope  []*Field
}

// hasRules reports whether the field carries a rule to check.
func (f *Field) hasRules() bool {
	return f.Enum != nil || f.NonEmpty || f.Min != "" || f.Max != "" || f.Prefix != ""
}

// Key is one key attribute.
type Key struct {
	Index    string // "" for the table's key
	LSI      bool   // Index is a local secondary index
	Role     string // "pk" or "sk"
	Attr     string
	Template string
	Segs     []Seg
	Sparse   bool
	// TypeAttr: the Type attribute, its template the entity type.
	TypeAttr bool
	// FieldAttr: the field's own attribute, a bare template of it.
	FieldAttr *Field
	// Dup: an earlier key of another index with the same attribute and
	// template; its functions serve both.
	Dup *Key
	Max string // keys.MaxPartitionKeyLen or keys.MaxSortKeyLen
}

// Seg is a template segment: literal text (delimiter included) or a field.
type Seg struct {
	Lit   string
	Field *Field
	Width int
	Bare  bool // the whole template: copied unescaped
}

func (k *Key) fields() []*Field {
	var out []*Field
	for _, s := range k.Segs {
		if s.Field != nil {
			out = append(out, s.Field)
		}
	}
	return out
}

// Error is a generation error: a declaration keygen cannot accept.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// errorf returns an *Error at pos.
func errorf(pos token.Position, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func loadPackage(dir string) (*pkg, error) {
	p := &pkg{dir: dir, fset: token.NewFileSet(), named: map[string]ast.Expr{}, avTypes: map[string]bool{}, decls: map[string]bool{},
		enums: map[string]*Enum{}, validators: map[string]bool{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if isGenerated(src) {
			continue
		}
		f, err := parser.ParseFile(p.fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if p.name == "" {
			p.name = f.Name.Name
		} else if p.name != f.Name.Name {
			return nil, fmt.Errorf("%s: package %s, want %s", name, f.Name.Name, p.name)
		}
		sf := &srcFile{path: name, ast: f, imports: map[string]string{}}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			local := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			sf.imports[local] = path
		}
		p.files = append(p.files, sf)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.decls[s.Name.Name] = true
						p.named[s.Name.Name] = s.Type
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.decls[n.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.decls[d.Name.Name] = true
					continue
				}
				if len(d.Recv.List) != 1 {
					continue
				}
				t := d.Recv.List[0].Type
				if s, ok := t.(*ast.StarExpr); ok {
					t = s.X
				}
				id, ok := t.(*ast.Ident)
				if !ok {
					continue
				}
				switch d.Name.Name {
				case "MarshalDynamoDBAttributeValue":
					p.avTypes[id.Name] = true
				case "Validate":
					ft := d.Type
					if ft.Params.NumFields() == 0 && ft.Results.NumFields() == 1 {
						if r, ok := ft.Results.List[0].Type.(*ast.Ident); ok && r.Name == "error" {
							p.validators[id.Name] = true
						}
					}
				}
			}
		}
	}
	return p, nil
}

// isGenerated reports whether src carries keygen's header, of this
// version or another.
func isGenerated(src []byte) bool {
	line, _, _ := bytes.Cut(src, []byte("\n"))
	return bytes.HasPrefix(line, []byte("// Code generated by keygen")) && bytes.HasSuffix(line, []byte("; DO NOT EDIT."))
}

func (p *pkg) parseEntities() error {
	used := map[token.Pos]bool{}
	if err := p.parseEnums(used); err != nil {
		return err
	}
	for _, sf := range p.files {
		for _, d := range sf.ast.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				dirs := directives(doc)
				if len(dirs) == 0 {
					continue
				}
				for _, d := range dirs {
					used[d.at] = true
				}
				e, err := p.parseEntity(sf, ts, dirs)
				if err != nil {
					return err
				}
				sf.entities = append(sf.entities, e)
			}
		}
		// A directive outside a type's doc comment (say, after a blank
		// line) would be ignored silently: refuse it.
		for _, cg := range sf.ast.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//keygen:") && !used[c.Slash] {
					return errorf(p.fset.Position(c.Slash), "keygen: directive is not in the doc comment of a type declaration")
				}
			}
		}
	}
	return nil
}

type directive struct {
	at   token.Pos
	pos  token.Position
	verb string
	args []string
}

func directives(doc *ast.CommentGroup) []directive {
	if doc == nil {
		return nil
	}
	var out []directive
	for _, c := range doc.List {
		text, ok := strings.CutPrefix(c.Text, "//keygen:")
		if !ok {
			continue
		}
		parts := strings.Fields(text)
		if len(parts) == 0 {
			continue
		}
		out = append(out, directive{at: c.Slash, verb: parts[0], args: parts[1:]})
	}
	return out
}

func (p *pkg) parseEntity(sf *srcFile, ts *ast.TypeSpec, dirs []directive) (*Entity, error) {
	pos := p.fset.Position(ts.Pos())
	for i := range dirs {
		dirs[i].pos = p.fset.Position(dirs[i].at)
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok || ts.TypeParams != nil {
		return nil, errorf(pos, "keygen: %s is not a non-generic struct type", ts.Name.Name)
	}
	e := &Entity{Name: ts.Name.Name, srcFile: sf, pos: pos, Validate: p.validators[ts.Name.Name]}
	if err := p.parseFields(e, sf, st); err != nil {
		return nil, err
	}
	if err := e.resolveScopes(pos); err != nil {
		return nil, err
	}
	for i, d := range dirs {
		unquote := func(s string) string {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
			return s
		}
		switch d.verb {
		case "entity":
			if i != 0 || len(d.args) != 1 {
				return nil, errorf(d.pos, "keygen: want //keygen:entity TYPE as the first directive")
			}
			e.Type = unquote(d.args[0])
		case "key", "gsi", "lsi":
			if e.Type == "" {
				return nil, errorf(d.pos, "keygen: //keygen:entity must come first")
			}
			args := d.args
			index := ""
			if d.verb != "key" {
				if len(args) == 0 {
					return nil, errorf(d.pos, "keygen: //keygen:%s needs an index name", d.verb)
				}
				index, args = args[0], args[1:]
			}
			sparse := false
			if n := len(args); n > 0 && args[n-1] == "sparse" {
				if d.verb == "key" {
					return nil, errorf(d.pos, "keygen: the primary key cannot be sparse")
				}
				sparse, args = true, args[:n-1]
			}
			roles := []string{"pk", "sk"}
			if d.verb == "lsi" {
				roles = []string{"sk"}
			}
			if len(args) < 1 || len(args) > len(roles) || (d.verb == "lsi" && len(args) != 1) {
				return nil, errorf(d.pos, "keygen: //keygen:%s takes %d ATTR=TEMPLATE arguments", d.verb, len(roles))
			}
			if d.verb == "key" && len(e.Keys) > 0 || d.verb != "key" && len(e.Keys) == 0 {
				return nil, errorf(d.pos, "keygen: exactly one //keygen:key, before any index")
			}
			for j, a := range args {
				attr, tmpl, ok := strings.Cut(a, "=")
				if !ok || attr == "" {
					return nil, errorf(d.pos, "keygen: %q is not ATTR=TEMPLATE", a)
				}
				k, err := p.parseKey(e, d.pos, index, roles[j], unquote(attr), unquote(tmpl), sparse)
				if err != nil {
					return nil, err
				}
				k.LSI = d.verb == "lsi"
				e.Keys = append(e.Keys, k)
			}
		case "enum":
			return nil, errorf(d.pos, "keygen: //keygen:enum goes in a comment of its own, not in the doc comment of a type")
		default:
			return nil, errorf(d.pos, "keygen: unknown directive //keygen:%s", d.verb)
		}
	}
	if len(e.Keys) == 0 {
		return nil, errorf(pos, "keygen: %s has no //keygen:key", e.Name)
	}
	seen := map[string]bool{"Type": true}
	for _, f := range e.Fields {
		if seen[f.Attr] {
			return nil, errorf(pos, "keygen: attribute %q declared twice", f.Attr)
		}
		seen[f.Attr] = true
	}
	keyAttrs := map[string]*Key{}
	for _, k := range e.Keys {
		if first := keyAttrs[k.Attr]; first != nil {
			// Indexes may share a key attribute with the same template.
			if first.Template != k.Template || first.Index == k.Index {
				return nil, errorf(pos, "keygen: key attribute %q declared twice with different templates", k.Attr)
			}
			k.Dup = first
			continue
		}
		keyAttrs[k.Attr] = k
		if seen[k.Attr] && !k.TypeAttr && k.FieldAttr == nil {
			return nil, errorf(pos, "keygen: key attribute %q is also an attribute; only Type=%s or %s={Field} of that field may share a name", k.Attr, e.Type, k.Attr)
		}
	}
	return e, nil
}

func (p *pkg) parseKey(e *Entity, pos token.Position, index, role, attr, tmpl string, sparse bool) (*Key, error) {
	k := &Key{Index: index, Role: role, Attr: attr, Template: tmpl, Sparse: sparse, Max: "keys.MaxPartitionKeyLen"}
	if role == "sk" {
		k.Max = "keys.MaxSortKeyLen"
	}
	if _, err := keys.New(tmpl); err != nil {
		return nil, errorf(pos, "keygen: %v", err)
	}
	byName := map[string]*Field{}
	for _, f := range e.Fields {
		byName[f.Name] = f
	}
	segs := strings.Split(tmpl, "#")
	lit := ""
	for i, s := range segs {
		if i > 0 {
			lit += "#"
		}
		if s[0] != '{' {
			lit += s
			continue
		}
		name, w, _ := strings.Cut(s[1:len(s)-1], ":")
		f := byName[name]
		if f == nil {
			return nil, errorf(pos, "keygen: template %q: %s has no field %s", tmpl, e.Name, name)
		}
		if f.Ptr {
			return nil, errorf(pos, "keygen: template %q: pointer field %s cannot be part of a key", tmpl, name)
		}
		seg := Seg{Field: f}
		switch f.Kind {
		case kindString:
		case kindInt, kindUint:
			seg.Width = f.Width
			if w != "" {
				seg.Width, _ = strconv.Atoi(w)
			}
			maxw := digits(f.Kind, f.Bits)
			if seg.Width == 0 {
				seg.Width = maxw
			}
			if seg.Width > maxw {
				return nil, errorf(pos, "keygen: template %q: width %d of %s exceeds the %d digits of %s", tmpl, seg.Width, name, maxw, f.Base)
			}
		case kindTime:
			if !strings.HasPrefix(f.TimeFmt, "keys.") {
				return nil, errorf(pos, "keygen: template %q: time field %s must use a string format (iso, isosec, isonano)", tmpl, name)
			}
		default:
			return nil, errorf(pos, "keygen: template %q: field %s of type %s cannot be part of a key", tmpl, name, f.GoType)
		}
		if w != "" && f.Kind != kindInt && f.Kind != kindUint {
			return nil, errorf(pos, "keygen: template %q: width given for non-integer field %s", tmpl, name)
		}
		if lit != "" {
			k.Segs = append(k.Segs, Seg{Lit: lit})
			lit = ""
		}
		k.Segs = append(k.Segs, seg)
	}
	if lit != "" {
		k.Segs = append(k.Segs, Seg{Lit: lit})
	}
	if len(k.Segs) == 1 && k.Segs[0].Field != nil {
		k.Segs[0].Bare = true
	}
	if attr == "Type" {
		if tmpl != e.Type {
			return nil, errorf(pos, "keygen: key attribute Type must have the template %q, the entity type", e.Type)
		}
		k.TypeAttr = true
	}
	for _, f := range e.Fields {
		if f.Attr == attr {
			if len(k.Segs) != 1 || k.Segs[0].Field != f {
				return nil, errorf(pos, "keygen: key attribute %q is the attribute of field %s: its template must be {%s}", attr, f.Name, f.Name)
			}
			if f.Kind != kindString && f.Kind != kindTime {
				return nil, errorf(pos, "keygen: key attribute %q: field %s must be a string or a time", attr, f.Name)
			}
			k.FieldAttr = f
		}
	}
	return k, nil
}

func digits(kind string, bits int) int {
	if kind == kindUint {
		return map[int]int{8: 3, 16: 5, 32: 10, 64: 20}[bits]
	}
	return map[int]int{8: 3, 16: 5, 32: 10, 64: 19}[bits]
}

func (p *pkg) parseFields(e *Entity, sf *srcFile, st *ast.StructType) error {
	var guard strings.Builder
	guard.WriteString("struct {\n")
	for _, fl := range st.Fields.List {
		pos := p.fset.Position(fl.Pos())
		typeText := p.exprString(fl.Type)
		tag := ""
		if fl.Tag != nil {
			tag, _ = strconv.Unquote(fl.Tag.Value)
		}
		if len(fl.Names) == 0 {
			return errorf(pos, "keygen: embedded field %s is not supported", typeText)
		}
		for _, n := range fl.Names {
			guard.WriteString(n.Name + " " + typeText)
			if fl.Tag != nil {
				guard.WriteString(" " + fl.Tag.Value)
			}
			guard.WriteString("\n")
			if !n.IsExported() {
				continue
			}
			f, err := p.parseField(sf, pos, n.Name, fl.Type, tag)
			if err != nil {
				return err
			}
			if f != nil {
				e.Fields = append(e.Fields, f)
			}
		}
	}
	guard.WriteString("}")
	e.Guard = guard.String()
	return nil
}

func (p *pkg) exprString(x ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, p.fset, x)
	return b.String()
}

func (p *pkg) parseField(sf *srcFile, pos token.Position, name string, typ ast.Expr, tag string) (*Field, error) {
	f := &Field{Name: name, Attr: name, GoType: p.exprString(typ)}
	opts := []string{}
	if v, ok := reflect.StructTag(tag).Lookup("ddb"); ok {
		parts := strings.Split(v, ",")
		if parts[0] == "-" && len(parts) == 1 {
			return nil, nil
		}
		if parts[0] != "" {
			f.Attr = parts[0]
		}
		opts = parts[1:]
	}
	elem := typ
	if s, ok := typ.(*ast.StarExpr); ok {
		f.Ptr, elem = true, s.X
	}
	f.Elem = p.exprString(elem)
	forceAV := false
	for _, o := range opts {
		switch {
		case o == "omitempty":
			f.OmitEmpty = true
		case o == "set":
			f.Set = true
		case timeFormats[o] != "":
			if f.TimeFmt != "" {
				return nil, errorf(pos, "keygen: field %s: two time formats", name)
			}
			f.TimeFmt = timeFormats[o]
		case strings.HasPrefix(o, "width="):
			w, err := strconv.Atoi(o[len("width="):])
			if err != nil || w < 1 || w > keys.MaxUintWidth {
				return nil, errorf(pos, "keygen: field %s: bad %q", name, o)
			}
			f.Width = w
		case o == "version":
			f.Version = true
		case o == "created":
			f.Created = true
		case o == "updated":
			f.Updated = true
		case o == "ttl":
			f.TTL = true
		case o == "av":
			forceAV = true
		case o == "nonempty":
			f.NonEmpty = true
		case strings.HasPrefix(o, "min=") || strings.HasPrefix(o, "max="):
			n := o[len("min="):]
			if _, err := strconv.ParseFloat(n, 64); err != nil || n == "" || strings.ContainsAny(n, "_xXpPiInN") {
				return nil, errorf(pos, "keygen: field %s: bad %q (want a decimal number)", name, o)
			}
			if o[:3] == "min" {
				f.Min = n
			} else {
				f.Max = n
			}
		case o == "unique":
			f.Unique = true
		case strings.HasPrefix(o, "unique="):
			f.Unique = true
			f.Scope = strings.Split(o[len("unique="):], "+")
			for _, sc := range f.Scope {
				if !token.IsIdentifier(sc) {
					return nil, errorf(pos, "keygen: field %s: bad %q (want unique=Field or unique=Field+Field, Go field names)", name, o)
				}
			}
		case strings.HasPrefix(o, "prefix="):
			f.Prefix = o[len("prefix="):]
			if f.Prefix == "" {
				return nil, errorf(pos, "keygen: field %s: empty prefix", name)
			}
		default:
			return nil, errorf(pos, "keygen: field %s: unknown tag option %q", name, o)
		}
	}
	kind, base, bits, named := p.classify(sf, elem, 0)
	if forceAV {
		kind, base, bits, named = kindAV, "", 0, false
	}
	f.Kind, f.Base, f.Bits, f.Named = kind, base, bits, named
	if id, ok := elem.(*ast.Ident); ok && kind == kindString {
		f.Enum = p.enums[id.Name]
	}
	if (f.Min != "" || f.Max != "") && kind != kindInt && kind != kindUint && kind != kindFloat {
		return nil, errorf(pos, "keygen: field %s: min and max apply to numbers only", name)
	}
	if (f.Min != "" || f.Max != "") && kind != kindFloat && strings.ContainsAny(f.Min+f.Max, ".eE") {
		return nil, errorf(pos, "keygen: field %s: min and max of an integer must be integers", name)
	}
	if kind == kindUint && (strings.HasPrefix(f.Min, "-") || strings.HasPrefix(f.Max, "-")) {
		return nil, errorf(pos, "keygen: field %s: negative bound of an unsigned integer", name)
	}
	if f.Min != "" && f.Max != "" {
		lo, _ := strconv.ParseFloat(f.Min, 64)
		hi, _ := strconv.ParseFloat(f.Max, 64)
		if lo > hi {
			return nil, errorf(pos, "keygen: field %s: min %s above max %s", name, f.Min, f.Max)
		}
	}
	if f.Prefix != "" && (kind != kindString || f.Enum != nil) {
		return nil, errorf(pos, "keygen: field %s: prefix applies to strings only (not enums)", name)
	}
	if f.NonEmpty && (f.Ptr || kind == kindBool || kind == kindInt || kind == kindUint || kind == kindFloat || kind == kindAV) {
		return nil, errorf(pos, "keygen: field %s: nonempty applies to strings, times, []byte, lists and maps (not pointers; use min for numbers)", name)
	}
	if f.hasRules() && kind == kindAV {
		return nil, errorf(pos, "keygen: field %s: rules cannot apply to a type with its own codec", name)
	}
	if kind == kindTime {
		if f.TimeFmt == "" {
			f.TimeFmt = "keys.TimeMillis"
			if f.TTL {
				f.TimeFmt = "unix"
			}
		}
	} else if f.TimeFmt != "" {
		return nil, errorf(pos, "keygen: field %s: a time format on a %s", name, f.GoType)
	}
	if f.Unique && (kind != kindString && kind != kindInt && kind != kindUint && !(kind == kindTime && strings.HasPrefix(f.TimeFmt, "keys."))) {
		return nil, errorf(pos, "keygen: field %s: unique applies to strings, integers and times with a string format (iso, isosec, isonano)", name)
	}
	if f.Set && kind != kindStrings {
		return nil, errorf(pos, "keygen: field %s: set applies to []string only", name)
	}
	if f.Width > 0 && kind != kindInt && kind != kindUint {
		return nil, errorf(pos, "keygen: field %s: width applies to integers only", name)
	}
	if f.Width > digits(kind, bits) {
		return nil, errorf(pos, "keygen: field %s: width %d exceeds the %d digits of %s", name, f.Width, digits(kind, bits), base)
	}
	if f.Version && (kind != kindInt && kind != kindUint || f.Ptr) {
		return nil, errorf(pos, "keygen: field %s: version needs an integer", name)
	}
	if (f.Created || f.Updated) && (kind != kindTime || f.Ptr) {
		return nil, errorf(pos, "keygen: field %s: created/updated need a time.Time", name)
	}
	if f.TTL && (kind != kindTime && kind != kindInt && kind != kindUint) {
		return nil, errorf(pos, "keygen: field %s: ttl needs a time.Time or an integer", name)
	}
	if f.TTL && kind == kindTime && f.TimeFmt != "unix" {
		return nil, errorf(pos, "keygen: field %s: ttl needs epoch seconds (unix)", name)
	}
	if f.Ptr && kind == kindAV {
		// fine: *T with methods on *T or T
	}
	if f.Ptr && (kind == kindBytes || kind == kindStrings || kind == kindStringMap) {
		return nil, errorf(pos, "keygen: field %s: a pointer to %s is not supported (nil already means absent)", name, f.Elem)
	}
	return f, nil
}

// classify resolves a type expression to a codec kind.
func (p *pkg) classify(sf *srcFile, x ast.Expr, depth int) (kind, base string, bits int, named bool) {
	switch t := x.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return kindString, "string", 0, false
		case "bool":
			return kindBool, "bool", 0, false
		case "int", "int64":
			return kindInt, t.Name, 64, false
		case "int8", "int16", "int32", "rune":
			return kindInt, t.Name, map[string]int{"int8": 8, "int16": 16, "int32": 32, "rune": 32}[t.Name], false
		case "uint", "uint64", "uintptr":
			return kindUint, t.Name, 64, false
		case "uint8", "byte", "uint16", "uint32":
			return kindUint, t.Name, map[string]int{"uint8": 8, "byte": 8, "uint16": 16, "uint32": 32}[t.Name], false
		case "float32":
			return kindFloat, "float32", 32, false
		case "float64":
			return kindFloat, "float64", 64, false
		}
		if _, ok := p.enums[t.Name]; ok {
			return kindString, "string", 0, true
		}
		if under, ok := p.named[t.Name]; ok && !p.avTypes[t.Name] && depth < 8 {
			k, b, n, _ := p.classify(sf, under, depth+1)
			if k != kindAV {
				return k, b, n, true
			}
		}
	case *ast.SelectorExpr:
		if id, ok := t.X.(*ast.Ident); ok && sf.imports[id.Name] == "time" && t.Sel.Name == "Time" {
			return kindTime, "time.Time", 0, false
		}
	case *ast.ArrayType:
		if t.Len == nil {
			if id, ok := t.Elt.(*ast.Ident); ok {
				switch id.Name {
				case "byte", "uint8":
					return kindBytes, "[]byte", 0, false
				case "string":
					return kindStrings, "[]string", 0, false
				}
			}
		}
	case *ast.MapType:
		k, ok1 := t.Key.(*ast.Ident)
		v, ok2 := t.Value.(*ast.Ident)
		if ok1 && ok2 && k.Name == "string" && v.Name == "string" {
			return kindStringMap, "map[string]string", 0, false
		}
	}
	return kindAV, "", 0, false
}

// lowerFirst turns a Go field name into a parameter name: ID -> id,
// CategoryID -> categoryID, URL -> url.
func lowerFirst(s string) string {
	r := []rune(s)
	i := 0
	for i < len(r) && unicode.IsUpper(r[i]) {
		i++
	}
	switch {
	case i == 0:
	case i == 1 || i == len(r):
		for j := 0; j < i; j++ {
			r[j] = unicode.ToLower(r[j])
		}
	default: // "IDToken" -> "idToken"
		for j := 0; j < i-1; j++ {
			r[j] = unicode.ToLower(r[j])
		}
	}
	out := string(r)
	if token.Lookup(out).IsKeyword() || reserved[out] {
		out += "_"
	}
	return out
}

// reserved are names generated code uses for itself or its imports.
var reserved = map[string]bool{
	"b": true, "s": true, "err": true, "item": true, "p": true, "key": true, "k": true,
	"v": true, "x": true, "y": true, "av": true, "ok": true, "buf": true, "present": true,
	"keys": true, "codec": true, "entity": true, "types": true, "time": true, "strconv": true,
	"string": true, "bool": true, "int": true, "len": true, "new": true, "nil": true,
}

// parseEnums reads every //keygen:enum comment of the package. Each
// stands in a comment group of its own (not a declaration's doc comment),
// whose text lines become the generated type's doc comment.
func (p *pkg) parseEnums(used map[token.Pos]bool) error {
	for _, sf := range p.files {
		docs := map[*ast.CommentGroup]bool{sf.ast.Doc: true}
		for _, d := range sf.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				docs[d.Doc] = true
			case *ast.GenDecl:
				docs[d.Doc] = true
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						docs[s.Doc] = true
					case *ast.ValueSpec:
						docs[s.Doc] = true
					}
				}
			}
		}
		for _, cg := range sf.ast.Comments {
			var doc []string
			var en *Enum
			for _, c := range cg.List {
				text, isDir := strings.CutPrefix(c.Text, "//keygen:enum")
				pos := p.fset.Position(c.Slash)
				switch {
				case isDir && (text == "" || text[0] == ' ' || text[0] == '\t'):
					if docs[cg] {
						return errorf(pos, "keygen: //keygen:enum goes in a comment of its own, not in the doc comment of a declaration")
					}
					if en != nil {
						return errorf(pos, "keygen: one //keygen:enum per comment")
					}
					var err error
					if en, err = parseEnum(pos, strings.Fields(text), doc); err != nil {
						return err
					}
					if p.enums[en.Name] != nil {
						return errorf(pos, "keygen: enum %s declared twice", en.Name)
					}
					p.enums[en.Name] = en
					sf.enums = append(sf.enums, en)
					used[c.Slash] = true
				case strings.HasPrefix(c.Text, "//keygen:"):
					// Another directive: parseEntities takes it, or
					// reports it when it is not in a type's doc.
				case en == nil:
					doc = append(doc, c.Text)
				default:
					return errorf(pos, "keygen: //keygen:enum must end its comment")
				}
			}
		}
	}
	return nil
}

func parseEnum(pos token.Position, args, doc []string) (*Enum, error) {
	if len(args) < 2 {
		return nil, errorf(pos, "keygen: want //keygen:enum TYPE VALUE... (at least one value)")
	}
	if !token.IsIdentifier(args[0]) {
		return nil, errorf(pos, "keygen: enum name %q is not an identifier", args[0])
	}
	for len(doc) > 0 && strings.TrimSpace(strings.TrimPrefix(doc[len(doc)-1], "//")) == "" {
		doc = doc[:len(doc)-1]
	}
	en := &Enum{Name: args[0], Doc: doc, pos: pos}
	seen := map[string]bool{}
	for _, a := range args[1:] {
		name, value, explicit := strings.Cut(a, "=")
		if !explicit {
			name, value = en.Name+camel(a), a
		}
		if u, err := strconv.Unquote(value); err == nil {
			value = u
		}
		if !token.IsIdentifier(name) {
			return nil, errorf(pos, "keygen: enum %s: constant name %q of %q is not an identifier (write Name=VALUE)", en.Name, name, value)
		}
		if value == "" || seen[value] || seen[name] {
			return nil, errorf(pos, "keygen: enum %s: empty or repeated value or name %q", en.Name, a)
		}
		seen[value], seen[name] = true, true
		en.Values = append(en.Values, EnumValue{Const: name, Value: value})
	}
	return en, nil
}

// camel turns a value into a constant suffix: "IN_PROGRESS" -> "InProgress".
func camel(v string) string {
	var b strings.Builder
	upper := true
	for _, r := range v {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if upper {
				b.WriteRune(unicode.ToUpper(r))
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			upper = false
		default:
			upper = true
		}
	}
	return b.String()
}

// resolveScopes checks the scope fields of the unique fields of e: each
// names another field of e, a string or an integer that is not a pointer.
func (e *Entity) resolveScopes(pos token.Position) error {
	byName := map[string]*Field{}
	for _, f := range e.Fields {
		byName[f.Name] = f
	}
	for _, f := range e.Fields {
		for _, name := range f.Scope {
			sc := byName[name]
			switch {
			case sc == nil:
				return errorf(pos, "keygen: field %s: unique=%s: %s has no field %s (name a Go field of the entity)", f.Name, name, e.Name, name)
			case sc == f:
				return errorf(pos, "keygen: field %s: unique=%s: a field cannot scope itself", f.Name, name)
			case sc.Ptr || sc.Kind != kindString && sc.Kind != kindInt && sc.Kind != kindUint:
				return errorf(pos, "keygen: field %s: unique=%s: a scope field must be a string or an integer, not a pointer", f.Name, name)
			}
			f.scope = append(f.scope, sc)
		}
	}
	return nil
}
