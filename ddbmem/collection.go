package ddbmem

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item collection metrics. A write to a table with a local secondary
// index returns, when the request asks for SIZE, the item collection it
// wrote: its partition key value and an estimate of its size in GB, as
// a lower and an upper bound. "If the table does not have any local
// secondary indexes, this information is not returned in the response"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html).
// The size is that of the collection's items plus what the local
// indexes hold of them: each entry's projection and 100 bytes of
// overhead (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.StorageConsiderations).
// The bounds are the whole GB under it and the next, so that a
// collection under 1 GB is [0, 1], as in the documentation's example
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections).
// DynamoDB Local never returns ItemCollectionMetrics.

const gib = 1 << 30

// lsiEntryOverhead is the storage an LSI entry takes beyond its
// projection.
const lsiEntryOverhead = 100

// collectionMetrics is the ItemCollectionMetrics of the item collection
// of the encoded partition key pk, whose value key (an item or a key)
// holds, or nil when the request did not ask for it (want) or t has no
// local index. t.mu is held.
func (t *table) collectionMetrics(want types.ReturnItemCollectionMetrics, pk string, key item) *types.ItemCollectionMetrics {
	if want != types.ReturnItemCollectionMetricsSize {
		return nil
	}
	var lsis []*index
	for _, ix := range t.indexes() {
		if ix.local {
			lsis = append(lsis, ix)
		}
	}
	if len(lsis) == 0 {
		return nil
	}
	lo := float64(t.collectionSize(pk, lsis) / gib)
	return &types.ItemCollectionMetrics{ItemCollectionKey: copyItem(item{t.pk.name: key[t.pk.name]}), SizeEstimateRangeGB: []float64{lo, lo + 1}}
}

// collectionSize is the size of the item collection pk of t with its
// entries in the local indexes lsis. t.mu is held.
func (t *table) collectionSize(pk string, lsis []*index) int64 {
	p := t.data.parts[pk]
	if p == nil {
		return 0
	}
	// A collection that could not reach 1 GB were every item as large
	// as an item can be needs no adding up: only whole GB are reported.
	if int64(p.len())*int64(maxItemSize*(1+len(lsis))+lsiEntryOverhead*len(lsis)) < gib {
		return 0
	}
	var n int64
	for i := range p.len() {
		r := p.at(i).rec
		n += int64(r.size)
		for _, ix := range lsis {
			if _, in := ix.keyValues(r.item); in {
				n += int64(ix.entrySize(r.item, r.size) + lsiEntryOverhead)
			}
		}
	}
	return n
}

// collections gathers the ItemCollectionMetrics of a batch's or a
// transaction's writes: per table, one per item collection written, in
// the order of their first write.
type collections struct {
	want types.ReturnItemCollectionMetrics
	out  map[string][]types.ItemCollectionMetrics
	seen map[[2]string]bool // table name and encoded partition key
}

// add records the collection pk of t, whose value key holds. t.mu is
// held.
func (c *collections) add(t *table, pk string, key item) {
	if c.seen[[2]string{t.name, pk}] {
		return
	}
	m := t.collectionMetrics(c.want, pk, key)
	if m == nil {
		return
	}
	if c.out == nil {
		c.out, c.seen = map[string][]types.ItemCollectionMetrics{}, map[[2]string]bool{}
	}
	c.seen[[2]string{t.name, pk}] = true
	c.out[t.name] = append(c.out[t.name], *m)
}
