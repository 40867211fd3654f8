// Package glidex builds valkey-glide clients the way every tablekit package
// needs them, and guards the one process-wide glide quirk.
//
// # Data race guard
//
// valkey-glide v2.5.3 initialises a package global lazily inside
// glide.GetOtelInstance, which every command calls; two goroutines issuing
// their first commands at once race on it. [Prepare] calls it once, under a
// sync.Once, and [NewStandalone] and [NewCluster] call [Prepare] before they
// return a client, so a client is safe to share as soon as it exists.
//
// # SIGPIPE
//
// glide writes to its sockets on Rust threads. When a server dies while a
// write is in flight the kernel raises SIGPIPE on that non-Go thread, and
// a Go program dies of it ("signal: broken pipe"; os/signal, "Go programs
// that use cgo or SWIG": the runtime handles SIGPIPE itself only on Go
// threads). [Prepare], and so every constructor here, calls
// [IgnoreSIGPIPE], which registers SIGPIPE with signal.Notify: the runtime
// then swallows it on every thread, the write fails with EPIPE and glide
// reconnects. (signal.Ignore, which installs SIG_IGN in the kernel, is
// the other candidate; it is neither used nor tested here.) A
// host that builds glide clients itself should call IgnoreSIGPIPE, or
// signal.Notify for SIGPIPE, before its first command;
// TestSurvivesValkeyDeathUnderLoad kills and restarts Redis 50 times under
// 64 writing goroutines, standalone and cluster, and shows the process
// dies without it and survives with it.
//
// # Defaults
//
// TLS is on whenever an address is configured (seed 000: the ElastiCache
// endpoint is always reached over TLS); [Options].DisableTLS turns it off
// for local servers. RequestTimeout defaults to [DefaultRequestTimeout].
// Clients connect lazily, so a server that is down at start-up surfaces as
// errors on the first commands rather than as a constructor failure.
//
// # Errors
//
// The constructors return [ErrNoAddress] for an empty address list,
// [ErrBadAddress] (wrapped) for an address that is not host:port, and
// glide's own error otherwise. [Classify] sorts command errors into the
// [Kind]s callers count and retry on.
package glidex

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
)

// DefaultRequestTimeout bounds every command when Options.RequestTimeout is zero.
const DefaultRequestTimeout = 250 * time.Millisecond

var (
	// ErrNoAddress is returned when Options.Addresses is empty.
	ErrNoAddress = errors.New("glidex: no address configured")
	// ErrBadAddress is returned (wrapped) for an address that is not host:port.
	ErrBadAddress = errors.New("glidex: bad address")
)

// Options configures a glide client. The zero value is not usable: at
// least one address is needed.
type Options struct {
	// Addresses are host:port seeds. Required.
	Addresses []string
	// Cluster selects a cluster client; otherwise a standalone client.
	Cluster bool
	// DisableTLS turns TLS off. TLS is on by default whenever an address
	// is configured; turn it off only for local servers without TLS.
	DisableTLS bool
	// Username and Password are ACL credentials; empty means none. A
	// password without a username authenticates as the default user.
	Username, Password string
	// RequestTimeout bounds each command, including glide's internal
	// reconnects. Zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ConnectTimeout bounds establishing a connection (TCP and TLS).
	// Zero means RequestTimeout's value.
	ConnectTimeout time.Duration
	// ClientName is sent with CLIENT SETNAME; empty means none.
	ClientName string
}

// UseTLS reports whether a client built from o uses TLS.
func (o Options) UseTLS() bool { return len(o.Addresses) > 0 && !o.DisableTLS }

func (o Options) timeout() time.Duration {
	if o.RequestTimeout <= 0 {
		return DefaultRequestTimeout
	}
	return o.RequestTimeout
}

func (o Options) connectTimeout() time.Duration {
	if o.ConnectTimeout <= 0 {
		return o.timeout()
	}
	return o.ConnectTimeout
}

var prepareOnce sync.Once

// Prepare performs glide's lazy global initialisation once, so that
// clients can be shared between goroutines from their first command. It
// is safe to call any number of times from any goroutine.
func Prepare() {
	prepareOnce.Do(func() {
		_ = glide.GetOtelInstance()
		IgnoreSIGPIPE()
	})
}

// IgnoreSIGPIPE keeps SIGPIPE from killing the process. glide writes to
// its sockets on Rust threads; when a server dies mid-write the kernel
// raises SIGPIPE on such a non-Go thread, and the Go runtime, which
// handles SIGPIPE only on its own threads, then lets the default action
// terminate the program (os/signal, "Go programs that use cgo or SWIG").
// Asking for SIGPIPE with signal.Notify makes the runtime swallow it on
// every thread: the write fails with EPIPE instead, and glide reconnects.
// One side effect, for the whole process: a write to a closed standard
// output or error no longer ends the program with SIGPIPE either; it
// fails with EPIPE, as writes to other descriptors always do.
// [NewStandalone] and [NewCluster] call it (through [Prepare]); call it
// yourself before building glide clients by other means.
func IgnoreSIGPIPE() {
	sigpipeOnce.Do(func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) })
}

