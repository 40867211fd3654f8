package ddbmem

import (
	"math"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// Capacity is reported, when a request asks for it, with DynamoDB's
// on-demand arithmetic: a read is 4 KB (half a unit when eventually
// consistent), a write 1 KB of the larger of the old and new item, and
// transactional actions count twice.

func readUnits(size int, consistent bool, atLeastOne bool) float64 {
	u := math.Ceil(float64(size) / 4096)
	if atLeastOne && u < 1 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

func writeUnits(size int) float64 { return max(1, math.Ceil(float64(size)/1024)) }

// consumed returns the ConsumedCapacity to report, or nil when the request
// did not ask for it. kind is 'r' or 'w' for transactions (which also set
// ReadCapacityUnits or WriteCapacityUnits), 0 otherwise.
func consumed(rcc types.ReturnConsumedCapacity, table string, units float64, kind byte) *types.ConsumedCapacity {
	if rcc == "" || rcc == types.ReturnConsumedCapacityNone {
		return nil
	}
	c := &types.ConsumedCapacity{TableName: aws.String(table), CapacityUnits: aws.Float64(units)}
	switch kind {
	case 'r':
		c.ReadCapacityUnits = aws.Float64(units)
	case 'w':
		c.WriteCapacityUnits = aws.Float64(units)
	}
	if rcc == types.ReturnConsumedCapacityIndexes {
		c.Table = &types.Capacity{CapacityUnits: aws.Float64(units)}
	}
	return c
}

// consumedList reports per-table units in table-name order.
func consumedList(rcc types.ReturnConsumedCapacity, units map[string]float64, kind byte) []types.ConsumedCapacity {
	if rcc == "" || rcc == types.ReturnConsumedCapacityNone {
		return nil
	}
	names := make([]string, 0, len(units))
	for n := range units {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]types.ConsumedCapacity, 0, len(names))
	for _, n := range names {
		out = append(out, *consumed(rcc, n, units[n], kind))
	}
	return out
}

func recSize(it item) int {
	if it == nil {
		return 0
	}
	return ddbexpr.ItemSize(it)
}
