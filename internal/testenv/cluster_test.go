package testenv

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
)

// A cluster node's port leaves room for its bus port (port+10000), which
// must be free: here the bus port of the first port the kernel offers is
// taken, as a shared cluster's node may take it.
func TestFreeClusterPort(t *testing.T) {
	for range 50 {
		port := freeClusterPort(t)
		if port > maxClusterPort {
			t.Fatalf("port %d: its bus port %d is over 65535", port, port+10000)
		}
		for _, p := range []int{port, port + 10000} {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				t.Fatalf("port %d is not free: %v", p, err)
			}
			l.Close()
		}
	}
}

// A node whose bus port another server holds fails the test at once with
// redis-server's log, rather than after waiting for an answer that never
// comes; StartRedisCluster picks ports that avoid it.
func TestRedisClusterBusPortTaken(t *testing.T) {
	RequireBinary(t, "redis-server")
	var port int
	var bus net.Listener
	for {
		port = FreePort(t)
		if port > maxClusterPort {
			continue
		}
		var err error
		if bus, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			break
		}
	}
	defer bus.Close()
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		startRedisServer(ft, port, "127.0.0.1:"+strconv.Itoa(port), t.TempDir(),
			"--cluster-enabled", "yes")
	}()
	<-done
	if !strings.Contains(ft.msg, "exited at start") {
		t.Fatalf("startRedisServer with its bus port taken: %q, want it to report the exit", ft.msg)
	}
	c := StartRedisCluster(t)
	if out := c.send("PING"); !strings.HasPrefix(out, "+PONG") {
		t.Fatalf("cluster node: %q", out)
	}
}

// fatalRecorder records a Fatalf instead of failing the test; it stops
// the calling goroutine with a panic the caller recovers.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

func (f *fatalRecorder) Helper() {}
