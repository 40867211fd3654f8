// Package lease shares work between processes: named leases, grouped by a
// job or stream name, each owned by one worker at a time under a fencing
// number, with a checkpoint that only the current owner can write.
//
// It is tablekit's one lease mechanism (the segments of a live-table job in
// package evolve, the shards of a change feed). It builds on what package
// lock's DynamoDB backend proves (one item per lease, every write
// conditional, a record version number that lets a contender tell a dead
// holder from a live one without trusting any clock but its own) and adds
// what shared work needs: a checkpoint and counters, a done flag, and a
// listing of a group so that workers discover work and take over a dead
// owner's lease at its last checkpoint.
//
// # The lease item
//
// Lease name of group g lives in the item PK = Options.Prefix+g, SK = name
// (PK "LEASE#g" by default), in the application's table or one the user
// names. Its attributes:
//
//	owner      the holder's name (Options.Owner); absent while free
//	token      the holder's random token, new on every acquisition
//	rvn        record version number, new on every write of the holder
//	leaseMs    the holder's lease duration in milliseconds
//	expiresAt  holder's wall clock at its last write + lease, Unix ms
//	fence      the fencing number, ADD 1 on every acquisition
//	pos        the checkpoint's position (opaque to this package)
//	counts     the checkpoint's counters (a map of numbers)
//	done       true once the work of the lease is finished
//	Type       "LEASE" (so a scan of the table can tell lease items apart)
//
// Items are never deleted by this package: they carry the fence counter.
//
// # Fencing
//
// Every acquisition adds 1 to fence, so fencing numbers strictly increase
// on every change of owner. [Lease.Checkpoint], [Lease.Renew], [Lease.Finish]
// and [Lease.Release] are conditioned on the holder's token and fence: a
// holder that was deposed (paused past its lease, then taken over) gets
// [ErrLost] (as a [*LostError] carrying the current owner and fence) and
// writes nothing. Pass [Lease.Fence] on to the writes the work itself does
// when they must be fenced too (see lock.FenceCondition).
//
// # Takeover
//
// [SkewSafe] (the default) trusts only the contender's monotonic clock:
// a contender that finds a lease held notes its rvn; if the rvn is
// unchanged one full leaseMs later, the holder did not renew within its
// own lease and the contender takes the lease over with a write
// conditioned on that rvn. The observations are kept in the [Manager], so
// a worker that polls ([Manager.List], [Manager.Acquire], [Manager.Next])
// takes over a dead owner's lease about one lease duration after it died.
// [FastTakeover] instead compares expiresAt with the contender's wall
// clock plus [Options.SkewMargin]; it is safe only while clocks agree to
// within that margin.
package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// Sentinel errors. Check them with errors.Is.
var (
	// ErrHeld is returned by [Manager.Acquire] when another owner holds
	// the lease and it is not (yet) known to be stale.
	ErrHeld = errors.New("lease: held by another owner")
	// ErrDone is returned by [Manager.Acquire] for a finished lease.
	ErrDone = errors.New("lease: done")
	// ErrNoneFree is returned by [Manager.Next] when no lease of the
	// group could be acquired now (all held, or all done: see
	// [Manager.AllDone]).
	ErrNoneFree = errors.New("lease: none free")
	// ErrLost is returned by the writes of a [Lease] whose holder was
	// deposed or that was released; it comes as a [*LostError].
	ErrLost = errors.New("lease: lost")
	// ErrInvalid is returned, before any I/O, for bad options, an empty
	// group or name, or a negative duration.
	ErrInvalid = errors.New("lease: invalid")
)

// LostError is the error of a write by a holder that no longer holds its
// lease. It matches [ErrLost] and entity.ErrConditionFailed.
type LostError struct {
	Group, Name string
	// Fence is the holder's fencing number.
	Fence int64
	// CurrentOwner and CurrentFence describe the lease as the failed
	// write found it (owner "" when free).
	CurrentOwner string
	CurrentFence int64
	// Done reports that the lease was found finished.
	Done bool
}

