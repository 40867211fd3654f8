// Package session keeps login sessions in Valkey, on top of package
// cache.
//
// # Keys
//
// In the cache namespace {app_id}:{env}:session, each session has, by
// default exactly as seed 002 writes them,
//
//	accessToken:<token>    string "valid"                      TTL: sliding, Options.TTL
//	sessionInfo:<token>    hash of every SessionInfo field     same TTL
//
// and each user has user:sessions:<user_account_id>, a sorted set of the
// user's tokens scored by login time. Values enter keys through cache.Seg,
// so a token or user id holding ':' cannot reach another key; UUID and
// base64url tokens are kept as they are.
//
// With Options.Layout = HashTagLayout the keys are accessToken:{<token>},
// sessionInfo:{<token>} and user:sessions:{<user_account_id>}: both keys of
// a session share a cluster slot, so every operation on them is one Lua
// script, one round trip, and atomic in cluster mode too. With the default
// layout that holds on a standalone server; on a cluster the two keys live
// in different slots, so Validate, Logout and Rotate take two round trips
// (the hash first, then the token key) and are not atomic across the two
// keys — a concurrent Logout can leave one of them until its TTL, which
// no operation then accepts.
//
// # Behaviour
//
//   - [Store.Create] writes both keys with every [Info] field (shard_id
//     from Options.ShardFunc) and registers the token in the user's sorted
//     set; past Options.MaxSessions the sessions with the oldest login time
//     are evicted. (A plain Redis set would not do: it has no order, so its
//     first member is not the oldest session.)
//   - [Store.Validate] checks the token, refreshes both TTLs and
//     last_access_time. There is no absolute lifetime unless
//     Options.MaxLifetime is set (seed 002 has none); then a session is
//     never extended past MaxLifetime from its login.
//   - [Store.Logout] deletes both keys and the tracking entry.
//   - [Store.Rotate] replaces a token by a fresh one for the same session.
//
// Tokens follow Options.Tokens. The default makes 256 random bits from
// crypto/rand, base64url-encoded, and accepts those and the UUID tokens
// seed 002 makes (str(uuid.uuid4())), so existing sessions keep
// validating; [UUIDTokens] makes UUIDs as the seed does. Tokens never
// appear in full in errors; [Redact] shortens one for logs.
//
// # Errors
//
// [ErrInvalidSession] for an unknown, expired, evicted or malformed
// token ([ErrMalformedToken] wraps it); [ErrNoServer] from [New] when the
// cache has no endpoint; cache.ErrUnavailable (wrapped) when the server
// fails; cache.ErrInvalidKey for an empty user account id.
package session

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/cache"
)

// Defaults applied by [New] to zero [Options] fields.
const (
	DefaultTTL         = 3600 * time.Second // idle time after which a session expires (seed 002's session_expire_time)
	DefaultMaxSessions = 5
	DefaultService     = "session"
)

// Layout selects the key layout of a [Store].
type Layout int

const (
	// SeedLayout (the default) writes seed 002's keys exactly:
	// accessToken:<token>, sessionInfo:<token>, user:sessions:<id>.
	SeedLayout Layout = iota
	// HashTagLayout wraps the token and the user id in cluster hash tags
	// (accessToken:{<token>}, ...) so that a session's keys share a slot:
	// one atomic round trip per operation in cluster mode.
	HashTagLayout
)

// TokenFormat makes and checks tokens. Check must reject anything New
// cannot produce; it runs before any I/O.
type TokenFormat struct {
	New   func() string
	Check func(token string) bool
}

// DefaultTokens makes [NewToken] tokens and accepts them and UUIDs.
var DefaultTokens = TokenFormat{New: NewToken, Check: func(t string) bool { return IsToken(t) || IsUUID(t) }}

// UUIDTokens makes and accepts UUIDs (lower-case, canonical), as seed 002's
// str(uuid.uuid4()) does.
var UUIDTokens = TokenFormat{New: newUUID, Check: IsUUID}

