package testenv

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisCluster is a private one-node Redis cluster owned by one test,
// which may stop (kill) and restart it. The node keeps its slots across
// restarts through nodes.conf in its directory.
type RedisCluster struct {
	t    testing.TB
	Port int
	Addr string
	dir  string
	cmd  *exec.Cmd
}

// StartRedisCluster starts a private one-node cluster holding every slot
// and stops it when the test ends. redis-server is required as for StartRedis.
func StartRedisCluster(t testing.TB) *RedisCluster {
	t.Helper()
	RequireBinary(t, "redis-server")
	p := &RedisCluster{t: t, Port: FreePort(t), dir: t.TempDir()}
	p.Addr = fmt.Sprintf("127.0.0.1:%d", p.Port)
	p.Start()
	t.Cleanup(p.Stop)
	if out := p.send("CLUSTER ADDSLOTSRANGE 0 16383"); !strings.HasPrefix(out, "+OK") {
		t.Fatalf("testenv: ADDSLOTSRANGE: %q", out)
	}
	p.waitOK()
	return p
}

func (p *RedisCluster) send(cmd string) string {
	c, err := net.DialTimeout("tcp", p.Addr, time.Second)
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
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(p.Port), "--bind", "127.0.0.1",
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(p.dir, "nodes.conf"),
		"--save", "", "--appendonly", "no", "--dir", p.dir, "--logfile", filepath.Join(p.dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("testenv: start redis-server: %v", err)
	}
	p.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasPrefix(p.send("PING"), "+PONG") {
		if time.Now().After(deadline) {
			p.t.Fatalf("testenv: redis-server on %s did not answer", p.Addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the node (as a crash would) and waits for it to exit.
func (p *RedisCluster) Stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}
