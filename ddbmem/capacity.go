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

// consumed returns the ConsumedCapacity of units on table, or nil when
// the request did not ask for it. kind is 'r' or 'w' for transactions
// (which also set ReadCapacityUnits or WriteCapacityUnits), 0 otherwise.
func consumed(rcc types.ReturnConsumedCapacity, table string, units float64, kind byte) *types.ConsumedCapacity {
	return usage{table: units}.report(rcc, table, kind)
}

// consumedList reports per-table units in table-name order.
func consumedList(rcc types.ReturnConsumedCapacity, units map[string]float64, kind byte) []types.ConsumedCapacity {
	if !wantCapacity(rcc) {
		return nil
	}
	usages := make(map[string]*usage, len(units))
	for n, u := range units {
		usages[n] = &usage{table: u}
	}
	return usageList(rcc, usages, kind)
}

func recSize(it item) int {
	if it == nil {
		return 0
	}
	return ddbexpr.ItemSize(it)
}

// wantCapacity reports whether a request asked for ConsumedCapacity.
func wantCapacity(rcc types.ReturnConsumedCapacity) bool {
	return rcc == types.ReturnConsumedCapacityTotal || rcc == types.ReturnConsumedCapacityIndexes
}

// usage is the capacity one request consumed on one table: on the table
// itself and on each of its indexes (by name).
type usage struct {
	table float64
	gsi   map[string]float64
	lsi   map[string]float64
	// flat keeps the indexes' units in indexes, not by index name: a
	// request that asked for the TOTAL only needs their sum.
	flat    bool
	indexes float64
}

func (u *usage) addIndex(ix *index, units float64) {
	if units == 0 {
		return
	}
	if u.flat {
		u.indexes += units
		return
	}
	m := &u.gsi
	if ix.local {
		m = &u.lsi
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[ix.name] += units
}

func (u *usage) add(o usage) {
	u.table += o.table
	u.indexes += o.indexes
	for n, v := range o.gsi {
		if u.gsi == nil {
			u.gsi = map[string]float64{}
		}
		u.gsi[n] += v
	}
	for n, v := range o.lsi {
		if u.lsi == nil {
			u.lsi = map[string]float64{}
		}
		u.lsi[n] += v
	}
}

// scale multiplies every part of u by f.
func (u *usage) scale(f float64) {
	u.table *= f
	u.indexes *= f
	for n := range u.gsi {
		u.gsi[n] *= f
	}
	for n := range u.lsi {
		u.lsi[n] *= f
	}
}

// report returns the ConsumedCapacity of u, or nil when the request did
// not ask for it. With INDEXES the table's part is always listed, with
// 0 units for a read of an index alone, as DynamoDB does (dynalite's
// suite records it; DynamoDB Local leaves it out). kind is 'r' or 'w'
// for transactions, which also report every part as ReadCapacityUnits
// or WriteCapacityUnits, 0 otherwise.
func (u usage) report(rcc types.ReturnConsumedCapacity, table string, kind byte) *types.ConsumedCapacity {
	if !wantCapacity(rcc) {
		return nil
	}
	capacity := func(v float64) types.Capacity {
		c := types.Capacity{CapacityUnits: aws.Float64(v)}
		switch kind {
		case 'r':
			c.ReadCapacityUnits = aws.Float64(v)
		case 'w':
			c.WriteCapacityUnits = aws.Float64(v)
		}
		return c
	}
	total := u.table + u.indexes
	for _, v := range u.gsi {
		total += v
	}
	for _, v := range u.lsi {
		total += v
	}
	t := capacity(total)
	c := &types.ConsumedCapacity{TableName: aws.String(table), CapacityUnits: t.CapacityUnits,
		ReadCapacityUnits: t.ReadCapacityUnits, WriteCapacityUnits: t.WriteCapacityUnits}
	if rcc != types.ReturnConsumedCapacityIndexes {
		return c
	}
	tc := capacity(u.table)
	c.Table = &tc
	if len(u.gsi) > 0 {
		c.GlobalSecondaryIndexes = map[string]types.Capacity{}
		for n, v := range u.gsi {
			c.GlobalSecondaryIndexes[n] = capacity(v)
		}
	}
	if len(u.lsi) > 0 {
		c.LocalSecondaryIndexes = map[string]types.Capacity{}
		for n, v := range u.lsi {
			c.LocalSecondaryIndexes[n] = capacity(v)
		}
	}
	return c
}

// writeUsage is the capacity of replacing old by nw (either may be nil)
// in t: the table write, plus, on each index, one write of the index
// entry when the item enters or leaves the index or its projection in
// the index changes, and two (the old entry deleted, the new one put)
// when its index key changes. Index entries are sized by what the index
// projects.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ThroughputConsiderations.Writes
//
// pk and sk are the encoded table key (tableKey) of the item, the same
// for old and nw.
func (t *table) writeUsage(pk, sk string, old, nw item) usage {
	return t.writeUsageSized(pk, sk, old, nw, recSize(old), recSize(nw), false)
}

// writeUsageSized is writeUsage with the sizes of old and nw (0 for nil);
// flat sums the indexes' units instead of keeping them by index (see
// usage.flat).
func (t *table) writeUsageSized(pk, sk string, old, nw item, oldSize, nwSize int, flat bool) usage {
	u := usage{table: writeUnits(max(oldSize, nwSize)), flat: flat}
	for _, ix := range t.indexes() {
		oin, nin, moved := ix.change(old, nw)
		switch {
		case oin && nin && moved:
			u.addIndex(ix, writeUnits(ix.entrySize(old, oldSize))+writeUnits(ix.entrySize(nw, nwSize)))
		case oin && nin:
			po, pn := ix.src.project(old), ix.src.project(nw)
			if sameItem(po, pn) {
				break
			}
			if ix.proj == types.ProjectionTypeAll {
				u.addIndex(ix, writeUnits(max(oldSize, nwSize)))
			} else {
				u.addIndex(ix, writeUnits(max(ddbexpr.ItemSize(po), ddbexpr.ItemSize(pn))))
			}
		case oin:
			u.addIndex(ix, writeUnits(ix.entrySize(old, oldSize)))
		case nin:
			u.addIndex(ix, writeUnits(ix.entrySize(nw, nwSize)))
		}
	}
	return u
}

// entrySize is the size of it's entry in the index; size is
// ItemSize(it), the whole entry when the index projects everything.
func (ix *index) entrySize(it item, size int) int {
	if ix.proj == types.ProjectionTypeAll {
		return size
	}
	return ddbexpr.ItemSize(ix.src.project(it))
}

func sameItem(a, b item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !ddbexpr.Equal(v, w) {
			return false
		}
	}
	return true
}

