// Package jsonscan reads JSON text piece by piece for the two decoders of
// the DynamoDB wire format: the engine's request decoder (package ddbmem)
// and the runtime's response decoder (entity/internal/ddbjson). It holds
// what both read alike: white space, punctuation, literals and strings.
// A string without escapes is a substring of the text, not a copy.
//
// The decoders differ only in how a string with escapes treats invalid
// UTF-8 and unpaired UTF-16 surrogates, which [Scanner.Escapes] selects.
package jsonscan

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Escapes selects how [Scanner.Str] reads a string that holds escapes.
// Strings without escapes are returned as they are in both modes.
type Escapes uint8

const (
	// Replace reads as Go's encoding/json does, and so the AWS SDK's
	// decoder: each byte of invalid UTF-8 becomes U+FFFD; an unpaired
	// surrogate escape becomes U+FFFD and the escape after it, if any, is
	// read on its own.
	Replace Escapes = iota
	// Keep reads as DynamoDB does: invalid UTF-8 is kept as it is; a
	// surrogate escape followed by a \u escape it does not pair with
	// becomes U+FFFD followed by that escape's character, or U+FFFD alone
	// when that is a surrogate too (both escapes are read); a surrogate
	// escape followed by anything else becomes U+FFFD.
	Keep
)

// Scanner reads the JSON text S from byte I on. A zero Scanner reads an
// empty text; the methods are not safe for concurrent use.
type Scanner struct {
	S       string
	I       int
	Escapes Escapes
}

// WS skips white space.
func (s *Scanner) WS() {
	for s.I < len(s.S) {
		switch s.S[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte, 0 at the end.
func (s *Scanner) Peek() byte {
	s.WS()
	if s.I < len(s.S) {
		return s.S[s.I]
	}
	return 0
}

// Eat reads c if it is the next byte.
func (s *Scanner) Eat(c byte) bool {
	if s.I < len(s.S) && s.S[s.I] == c {
		s.I++
		return true
	}
	return false
}

// Token skips white space and reads c if it comes next.
func (s *Scanner) Token(c byte) bool {
	if s.Peek() == c {
		s.I++
		return true
	}
	return false
}

// Lit reads word if the text continues with it.
func (s *Scanner) Lit(word string) bool {
	if len(s.S)-s.I >= len(word) && s.S[s.I:s.I+len(word)] == word {
		s.I += len(word)
		return true
	}
	return false
}

// End skips white space and reports whether the whole text has been read.
func (s *Scanner) End() bool {
	s.WS()
	return s.I == len(s.S)
}

// Str reads a string whose opening quote is the next byte. It returns
// false, at an unspecified position, for a malformed string.
func (s *Scanner) Str() (string, bool) {
	if !s.Eat('"') {
		return "", false
	}
	start := s.I
	for s.I < len(s.S) {
		c := s.S[s.I]
		switch {
		case c == '"':
			v := s.S[start:s.I]
			s.I++
			return v, true
		case c == '\\':
			return s.slowStr(start)
		case c < 0x20:
			return "", false
		}
		s.I++
	}
	return "", false
}

// slowStr reads, from start on, the rest of a string that holds escapes.
func (s *Scanner) slowStr(start int) (string, bool) {
	b := make([]byte, 0, 64) // on the stack unless it grows
	s.I = start
	for s.I < len(s.S) {
		c := s.S[s.I]
		switch {
		case c == '"':
			s.I++
			return string(b), true
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf && s.Escapes == Replace:
			r, size := utf8.DecodeRuneInString(s.S[s.I:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s.S[s.I:s.I+size]...)
			}
			s.I += size
			continue
		case c != '\\':
			b = append(b, c)
			s.I++
			continue
		}
		s.I++
		if s.I >= len(s.S) {
			return "", false
		}
		e := s.S[s.I]
		s.I++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				var mark bool
				if r, mark, ok = s.surrogate(r); !ok {
					return "", false
				}
				if mark {
					b = utf8.AppendRune(b, utf8.RuneError)
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

// surrogate reads what follows the surrogate escape r and returns the
// character to append, and whether Keep's U+FFFD for an unpaired escape
// goes before it. (It does not append itself: taking the address of the
// caller's buffer would move the buffer to the heap.)
func (s *Scanner) surrogate(r rune) (c rune, mark, ok bool) {
	save := s.I
	r2 := rune(-1)
	if s.Lit(`\u`) {
		if r2, ok = s.hex4(); !ok {
			return 0, false, false
		}
	}
	dec := utf16.DecodeRune(r, r2)
	switch {
	case dec != utf8.RuneError:
		return dec, false, true
	case s.Escapes == Replace:
		s.I = save
	case r2 >= 0 && !utf16.IsSurrogate(r2):
		return r2, true, true
	}
	return utf8.RuneError, false, true
}

func (s *Scanner) hex4() (rune, bool) {
	if len(s.S)-s.I < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s.S[s.I:s.I+4], 16, 32)
	if err != nil {
		return 0, false
	}
	s.I += 4
	return rune(n), true
}
