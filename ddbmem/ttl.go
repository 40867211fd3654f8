package ddbmem

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// SweepExpired deletes, in every table with TTL enabled, the items whose
// TTL attribute is a number of epoch seconds earlier than now, as
// DynamoDB's background TTL process eventually does, and returns how many
// it deleted. Items whose TTL attribute is missing or not a number never
// expire. Until a sweep, expired items stay readable, as they may in
// DynamoDB.
func (db *DB) SweepExpired(now time.Time) int {
	db.mu.RLock()
	ts := make([]*table, 0, len(db.tables))
	for _, t := range db.tables {
		ts = append(ts, t)
	}
	db.mu.RUnlock()
	cutoff, _ := ddbexpr.ParseNumber(itoa(now.Unix()))
	n := 0
	for _, t := range ts {
		t.mu.Lock()
		if t.ttlAttr != "" {
			var doomed []*record
			for _, p := range t.data.parts {
				for i := 0; i < p.len(); i++ {
					e := p.at(i)
					v, ok := e.rec.item[t.ttlAttr].(*types.AttributeValueMemberN)
					if !ok {
						continue
					}
					exp, err := ddbexpr.ParseNumber(v.Value)
					if err == nil && exp.Cmp(cutoff) < 0 {
						doomed = append(doomed, e.rec)
					}
				}
			}
			t.ttlDeleting = true // streams: marks the records (stream.go)
			for _, r := range doomed {
				pk, sk := t.tableKey(r.item)
				t.write(pk, sk, r, nil)
				n++
			}
			t.ttlDeleting = false
		}
		t.mu.Unlock()
	}
	return n
}

// SweepExpiredNow is SweepExpired at the time of Options.Now.
func (db *DB) SweepExpiredNow() int { return db.SweepExpired(db.now()) }

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [24]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