func (e *LostError) Error() string {
	return fmt.Sprintf("lease: %s/%s lost by fence %d (now owner %q, fence %d, done %v)",
		e.Group, e.Name, e.Fence, e.CurrentOwner, e.CurrentFence, e.Done)
}

// Unwrap makes a LostError match ErrLost and entity.ErrConditionFailed.
func (e *LostError) Unwrap() []error { return []error{ErrLost, entity.ErrConditionFailed} }

// Mode selects how a contender decides that a held lease is stale.
type Mode int

const (
	// SkewSafe waits one full lease while watching the record version.
	// The default.
	SkewSafe Mode = iota
	// FastTakeover takes a lease over once expiresAt + SkewMargin lies in
	// the past of the contender's wall clock.
	FastTakeover
)

// Attribute names of the lease item.
const (
	AttrOwner     = "owner"
	AttrToken     = "token"
	AttrVersion   = "rvn"
	AttrLease     = "leaseMs"
	AttrExpiresAt = "expiresAt"
	AttrFence     = "fence"
	AttrPosition  = "pos"
	AttrCounts    = "counts"
	AttrDone      = "done"
	AttrType      = "Type"
	// TypeValue is the value of the Type attribute of every lease item.
	TypeValue = "LEASE"
)

// Options configure a [Manager].
type Options struct {
	// Table is the table of the lease items. Required.
	Table string
	// PartitionKey and SortKey name the table's key attributes. Default
	// "PK" and "SK"; both must be strings.
	PartitionKey, SortKey string
	// Prefix starts the partition key of a group's items. Default "LEASE#".
	Prefix string
	// Owner names this worker in the lease items. Default host:pid.
	Owner string
	// Duration is the lease duration: a holder that does not renew for
	// that long may be taken over. Default 10 s.
	Duration time.Duration
	// Heartbeat is the renewal interval of an acquired lease. Default
	// Duration/3. A checkpoint renews the lease too.
	Heartbeat time.Duration
	// Mode is the takeover mode. Default SkewSafe.
	Mode Mode
	// SkewMargin is the clock difference FastTakeover tolerates. Default 5 s.
	SkewMargin time.Duration
}

// Manager acquires and lists leases. It is safe for concurrent use; keep
// one per process and table, as it remembers the versions it observed
// (for SkewSafe takeover).
type Manager struct {
	c entity.Client
	o Options

	mu  sync.Mutex
	obs map[[2]string]observation
}

type observation struct {
	rvn    string
	seenAt time.Time // monotonic
	lease  time.Duration
}

// New returns a Manager on c. It returns an error wrapping [ErrInvalid]
// when c is nil, Table is empty or a duration is negative.
func New(c entity.Client, optFns ...func(*Options)) (*Manager, error) {
	o := Options{PartitionKey: "PK", SortKey: "SK", Prefix: "LEASE#", Duration: 10 * time.Second, SkewMargin: 5 * time.Second}
	for _, fn := range optFns {
		fn(&o)
	}
	switch {
	case c == nil:
		return nil, fmt.Errorf("%w: nil client", ErrInvalid)
	case o.Table == "":
		return nil, fmt.Errorf("%w: no table", ErrInvalid)
	case o.PartitionKey == "" || o.SortKey == "" || o.Prefix == "":
		return nil, fmt.Errorf("%w: empty key attribute or prefix", ErrInvalid)
	case o.Duration <= 0 || o.Heartbeat < 0 || o.SkewMargin < 0:
		return nil, fmt.Errorf("%w: durations must be positive", ErrInvalid)
	case o.Mode != SkewSafe && o.Mode != FastTakeover:
		return nil, fmt.Errorf("%w: unknown mode %d", ErrInvalid, o.Mode)
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = o.Duration / 3
	}
	if o.Owner == "" {
		h, _ := os.Hostname()
		o.Owner = h + ":" + strconv.Itoa(os.Getpid())
	}
	return &Manager{c: c, o: o, obs: map[[2]string]observation{}}, nil
}

// Options returns the Manager's options with defaults applied.
func (m *Manager) Options() Options { return m.o }

