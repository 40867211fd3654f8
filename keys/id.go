package keys

import (
	"crypto/rand"
	"fmt"
	"sync"
	"time"
)

// IDLen is the length of an ID from [NewID].
const IDLen = 26

// crockford is Crockford's base32 alphabet: digits and upper-case letters
// without I, L, O and U. Its byte order is its numeric order.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// IDOptions configures an [IDGenerator].
type IDOptions struct {
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
}

// IDGenerator makes time-ordered, URL-safe unique IDs: 26 characters of
// Crockford base32, the first 10 the milliseconds since the Unix epoch,
// the last 16 an 80-bit random number from crypto/rand. Within one
// millisecond (or when the clock goes back) the generator reuses the
// last timestamp and adds one to the random part, so the IDs of one
// generator are strictly increasing, as strings too. The zero value is
// ready to use; an IDGenerator is safe for concurrent use.
type IDGenerator struct {
	opts IDOptions

	mu     sync.Mutex
	lastMs uint64
	rnd    [10]byte // big-endian 80-bit random part of the last ID
}

// NewIDGenerator returns a generator configured by optFns.
func NewIDGenerator(optFns ...func(*IDOptions)) *IDGenerator {
	g := &IDGenerator{}
	for _, fn := range optFns {
		fn(&g.opts)
	}
	return g
}

var defaultIDs IDGenerator

// NewID returns a new ID from a package-level [IDGenerator]. Safe for
// concurrent use.
func NewID() string { return defaultIDs.New() }

// New returns the next ID.
func (g *IDGenerator) New() string {
	now := time.Now
	if g.opts.Now != nil {
		now = g.opts.Now
	}
	ms := uint64(now().UnixMilli())
	if ms >= 1<<48 {
		ms = 1<<48 - 1 // year 10889: clamp, keep the width
	}

	g.mu.Lock()
	if ms > g.lastMs {
		g.lastMs = ms
		_, _ = rand.Read(g.rnd[:]) // never fails (crypto/rand, Go 1.24+)
	} else {
		// Same millisecond or a clock step back: increment.
		i := len(g.rnd) - 1
		for ; i >= 0; i-- {
			g.rnd[i]++
			if g.rnd[i] != 0 {
				break
			}
		}
		if i < 0 { // 2^80 IDs in one millisecond: borrow the next one
			g.lastMs++
		}
	}
	ms, rnd := g.lastMs, g.rnd
	g.mu.Unlock()

	var out [IDLen]byte
	for i := 9; i >= 0; i-- {
		out[i] = crockford[ms&31]
		ms >>= 5
	}
	// 80 bits = 16 groups of 5, most significant first.
	var acc uint64
	var bits uint
	j := 10
	for _, b := range rnd {
		acc = acc<<8 | uint64(b)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out[j] = crockford[(acc>>bits)&31]
			j++
		}
	}
	return string(out[:])
}

// IDTime returns the time encoded in an ID from [NewID], to the
// millisecond, in UTC. A string that is not such an ID is an error
// wrapping [ErrMalformed].
func IDTime(id string) (time.Time, error) {
	if len(id) != IDLen {
		return time.Time{}, fmt.Errorf("%w: ID %q is not %d characters", ErrMalformed, id, IDLen)
	}
	var ms uint64
	for i := 0; i < IDLen; i++ {
		d := decodeCrockford(id[i])
		if d < 0 || (i == 0 && d > 7) {
			return time.Time{}, fmt.Errorf("%w: ID %q is not base32", ErrMalformed, id)
		}
		if i < 10 {
			ms = ms<<5 | uint64(d)
		}
	}
	return time.UnixMilli(int64(ms)).UTC(), nil
}

func decodeCrockford(c byte) int {
	for i := 0; i < len(crockford); i++ {
		if crockford[i] == c {
			return i
		}
	}
	return -1
}