var sigpipeOnce sync.Once

func nodes(addrs []string) ([]*config.NodeAddress, error) {
	if len(addrs) == 0 {
		return nil, ErrNoAddress
	}
	out := make([]*config.NodeAddress, 0, len(addrs))
	for _, a := range addrs {
		h, p, err := net.SplitHostPort(a)
		if err != nil || h == "" {
			return nil, fmt.Errorf("%w: %q", ErrBadAddress, a)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("%w: %q", ErrBadAddress, a)
		}
		out = append(out, &config.NodeAddress{Host: h, Port: n})
	}
	return out, nil
}

func creds(o Options) *config.ServerCredentials {
	switch {
	case o.Username != "":
		return config.NewServerCredentials(o.Username, o.Password)
	case o.Password != "":
		return config.NewServerCredentialsWithDefaultUsername(o.Password)
	}
	return nil
}

// NewStandalone returns a standalone client for o. Addresses beyond the
// first are treated by glide as replicas of the same server.
func NewStandalone(o Options) (*glide.Client, error) {
	ns, err := nodes(o.Addresses)
	if err != nil {
		return nil, err
	}
	Prepare()
	cfg := config.NewClientConfiguration().
		WithAdvancedConfiguration(config.NewAdvancedClientConfiguration().WithConnectionTimeout(o.connectTimeout()))
	configure(cfg, o, ns)
	return glide.NewClient(cfg)
}

// NewCluster returns a cluster client for o; the addresses are seeds.
func NewCluster(o Options) (*glide.ClusterClient, error) {
	ns, err := nodes(o.Addresses)
	if err != nil {
		return nil, err
	}
	Prepare()
	cfg := config.NewClusterClientConfiguration().
		WithAdvancedConfiguration(config.NewAdvancedClusterClientConfiguration().WithConnectionTimeout(o.connectTimeout()))
	configure(cfg, o, ns)
	return glide.NewClusterClient(cfg)
}

// clientConfig holds the setters that glide's standalone and cluster
// configurations share (each returns its receiver).
type clientConfig[C any] interface {
	WithAddress(*config.NodeAddress) C
	WithUseTLS(bool) C
	WithLazyConnect(bool) C
	WithCredentials(*config.ServerCredentials) C
	WithRequestTimeout(time.Duration) C
	WithClientName(string) C
}

// configure sets on cfg what both kinds of client take from o: TLS, the
// request timeout, a lazy connection, the addresses ns, credentials and
// the client name.
func configure[C clientConfig[C]](cfg C, o Options, ns []*config.NodeAddress) {
	cfg.WithUseTLS(o.UseTLS())
	cfg.WithRequestTimeout(o.timeout())
	cfg.WithLazyConnect(true)
	for _, n := range ns {
		cfg.WithAddress(n)
	}
	if c := creds(o); c != nil {
		cfg.WithCredentials(c)
	}
	if o.ClientName != "" {
		cfg.WithClientName(o.ClientName)
	}
}

// Kind classifies a command error.
type Kind int

// The kinds [Classify] returns.
const (
	OK         Kind = iota // no error
	Connection             // the connection failed or dropped; safe to retry idempotent commands
	Timeout                // the request timed out or the ctx ended
	Closed                 // the client was closed
	Server                 // the server answered with an error (WRONGTYPE, script error, ...)
)

var connectionMessages = []string{
	"connect failed", "Failed to connect", "Failed to create initial connections",
	"Connection in recovery", "Connection dropped", "Connection not found", "No available connections",
	"Connection timeout", "IoError", "IO error", "connection error", "Connection refused",
	"broken pipe", "connection reset", "CLUSTERDOWN",
}

// Classify sorts err into a [Kind].
func Classify(err error) Kind {
	if err == nil {
		return OK
	}
	var (
		ce *glide.ConnectionError
		de *glide.DisconnectError
		te *glide.TimeoutError
		cl *glide.ClosingError
		cb *glide.CircuitBreakerError
	)
	switch {
	case errors.As(err, &te), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Timeout
	case errors.As(err, &ce), errors.As(err, &de), errors.As(err, &cb):
		return Connection
	case errors.As(err, &cl):
		return Closed
	}
	// Connection failures found by glide's core (lazy connects, a cluster
	// node in recovery) come back as plain errors; recognise them by text.
	msg := err.Error()
	for _, s := range connectionMessages {
		if strings.Contains(msg, s) {
			return Connection
		}
	}
	return Server
}