// Checkpoint is the position a lease's work reached and its counters.
type Checkpoint struct {
	// Position is opaque to this package ("" at the start).
	Position string
	// Counts are the work's counters (items scanned, changed...).
	Counts map[string]int64
}

// Info is a lease as [Manager.List] read it.
type Info struct {
	Group, Name string
	// Owner is the holder's name; "" when free.
	Owner string
	// Fence is the fencing number of the last acquisition (0: never held).
	Fence int64
	// ExpiresAt is the holder's wall clock at its last write plus its
	// lease duration.
	ExpiresAt time.Time
	// Stale reports that this Manager may take the lease over now.
	Stale bool
	Done  bool
	Checkpoint
}

func (m *Manager) key(group, name string) (map[string]types.AttributeValue, error) {
	if group == "" || name == "" {
		return nil, fmt.Errorf("%w: empty group or name", ErrInvalid)
	}
	return map[string]types.AttributeValue{m.o.PartitionKey: s(m.o.Prefix + group), m.o.SortKey: s(name)}, nil
}

// Create makes sure the leases names of group exist (free, at fence 0),
// leaving existing ones as they are. Creating them up front lets
// [Manager.List] and [Manager.Next] see all the work of a group.
func (m *Manager) Create(ctx context.Context, group string, names ...string) error {
	for _, name := range names {
		k, err := m.key(group, name)
		if err != nil {
			return err
		}
		_, err = m.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(m.o.Table),
			Key:                       k,
			UpdateExpression:          aws.String("SET #ty = :ty, #f = if_not_exists(#f, :zero)"),
			ExpressionAttributeNames:  map[string]string{"#ty": AttrType, "#f": AttrFence},
			ExpressionAttributeValues: map[string]types.AttributeValue{":ty": s(TypeValue), ":zero": n(0)},
		})
		if err != nil {
			return fmt.Errorf("lease: create %s/%s: %w", group, name, err)
		}
	}
	return nil
}

