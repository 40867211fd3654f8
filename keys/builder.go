package keys

import (
	"fmt"
	"strings"
	"time"
	"unsafe"
)

// Builder assembles keys segment by segment. It is the low-level form of
// [Template.Build] that generated code uses: with a good size hint, a key
// costs one allocation, and several keys built in turn after [Builder.Reset]
// share it. Methods keep the first error; [Builder.Key] returns it. A
// Builder is not safe for concurrent use.
type Builder struct {
	template string
	max      int
	start    int
	buf      []byte
	err      error
	// big and bigLen name the field that added the most bytes to the
	// key, for the error of a key over its limit.
	big    string
	bigLen int
}

// NewBuilder returns a Builder with room for size bytes, ready for a key of
// at most MaxPartitionKeyLen bytes.
func NewBuilder(size int) Builder {
	return Builder{max: MaxPartitionKeyLen, buf: make([]byte, 0, size)}
}

// BuilderOn returns a Builder that appends to buf[len(buf):], in its spare
// capacity while it lasts, ready for a key of at most MaxPartitionKeyLen
// bytes. Generated code passes an array that lives in the same allocation
// as the item's attribute values. Keys point into buf's array: nothing else
// may write to it past len(buf) while they are in use.
func BuilderOn(buf []byte) Builder {
	return Builder{max: MaxPartitionKeyLen, buf: buf, start: len(buf)}
}

// Reset starts a new key for the given template layout (used in errors)
// and size limit in bytes (0 means [MaxPartitionKeyLen]). Keys already
// returned by [Builder.Key] stay valid.
func (b *Builder) Reset(template string, max int) {
	if max <= 0 {
		max = MaxPartitionKeyLen
	}
	b.template, b.max, b.start, b.err = template, max, len(b.buf), nil
	b.big, b.bigLen = "", 0
}

// grew records that field appended the bytes after n.
func (b *Builder) grew(field string, n int) {
	if d := len(b.buf) - n; d > b.bigLen {
		b.big, b.bigLen = field, d
	}
}

func (b *Builder) fail(field string, err error) {
	if b.err == nil {
		b.err = &Error{Template: b.template, Field: field, Err: err}
	}
}

// Literal appends s unchanged: the template's literal text, delimiters
// included.
func (b *Builder) Literal(s string) {
	b.buf = append(b.buf, s...)
}

// String appends the escaped value v of field; an empty v records an
// error wrapping [ErrMissingField].
func (b *Builder) String(field, v string) {
	if v == "" {
		b.fail(field, ErrMissingField)
		return
	}
	n := len(b.buf)
	b.buf = AppendEscaped(b.buf, v)
	b.grew(field, n)
}

// Raw appends v unescaped; an empty v records an error wrapping
// [ErrMissingField]. It serves a template that is one bare field, whose
// key is a copy of the value.
func (b *Builder) Raw(field, v string) {
	if v == "" {
		b.fail(field, ErrMissingField)
		return
	}
	n := len(b.buf)
	b.buf = append(b.buf, v...)
	b.grew(field, n)
}

// Int appends v as by [AppendInt].
func (b *Builder) Int(field string, v int64, width int) {
	var err error
	if b.buf, err = AppendInt(b.buf, v, width); err != nil {
		b.fail(field, err)
	}
}

// Uint appends v as by [AppendUint].
func (b *Builder) Uint(field string, v uint64, width int) {
	var err error
	if b.buf, err = AppendUint(b.buf, v, width); err != nil {
		b.fail(field, err)
	}
}

// Time appends t as by [AppendTime]; the zero time records an error
// wrapping [ErrMissingField].
func (b *Builder) Time(field string, t time.Time, f TimeFormat) {
	if t.IsZero() {
		b.fail(field, ErrMissingField)
		return
	}
	var err error
	if b.buf, err = AppendTime(b.buf, t, f); err != nil {
		b.fail(field, err)
	}
}

