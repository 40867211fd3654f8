package ddbmem

import (
	"math/rand/v2"
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
