package keys

import (
	"crypto/rand"
	"crypto/sha256"
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
	ms := idMillis(now())

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
	return formatID(ms, rnd)
}

// idMillis returns the time part of an ID minted at t: milliseconds since
// the Unix epoch, clamped to the 48 bits an ID holds (times before 1970
// become 0, times after the year 10889 the largest value).
func idMillis(t time.Time) uint64 {
	ms := t.UnixMilli()
	switch {
	case ms < 0:
		return 0
	case ms >= 1<<48:
		return 1<<48 - 1
	}
	return uint64(ms)
}

// NewIDAt returns a new ID whose time part is t instead of the current
// time, with a fresh 80-bit random part: use it for a record created
// earlier than it is stored (a back-dated post, an import), so it sorts
// among the IDs minted at its time. IDs minted at the same millisecond are
// in random order; [IDTime] of the result is t to the millisecond.
func NewIDAt(t time.Time) string {
	var rnd [10]byte
	_, _ = rand.Read(rnd[:]) // never fails (crypto/rand, Go 1.24+)
	return formatID(idMillis(t), rnd)
}

// IDFrom returns the ID of a record created at t and known elsewhere by
// source (for instance the id of the record in the system it is migrated
// from): the time part is t, and the other 80 bits are the first 80 bits
// of the SHA-256 of source instead of random ones. The same t and source
// always give the same ID, so a migration that runs again writes the same
// keys; two different sources at the same millisecond collide only when
// their 80-bit digests do. Include a namespace in source when ids of
// several kinds share a key space ("post/" + id).
func IDFrom(t time.Time, source string) string {
	sum := sha256.Sum256([]byte(source))
	var rnd [10]byte
	copy(rnd[:], sum[:])
	return formatID(idMillis(t), rnd)
}

// formatID writes the 48-bit millisecond time ms and the 80 bits of rnd as
// 26 Crockford base32 characters, most significant first.
func formatID(ms uint64, rnd [10]byte) string {
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
