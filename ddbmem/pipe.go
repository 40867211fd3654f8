package ddbmem

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// pipeConn is one end of an in-process connection between a [Server] and
// its own clients ([Server.Client], [Server.StreamsClient]): what one end
// writes, the other reads, through a buffer in memory. It carries the
// same HTTP/1.1 bytes a socket would, read by the same lean loop.
//
// Unlike [net.Pipe], a write does not wait for the reader: it appends to
// the buffer (up to pipeBufMax unread bytes) and returns, so a request or
// response written in one write is handed over at once. A read with
// nothing to read first waits busy for up to pipeSpin, yielding its
// processor (runtime.Gosched) every pipeYield, and only then parks. Waking a parked goroutine when the process has an idle processor
// wakes an OS thread for it, which on a virtual machine can cost more
// than the engine's work for a request; a reader still running when its
// bytes come takes them with no wake-up at all. A direction whose last
// wait outlasted pipeSpin (an idle keep-alive connection, a client that
// pauses between requests) parks at once until a wait is short again, so
// idle connections do not spin; at most GOMAXPROCS readers wait busy at
// a time, and none with GOMAXPROCS 1, where a wake-up needs no other
// thread.
type pipeConn struct {
	in, out *pipeHalf
	rd, wd  pipeDeadline
	local   pipeAddr
	remote  pipeAddr
	once    sync.Once
	closed  chan struct{} // closed by Close
}

// pipeBufMax bounds the unread bytes of one direction; a writer waits
// for the reader beyond it.
const pipeBufMax = 1 << 20

// pipeSpin is how long a read waits busy before it parks: above the
// engine's time for a request, and above a client's time between two
// requests of a busy loop (the SDK's client takes 50–100 µs to decode a
// Query's 20 items on a slow virtual machine).
const pipeSpin = 400 * time.Microsecond

// pipeYield is how often a busy reader yields its processor, to a
// goroutine it keeps from running there (the peer it woke, which runs
// next on the processor that woke it).
const pipeYield = 2 * time.Microsecond

// pipeSpinners counts the readers waiting busy, of every pipe.
var pipeSpinners atomic.Int32

// pipeHalf is one direction of an in-process connection.
type pipeHalf struct {
	mu   sync.Mutex
	buf  []byte
	off  int  // buf[off:] is unread
	eof  bool // the writing end is closed
	gone bool // the reading end is closed
	// rsig and wsig, when not nil, are closed to wake the readers, or
	// the writers, parked on them.
	rsig, wsig chan struct{}
	// ready is set when a read would not wait (unread bytes, eof or
	// gone): what a busy reader watches.
	ready atomic.Bool
	// patient is set while the reader's last wait was short enough to
	// wait busy.
	patient atomic.Bool
}

func newPipeHalf() *pipeHalf {
	h := &pipeHalf{}
	h.patient.Store(true)
	return h
}

// newPipe returns the two ends of a new in-process connection.
func newPipe() (client, server *pipeConn) {
	a, b := newPipeHalf(), newPipeHalf()
	client = &pipeConn{in: a, out: b, local: "client", remote: "server", closed: make(chan struct{})}
	server = &pipeConn{in: b, out: a, local: "server", remote: "client", closed: make(chan struct{})}
	for _, c := range []*pipeConn{client, server} {
		c.rd.passed = make(chan struct{})
		c.wd.passed = make(chan struct{})
	}
	return client, server
}

// wake wakes the goroutines parked on *sig, if any.
func wake(sig *chan struct{}) {
	if *sig != nil {
		close(*sig)
		*sig = nil
	}
}

// parkOn returns the channel to park on until *sig is woken.
func parkOn(sig *chan struct{}) chan struct{} {
	if *sig == nil {
		*sig = make(chan struct{})
	}
	return *sig
}

func (c *pipeConn) Read(p []byte) (int, error) {
	h := c.in
	var start time.Time // when this read began to wait
	spun := false       // start is set
	for {
		h.mu.Lock()
		if h.gone {
			h.mu.Unlock()
			return 0, net.ErrClosed
		}
		if h.off < len(h.buf) {
			if spun {
				// A wait that ended within pipeSpin, busy or parked,
				// lets the next one wait busy; a longer one does not.
				h.patient.Store(time.Since(start) < pipeSpin)
			}
			n := copy(p, h.buf[h.off:])
			h.off += n
			if h.off == len(h.buf) {
				h.buf, h.off = h.buf[:0], 0
				if cap(h.buf) > pipeBufMax {
					h.buf = nil
				}
				h.ready.Store(false)
			}
			wake(&h.wsig)
			h.mu.Unlock()
			return n, nil
		}
		if h.eof {
			h.mu.Unlock()
			return 0, io.EOF
		}
		if c.rd.expired() {
			h.mu.Unlock()
			return 0, os.ErrDeadlineExceeded
		}
		if !spun {
			h.mu.Unlock()
			spun = true
			start = time.Now()
			if h.patient.Load() && spinFor(&h.ready, start) {
				continue
			}
			h.mu.Lock()
			if h.ready.Load() {
				h.mu.Unlock()
				continue
			}
		}
		sig := parkOn(&h.rsig)
		h.mu.Unlock()
		select {
		case <-sig:
		case <-c.rd.wait():
		case <-c.closed:
		}
	}
}

