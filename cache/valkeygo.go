package cache

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/tablekit/tablekit/internal/glidex"
)

// Backend selects the client library a [Cache] built from addresses uses.
type Backend int

const (
	// BackendGlide is valkey-glide, the default.
	BackendGlide Backend = iota
	// BackendValkeyGo is github.com/valkey-io/valkey-go, the Valkey
	// project's pure-Go client: no cgo hop per command, auto-pipelining,
	// and the near cache ([NearOptions]).
	BackendValkeyGo
)

func (b Backend) String() string {
	switch b {
	case BackendGlide:
		return "glide"
	case BackendValkeyGo:
		return "valkeygo"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

func checkBackend(o Options) error {
	switch {
	case o.Backend != BackendGlide && o.Backend != BackendValkeyGo:
		return fmt.Errorf("%w: unknown %v", ErrInvalidOptions, o.Backend)
	case o.Near != nil && o.Backend != BackendValkeyGo:
		return fmt.Errorf("%w: the near cache needs BackendValkeyGo (glide delivers no invalidations to Go)", ErrInvalidOptions)
	case o.Near != nil && o.Conn != nil:
		return fmt.Errorf("%w: the near cache is built by New, not with a caller's Conn", ErrInvalidOptions)
	case o.Near != nil:
		_, err := o.Near.withDefaults()
		return err
	}
	return nil
}

// errDial marks a failure to build the valkey-go client (no server
// reachable, TLS handshake failed): a connection error, retried.
var errDial = errors.New("cache: valkey-go: connect failed")

// ValkeyGoOptions are the connection settings of [DialValkeyGo]; they
// mirror the connection fields of [Options].
type ValkeyGoOptions struct {
	Addresses          []string
	Cluster            bool
	DisableTLS         bool
	Username, Password string
	// RequestTimeout bounds each command (a shorter ctx deadline wins).
	// Zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ConnectTimeout bounds dialling (TCP and TLS). Zero means RequestTimeout.
	ConnectTimeout time.Duration
	// Near turns on the near cache for [Conn.Get]; nil means off.
	Near *NearOptions
}

// DialValkeyGo returns a [Conn] on valkey-go for o. Like the glide
// backend it connects lazily: a server that is down at start-up makes
// the first commands fail (with a connection error, so callers fail
// open), not DialValkeyGo. It returns ErrInvalidOptions (wrapped) for an
// empty address list, a malformed address or bad near cache bounds.
//
// A standalone connection uses one multiplexed TCP connection (valkey-go
// pipelines concurrent commands on it), so commands of one caller reach
// the server in the order they were sent, as with glide; valkeylock's
// Abandon relies on that. Share the Conn with valkeylock.New.
func DialValkeyGo(o ValkeyGoOptions) (Conn, error) {
	if len(o.Addresses) == 0 {
		return nil, fmt.Errorf("%w: no address", ErrInvalidOptions)
	}
	for _, a := range o.Addresses {
		if h, p, err := net.SplitHostPort(a); err != nil || h == "" || p == "" {
			return nil, fmt.Errorf("%w: %w: %q", ErrInvalidOptions, glidex.ErrBadAddress, a)
		}
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = o.RequestTimeout
	}
	opt := valkey.ClientOption{
		InitAddress:  o.Addresses,
		Username:     o.Username,
		Password:     o.Password,
		DisableCache: o.Near == nil,
		// The request timeout is enforced per command through the ctx;
		// this only bounds how long a dead connection goes unnoticed.
		ConnWriteTimeout: max(o.RequestTimeout, time.Second),
	}
	opt.Dialer.Timeout = o.ConnectTimeout
	if !o.DisableTLS {
		opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if !o.Cluster {
		opt.ForceSingleClient = true
		opt.PipelineMultiplex = -1 // one connection: per-caller order, as glide
	}
	v := &vgConn{opt: opt, cluster: o.Cluster, timeout: o.RequestTimeout, deadlines: newDeadlines(o.RequestTimeout)}
	if o.Near != nil {
		n, err := o.Near.withDefaults()
		if err != nil {
			return nil, err
		}
		v.near = newNearStore(n)
		v.opt.NewCacheStoreFn = v.near.newView
		v.nearTTL = n.TTL
	}
	return v, nil
}

// NewValkeyGoConn adapts a valkey-go client you built yourself to [Conn].
// Commands get no request timeout beyond the ctx's; the near cache is
// off. For valkeylock's Abandon ordering on a standalone server, build
// the client with PipelineMultiplex -1 (one connection), as
// [DialValkeyGo] does. Close closes c.
func NewValkeyGoConn(c valkey.Client) Conn {
	v := &vgConn{cluster: c.Mode() == valkey.ClientModeCluster}
	v.cl.Store(&vgBox{c: c})
	return v
}

type vgBox struct{ c valkey.Client }

var _ Conn = (*vgConn)(nil)

// vgConn is the valkey-go [Conn]. The client is built on first use and
// rebuilt after a failed dial, so a server that is down at start-up costs
// failed calls, not a failed constructor.
type vgConn struct {
	opt       valkey.ClientOption
	cluster   bool
	timeout   time.Duration // 0: none beyond the ctx
	deadlines *deadlines
	near      *nearStore
	nearTTL   time.Duration

	cl      atomic.Pointer[vgBox]
	mu      sync.Mutex // serialises dials; guards dialErr and dialAt
	dialErr error
	dialAt  time.Time
	closed  atomic.Bool
}

func (v *vgConn) client() (valkey.Client, error) {
	if v.closed.Load() {
		// valkey-go's cluster client may re-dial after Close: refuse here.
		return nil, valkey.ErrClosing
	}
	if b := v.cl.Load(); b != nil {
		return b.c, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if b := v.cl.Load(); b != nil {
		return b.c, nil
	}
	if v.closed.Load() {
		return nil, valkey.ErrClosing
	}
	if v.dialErr != nil && time.Since(v.dialAt) < redialDelay {
		// Callers that queued behind a failed dial share its failure
		// instead of dialling one after another.
		return nil, v.dialErr
	}
	c, err := valkey.NewClient(v.opt)
	if err != nil {
		v.dialErr, v.dialAt = fmt.Errorf("%w: %w", errDial, err), time.Now()
		return nil, v.dialErr
	}
	v.cl.Store(&vgBox{c: c})
	return c, nil
}

// redialDelay is how long a failed dial is the answer for later callers.
const redialDelay = 50 * time.Millisecond

func noCancel() {}

// ctx applies the request timeout unless ctx already ends sooner. A ctx
// that can never be cancelled (Background, WithoutCancel) gets a shared
// granule deadline (see deadlines) instead of a timer of its own.
func (v *vgConn) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if v.timeout <= 0 {
		return ctx, noCancel
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= v.timeout {
		return ctx, noCancel
	}
	if ctx.Done() == nil {
		return v.deadlines.ctx(ctx), noCancel
	}
	return context.WithTimeout(ctx, v.timeout)
}

// do runs one command built by mk.
func (v *vgConn) do(ctx context.Context, mk func(b valkey.Builder) valkey.Completed) vres {
	c, err := v.client()
	if err != nil {
		return vres{err: err}
	}
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	return vres{r: c.Do(ctx, mk(c.B()))}
}

// vres is a reply, or the error that kept the command from being sent.
type vres struct {
	r   valkey.ValkeyResult
	err error
}

func (x vres) Error() error {
	if x.err != nil {
		return x.err
	}
	return x.r.Error()
}

func (x vres) AsInt64() (int64, error) {
	if x.err != nil {
		return 0, x.err
	}
	return x.r.AsInt64()
}

func (x vres) AsFloat64() (float64, error) {
	if x.err != nil {
		return 0, x.err
	}
	return x.r.AsFloat64()
}

func (x vres) ToString() (string, error) {
	if x.err != nil {
		return "", x.err
	}
	return x.r.ToString()
}

func (x vres) AsStrMap() (map[string]string, error) {
	if x.err != nil {
		return nil, x.err
	}
	return x.r.AsStrMap()
}

func (x vres) AsStrSlice() ([]string, error) {
	if x.err != nil {
		return nil, x.err
	}
	return x.r.AsStrSlice()
}

func (x vres) AsZScores() ([]valkey.ZScore, error) {
	if x.err != nil {
		return nil, x.err
	}
	return x.r.AsZScores()
}

func (v *vgConn) Get(ctx context.Context, key string) (string, bool, error) {
	c, err := v.client()
	if err != nil {
		return "", false, err
	}
	if v.near != nil {
		if m, ok := v.near.peek(key); ok {
			return nilOK(m.ToString())
		}
	}
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	var r valkey.ValkeyResult
	if v.near != nil {
		r = c.DoCache(ctx, c.B().Get().Key(key).Cache(), v.nearTTL)
	} else {
		r = c.Do(ctx, c.B().Get().Key(key).Build())
	}
	s, err := r.ToString()
	if err != nil {
		if valkey.IsValkeyNil(err) {
			return "", false, nil
		}
		return "", false, err
	}
	return s, true, nil
}

// wrote is deferred by the writing methods: see nearStore.forget.
func (v *vgConn) wrote(keys ...string) {
	if v.near != nil {
		v.near.forget(keys)
	}
}

func (v *vgConn) Set(ctx context.Context, key, value string, ttl time.Duration) error {
	defer v.wrote(key)
	return v.do(ctx, func(b valkey.Builder) valkey.Completed {
		if ttl <= 0 {
			return b.Set().Key(key).Value(value).Build()
		}
		return b.Set().Key(key).Value(value).PxMilliseconds(max(ttl.Milliseconds(), 1)).Build()
	}).Error()
}

// Del deletes keys, one DEL per cluster slot in one pipelined batch.
func (v *vgConn) Del(ctx context.Context, keys []string) (int64, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	defer v.wrote(keys...)
	c, err := v.client()
	if err != nil {
		return 0, err
	}
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	var cmds valkey.Commands
	if !v.cluster {
		cmds = valkey.Commands{c.B().Del().Key(keys...).Build()}
	} else {
		bySlot := map[uint16][]string{}
		var order []uint16
		for _, k := range keys {
			s := keySlot(k)
			if _, ok := bySlot[s]; !ok {
				order = append(order, s)
			}
			bySlot[s] = append(bySlot[s], k)
		}
		for _, s := range order {
			cmds = append(cmds, c.B().Del().Key(bySlot[s]...).Build())
		}
	}
	var n int64
	for _, r := range c.DoMulti(ctx, cmds...) {
		m, err := r.AsInt64()
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

func (v *vgConn) PExpire(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	n, err := v.do(ctx, func(b valkey.Builder) valkey.Completed {
		return b.Pexpire().Key(key).Milliseconds(max(ttl.Milliseconds(), 1)).Build()
	}).AsInt64()
	return n == 1, err
}

func (v *vgConn) PTTL(ctx context.Context, key string) (int64, error) {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Pttl().Key(key).Build() }).AsInt64()
}

func (v *vgConn) HGetAll(ctx context.Context, key string) (map[string]string, error) {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Hgetall().Key(key).Build() }).AsStrMap()
}

func (v *vgConn) HSet(ctx context.Context, key string, fields map[string]string) error {
	defer v.wrote(key)
	return v.do(ctx, func(b valkey.Builder) valkey.Completed {
		fv := b.Hset().Key(key).FieldValue()
		for f, val := range fields {
			fv = fv.FieldValue(f, val)
		}
		return fv.Build()
	}).Error()
}

func (v *vgConn) HGet(ctx context.Context, key, field string) (string, bool, error) {
	return nilOK(v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Hget().Key(key).Field(field).Build() }).ToString())
}

