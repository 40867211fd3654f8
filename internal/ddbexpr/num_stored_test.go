package ddbexpr

import (
	"bytes"
	"testing"
)

func TestKeyNumberInvertsAppendKey(t *testing.T) {
	for _, s := range []string{"0", "5", "-5", "1e3", "-0.0001", "123.456", "-99999999999999999999999999999999999999", "1E-130", "9.9E125"} {
		n, err := ParseNumber(s)
		if err != nil {
			t.Fatal(s, err)
		}
		got, ok := KeyNumber(string(n.AppendKey(nil)))
		if !ok || got != n {
			t.Errorf("KeyNumber(AppendKey(%s)) = %+v, %v; want %+v", s, got, ok, n)
		}
	}
	for _, bad := range []string{"", "\x03", "\x01\x40\x00\x05", "x"} {
		if _, ok := KeyNumber(bad); ok {
			t.Errorf("KeyNumber(%q) reported ok", bad)
		}
	}
}

// TestAppendStored checks DynamoDB's byte form of numbers, which is the
// form of Oracle's NUMBER type (an exponent byte in base 100, digit pairs
// plus one, negatives complemented and ended by 102).
func TestAppendStored(t *testing.T) {
	for _, c := range []struct {
		n    string
		want []byte
	}{
		{"0", []byte{0x80}},
		{"5", []byte{0xC1, 6}},
		{"-5", []byte{0x3E, 96, 102}},
		{"10", []byte{0xC1, 11}},
		{"100", []byte{0xC2, 2}},
		{"123.45", []byte{0xC2, 2, 24, 46}},
		{"0.012345", []byte{0xC0, 2, 24, 46}},
		{"-999.9", []byte{0x3D, 92, 2, 11, 102}},
	} {
		n, err := ParseNumber(c.n)
		if err != nil {
			t.Fatal(c.n, err)
		}
		if got := n.AppendStored(nil); !bytes.Equal(got, c.want) {
			t.Errorf("AppendStored(%s) = % x, want % x", c.n, got, c.want)
		}
	}
}
