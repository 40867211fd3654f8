// Command benchratio measures the ratio of two benchmarks the way the
// project's goals are stated: interleaved. A benchmark goal such as
// "BenchmarkEngine/PutItemStream ≤ 1.25× BenchmarkEngine/PutItem" is a
// ratio, and on a shared machine the speed of the processor drifts over
// minutes, so the two sides must be measured side by side: each round
// runs both sides once (-test.count 1), rounds follow one another, and the
// figure is the median over rounds of each round's ratio. Running one
// side's repetitions after the other's (go test -count N) measures the
// drift as much as the code.
//
// Usage:
//
//	go run ./internal/cmd/benchratio [flags] [package]
//
// The package (default ./internal/bench) is built once with go test -c;
// its benchmarks run in the environment given (set the servers' addresses
// as for go test; scripts/test.sh with TABLEKIT_SERVE_ONLY starts them).
// Each -pair A=B names two benchmarks by their full names, for instance
// -pair BenchmarkEngine/PutItemStream=BenchmarkEngine/PutItem. By default
// a round runs both sides of a pair in one process; with -sep each side
// runs in its own process, in alternating order. The report is a Markdown
// table: for each pair and metric (-metrics, default ns/op and cpu-ns/op
// where the benchmark reports it), the medians of both sides, the median
// of the per-round ratios, a 95% confidence interval of that median, and
// the ratios' range. The interval is distribution-free (order statistics
// of the per-round ratios: it holds the median of the ratios a run of the
// rounds would give with at least 95% probability, whatever their
// distribution); it needs 6 rounds and narrows with more, so a goal holds
// with a margin when the interval's upper end is under it.
//
// In one process the two sides always run in the order of the package's
// benchmarks, and whatever the first leaves behind (a warmer or colder
// processor, the collector's state, another client's connections and
// threads) falls on the second. For pairs that each open their own
// connections to a server (the Valkey and SQS pairs), prefer -sep, whose
// alternating order cancels that out.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

type pairs []pair

type pair struct{ a, b string }

func (p *pairs) String() string { return fmt.Sprint(*p) }

func (p *pairs) Set(s string) error {
	a, b, ok := strings.Cut(s, "=")
	if !ok || a == "" || b == "" {
		return fmt.Errorf("a pair is A=B, got %q", s)
	}
	*p = append(*p, pair{a, b})
	return nil
}

func main() {
	var ps pairs
	flag.Var(&ps, "pair", "A=B: the benchmarks whose ratio A/B to measure (full names; repeatable)")
	rounds := flag.Int("rounds", 12, "rounds")
	benchtime := flag.String("benchtime", "1s", "-test.benchtime of each run")
	sep := flag.Bool("sep", false, "run each side in its own process (alternating order) instead of both in one")
	metrics := flag.String("metrics", "ns/op,cpu-ns/op", "comma-separated metrics to report")
	flag.Parse()
	if len(ps) == 0 {
		fmt.Fprintln(os.Stderr, "benchratio: at least one -pair A=B")
		os.Exit(2)
	}
	pkg := "./internal/bench"
	if flag.NArg() > 0 {
		pkg = flag.Arg(0)
	}
	dir, err := os.MkdirTemp("", "benchratio")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "bench.test")
	build := exec.Command("go", "test", "-c", "-o", bin, pkg)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fail(err)
	}
	var rs []round
	for i := range *rounds {
		r := round{}
		for _, p := range ps {
			for _, re := range runs(p, *sep, i) {
				out, err := exec.Command(bin, "-test.run", "^$", "-test.bench", re,
					"-test.benchtime", *benchtime, "-test.count", "1", "-test.benchmem").CombinedOutput()
				if err != nil {
					os.Stderr.Write(out)
					fail(err)
				}
				r.add(parse(string(out)))
			}
		}
		rs = append(rs, r)
		fmt.Fprintf(os.Stderr, "round %d/%d\n", i+1, *rounds)
	}
	report(os.Stdout, ps, strings.Split(*metrics, ","), rs)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchratio:", err)
	os.Exit(1)
}

