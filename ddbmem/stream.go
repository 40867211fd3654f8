package ddbmem

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// This file keeps the DynamoDB Streams of the engine's tables: the
// records every write appends (see stream hooks in table.write), their
// shards, rollover and trimming. stream_api.go serves them through the
// Streams API; see the package documentation, "Streams".

// StreamOptions configures the streams of a DB. The zero value gives the
// defaults below.
type StreamOptions struct {
	// Shards is the number of shards open at once in each stream. Each
	// owns a range of the hash of the partition key, so every record of
	// an item goes to the same shard (and, after a rollover, to its
	// child). Default 1, as DynamoDB Local has.
	Shards int
	// ShardRecords closes an open shard once it holds this many records;
	// a child shard (ParentShardId the closed one) takes its place.
	// Default 10,000.
	ShardRecords int
	// ShardAge closes an open shard that is older than this on
	// Options.Now (DynamoDB's shards last about four hours). Default 4 h.
	ShardAge time.Duration
	// Retention is how long records stay readable, on Options.Now;
	// older ones are trimmed. Default 24 h, as in DynamoDB.
	Retention time.Duration
	// MaxRecords caps the records one stream holds: beyond it the oldest
	// are trimmed as if they were past Retention, so that a stream no
	// one reads does not hold every old image forever. Default 100,000.
	MaxRecords int
}

func (o StreamOptions) withDefaults() StreamOptions {
	if o.Shards <= 0 {
		o.Shards = 1
	}
	if o.ShardRecords <= 0 {
		o.ShardRecords = 10_000
	}
	if o.ShardAge <= 0 {
		o.ShardAge = 4 * time.Hour
	}
	if o.Retention <= 0 {
		o.Retention = 24 * time.Hour
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = 100_000
	}
	return o
}

// defaultRegion is the awsRegion of stream records and the region of the
// engine's ARNs unless Options.Region names another, as DynamoDB Local
// names it.
const defaultRegion = "ddblocal"

// Record kinds (eventName).
const (
	recInsert uint8 = iota
	recModify
	recRemove
)

// streamRec is one stream record. Its images are encodings in the
// stream's image arena (stream_img.go), which hold no pointers, so the
// collector need not scan the records either. Only the images the view
// type shows are kept, or the keys when it shows none.
type streamRec struct {
	seq      uint64
	at       int64 // Options.Now at the write, in Unix nanoseconds
	old, new imgRef
	kind     uint8
	ttl      bool // deleted by the TTL sweep
}

// shard is one shard of a stream.
type shard struct {
	id, parent string
	lo, hi     uint64 // the range of partition-key hashes it owns
	created    int64  // Unix nanoseconds
	start, end uint64 // sequence number range; end is 0 while open
	n          int    // records appended, trimmed ones included
	recs       recList
	trimmed    uint64 // the records below this sequence number are gone
}

func (sh *shard) closed() bool { return sh.end != 0 }

// stream is one stream of a table: the current one, or an earlier one
// that was disabled (readable until its records expire).
type stream struct {
	mu sync.Mutex

	arn, label, table string
	keys              []types.KeySchemaElement
	pk, sk            string // key attribute names
	view              types.StreamViewType
	created           time.Time
	disabledAt        time.Time // zero while enabled
	opts              *StreamOptions
	now               func() time.Time
	nanos             func() int64 // now in Unix nanoseconds (DB.nanos)
	region            string       // its table's (Options.Region)

	shards    []*shard    // in creation order
	open      []*shard    // the open shards, by hash range
	next      uint64      // the next sequence number
	nShards   int         // shards created
	total     int         // records held
	checkTime int64       // no record expires before this (Unix nanoseconds)
	spare     []*recBlock // emptied record blocks, for reuse
	// imgs holds the images of the records, and live where it has those
	// of the table's items (stream_img.go). horizon is the lowest
	// sequence number a record held may have.
	imgs    imgArena
	live    liveTable
	horizon uint64

	// The writes whose records are not applied yet (see streamHook),
	// under qmu, which writers take instead of mu. applying is set while
	// a goroutine applies them; spareQueue is an emptied queue to reuse.
	qmu        sync.Mutex
	queue      []pendingWrite
	spareQueue []pendingWrite
	applying   bool
	// writes counts the writes queued so far, and wake, when a reader
	// waits for the next one (Streams.NextWrite), is closed by it;
	// both under qmu.
	writes uint64
	wake   chan struct{}
}

