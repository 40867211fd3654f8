package ddbmem

import (
	"encoding/binary"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/tablekit/tablekit/internal/itemsize"
)

// This file keeps the images of stream records, encoded without
// pointers in the stream's image arena, so that the garbage collector
// neither marks nor scans the images a stream holds, and an item a write
// replaces goes as it does without a stream.
//
// A write encodes the item it stores (its new image), which it has just
// built and the processor still has in its caches, and the stream
// remembers where (stream.live): the write that later replaces or
// deletes the item takes its old image from there, without a copy, as
// long as the arena holds it; otherwise it encodes the old item then.
//
// The arena is a list of chunks, oldest first. A chunk can go once the
// records that wrote into it are trimmed (they are the oldest that refer
// to it) and no record held takes its old image from it (oldRefs):
// chunks are freed oldest first, and kept for reuse (up to a bound), as
// the record blocks are.

// imgChunkSize is the size of an arena chunk; an image larger than a
// quarter of it that does not fit the newest chunk gets a chunk of its
// own.
const imgChunkSize = 64 << 10

// imgRef locates an encoded image in the arena: chunk (an id, see
// imgArena), offset and length. n == 0 means none.
type imgRef struct {
	chunk, off, n uint32
}

// imgChunk is one chunk of the arena: buf holds the encodings (its
// length is the part used), strs the long strings they refer to; last is
// the newest sequence number of a record that wrote into it, and oldRefs
// the number of records held that take their old image from it.
//
// A string or binary of longValue bytes or more is not copied: the
// stored values are immutable, so the chunk refers to it, as the item
// did. This keeps the cost of a write's copy to the short values, at one
// pointer per long value for the collector.
type imgChunk struct {
	buf     []byte
	strs    []string
	last    uint64
	oldRefs int
}

// imgArena is the image arena of a stream. chunks[i] has the id
// first+i (uint32 arithmetic, which may wrap). The zero value is empty.
//
// The newest encodings are written to stage, a small buffer the
// processor keeps in its caches, and copied to the end of the newest
// chunk when it fills (or before a read): a chunk's memory was last
// written a full stream ago, and writing it an image at a time costs a
// cache miss every few images, where one large copy streams.
type imgArena struct {
	chunks []imgChunk
	first  uint32
	spare  []imgChunk // emptied chunks of imgChunkSize, for reuse
	stage  []byte     // encodings that follow the newest chunk's buf
}

// imgStageSize is the capacity of imgArena.stage.
const imgStageSize = 4 << 10

// put encodes as (its key attributes pk and sk alone with keysOnly) for
// the record seq and returns where.
func (a *imgArena) put(as []attr, keysOnly bool, pk, sk string, seq uint64) imgRef {
	k := len(a.chunks) - 1
	if k >= 0 && !keysOnly && len(a.stage) > 0 {
		// Most often the image goes after the staged ones in one pass;
		// it must fit the stage and the rest of the newest chunk.
		c := &a.chunks[k]
		l := len(a.stage)
		limit := l + min(cap(a.stage)-l, cap(c.buf)-len(c.buf)-l)
		if b, ok := c.tryAppendImg(a.stage, limit, as); ok {
			a.stage = b
			c.last = seq
			return imgRef{chunk: a.first + uint32(k), off: uint32(len(c.buf) + l), n: uint32(len(b) - l)}
		}
	}
	n := imgLen(as, keysOnly, pk, sk)
	if k < 0 || len(a.chunks[k].buf)+len(a.stage)+n > cap(a.chunks[k].buf) {
		a.flush()
		var c imgChunk
		switch {
		case n > imgChunkSize/4:
			c.buf = make([]byte, 0, n)
		case len(a.spare) > 0:
			c = a.spare[len(a.spare)-1]
			a.spare[len(a.spare)-1] = imgChunk{}
			a.spare = a.spare[:len(a.spare)-1]
		default:
			c.buf = make([]byte, 0, imgChunkSize)
		}
		a.chunks = append(a.chunks, c)
		k++
	}
	c := &a.chunks[k]
	c.last = seq
	if n > imgStageSize/2 {
		a.flush()
		off := len(c.buf)
		c.buf = c.appendImg(c.buf, as, keysOnly, pk, sk)
		return imgRef{chunk: a.first + uint32(k), off: uint32(off), n: uint32(len(c.buf) - off)}
	}
	if len(a.stage)+n > cap(a.stage) {
		a.flush()
		if a.stage == nil {
			a.stage = make([]byte, 0, imgStageSize)
		}
	}
	off := len(c.buf) + len(a.stage)
	l := len(a.stage)
	a.stage = c.appendImg(a.stage, as, keysOnly, pk, sk)
	return imgRef{chunk: a.first + uint32(k), off: uint32(off), n: uint32(len(a.stage) - l)}
}

