package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadlines gives commands a request timeout without a runtime timer per
// command: the deadlines of one granule share one channel, closed by one
// timer when the granule ends. A command's deadline is its timeout
// rounded up to the next granule (at most timeout/16, at least 1 ms, late).
// With thousands of commands a second this replaces thousands of timer
// insertions and deletions (context.WithTimeout) with a few hundred.
type deadlines struct {
	timeout, gran time.Duration
	cur           atomic.Pointer[granule]
	mu            sync.Mutex
}

type granule struct {
	id int64 // end of the granule, in granules since the epoch
	at time.Time
	ch chan struct{}
	bg granuleCtx // the granule's context on context.Background()
}

func newDeadlines(timeout time.Duration) *deadlines {
	return &deadlines{timeout: timeout, gran: max(time.Millisecond, timeout/16)}
}

// ctx returns a context that ends one timeout (rounded up) from now. Its
// parent must never be cancelled (Done() == nil): the result does not
// watch it.
func (d *deadlines) ctx(parent context.Context) context.Context {
	now := time.Now()
	id := (now.UnixNano()+int64(d.timeout))/int64(d.gran) + 1
	g := d.cur.Load()
	if g == nil || g.id != id {
		g = d.granule(id)
	}
	if parent == context.Background() {
		return &g.bg // the common parent: one context per granule
	}
	return &granuleCtx{Context: parent, g: g}
}

func (d *deadlines) granule(id int64) *granule {
	d.mu.Lock()
	defer d.mu.Unlock()
	if g := d.cur.Load(); g != nil && g.id >= id {
		return g // a later granule only ends later: still a deadline past the timeout
	}
	at := time.Unix(0, id*int64(d.gran))
	g := &granule{id: id, at: at, ch: make(chan struct{})}
	g.bg = granuleCtx{Context: context.Background(), g: g}
	time.AfterFunc(time.Until(at), func() { close(g.ch) })
	d.cur.Store(g)
	return g
}

// granuleCtx is a context ending with its granule. Value comes from the
// parent.
type granuleCtx struct {
	context.Context
	g *granule
}

func (c *granuleCtx) Deadline() (time.Time, bool) { return c.g.at, true }
func (c *granuleCtx) Done() <-chan struct{}       { return c.g.ch }
func (c *granuleCtx) Err() error {
	select {
	case <-c.g.ch:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