// streamSet is the DB's streams, current and disabled, in creation
// order.
type streamSet struct {
	opts StreamOptions

	mu     sync.Mutex
	all    []*stream
	labels map[string]string // table -> its last stream label
}

func (ss *streamSet) init(o StreamOptions) {
	ss.opts = o.withDefaults()
	ss.labels = map[string]string{}
}

// byARN returns the stream with arn, nil if none.
func (ss *streamSet) byARN(arn string) *stream {
	ss.mu.Lock()
	var found *stream
	for _, s := range ss.all {
		if s.arn == arn {
			found = s
			break
		}
	}
	ss.mu.Unlock()
	if found != nil && found.gone(found.now()) {
		return nil
	}
	return found
}

// gone reports whether s was disabled longer than Retention ago.
func (s *stream) gone(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.disabledAt.IsZero() && now.Sub(s.disabledAt) > s.opts.Retention
}

// list returns the streams, forgetting disabled ones whose retention has
// passed.
func (ss *streamSet) list(now time.Time) []*stream {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	keep := ss.all[:0]
	for _, s := range ss.all {
		if !s.gone(now) {
			keep = append(keep, s)
		}
	}
	for i := len(keep); i < len(ss.all); i++ {
		ss.all[i] = nil
	}
	ss.all = keep
	return append([]*stream(nil), keep...)
}

// parseStreamSpec validates a StreamSpecification and returns the view
// type to enable ("" to disable or for none). DynamoDB Local's messages.
func parseStreamSpec(spec *types.StreamSpecification) (types.StreamViewType, error) {
	if spec == nil {
		return "", nil
	}
	if spec.StreamEnabled == nil {
		return "", validation("1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null")
	}
	if !*spec.StreamEnabled {
		if spec.StreamViewType != "" {
			return "", validation("Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.")
		}
		return "", nil
	}
	switch spec.StreamViewType {
	case types.StreamViewTypeKeysOnly, types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeNewAndOldImages:
		return spec.StreamViewType, nil
	case "":
		return "", validation("Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.")
	}
	return "", validationf("Invalid StreamViewType: %s", spec.StreamViewType)
}

// enableStream gives t a new stream with view; the caller holds t.mu
// (or owns t before it is visible).
func (db *DB) enableStream(t *table, view types.StreamViewType) {
	now := db.now()
	ss := &db.streams
	ss.mu.Lock()
	label := now.UTC().Format("2006-01-02T15:04:05.000")
	if last := ss.labels[t.name]; label <= last {
		// A new stream gets a new label even within the millisecond.
		lt, _ := time.Parse("2006-01-02T15:04:05.000", last)
		label = lt.Add(time.Millisecond).Format("2006-01-02T15:04:05.000")
	}
	ss.labels[t.name] = label
	s := &stream{
		arn: t.arn() + "/stream/" + label, label: label, table: t.name,
		keys: keySchema(t.pk, t.sk), pk: t.pk.name, sk: t.sk.name,
		view: view, created: now, opts: &ss.opts, now: db.now, nanos: db.nanos, next: 1, region: t.region,
	}
	ss.all = append(ss.all, s)
	ss.mu.Unlock()
	s.mu.Lock()
	n := uint64(s.opts.Shards)
	width := math.MaxUint64 / n
	for i := uint64(0); i < n; i++ {
		hi := (i+1)*width - 1
		if i == n-1 {
			hi = math.MaxUint64
		}
		s.openShard("", i*width, hi, now.UnixNano())
	}
	s.mu.Unlock()
	t.stream, t.streamArn, t.streamLabel = s, s.arn, s.label
}

// disableStream closes t's stream, which stays readable until its
// records expire; the caller holds t.mu.
func (t *table) disableStream() {
	s := t.stream
	if s == nil {
		return
	}
	t.stream = nil
	s.lockApplied()
	defer s.mu.Unlock()
	s.disabledAt = s.now()
	for _, sh := range s.open {
		s.closeShard(sh)
	}
	s.open = nil
}

