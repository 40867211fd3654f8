package keys_test

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/keys"
)

func TestTemplateBuildParse(t *testing.T) {
	at := time.Date(2025, 11, 12, 5, 0, 0, 123456789, time.FixedZone("KST", 9*3600))
	tests := []struct {
		layout string
		vals   []any
		want   string
		parsed []string
	}{
		{"PROJ#{ProjectID}", []any{"p1"}, "PROJ#p1", []string{"p1"}},
		{"USER#{ID}", []any{"u001"}, "USER#u001", []string{"u001"}},
		{"CORP#INFO", nil, "CORP#INFO", []string{}},
		{"USR#{UserID}#PROJ#{ProjectID}#ART", []any{"U1", "p2"}, "USR#U1#PROJ#p2#ART", []string{"U1", "p2"}},
		{"QAT#{QueuedAt}#REQ#{RequestID}", []any{at, "r1"}, "QAT#2025-11-11T20:00:00.123Z#REQ#r1", []string{"2025-11-11T20:00:00.123Z", "r1"}},
		{"SEG#{Index:6}", []any{2}, "SEG#000002", []string{"000002"}},
		{"SEG#{Index:3}", []any{-1}, "SEG#-999", []string{"-999"}},
		{"N#{V}", []any{uint8(7)}, "N#007", []string{"007"}},
		{"A#{V}", []any{"a#b%c"}, "A#a%23b%25c", []string{"a#b%c"}},
		{"A#{V}", []any{"MiXeD Case é"}, "A#MiXeD Case é", []string{"MiXeD Case é"}},
		{"{CreatedAt}", []any{at}, "2025-11-11T20:00:00.123Z", []string{"2025-11-11T20:00:00.123Z"}},
		{"{ID}", []any{"a#b%"}, "a#b%", []string{"a#b%"}},
	}
	for _, tt := range tests {
		t.Run(tt.layout, func(t *testing.T) {
			tp := keys.MustNew(tt.layout)
			got, err := tp.Build(tt.vals...)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Build = %q, want %q", got, tt.want)
			}
			parsed, err := tp.Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.parsed, parsed); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTemplatePrefix(t *testing.T) {
	tp := keys.MustNew("USR#{UserID}#PROJ#{ProjectID}#ART")
	for _, tt := range []struct {
		vals []any
		want string
	}{
		{nil, "USR#"},
		{[]any{"abc"}, "USR#abc#PROJ#"},
	} {
		got, err := tp.Prefix(tt.vals...)
		if err != nil || got != tt.want {
			t.Errorf("Prefix(%v) = %q, %v; want %q", tt.vals, got, err, tt.want)
		}
	}
	p, _ := tp.Prefix("abc")
	k, _ := tp.Build("abcd", "p")
	if strings.HasPrefix(k, p) {
		t.Errorf("prefix %q matches %q", p, k)
	}
	if _, err := tp.Prefix("a", "b"); !errors.Is(err, keys.ErrArgs) {
		t.Errorf("Prefix with every field: %v, want ErrArgs", err)
	}
	bare := keys.MustNew("{ID}")
	if got, err := bare.Prefix(); got != "" || err != nil {
		t.Errorf("bare Prefix() = %q, %v", got, err)
	}
}

func TestBuildErrors(t *testing.T) {
	long := strings.Repeat("x", 2048)
	tests := []struct {
		name   string
		layout string
		opts   []func(*keys.Options)
		vals   []any
		want   error
		field  string
	}{
		{"empty string", "PROJ#{ProjectID}", nil, []any{""}, keys.ErrMissingField, "ProjectID"},
		{"zero time", "QAT#{QueuedAt}", nil, []any{time.Time{}}, keys.ErrMissingField, "QueuedAt"},
		{"too few values", "USR#{UserID}#PROJ#{ProjectID}", nil, []any{"u"}, keys.ErrMissingField, "ProjectID"},
		{"too many values", "PROJ#{ProjectID}", nil, []any{"a", "b"}, keys.ErrArgs, ""},
		{"unsupported type", "PROJ#{ProjectID}", nil, []any{1.5}, keys.ErrArgs, "ProjectID"},
		{"partition key too large", "P#{V}", nil, []any{long}, keys.ErrTooLarge, "V"},
		{"sort key too large", "S#{V}", []func(*keys.Options){func(o *keys.Options) { o.MaxLen = keys.MaxSortKeyLen }}, []any{long[:1023]}, keys.ErrTooLarge, "V"},
		{"width overflow", "SEG#{Index:3}", nil, []any{1000}, keys.ErrOverflow, "Index"},
		{"negative width overflow", "SEG#{Index:3}", nil, []any{-1001}, keys.ErrOverflow, "Index"},
		{"uint overflow", "SEG#{Index:2}", nil, []any{uint(100)}, keys.ErrOverflow, "Index"},
		{"year overflow", "T#{At}", nil, []any{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, keys.ErrOverflow, "At"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := keys.MustNew(tt.layout, tt.opts...).Build(tt.vals...)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var ke *keys.Error
			if !errors.As(err, &ke) {
				t.Fatalf("err %T is not *keys.Error", err)
			}
			if ke.Field != tt.field || ke.Template != tt.layout {
				t.Errorf("Error{Field: %q, Template: %q}, want %q, %q", ke.Field, ke.Template, tt.field, tt.layout)
			}
		})
	}
	// A key over its limit states its size, the limit and the field.
	_, err := keys.MustNew("P#{Small}#{Big}").Build("s", long)
	if want := "keys: key too large: 2052 bytes, limit 2048: field Big"; !errors.Is(err, keys.ErrTooLarge) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("too large: %v, want a message starting %q", err, want)
	}
	// Exactly at the limits is fine.
	if _, err := keys.MustNew("{V}").Build(long); err != nil {
		t.Errorf("2048-byte partition key: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	tp := keys.MustNew("USR#{UserID}#PROJ#{ProjectID}#ART")
	for _, key := range []string{
		"",
		"USR#u1#PROJ#p1",           // too few segments
		"USR#u1#PROJ#p1#ART#x",     // too many
		"USR#u1#PROJ#p1#ARTX",      // literal not on a boundary
		"USX#u1#PROJ#p1#ART",       // wrong literal
		"USR##PROJ#p1#ART",         // empty value
		"USR#u1%2#PROJ#p1#ART",     // truncated escape
		"USR#u1%41#PROJ#p1#ART",    // escape of a byte that needs none
		"USR#u1#PROJECT#p1#ART",    // wrong literal
		"usr#u1#PROJ#p1#ART",       // case matters
		"USR#u1#PROJ#p1#ART\x00",   // trailing byte
		"USR#u1#PROJ#p%2#ART#more", // bad escape and extra
	} {
		_, err := tp.Parse(key)
		var ke *keys.Error
		if !errors.Is(err, keys.ErrMalformed) || !errors.As(err, &ke) || ke.Key != key {
			t.Errorf("Parse(%q) = %v, want a *keys.Error wrapping ErrMalformed", key, err)
		}
	}
}

func TestTemplateErrors(t *testing.T) {
	for _, layout := range []string{"", "A##B", "A#{", "A#{B", "A#{B}C", "A#{1B}", "A#{B:0}", "A#{B:x}", "A#{B}#{B}", "A B", "A%", "#A", "A#"} {
		if _, err := keys.New(layout); !errors.Is(err, keys.ErrTemplate) {
			t.Errorf("New(%q) = %v, want ErrTemplate", layout, err)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, s := range []string{"", "plain", "a#b", "%", "%23", "##%%", "é#ü"} {
		esc := string(keys.AppendEscaped(nil, s))
		if strings.Contains(esc, "#") || len(esc) != keys.EscapedLen(s) {
			t.Errorf("AppendEscaped(%q) = %q", s, esc)
		}
		back, err := keys.Unescape(esc)
		if err != nil || back != s {
			t.Errorf("Unescape(%q) = %q, %v; want %q", esc, back, err, s)
		}
	}
	for _, bad := range []string{"%", "%2", "%24", "%2a", "a#b"} {
		if _, err := keys.Unescape(bad); !errors.Is(err, keys.ErrMalformed) {
			t.Errorf("Unescape(%q) = %v, want ErrMalformed", bad, err)
		}
	}
}

func TestIntEncoding(t *testing.T) {
	vals := []int64{math.MinInt64, -1e18, -12345, -1000, -999, -2, -1, 0, 1, 2, 9, 10, 999, 1000, 1e18, math.MaxInt64}
	var encs []string
	for _, v := range vals {
		b, err := keys.AppendInt(nil, v, keys.MaxIntWidth)
		if err != nil {
			t.Fatal(err)
		}
		got, err := keys.ParseInt(string(b), keys.MaxIntWidth)
		if err != nil || got != v {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", b, got, err, v)
		}
		encs = append(encs, string(b))
	}
	if !sort.StringsAreSorted(encs) {
		t.Errorf("encodings not sorted: %q", encs)
	}
	if b, _ := keys.AppendInt(nil, -1000, 3); string(b) != "-000" {
		t.Errorf("-1000 width 3 = %q", b)
	}
	if b, _ := keys.AppendUint(nil, math.MaxUint64, keys.MaxUintWidth); string(b) != "18446744073709551615" {
		t.Errorf("MaxUint64 = %q", b)
	}
	for _, s := range []string{"12", "1234", "-12", "12a", "+12", "-+12"} {
		if _, err := keys.ParseInt(s, 3); !errors.Is(err, keys.ErrMalformed) {
			t.Errorf("ParseInt(%q, 3) = %v, want ErrMalformed", s, err)
		}
	}
	if _, err := keys.ParseInt("9999999999999999999", 19); !errors.Is(err, keys.ErrMalformed) {
		t.Errorf("ParseInt beyond int64: %v", err)
	}
	if _, err := keys.AppendInt(nil, 1, 0); !errors.Is(err, keys.ErrArgs) {
		t.Errorf("width 0: %v", err)
	}
}

func TestTimeEncoding(t *testing.T) {
	at := time.Date(2025, 11, 14, 3, 0, 0, 987654321, time.UTC)
	for _, tt := range []struct {
		f    keys.TimeFormat
		want string
	}{
		{keys.TimeSeconds, "2025-11-14T03:00:00Z"},
		{keys.TimeMillis, "2025-11-14T03:00:00.987Z"},
		{keys.TimeNanos, "2025-11-14T03:00:00.987654321Z"},
	} {
		b, err := keys.AppendTime(nil, at, tt.f)
		if err != nil || string(b) != tt.want || len(b) != tt.f.Len() {
			t.Errorf("AppendTime(%v) = %q, %v; want %q", tt.f, b, err, tt.want)
		}
		back, err := keys.ParseTime(string(b), tt.f)
		if err != nil || !back.Equal(at.Truncate(time.Duration(math.Pow10(9-int(tt.f))))) {
			t.Errorf("ParseTime(%q) = %v, %v", b, back, err)
		}
	}
	for _, s := range []string{"2025-11-14T03:00:00", "2025-13-14T03:00:00Z", "2025-02-30T03:00:00Z", "2025-11-14T24:00:00Z", "2025-11-14 03:00:00Z", "2025-11-14T03:00:0xZ"} {
		if _, err := keys.ParseTime(s, keys.TimeSeconds); !errors.Is(err, keys.ErrMalformed) {
			t.Errorf("ParseTime(%q) = %v, want ErrMalformed", s, err)
		}
	}
	if _, err := keys.AppendTime(nil, time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), keys.TimeSeconds); !errors.Is(err, keys.ErrOverflow) {
		t.Errorf("year -1: %v", err)
	}
}

func TestBuilderScannerAllocs(t *testing.T) {
	user, proj := "u001", "p001"
	var key string
	build := testing.AllocsPerRun(100, func() {
		b := keys.NewBuilder(10 + len(user) + len(proj))
		b.Reset("USR#{UserID}#PROJ#{ProjectID}", keys.MaxPartitionKeyLen)
		b.Literal("USR#")
		b.String("UserID", user)
		b.Literal("#PROJ#")
		b.String("ProjectID", proj)
		key, _ = b.Key()
	})
	if build > 1 {
		t.Errorf("build: %v allocs", build)
	}
	parse := testing.AllocsPerRun(100, func() {
		s := keys.NewScanner("USR#{UserID}#PROJ#{ProjectID}", key)
		s.Literal("USR#")
		user = s.String("UserID")
		s.Literal("#PROJ#")
		proj = s.String("ProjectID")
		if s.End() != nil {
			t.Fatal("parse failed")
		}
	})
	if parse != 0 {
		t.Errorf("parse: %v allocs", parse)
	}
}

func TestIDs(t *testing.T) {
	fixed := time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC)
	g := keys.NewIDGenerator(func(o *keys.IDOptions) { o.Now = func() time.Time { return fixed } })
	const goroutines, each = 16, 200
	var mu sync.Mutex
	var all []string
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string
			for range each {
				mine = append(mine, g.New())
			}
			if !sort.StringsAreSorted(mine) {
				t.Error("one goroutine's IDs are not increasing")
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range all {
		if len(id) != keys.IDLen || strings.Trim(id, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
			t.Fatalf("bad ID %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate ID %q", id)
		}
		seen[id] = true
		at, err := keys.IDTime(id)
		if err != nil || !at.Equal(fixed) {
			t.Fatalf("IDTime(%q) = %v, %v", id, at, err)
		}
	}
	if len(seen) != goroutines*each {
		t.Fatalf("%d unique IDs, want %d", len(seen), goroutines*each)
	}
	// Later time sorts later, even against many IDs of the earlier millisecond.
	a := keys.NewID()
	time.Sleep(2 * time.Millisecond)
	if b := keys.NewID(); b <= a {
		t.Errorf("NewID not time-ordered: %q then %q", a, b)
	}
	for _, bad := range []string{"", "01ARZ3NDEKTSV4RRFFQ69G5FA", "81ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAU"} {
		if _, err := keys.IDTime(bad); !errors.Is(err, keys.ErrMalformed) {
			t.Errorf("IDTime(%q) = %v", bad, err)
		}
	}
}

func TestIDClockBackwards(t *testing.T) {
	at := time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	g := keys.NewIDGenerator(func(o *keys.IDOptions) {
		o.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			at = at.Add(-time.Millisecond) // a clock that runs backwards
			return at
		}
	})
	prev := g.New()
	for range 100 {
		id := g.New()
		if id <= prev {
			t.Fatalf("%q after %q", id, prev)
		}
		prev = id
	}
}

func TestNewIDConcurrent(t *testing.T) {
	const goroutines, each = 8, 500
	ids := make(chan string, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids <- keys.NewID()
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != goroutines*each {
		t.Fatalf("%d unique IDs, want %d", len(seen), goroutines*each)
	}
}

func TestIDsAtGivenTimes(t *testing.T) {
	base := time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC)
	t.Run("NewIDAt", func(t *testing.T) {
		times := []time.Time{base.Add(-48 * time.Hour), base, base.Add(time.Millisecond), base.Add(time.Hour)}
		var ids []string
		for _, at := range times {
			id := keys.NewIDAt(at)
			got, err := keys.IDTime(id)
			if err != nil || !got.Equal(at) {
				t.Fatalf("IDTime(NewIDAt(%v)) = %v, %v", at, got, err)
			}
			ids = append(ids, id)
		}
		if !sort.StringsAreSorted(ids) {
			t.Errorf("IDs minted at increasing times are not sorted: %v", ids)
		}
		if a, b := keys.NewIDAt(base), keys.NewIDAt(base); a == b {
			t.Errorf("two NewIDAt of one time are equal: %q", a)
		}
	})
	t.Run("IDFrom", func(t *testing.T) {
		a := keys.IDFrom(base, "post/p001")
		if b := keys.IDFrom(base, "post/p001"); a != b {
			t.Errorf("IDFrom not deterministic: %q then %q", a, b)
		}
		if got, err := keys.IDTime(a); err != nil || !got.Equal(base) {
			t.Errorf("IDTime(IDFrom) = %v, %v", got, err)
		}
		seen := map[string]string{}
		for i := range 1000 {
			src := fmt.Sprintf("post/p%03d", i)
			id := keys.IDFrom(base, src)
			if prev, ok := seen[id]; ok {
				t.Fatalf("IDFrom(%q) = IDFrom(%q) = %q", src, prev, id)
			}
			seen[id] = src
		}
		if earlier, later := keys.IDFrom(base, "zzz"), keys.IDFrom(base.Add(time.Millisecond), "aaa"); earlier >= later {
			t.Errorf("IDFrom not time-ordered: %q then %q", earlier, later)
		}
	})
	t.Run("clamped", func(t *testing.T) {
		tests := []struct {
			name string
			at   time.Time
			want time.Time
		}{
			{"before 1970", time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.UnixMilli(0).UTC()},
			{"epoch", time.UnixMilli(0), time.UnixMilli(0).UTC()},
			{"far future", time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC), time.UnixMilli(1<<48 - 1).UTC()},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				for _, id := range []string{keys.NewIDAt(tt.at), keys.IDFrom(tt.at, "x")} {
					if got, err := keys.IDTime(id); err != nil || !got.Equal(tt.want) {
						t.Errorf("IDTime(%q) = %v, %v, want %v", id, got, err, tt.want)
					}
				}
			})
		}
	})
}