// flush copies stage to the end of the newest chunk.
func (a *imgArena) flush() {
	if len(a.stage) == 0 {
		return
	}
	c := &a.chunks[len(a.chunks)-1]
	c.buf = append(c.buf, a.stage...)
	a.stage = a.stage[:0]
}

// has reports whether the arena holds the chunk of ref.
func (a *imgArena) has(ref imgRef) bool { return ref.chunk-a.first < uint32(len(a.chunks)) }

// chunk returns the chunk of ref, which the arena holds.
func (a *imgArena) chunk(ref imgRef) *imgChunk { return &a.chunks[ref.chunk-a.first] }

// free drops the oldest chunks that no record held refers to, given
// that the records below seq are gone; the newest chunk stays. It keeps
// up to an eighth of the chunks left for reuse.
func (a *imgArena) free(seq uint64) {
	k := 0
	for k < len(a.chunks)-1 && a.chunks[k].last < seq && a.chunks[k].oldRefs == 0 {
		k++
	}
	if k == 0 {
		return
	}
	maxSpare := (len(a.chunks)-k)/8 + 2
	for i := range k {
		if c := a.chunks[i]; cap(c.buf) == imgChunkSize && len(a.spare) < maxSpare {
			clear(c.strs)
			a.spare = append(a.spare, imgChunk{buf: c.buf[:0], strs: c.strs[:0]})
		}
	}
	n := copy(a.chunks, a.chunks[k:])
	clear(a.chunks[n:])
	a.chunks = a.chunks[:n]
	a.first += uint32(k)
}

// liveTable maps the items of the table whose images the arena has
// (written by the records that stored them) to their encodings. An item
// is keyed by its attribute list (record.attrs), which the entry holds,
// so that its address cannot be reused while the entry is there; an
// entry is good while its chunk is held (imgArena.has). It is an
// open-addressing table with linear probing, as one lookup and one
// insertion per write cost less than a map's three operations. The zero
// value is empty.
type liveTable struct {
	slots []liveSlot // a power of two long, at most half full
	n     int
	shift uint // 64 - log2(len(slots))
}

// liveSlot is one slot of a liveTable; as == nil marks an empty one.
type liveSlot struct {
	as  *attr
	ref imgRef
	sum uint64 // contentSum of the item
}

func (t *liveTable) home(as *attr) int {
	return int((uint64(uintptr(unsafe.Pointer(as))) >> 4) * 0x9e3779b97f4a7c15 >> t.shift)
}

// take returns and removes the entry of as.
func (t *liveTable) take(as *attr) (imgRef, uint64, bool) {
	if t.n == 0 {
		return imgRef{}, 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(as); ; i = (i + 1) & mask {
		switch t.slots[i].as {
		case nil:
			return imgRef{}, 0, false
		case as:
			sl := t.slots[i]
			t.removeAt(i)
			return sl.ref, sl.sum, true
		}
	}
}

// removeAt empties slot i, moving back the entries after it that would
// no longer be found (backward-shift deletion).
func (t *liveTable) removeAt(i int) {
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].as != nil; j = (j + 1) & mask {
		// The entry at j may fill i if its home is not cyclically in
		// (i, j].
		if h := t.home(t.slots[j].as); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = liveSlot{}
	t.n--
}

// set sets the entry of as.
func (t *liveTable) set(as *attr, ref imgRef, sum uint64) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize(2 * (t.n + 1))
	}
	mask := len(t.slots) - 1
	i := t.home(as)
	for t.slots[i].as != nil && t.slots[i].as != as {
		i = (i + 1) & mask
	}
	if t.slots[i].as == nil {
		t.n++
	}
	t.slots[i] = liveSlot{as, ref, sum}
}

