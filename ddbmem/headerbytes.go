package ddbmem

import "encoding/binary"

// The header checks of both HTTP loops read a head's bytes eight at a
// time: a word with no control byte (below 0x20, or DEL) is passed over
// whole, and only a word that has one is looked at byte by byte. A
// request's head is about a kilobyte of signature, date and user agent,
// all of it visible characters.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// mayHaveControl reports whether a word of eight bytes may hold a byte
// below 0x20 or DEL (0x7f); when it reports false, it holds none.
func mayHaveControl(w uint64) bool {
	below := (w - 0x20*ones) &^ w & highs // a byte below 0x20
	x := w ^ 0x7f*ones
	del := (x - ones) &^ x & highs // a byte equal to 0x7f
	return below|del != 0
}

// validValue reports whether v is a header value net/http accepts:
// visible characters, spaces, tabs and bytes from 0x80 up.
func validValue(v []byte) bool {
	for len(v) >= 8 {
		if mayHaveControl(binary.LittleEndian.Uint64(v)) && !validValueBytes(v[:8]) {
			return false
		}
		v = v[8:]
	}
	return validValueBytes(v)
}

func validValueBytes(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// hasLineBreak reports whether s holds '\r' or '\n'.
func hasLineBreak(s string) bool {
	for len(s) >= 8 {
		if mayHaveControl(load64(s)) && hasLineBreakBytes(s[:8]) {
			return true
		}
		s = s[8:]
	}
	return hasLineBreakBytes(s)
}

func hasLineBreakBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			return true
		}
	}
	return false
}

// load64 is binary.LittleEndian.Uint64 of a string's first eight bytes
// (the compiler makes it one load).
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// badNameByte reports whether s, a header name, holds a byte that would
// break the request head: a line break, a colon or a space.
func badNameByte(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r', '\n', ':', ' ':
			return true
		}
	}
	return false
}