// List returns the leases of group in name order, read consistently. It
// also records the versions it saw, so that a later Acquire may take over
// a lease whose holder stopped renewing ([Info.Stale]).
func (m *Manager) List(ctx context.Context, group string) ([]Info, error) {
	if group == "" {
		return nil, fmt.Errorf("%w: empty group", ErrInvalid)
	}
	var out []Info
	var start map[string]types.AttributeValue
	for {
		res, err := m.c.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(m.o.Table),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": m.o.PartitionKey},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(m.o.Prefix + group)},
			ConsistentRead:            aws.Bool(true),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("lease: list %s: %w", group, err)
		}
		now := time.Now()
		for _, it := range res.Items {
			name := str(it, m.o.SortKey)
			out = append(out, m.info(group, name, it, now))
		}
		if len(res.LastEvaluatedKey) == 0 {
			break
		}
		start = res.LastEvaluatedKey
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// AllDone reports whether group has leases and every one is done.
func (m *Manager) AllDone(ctx context.Context, group string) (bool, error) {
	ls, err := m.List(ctx, group)
	if err != nil {
		return false, err
	}
	for _, l := range ls {
		if !l.Done {
			return false, nil
		}
	}
	return len(ls) > 0, nil
}

func (m *Manager) info(group, name string, it map[string]types.AttributeValue, now time.Time) Info {
	in := Info{Group: group, Name: name, Owner: str(it, AttrOwner), Fence: num(it, AttrFence), Done: boolean(it, AttrDone),
		Checkpoint: readCheckpoint(it)}
	if e := num(it, AttrExpiresAt); e != 0 {
		in.ExpiresAt = time.UnixMilli(e)
	}
	if in.Owner != "" {
		in.Stale = m.observe(group, name, it, now)
	}
	return in
}

// observe records the version of a held lease and reports whether it is
// stale by the Manager's mode.
func (m *Manager) observe(group, name string, it map[string]types.AttributeValue, now time.Time) bool {
	if m.o.Mode == FastTakeover {
		e := num(it, AttrExpiresAt)
		return e != 0 && e < now.Add(-m.o.SkewMargin).UnixMilli()
	}
	rv := str(it, AttrVersion)
	k := [2]string{group, name}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.obs[k]
	if !ok || o.rvn != rv {
		d := time.Duration(num(it, AttrLease)) * time.Millisecond
		if d <= 0 {
			d = m.o.Duration
		}
		m.obs[k] = observation{rvn: rv, seenAt: now, lease: d}
		return false
	}
	return now.Sub(o.seenAt) >= o.lease
}

func (m *Manager) staleVersion(group, name string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.obs[[2]string{group, name}]
	if !ok || time.Since(o.seenAt) < o.lease {
		return "", false
	}
	return o.rvn, true
}

// Acquire takes lease name of group for this Manager's owner when it is
// free, or when its holder stopped renewing (see the package doc on
// takeover). The lease is then renewed in the background every
// Options.Heartbeat until [Lease.Release] or [Lease.Finish], or until ctx
// ends. [Lease.Start] is where the previous owner's checkpoint left the
// work.
//
// Errors: [ErrHeld] (held and not known to be stale: retry later, a
// held lease becomes stale one lease duration after its holder's last
// write was first observed), [ErrDone], [ErrInvalid], or the client's.
func (m *Manager) Acquire(ctx context.Context, group, name string) (*Lease, error) {
	k, err := m.key(group, name)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	token, rvn := random(), random()
	nm := map[string]string{"#o": AttrOwner, "#t": AttrToken, "#r": AttrVersion, "#l": AttrLease, "#e": AttrExpiresAt,
		"#f": AttrFence, "#d": AttrDone, "#ty": AttrType}
	vals := map[string]types.AttributeValue{
		":o": s(m.o.Owner), ":t": s(token), ":r": s(rvn), ":l": n(m.o.Duration.Milliseconds()),
		":e": n(now.Add(m.o.Duration).UnixMilli()), ":one": n(1), ":ty": s(TypeValue), ":true": &types.AttributeValueMemberBOOL{Value: true},
	}
	free := "attribute_not_exists(#o)"
	switch m.o.Mode {
	case FastTakeover:
		free += " OR #e < :cut"
		vals[":cut"] = n(now.Add(-m.o.SkewMargin).UnixMilli())
	default:
		if v, ok := m.staleVersion(group, name); ok {
			free += " OR #r = :obs"
			vals[":obs"] = s(v)
		}
	}
	out, err := m.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(m.o.Table),
		Key:                                 k,
		UpdateExpression:                    aws.String("SET #o = :o, #t = :t, #r = :r, #l = :l, #e = :e, #ty = :ty ADD #f :one"),
		ConditionExpression:                 aws.String("(" + free + ") AND (attribute_not_exists(#d) OR #d <> :true)"),
		ExpressionAttributeNames:            nm,
		ExpressionAttributeValues:           vals,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if ccf, ok := conditionFailed(err); ok {
		if str(ccf.Item, AttrToken) == token { // an SDK retry of our own write
			return m.start(ctx, group, name, k, token, ccf.Item, now), nil
		}
		if boolean(ccf.Item, AttrDone) {
			return nil, fmt.Errorf("%w: %s/%s", ErrDone, group, name)
		}
		m.observe(group, name, ccf.Item, time.Now())
		return nil, fmt.Errorf("%w: %s/%s by %q (fence %d)", ErrHeld, group, name, str(ccf.Item, AttrOwner), num(ccf.Item, AttrFence))
	}
	if err != nil {
		return nil, fmt.Errorf("lease: acquire %s/%s: %w", group, name, err)
	}
	return m.start(ctx, group, name, k, token, out.Attributes, now), nil
}

// Next acquires the first lease of group (in name order) that is free or
// stale and not done. It returns [ErrNoneFree] when there is none now.
func (m *Manager) Next(ctx context.Context, group string) (*Lease, error) {
	ls, err := m.List(ctx, group)
	if err != nil {
		return nil, err
	}
	for _, in := range ls {
		if in.Done || (in.Owner != "" && !in.Stale) {
			continue
		}
		l, err := m.Acquire(ctx, group, in.Name)
		if errors.Is(err, ErrHeld) || errors.Is(err, ErrDone) {
			continue
		}
		return l, err
	}
	return nil, fmt.Errorf("%w: %s", ErrNoneFree, group)
}

func (m *Manager) start(ctx context.Context, group, name string, k map[string]types.AttributeValue, token string,
	it map[string]types.AttributeValue, sent time.Time) *Lease {
	l := &Lease{m: m, group: group, name: name, key: k, token: token, fence: num(it, AttrFence),
		start: readCheckpoint(it), lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	l.validUntil = sent.Add(m.o.Duration)
	go l.heartbeat(ctx)
	return l
}

// Lease is an acquired lease. Its methods are safe for concurrent use.
type Lease struct {
	m           *Manager
	group, name string
	key         map[string]types.AttributeValue
	token       string
	fence       int64
	start       Checkpoint

	mu         sync.Mutex
	validUntil time.Time // monotonic: send time of the last confirmed write + Duration
	ended      bool
	lostErr    error
	lost       chan struct{}
	stop       chan struct{}
	done       chan struct{}
	stopOnce   sync.Once
}

// Group and Name identify the lease.
func (l *Lease) Group() string { return l.group }

// Name is the lease's name within its group.
func (l *Lease) Name() string { return l.name }

// Fence is this holder's fencing number: greater than every earlier
// holder's.
func (l *Lease) Fence() int64 { return l.fence }

// Start is the checkpoint the lease held when it was acquired: where the
// previous owner's work stopped (zero for fresh work).
func (l *Lease) Start() Checkpoint { return l.start }

// Lost is closed when the holder learns that it lost the lease (a write
// was refused, or no renewal landed within the lease duration). The work
// of the lease must stop then.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Valid reports whether the lease is still held by this holder's own
// reckoning: not lost, not ended, and a renewal landed within the last
// lease duration.
func (l *Lease) Valid() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.ended && l.lostErr == nil && time.Now().Before(l.validUntil)
}

func (l *Lease) heartbeat(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.m.o.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := l.Renew(ctx)
		if errors.Is(err, ErrLost) {
			return
		}
		l.mu.Lock()
		expired := time.Now().After(l.validUntil)
		l.mu.Unlock()
		if expired {
			l.markLost(fmt.Errorf("%w: %s/%s: no renewal within the lease (last error: %v)", ErrLost, l.group, l.name, err))
			return
		}
	}
}

