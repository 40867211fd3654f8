package ddbmem

import "bytes"

// The header checks of both HTTP loops, the lean server loop's and the
// endpoint transport's: a name must be a token and a value must hold no
// control byte but tab, as net/http checks them on both sides. Values are
// read eight bytes at a time: a word with no control byte (below 0x20, or
// DEL) is passed over whole, and only a word that has one is looked at
// byte by byte. A request's head is about a kilobyte of signature, date
// and user agent, all of it visible characters.

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

// load64 is the little-endian word of v's first eight bytes (the
// compiler makes it one load).
func load64[S ~string | ~[]byte](v S) uint64 {
	_ = v[7]
	return uint64(v[0]) | uint64(v[1])<<8 | uint64(v[2])<<16 | uint64(v[3])<<24 |
		uint64(v[4])<<32 | uint64(v[5])<<40 | uint64(v[6])<<48 | uint64(v[7])<<56
}

// validValue reports whether v is a header value net/http accepts:
// visible characters, spaces, tabs and bytes from 0x80 up.
func validValue[S ~string | ~[]byte](v S) bool {
	for len(v) >= 8 {
		if mayHaveControl(load64(v)) && !validValueBytes(v[:8]) {
			return false
		}
		v = v[8:]
	}
	return validValueBytes(v)
}

func validValueBytes[S ~string | ~[]byte](v S) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// validName reports whether name is a token, as a header name must be.
func validName[S ~string | ~[]byte](name S) bool {
	for i := 0; i < len(name); i++ {
		if !tokenByte[name[i]] {
			return false
		}
	}
	return len(name) > 0
}

// tokenByte tells the bytes of an HTTP token (RFC 9110 tchar): visible
// ASCII but the delimiters.
var tokenByte = func() (t [256]bool) {
	for c := byte('!'); c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range []byte(`"(),/:;<=>?@[\]{}`) {
		t[c] = false
	}
	return t
}()

// headLine splits the first line off a head that ends in CRLF: line is
// what comes before the first LF, which must follow a CR, and rest what
// comes after it. ok is false for a bare LF, which neither loop takes up
// (net/http then reads the head). A CR elsewhere stays in the line, whose
// check refuses it, as a split at CRLF would.
func headLine(head []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(head, '\n')
	if i < 1 || head[i-1] != '\r' {
		return nil, nil, false
	}
	return head[:i-1], head[i+1:], true
}

// trimOWS trims the spaces and tabs around a header value, as
// bytes.Trim(v, " \t") does, without building its set of bytes.
func trimOWS(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}