// openShard creates an open shard; the caller holds s.mu.
func (s *stream) openShard(parent string, lo, hi uint64, at int64) *shard {
	s.nShards++
	sh := &shard{
		id:     fmt.Sprintf("shardId-%020d-%08x", at/int64(time.Millisecond), uint32(hashKey(s.arn)+uint64(s.nShards)*0x9e3779b9)),
		parent: parent, lo: lo, hi: hi, created: at, start: s.next,
	}
	s.shards = append(s.shards, sh)
	i := sort.Search(len(s.open), func(i int) bool { return s.open[i].lo > lo })
	s.open = append(s.open, nil)
	copy(s.open[i+1:], s.open[i:])
	s.open[i] = sh
	return sh
}

// closeShard closes sh (which the caller removes from s.open); the
// caller holds s.mu. An empty shard's range is its start alone, which
// no record will have.
func (s *stream) closeShard(sh *shard) {
	if sh.recs.len() > 0 {
		sh.end = sh.recs.last().seq
		return
	}
	if sh.n > 0 {
		sh.end = s.next - 1 // its records were trimmed
		return
	}
	sh.end = sh.start
	if s.next == sh.start {
		s.next++
	}
}

// rollover closes the open shards and opens their children: one each,
// or two splitting its hash range when split is set. The caller holds
// s.mu.
func (s *stream) rollover(split bool, at int64) {
	old := s.open
	s.open = nil
	for _, sh := range old {
		s.closeShard(sh)
	}
	for _, sh := range old {
		if split && sh.hi > sh.lo {
			mid := sh.lo + (sh.hi-sh.lo)/2
			s.openShard(sh.id, sh.lo, mid, at)
			s.openShard(sh.id, mid+1, sh.hi, at)
			continue
		}
		s.openShard(sh.id, sh.lo, sh.hi, at)
	}
}

// rollShard replaces the open shard at s.open[i] by a child; the caller
// holds s.mu.
func (s *stream) rollShard(i int, at int64) {
	sh := s.open[i]
	copy(s.open[i:], s.open[i+1:])
	s.open = s.open[:len(s.open)-1]
	s.closeShard(sh)
	s.openShard(sh.id, sh.lo, sh.hi, at)
}

// maintain closes shards past ShardAge and trims records past Retention
// or MaxRecords; the caller holds s.mu.
func (s *stream) maintain(now int64) {
	age := int64(s.opts.ShardAge)
	for i := 0; i < len(s.open); i++ {
		if now-s.open[i].created >= age {
			s.rollShard(i, now)
			i--
		}
	}
	if now >= s.checkTime {
		s.trim(s.seqAt(now - int64(s.opts.Retention)))
	}
	if s.total > s.opts.MaxRecords+s.opts.MaxRecords/8 {
		s.trim(s.next - uint64(s.opts.MaxRecords))
	}
}

// seqAt returns the first sequence number of a record written at or
// after t (Unix nanoseconds), s.next if none.
func (s *stream) seqAt(t int64) uint64 {
	seq := s.next
	for _, sh := range s.shards {
		i := sh.recs.search(func(r *streamRec) bool { return r.at >= t })
		if i < sh.recs.len() && sh.recs.at(i).seq < seq {
			seq = sh.recs.at(i).seq
		}
	}
	return seq
}

// trim removes the records below seq, and the closed shards left with
// nothing to read past Retention; it sets checkTime. The caller holds
// s.mu.
func (s *stream) trim(seq uint64) {
	now := s.nanos()
	oldest := int64(math.MaxInt64)
	keep := s.shards[:0]
	for _, sh := range s.shards {
		i := sh.recs.search(func(r *streamRec) bool { return r.seq >= seq })
		if i > 0 {
			for k := range i {
				if r := sh.recs.at(k); r.old.n != 0 {
					s.imgs.chunk(r.old).oldRefs--
				}
			}
			sh.trimmed = sh.recs.at(i-1).seq + 1
			sh.recs.dropFirst(i, &s.spare, s.maxSpare())
			s.total -= i
		}
		if sh.recs.len() > 0 && sh.recs.at(0).at < oldest {
			oldest = sh.recs.at(0).at
		}
		if sh.closed() && sh.recs.len() == 0 && now-sh.created > int64(s.opts.Retention) {
			continue // DynamoDB deletes shards 24 hours after they close
		}
		keep = append(keep, sh)
	}
	clear(s.shards[len(keep):])
	s.shards = keep
	if seq > s.horizon {
		s.horizon = seq
		s.imgs.free(seq)
		if s.live.n > 2*s.total+1024 {
			s.live.keep(s.imgs.has)
		}
	}
	s.checkTime = math.MaxInt64
	if oldest != math.MaxInt64 {
		s.checkTime = oldest + int64(s.opts.Retention)
	}
}

