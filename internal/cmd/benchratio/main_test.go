package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `goos: linux
BenchmarkEngine/PutItem-2         	  480568	      2000 ns/op	      2500 cpu-ns/op	    1128 B/op	      12 allocs/op
BenchmarkEngine/PutItemStream-2   	  312816	      3000 ns/op	      3000 cpu-ns/op	    1217 B/op	      12 allocs/op
PASS
`

func TestParse(t *testing.T) {
	got := parse(sample)
	want := round{
		"BenchmarkEngine/PutItem":       {"ns/op": 2000, "cpu-ns/op": 2500, "B/op": 1128, "allocs/op": 12},
		"BenchmarkEngine/PutItemStream": {"ns/op": 3000, "cpu-ns/op": 3000, "B/op": 1217, "allocs/op": 12},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("parse (-want +got):\n%s", d)
	}
}

// TestPattern checks that a pair's pattern matches both benchmarks, level
// by level, as go test applies it.
func TestPattern(t *testing.T) {
	for _, c := range []struct {
		a, b string
		also []string // other names it matches
		not  []string
	}{
		{"BenchmarkEngine/PutItemStream", "BenchmarkEngine/PutItem", nil, []string{"BenchmarkEngine/GetItem", "BenchmarkEngineHTTP/PutItem"}},
		{"BenchmarkCachedStore/GetHit", "BenchmarkCache/RawGlideGet", []string{"BenchmarkCache/GetHit"}, []string{"BenchmarkCachedStore/Update"}},
		{"BenchmarkA.B/x(1)", "BenchmarkC/y", nil, []string{"BenchmarkAxB/x(1)"}},
	} {
		p := pattern(c.a, c.b)
		match := func(name string) bool {
			levels := regexp.MustCompile(`/`).Split(p, -1)
			parts := regexp.MustCompile(`/`).Split(name, -1)
			if len(parts) != len(levels) {
				return false
			}
			for i := range parts {
				if !regexp.MustCompile(levels[i]).MatchString(parts[i]) {
					return false
				}
			}
			return true
		}
		for _, n := range append([]string{c.a, c.b}, c.also...) {
			if !match(n) {
				t.Errorf("%s does not match %s", p, n)
			}
		}
		for _, n := range c.not {
			if match(n) {
				t.Errorf("%s matches %s", p, n)
			}
		}
	}
}

func TestRunsAlternate(t *testing.T) {
	p := pair{"BenchmarkX/A", "BenchmarkX/B"}
	if got := runs(p, false, 0); len(got) != 1 {
		t.Fatalf("one process per round, got %q", got)
	}
	even, odd := runs(p, true, 0), runs(p, true, 1)
	if len(even) != 2 || even[0] != odd[1] || even[1] != odd[0] {
		t.Fatalf("sides not alternated: %q then %q", even, odd)
	}
}

func TestSummarize(t *testing.T) {
	rs := []round{
		{"A": {"ns/op": 3}, "B": {"ns/op": 2}},   // 1.5
		{"A": {"ns/op": 10}, "B": {"ns/op": 10}}, // 1.0
		{"A": {"ns/op": 4}, "B": {"ns/op": 2}},   // 2.0
		{"A": {"ns/op": 4}},                      // no B: left out
	}
	s, ok := summarize(pair{"A", "B"}, "ns/op", rs)
	want := stat{a: 4, b: 2, ratio: 1.5, lo: 1, hi: 2, n: 3} // too few rounds for an interval
	if !ok || s != want {
		t.Fatalf("summarize = %+v %v, want %+v", s, ok, want)
	}
	if _, ok := summarize(pair{"A", "B"}, "cpu-ns/op", rs); ok {
		t.Fatal("a metric no round reports was summarized")
	}
}

// TestMedianCI: the interval's order statistics match the binomial
// table (n = 6: the extremes; n = 20: the 6th and 15th values; n = 100:
// the 40th and 61st), and there is none under 6 values.
func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(n - i) // unsorted on purpose
		}
		return xs
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
		ok     bool
	}{{5, 0, 0, false}, {6, 1, 6, true}, {20, 6, 15, true}, {100, 40, 61, true}} {
		lo, hi, ok := medianCI(seq(c.n))
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("n=%d: medianCI = %v, %v, %v; want %v, %v, %v", c.n, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

func Example() {
	rs := []round{parse(sample), parse(sample)}
	report(os.Stdout, pairs{{"BenchmarkEngine/PutItemStream", "BenchmarkEngine/PutItem"}}, []string{"ns/op", "cpu-ns/op"}, rs)
	// Output:
	// | A / B | metric | median A | median B | ratio (median of rounds) | 95% CI | range | rounds |
	// | --- | --- | --- | --- | --- | --- | --- | --- |
	// | BenchmarkEngine/PutItemStream / BenchmarkEngine/PutItem | ns/op | 3000 | 2000 | 1.500× | — | 1.500–1.500 | 2 |
	// | BenchmarkEngine/PutItemStream / BenchmarkEngine/PutItem | cpu-ns/op | 3000 | 2500 | 1.200× | — | 1.200–1.200 | 2 |
}
