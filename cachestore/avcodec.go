package cachestore

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The default cached form of an item: its attribute values (as the
// entity's generated codec writes them) in a compact binary layout, which
// decodes several times faster than JSON and round-trips exactly what the
// table holds. Each attribute is its name, a type byte and the value;
// strings and byte strings are length-prefixed (uvarint).

var errCorrupt = errors.New("cachestore: corrupt cached item")

const (
	tS byte = iota + 1
	tN
	tB
	tBool
	tNull
	tL
	tM
	tSS
	tNS
	tBS
)

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendItem(b []byte, m map[string]types.AttributeValue) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(m)))
	var err error
	for k, v := range m {
		b = appendStr(b, k)
		if b, err = appendAV(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendAV(b []byte, v types.AttributeValue) ([]byte, error) {
	var err error
	switch a := v.(type) {
	case *types.AttributeValueMemberS:
		b = appendStr(append(b, tS), a.Value)
	case *types.AttributeValueMemberN:
		b = appendStr(append(b, tN), a.Value)
	case *types.AttributeValueMemberB:
		b = appendStr(append(b, tB), string(a.Value))
	case *types.AttributeValueMemberBOOL:
		c := byte(0)
		if a.Value {
			c = 1
		}
		b = append(b, tBool, c)
	case *types.AttributeValueMemberNULL:
		b = append(b, tNull)
	case *types.AttributeValueMemberL:
		b = binary.AppendUvarint(append(b, tL), uint64(len(a.Value)))
		for _, e := range a.Value {
			if b, err = appendAV(b, e); err != nil {
				return nil, err
			}
		}
	case *types.AttributeValueMemberM:
		if b, err = appendItem(append(b, tM), a.Value); err != nil {
			return nil, err
		}
	case *types.AttributeValueMemberSS:
		b = binary.AppendUvarint(append(b, tSS), uint64(len(a.Value)))
		for _, s := range a.Value {
			b = appendStr(b, s)
		}
	case *types.AttributeValueMemberNS:
		b = binary.AppendUvarint(append(b, tNS), uint64(len(a.Value)))
		for _, s := range a.Value {
			b = appendStr(b, s)
		}
	case *types.AttributeValueMemberBS:
		b = binary.AppendUvarint(append(b, tBS), uint64(len(a.Value)))
		for _, s := range a.Value {
			b = appendStr(b, string(s))
		}
	default:
		return nil, fmt.Errorf("cachestore: cannot cache attribute value %T", v)
	}
	return b, nil
}

type reader struct {
	s   string
	err error
	// The S and N values of an item are allocated together, in slabs of
	// the item's attribute count, instead of one by one.
	ss []types.AttributeValueMemberS
	ns []types.AttributeValueMemberN
	n  int // the slab size: the top-level item's attribute count
}

func (r *reader) uvarint() int {
	if r.err != nil {
		return 0
	}
	n, w := binary.Uvarint([]byte(r.s[:min(len(r.s), binary.MaxVarintLen64)]))
	if w <= 0 || n > uint64(len(r.s)) {
		r.err = errCorrupt
		return 0
	}
	r.s = r.s[w:]
	return int(n)
}

func (r *reader) str() string {
	n := r.uvarint()
	if r.err != nil || n > len(r.s) {
		r.err = errCorrupt
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.s) == 0 {
		r.err = errCorrupt
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *reader) item() map[string]types.AttributeValue {
	n := r.uvarint()
	if r.n == 0 {
		r.n = n
	}
	m := make(map[string]types.AttributeValue, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.str()
		m[k] = r.av()
	}
	return m
}

func (r *reader) strs() []string {
	n := r.uvarint()
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.str())
	}
	return out
}

func (r *reader) av() types.AttributeValue {
	switch r.byte() {
	case tS:
		if len(r.ss) == cap(r.ss) {
			r.ss = make([]types.AttributeValueMemberS, 0, max(r.n, 1))
		}
		r.ss = append(r.ss, types.AttributeValueMemberS{Value: r.str()})
		return &r.ss[len(r.ss)-1]
	case tN:
		if len(r.ns) == cap(r.ns) {
			r.ns = make([]types.AttributeValueMemberN, 0, max(r.n, 1))
		}
		r.ns = append(r.ns, types.AttributeValueMemberN{Value: r.str()})
		return &r.ns[len(r.ns)-1]
	case tB:
		return &types.AttributeValueMemberB{Value: []byte(r.str())}
	case tBool:
		return &types.AttributeValueMemberBOOL{Value: r.byte() == 1}
	case tNull:
		return &types.AttributeValueMemberNULL{Value: true}
	case tL:
		n := r.uvarint()
		l := make([]types.AttributeValue, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			l = append(l, r.av())
		}
		return &types.AttributeValueMemberL{Value: l}
	case tM:
		return &types.AttributeValueMemberM{Value: r.item()}
	case tSS:
		return &types.AttributeValueMemberSS{Value: r.strs()}
	case tNS:
		return &types.AttributeValueMemberNS{Value: r.strs()}
	case tBS:
		ss := r.strs()
		bs := make([][]byte, len(ss))
		for i, s := range ss {
			bs[i] = []byte(s)
		}
		return &types.AttributeValueMemberBS{Value: bs}
	}
	r.err = errCorrupt
	return nil
}

// decodeItem parses the binary form.
func decodeItem(s string) (map[string]types.AttributeValue, error) {
	r := &reader{s: s}
	m := r.item()
	if r.err == nil && r.s != "" {
		r.err = errCorrupt
	}
	return m, r.err
}
