package ddbmem

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHeaderBytes: the word-at-a-time checks answer as the byte-by-byte
// ones do, for a control byte or DEL at every position of heads of every
// length up to 40, among visible, high and tab bytes.
func TestHeaderBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	plain := []byte("aZ09 -_./=;,\t\x80\xff~!")
	special := []byte{0, 1, '\t', '\n', '\r', 0x1f, 0x7f, 0x20, 0x7e, 0x80}
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 50; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = plain[r.IntN(len(plain))]
			}
			check := func(b []byte) {
				if got, want := validValue(b), validValueBytes(b); got != want {
					t.Fatalf("validValue(%q) = %v, want %v", b, got, want)
				}
				if got, want := validValue(string(b)), validValueBytes(b); got != want {
					t.Fatalf("validValue(string %q) = %v, want %v", b, got, want)
				}
			}
			check(b)
			for i := range b {
				for _, c := range special {
					old := b[i]
					b[i] = c
					check(b)
					b[i] = old
				}
			}
		}
	}
	for name, want := range map[string]bool{"X-Amz-Target": true, "X Amz": false, "a:b": false, "a\nb": false, "": false, "é": false} {
		if validName(name) != want || validName([]byte(name)) != want {
			t.Errorf("validName(%q) = %v, want %v", name, !want, want)
		}
	}
}

// TestTokenByte: tokenByte holds exactly RFC 9110's tchar.
func TestTokenByte(t *testing.T) {
	const tchar = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for c := 0; c < 256; c++ {
		want := false
		for i := 0; i < len(tchar); i++ {
			want = want || tchar[i] == byte(c)
		}
		if tokenByte[c] != want {
			t.Errorf("tokenByte[%q] = %v, want %v", c, tokenByte[c], want)
		}
	}
}

// TestHeadLines: splitting a head with headLine and trimming values with
// trimOWS takes up the same heads, with the same names and values, as
// splitting at CRLF and trimming with bytes.Trim, for heads of random
// lines holding CRs, LFs, spaces, tabs and colons anywhere.
func TestHeadLines(t *testing.T) {
	type field struct{ name, value string }
	split := func(head []byte, lean bool) ([]field, bool) {
		var out []field
		for rest := head; len(rest) > 0; {
			var line []byte
			if lean {
				var lf bool
				if line, rest, lf = headLine(rest); !lf {
					return nil, false
				}
			} else {
				line, rest, _ = bytes.Cut(rest, []byte("\r\n"))
			}
			colon := bytes.IndexByte(line, ':')
			if colon <= 0 || !plainHeader(line, colon) {
				return nil, false
			}
			v := bytes.Trim(line[colon+1:], " \t")
			if lean {
				v = trimOWS(line[colon+1:])
			}
			out = append(out, field{string(line[:colon]), string(v)})
		}
		return out, true
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab: \t\r\n-9")
	taken := 0
	for trial := 0; trial < 200000; trial++ {
		head := make([]byte, 0, 40)
		for range r.IntN(4) + 1 {
			for range r.IntN(8) {
				head = append(head, alphabet[r.IntN(len(alphabet))])
			}
			head = append(head, "\r\n"...)
		}
		want, wantOK := split(head, false)
		got, gotOK := split(head, true)
		if gotOK != wantOK || !slices.Equal(got, want) {
			t.Fatalf("%q: lean %v %q, CRLF split %v %q", head, gotOK, got, wantOK, want)
		}
		if gotOK {
			taken++
		}
	}
	if taken < 1000 {
		t.Fatalf("only %d heads taken up: the trial heads are too rarely valid", taken)
	}
}