var (
	// ErrInvalidSession is returned for a token that is unknown, expired,
	// past its lifetime, evicted, logged out or rotated away.
	ErrInvalidSession = errors.New("session: invalid or expired")
	// ErrMalformedToken is returned (it wraps ErrInvalidSession) for a
	// string that cannot be a token; nothing is sent to the server.
	ErrMalformedToken = fmt.Errorf("%w: malformed token", ErrInvalidSession)
	// ErrNoServer is returned by New for a cache without an endpoint:
	// sessions cannot be bypassed.
	ErrNoServer = errors.New("session: the cache has no endpoint")
	// ErrInvalidOptions is returned (wrapped) by New for unusable options.
	ErrInvalidOptions = errors.New("session: invalid options")
)

// Options configures a [Store]. The zero value gives the defaults.
type Options struct {
	// TTL is the sliding expiry renewed by each Validate. Zero means DefaultTTL.
	TTL time.Duration
	// MaxLifetime, when set, caps a session from its login time, however
	// often it is renewed. Zero (the default, as in seed 002) means no cap.
	MaxLifetime time.Duration
	// Layout is the key layout; the zero value is SeedLayout.
	Layout Layout
	// Tokens is the token format; the zero value means DefaultTokens.
	Tokens TokenFormat
	// MaxSessions is the per-user limit of concurrent sessions; creating
	// one more evicts the oldest by login time. Zero means
	// DefaultMaxSessions; NoLimit disables the limit.
	MaxSessions int
	NoLimit     bool
	// ShardFunc computes shard_id from account_db_key. Nil means every
	// account is on shard 0.
	ShardFunc func(accountDBKey int64) int64
	// Service is the cache namespace's service part. Empty means DefaultService.
	Service string
	// Now is the clock; nil means the cache's clock.
	Now func() time.Time
}

// Store manages sessions. It is safe for concurrent use.
type Store struct {
	c      *cache.Cache
	o      Options
	atomic bool // both keys of a session in one slot: one script
}

