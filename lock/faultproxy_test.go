package lock_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
	"github.com/tablekit/tablekit/retry"
)

// faultProxy is a TCP proxy in front of a server that, for each chunk of
// the server's replies it forwards, delays it (and with it the rest of
// that connection's stream) with probability delayP, or drops it and
// resets both connections with probability dropP: a slow or failing
// server as the client sees it.
type faultProxy struct {
	ln            net.Listener
	target        string
	delayP, dropP float64
	delayMin      time.Duration
	delayMax      time.Duration

	mu     sync.Mutex
	conns  []net.Conn
	closed bool
	wg     sync.WaitGroup

	chunks, delayed, dropped atomic.Int64
	// armed turns the faults on; until then replies pass untouched, so
	// that the clients' connection handshakes in the test's setup succeed.
	armed atomic.Bool
}

func startFaultProxy(t testing.TB, target string, delayP, dropP float64, delayMin, delayMax time.Duration) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, delayP: delayP, dropP: dropP, delayMin: delayMin, delayMax: delayMax}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) addr() string { return p.ln.Addr().String() }

func (p *faultProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns = append(p.conns, c)
	return true
}

func (p *faultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(c) || !p.track(s) {
			c.Close()
			s.Close()
			return
		}
		p.wg.Add(2)
		go func() { defer p.wg.Done(); _, _ = io.Copy(s, c); s.Close() }()
		go func() { defer p.wg.Done(); p.replies(c, s) }()
	}
}

// replies forwards the server's replies to the client with the faults.
func (p *faultProxy) replies(c, s net.Conn) {
	defer c.Close()
	defer s.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			p.chunks.Add(1)
			r := 1.0 // no fault
			if p.armed.Load() {
				r = rand.Float64()
			}
			switch {
			case r < p.dropP:
				p.dropped.Add(1)
				if tc, ok := c.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // a reset, not an orderly close
				}
				return
			case r < p.dropP+p.delayP:
				p.delayed.Add(1)
				time.Sleep(p.delayMin + rand.N(p.delayMax-p.delayMin))
			}
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *faultProxy) close() {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.mu.Unlock()
	p.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}

// lockFaultSize is the size of TestObtainRidesOutFaults: the 16
// contenders × 120 cycles (1,920) by default, about 90 s under -race on a
// loaded two-core machine; TABLEKIT_LOCK_FAULT_COUNTER="G,C" sets another
// size (G contenders × C cycles).
func lockFaultSize() (int, int) {
	if v := os.Getenv("TABLEKIT_LOCK_FAULT_COUNTER"); v != "" {
		g, c, ok := strings.Cut(v, ",")
		gi, err1 := strconv.Atoi(g)
		ci, err2 := strconv.Atoi(c)
		if ok && err1 == nil && err2 == nil {
			return gi, ci
		}
	}
	return 16, 120
}

