package keys

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Options configures a [Template].
type Options struct {
	// MaxLen is the longest key Build accepts, in bytes. Zero means
	// MaxPartitionKeyLen (2048); use MaxSortKeyLen (1024) for a sort key.
	MaxLen int
	// TimeFormat encodes time.Time values. The zero value is TimeSeconds;
	// New sets TimeMillis unless an option function chooses otherwise.
	TimeFormat TimeFormat
}

// Template is a parsed key layout such as "USR#{UserID}#PROJ#{ProjectID}#ART".
// A layout is a list of segments separated by '#'; each segment is either
// literal text (no '#', '{', '}', '%' or space) or exactly one field
// reference: {Name} or {Name:W}, where W is the decimal width of an
// integer field. A layout that is one bare string field ("{ID}") copies
// the value unescaped: the key is the value itself. A Template is
// immutable and safe for concurrent use.
type Template struct {
	layout string
	segs   []segment
	fields []string
	opts   Options
}

type segment struct {
	lit   string // literal text, when field == ""
	field string
	width int // declared integer width; 0 = the type's widest
}

// New parses a template layout. It returns an error wrapping [ErrTemplate]
// for an empty layout, an empty segment, a malformed or repeated field
// reference, or a forbidden byte in a literal.
func New(layout string, optFns ...func(*Options)) (*Template, error) {
	t := &Template{layout: layout, opts: Options{TimeFormat: TimeMillis}}
	for _, fn := range optFns {
		fn(&t.opts)
	}
	if t.opts.MaxLen <= 0 {
		t.opts.MaxLen = MaxPartitionKeyLen
	}
	if !t.opts.TimeFormat.valid() {
		return nil, &Error{Template: layout, Err: fmt.Errorf("%w: time format %d", ErrTemplate, int(t.opts.TimeFormat))}
	}
	bad := func(why string) (*Template, error) {
		return nil, &Error{Template: layout, Err: fmt.Errorf("%w: %s", ErrTemplate, why)}
	}
	if layout == "" {
		return bad("empty layout")
	}
	for _, text := range strings.Split(layout, string(Delimiter)) {
		if text == "" {
			return bad("empty segment")
		}
		if text[0] != '{' {
			if strings.ContainsAny(text, "{}% ") {
				return bad("literal " + strconv.Quote(text) + " contains '{', '}', '%' or a space")
			}
			t.segs = append(t.segs, segment{lit: text})
			continue
		}
		if text[len(text)-1] != '}' || len(text) < 3 {
			return bad("segment " + strconv.Quote(text) + " is not {Name} or {Name:W}")
		}
		name, w, hasW := strings.Cut(text[1:len(text)-1], ":")
		if !isIdent(name) {
			return bad("field name " + strconv.Quote(name) + " is not an identifier")
		}
		seg := segment{field: name}
		if hasW {
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 || n > MaxUintWidth {
				return bad("width " + strconv.Quote(w) + " is not in 1..20")
			}
			seg.width = n
		}
		for _, f := range t.fields {
			if f == name {
				return bad("field " + name + " repeated")
			}
		}
		t.fields = append(t.fields, name)
		t.segs = append(t.segs, seg)
	}
	return t, nil
}

