package ddbmem

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// TestRecList appends and trims records across block boundaries and
// checks order, search and the reuse of emptied blocks.
func TestRecList(t *testing.T) {
	const maxSpare = 2
	var l recList
	var spare []*recBlock
	next := uint64(1)
	first := uint64(1)
	check := func(step string) {
		t.Helper()
		if got, want := l.len(), int(next-first); got != want {
			t.Fatalf("%s: len %d, want %d", step, got, want)
		}
		for i := 0; i < l.len(); i++ {
			if got := l.at(i).seq; got != first+uint64(i) {
				t.Fatalf("%s: record %d has seq %d, want %d", step, i, got, first+uint64(i))
			}
		}
		if l.len() > 0 && l.last().seq != next-1 {
			t.Fatalf("%s: last seq %d, want %d", step, l.last().seq, next-1)
		}
		for _, seq := range []uint64{0, first, first + 1, next - 1, next, next + 5} {
			i := l.search(func(r *streamRec) bool { return r.seq >= seq })
			want := 0
			if seq > first {
				want = min(int(seq-first), l.len())
			}
			if i != want {
				t.Fatalf("%s: search seq >= %d = %d, want %d", step, seq, i, want)
			}
		}
		if len(spare) > maxSpare {
			t.Fatalf("%s: %d spare blocks, more than %d", step, len(spare), maxSpare)
		}
		for _, b := range spare {
			for i := range b {
				if r := &b[i]; r.seq != 0 || r.old.n != 0 || r.new.n != 0 {
					t.Fatalf("%s: a spare block holds record %d", step, b[i].seq)
				}
			}
		}
	}
	push := func(n int) {
		for range n {
			l.push(streamRec{seq: next, new: imgRef{n: 1}}, &spare)
			next++
		}
	}
	drop := func(n int) {
		l.dropFirst(n, &spare, maxSpare)
		first += uint64(n)
	}
	check("empty")
	push(1)
	check("one")
	push(recBlockSize*3 - 1)
	check("three blocks")
	drop(10)
	check("part of a block")
	drop(recBlockSize - 10)
	check("a whole block")
	push(recBlockSize + 7)
	check("appended after trimming")
	drop(l.len())
	check("all dropped")
	if len(l.blocks) != 0 {
		t.Fatalf("%d blocks left after dropping every record", len(l.blocks))
	}
	push(recBlockSize*2 + 1)
	check("reused blocks")
}

// TestSameStored checks the no-op detection of streams on items that
// differ in each kind of attribute, and on equal ones.
func TestSameStored(t *testing.T) {
	long := strings.Repeat("x", 200)
	base := func() item {
		return item{
			"pk":   &types.AttributeValueMemberS{Value: "a"},
			"n":    &types.AttributeValueMemberN{Value: "12.5"},
			"long": &types.AttributeValueMemberS{Value: long},
			"ok":   &types.AttributeValueMemberBOOL{Value: true},
			"ss":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
			"m":    &types.AttributeValueMemberM{Value: item{"x": &types.AttributeValueMemberS{Value: "y"}}},
		}
	}
	for _, tc := range []struct {
		name   string
		change func(item)
		same   bool
	}{
		{"equal", func(item) {}, true},
		{"equal long string, another copy", func(it item) {
			it["long"] = &types.AttributeValueMemberS{Value: strings.Repeat("x", 199) + "x"}
		}, true},
		{"short string", func(it item) { it["pk"] = &types.AttributeValueMemberS{Value: "b"} }, false},
		{"number", func(it item) { it["n"] = &types.AttributeValueMemberN{Value: "12.6"} }, false},
		{"long string, same size", func(it item) { it["long"] = &types.AttributeValueMemberS{Value: long[:199] + "y"} }, false},
		{"bool", func(it item) { it["ok"] = &types.AttributeValueMemberBOOL{Value: false} }, false},
		{"set", func(it item) { it["ss"] = &types.AttributeValueMemberSS{Value: []string{"a", "c"}} }, false},
		{"map", func(it item) {
			it["m"] = &types.AttributeValueMemberM{Value: item{"x": &types.AttributeValueMemberS{Value: "z"}}}
		}, false},
		{"type", func(it item) { it["pk"] = &types.AttributeValueMemberB{Value: []byte("a")} }, false},
		{"renamed", func(it item) { it["pq"] = it["pk"]; delete(it, "pk") }, false},
		{"added", func(it item) { it["z"] = &types.AttributeValueMemberNULL{Value: true} }, false},
		{"removed", func(it item) { delete(it, "ok") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.change(b)
			if got := sameStored(newRecord(a, ddbexpr.ItemSize(a)), newRecord(b, ddbexpr.ItemSize(b))); got != tc.same {
				t.Fatalf("sameStored = %v, want %v", got, tc.same)
			}
		})
	}
}
