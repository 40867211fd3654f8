package ddbmem

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/itemsize"
)

type item = map[string]types.AttributeValue

// entry is one stored item in a partition, ordered by sk (the encoded
// sort key; for indexes the index sort key followed by the table key).
type entry struct {
	sk  string
	rec *record
}

// record is one stored item. It is immutable: a write stores a new
// record. Table and index entries share it.
type record struct {
	item  item
	attrs []attr // the item's attributes, for fast copying
	size  int    // DynamoDB size of item
	// stored is its stored size (itemsize.Stored), counted against the
	// 1 MB page: 0 until the first read that counts it.
	stored atomic.Int32
	nS     int // number of top-level S attributes
	nN     int // number of top-level N attributes
	nDeep  int // number of top-level B, set, list and map attributes
	// out is the template full reads clone, built by the second one
	// (see outTemplate); nil until then.
	out atomic.Pointer[outTemplate]
	// read is set by the first full read, which copies the item key by
	// key: most records are read once or never (a write replaces the
	// record; a scan reads each item once), and a template would cost
	// that read a second copy and the record the memory.
	read atomic.Bool
	// wire is the item in DynamoDB's JSON, built by the first full read
	// the endpoint serves (see wireSink); nil until then.
	wire atomic.Pointer[[]byte]
}

type attr struct {
	name string
	v    types.AttributeValue
}

// get returns r's item, nil when r is nil.
func (r *record) get() item {
	if r == nil {
		return nil
	}
	return r.item
}

// storedSize returns the record's stored size, sortKey the name of its
// table's sort key ("" for none).
func (r *record) storedSize(sortKey string) int {
	if n := r.stored.Load(); n != 0 {
		return int(n)
	}
	n := itemsize.Stored(r.item, sortKey)
	r.stored.Store(int32(n))
	return n
}

func newRecord(it item, size int) *record {
	r := &record{item: it, size: size, attrs: make([]attr, 0, len(it))}
	for k, v := range it {
		r.attrs = append(r.attrs, attr{k, v})
		switch v.(type) {
		case *types.AttributeValueMemberS:
			r.nS++
		case *types.AttributeValueMemberN:
			r.nN++
		case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		default:
			r.nDeep++
		}
	}
	return r
}

// partition holds the entries of one partition key in sort-key order,
// in chunks of at most maxChunk entries, so that an insertion moves at
// most one chunk.
type partition struct {
	key    string
	hash   uint64
	chunks []*chunk
	starts []int // starts[i] is the global index of chunks[i]'s first entry
	n      int
}

type chunk struct{ entries []entry }

const maxChunk = 512

func (p *partition) len() int { return p.n }

// at returns the entry at global index i.
func (p *partition) at(i int) *entry {
	if len(p.chunks) == 1 {
		return &p.chunks[0].entries[i]
	}
	c := sort.Search(len(p.starts), func(c int) bool { return p.starts[c] > i }) - 1
	return &p.chunks[c].entries[i-p.starts[c]]
}

// search returns the smallest global index whose sort key satisfies f, a
// predicate false then true along the sort order (len() if none).
func (p *partition) search(f func(sk string) bool) int {
	c := sort.Search(len(p.chunks), func(c int) bool {
		es := p.chunks[c].entries
		return f(es[len(es)-1].sk)
	})
	if c == len(p.chunks) {
		return p.n
	}
	es := p.chunks[c].entries
	return p.starts[c] + sort.Search(len(es), func(j int) bool { return f(es[j].sk) })
}

// locate returns the chunk that holds or would hold sk, the position in
// it, and whether sk is there.
func (p *partition) locate(sk string) (int, int, bool) {
	c := sort.Search(len(p.chunks), func(c int) bool {
		es := p.chunks[c].entries
		return es[len(es)-1].sk >= sk
	})
	if c == len(p.chunks) {
		c-- // after the last entry: append to the last chunk
		return c, len(p.chunks[c].entries), false
	}
	es := p.chunks[c].entries
	j := sort.Search(len(es), func(j int) bool { return es[j].sk >= sk })
	return c, j, j < len(es) && es[j].sk == sk
}

func (p *partition) reindex(from int) {
	p.starts = p.starts[:from]
	n := 0
	if from > 0 {
		n = p.starts[from-1] + len(p.chunks[from-1].entries)
	}
	for c := from; c < len(p.chunks); c++ {
		p.starts = append(p.starts, n)
		n += len(p.chunks[c].entries)
	}
	p.n = n
}

