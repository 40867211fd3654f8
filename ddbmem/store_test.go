package ddbmem

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestPartitionChunks checks the chunked partition against a sorted
// slice through random inserts, overwrites and removals.
func TestPartitionChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &partition{}
	ref := map[string]*record{}
	check := func() {
		t.Helper()
		keys := make([]string, 0, len(ref))
		for k := range ref {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if p.len() != len(keys) {
			t.Fatalf("len %d, want %d", p.len(), len(keys))
		}
		for i, k := range keys {
			if e := p.at(i); e.sk != k || e.rec != ref[k] {
				t.Fatalf("at(%d) = %q, want %q", i, e.sk, k)
			}
		}
		for _, probe := range []string{"", "k0500", "k0500x", "k9999", "zz"} {
			want := sort.SearchStrings(keys, probe)
			if got := p.search(func(sk string) bool { return sk >= probe }); got != want {
				t.Fatalf("search(>= %q) = %d, want %d", probe, got, want)
			}
		}
		for _, c := range p.chunks {
			if len(c.entries) == 0 || len(c.entries) > maxChunk {
				t.Fatalf("chunk of %d entries", len(c.entries))
			}
		}
	}
	for round := 0; round < 4; round++ {
		for i := 0; i < 3000; i++ {
			k := fmt.Sprintf("k%04d", rng.IntN(5000))
			r := &record{}
			p.put(k, r)
			ref[k] = r
		}
		check()
		for i := 0; i < 2500; i++ {
			k := fmt.Sprintf("k%04d", rng.IntN(5000))
			got := p.remove(k)
			if got != ref[k] {
				t.Fatalf("remove(%q) = %p, want %p", k, got, ref[k])
			}
			delete(ref, k)
		}
		check()
	}
	for k := range ref {
		if p.get(k) != ref[k] {
			t.Fatalf("get(%q)", k)
		}
		p.remove(k)
	}
	if p.len() != 0 || len(p.chunks) != 0 {
		t.Fatalf("not empty: %d entries, %d chunks", p.len(), len(p.chunks))
	}
}
