package ddbmem

import (
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type item = map[string]types.AttributeValue

// entry is one stored item in a partition, ordered by sk (the encoded
// sort key; for indexes the index sort key followed by the table key).
type entry struct {
	sk   string
	item item
	size int // DynamoDB size of item, counted against the 1 MB page
}

type partition struct {
	key     string
	hash    uint64
	entries []entry
}

// find returns the position of sk and whether it is present.
func (p *partition) find(sk string) (int, bool) {
	n := len(p.entries)
	if n > 0 && p.entries[n-1].sk < sk {
		return n, false
	}
	i := sort.Search(n, func(i int) bool { return p.entries[i].sk >= sk })
	return i, i < n && p.entries[i].sk == sk
}

// store is an ordered collection of partitions: the table itself or one
// secondary index. Scans walk partitions in (hash, key) order.
type store struct {
	parts map[string]*partition

	orderMu sync.Mutex
	order   []*partition
	dirty   bool
}

func newStore() *store { return &store{parts: map[string]*partition{}} }

func hashKey(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	// finalize so that similar keys spread across segments
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// put stores it under (pk, sk) and returns the item it replaced.
func (s *store) put(pk, sk string, it item, size int) item {
	p := s.parts[pk]
	if p == nil {
		p = &partition{key: pk, hash: hashKey(pk)}
		s.parts[pk] = p
		s.orderMu.Lock()
		s.dirty = true
		s.orderMu.Unlock()
	}
	i, ok := p.find(sk)
	if ok {
		old := p.entries[i].item
		p.entries[i].item = it
		p.entries[i].size = size
		return old
	}
	p.entries = append(p.entries, entry{})
	copy(p.entries[i+1:], p.entries[i:])
	p.entries[i] = entry{sk: sk, item: it, size: size}
	return nil
}

func (s *store) get(pk, sk string) item {
	p := s.parts[pk]
	if p == nil {
		return nil
	}
	if i, ok := p.find(sk); ok {
		return p.entries[i].item
	}
	return nil
}

func (s *store) remove(pk, sk string) item {
	p := s.parts[pk]
	if p == nil {
		return nil
	}
	i, ok := p.find(sk)
	if !ok {
		return nil
	}
	old := p.entries[i].item
	copy(p.entries[i:], p.entries[i+1:])
	p.entries[len(p.entries)-1] = entry{}
	p.entries = p.entries[:len(p.entries)-1]
	if len(p.entries) == 0 {
		delete(s.parts, pk)
		s.orderMu.Lock()
		s.dirty = true
		s.orderMu.Unlock()
	}
	return old
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