// New returns a store that keeps sessions in c (with service
// Options.Service and hash tags enabled; c itself is unchanged).
// It returns ErrNoServer when c has no endpoint and ErrInvalidOptions
// (wrapped) for negative durations or limits.
func New(c *cache.Cache, optFns ...func(*Options)) (*Store, error) {
	var o Options
	for _, f := range optFns {
		f(&o)
	}
	if !c.Enabled() {
		return nil, ErrNoServer
	}
	if o.TTL < 0 || o.MaxLifetime < 0 || o.MaxSessions < 0 {
		return nil, fmt.Errorf("%w: negative TTL, lifetime or limit", ErrInvalidOptions)
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.Layout != SeedLayout && o.Layout != HashTagLayout {
		return nil, fmt.Errorf("%w: unknown layout %d", ErrInvalidOptions, o.Layout)
	}
	if (o.Tokens.New == nil) != (o.Tokens.Check == nil) {
		return nil, fmt.Errorf("%w: a token format needs both New and Check", ErrInvalidOptions)
	}
	if o.Tokens.New == nil {
		o.Tokens = DefaultTokens
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.ShardFunc == nil {
		o.ShardFunc = func(int64) int64 { return 0 }
	}
	if o.Service == "" {
		o.Service = DefaultService
	}
	if o.Now == nil {
		o.Now = c.Now
	}
	v, err := c.WithService(o.Service, o.Layout == HashTagLayout)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return &Store{c: v, o: o, atomic: o.Layout == HashTagLayout || !c.Cluster()}, nil
}

// Info is what a session records about its login, plus the absolute
// expiry.
type Info struct {
	SessionID      string
	UserAccountID  string
	AccountDBKey   int64
	ShardID        int64
	LoginTime      time.Time
	LastAccessTime time.Time
	PlatformType   int
	ClientVersion  string
	DeviceInfo     *string
	// ExpiresAt is when MaxLifetime ends the session, whatever its TTL;
	// zero without MaxLifetime.
	ExpiresAt time.Time
}

// CreateInput is what a login knows about the user and the client.
type CreateInput struct {
	UserAccountID string
	AccountDBKey  int64
	PlatformType  int
	ClientVersion string
	DeviceInfo    *string // nil: no device_info field
}

const tokenBytes = 32 // 256 bits

// NewToken returns a fresh random token (256 bits, base64url, 43 characters).
func NewToken() string {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("session: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

var tokenLen = base64.RawURLEncoding.EncodedLen(tokenBytes)

// IsToken reports whether t has the form of a [NewToken] token.
func IsToken(t string) bool {
	if len(t) != tokenLen {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// IsUUID reports whether t is a canonical UUID (8-4-4-4-12 hex digits,
// either case), the form of seed 002's tokens.
func IsUUID(t string) bool {
	if len(t) != 36 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func (s *Store) checkToken(tok string) error {
	if tok == "" || !s.o.Tokens.Check(tok) {
		return ErrMalformedToken
	}
	return nil
}

// Redact returns a log-safe form of token: its first six characters.
func Redact(token string) string {
	if len(token) <= 6 {
		return "…"
	}
	return token[:6] + "…"
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (s *Store) seg(v string) string {
	if s.o.Layout == HashTagLayout {
		return cache.HashTag(cache.Seg(v))
	}
	return cache.Seg(v)
}

// tokenKeys returns the accessToken and sessionInfo keys of tok.
func (s *Store) tokenKeys(tok string) []string {
	t := s.seg(tok)
	return []string{"accessToken:" + t, "sessionInfo:" + t}
}

func (s *Store) userKey(userID string) string { return "user:sessions:" + s.seg(userID) }

func fmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func msArg(d time.Duration) string {
	n := d.Milliseconds()
	if n < 1 {
		n = 1
	}
	return strconv.FormatInt(n, 10)
}

func (i Info) fields() []string {
	f := []string{
		"session_id", i.SessionID,
		"user_account_id", i.UserAccountID,
		"account_db_key", strconv.FormatInt(i.AccountDBKey, 10),
		"shard_id", strconv.FormatInt(i.ShardID, 10),
		"login_time", fmtTime(i.LoginTime),
		"last_access_time", fmtTime(i.LastAccessTime),
		"platform_type", strconv.Itoa(i.PlatformType),
		"client_version", i.ClientVersion,
	}
	if !i.ExpiresAt.IsZero() {
		f = append(f, "max_expire_ms", strconv.FormatInt(i.ExpiresAt.UnixMilli(), 10))
	}
	if i.DeviceInfo != nil {
		f = append(f, "device_info", *i.DeviceInfo)
	}
	return f
}

func parseInfo(v any) (Info, error) {
	arr, ok := v.([]any)
	if !ok || len(arr)%2 != 0 {
		return Info{}, fmt.Errorf("session: unexpected reply %T", v)
	}
	m := make(map[string]string, len(arr)/2)
	for i := 0; i < len(arr); i += 2 {
		k, _ := arr[i].(string)
		s, _ := arr[i+1].(string)
		m[k] = s
	}
	var (
		in   Info
		errs []error
	)
	num := func(k string) int64 {
		n, err := strconv.ParseInt(m[k], 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
		}
		return n
	}
	tm := func(k string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, m[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
		}
		return t
	}
	in.SessionID, in.UserAccountID, in.ClientVersion = m["session_id"], m["user_account_id"], m["client_version"]
	in.AccountDBKey, in.ShardID = num("account_db_key"), num("shard_id")
	in.PlatformType = int(num("platform_type"))
	in.LoginTime, in.LastAccessTime = tm("login_time"), tm("last_access_time")
	if _, ok := m["max_expire_ms"]; ok {
		in.ExpiresAt = time.UnixMilli(num("max_expire_ms")).UTC()
	}
	if d, ok := m["device_info"]; ok {
		in.DeviceInfo = &d
	}
	if len(errs) > 0 {
		return Info{}, fmt.Errorf("session: corrupt session hash: %w", errors.Join(errs...))
	}
	return in, nil
}

// writeScript stores a session's two keys. ARGV: ttl ms, then hash fields.
var writeScript = cache.NewScript(`
redis.call('SET', KEYS[1], 'valid', 'PX', ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`)

// setTokenScript is writeScript's token half (split layout). ARGV: ttl ms.
var setTokenScript = cache.NewScript(`return redis.call('SET', KEYS[1], 'valid', 'PX', ARGV[1])`)

// writeInfoScript is writeScript's hash half (split layout).
var writeInfoScript = cache.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`)

// registerScript tracks a token in the user's sorted set and evicts the
// oldest beyond the limit. A plain Redis set would not do: it has no
// order, so its "first" member is arbitrary, not the oldest session. Here the score is the login time, so rank 0 is
// truly the oldest login, and the check and eviction are one atomic step
// however many logins of the user race. ARGV: token, login score (µs), limit (0: none),
// prune-before score, set ttl ms. The score is bumped past the newest
// entry so that the new session is never older than an existing one.
// Returns the evicted tokens.
var registerScript = cache.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
local score = tonumber(ARGV[2])
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if top[2] and tonumber(top[2]) >= score then score = tonumber(top[2]) + 1 end
redis.call('ZADD', KEYS[1], string.format('%.0f', score), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local limit = tonumber(ARGV[3])
local n = redis.call('ZCARD', KEYS[1]) - limit
if limit == 0 or n <= 0 then return {} end
local old = redis.call('ZRANGE', KEYS[1], 0, n - 1)
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - 1)
return old`)

// infoLua refreshes the session hash at KEYS[i]: ARGV now ms, ttl ms,
// now (RFC 3339). It yields false (nothing to refresh, or the lifetime
// ended: the hash is deleted) or the TTL to apply and the hash.
const infoLua = `
local function refresh(k)
  if redis.call('EXISTS', k) == 0 then return false end
  local ttl = tonumber(ARGV[2])
  local cap = tonumber(redis.call('HGET', k, 'max_expire_ms'))
  if cap then
    local left = cap - tonumber(ARGV[1])
    if left <= 0 then
      redis.call('DEL', k)
      return false
    end
    if left < ttl then ttl = left end
  end
  redis.call('HSET', k, 'last_access_time', ARGV[3])
  redis.call('PEXPIRE', k, ttl)
  return {ttl, redis.call('HGETALL', k)}
end
`

// validateScript: KEYS accessToken, sessionInfo. Returns the hash as a
// flat list, or nil.
var validateScript = cache.NewScript(infoLua + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local r = refresh(KEYS[2])
if not r then
  redis.call('DEL', KEYS[1])
  return false
end
redis.call('PEXPIRE', KEYS[1], r[1])
return r[2]`)

// validateInfoScript: KEYS sessionInfo (split layout). Returns {ttl, hash} or nil.
var validateInfoScript = cache.NewScript(infoLua + `return refresh(KEYS[1])`)

// touchScript: KEYS accessToken, ARGV ttl ms. 1 when the token is valid.
var touchScript = cache.NewScript(`return redis.call('PEXPIRE', KEYS[1], ARGV[1])`)

// takeScript deletes a session's keys and returns its hash (nil if the
// token is not valid).
var takeScript = cache.NewScript(`
local ok = redis.call('EXISTS', KEYS[1])
local h = redis.call('HGETALL', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2])
if ok == 0 or #h == 0 then return false end
return h`)

// takeInfoScript deletes the hash at KEYS[1] and returns it (split layout).
var takeInfoScript = cache.NewScript(`
local h = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
if #h == 0 then return false end
return h`)

// rotateScript moves a token's entry in the user set to a new token,
// keeping its score. Returns 0 when the old token was evicted meanwhile.
var rotateScript = cache.NewScript(`
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], s, ARGV[2])
return 1`)

func (s *Store) ttlFor(now, expires time.Time) time.Duration {
	if left := expires.Sub(now); !expires.IsZero() && left < s.o.TTL {
		return left
	}
	return s.o.TTL
}

// Create starts a session and returns its token. Beyond the user's limit
// the sessions with the oldest login time are evicted (their tokens stop
// validating). Errors: cache.ErrInvalidKey (wrapped) for an empty
// UserAccountID, cache.ErrUnavailable (wrapped) on server failure, in
// which case nothing is left behind.
func (s *Store) Create(ctx context.Context, in CreateInput) (string, Info, error) {
	if in.UserAccountID == "" {
		return "", Info{}, fmt.Errorf("%w: empty user account id", cache.ErrInvalidKey)
	}
	if _, err := s.c.Key(s.userKey(in.UserAccountID)); err != nil {
		return "", Info{}, err
	}
	now := s.o.Now()
	info := Info{
		SessionID: newUUID(), UserAccountID: in.UserAccountID, AccountDBKey: in.AccountDBKey,
		ShardID: s.o.ShardFunc(in.AccountDBKey), LoginTime: now, LastAccessTime: now,
		PlatformType: in.PlatformType, ClientVersion: in.ClientVersion, DeviceInfo: in.DeviceInfo,
	}
	if s.o.MaxLifetime > 0 {
		info.ExpiresAt = now.Add(s.o.MaxLifetime).Truncate(time.Millisecond) // stored in ms
	}
	tok := s.o.Tokens.New()
	if err := s.checkToken(tok); err != nil {
		return "", Info{}, fmt.Errorf("%w: the token format made a token its Check rejects", ErrInvalidOptions)
	}
	if err := s.write(ctx, tok, info, now); err != nil {
		return "", Info{}, err
	}
	limit := s.o.MaxSessions
	if s.o.NoLimit {
		limit = 0
	}
	prune, setTTL := "-inf", s.o.TTL
	if s.o.MaxLifetime > 0 {
		prune, setTTL = strconv.FormatInt(now.Add(-s.o.MaxLifetime).UnixMicro(), 10), s.o.MaxLifetime
	}
	res, err := s.c.Eval(ctx, registerScript, []string{s.userKey(in.UserAccountID)},
		tok, strconv.FormatInt(now.UnixMicro(), 10), strconv.Itoa(limit), prune, msArg(setTTL))
	if err != nil {
		_, _ = s.c.Delete(context.WithoutCancel(ctx), s.tokenKeys(tok)...)
		return "", Info{}, fmt.Errorf("session: register: %w", err)
	}
	if old, _ := res.([]any); len(old) > 0 {
		var keys []string
		for _, o := range old {
			if t, ok := o.(string); ok && t != "" {
				keys = append(keys, s.tokenKeys(t)...)
			}
		}
		if _, err := s.c.Delete(ctx, keys...); err != nil {
			return tok, info, fmt.Errorf("session: evict: %w", err)
		}
	}
	return tok, info, nil
}

func (s *Store) write(ctx context.Context, tok string, info Info, now time.Time) error {
	ttl := msArg(s.ttlFor(now, info.ExpiresAt))
	keys := s.tokenKeys(tok)
	var err error
	if s.atomic {
		_, err = s.c.Eval(ctx, writeScript, keys, append([]string{ttl}, info.fields()...)...)
	} else {
		// The hash first: the token key makes the session valid.
		if _, err = s.c.Eval(ctx, writeInfoScript, keys[1:], append([]string{ttl}, info.fields()...)...); err == nil {
			_, err = s.c.Eval(ctx, setTokenScript, keys[:1], ttl)
		}
	}
	if err != nil {
		_, _ = s.c.Delete(context.WithoutCancel(ctx), keys...)
		return fmt.Errorf("session: write: %w", err)
	}
	return nil
}

// Validate returns the session of token, refreshing its TTL (never past
// its lifetime, when there is one) and last_access_time: one round trip,
// two with the default layout on a cluster. Errors: ErrInvalidSession,
// ErrMalformedToken, cache.ErrUnavailable (wrapped).
func (s *Store) Validate(ctx context.Context, token string) (Info, error) {
	if err := s.checkToken(token); err != nil {
		return Info{}, err
	}
	now := s.o.Now()
	args := []string{strconv.FormatInt(now.UnixMilli(), 10), msArg(s.o.TTL), fmtTime(now)}
	keys := s.tokenKeys(token)
	var res any
	var err error
	if s.atomic {
		res, err = s.c.Eval(ctx, validateScript, keys, args...)
	} else {
		res, err = s.validateSplit(ctx, keys, args)
	}
	if err != nil {
		return Info{}, fmt.Errorf("session: validate %s: %w", Redact(token), err)
	}
	if res == nil {
		return Info{}, ErrInvalidSession
	}
	return parseInfo(res)
}

func (s *Store) validateSplit(ctx context.Context, keys, args []string) (any, error) {
	r, err := s.c.Eval(ctx, validateInfoScript, keys[1:], args...)
	if err != nil {
		return nil, err
	}
	arr, _ := r.([]any)
	if len(arr) != 2 {
		// No hash (or its lifetime ended): the token must not outlive it.
		_, err := s.c.Delete(ctx, keys[0])
		return nil, err
	}
	ttl, _ := arr[0].(int64)
	ok, err := s.c.Eval(ctx, touchScript, keys[:1], strconv.FormatInt(ttl, 10))
	if err != nil {
		return nil, err
	}
	if n, _ := ok.(int64); n != 1 {
		return nil, nil
	}
	return arr[1], nil
}

// take deletes the session of token and returns its hash reply (nil when
// the token was not valid).
func (s *Store) take(ctx context.Context, token string) (any, error) {
	keys := s.tokenKeys(token)
	if s.atomic {
		return s.c.Eval(ctx, takeScript, keys)
	}
	// The token key first: the session stops validating at once.
	n, err := s.c.Delete(ctx, keys[0])
	if err != nil {
		return nil, err
	}
	h, err := s.c.Eval(ctx, takeInfoScript, keys[1:])
	if err != nil || n == 0 {
		return nil, err
	}
	return h, nil
}

// Logout ends the session of token. Logging out an unknown token is not
// an error. Errors: ErrMalformedToken, cache.ErrUnavailable (wrapped).
func (s *Store) Logout(ctx context.Context, token string) error {
	if err := s.checkToken(token); err != nil {
		return err
	}
	res, err := s.take(ctx, token)
	if err != nil {
		return fmt.Errorf("session: logout %s: %w", Redact(token), err)
	}
	if res == nil {
		return nil
	}
	info, err := parseInfo(res)
	if err != nil {
		return err
	}
	if _, err := s.c.ZRem(ctx, s.userKey(info.UserAccountID), token); err != nil {
		return fmt.Errorf("session: logout %s: untrack: %w", Redact(token), err)
	}
	return nil
}

// Rotate replaces token by a new one for the same session (same session
// id, login time and lifetime; last access now). The old token stops
// validating at once. Errors: ErrInvalidSession when token is not valid
// (or was evicted meanwhile), ErrMalformedToken, cache.ErrUnavailable.
func (s *Store) Rotate(ctx context.Context, token string) (string, Info, error) {
	if err := s.checkToken(token); err != nil {
		return "", Info{}, err
	}
	res, err := s.take(ctx, token)
	if err != nil {
		return "", Info{}, fmt.Errorf("session: rotate %s: %w", Redact(token), err)
	}
	if res == nil {
		return "", Info{}, ErrInvalidSession
	}
	info, err := parseInfo(res)
	if err != nil {
		return "", Info{}, err
	}
	now := s.o.Now()
	if !info.ExpiresAt.IsZero() && !now.Before(info.ExpiresAt) {
		_, _ = s.c.ZRem(ctx, s.userKey(info.UserAccountID), token)
		return "", Info{}, ErrInvalidSession
	}
	info.LastAccessTime = now
	nt := s.o.Tokens.New()
	if err := s.write(ctx, nt, info, now); err != nil {
		return "", Info{}, err
	}
	moved, err := s.c.Eval(ctx, rotateScript, []string{s.userKey(info.UserAccountID)}, token, nt)
	if n, _ := moved.(int64); err != nil || n == 0 {
		_, _ = s.c.Delete(context.WithoutCancel(ctx), s.tokenKeys(nt)...)
		if err != nil {
			return "", Info{}, fmt.Errorf("session: rotate %s: %w", Redact(token), err)
		}
		return "", Info{}, ErrInvalidSession
	}
	return nt, info, nil
}

// Sessions returns the user's tracked tokens, oldest login first. Tracked
// tokens may include sessions that idled out and were not yet pruned.
func (s *Store) Sessions(ctx context.Context, userAccountID string) ([]string, error) {
	ms, err := s.c.ZRangeByRank(ctx, s.userKey(userAccountID), 0, -1, false)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Member
	}
	return out, nil
}
