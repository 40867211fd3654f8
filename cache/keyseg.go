package cache

import (
	"fmt"
	"strings"
)

// Key segments are escaped reversibly, with the discipline of package keys:
// the delimiter ':' becomes "%3A", the braces "%7B" and "%7D", the escape
// '%' itself "%25", and white space (which a key may not hold) "%20",
// "%09", "%0A", "%0D". Every other byte is kept, so plain IDs ("u1",
// "evt-draft-12345", a UUID) appear exactly as the seeds write them.
//
// A key accepted by [Cache.Key] may hold '%' only as one of these escape
// sequences. Internal keys (generation marks) carry "%!", which no valid
// key contains: no user key can reach them.

// segEscapes maps each escaped byte to its sequence.
var segEscapes = [256]string{
	'%': "%25", ':': "%3A", '{': "%7B", '}': "%7D",
	' ': "%20", '\t': "%09", '\n': "%0A", '\r': "%0D",
}

// internalMark is carried by every internal key; no valid user key holds it.
const internalMark = "%!"

// Seg escapes s for use as one key segment. It is the identity for plain
// IDs. [Unseg] reverses it.
func Seg(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if escaped[s[i]] {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	appendSeg(&b, s)
	return b.String()
}

// Unseg reverses [Seg]. It returns an error wrapping ErrInvalidKey for a
// string [Seg] cannot produce (a raw delimiter, brace or white space, or
// an unknown escape sequence), so every segment has exactly one escaped form.
func Unseg(s string) (string, error) {
	if strings.ContainsAny(s, ": \t\r\n{}") {
		return "", fmt.Errorf("%w: %q is not an escaped segment", ErrInvalidKey, s)
	}
	if strings.IndexByte(s, '%') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		c, ok := unescapeAt(s, i)
		if !ok {
			return "", fmt.Errorf("%w: %q has a bad escape sequence", ErrInvalidKey, s)
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), nil
}

func unescapeAt(s string, i int) (byte, bool) {
	if i+3 > len(s) {
		return 0, false
	}
	seq := s[i : i+3]
	for c, e := range segEscapes {
		if e == seq {
			return byte(c), true
		}
	}
	return 0, false
}

// Join returns the key made of segs, each escaped with [Seg], separated by
// ':'. Join("session_list", "u1", "p1") is "session_list:u1:p1", and
// Join("session_list", "a:b", "c") ("session_list:a%3Ab:c") differs from
// Join("session_list", "a", "b:c"). An empty segment stays empty, so
// [Cache.Key] rejects the key.
func Join(segs ...string) string {
	n, escapes := max(len(segs)-1, 0), 0 // the separators
	for _, s := range segs {
		n += len(s)
		for i := 0; i < len(s); i++ {
			if escaped[s[i]] {
				escapes++
			}
		}
	}
	var b strings.Builder
	b.Grow(n + 2*escapes) // the key in one allocation
	for i, s := range segs {
		if i > 0 {
			b.WriteByte(':')
		}
		if escapes == 0 {
			b.WriteString(s)
		} else {
			appendSeg(&b, s)
		}
	}
	return b.String()
}

// escaped tells the bytes [Seg] escapes.
var escaped = func() (t [256]bool) {
	for c, e := range segEscapes {
		t[c] = e != ""
	}
	return t
}()

// appendSeg writes s escaped as [Seg] escapes it.
func appendSeg(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if escaped[s[i]] {
			b.WriteString(s[last:i])
			b.WriteString(segEscapes[s[i]])
			last = i + 1
		}
	}
	b.WriteString(s[last:])
}

// Split reverses [Join]. Errors wrap ErrInvalidKey.
func Split(key string) ([]string, error) {
	parts := strings.Split(key, ":")
	for i, p := range parts {
		u, err := Unseg(p)
		if err != nil {
			return nil, err
		}
		parts[i] = u
	}
	return parts, nil
}

// checkEscapes reports an error unless every '%' in key starts a valid
// escape sequence.
func checkEscapes(key string) error {
	for i := strings.IndexByte(key, '%'); i >= 0; {
		if _, ok := unescapeAt(key, i); !ok {
			return fmt.Errorf("%w: %q: '%%' must start an escape sequence (build segments with cache.Seg)", ErrInvalidKey, key)
		}
		j := strings.IndexByte(key[i+3:], '%')
		if j < 0 {
			break
		}
		i += 3 + j
	}
	return nil
}