// maxSpare is the number of emptied record blocks s keeps for reuse:
// enough for the records a trim past MaxRecords removes at once, so that
// a full stream appends into reused blocks. The caller holds s.mu.
func (s *stream) maxSpare() int { return s.opts.MaxRecords/8/recBlockSize + 2 }

// shard returns the shard with id, nil if none; the caller holds s.mu.
func (s *stream) shard(id string) *shard {
	for _, sh := range s.shards {
		if sh.id == id {
			return sh
		}
	}
	return nil
}

// streamHook queues the stream record of a write to t (oldRec, the
// item's record before, and r, after; either may be nil) when t has a
// stream; the caller holds t.mu. Records are immutable once stored, so
// the queue holds the two records and the work of a stream record (the
// no-op check, the images, the shard) is done later, by apply: by a
// goroutine that a full batch starts, and by every reader of the stream
// before it reads (lockApplied), so that a reader sees every write
// acknowledged before it began, as it would if the writes had applied
// their records themselves. DynamoDB writes its stream records
// asynchronously too; what the queue saves is the writer's time.
func (t *table) streamHook(pk string, oldRec, r *record) {
	if oldRec == nil && r == nil {
		return // nothing deleted
	}
	s := t.stream
	w := pendingWrite{pk: pk, old: oldRec, new: r, at: s.nanos(), ttl: t.ttlDeleting}
	s.qmu.Lock()
	s.queue = append(s.queue, w)
	s.writes++
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
	n := len(s.queue)
	start := n >= applyBatch && !s.applying
	if start {
		s.applying = true
	}
	s.qmu.Unlock()
	switch {
	case n >= maxQueue:
		// Writers outrun the appliers: apply here, so that the queue,
		// and the records it holds on to, stay bounded.
		s.lockApplied()
		s.mu.Unlock()
	case start:
		go s.applyAll()
	}
}

// pendingWrite is a write whose stream record is not applied yet.
type pendingWrite struct {
	pk       string
	old, new *record
	at       int64 // Options.Now at the write, in Unix nanoseconds
	ttl      bool  // a deletion by the TTL sweep
}

// applyBatch is the number of queued writes that starts a goroutine to
// apply them: enough that starting it is a small part of their cost, and
// few enough that the records they hold on to stay a small part of the
// heap.
const applyBatch = 256

// maxQueue is the queue's bound: a writer that finds this many writes
// queued applies them itself before it returns.
const maxQueue = 8 * applyBatch

// applyAll applies the queued writes until the queue is empty; one runs
// at a time (s.applying).
func (s *stream) applyAll() {
	for {
		s.mu.Lock()
		s.apply()
		s.mu.Unlock()
		s.qmu.Lock()
		if len(s.queue) == 0 {
			s.applying = false
			s.qmu.Unlock()
			return
		}
		s.qmu.Unlock()
	}
}

// lockApplied locks s.mu and applies the queued writes, so that the
// caller sees the records of every write acknowledged before.
func (s *stream) lockApplied() {
	s.mu.Lock()
	s.apply()
}

// apply appends the records of the queued writes, in the order they were
// written; the caller holds s.mu, which orders the appliers.
func (s *stream) apply() {
	s.qmu.Lock()
	q := s.queue
	s.queue, s.spareQueue = s.spareQueue[:0], nil
	s.qmu.Unlock()
	for i := range q {
		s.appendRecord(&q[i])
	}
	clear(q) // the records may be garbage now
	s.qmu.Lock()
	if s.spareQueue == nil {
		s.spareQueue = q[:0]
	}
	s.qmu.Unlock()
}

