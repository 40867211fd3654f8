package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/internal/glidex"
	"github.com/tablekit/tablekit/internal/notfound"
)

// Defaults applied by [New] to zero [Options] fields.
const (
	DefaultRequestTimeout   = glidex.DefaultRequestTimeout
	DefaultLoadTimeout      = 5 * time.Second
	DefaultJitter           = 0.1
	DefaultMaxRetries       = 3
	DefaultRetryBaseDelay   = 10 * time.Millisecond
	DefaultBreakerThreshold = 5
	DefaultBreakerCooldown  = time.Second
)

// Sentinel errors. Check them with errors.Is.
var (
	// ErrNotFound is matched by a cached "not found" (negative caching,
	// see [LoadOptions]) and is what the default LoadOptions.IsNotFound
	// looks for in a loader's error. It is the same value as
	// entity.ErrNotFound, so a loader that reads through package entity
	// needs no option.
	ErrNotFound = notfound.Err
	// ErrMiss is returned by reads of a key that does not exist. It
	// translates glide's nil result.
	ErrMiss = errors.New("cache: miss")
	// ErrInvalidKey is returned (wrapped, naming the key) for an empty
	// namespace part, an empty key segment, or a brace in a key of a cache
	// that does not allow hash tags.
	ErrInvalidKey = errors.New("cache: invalid key")
	// ErrInvalidOptions is returned (wrapped) by [New] for unusable options.
	ErrInvalidOptions = errors.New("cache: invalid options")
	// ErrCircuitOpen is returned (wrapped) while the circuit breaker
	// rejects calls because the server kept failing.
	ErrCircuitOpen = errors.New("cache: circuit open")
	// ErrUnavailable wraps every error that came from the server or the
	// connection (after retries), so callers can tell "the cache failed"
	// from bad input: errors.Is(err, ErrUnavailable).
	ErrUnavailable = errors.New("cache: unavailable")
	// ErrStale is returned by the write-through helpers when the store
	// write succeeded but neither the cache write nor the invalidation
	// that follows it did: the old cached value may live until its TTL.
	ErrStale = errors.New("cache: cached value may be stale")
)

// Options configures a [Cache]. The zero value is valid apart from the
// namespace: with no Addresses and no Conn the cache is bypassed.
type Options struct {
	// AppID, Env and Service are the first three parts of every key,
	// {app_id}:{env}:{service}:{key}, so that applications, environments
	// and services sharing a server never collide. All are required.
	AppID, Env, Service string

	// Addresses are the server (or cluster seed) host:port addresses.
	// Empty (and Conn nil) means no endpoint: the cache is bypassed, loaders
	// are called directly, metrics still count and nothing fails, so an
	// application runs unchanged without a cache server.
	Addresses []string
	// Cluster selects cluster mode.
	Cluster bool
	// DisableTLS turns TLS off. TLS is on whenever an endpoint is
	// configured (managed caches require it); set this only for local
	// servers without TLS, as the tests do.
	DisableTLS bool
	// Username and Password are ACL credentials; empty means none.
	Username, Password string
	// RequestTimeout bounds each command. Zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ConnectTimeout bounds establishing a connection. Zero means
	// RequestTimeout's value.
	ConnectTimeout time.Duration

	// Backend selects the client library built from the fields above:
	// BackendGlide (the default) or BackendValkeyGo.
	Backend Backend
	// Near turns on the near cache (in-process L1 kept coherent by the
	// server); nil means off. It needs BackendValkeyGo.
	Near *NearOptions

	// Conn, if set, is used instead of a client built from the fields
	// above (unit tests pass a fake). Close closes it.
	Conn Conn

	// HashTags allows one well-formed {tag} per key, for callers that
	// put related keys in one cluster slot on purpose. Off by default, so
	// a stray brace (a placeholder such as {user_id} left unfilled) is
	// rejected.
	HashTags bool

	// LoadTimeout bounds a loader run by GetOrLoad, which runs on a ctx
	// detached from the caller's. Zero means DefaultLoadTimeout.
	LoadTimeout time.Duration
	// Jitter is the fraction of a TTL added at random to spread expiries
	// (a TTL of 1h with Jitter 0.1 becomes 1h..1h6m). Zero means
	// DefaultJitter; NoJitter turns it off.
	Jitter   float64
	NoJitter bool
	// NegativeTTL caches "not found" from loaders for this long. Zero
	// disables negative caching.
	NegativeTTL time.Duration

	// MaxRetries is how many times a command that failed with a
	// connection error is retried, with exponential backoff from
	// RetryBaseDelay, never past the ctx deadline nor past one
	// RequestTimeout from the first attempt. Zero means
	// DefaultMaxRetries; NoRetry turns retries off.
	MaxRetries     int
	NoRetry        bool
	RetryBaseDelay time.Duration

	// BreakerThreshold consecutive connection failures or timeouts open
	// the circuit breaker for BreakerCooldown; then one probe is let
	// through. Zeros mean DefaultBreakerThreshold and DefaultBreakerCooldown.
	BreakerThreshold int
	BreakerCooldown  time.Duration

	// Now returns the current time; nil means time.Now. Tests may stub it.
	Now func() time.Time

	// Tracer observes Get and GetSynced (package otelkit has one for
	// OpenTelemetry); nil (default) observes nothing.
	Tracer Tracer
}