// runs returns the -test.bench patterns of one round of p: one matching
// both sides, or with sep one per side, in an order that alternates
// with the round.
func runs(p pair, sep bool, round int) []string {
	if !sep {
		return []string{pattern(p.a, p.b)}
	}
	if round%2 == 1 {
		return []string{pattern(p.b), pattern(p.a)}
	}
	return []string{pattern(p.a), pattern(p.b)}
}

// pattern returns a -test.bench pattern matching the named benchmarks
// (and, when they differ at several levels, the other combinations of
// their levels too).
func pattern(names ...string) string {
	var levels [][]string
	for _, n := range names {
		for i, part := range strings.Split(n, "/") {
			if i == len(levels) {
				levels = append(levels, nil)
			}
			if q := regexp.QuoteMeta(part); !slices.Contains(levels[i], q) {
				levels[i] = append(levels[i], q)
			}
		}
	}
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = "^(" + strings.Join(l, "|") + ")$"
	}
	return strings.Join(parts, "/")
}

// round holds the metrics of one round: benchmark name (without the
// -GOMAXPROCS suffix) → unit → value.
type round map[string]map[string]float64

func (r round) add(o round) {
	for k, v := range o {
		r[k] = v
	}
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads the result lines of a benchmark run.
func parse(out string) round {
	r := round{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			var v float64
			if _, err := fmt.Sscan(f[i], &v); err != nil {
				break
			}
			m[f[i+1]] = v
		}
		r[procSuffix.ReplaceAllString(f[0], "")] = m
	}
	return r
}

// stat is the summary of one pair and metric over the rounds.
type stat struct {
	a, b, ratio, lo, hi float64
	ciLo, ciHi          float64 // 0 when there are too few rounds
	n                   int
}

func summarize(p pair, metric string, rs []round) (stat, bool) {
	var as, bs, ratios []float64
	for _, r := range rs {
		a, aok := r[p.a][metric]
		b, bok := r[p.b][metric]
		if !aok || !bok || b == 0 {
			continue
		}
		as, bs, ratios = append(as, a), append(bs, b), append(ratios, a/b)
	}
	if len(ratios) == 0 {
		return stat{}, false
	}
	st := stat{a: median(as), b: median(bs), ratio: median(ratios), lo: slices.Min(ratios), hi: slices.Max(ratios), n: len(ratios)}
	st.ciLo, st.ciHi, _ = medianCI(ratios)
	return st, true
}

// medianCI returns the order statistics x(j) and x(n+1-j) of xs that
// bracket the median of xs's population with at least 95% confidence:
// j is the largest count for which P(B < j) <= 2.5%, B ~ Binomial(n, 1/2)
// being how many of n draws fall below the median. ok is false for fewer
// than 6 values, where no such j exists.
func medianCI(xs []float64) (lo, hi float64, ok bool) {
	n := len(xs)
	s := slices.Clone(xs)
	slices.Sort(s)
	j := 0
	p := math.Pow(0.5, float64(n)) // P(B = 0)
	for cum := 0.0; j < n && cum+p <= 0.025; j++ {
		cum += p
		p = p * float64(n-j) / float64(j+1) // P(B = j+1)
	}
	if j == 0 {
		return 0, 0, false
	}
	return s[j-1], s[n-j], true
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// report writes the Markdown table of the pairs' ratios; a metric a pair
// does not report in every round it is counted in is left out.
func report(w io.Writer, ps pairs, metrics []string, rs []round) {
	fmt.Fprintln(w, "| A / B | metric | median A | median B | ratio (median of rounds) | 95% CI | range | rounds |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, p := range ps {
		for _, m := range metrics {
			s, ok := summarize(p, m, rs)
			if !ok {
				continue
			}
			ci := "—"
			if s.ciHi > 0 {
				ci = fmt.Sprintf("%.3f–%.3f", s.ciLo, s.ciHi)
			}
			fmt.Fprintf(w, "| %s / %s | %s | %.6g | %.6g | %.3f× | %s | %.3f–%.3f | %d |\n", p.a, p.b, m, s.a, s.b, s.ratio, ci, s.lo, s.hi, s.n)
		}
	}
}
