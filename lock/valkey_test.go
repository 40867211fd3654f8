package lock_test

import (
	"context"
	"errors"
	"github.com/tablekit/tablekit/retry"
	"sort"
	"sync"
	"testing"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// TestValkeyKeys checks the stored keys and values on both server kinds,
// including a key that carries its own hash tag on the cluster.
func TestValkeyKeys(t *testing.T) {
	ctx := ctxT(t, 20*time.Second)
	for _, c := range valkeyConns(t) {
		t.Run(c.name, func(t *testing.T) {
			b, err := valkeylock.New(c.conn, func(o *valkeylock.Options) { o.Prefix = runPrefix })
			if err != nil {
				t.Fatal(err)
			}
			lk := lock.New(b)
			for _, key := range []string{uniqueKey("scheduler:plain"), "{" + uniqueKey("user") + "}:job"} {
				l, err := lk.Obtain(ctx, key, 5*time.Second)
				if err != nil {
					t.Fatalf("Obtain %q: %v", key, err)
				}
				v, ok, err := c.conn.Get(ctx, runPrefix+":lock:"+key)
				if err != nil || !ok || v != l.Token() {
					t.Fatalf("GET %s = %v, %v; want the token", runPrefix+":lock:"+key, v, err)
				}
				fk, _ := b.FenceKey(key)
				fv, ok, err := c.conn.Get(ctx, fk)
				if err != nil || !ok {
					t.Fatalf("fence key %s: %v %v", fk, fv, err)
				}
				if err := l.Release(ctx); err != nil {
					t.Fatal(err)
				}
				// A lost fence counter (restart without persistence, eviction)
				// restarts from the server clock, above every earlier number.
				if _, err := c.conn.Del(ctx, []string{fk}); err != nil {
					t.Fatal(err)
				}
				l2, err := lk.Obtain(ctx, key, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if l2.Fence() <= l.Fence() {
					t.Errorf("fence after counter loss %d, before %d", l2.Fence(), l.Fence())
				}
				if err := l2.Release(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestValkeyRestart restarts a private Redis server while locks are held.
//
// Part 1 follows the documented assumption (the server stays down for one
// TTL): while many workers contend across the restart, no two holders are
// ever valid at the same moment, the holder's heartbeat reports the loss,
// and fencing numbers keep growing. Part 2 restarts at once: the holder's
// next refresh reports the loss.
func TestValkeyRestart(t *testing.T) {
	for _, name := range []string{"valkey", "valkeygo"} {
		t.Run(name, func(t *testing.T) {
			srv := testenv.StartRedis(t)
			var conn cache.Conn
			if name == "valkeygo" {
				conn = newValkeyGo(t, []string{srv.Addr}, false)
			} else {
				conn = cache.NewGlideConn(newStandalone(t, srv.Addr))
			}
			defer conn.Close()
			valkeyRestart(t, srv, conn)
		})
	}
}

func valkeyRestart(t *testing.T, srv *testenv.RedisProcess, conn cache.Conn) {
	b, err := valkeylock.New(conn, func(o *valkeylock.Options) { o.Prefix = runPrefix })
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New(b)
	key := uniqueKey("restart")
	const ttl = 500 * time.Millisecond

	type interval struct {
		from, to time.Time
		fence    int64
	}
	var (
		mu        sync.Mutex
		intervals []interval
		wg        sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				l, err := lk.Obtain(ctx, key, ttl, func(o *lock.Options) {
					o.Retry = retry.Exponential(5*time.Millisecond, 50*time.Millisecond)
				})
				if err != nil {
					cancel()
					time.Sleep(10 * time.Millisecond)
					continue
				}
				from := time.Now()
				time.Sleep(20 * time.Millisecond) // the work
				to := time.Now()
				if d := l.Deadline(); d.Before(to) {
					to = d // the holder stops acting at its deadline
				}
				_ = l.Release(ctx)
				cancel()
				mu.Lock()
				intervals = append(intervals, interval{from, to, l.Fence()})
				mu.Unlock()
			}
		}()
	}

	// A long holder with a heartbeat is holding when the server dies.
	hctx, hcancel := context.WithCancel(context.Background())
	defer hcancel()
	time.Sleep(200 * time.Millisecond)
	a, err := lk.Obtain(hctx, key+"-a", ttl, func(o *lock.Options) { o.AutoRefresh = true })
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	stoppedAt := time.Now()
	select {
	case <-a.Lost():
	case <-time.After(3 * ttl):
		t.Fatal("heartbeat did not report the loss while the server was down")
	}
	if time.Since(stoppedAt) < ttl-ttl/100-50*time.Millisecond {
		t.Errorf("lost after %v, before its validity ran out", time.Since(stoppedAt))
	}
	time.Sleep(ttl - time.Since(stoppedAt)) // delayed restart: down for one TTL
	srv.Start()
	mustIs(t, a.Refresh(hctx), lock.ErrLost)
	aFence := a.Fence()
	bctx := ctxT(t, 10*time.Second)
	bl, err := lk.Obtain(bctx, key+"-a", ttl, func(o *lock.Options) {
		o.Retry = retry.Constant(50 * time.Millisecond)
		o.Timeout = 8 * time.Second
	})
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if bl.Fence() <= aFence {
		t.Errorf("fence after restart %d, before %d", bl.Fence(), aFence)
	}
	_ = bl.Release(bctx)
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()

	sort.Slice(intervals, func(i, j int) bool { return intervals[i].from.Before(intervals[j].from) })
	if len(intervals) < 10 {
		t.Fatalf("only %d holds", len(intervals))
	}
	var before, after int
	for i, iv := range intervals {
		if iv.from.Before(stoppedAt) {
			before++
		} else {
			after++
		}
		if i > 0 {
			prev := intervals[i-1]
			if iv.from.Before(prev.to) {
				t.Errorf("two holders at once: %v..%v and %v..%v", prev.from, prev.to, iv.from, iv.to)
			}
			if iv.fence <= prev.fence {
				t.Errorf("fence %d after %d", iv.fence, prev.fence)
			}
		}
	}
	t.Logf("%d holds before the restart, %d after", before, after)
	if after == 0 {
		t.Error("no hold after the restart")
	}

	// Part 2: an immediate restart; the next refresh reports the loss.
	ctx := ctxT(t, 10*time.Second)
	cl, err := lk.Obtain(ctx, key+"-c", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	srv.Start()
	var rerr error
	for i := 0; i < 50; i++ { // the client reconnects in the background
		rerr = cl.Refresh(ctx)
		if errors.Is(rerr, lock.ErrLost) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustIs(t, rerr, lock.ErrLost)
	select {
	case <-cl.Lost():
	default:
		t.Fatal("Lost not closed")
	}
}

var _ = glide.GetOtelInstance
