package keys_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/keys"
)

var fuzzTemplate = keys.MustNew("USR#{UserID}#PROJ#{ProjectID}#ART")

// FuzzRoundTrip: every pair of non-empty values builds a key that parses
// back to the same values; an empty value is ErrMissingField.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range [][2]string{{"u001", "p001"}, {"a#b", "%"}, {"%23", "##"}, {"", "x"}, {"MiXeD", "é"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, user, proj string) {
		key, err := fuzzTemplate.Build(user, proj)
		if user == "" || proj == "" {
			if !errors.Is(err, keys.ErrMissingField) {
				t.Fatalf("Build(%q, %q) = %v, want ErrMissingField", user, proj, err)
			}
			return
		}
		if n := len("USR##PROJ##ART") + keys.EscapedLen(user) + keys.EscapedLen(proj); n > keys.MaxPartitionKeyLen {
			if !errors.Is(err, keys.ErrTooLarge) {
				t.Fatalf("%d-byte key: %v, want ErrTooLarge", n, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := fuzzTemplate.Parse(key)
		if err != nil || got[0] != user || got[1] != proj {
			t.Fatalf("Parse(%q) = %q, %v; want [%q %q]", key, got, err, user, proj)
		}
	})
}

// FuzzPrefix: the prefix of a value matches every key with that value and
// no key with another value, even one that extends it.
func FuzzPrefix(f *testing.F) {
	f.Add("abc", "abcd", "p")
	f.Add("a", "a#b", "p")
	f.Add("a%", "a", "p")
	f.Fuzz(func(t *testing.T, a, b, proj string) {
		if a == "" || b == "" || proj == "" {
			return
		}
		pa, err := fuzzTemplate.Prefix(a)
		if err != nil {
			return // oversize
		}
		ka, err1 := fuzzTemplate.Build(a, proj)
		kb, err2 := fuzzTemplate.Build(b, proj)
		if err1 != nil || err2 != nil {
			return
		}
		if !strings.HasPrefix(ka, pa) {
			t.Fatalf("prefix %q does not match its key %q", pa, ka)
		}
		if a != b && strings.HasPrefix(kb, pa) {
			t.Fatalf("prefix %q of %q matches %q of %q", pa, a, kb, b)
		}
	})
}

// FuzzIntOrder: the integer encoding round-trips and keeps numeric order.
func FuzzIntOrder(f *testing.F) {
	f.Add(int64(-1), int64(2))
	f.Add(int64(2), int64(10))
	f.Add(int64(-9223372036854775808), int64(9223372036854775807))
	f.Fuzz(func(t *testing.T, a, b int64) {
		ea, err1 := keys.AppendInt(nil, a, keys.MaxIntWidth)
		eb, err2 := keys.AppendInt(nil, b, keys.MaxIntWidth)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if (a < b) != (string(ea) < string(eb)) {
			t.Fatalf("order: %d -> %q, %d -> %q", a, ea, b, eb)
		}
		if back, err := keys.ParseInt(string(ea), keys.MaxIntWidth); err != nil || back != a {
			t.Fatalf("ParseInt(%q) = %d, %v", ea, back, err)
		}
	})
}

// FuzzParse: parsing arbitrary text never panics, and what parses is the
// one canonical key of its values.
func FuzzParse(f *testing.F) {
	f.Add("USR#u#PROJ#p#ART")
	f.Add("USR#a%23b#PROJ#%25#ART")
	f.Add("USR#%2#PROJ#p#ART")
	f.Fuzz(func(t *testing.T, key string) {
		vals, err := fuzzTemplate.Parse(key)
		if err != nil {
			if !errors.Is(err, keys.ErrMalformed) {
				t.Fatalf("Parse(%q): %v is not ErrMalformed", key, err)
			}
			return
		}
		again, err := fuzzTemplate.Build(vals[0], vals[1])
		if err != nil || again != key {
			t.Fatalf("Build(Parse(%q)) = %q, %v", key, again, err)
		}
	})
}