// TestObtainRidesOutFaults: 16 contenders, each with its own glide client
// (request timeout 500 ms) through a proxy that delays 1 % of the
// server's replies by 100 ms-1.5 s (most past the request timeout) and
// resets the connection on another 1 %, run 1,920 read-modify-write cycles
// of a counter under the lock with Timeout 20 s (see [lockFaultSize]): every Obtain succeeds,
// the holders never overlap, the fencing numbers strictly grow and the
// counter ends exact. Before the retries of transient errors, Obtain gave
// up on the first timeout.
func TestObtainRidesOutFaults(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	proxy := startFaultProxy(t, addr, 0.01, 0.01, 100*time.Millisecond, 1500*time.Millisecond)
	goroutines, cycles := lockFaultSize()
	direct := cache.NewGlideConn(standaloneClient(t))
	key := uniqueKey("faultcounter")
	cs := valkeyCounter{c: direct, key: runPrefix + ":counter:" + key}
	ctx := ctxT(t, 5*time.Minute)

	h, port := testenv.HostPort(t, proxy.addr())
	lockers := make([]*lock.Locker, goroutines)
	for g := range lockers {
		c, err := glide.NewClient(config.NewClientConfiguration().
			WithAddress(&config.NodeAddress{Host: h, Port: port}).
			WithRequestTimeout(500 * time.Millisecond))
		if err != nil {
			t.Fatalf("glide client: %v", err)
		}
		t.Cleanup(c.Close)
		b, err := valkeylock.New(cache.NewGlideConn(c), func(o *valkeylock.Options) { o.Prefix = runPrefix })
		if err != nil {
			t.Fatal(err)
		}
		lockers[g] = lock.New(b, func(o *lock.Options) {
			o.Retry = retry.Exponential(2*time.Millisecond, 100*time.Millisecond)
			o.Timeout = 20 * time.Second
			o.CleanupTimeout = 500 * time.Millisecond
		})
	}
	proxy.armed.Store(true) // the faults start once every client is connected
	var (
		hs          holders
		releaseErrs atomic.Int32
		wg          sync.WaitGroup
		errMu       sync.Mutex
		errs        []error
	)
	fail := func(err error) { errMu.Lock(); errs = append(errs, err); errMu.Unlock() }
	start := time.Now()
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < cycles; i++ {
				// A TTL of 3 s: longer than the proxy's longest delay, and a
				// release whose request is lost leaves the key to expire
				// well within the others' 20 s.
				l, err := lockers[g].Obtain(ctx, key, 3*time.Second)
				if err != nil {
					fail(err)
					continue
				}
				if err := hs.increment(ctx, l, cs); err != nil {
					fail(err)
				}
				if err := l.Release(ctx); err != nil {
					// A release delayed past the lock's validity finds the
					// key expired (ErrNotHeld); one whose reply was lost
					// fails transiently. Either way the key is free by TTL.
					expired := errors.Is(err, lock.ErrNotHeld) && time.Now().After(l.Deadline())
					if !expired && (errors.Is(err, lock.ErrNotHeld) || !cache.Transient(errors.Unwrap(err))) {
						fail(err)
					}
					releaseErrs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	total := goroutines * cycles
	t.Logf("%d cycles in %v; proxy: %d reply chunks, %d delayed, %d dropped; %d releases lost to a fault or late (the key expired)",
		total, time.Since(start).Round(time.Millisecond), proxy.chunks.Load(), proxy.delayed.Load(), proxy.dropped.Load(), releaseErrs.Load())
	if len(errs) > 0 {
		t.Fatalf("%d of %d cycles failed; first: %v", len(errs), total, errs[0])
	}
	if proxy.delayed.Load() == 0 || proxy.dropped.Load() == 0 {
		t.Errorf("the proxy injected no fault: the test proved nothing")
	}
	hs.check(t, ctx, cs, total)
}

// holders records the holders of a counter test: overlapping holders and
// the fencing number of each, in the order they took the lock.
type holders struct {
	inside, overlaps atomic.Int32
	mu               sync.Mutex
	fences           []int64
}

// increment is one holder's critical section: it records l and adds one
// to the counter with a plain read and write.
func (h *holders) increment(ctx context.Context, l *lock.Lock, cs counterStore) error {
	if h.inside.Add(1) != 1 {
		h.overlaps.Add(1)
	}
	defer h.inside.Add(-1)
	h.mu.Lock()
	h.fences = append(h.fences, l.Fence())
	h.mu.Unlock()
	v, err := cs.get(ctx)
	if err == nil {
		err = cs.set(ctx, v+1)
	}
	return err
}

// check asserts the counter ended at total, no holders overlapped and the
// fencing numbers strictly grew.
func (h *holders) check(t *testing.T, ctx context.Context, cs counterStore, total int) {
	t.Helper()
	got, err := cs.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != total {
		t.Errorf("counter = %d, want %d", got, total)
	}
	if n := h.overlaps.Load(); n != 0 {
		t.Errorf("%d overlapping holders", n)
	}
	if len(h.fences) != total {
		t.Fatalf("%d fences recorded, want %d", len(h.fences), total)
	}
	for i := 1; i < len(h.fences); i++ {
		if h.fences[i] <= h.fences[i-1] {
			t.Fatalf("fence %d after %d (holder %d)", h.fences[i], h.fences[i-1], i)
		}
	}
}