// Cache is a namespaced cache on Valkey. It is safe for concurrent use.
// Views made with [Cache.WithService] share its connection, metrics,
// breaker and in-flight loads.
type Cache struct {
	o      Options
	prefix string // app:env:service:
	core   *core
}

type core struct {
	conn    Conn // nil: bypass
	cluster bool
	metrics metrics
	breaker breaker
	flights flightGroup
	closeMu sync.Once
}

// New returns a cache configured by o, then by optFns in order.
//
// It returns ErrInvalidOptions (wrapped) for a missing namespace part, an
// unknown Backend or a near cache without BackendValkeyGo, and glidex's
// address errors for malformed addresses. Both backends connect lazily: a
// server that is down makes calls fail open, not New.
func New(o Options, optFns ...func(*Options)) (*Cache, error) {
	for _, f := range optFns {
		f(&o)
	}
	for name, v := range map[string]string{"AppID": o.AppID, "Env": o.Env, "Service": o.Service} {
		if err := validPart(v); err != nil {
			return nil, fmt.Errorf("%w: %s %v", ErrInvalidOptions, name, err)
		}
	}
	if o.Jitter < 0 || o.Jitter > 1 {
		return nil, fmt.Errorf("%w: Jitter %v not in [0, 1]", ErrInvalidOptions, o.Jitter)
	}
	if o.RequestTimeout < 0 || o.LoadTimeout < 0 || o.NegativeTTL < 0 || o.MaxRetries < 0 ||
		o.RetryBaseDelay < 0 || o.BreakerThreshold < 0 || o.BreakerCooldown < 0 {
		return nil, fmt.Errorf("%w: negative duration or count", ErrInvalidOptions)
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.LoadTimeout == 0 {
		o.LoadTimeout = DefaultLoadTimeout
	}
	if o.Jitter == 0 {
		o.Jitter = DefaultJitter
	}
	if o.NoJitter {
		o.Jitter = 0
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.NoRetry {
		o.MaxRetries = 0
	}
	if o.RetryBaseDelay == 0 {
		o.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if o.BreakerThreshold == 0 {
		o.BreakerThreshold = DefaultBreakerThreshold
	}
	if o.BreakerCooldown == 0 {
		o.BreakerCooldown = DefaultBreakerCooldown
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	co := &core{conn: o.Conn, cluster: o.Cluster}
	if err := checkBackend(o); err != nil {
		return nil, err
	}
	if co.conn == nil && len(o.Addresses) > 0 && o.Backend == BackendValkeyGo {
		c, err := DialValkeyGo(ValkeyGoOptions{Addresses: o.Addresses, Cluster: o.Cluster, DisableTLS: o.DisableTLS,
			Username: o.Username, Password: o.Password, RequestTimeout: o.RequestTimeout,
			ConnectTimeout: o.ConnectTimeout, Near: o.Near})
		if err != nil {
			return nil, err
		}
		co.conn = c
	}
	if co.conn == nil && len(o.Addresses) > 0 {
		g := glidex.Options{
			Addresses: o.Addresses, DisableTLS: o.DisableTLS, Username: o.Username,
			Password: o.Password, RequestTimeout: o.RequestTimeout, Cluster: o.Cluster,
			ConnectTimeout: o.ConnectTimeout,
		}
		if o.Cluster {
			c, err := glidex.NewCluster(g)
			if err != nil {
				return nil, err
			}
			co.conn = NewGlideClusterConn(c)
		} else {
			c, err := glidex.NewStandalone(g)
			if err != nil {
				return nil, err
			}
			co.conn = NewGlideConn(c)
		}
	}
	co.breaker.threshold = o.BreakerThreshold
	co.breaker.cooldown = o.BreakerCooldown
	co.breaker.now = o.Now
	c := &Cache{o: o, core: co, prefix: o.AppID + ":" + o.Env + ":" + o.Service + ":"}
	if o.Tracer != nil {
		tracedCaches.Add(1)
	}
	return c, nil
}

// WithService returns a view of c whose keys use service as the third
// namespace part and which allows hash tags if hashTags is set. The view
// shares c's connection, metrics, breaker and in-flight loads. It returns
// ErrInvalidKey (wrapped) for an invalid service.
func (c *Cache) WithService(service string, hashTags bool) (*Cache, error) {
	if err := validPart(service); err != nil {
		return nil, fmt.Errorf("%w: service %v", ErrInvalidKey, err)
	}
	o := c.o
	o.Service, o.HashTags = service, hashTags
	return &Cache{o: o, core: c.core, prefix: o.AppID + ":" + o.Env + ":" + service + ":"}, nil
}

// Enabled reports whether an endpoint is configured (false: bypass).
func (c *Cache) Enabled() bool { return c.core.conn != nil }

// Cluster reports whether the cache runs in cluster mode.
func (c *Cache) Cluster() bool { return c.core.cluster }

// Now returns the cache's clock reading.
func (c *Cache) Now() time.Time { return c.o.Now() }

// Close closes the connection. Further calls fail with ErrUnavailable.
func (c *Cache) Close() {
	c.core.closeMu.Do(func() {
		if c.core.conn != nil {
			c.core.conn.Close()
		}
	})
}

func validPart(p string) error {
	switch {
	case p == "":
		return errors.New("is empty")
	case strings.ContainsAny(p, "{}"):
		return errors.New("contains a brace")
	case strings.IndexByte(p, ':') >= 0:
		return errors.New("contains the delimiter ':'")
	case strings.ContainsAny(p, " \t\r\n"):
		return errors.New("contains white space")
	}
	return nil
}

// Key returns the full namespaced key for key, or ErrInvalidKey
// (wrapped). key may have several ':'-separated segments; none may be
// empty, and '%' may appear only in the escape sequences of [Seg] (build
// keys from values with [Join] or [Seg], so that distinct values never
// give one key). Braces are allowed only as one non-empty {tag} and only
// when the cache allows hash tags.
func (c *Cache) Key(key string) (string, error) {
	if err := c.validKey(key); err != nil {
		return "", err
	}
	return c.prefix + key, nil
}

func (c *Cache) validKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if key[0] == ':' || key[len(key)-1] == ':' || strings.Contains(key, "::") {
		return fmt.Errorf("%w: %q has an empty segment", ErrInvalidKey, key)
	}
	if strings.ContainsAny(key, " \t\r\n") {
		return fmt.Errorf("%w: %q contains white space", ErrInvalidKey, key)
	}
	if err := checkEscapes(key); err != nil {
		return err
	}
	open, close := strings.Count(key, "{"), strings.Count(key, "}")
	if open == 0 && close == 0 {
		return nil
	}
	if !c.o.HashTags {
		return fmt.Errorf("%w: %q contains a brace (placeholders must be filled in; enable Options.HashTags for a cluster hash tag)", ErrInvalidKey, key)
	}
	i, j := strings.IndexByte(key, '{'), strings.IndexByte(key, '}')
	if open != 1 || close != 1 || j < i+2 {
		return fmt.Errorf("%w: %q: a hash tag must be one non-empty {tag}", ErrInvalidKey, key)
	}
	return nil
}

// HashTag returns "{s}", the form of a cluster hash tag, for keys of a
// cache that allows hash tags. Keys sharing a tag share a cluster slot.
func HashTag(s string) string { return "{" + s + "}" }

// genKey is the companion generation key of full key k: same cluster slot,
// and never equal to a user key: it carries internalMark ("%!"), which
// Key rejects, and an untagged one starts with a brace, which no
// namespace part may hold.
func genKey(k string) string { return internalKey(k, "gen") }

// internalKey returns the internal key named kind that belongs to full
// key k, in k's cluster slot.
func internalKey(k, kind string) string {
	if i := strings.IndexByte(k, '{'); i >= 0 {
		if j := strings.IndexByte(k[i:], '}'); j > 1 {
			return k + internalMark + kind
		}
	}
	return "{" + k + "}" + internalMark + kind
}

// InternalKey returns the internal key named kind (letters only) that
// belongs to the namespaced key full (as [Cache.Key] returns it): a key in
// the same cluster slot that no user key can equal. Packages built on the
// cache (such as a cached entity store) keep their bookkeeping there.
func InternalKey(full, kind string) string { return internalKey(full, kind) }

// do runs op under the breaker, with retries on connection errors, and
// records metrics. op errors are returned wrapped in ErrUnavailable.
func (c *Cache) do(ctx context.Context, op func(ctx context.Context, conn Conn) error) error {
	co := c.core
	start := time.Now()
	co.metrics.total.Add(1)
	if err := co.breaker.allow(); err != nil {
		co.metrics.failed.Add(1)
		co.metrics.rejected.Add(1)
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var err error
	for attempt := 0; ; attempt++ {
		if err = ctx.Err(); err != nil {
			break
		}
		err = op(ctx, co.conn)
		if classify(err) != glidex.Connection || attempt >= c.o.MaxRetries {
			break
		}
		co.metrics.connFailures.Add(1)
		d := c.o.RetryBaseDelay << attempt
		if dl, ok := ctx.Deadline(); (ok && time.Until(dl) < d) || time.Since(start)+d > c.o.RequestTimeout {
			break
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
	co.metrics.latencyNanos.Add(int64(time.Since(start)))
	kind := classify(err)
	if ctx.Err() != nil {
		// The caller gave up: that says nothing about the server.
		co.breaker.release()
	} else {
		co.breaker.record(kind == glidex.Connection || kind == glidex.Timeout || kind == glidex.Closed)
	}
	switch kind {
	case glidex.OK:
		co.metrics.success.Add(1)
		return nil
	case glidex.Connection, glidex.Closed:
		co.metrics.connFailures.Add(1)
	case glidex.Timeout:
		co.metrics.timeouts.Add(1)
	default:
		co.metrics.serverErrors.Add(1)
	}
	co.metrics.failed.Add(1)
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// breaker is a consecutive-failure circuit breaker with a half-open
// probe. The closed state is checked without locking.
type breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	failures  atomic.Int64
	mu        sync.Mutex
	openUntil time.Time
	probing   bool
}

func (b *breaker) allow() error {
	if b.failures.Load() < int64(b.threshold) {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures.Load() < int64(b.threshold) {
		return nil
	}
	if b.now().Before(b.openUntil) || b.probing {
		return ErrCircuitOpen
	}
	b.probing = true // half-open: this call is the probe
	return nil
}

func (b *breaker) release() {
	if b.failures.Load() == 0 {
		return
	}
	b.mu.Lock()
	b.probing = false
	b.mu.Unlock()
}

func (b *breaker) record(failed bool) {
	if !failed && b.failures.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if !failed {
		b.failures.Store(0)
		return
	}
	if b.failures.Add(1) >= int64(b.threshold) {
		b.openUntil = b.now().Add(b.cooldown)
	}
}

// BreakerOpen reports whether the circuit breaker currently rejects calls.
func (c *Cache) BreakerOpen() bool {
	b := &c.core.breaker
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failures.Load() >= int64(b.threshold) && (b.now().Before(b.openUntil) || b.probing)
}
