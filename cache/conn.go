package cache

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"sync"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/models"
	"github.com/valkey-io/valkey-glide/go/v2/options"
	"github.com/valkey-io/valkey-glide/go/v2/pipeline"
)

// Conn is the narrow set of server operations the cache uses. [New]
// builds the glide or the valkey-go implementation (Options.Backend);
// lock/valkeylock runs on a Conn too; unit tests may pass a fake through
// [Options].Conn. Keys reaching a Conn are full (namespaced)
// keys. A missing key is reported with ok == false, never as an error.
type Conn interface {
	Get(ctx context.Context, key string) (val string, ok bool, err error)
	// Set stores value; ttl <= 0 means no expiry.
	Set(ctx context.Context, key, value string, ttl time.Duration) error
	Del(ctx context.Context, keys []string) (int64, error)
	PExpire(ctx context.Context, key string, ttl time.Duration) (bool, error)
	// PTTL returns the remaining TTL in milliseconds: -2 for a missing
	// key, -1 for a key without expiry.
	PTTL(ctx context.Context, key string) (int64, error)
	HGetAll(ctx context.Context, key string) (map[string]string, error)
	HSet(ctx context.Context, key string, fields map[string]string) error
	HGet(ctx context.Context, key, field string) (string, bool, error)
	ZAdd(ctx context.Context, key string, members map[string]float64) error
	ZScore(ctx context.Context, key, member string) (float64, bool, error)
	ZRangeByRank(ctx context.Context, key string, start, stop int64, reverse bool) ([]Member, error)
	ZRangeByScore(ctx context.Context, key string, min, max float64, reverse bool) ([]Member, error)
	ZRank(ctx context.Context, key, member string, reverse bool) (int64, bool, error)
	ZRem(ctx context.Context, key string, members []string) (int64, error)
	SAdd(ctx context.Context, key string, members []string) (int64, error)
	SRem(ctx context.Context, key string, members []string) (int64, error)
	SMembers(ctx context.Context, key string) ([]string, error)
	SIsMember(ctx context.Context, key, member string) (bool, error)
	// Eval runs script; in cluster mode all keys must share a slot.
	Eval(ctx context.Context, script *Script, keys, args []string) (any, error)
	// Pipeline sends cmds in one non-atomic batch (one round trip per
	// node) and returns one result or error value per command.
	Pipeline(ctx context.Context, cmds [][]string) ([]any, error)
	Ping(ctx context.Context) error
	// Info returns the raw INFO text per node ("" for a standalone server).
	Info(ctx context.Context) (map[string]string, error)
	Close()
}

// Atomic is implemented by both Conns of this package. Atomic runs cmds as
// one MULTI/EXEC transaction: no other client's command runs between
// them, and a command that fails at run time does not undo the others
// (Valkey has no rollback). Each command is {name, key, args...}; in
// cluster mode every key must be in one slot. It returns one result per
// command, as Pipeline does. No WATCH is used.
//
// lock/valkeylock uses it, when its client has it, to acquire a lock and
// draw its fencing token without running a script.
type Atomic interface {
	Atomic(ctx context.Context, cmds [][]string) ([]any, error)
}

var (
	_ Atomic = (*glideConn)(nil)
	_ Atomic = (*vgConn)(nil)
)

// Member is one sorted-set member with its score.
type Member struct {
	Member string
	Score  float64
}

// Script is a Lua script run with EVALSHA, falling back to EVAL (which
// loads it) when the server answers NOSCRIPT, on both backends. Create it
// once with [NewScript] and reuse it; it is safe for concurrent use.
type Script struct {
	src  string
	sha  string
	once sync.Once
	gs   *options.Script
}

// NewScript returns a script for the Lua source src.
func NewScript(src string) *Script {
	sum := sha1.Sum([]byte(src))
	return &Script{src: src, sha: hex.EncodeToString(sum[:])}
}

// Source returns the Lua source.
func (s *Script) Source() string { return s.src }

// SHA returns the SHA-1 of the source in hex, the name EVALSHA uses.
func (s *Script) SHA() string { return s.sha }

func (s *Script) glide() options.Script {
	s.once.Do(func() { s.gs = options.NewScript(s.src) })
	return *s.gs
}

// glideCmds is what *glide.Client and *glide.ClusterClient share.
type glideCmds interface {
	Get(ctx context.Context, key string) (models.Result[string], error)
	SetWithOptions(ctx context.Context, key, value string, o options.SetOptions) (models.Result[string], error)
	Set(ctx context.Context, key, value string) (string, error)
	Del(ctx context.Context, keys []string) (int64, error)
	PExpire(ctx context.Context, key string, ttl time.Duration) (bool, error)
	PTTL(ctx context.Context, key string) (int64, error)
	HGetAll(ctx context.Context, key string) (map[string]string, error)
	HSet(ctx context.Context, key string, values map[string]string) (int64, error)
	HGet(ctx context.Context, key, field string) (models.Result[string], error)
	ZAdd(ctx context.Context, key string, m map[string]float64) (int64, error)
	ZScore(ctx context.Context, key, member string) (models.Result[float64], error)
	ZRangeWithScores(ctx context.Context, key string, q options.ZRangeQueryWithScores) ([]models.MemberAndScore, error)
	ZRank(ctx context.Context, key, member string) (models.Result[int64], error)
	ZRevRank(ctx context.Context, key, member string) (models.Result[int64], error)
	ZRem(ctx context.Context, key string, members []string) (int64, error)
	SAdd(ctx context.Context, key string, members []string) (int64, error)
	SRem(ctx context.Context, key string, members []string) (int64, error)
	SMembers(ctx context.Context, key string) (map[string]struct{}, error)
	SIsMember(ctx context.Context, key, member string) (bool, error)
	InvokeScriptWithOptions(ctx context.Context, s options.Script, o options.ScriptOptions) (any, error)
	Ping(ctx context.Context) (string, error)
	Close()
}