func nilOK[T any](val T, err error) (T, bool, error) {
	if err != nil {
		var zero T
		if valkey.IsValkeyNil(err) {
			return zero, false, nil
		}
		return zero, false, err
	}
	return val, true, nil
}

func (v *vgConn) ZAdd(ctx context.Context, key string, members map[string]float64) error {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed {
		sm := b.Zadd().Key(key).ScoreMember()
		for m, s := range members {
			sm = sm.ScoreMember(s, m)
		}
		return sm.Build()
	}).Error()
}

func (v *vgConn) ZScore(ctx context.Context, key, member string) (float64, bool, error) {
	return nilOK(v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Zscore().Key(key).Member(member).Build() }).AsFloat64())
}

func zmembers(zs []valkey.ZScore, err error) ([]Member, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Member, len(zs))
	for i, z := range zs {
		out[i] = Member{Member: z.Member, Score: z.Score}
	}
	return out, nil
}

func (v *vgConn) ZRangeByRank(ctx context.Context, key string, start, stop int64, reverse bool) ([]Member, error) {
	return zmembers(v.do(ctx, func(b valkey.Builder) valkey.Completed {
		args := []string{"ZRANGE", key, fmt.Sprint(start), fmt.Sprint(stop)}
		if reverse {
			args = append(args, "REV")
		}
		return b.Arbitrary(args[0]).Keys(key).Args(append(args[2:], "WITHSCORES")...).Build()
	}).AsZScores())
}

