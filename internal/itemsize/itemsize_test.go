package itemsize_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/itemsize"
)

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"0", 1}, {"-0.000", 1}, {"1", 2}, {"12", 2}, {"123", 3}, {"100", 2},
		{"0.05", 2}, {"1.50", 2}, {"-12345", 4}, {"1.2345E+10", 4}, {"1005", 3},
		{"12345678901234567890123456789012345678", 20},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := itemsize.Number(tc.in); got != tc.want {
				t.Errorf("Number(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

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
