package cachestore

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
)

func TestFlat(t *testing.T) {
	type inner struct {
		A [2]int
		T time.Time
	}
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{struct {
			S string
			N int64
			F float64
			B bool
			I inner
		}{}, true},
		{time.Time{}, true},
		{struct{ P *int }{}, false},
		{struct{ L []string }{}, false},
		{struct{ M map[string]int }{}, false},
		{struct{ X any }{}, false},
		{struct{ A [1][]byte }{}, false},
		{struct{ D time.Duration }{}, true},
	} {
		if got := flat(reflect.TypeOf(tc.v)); got != tc.want {
			t.Errorf("flat(%T) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if newDecodeMemo[struct{ L []string }]() != nil {
		t.Error("a memo for a type with a slice")
	}
}

// TestDecodeMemo: a value is returned again only for the very bytes it
// was decoded from, whatever else shares its slot, and values over the
// size bound are never kept.
func TestDecodeMemo(t *testing.T) {
	type v struct {
		S string
		N int
	}
	m := newDecodeMemo[v]()
	if _, ok := m.get("a"); ok {
		t.Fatal("hit in an empty memo")
	}
	// More values than slots: each lookup answers its own bytes or
	// nothing.
	for i := range 4 * memoSlots {
		m.put(fmt.Sprint("raw", i), v{S: fmt.Sprint("raw", i), N: i})
	}
	hits := 0
	for i := range 4 * memoSlots {
		raw := fmt.Sprint("raw", i)
		got, ok := m.get(raw)
		if !ok {
			continue
		}
		hits++
		if got.S != raw || got.N != i {
			t.Fatalf("get(%q) = %+v", raw, got)
		}
	}
	if hits == 0 || hits > memoSlots {
		t.Fatalf("%d hits", hits)
	}
	big := strings.Repeat("x", memoMaxBytes+1)
	m.put(big, v{S: "big"})
	if _, ok := m.get(big); ok {
		t.Fatal("a value over memoMaxBytes was kept")
	}

	// Concurrent readers and writers (run under -race).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				raw := fmt.Sprint("c", (g*7+i)%300)
				if got, ok := m.get(raw); ok && got.S != raw {
					t.Errorf("get(%q) = %+v", raw, got)
					return
				}
				m.put(raw, v{S: raw})
			}
		}()
	}
	wg.Wait()
}

// TestDecodeHitAllocs: a hit the memo answers returns the value without
// allocating; the first decoding of the bytes fills the memo.
func TestDecodeHitAllocs(t *testing.T) {
	s := &Store[codex.Post, *codex.Post]{memo: newDecodeMemo[codex.Post]()}
	want := codex.Post{ID: "p1", CategoryID: "c1", Title: "제목", Contents: "본문",
		CreatedAt: time.Date(2025, 11, 12, 5, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2025, 11, 12, 5, 30, 0, 0, time.UTC)}
	item, err := want.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	b, err := appendItem(nil, item)
	if err != nil {
		t.Fatal(err)
	}
	v := string(kindLive) + "|" + string(b)
	for i := range 2 { // decoded, then from the memo
		got, err, ok := s.decode(v, entity.Key{})
		if !ok || err != nil || got != want {
			t.Fatalf("decode %d = %+v, %v, %v", i, got, err, ok)
		}
	}
	if n := testing.AllocsPerRun(50, func() { _, _, _ = s.decode(v, entity.Key{}) }); n != 0 {
		t.Fatalf("a memo hit allocates %v times, want 0", n)
	}
}
