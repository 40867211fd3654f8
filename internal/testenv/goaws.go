package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
)

// GoawsBinEnv names the variable that holds the path of the goaws binary
// the test command installed (it also starts one shared goaws, at
// [SQSEndpointEnv]).
const GoawsBinEnv = "TABLEKIT_GOAWS_BIN"

// private is the goaws of this test process (see [PrivateSQS]).
var private struct {
	once     sync.Once
	endpoint string
	err      error
	stderr   *capped
	queues   sync.RWMutex // see queueMapLock
}

// PrivateSQS returns an SDK client for a goaws of this test process alone,
// started on first use from the binary at [GoawsBinEnv] on a free loopback
// port and killed when the process ends. The crash-point tests use it:
// goaws reads its map of queues without a lock in several handlers
// (ReceiveMessage, SendMessage, ChangeMessageVisibility), so a CreateQueue
// or DeleteQueue that runs beside them can crash it ("concurrent map read
// and map write"), and those tests create and delete a queue per crash
// point while other test processes of the run use the shared server. On
// their own server, their queues come and go between their own requests
// ([queueMapLock]). Without the variable it is [SQS], the shared server
// (the test skips, or fails in CI, when there is none).
func PrivateSQS(t testing.TB) *sqs.Client {
	t.Helper()
	bin := os.Getenv(GoawsBinEnv)
	if bin == "" {
		return SQS(t)
	}
	private.once.Do(func() { private.endpoint, private.err = startGoaws(bin) })
	if private.err != nil {
		t.Fatalf("testenv: private goaws: %v", private.err)
	}
	return sqs.New(NewSQSClient(private.endpoint).Options(), func(o *sqs.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(queueMapLock, middleware.Before)
		})
	})
}

// queueMapLock makes the requests to the private goaws hold a lock of this
// process around their whole round trip, shared, or exclusive for the two
// that write goaws's map of queues (CreateQueue, DeleteQueue): as every
// client of that server is in this process, no write of the map runs
// beside a read, even between tests that run in parallel. The crash
// tests' receives are short polls, so no request holds the lock long.
var queueMapLock = middleware.InitializeMiddlewareFunc("tablekit-goaws-map-lock", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	switch middleware.GetOperationName(ctx) {
	case "CreateQueue", "DeleteQueue":
		private.queues.Lock()
		defer private.queues.Unlock()
	default:
		private.queues.RLock()
		defer private.queues.RUnlock()
	}
	return next.HandleInitialize(ctx, in)
})

// startGoaws starts goaws on a free port, with the shared server's
// settings, and waits until it answers.
func startGoaws(bin string) (string, error) {
	var last error
	for range 3 { // the port found free may be taken before goaws binds it
		ep, err := tryGoaws(bin)
		if err == nil {
			return ep, nil
		}
		last = err
	}
	return "", last
}

func tryGoaws(bin string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	dir, err := os.MkdirTemp("", "tablekit-goaws-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir) // goaws reads its configuration when it starts
	cfg := filepath.Join(dir, "goaws.yaml")
	conf := "Local:\n  Host: localhost\n  Port: " + strconv.Itoa(port) +
		"\n  Region: us-east-1\n  AccountId: \"100010001000\"\n  LogToFile: false\n" +
		"  QueueAttributeDefaults:\n    VisibilityTimeout: 30\n    ReceiveMessageWaitTimeSeconds: 0\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "-config", cfg, "Local")
	cmd.Dir = dir
	private.stderr = &capped{max: 16 << 10}
	cmd.Stderr = private.stderr // a crash's trace; its log goes to stdout, dropped
	// goaws dies with this process: the kernel sends SIGKILL when the
	// thread that started it ends, so that thread is kept for good.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started, exited := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the process
		err := cmd.Start()
		started <- err
		if err == nil {
			_ = cmd.Wait()
			close(exited)
		}
		select {} // keep the thread
	}()
	if err := <-started; err != nil {
		return "", err
	}
	ep := "http://127.0.0.1:" + strconv.Itoa(port)
	hc := &http.Client{Timeout: time.Second}
	for range 100 {
		if resp, err := hc.Get(ep + "/"); err == nil {
			_ = resp.Body.Close()
			return ep, nil
		}
		select {
		case <-exited:
			return "", fmt.Errorf("goaws on port %d exited: %s", port, private.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = cmd.Process.Kill()
	return "", fmt.Errorf("goaws on port %d did not answer: %s", port, private.stderr.String())
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
