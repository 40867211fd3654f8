package glidex_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/internal/glidex"
	"github.com/tablekit/tablekit/internal/testenv"
)

// The process survives Valkey dying under load. glide's I/O runs on Rust
// threads; a write there to a socket the server has reset raises SIGPIPE
// on a non-Go thread, which terminates a Go program unless something
// handles it (os/signal, "Go programs that use cgo or SWIG"). The test
// re-runs this test binary as a child that hammers a private Redis from
// 64 goroutines while it is killed and restarted 50 times, and checks
// the child exits normally.
const (
	sigpipeChildEnv = "TABLEKIT_SIGPIPE_CHILD" // standalone | cluster
	sigpipeRawEnv   = "TABLEKIT_SIGPIPE_RAW"   // 1: build the client without glidex (no protection)
	sigpipeCycles   = 50
	sigpipeWorkers  = 64
)

func TestSurvivesValkeyDeathUnderLoad(t *testing.T) {
	if os.Getenv(sigpipeChildEnv) != "" {
		return // this process is the child (TestSigpipeChild); the parent runs the proof
	}
	testenv.RequireBinary(t, "redis-server")
	for _, mode := range []string{"standalone", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			if os.Getenv("TABLEKIT_SIGPIPE_REPRO") == "1" {
				// Without the protection the child dies with SIGPIPE.
				out, err := runChild(t, mode, true)
				t.Logf("unprotected child: %v %s", err, lastLine(out, "sigpipe child done"))
			}
			out, err := runChild(t, mode, false)
			for attempt := 1; err != nil && attempt < 3 && glideCallbackCrash(out); attempt++ {
				// Not SIGPIPE (which would fail the test here): a crash
				// inside valkey-glide's own result callback, upstream's bug
				// (see glideCallbackCrash). Seen once in many CI runs; the
				// proof is run again so that it stays a proof about SIGPIPE.
				t.Logf("child %d crashed in valkey-glide's callback, not by SIGPIPE; running it again:\n%s", attempt, tail(out))
				out, err = runChild(t, mode, false)
			}
			if err != nil {
				t.Fatalf("child died: %v\n%s", err, tail(out))
			}
			if !strings.Contains(out, "sigpipe child done") {
				t.Fatalf("child did not finish:\n%s", tail(out))
			}
			t.Log(lastLine(out, "sigpipe child done"))
		})
	}
}

func runChild(t *testing.T, mode string, raw bool) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSigpipeChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), sigpipeChildEnv+"="+mode)
	if raw {
		cmd.Env = append(cmd.Env, sigpipeRawEnv+"=1")
	}
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// glideCallbackCrash reports whether a child died of the Go runtime's
// fatal error inside valkey-glide v2.5.3's result callbacks
// (callbacks.go, failureCallback or successCallback): the Rust core calls
// back with a pointer to a result channel after the Go side has let it
// go, and the send finds a freed channel ("send on synctest channel from
// outside bubble" is how Go 1.26 reports the garbage it reads). It is a
// crash of glide's, under connections dying mid-request, and not the
// SIGPIPE death this proof is about.
func glideCallbackCrash(out string) bool {
	return strings.Contains(out, "fatal error:") && strings.Contains(out, "valkey-glide/go/v2") &&
		(strings.Contains(out, "failureCallback") || strings.Contains(out, "successCallback"))
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	var keep []string
	for _, l := range lines {
		if !strings.Contains(l, "WARN") && !strings.Contains(l, "ERROR") {
			keep = append(keep, l)
		}
	}
	if len(keep) > 30 {
		keep = keep[len(keep)-30:]
	}
	return strings.Join(keep, "\n")
}

func lastLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

type server interface {
	Start()
	Stop()
}

// fastCluster restarts without waiting for the cluster state to be ok
// (about two seconds) but on every tenth restart, so 50 kills fit in the
// test budget and writes succeed in between; what matters is that
// connections die under load.
type fastCluster struct {
	*testenv.RedisCluster
	n *int
}

func (f fastCluster) Start() {
	if *f.n++; *f.n%10 == 0 {
		f.RedisCluster.Start()
	} else {
		f.StartNoWait()
	}
}

// TestSigpipeChild is the child: it runs only when the parent sets
// TABLEKIT_SIGPIPE_CHILD.
func TestSigpipeChild(t *testing.T) {
	mode := os.Getenv(sigpipeChildEnv)
	if mode == "" {
		// A helper process, as os/exec's tests have: it does its work
		// only in the child that TestSurvivesValkeyDeathUnderLoad starts.
		return
	}
	raw := os.Getenv(sigpipeRawEnv) == "1"
	var srv server
	var addr string
	if mode == "cluster" {
		r := testenv.StartRedisCluster(t)
		srv, addr = fastCluster{r, new(int)}, r.Addr
	} else {
		r := testenv.StartRedis(t)
		srv, addr = r, r.Addr
	}
	var set func(ctx context.Context, k, v string) error
	var closeFn func()
	o := glidex.Options{Addresses: []string{addr}, DisableTLS: true, RequestTimeout: 200 * time.Millisecond, Cluster: mode == "cluster"}
	switch {
	case raw && mode == "cluster":
		h, p, _ := strings.Cut(addr, ":")
		n, _ := strconv.Atoi(p)
		c, err := glide.NewClusterClient(config.NewClusterClientConfiguration().WithAddress(&config.NodeAddress{Host: h, Port: n}).
			WithRequestTimeout(200 * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		set = func(ctx context.Context, k, v string) error { _, err := c.Set(ctx, k, v); return err }
		closeFn = c.Close
	case raw:
		h, p, _ := strings.Cut(addr, ":")
		n, _ := strconv.Atoi(p)
		c, err := glide.NewClient(config.NewClientConfiguration().WithAddress(&config.NodeAddress{Host: h, Port: n}).
			WithRequestTimeout(200 * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		set = func(ctx context.Context, k, v string) error { _, err := c.Set(ctx, k, v); return err }
		closeFn = c.Close
	case mode == "cluster":
		c, err := glidex.NewCluster(o)
		if err != nil {
			t.Fatal(err)
		}
		set = func(ctx context.Context, k, v string) error { _, err := c.Set(ctx, k, v); return err }
		closeFn = c.Close
	default:
		c, err := glidex.NewStandalone(o)
		if err != nil {
			t.Fatal(err)
		}
		set = func(ctx context.Context, k, v string) error { _, err := c.Set(ctx, k, v); return err }
		closeFn = c.Close
	}
	defer closeFn()
	value := strings.Repeat("v", 256<<10) // big writes: the socket dies mid-write
	var stop atomic.Bool
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < sigpipeWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				if err := set(ctx, fmt.Sprintf("k:%d:%d", w, i%8), value); err != nil {
					failed.Add(1)
				} else {
					ok.Add(1)
				}
				cancel()
			}
		}(w)
	}
	for i := 0; i < sigpipeCycles; i++ {
		time.Sleep(40 * time.Millisecond)
		srv.Stop()
		time.Sleep(10 * time.Millisecond)
		srv.Start()
	}
	// With the server up for good, the load goes on until a write has
	// succeeded (at most 10 s): on a loaded machine the 40 ms windows
	// between kills can pass with every 256 KiB write timed out.
	for deadline := time.Now().Add(10 * time.Second); ok.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if ok.Load() == 0 {
		t.Fatalf("no write succeeded: the load never reached a live server")
	}
	fmt.Printf("sigpipe child done: %s, %d kills, %d writes ok, %d failed\n", mode, sigpipeCycles, ok.Load(), failed.Load())
}