var (
	_ glideCmds = (*glide.Client)(nil)
	_ glideCmds = (*glide.ClusterClient)(nil)
	_ Conn      = (*glideConn)(nil)
)

type glideConn struct {
	glideCmds
	std *glide.Client
	cl  *glide.ClusterClient
}

// NewGlideConn adapts a standalone glide client to [Conn].
func NewGlideConn(c *glide.Client) Conn { return &glideConn{glideCmds: c, std: c} }

// NewGlideClusterConn adapts a glide cluster client to [Conn].
func NewGlideClusterConn(c *glide.ClusterClient) Conn { return &glideConn{glideCmds: c, cl: c} }

func (g *glideConn) Get(ctx context.Context, key string) (string, bool, error) {
	r, err := g.glideCmds.Get(ctx, key)
	if err != nil || r.IsNil() {
		return "", false, err
	}
	return r.Value(), true, nil
}

func (g *glideConn) Set(ctx context.Context, key, value string, ttl time.Duration) error {
	if ttl <= 0 {
		_, err := g.glideCmds.Set(ctx, key, value)
		return err
	}
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	_, err := g.SetWithOptions(ctx, key, value, *options.NewSetOptions().SetExpiry(options.NewExpiryIn(ttl)))
	return err
}

func (g *glideConn) HSet(ctx context.Context, key string, fields map[string]string) error {
	_, err := g.glideCmds.HSet(ctx, key, fields)
	return err
}

func (g *glideConn) HGet(ctx context.Context, key, field string) (string, bool, error) {
	r, err := g.glideCmds.HGet(ctx, key, field)
	if err != nil || r.IsNil() {
		return "", false, err
	}
	return r.Value(), true, nil
}

func (g *glideConn) ZAdd(ctx context.Context, key string, m map[string]float64) error {
	_, err := g.glideCmds.ZAdd(ctx, key, m)
	return err
}

func (g *glideConn) ZScore(ctx context.Context, key, member string) (float64, bool, error) {
	r, err := g.glideCmds.ZScore(ctx, key, member)
	if err != nil || r.IsNil() {
		return 0, false, err
	}
	return r.Value(), true, nil
}

func members(ms []models.MemberAndScore) []Member {
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = Member{Member: m.Member, Score: m.Score}
	}
	return out
}

func (g *glideConn) ZRangeByRank(ctx context.Context, key string, start, stop int64, reverse bool) ([]Member, error) {
	q := options.NewRangeByIndexQuery(start, stop)
	if reverse {
		q.SetReverse()
	}
	ms, err := g.ZRangeWithScores(ctx, key, q)
	return members(ms), err
}

func (g *glideConn) ZRangeByScore(ctx context.Context, key string, min, max float64, reverse bool) ([]Member, error) {
	lo, hi := options.NewInclusiveScoreBoundary(min), options.NewInclusiveScoreBoundary(max)
	q := options.NewRangeByScoreQuery(lo, hi)
	if reverse {
		q = options.NewRangeByScoreQuery(hi, lo).SetReverse()
	}
	ms, err := g.ZRangeWithScores(ctx, key, q)
	return members(ms), err
}

func (g *glideConn) ZRank(ctx context.Context, key, member string, reverse bool) (int64, bool, error) {
	var (
		r   models.Result[int64]
		err error
	)
	if reverse {
		r, err = g.glideCmds.ZRevRank(ctx, key, member)
	} else {
		r, err = g.glideCmds.ZRank(ctx, key, member)
	}
	if err != nil || r.IsNil() {
		return 0, false, err
	}
	return r.Value(), true, nil
}

func (g *glideConn) SMembers(ctx context.Context, key string) ([]string, error) {
	m, err := g.glideCmds.SMembers(ctx, key)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out, nil
}

func (g *glideConn) Eval(ctx context.Context, s *Script, keys, args []string) (any, error) {
	return g.InvokeScriptWithOptions(ctx, s.glide(), *options.NewScriptOptions().WithKeys(keys).WithArgs(args))
}

func (g *glideConn) Pipeline(ctx context.Context, cmds [][]string) ([]any, error) {
	return g.batch(ctx, cmds, false)
}

// Atomic implements [Atomic] with an atomic glide batch.
func (g *glideConn) Atomic(ctx context.Context, cmds [][]string) ([]any, error) {
	return g.batch(ctx, cmds, true)
}

// batch sends cmds as one glide batch, atomic (MULTI/EXEC) or not.
func (g *glideConn) batch(ctx context.Context, cmds [][]string, atomic bool) ([]any, error) {
	if g.cl != nil {
		b := pipeline.NewClusterBatch(atomic)
		for _, c := range cmds {
			b.CustomCommand(c)
		}
		return g.cl.Exec(ctx, *b, false)
	}
	b := pipeline.NewStandaloneBatch(atomic)
	for _, c := range cmds {
		b.CustomCommand(c)
	}
	return g.std.Exec(ctx, *b, false)
}

func (g *glideConn) Ping(ctx context.Context) error {
	_, err := g.glideCmds.Ping(ctx)
	return err
}

func (g *glideConn) Info(ctx context.Context) (map[string]string, error) {
	if g.cl != nil {
		return g.cl.Info(ctx)
	}
	s, err := g.std.Info(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]string{"": s}, nil
}