// appendRecord appends the stream record of the write w when it changes
// the item; the caller holds s.mu.
//
// A write that changes nothing appends no record. To find those without
// comparing every write's items, the stream keeps beside each live image
// the content sum of its item (see contentSum): a write whose item's sum
// differs from the one it replaces changed it, and only equal sums are
// compared value by value (sameStored), as are items whose image the
// stream does not have.
func (s *stream) appendRecord(w *pendingWrite) {
	oldRec, r, now := w.old, w.new, w.at
	var sum uint64
	if r != nil {
		sum = contentSum(r.attrs)
	}
	if now >= s.checkTime || s.total > s.opts.MaxRecords+s.opts.MaxRecords/8 || now-s.open[0].created >= int64(s.opts.ShardAge) {
		s.maintain(now)
	}
	var oldRef imgRef
	var oldSum uint64
	haveOld := false
	if oldRec != nil {
		oldRef, oldSum, haveOld = s.takeLive(oldRec.attrs)
	}
	if oldRec != nil && r != nil && (!haveOld || oldSum == sum) && sameStored(oldRec, r) {
		// The encoding of the item is r's now.
		if haveOld {
			s.live.set(unsafe.SliceData(r.attrs), oldRef, sum)
		}
		return
	}
	kind := recModify
	switch {
	case oldRec == nil:
		kind = recInsert
	case r == nil:
		kind = recRemove
	}
	// Keep the images the view type shows, and one to take the keys
	// from; r is encoded whole when a later record may show it as its
	// old image.
	showOld := s.view == types.StreamViewTypeOldImage || s.view == types.StreamViewTypeNewAndOldImages
	keysOnly := s.view == types.StreamViewTypeKeysOnly
	needOld := oldRec != nil && (showOld || r == nil)
	needNew := r != nil && (s.view != types.StreamViewTypeOldImage || oldRec == nil)
	i := 0
	if len(s.open) > 1 {
		h := hashKey(w.pk)
		i = sort.Search(len(s.open), func(i int) bool { return s.open[i].hi >= h })
	}
	sh := s.open[i]
	if s.total == 0 {
		s.checkTime = now + int64(s.opts.Retention)
	}
	rec := streamRec{seq: s.next, at: now, kind: kind, ttl: w.ttl}
	if needOld {
		if !haveOld {
			oldRef = s.imgs.put(oldRec.attrs, !showOld, s.pk, s.sk, rec.seq)
		}
		rec.old = oldRef
		s.imgs.chunk(oldRef).oldRefs++
	}
	if r != nil {
		ref := s.imgs.put(r.attrs, keysOnly, s.pk, s.sk, rec.seq)
		if needNew {
			rec.new = ref
		}
		s.live.set(unsafe.SliceData(r.attrs), ref, sum)
	}
	sh.recs.push(rec, &s.spare)
	s.next++
	sh.n++
	s.total++
	if sh.n >= s.opts.ShardRecords {
		s.rollShard(i, now)
	}
}

// takeLive returns, and forgets, where s has the image of the item with
// the attribute list as, and its content sum, if it has it. The caller
// holds s.mu.
func (s *stream) takeLive(as []attr) (imgRef, uint64, bool) {
	ref, sum, ok := s.live.take(unsafe.SliceData(as))
	return ref, sum, ok && s.imgs.has(ref)
}

// contentSum returns a sum of the attributes as that does not depend on
// their order: items that sameStored finds equal have equal sums, so
// that unequal sums show a change without comparing the items. Each
// attribute adds a hash of its value and type, mixed with its name's
// length and end bytes; a long string or binary, or a set, list or map,
// adds its type and length instead of its value, which costs no pass
// over it (equal sums are checked by sameStored).
func contentSum(as []attr) uint64 {
	var sum uint64
	for _, a := range as {
		var v uint64
		switch x := a.v.(type) {
		case *types.AttributeValueMemberS:
			if len(x.Value) < longValue {
				v = shortHash(x.Value)
			} else {
				v = uint64(len(x.Value))<<8 | 1
			}
		case *types.AttributeValueMemberN:
			v = shortHash(x.Value) + 2
		case *types.AttributeValueMemberB:
			v = uint64(len(x.Value))<<8 | 3
		case *types.AttributeValueMemberBOOL:
			v = 4
			if x.Value {
				v = 5
			}
		case *types.AttributeValueMemberNULL:
			v = 6
		case *types.AttributeValueMemberSS:
			v = uint64(len(x.Value))<<8 | 7
		case *types.AttributeValueMemberNS:
			v = uint64(len(x.Value))<<8 | 8
		case *types.AttributeValueMemberBS:
			v = uint64(len(x.Value))<<8 | 9
		case *types.AttributeValueMemberL:
			v = uint64(len(x.Value))<<8 | 10
		case *types.AttributeValueMemberM:
			v = uint64(len(x.Value))<<8 | 11
		}
		// Mix in the name's length and end bytes (names are not empty),
		// so that values swapped between attributes change the sum; a
		// change of name alone is rare, and sameStored settles it.
		n := a.name
		h := (uint64(len(n))<<16|uint64(n[0])<<8|uint64(n[len(n)-1]))*0x9e37_79b9_7f4a_7c15 ^ v
		h ^= h >> 32
		h *= 0xd6e8_feb8_6659_fd93
		h ^= h >> 32
		sum += h
	}
	return sum
}