// Key returns the key built since [Builder.Reset] (or [NewBuilder]), or
// the first error recorded. A key longer than the limit is an error
// wrapping [ErrTooLarge] that states the key's size, the limit and the
// field that contributed the most bytes. The bytes of a returned key are never written
// again, so the Builder can go on with another key after Reset.
func (b *Builder) Key() (string, error) {
	if b.err != nil {
		return "", b.err
	}
	n := len(b.buf) - b.start
	if n > b.max {
		return "", &Error{Template: b.template, Field: b.big, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, n, b.max)}
	}
	if n == 0 {
		return "", nil
	}
	// Hand the bytes over without a copy, as strings.Builder does; the
	// next key appends after them (or into a new array) and never
	// overwrites them.
	key := unsafe.String(&b.buf[b.start], n)
	b.start = len(b.buf)
	return key, nil
}

// Scanner reads a key back segment by segment, the low-level form of
// [Template.Parse] that generated code uses. It does not allocate unless a
// value holds an escape sequence or the key is malformed. Methods keep the
// first error; [Scanner.End] returns it.
type Scanner struct {
	template string
	key      string
	rest     string
	err      error
}

// NewScanner returns a Scanner over key, which should match the template
// layout (used in errors only).
func NewScanner(template, key string) Scanner {
	return Scanner{template: template, key: key, rest: key}
}

func (s *Scanner) fail(field string, err error) {
	if s.err == nil {
		s.err = &Error{Template: s.template, Field: field, Key: s.key, Err: err}
	}
	s.rest = ""
}

// Literal consumes lit, which must come next.
func (s *Scanner) Literal(lit string) {
	if s.err != nil {
		return
	}
	if !strings.HasPrefix(s.rest, lit) {
		s.fail("", ErrMalformed)
		return
	}
	s.rest = s.rest[len(lit):]
}

// segment consumes the text up to the next delimiter or the end.
func (s *Scanner) segment(field string) (string, bool) {
	if s.err != nil {
		return "", false
	}
	i := strings.IndexByte(s.rest, Delimiter)
	if i < 0 {
		i = len(s.rest)
	}
	seg := s.rest[:i]
	if seg == "" {
		s.fail(field, ErrMalformed)
		return "", false
	}
	s.rest = s.rest[i:]
	return seg, true
}

// String consumes and unescapes the value of field.
func (s *Scanner) String(field string) string {
	seg, ok := s.segment(field)
	if !ok {
		return ""
	}
	v, err := Unescape(seg)
	if err != nil {
		s.fail(field, err)
	}
	return v
}

// Raw consumes the rest of the key, unescaped: the value of a template that
// is one bare field. An empty rest is an error wrapping [ErrMalformed].
func (s *Scanner) Raw(field string) string {
	if s.err != nil {
		return ""
	}
	if s.rest == "" {
		s.fail(field, ErrMalformed)
		return ""
	}
	v := s.rest
	s.rest = ""
	return v
}

// Int consumes an integer of the given width, as by [ParseInt], that must
// fit in a signed integer of the given bit size (8, 16, 32 or 64).
func (s *Scanner) Int(field string, width, bits int) int64 {
	seg, ok := s.segment(field)
	if !ok {
		return 0
	}
	v, err := ParseInt(seg, width)
	if err == nil && bits < 64 && (v < -1<<(bits-1) || v >= 1<<(bits-1)) {
		err = fmt.Errorf("%w: %d overflows int%d", ErrMalformed, v, bits)
	}
	if err != nil {
		s.fail(field, err)
		return 0
	}
	return v
}

// Uint consumes an unsigned integer of the given width, as by
// [ParseUint], that must fit in the given bit size (8, 16, 32 or 64).
func (s *Scanner) Uint(field string, width, bits int) uint64 {
	seg, ok := s.segment(field)
	if !ok {
		return 0
	}
	v, err := ParseUint(seg, width)
	if err == nil && bits < 64 && v >= 1<<bits {
		err = fmt.Errorf("%w: %d overflows uint%d", ErrMalformed, v, bits)
	}
	if err != nil {
		s.fail(field, err)
		return 0
	}
	return v
}

// Time consumes a time in format f, as by [ParseTime].
func (s *Scanner) Time(field string, f TimeFormat) time.Time {
	seg, ok := s.segment(field)
	if !ok {
		return time.Time{}
	}
	t, err := ParseTime(seg, f)
	if err != nil {
		s.fail(field, err)
	}
	return t
}

// End checks that the whole key was consumed and returns the first error:
// an error wrapping [ErrMalformed] for trailing text or a mismatch.
func (s *Scanner) End() error {
	if s.err == nil && s.rest != "" {
		s.fail("", ErrMalformed)
	}
	return s.err
}