func (v *vgConn) ZRangeByScore(ctx context.Context, key string, min, max float64, reverse bool) ([]Member, error) {
	lo, hi := fmtScore(min), fmtScore(max)
	return zmembers(v.do(ctx, func(b valkey.Builder) valkey.Completed {
		args := []string{lo, hi, "BYSCORE"}
		if reverse {
			args = []string{hi, lo, "BYSCORE", "REV"}
		}
		return b.Arbitrary("ZRANGE").Keys(key).Args(append(args, "WITHSCORES")...).Build()
	}).AsZScores())
}

func fmtScore(f float64) string {
	switch {
	case f > 1e308:
		return "+inf"
	case f < -1e308:
		return "-inf"
	}
	return fmt.Sprint(f)
}

func (v *vgConn) ZRank(ctx context.Context, key, member string, reverse bool) (int64, bool, error) {
	return nilOK(v.do(ctx, func(b valkey.Builder) valkey.Completed {
		if reverse {
			return b.Zrevrank().Key(key).Member(member).Build()
		}
		return b.Zrank().Key(key).Member(member).Build()
	}).AsInt64())
}

func (v *vgConn) ZRem(ctx context.Context, key string, members []string) (int64, error) {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Zrem().Key(key).Member(members...).Build() }).AsInt64()
}

