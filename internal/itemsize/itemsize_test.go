package itemsize_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/itemsize"
)

func TestOf(t *testing.T) {
	item := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "abc"},   // 2 + 3
		"n":  &types.AttributeValueMemberN{Value: "12"},    // 1 + 2
		"ok": &types.AttributeValueMemberBOOL{Value: true}, // 2 + 1
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{ // 4 + 3 + (1+1) + (1+1)
			&types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberS{Value: "x"},
		}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{ // 1 + 3 + 1+1+2
			"a": &types.AttributeValueMemberS{Value: "bc"},
		}},
	}
	if got, want := itemsize.Of(item), 5+3+3+11+8; got != want {
		t.Errorf("Of = %d, want %d", got, want)
	}
}

// TestNumber checks the stored form's length against the count of
// base-100 digit pairs written out by hand.
func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"0", 1}, {"-0.0", 1}, {"5", 2}, {"12", 2}, {"1.2", 3}, {"12.3", 3}, {"1.23", 3},
		{"12.3456", 4}, {"550", 3}, {"0.5", 2}, {"0.55", 2}, {"0.055", 3}, {"-1", 3},
		{"1E+2", 2}, {"1e1", 2}, {"1.5e1", 2}, {"1.5e-1", 2}, {"1.5e-2", 3}, {"100", 2}, {"1000", 2}, {"00012", 2},
		{"12345678901234567890123456789012345678", 20}, {"-12345678901234567890123456789012345678", 21},
		{"-0.000", 1}, {"1", 2}, {"123", 3}, {"0.05", 2}, {"1.50", 3}, {"-12345", 5}, {"1.2345E+10", 4}, {"1005", 3},
		{"2.5", 3}, {"-7", 3}, {"150", 3}, {"-99999", 5},
	} {
		if got := itemsize.Number(tc.in); got != tc.want {
			t.Errorf("Number(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestStoredPageBoundaries rebuilds the pages of dynalite's "just under"
// and "just over" 1 MB tests, whose byte counts were recorded against
// AWS: one byte more in the second last item makes the page reach 1 MB
// with it, leaving the last item for the next page.
func TestStoredPageBoundaries(t *testing.T) {
	str := func(n int) types.AttributeValue { return &types.AttributeValueMemberS{Value: strings.Repeat("b", n)} }
	extras := func(it map[string]types.AttributeValue, names ...string) {
		it[names[0]] = &types.AttributeValueMemberN{Value: "12.3456"}
		it[names[1]] = &types.AttributeValueMemberB{Value: []byte{1, 2}}
		it[names[2]] = &types.AttributeValueMemberSS{Value: []string{"a", "bc"}}
		it[names[3]] = &types.AttributeValueMemberNS{Value: []string{"1.23", "12.3"}}
		it[names[4]] = &types.AttributeValueMemberBS{Value: [][]byte{{1, 2}, {2}, {1}}}
	}
	for _, tc := range []struct {
		name    string
		sortKey string
		// item returns the i-th item of 24, the second last one (i ==
		// 23) shortened by cut bytes.
		item func(i, cut int) map[string]types.AttributeValue
		// under and over are the cuts that keep the page under 1 MB and
		// that make the second last item reach it.
		under, over int
	}{
		{"hash table, small attribute", "", func(i, cut int) map[string]types.AttributeValue {
			it := map[string]types.AttributeValue{"a": str(2)}
			if i < 23 {
				it["b"] = str(43411)
				return it
			}
			it["b"] = str(43412 - cut)
			extras(it, "c", "d", "e", "f", "g")
			return it
		}, 46, 45},
		{"hash table, large attribute", "", func(i, cut int) map[string]types.AttributeValue {
			it := map[string]types.AttributeValue{"a": str(2)}
			if i < 23 {
				it[strings.Repeat("b", 255)] = str(43411)
				return it
			}
			it["bfasfdsfdsa"] = str(43412 - cut)
			extras(it, "cfadsfdsaafds", "dfasdfdafdsa", "efdasfdasfd", "ffdsafsdfd", "gfsdfdsaafds")
			return it
		}, 46, 45},
		{"range table", "b", func(i, cut int) map[string]types.AttributeValue {
			it := map[string]types.AttributeValue{"a": str(2), "b": str(2)}
			if i < 23 {
				it["z"] = str(43380)
				return it
			}
			it["z"] = str(43381 - cut)
			extras(it, "y", "x", "w", "v", "u")
			return it
		}, 22, 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := func(cut int) int {
				n := 0
				for i := 0; i < 24; i++ {
					n += itemsize.Stored(tc.item(i, cut), tc.sortKey)
				}
				return n
			}
			if got := page(tc.under); got >= itemsize.PageMax {
				t.Errorf("24 items cut by %d: %d bytes, want under %d", tc.under, got, itemsize.PageMax)
			}
			if got := page(tc.over); got < itemsize.PageMax {
				t.Errorf("24 items cut by %d: %d bytes, want at least %d", tc.over, got, itemsize.PageMax)
			}
		})
	}
}
