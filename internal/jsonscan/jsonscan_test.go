package jsonscan_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/jsonscan"
)

func TestStr(t *testing.T) {
	for _, tc := range []struct {
		name, in      string
		replace, keep string // "!" for a malformed string
	}{
		{"plain", `"abc"`, "abc", "abc"},
		{"empty", `""`, "", ""},
		{"escapes", `"a\"b\\c\/d\b\f\n\r\te"`, "a\"b\\c/d\b\f\n\r\te", "a\"b\\c/d\b\f\n\r\te"},
		{"unicode escape", `"\u00e9\u65e5"`, "é日", "é日"},
		{"pair", `"\ud83d\ude00"`, "😀", "😀"},
		{"lone high at end", `"\ud83d"`, "\uFFFD", "\uFFFD"},
		{"lone high then text", `"\ud83dx"`, "\uFFFDx", "\uFFFDx"},
		{"high then non-surrogate escape", `"\ud83d\u0041"`, "\uFFFDA", "\uFFFDA"},
		{"high then high", `"\ud83d\ud83d\ude00"`, "\uFFFD😀", "\uFFFD\uFFFD"},
		{"low then high", `"\ude00\ud83d"`, "\uFFFD\uFFFD", "\uFFFD"},
		{"invalid UTF-8 unescaped", "\"a\xffb\"", "a\xffb", "a\xffb"},
		{"invalid UTF-8 with escape", "\"a\xffb\\n\"", "a\uFFFDb\n", "a\xffb\n"},
		{"bad escape", `"\x"`, "!", "!"},
		{"short unicode escape", `"\u12"`, "!", "!"},
		{"bad second escape", `"\ud83d\uzzzz"`, "!", "!"},
		{"control character", "\"a\nb\"", "!", "!"},
		{"unterminated", `"abc`, "!", "!"},
		{"unterminated escape", `"abc\`, "!", "!"},
		{"no quote", `abc`, "!", "!"},
	} {
		for _, m := range []struct {
			mode jsonscan.Escapes
			want string
		}{{jsonscan.Replace, tc.replace}, {jsonscan.Keep, tc.keep}} {
			s := jsonscan.Scanner{S: tc.in + " ,", Escapes: m.mode}
			got, ok := s.Str()
			switch {
			case m.want == "!":
				if ok {
					t.Errorf("%s (mode %d): got %q, want a malformed string", tc.name, m.mode, got)
				}
			case !ok || got != m.want:
				t.Errorf("%s (mode %d): got %q %v, want %q", tc.name, m.mode, got, ok, m.want)
			case !s.Token(',') || !s.End():
				t.Errorf("%s (mode %d): stopped at %d", tc.name, m.mode, s.I)
			}
		}
	}
}

// TestStrAllocs: a string without escapes is a substring (no
// allocation); one with escapes costs only its result while it fits the
// 64-byte buffer on the stack.
func TestStrAllocs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{`"plain text"`, 0},
		{`"a \"quoted\" \u00e9 \ud83d\ude00 text"`, 1},
	} {
		for _, mode := range []jsonscan.Escapes{jsonscan.Replace, jsonscan.Keep} {
			got := testing.AllocsPerRun(100, func() {
				s := jsonscan.Scanner{S: tc.in, Escapes: mode}
				if _, ok := s.Str(); !ok {
					t.Fatalf("%s: malformed", tc.in)
				}
			})
			if got != tc.want {
				t.Errorf("%s (mode %d): %v allocations, want %v", tc.in, mode, got, tc.want)
			}
		}
	}
}

func TestTokens(t *testing.T) {
	s := jsonscan.Scanner{S: " \t\n{ \r\"k\" :true, null } "}
	if s.Eat('{') || s.Peek() != '{' || !s.Eat('{') {
		t.Fatal("brace")
	}
	if k, ok := s.Str(); ok || k != "" {
		t.Fatal("Str read past white space")
	}
	if s.Token('}') {
		t.Fatal("Token")
	}
	if k, ok := s.Str(); !ok || k != "k" || !s.Token(':') {
		t.Fatal("member name")
	}
	if s.Lit("false") || !s.Lit("true") || !s.Token(',') || s.Lit("null") {
		t.Fatal("literals")
	}
	s.WS()
	if !s.Lit("null") || s.End() || !s.Token('}') || !s.End() || s.Peek() != 0 {
		t.Fatal("end")
	}
	var zero jsonscan.Scanner
	if !zero.End() || zero.Peek() != 0 || zero.Eat('x') || zero.Lit("x") {
		t.Fatal("zero Scanner")
	}
}

// FuzzStr checks Replace against encoding/json wherever the two agree by
// design (a string with escapes, or valid UTF-8), and that Keep reads the
// same as Replace on valid UTF-8 without surrogate escapes.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\u00e9\ud83d\ude00"`, `"\ud83d\u0041"`, "\"\xff\\n\"", `"\ud83d\ud83d"`, `"\x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := jsonscan.Scanner{S: in, Escapes: jsonscan.Replace}
		got, ok := r.Str()
		ok = ok && r.End()
		var want string
		werr := json.Unmarshal([]byte(in), &want)
		if strings.HasPrefix(in, `"`) && (strings.Contains(in, `\`) || utf8.ValidString(in)) {
			if ok != (werr == nil) || ok && got != want {
				t.Fatalf("Replace %q: got %q %v, encoding/json %q %v", in, got, ok, want, werr)
			}
		}
		k := jsonscan.Scanner{S: in, Escapes: jsonscan.Keep}
		kgot, kok := k.Str()
		kok = kok && k.End()
		if utf8.ValidString(in) && !strings.Contains(strings.ToLower(in), `\ud`) && (kok != ok || kgot != got) {
			t.Fatalf("Keep %q: got %q %v, Replace %q %v", in, kgot, kok, got, ok)
		}
	})
}
