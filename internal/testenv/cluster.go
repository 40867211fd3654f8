package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisCluster is a private one-node Redis cluster owned by one test,
// which may stop (kill) and restart it. The node keeps its slots across
// restarts through nodes.conf in its directory. Its Port and Addr fields
// (of the embedded node) give its loopback port and address.
type RedisCluster struct {
	redisNode
}

// StartRedisCluster starts a private one-node cluster holding every slot
// and stops it when the test ends. redis-server is required as for StartRedis.
func StartRedisCluster(t testing.TB) *RedisCluster {
	t.Helper()
	p := &RedisCluster{newRedisNode(t, true)}
	p.Start()
	t.Cleanup(p.Stop)
	if out := p.send("CLUSTER ADDSLOTSRANGE 0 16383"); !strings.HasPrefix(out, "+OK") {
		t.Fatalf("testenv: ADDSLOTSRANGE: %q", out)
	}
	p.waitOK()
	return p
}

func (p *RedisCluster) send(cmd string) string { return Inline(p.Addr, cmd) }

func (p *RedisCluster) waitOK() {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.send("CLUSTER INFO"), "cluster_state:ok") {
		if time.Now().After(deadline) {
			p.t.Fatal("testenv: private cluster never became ok")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Start (re)starts the node on the same port and waits until the cluster
// is ok (about two seconds after a restart). It is a no-op while the node
// runs.
func (p *RedisCluster) Start() {
	p.t.Helper()
	p.start()
	if strings.Contains(p.send("CLUSTER INFO"), "cluster_slots_assigned:16384") {
		p.waitOK()
	}
}

// StartNoWait restarts the node and waits only until it answers PING: its
// cluster state may still be "fail" (commands fail with CLUSTERDOWN) for
// about two seconds.
func (p *RedisCluster) StartNoWait() {
	p.t.Helper()
	p.start()
}

func (p *RedisCluster) start() {
	p.t.Helper()
	if p.cmd != nil {
		return
	}
	p.cmd = startRedisServer(p.t, p.Port, p.Addr, p.dir,
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(p.dir, "nodes.conf"))
}

// maxClusterPort is the highest port a cluster node can have: Redis puts
// its cluster bus on port+10000 and refuses to start when that is over
// 65535.
const maxClusterPort = 65535 - 10000

// freeClusterPort returns a loopback TCP port that was free a moment ago,
// at most maxClusterPort, whose cluster bus port (port+10000) was free
// too. FreePort alone is not enough for a cluster node: the kernel hands
// out ports up to 60999, and the bus port may be another server's (a
// shared cluster node, say), which makes redis-server exit at start.
func freeClusterPort(t testing.TB) int {
	t.Helper()
	for range 200 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("testenv: free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if port > maxClusterPort {
			l.Close()
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		l.Close()
		if err != nil {
			continue
		}
		bus.Close()
		return port
	}
	t.Fatal("testenv: no free port whose cluster bus port is free")
	return 0
}

// startRedisServer starts redis-server on port (loopback, no persistence,
// logging to dir) with the extra arguments and waits until it answers
// PING at addr.
func startRedisServer(t testing.TB, port int, addr, dir string, args ...string) *serverProc {
	t.Helper()
	args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1"}, args...)
	args = append(args, "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	cmd := exec.Command("redis-server", args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: start redis-server: %v", err)
	}
	proc := &serverProc{cmd: cmd, exited: make(chan struct{})}
	exited := proc.exited
	go func() {
		// Reaps the server when it exits, at start (its port taken,
		// say) or when stopRedisServer kills it.
		_ = cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasPrefix(Inline(addr, "PING"), "+PONG") {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("testenv: redis-server on %s exited at start; its log:\n%s", addr, log)
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("testenv: redis-server on %s did not answer", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return proc
}

// Inline sends one inline command to the Redis server at addr on a fresh
// connection and returns its first answer ("" when it cannot connect).
func Inline(addr, cmd string) string {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	_, _ = c.Write([]byte(cmd + "\r\n"))
	buf := make([]byte, 4096)
	n, _ := c.Read(buf)
	return string(buf[:n])
}

// serverProc is a server process a test started, reaped by a goroutine
// of its own: exited is closed once it has exited.
type serverProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// stopRedisServer kills the server of *p (as a crash would), waits for it
// to exit and clears *p; it does nothing when *p is nil.
func stopRedisServer(p **serverProc) {
	if *p == nil {
		return
	}
	_ = (*p).cmd.Process.Kill()
	<-(*p).exited
	*p = nil
}