// shortHash hashes s (most often a few bytes: a name, a short value) for
// contentSum: a multiply-xor over 8-byte words, with overlapping loads
// for the last bytes instead of a loop over them.
func shortHash(s string) uint64 {
	const m = 0xa076_1d64_78bd_642f
	n := len(s)
	h := uint64(n) * m
	switch {
	case n >= 8:
		for i := 0; i+8 < n; i += 8 {
			h = (h ^ le64(s, i)) * m
			h ^= h >> 29
		}
		h ^= le64(s, n-8)
	case n >= 4:
		h ^= uint64(le32(s, 0))<<32 | uint64(le32(s, n-4))
	case n > 0:
		h ^= uint64(s[0])<<16 | uint64(s[n/2])<<8 | uint64(s[n-1])
	}
	h *= 0xe703_7ed1_a0b4_28db
	return h ^ h>>32
}

// le64 and le32 read s[i:] in little-endian order.
func le64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), len(s))[i:])
}

func le32(s string, i int) uint32 {
	return binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(s), len(s))[i:])
}

// longValue is the length from which sameStored compares a string
// attribute in its second pass.
const longValue = 64

// sameStored reports whether the records a and b hold the same
// attributes and values. Items of different sizes or attribute counts
// differ (stored numbers are canonical, so equal numbers have equal
// sizes). Otherwise it compares the short scalars first, where a change
// is most often found, and the long strings, sets, lists and maps after:
// scalars by their text, the rest by ddbexpr.Equal.
func sameStored(a, b *record) bool {
	if len(a.attrs) != len(b.attrs) || a.size != b.size {
		return false
	}
	long := false
	for _, at := range b.attrs {
		v, ok := a.item[at.name]
		if !ok {
			return false
		}
		switch y := at.v.(type) {
		case *types.AttributeValueMemberS:
			x, ok := v.(*types.AttributeValueMemberS)
			if !ok || len(x.Value) != len(y.Value) {
				return false
			}
			if len(y.Value) >= longValue {
				long = true
			} else if x.Value != y.Value {
				return false
			}
		case *types.AttributeValueMemberN:
			if x, ok := v.(*types.AttributeValueMemberN); !ok || x.Value != y.Value {
				return false
			}
		default:
			long = true
		}
	}
	if !long {
		return true
	}
	for _, at := range b.attrs {
		switch y := at.v.(type) {
		case *types.AttributeValueMemberS:
			if len(y.Value) >= longValue && a.item[at.name].(*types.AttributeValueMemberS).Value != y.Value {
				return false
			}
		case *types.AttributeValueMemberN:
		default:
			if !ddbexpr.Equal(a.item[at.name], at.v) {
				return false
			}
		}
	}
	return true
}

// RolloverStream closes every open shard of the stream of table and
// continues each in one child shard, as DynamoDB does every few hours;
// with split, each is continued by two children that split its range of
// partition-key hashes, as DynamoDB does under load. Tests use it to
// exercise shard lineage. It returns a *types.ResourceNotFoundException
// when there is no such table and a ValidationException when the table
// has no enabled stream.
func (db *DB) RolloverStream(table string, split bool) error {
	t, err := db.table(&table)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stream
	if s == nil {
		return validation("ddbmem: table " + table + " has no enabled stream")
	}
	s.lockApplied()
	s.rollover(split, s.now().UnixNano())
	s.mu.Unlock()
	return nil
}