func (l *Lease) markLost(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr == nil {
		l.lostErr = err
		close(l.lost)
	}
}

// write runs a conditional update on the holder's token and fence.
func (l *Lease) write(ctx context.Context, update string, names map[string]string, vals map[string]types.AttributeValue) error {
	l.mu.Lock()
	if l.lostErr != nil {
		err := l.lostErr
		l.mu.Unlock()
		return err
	}
	if l.ended {
		l.mu.Unlock()
		return &LostError{Group: l.group, Name: l.name, Fence: l.fence}
	}
	l.mu.Unlock()
	sent := time.Now()
	names["#t"], names["#f"] = AttrToken, AttrFence
	vals[":tok"], vals[":fence"] = s(l.token), n(l.fence)
	_, err := l.m.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(l.m.o.Table),
		Key:                                 l.key,
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String("#t = :tok AND #f = :fence"),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           vals,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if ccf, ok := conditionFailed(err); ok {
		le := &LostError{Group: l.group, Name: l.name, Fence: l.fence, CurrentOwner: str(ccf.Item, AttrOwner),
			CurrentFence: num(ccf.Item, AttrFence), Done: boolean(ccf.Item, AttrDone)}
		l.markLost(le)
		return le
	}
	if err != nil {
		return fmt.Errorf("lease: %s/%s: %w", l.group, l.name, err)
	}
	l.mu.Lock()
	if v := sent.Add(l.m.o.Duration); v.After(l.validUntil) {
		l.validUntil = v
	}
	l.mu.Unlock()
	return nil
}