// readUsage is the capacity of a Query or Scan of src that read size
// bytes of entries and fetched items from the table for fetched units
// (whole 4 KB units per item, before halving for eventual consistency).
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ThroughputConsiderations.Reads
//
// A Query that read nothing consumes the minimum of its kind of read (a
// unit, or half of one when eventually consistent): "Queries that do not
// return results consume the minimum number of read capacity units for
// that type of read operation" (API_Query.html). DynamoDB Local and
// dynalite charge nothing; neither does the engine for a Scan, for which
// AWS documents no minimum. The index read is listed even at 0 units, as
// DynamoDB Local and dynalite list it.
func readUsage(src *source, size int, fetched float64, consistent, query bool) usage {
	units := readUnits(size, consistent, query)
	if src.ix == nil {
		return usage{table: units}
	}
	var u usage
	switch {
	case units > 0:
		u.addIndex(src.ix, units)
	case src.ix.local: // addIndex leaves out an index that consumed nothing
		u.lsi = map[string]float64{src.ix.name: 0}
	default:
		u.gsi = map[string]float64{src.ix.name: 0}
	}
	if fetched > 0 {
		if !consistent {
			fetched /= 2
		}
		u.table = fetched
	}
	return u
}

// writeCapacity is the ConsumedCapacity of a single-item write, or nil
// when the request did not ask for it.
func (t *table) writeCapacity(rcc types.ReturnConsumedCapacity, pk, sk string, oldRec, nwRec *record) *types.ConsumedCapacity {
	if !wantCapacity(rcc) {
		return nil
	}
	var oldSize, nwSize int
	if oldRec != nil {
		oldSize = oldRec.size
	}
	if nwRec != nil {
		nwSize = nwRec.size
	}
	flat := rcc != types.ReturnConsumedCapacityIndexes
	return t.writeUsageSized(pk, sk, oldRec.get(), nwRec.get(), oldSize, nwSize, flat).report(rcc, t.name, 0)
}

// readCapacity is the ConsumedCapacity of a Query (query) or Scan, or nil
// when the request did not ask for it.
func readCapacity(rcc types.ReturnConsumedCapacity, table string, src *source, size int, fetched float64, consistent, query bool) *types.ConsumedCapacity {
	if !wantCapacity(rcc) {
		return nil
	}
	return readUsage(src, size, fetched, consistent, query).report(rcc, table, 0)
}

// usageList reports per-table usage in table-name order; kind is as for
// [usage.report].
func usageList(rcc types.ReturnConsumedCapacity, usages map[string]*usage, kind byte) []types.ConsumedCapacity {
	if !wantCapacity(rcc) {
		return nil
	}
	names := make([]string, 0, len(usages))
	for n := range usages {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]types.ConsumedCapacity, 0, len(names))
	for _, n := range names {
		out = append(out, *usages[n].report(rcc, n, kind))
	}
	return out
}