// MustNew is like [New] but panics on error; for package-level variables.
func MustNew(layout string, optFns ...func(*Options)) *Template {
	t, err := New(layout, optFns...)
	if err != nil {
		panic(err)
	}
	return t
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// String returns the layout.
func (t *Template) String() string { return t.layout }

// Fields returns the field names in template order.
func (t *Template) Fields() []string { return append([]string(nil), t.fields...) }

// Build returns the key for vals, one per field in template order. A value
// may be a string (escaped as by [AppendEscaped]), any integer type
// (encoded as by [AppendInt] or [AppendUint] with the field's width, by
// default the widest of its type), or a time.Time (as by [AppendTime] in
// the template's format). Errors, each a *[Error] wrapping: [ErrMissingField]
// for too few values, an empty string or a zero time; [ErrArgs] for too
// many values or an unsupported type; [ErrOverflow]; [ErrTooLarge].
func (t *Template) Build(vals ...any) (string, error) {
	if len(vals) > len(t.fields) {
		return "", &Error{Template: t.layout, Err: fmt.Errorf("%w: %d values for %d fields", ErrArgs, len(vals), len(t.fields))}
	}
	if len(vals) < len(t.fields) {
		return "", &Error{Template: t.layout, Field: t.fields[len(vals)], Err: ErrMissingField}
	}
	return t.build(vals, false)
}

// Prefix returns the key prefix for begins_with built from the first k
// fields, k = len(vals) < the number of fields: the key up to the next
// field, so it ends with '#' unless k is 0 and the layout starts with a
// field. Because escaped values never contain '#', the prefix for "abc"
// never matches a key whose field is "abcd". Errors are those of Build;
// giving every field is an error wrapping [ErrArgs] (use Build).
func (t *Template) Prefix(vals ...any) (string, error) {
	if len(vals) >= len(t.fields) {
		return "", &Error{Template: t.layout, Err: fmt.Errorf("%w: a prefix takes fewer than %d values", ErrArgs, len(t.fields))}
	}
	return t.build(vals, true)
}

func (t *Template) build(vals []any, prefix bool) (string, error) {
	b := NewBuilder(len(t.layout) + 16*len(vals))
	b.Reset(t.layout, t.opts.MaxLen)
	k := 0
	for i, seg := range t.segs {
		if i > 0 {
			b.Literal(string(Delimiter))
		}
		if seg.field == "" {
			b.Literal(seg.lit)
			continue
		}
		if prefix && k == len(vals) {
			break
		}
		t.value(&b, seg, vals[k])
		k++
	}
	return b.Key()
}

func (t *Template) value(b *Builder, seg segment, v any) {
	w := func(widest int) int {
		if seg.width > 0 {
			return seg.width
		}
		return widest
	}
	switch v := v.(type) {
	case string:
		if len(t.segs) == 1 {
			b.Raw(seg.field, v)
			return
		}
		b.String(seg.field, v)
	case time.Time:
		b.Time(seg.field, v, t.opts.TimeFormat)
	case int:
		b.Int(seg.field, int64(v), w(MaxIntWidth))
	case int8:
		b.Int(seg.field, int64(v), w(3))
	case int16:
		b.Int(seg.field, int64(v), w(5))
	case int32:
		b.Int(seg.field, int64(v), w(10))
	case int64:
		b.Int(seg.field, v, w(MaxIntWidth))
	case uint:
		b.Uint(seg.field, uint64(v), w(MaxUintWidth))
	case uint8:
		b.Uint(seg.field, uint64(v), w(3))
	case uint16:
		b.Uint(seg.field, uint64(v), w(5))
	case uint32:
		b.Uint(seg.field, uint64(v), w(10))
	case uint64:
		b.Uint(seg.field, v, w(MaxUintWidth))
	default:
		b.fail(seg.field, fmt.Errorf("%w: unsupported type %T", ErrArgs, v))
	}
}

// Parse splits key into the unescaped text of each field, in template
// order. Integer and time fields come back in their encoded form; decode
// them with [ParseInt], [ParseUint] or [ParseTime]. A key that does not
// match the layout (wrong literal, wrong number of segments, an empty
// segment, a bad escape sequence) is a *[Error] wrapping [ErrMalformed].
func (t *Template) Parse(key string) ([]string, error) {
	s := NewScanner(t.layout, key)
	out := make([]string, 0, len(t.fields))
	for i, seg := range t.segs {
		if i > 0 {
			s.Literal(string(Delimiter))
		}
		if seg.field == "" {
			s.Literal(seg.lit)
			// A literal must end on a segment boundary: "ART" is not "ARTX".
			if s.err == nil && s.rest != "" && s.rest[0] != Delimiter {
				s.fail("", ErrMalformed)
			}
			continue
		}
		if len(t.segs) == 1 {
			out = append(out, s.Raw(seg.field))
			continue
		}
		out = append(out, s.String(seg.field))
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	return out, nil
}
