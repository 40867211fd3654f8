package entity

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// dropPartialSparse writes a sparse index whole or not at all: when one of
// its derived key attributes could not be built, the others are left out
// too (DynamoDB would not index the item anyway, and a stray half key
// would only mislead readers of the item). An attribute that another,
// complete index also uses is kept.
func (s *Store[T, PT]) dropPartialSparse(item map[string]types.AttributeValue) {
	groups := s.indexGroups()
	complete := make([]bool, len(groups))
	for i, g := range groups {
		complete[i] = true
		for _, k := range g {
			if _, ok := item[k.Attr]; !ok {
				complete[i] = false
			}
		}
	}
	for i, g := range groups {
		if complete[i] || !g[0].Sparse {
			continue
		}
	attrs:
		for _, k := range g {
			for j, o := range groups {
				if j == i || !complete[j] {
					continue
				}
				for _, ok := range o {
					if ok.Attr == k.Attr {
						continue attrs
					}
				}
			}
			delete(item, k.Attr)
		}
	}
}

// indexGroups returns the derived keys grouped by index, in schema order.
func (s *Store[T, PT]) indexGroups() [][]KeyAttr {
	var out [][]KeyAttr
	pos := map[string]int{}
	for _, k := range s.derived {
		i, ok := pos[k.Index]
		if !ok {
			i = len(out)
			pos[k.Index] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], k)
	}
	return out
}

// primarySources adds to vals the string source attributes of the
// primary key, parsed back from key through the key templates.
func (s *Store[T, PT]) primarySources(key Key, vals map[string]types.AttributeValue) {
	for i, k := range s.primary {
		if s.primaryT[i] == nil {
			continue
		}
		v := key.PK
		if k.Role == "sk" {
			v = key.SK
		}
		parts, err := s.primaryT[i].Parse(v)
		if err != nil || len(parts) != len(k.Sources) {
			continue
		}
		for j, name := range k.Sources {
			if _, ok := vals[name]; !ok {
				vals[name] = str(parts[j])
			}
		}
	}
}
