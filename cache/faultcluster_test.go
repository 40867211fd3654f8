package cache_test

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/internal/testenv"
)

// privateCluster is a one-node Redis cluster owned by one test, which it
// may stop and restart (testenv.StartRedis gives only standalone servers).
// The node keeps its slots across restarts through nodes.conf in its dir.
type privateCluster struct {
	t    *testing.T
	port int
	addr string
	dir  string
	cmd  *exec.Cmd
}

func startPrivateCluster(t *testing.T) *privateCluster {
	t.Helper()
	testenv.RequireBinary(t, "redis-server")
	p := &privateCluster{t: t, port: testenv.FreePort(t), dir: t.TempDir()}
	p.addr = fmt.Sprintf("127.0.0.1:%d", p.port)
	p.Start()
	t.Cleanup(p.Stop)
	if out := p.send("CLUSTER ADDSLOTSRANGE 0 16383"); !strings.HasPrefix(out, "+OK") {
		t.Fatalf("ADDSLOTSRANGE: %q", out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.send("CLUSTER INFO"), "cluster_state:ok") {
		if time.Now().After(deadline) {
			t.Fatal("private cluster never became ok")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// send writes one inline command and returns what the server answers.
func (p *privateCluster) send(cmd string) string {
	c, err := net.DialTimeout("tcp", p.addr, time.Second)
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

func (p *privateCluster) Start() {
	p.t.Helper()
	if p.cmd != nil {
		return
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(p.port), "--bind", "127.0.0.1",
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(p.dir, "nodes.conf"),
		"--save", "", "--appendonly", "no", "--dir", p.dir, "--logfile", filepath.Join(p.dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start redis-server: %v", err)
	}
	p.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasPrefix(p.send("PING"), "+PONG") {
		if time.Now().After(deadline) {
			p.t.Fatalf("redis-server on %s did not answer", p.addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *privateCluster) Stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}