// resize rebuilds the table with at least n slots, twice as many as
// its entries.
func (t *liveTable) resize(n int) {
	size, shift := 16, uint(60)
	for size < n || size < 2*t.n {
		size, shift = 2*size, shift-1
	}
	old := t.slots
	t.slots, t.shift, t.n = make([]liveSlot, size), shift, 0
	for _, sl := range old {
		if sl.as != nil {
			t.set(sl.as, sl.ref, sl.sum)
		}
	}
}

// keep removes the entries for which ok is false, and shrinks the table
// when it is mostly empty.
func (t *liveTable) keep(ok func(imgRef) bool) {
	old := t.slots
	t.slots, t.n = nil, 0
	for _, sl := range old {
		if sl.as != nil && ok(sl.ref) {
			if t.slots == nil {
				t.resize(64)
			}
			t.set(sl.as, sl.ref, sl.sum)
		}
	}
}

// The encoding of an image: the number of attributes, then each
// attribute's name (its length and bytes) and value. Lengths and counts
// are uvarints. A string or binary value, or an element of a string or
// binary set, is a slot: a uvarint x, followed by x/2 bytes when x is
// even; when x is odd, the value is the long string x/2 of the chunk's
// strs (see imgChunk). A value is a tag byte followed by:
const (
	encS    = iota + 1 // a slot
	encN               // the number's text: its length and bytes
	encB               // a slot
	encBool            // one byte, 0 or 1
	encNull            // one byte, 0 or 1
	encSS              // the count, then each string's slot
	encNS              // the count, then each number as encN
	encBS              // the count, then each binary's slot
	encL               // the count, then each value
	encM               // the count, then each name and value
)

// maxRefLen bounds the length of a slot that refers to a long string:
// x/2 is less than 2^20, as a chunk holds fewer references than bytes
// (an image that fills a chunk of its own holds fewer than one per
// longValue bytes of its 400 KB).
const maxRefLen = 3

// uvarintLen is the length of x as a uvarint.
func uvarintLen(x int) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// strLen is the length of s encoded with its length.
func strLen(s string) int { return uvarintLen(len(s)) + len(s) }

// slotLen is the length of the slot of s.
func slotLen(s string) int {
	if len(s) >= longValue {
		return maxRefLen
	}
	return uvarintLen(2*len(s)) + len(s)
}

// isKey reports whether name is one of the key attributes pk and sk.
func isKey(name, pk, sk string) bool { return name == pk || sk != "" && name == sk }

// imgLen bounds the length of as encoded by appendImg.
func imgLen(as []attr, keysOnly bool, pk, sk string) int {
	n, count := 0, 0
	for _, a := range as {
		if keysOnly && !isKey(a.name, pk, sk) {
			continue
		}
		count++
		n += strLen(a.name)
		switch x := a.v.(type) {
		case *types.AttributeValueMemberS:
			n += 1 + slotLen(x.Value)
		case *types.AttributeValueMemberN:
			n += 1 + strLen(x.Value)
		default:
			n += valueLen(a.v)
		}
	}
	return uvarintLen(count) + n
}