func (l *Lease) renewal(names map[string]string, vals map[string]types.AttributeValue) string {
	names["#r"], names["#e"], names["#l"] = AttrVersion, AttrExpiresAt, AttrLease
	vals[":r"], vals[":e"], vals[":l"] = s(random()), n(time.Now().Add(l.m.o.Duration).UnixMilli()), n(l.m.o.Duration.Milliseconds())
	return "SET #r = :r, #e = :e, #l = :l"
}

// Renew extends the lease by one duration (the heartbeat calls it).
// Errors: [*LostError] (matching [ErrLost]) when the lease was taken over
// or ended, or the client's error.
func (l *Lease) Renew(ctx context.Context) error {
	names, vals := map[string]string{}, map[string]types.AttributeValue{}
	return l.write(ctx, l.renewal(names, vals), names, vals)
}

// Checkpoint records cp on the lease, on the condition that this holder
// still holds it with its fence, and renews the lease. A deposed holder's
// checkpoint fails with a [*LostError] (matching [ErrLost]) and writes
// nothing.
func (l *Lease) Checkpoint(ctx context.Context, cp Checkpoint) error {
	names, vals := map[string]string{}, map[string]types.AttributeValue{}
	upd := l.renewal(names, vals) + ", #p = :p, #c = :c"
	names["#p"], names["#c"] = AttrPosition, AttrCounts
	vals[":p"], vals[":c"] = s(cp.Position), counts(cp.Counts)
	return l.write(ctx, upd, names, vals)
}

// Finish records cp, marks the lease done and frees it: nobody acquires
// it again. Errors as [Lease.Checkpoint].
func (l *Lease) Finish(ctx context.Context, cp Checkpoint) error {
	names := map[string]string{"#p": AttrPosition, "#c": AttrCounts, "#d": AttrDone, "#o": AttrOwner, "#e": AttrExpiresAt, "#r": AttrVersion}
	vals := map[string]types.AttributeValue{":p": s(cp.Position), ":c": counts(cp.Counts), ":true": &types.AttributeValueMemberBOOL{Value: true}, ":r": s(random())}
	err := l.write(ctx, "SET #p = :p, #c = :c, #d = :true, #r = :r REMOVE #o, #e", names, vals)
	l.end(err)
	return err
}

// Release frees the lease, keeping its checkpoint, so that another worker
// (or this one) may acquire it and go on from there. Errors as
// [Lease.Checkpoint].
func (l *Lease) Release(ctx context.Context) error {
	names := map[string]string{"#o": AttrOwner, "#e": AttrExpiresAt, "#r": AttrVersion}
	err := l.write(ctx, "SET #r = :r REMOVE #o, #e", names, map[string]types.AttributeValue{":r": s(random())})
	l.end(err)
	return err
}

func (l *Lease) end(err error) {
	l.stopOnce.Do(func() { close(l.stop) })
	if err == nil {
		l.mu.Lock()
		l.ended = true
		l.mu.Unlock()
	}
}

func readCheckpoint(it map[string]types.AttributeValue) Checkpoint {
	cp := Checkpoint{Position: str(it, AttrPosition)}
	if m, ok := it[AttrCounts].(*types.AttributeValueMemberM); ok {
		cp.Counts = make(map[string]int64, len(m.Value))
		for k, v := range m.Value {
			if nv, ok := v.(*types.AttributeValueMemberN); ok {
				cp.Counts[k], _ = strconv.ParseInt(nv.Value, 10, 64)
			}
		}
	}
	return cp
}

func counts(c map[string]int64) types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(c))
	for k, v := range c {
		m[k] = n(v)
	}
	return &types.AttributeValueMemberM{Value: m}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func str(it map[string]types.AttributeValue, a string) string {
	v, _ := it[a].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func num(it map[string]types.AttributeValue, a string) int64 {
	v, _ := it[a].(*types.AttributeValueMemberN)
	if v == nil {
		return 0
	}
	x, _ := strconv.ParseInt(v.Value, 10, 64)
	return x
}

func boolean(it map[string]types.AttributeValue, a string) bool {
	v, _ := it[a].(*types.AttributeValueMemberBOOL)
	return v != nil && v.Value
}

func random() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func conditionFailed(err error) (*types.ConditionalCheckFailedException, bool) {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf, true
	}
	return nil, false
}