func (p *partition) get(sk string) *record {
	if p.n == 0 {
		return nil
	}
	c, j, ok := p.locate(sk)
	if !ok {
		return nil
	}
	return p.chunks[c].entries[j].rec
}

func (p *partition) put(sk string, r *record) {
	if p.n == 0 {
		p.chunks = []*chunk{{entries: []entry{{sk: sk, rec: r}}}}
		p.reindex(0)
		return
	}
	c, j, ok := p.locate(sk)
	ch := p.chunks[c]
	if ok {
		ch.entries[j].rec = r
		return
	}
	ch.entries = append(ch.entries, entry{})
	copy(ch.entries[j+1:], ch.entries[j:])
	ch.entries[j] = entry{sk: sk, rec: r}
	if len(ch.entries) > maxChunk {
		half := len(ch.entries) / 2
		right := &chunk{entries: append(make([]entry, 0, maxChunk+1), ch.entries[half:]...)}
		left := make([]entry, half, maxChunk+1)
		copy(left, ch.entries[:half])
		ch.entries = left
		p.chunks = append(p.chunks, nil)
		copy(p.chunks[c+2:], p.chunks[c+1:])
		p.chunks[c+1] = right
	}
	p.reindex(c)
}

// remove deletes sk and returns its record (nil if absent).
func (p *partition) remove(sk string) *record {
	if p.n == 0 {
		return nil
	}
	c, j, ok := p.locate(sk)
	if !ok {
		return nil
	}
	ch := p.chunks[c]
	r := ch.entries[j].rec
	copy(ch.entries[j:], ch.entries[j+1:])
	ch.entries[len(ch.entries)-1] = entry{}
	ch.entries = ch.entries[:len(ch.entries)-1]
	if len(ch.entries) == 0 {
		copy(p.chunks[c:], p.chunks[c+1:])
		p.chunks[len(p.chunks)-1] = nil
		p.chunks = p.chunks[:len(p.chunks)-1]
	}
	p.reindex(c)
	return r
}

// store is an ordered collection of partitions: the table itself or one
// secondary index. Scans walk partitions in (hash, key) order, the hash
// being DynamoDB's (partitionHash) of keys of type typ.
type store struct {
	typ   types.ScalarAttributeType
	parts map[string]*partition

	orderMu sync.Mutex
	order   []*partition
	dirty   bool
}

func newStore(typ types.ScalarAttributeType) *store {
	return &store{typ: typ, parts: map[string]*partition{}}
}

// hashKey is a fast hash of s, for spreading keys (stream shards), not
// for scan order.
func hashKey(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	// finalize so that similar keys spread
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// put stores r under (pk, sk), replacing what was there.
func (s *store) put(pk, sk string, r *record) {
	p := s.parts[pk]
	if p == nil {
		p = &partition{key: pk, hash: partitionHash(pk, s.typ)}
		s.parts[pk] = p
		s.orderMu.Lock()
		s.dirty = true
		s.orderMu.Unlock()
	}
	p.put(sk, r)
}

func (s *store) get(pk, sk string) item {
	if r := s.getRec(pk, sk); r != nil {
		return r.item
	}
	return nil
}

func (s *store) getRec(pk, sk string) *record {
	p := s.parts[pk]
	if p == nil {
		return nil
	}
	return p.get(sk)
}

func (s *store) remove(pk, sk string) item {
	p := s.parts[pk]
	if p == nil {
		return nil
	}
	r := p.remove(sk)
	if r == nil {
		return nil
	}
	if p.n == 0 {
		delete(s.parts, pk)
		s.orderMu.Lock()
		s.dirty = true
		s.orderMu.Unlock()
	}
	return r.item
}

// sorted returns the partitions in scan order. The caller holds the
// table lock (read or write); the returned slice must not be modified.
func (s *store) sorted() []*partition {
	s.orderMu.Lock()
	defer s.orderMu.Unlock()
	if s.dirty || s.order == nil {
		order := make([]*partition, 0, len(s.parts))
		for _, p := range s.parts {
			order = append(order, p)
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i].hash != order[j].hash {
				return order[i].hash < order[j].hash
			}
			return order[i].key < order[j].key
		})
		s.order = order
		s.dirty = false
	}
	return s.order
}