func (v *vgConn) SAdd(ctx context.Context, key string, members []string) (int64, error) {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Sadd().Key(key).Member(members...).Build() }).AsInt64()
}

func (v *vgConn) SRem(ctx context.Context, key string, members []string) (int64, error) {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Srem().Key(key).Member(members...).Build() }).AsInt64()
}

func (v *vgConn) SMembers(ctx context.Context, key string) ([]string, error) {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Smembers().Key(key).Build() }).AsStrSlice()
}

func (v *vgConn) SIsMember(ctx context.Context, key, member string) (bool, error) {
	n, err := v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Sismember().Key(key).Member(member).Build() }).AsInt64()
	return n == 1, err
}

// errCrossSlot is returned by Eval on a cluster for keys of several slots
// (valkey-go would panic building such a command).
var errCrossSlot = errors.New("CROSSSLOT Keys in request don't hash to the same slot")

// Eval runs s with EVALSHA, and with EVAL when the server answers
// NOSCRIPT (first use, or a restarted server); EVAL also caches the
// script for the next EVALSHA.
func (v *vgConn) Eval(ctx context.Context, s *Script, keys, args []string) (any, error) {
	if v.cluster && len(keys) > 1 {
		s0 := keySlot(keys[0])
		for _, k := range keys[1:] {
			if keySlot(k) != s0 {
				return nil, serverError{errCrossSlot}
			}
		}
	}
	c, err := v.client()
	if err != nil {
		return nil, err
	}
	defer v.wrote(keys...)
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	r := c.Do(ctx, c.B().Evalsha().Sha1(s.SHA()).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
	if ve, ok := valkey.IsValkeyErr(r.Error()); ok && ve.IsNoScript() {
		r = c.Do(ctx, c.B().Eval().Script(s.Source()).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
	}
	return resultAny(r)
}

// resultAny turns a reply into the Go values glide returns: nil, string,
// int64, float64, bool, []any, map[string]any; error replies nested in an
// array become error values.
func resultAny(r valkey.ValkeyResult) (any, error) {
	if err := r.NonValkeyError(); err != nil {
		return nil, err
	}
	m, err := r.ToMessage()
	if err != nil {
		if valkey.IsValkeyNil(err) {
			return nil, nil
		}
		return nil, err
	}
	return m.ToAny()
}

// Pipeline sends cmds in one batch. Each command's key, for cluster
// routing, is its second word (true of every command tablekit pipelines).
func (v *vgConn) Pipeline(ctx context.Context, cmds [][]string) ([]any, error) {
	c, err := v.client()
	if err != nil {
		return nil, err
	}
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	built := make(valkey.Commands, len(cmds))
	for i, cmd := range cmds {
		a := c.B().Arbitrary(cmd[0])
		if len(cmd) > 1 {
			a = a.Keys(cmd[1]).Args(cmd[2:]...)
			defer v.wrote(cmd[1])
		}
		built[i] = a.Build()
	}
	out := make([]any, len(cmds))
	for i, r := range c.DoMulti(ctx, built...) {
		if err := r.NonValkeyError(); err != nil {
			return nil, err
		}
		val, err := resultAny(r)
		if err != nil {
			out[i] = err
			continue
		}
		out[i] = val
	}
	return out, nil
}

// Atomic implements [Atomic]: MULTI, cmds and EXEC in one DoMulti, which
// valkey-go writes together on one connection and never retries.
func (v *vgConn) Atomic(ctx context.Context, cmds [][]string) ([]any, error) {
	c, err := v.client()
	if err != nil {
		return nil, err
	}
	if v.cluster && len(cmds) > 1 {
		s0 := keySlot(cmds[0][1])
		for _, cmd := range cmds[1:] {
			if len(cmd) > 1 && keySlot(cmd[1]) != s0 {
				return nil, serverError{errCrossSlot}
			}
		}
	}
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	built := make(valkey.Commands, 0, len(cmds)+2) // MULTI, cmds, EXEC
	built = append(built, c.B().Multi().Build())
	for _, cmd := range cmds {
		a := c.B().Arbitrary(cmd[0])
		if len(cmd) > 1 {
			a = a.Keys(cmd[1]).Args(cmd[2:]...)
		}
		built = append(built, a.Build())
	}
	built = append(built, c.B().Exec().Build())
	rs := c.DoMulti(ctx, built...)
	if v.near != nil {
		for _, cmd := range cmds {
			if len(cmd) > 1 {
				v.wrote(cmd[1])
			}
		}
	}
	for _, r := range rs {
		if err := r.NonValkeyError(); err != nil {
			return nil, err
		}
	}
	// A command refused while queueing (a syntax error) aborts EXEC,
	// which then answers EXECABORT: report the first refusal.
	for _, r := range rs[1 : len(rs)-1] {
		if err := r.Error(); err != nil {
			return nil, serverError{err}
		}
	}
	val, err := resultAny(rs[len(rs)-1])
	if err != nil {
		return nil, err
	}
	out, ok := val.([]any)
	if !ok {
		return nil, fmt.Errorf("cache: unexpected EXEC reply %T", val)
	}
	return out, nil
}

func (v *vgConn) Ping(ctx context.Context) error {
	return v.do(ctx, func(b valkey.Builder) valkey.Completed { return b.Ping().Build() }).Error()
}

func (v *vgConn) Info(ctx context.Context) (map[string]string, error) {
	c, err := v.client()
	if err != nil {
		return nil, err
	}
	ctx, cancel := v.ctx(ctx)
	defer cancel()
	if !v.cluster {
		s, err := c.Do(ctx, c.B().Info().Build()).ToString()
		if err != nil {
			return nil, err
		}
		return map[string]string{"": s}, nil
	}
	out := map[string]string{}
	for addr, n := range c.Nodes() {
		s, err := n.Do(ctx, n.B().Info().Build()).ToString()
		if err != nil {
			return nil, err
		}
		out[addr] = s
	}
	return out, nil
}

func (v *vgConn) Close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed.Store(true)
	if b := v.cl.Load(); b != nil {
		b.c.Close()
	}
}

// serverError marks an error found before sending that the server would
// have answered (CROSSSLOT).
type serverError struct{ error }

func (e serverError) Unwrap() error { return e.error }

// classify sorts an error from either backend into a glidex.Kind.
func classify(err error) glidex.Kind {
	if err == nil {
		return glidex.OK
	}
	var (
		se serverError
		ne net.Error
		ve *valkey.ValkeyError
	)
	switch {
	case errors.As(err, &se):
		return glidex.Server
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return glidex.Timeout
	case errors.Is(err, errDial), errors.Is(err, valkey.ErrClosing), errors.Is(err, valkey.ErrNoAddr),
		errors.Is(err, valkey.ErrDoCacheAborted), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed):
		return glidex.Connection
	case errors.As(err, &ne):
		if ne.Timeout() {
			return glidex.Timeout
		}
		return glidex.Connection
	case errors.As(err, &ve):
		msg := ve.Error()
		for _, p := range []string{"CLUSTERDOWN", "LOADING", "TRYAGAIN", "MASTERDOWN"} {
			if strings.HasPrefix(msg, p) {
				return glidex.Connection
			}
		}
		return glidex.Server
	}
	return glidex.Classify(err)
}

// keySlot is the cluster slot of key: CRC16 (XMODEM) of the key, or of
// its hash tag, modulo 16384.
func keySlot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc & 16383
}