// bytesString returns b as a string without a copy; b is never changed
// (stored values are immutable), so the string is one.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// valueLen bounds the length of v encoded by appendValue.
func valueLen(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return 1 + slotLen(x.Value)
	case *types.AttributeValueMemberN:
		return 1 + strLen(x.Value)
	case *types.AttributeValueMemberB:
		return 1 + slotLen(bytesString(x.Value))
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 2
	case *types.AttributeValueMemberSS:
		n := 1 + uvarintLen(len(x.Value))
		for _, s := range x.Value {
			n += slotLen(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 1 + uvarintLen(len(x.Value))
		for _, s := range x.Value {
			n += strLen(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 1 + uvarintLen(len(x.Value))
		for _, b := range x.Value {
			n += slotLen(bytesString(b))
		}
		return n
	case *types.AttributeValueMemberL:
		n := 1 + uvarintLen(len(x.Value))
		for _, e := range x.Value {
			n += valueLen(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 1 + uvarintLen(len(x.Value))
		for k, e := range x.Value {
			n += strLen(k) + valueLen(e)
		}
		return n
	}
	panic("ddbmem: stream image of an unknown attribute value type")
}

// putUvarint writes x at b[i:] and returns the index after it.
func putUvarint(b []byte, i, x int) int {
	if x < 0x80 {
		b[i] = byte(x)
		return i + 1
	}
	return i + binary.PutUvarint(b[i:], uint64(x))
}

// putStr writes s with its length at b[i:] and returns the index after
// it.
func putStr(b []byte, i int, s string) int {
	i = putUvarint(b, i, len(s))
	return i + copy(b[i:], s)
}

// putSlot writes the slot of s at b[i:], adding s to c.strs when it is
// long, and returns the index after it.
func (c *imgChunk) putSlot(b []byte, i int, s string) int {
	if len(s) < longValue {
		i = putUvarint(b, i, 2*len(s))
		return i + copy(b[i:], s)
	}
	c.strs = append(c.strs, s)
	return putUvarint(b, i, 2*len(c.strs)-1)
}

// appendImg appends the encoding of as (its key attributes pk and sk
// alone with keysOnly) to b, adding its long strings to c.strs; b has
// room for imgLen bytes more.
func (c *imgChunk) appendImg(b []byte, as []attr, keysOnly bool, pk, sk string) []byte {
	count := len(as)
	if keysOnly {
		count = 0
		for _, a := range as {
			if isKey(a.name, pk, sk) {
				count++
			}
		}
	}
	// Write in place: there is room, and the appends' checks would
	// cost more than the copies of the short names and values.
	i := len(b)
	b = b[:cap(b)]
	i = putUvarint(b, i, count)
	for _, a := range as {
		if keysOnly && !isKey(a.name, pk, sk) {
			continue
		}
		i = c.putAttr(b, i, a)
	}
	return b[:i]
}

// putAttr writes attribute a (name and value) at b[i:], which has room
// for it, and returns the index after it.
func (c *imgChunk) putAttr(b []byte, i int, a attr) int {
	i = putStr(b, i, a.name)
	switch x := a.v.(type) {
	case *types.AttributeValueMemberS:
		b[i] = encS
		if len(x.Value) < longValue { // putSlot, inlined
			i = putUvarint(b, i+1, 2*len(x.Value))
			return i + copy(b[i:], x.Value)
		}
		return c.putSlot(b, i+1, x.Value)
	case *types.AttributeValueMemberN:
		b[i] = encN
		return putStr(b, i+1, x.Value)
	}
	return c.putValue(b, i, a.v)
}

// tryAppendImg appends the encoding of as to b when it ends before
// limit (at most cap(b)), adding its long strings to c.strs; otherwise
// it leaves c as it was and returns false.
func (c *imgChunk) tryAppendImg(b []byte, limit int, as []attr) ([]byte, bool) {
	start, nstrs := len(b), len(c.strs)
	i := start
	b = b[:limit]
	if i+uvarintLen(len(as)) > limit {
		return b[:start], false
	}
	i = putUvarint(b, i, len(as))
	for _, a := range as {
		var n int
		switch x := a.v.(type) {
		case *types.AttributeValueMemberS:
			n = 1 + slotLen(x.Value)
		case *types.AttributeValueMemberN:
			n = 1 + strLen(x.Value)
		default:
			n = valueLen(a.v)
		}
		if i+strLen(a.name)+n > limit {
			clear(c.strs[nstrs:])
			c.strs = c.strs[:nstrs]
			return b[:start], false
		}
		i = c.putAttr(b, i, a)
	}
	return b[:i], true
}

// putBool writes tag and v at b[i:] and returns the index after them.
func putBool(b []byte, i int, tag byte, v bool) int {
	b[i], b[i+1] = tag, 0
	if v {
		b[i+1] = 1
	}
	return i + 2
}

// putValue writes the encoding of v at b[i:] and returns the index after
// it.
func (c *imgChunk) putValue(b []byte, i int, v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		b[i] = encS
		return c.putSlot(b, i+1, x.Value)
	case *types.AttributeValueMemberN:
		b[i] = encN
		return putStr(b, i+1, x.Value)
	case *types.AttributeValueMemberB:
		b[i] = encB
		return c.putSlot(b, i+1, bytesString(x.Value))
	case *types.AttributeValueMemberBOOL:
		return putBool(b, i, encBool, x.Value)
	case *types.AttributeValueMemberNULL:
		return putBool(b, i, encNull, x.Value)
	case *types.AttributeValueMemberSS:
		b[i] = encSS
		i = putUvarint(b, i+1, len(x.Value))
		for _, s := range x.Value {
			i = c.putSlot(b, i, s)
		}
		return i
	case *types.AttributeValueMemberNS:
		b[i] = encNS
		i = putUvarint(b, i+1, len(x.Value))
		for _, s := range x.Value {
			i = putStr(b, i, s)
		}
		return i
	case *types.AttributeValueMemberBS:
		b[i] = encBS
		i = putUvarint(b, i+1, len(x.Value))
		for _, e := range x.Value {
			i = c.putSlot(b, i, bytesString(e))
		}
		return i
	case *types.AttributeValueMemberL:
		b[i] = encL
		i = putUvarint(b, i+1, len(x.Value))
		for _, e := range x.Value {
			i = c.putValue(b, i, e)
		}
		return i
	case *types.AttributeValueMemberM:
		b[i] = encM
		i = putUvarint(b, i+1, len(x.Value))
		for k, e := range x.Value {
			i = c.putValue(b, putStr(b, i, k), e)
		}
		return i
	}
	panic("ddbmem: stream image of an unknown attribute value type")
}

// imgCopy is an image copied out of the arena: GetRecords copies the
// images of a page while it holds the stream's lock, and decodes them
// after. It has the encoding (as a string, so that the names and values
// decoded from it are substrings, which cost no allocation each), the
// long strings it refers to (in the order it does), its DynamoDB size
// and that of its key attributes; enc is "" for no image.
type imgCopy struct {
	enc            string
	strs           []string
	size, keysSize int
}

// copyOut returns a copy of the image at ref, which the arena holds; pk
// and sk name the key attributes.
func (a *imgArena) copyOut(ref imgRef, pk, sk string) imgCopy {
	c := a.chunk(ref)
	if int(ref.off+ref.n) > len(c.buf) {
		a.flush()
	}
	enc := c.buf[ref.off : ref.off+ref.n]
	// The walk reads enc in place, as a string that does not outlive it.
	w := imgWalker{imgReader: imgReader{bytesString(enc)}, strs: c.strs}
	size, keysSize := w.image(pk, sk)
	return imgCopy{enc: string(enc), strs: w.refs, size: size, keysSize: keysSize}
}

// imgReader reads an encoding.
type imgReader struct {
	s string
}

func (d *imgReader) uvarint() int {
	x, shift := 0, uint(0)
	for {
		b := d.s[0]
		d.s = d.s[1:]
		x |= int(b&0x7f) << shift
		if b < 0x80 {
			return x
		}
		shift += 7
	}
}

// str reads a length and the bytes that follow.
func (d *imgReader) str() string {
	n := d.uvarint()
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

func (d *imgReader) tag() byte {
	t := d.s[0]
	d.s = d.s[1:]
	return t
}

// slot reads a slot: the string that follows, or the index of a long
// string (ref).
func (d *imgReader) slot() (s string, ref int, long bool) {
	x := d.uvarint()
	if x&1 == 1 {
		return "", x >> 1, true
	}
	s, d.s = d.s[:x>>1], d.s[x>>1:]
	return s, 0, false
}

// imgWalker goes through an encoding in the arena (whose chunk has the
// long strings strs), adding up its DynamoDB size (itemsize's
// arithmetic) and collecting the long strings it refers to in refs.
type imgWalker struct {
	imgReader
	strs, refs []string
}

// image returns the size of the image and that of its attributes pk
// and sk.
func (w *imgWalker) image(pk, sk string) (size, keysSize int) {
	for range w.uvarint() {
		name := w.str()
		n := len(name) + w.value()
		size += n
		if isKey(name, pk, sk) {
			keysSize += n
		}
	}
	return size, keysSize
}

// slotSize reads a slot and returns its length.
func (w *imgWalker) slotSize() int {
	s, ref, long := w.slot()
	if long {
		s = w.strs[ref]
		w.refs = append(w.refs, s)
	}
	return len(s)
}

// value returns the size of the next value.
func (w *imgWalker) value() int {
	switch w.tag() {
	case encS, encB:
		return w.slotSize()
	case encN:
		return itemsize.Number(w.str())
	case encBool, encNull:
		w.s = w.s[1:]
		return 1
	case encSS, encBS:
		n := 0
		for range w.uvarint() {
			n += w.slotSize()
		}
		return n
	case encNS:
		n := 0
		for range w.uvarint() {
			n += itemsize.Number(w.str())
		}
		return n
	case encL:
		n := 3
		for range w.uvarint() {
			n += 1 + w.value()
		}
		return n
	case encM:
		n := 3
		for range w.uvarint() {
			n += 1 + len(w.str()) + w.value()
		}
		return n
	}
	panic("ddbmem: corrupt stream image")
}

// imgDecoder decodes a copied image into the attribute values of
// package dynamodbstreams/types, which share nothing with the arena (the
// long strings are immutable, and binaries are copied).
type imgDecoder struct {
	imgReader
	refs []string // the long strings, in the order the encoding has them
}

// streamItem decodes the image c (nil for none); with keysOnly, only its
// attributes pk and sk.
func (c *imgCopy) streamItem(keysOnly bool, pk, sk string) map[string]st.AttributeValue {
	if c.enc == "" {
		return nil
	}
	d := imgDecoder{imgReader{c.enc}, c.strs}
	n := d.uvarint()
	m := make(map[string]st.AttributeValue, n)
	if keysOnly {
		m = make(map[string]st.AttributeValue, 2)
	}
	var ss []st.AttributeValueMemberS // the string values, in one allocation
	for i := range n {
		name := d.str()
		if keysOnly && !isKey(name, pk, sk) {
			d.value() // skipped (its long strings too)
			continue
		}
		if d.s[0] == encS {
			if ss == nil {
				ss = make([]st.AttributeValueMemberS, 0, n-i)
			}
			d.s = d.s[1:]
			ss = append(ss, st.AttributeValueMemberS{Value: d.slot()})
			m[name] = &ss[len(ss)-1]
			continue
		}
		m[name] = d.value()
	}
	return m
}

// slot reads a slot and returns its string.
func (d *imgDecoder) slot() string {
	s, _, long := d.imgReader.slot()
	if long {
		s, d.refs = d.refs[0], d.refs[1:]
	}
	return s
}

// value decodes the next value.
func (d *imgDecoder) value() st.AttributeValue {
	switch tag := d.tag(); tag {
	case encS:
		return &st.AttributeValueMemberS{Value: d.slot()}
	case encN:
		return &st.AttributeValueMemberN{Value: d.str()}
	case encB:
		return &st.AttributeValueMemberB{Value: []byte(d.slot())}
	case encBool, encNull:
		v := d.s[0] != 0
		d.s = d.s[1:]
		if tag == encBool {
			return &st.AttributeValueMemberBOOL{Value: v}
		}
		return &st.AttributeValueMemberNULL{Value: v}
	case encSS:
		v := make([]string, d.uvarint())
		for i := range v {
			v[i] = d.slot()
		}
		return &st.AttributeValueMemberSS{Value: v}
	case encNS:
		v := make([]string, d.uvarint())
		for i := range v {
			v[i] = d.str()
		}
		return &st.AttributeValueMemberNS{Value: v}
	case encBS:
		v := make([][]byte, d.uvarint())
		for i := range v {
			v[i] = []byte(d.slot())
		}
		return &st.AttributeValueMemberBS{Value: v}
	case encL:
		v := make([]st.AttributeValue, d.uvarint())
		for i := range v {
			v[i] = d.value()
		}
		return &st.AttributeValueMemberL{Value: v}
	case encM:
		n := d.uvarint()
		v := make(map[string]st.AttributeValue, n)
		for range n {
			k := d.str()
			v[k] = d.value()
		}
		return &st.AttributeValueMemberM{Value: v}
	}
	panic("ddbmem: corrupt stream image")
}