// spinFor waits busy, from start, up to pipeSpin for ready to be set,
// yielding the processor every pipeYield; it reports whether ready was
// set. It does not wait when GOMAXPROCS is 1 or GOMAXPROCS readers wait
// busy already. A deadline or Close that comes while it waits is seen
// when it parks, at most pipeSpin late (Close sets ready).
func spinFor(ready *atomic.Bool, start time.Time) bool {
	procs := int32(runtime.GOMAXPROCS(0))
	if procs < 2 {
		return false
	}
	if pipeSpinners.Add(1) > procs {
		pipeSpinners.Add(-1)
		return false
	}
	defer pipeSpinners.Add(-1)
	deadline := start.Add(pipeSpin)
	yielded := start
	for i := 1; ; i++ {
		if ready.Load() {
			return true
		}
		if i%64 == 0 {
			now := time.Now()
			if now.After(deadline) {
				return ready.Load()
			}
			if now.Sub(yielded) >= pipeYield {
				runtime.Gosched()
				yielded = now
			}
		}
	}
}

func (c *pipeConn) Write(p []byte) (int, error) {
	h := c.out
	n := 0
	for {
		h.mu.Lock()
		if h.eof {
			h.mu.Unlock()
			return n, net.ErrClosed
		}
		if h.gone {
			h.mu.Unlock()
			return n, io.ErrClosedPipe
		}
		if c.wd.expired() {
			h.mu.Unlock()
			return n, os.ErrDeadlineExceeded
		}
		if room := pipeBufMax - (len(h.buf) - h.off); room > 0 {
			m := min(room, len(p)-n)
			h.buf = append(h.buf, p[n:n+m]...)
			n += m
			if m > 0 {
				h.ready.Store(true)
				wake(&h.rsig)
			}
			if n == len(p) {
				h.mu.Unlock()
				return n, nil
			}
		}
		sig := parkOn(&h.wsig)
		h.mu.Unlock()
		select {
		case <-sig:
		case <-c.wd.wait():
		case <-c.closed:
		}
	}
}

// Close closes both directions: the peer reads what was written before,
// then io.EOF, and its writes fail; this end's reads and writes fail with
// net.ErrClosed.
func (c *pipeConn) Close() error {
	first := false
	c.once.Do(func() {
		first = true
		close(c.closed)
		for _, h := range []*pipeHalf{c.out, c.in} {
			h.mu.Lock()
			if h == c.out {
				h.eof = true
			} else {
				h.gone = true
				h.buf, h.off = nil, 0
			}
			h.ready.Store(true)
			wake(&h.rsig)
			wake(&h.wsig)
			h.mu.Unlock()
		}
	})
	if !first {
		return net.ErrClosed
	}
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.local }
func (c *pipeConn) RemoteAddr() net.Addr { return c.remote }

func (c *pipeConn) SetDeadline(t time.Time) error {
	c.rd.set(t)
	c.wd.set(t)
	return nil
}

func (c *pipeConn) SetReadDeadline(t time.Time) error  { c.rd.set(t); return nil }
func (c *pipeConn) SetWriteDeadline(t time.Time) error { c.wd.set(t); return nil }

// pipeAddr is the address of an end of an in-process connection.
type pipeAddr string

// pipeNetwork is the network of an in-process connection's addresses.
const pipeNetwork = "ddbmem"

func (pipeAddr) Network() string  { return pipeNetwork }
func (a pipeAddr) String() string { return string(a) }

// pipeDeadline is a read or write deadline: a channel closed once it has
// passed.
type pipeDeadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	passed chan struct{}
}

func (d *pipeDeadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.passed // the timer has fired: wait until it has closed passed
	}
	d.timer = nil
	closed := isClosed(d.passed)
	if !t.IsZero() && !time.Now().Before(t) {
		if !closed {
			close(d.passed)
		}
		return
	}
	if closed {
		d.passed = make(chan struct{})
	}
	if !t.IsZero() {
		ch := d.passed
		d.timer = time.AfterFunc(time.Until(t), func() { close(ch) })
	}
}

// wait returns a channel closed once the deadline has passed.
func (d *pipeDeadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.passed
}

func (d *pipeDeadline) expired() bool { return isClosed(d.wait()) }

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
