package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/internal/testenv"
)

// mustContain fails for every line of want that out does not contain.
func mustContain(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

// lockLines checks that every preset ran on exactly one of the two
// competing servers, n times in out (once per backend).
func lockLines(t *testing.T, out string, n int) {
	t.Helper()
	for _, p := range presets() {
		re := regexp.MustCompile(regexp.QuoteMeta(p.Key+" (TTL "+p.TTL.String()+"): ") +
			`1 server ran the job \[server-\d \(fence \d+\)\], 1 skipped \[server-\d\] \(lock: not obtained\); IsLocked after: false`)
		if got := len(re.FindAllString(out, -1)); got != n {
			t.Errorf("%s: %d matching lines, want %d", p.Key, got, n)
		}
		running := regexp.MustCompile(`while running: IsLocked=true held=\[` + regexp.QuoteMeta(p.Key) + `\]`)
		if got := len(running.FindAllString(out, -1)); got != n {
			t.Errorf("%s: %d 'while running' lines, want %d", p.Key, got, n)
		}
	}
	if got := strings.Count(out, "shutdown: active locks [scheduler:cleanup_queues scheduler:monthly_summary] (IsLocked scheduler:cleanup_queues=true)"); got != n {
		t.Errorf("shutdown lines: %d, want %d", got, n)
	}
	if got := strings.Count(out, "ForceReleaseAll: active locks [] (IsLocked scheduler:cleanup_queues=false)"); got != n {
		t.Errorf("ForceReleaseAll lines: %d, want %d", got, n)
	}
}

func TestRunWithServers(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	ep := testenv.DynamoEndpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	app := strings.ReplaceAll(testenv.UniqueName("finance_app"), "-", "_")
	c := cfg{
		AppID: app, Env: "test", Service: testenv.UniqueName("svc"),
		ValkeyAddrs: []string{addr}, DynamoEndpoint: ep, Table: testenv.UniqueName("BaseServer"),
	}
	var buf bytes.Buffer
	if err := run(ctx, &buf, c); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	out := buf.String()
	t.Log("\n" + out)

	ns := app + ":test:"
	mustContain(t, out,
		"connected to Valkey at "+addr+" (tls=false cluster=false)",
		// namespace
		"  "+ns+c.Service+":user:profile:123\n",
		"  "+ns+"session:abc123-def456\n",
		"  "+ns+"mq:message:uuid-1234\n",
		"  "+ns+"lock:scheduler:outbox_events\n",
		"the Valkey lock backend uses the same namespace",
		// cache patterns
		"string "+ns+c.Service+`:user:profile:123 = {"user_id":"123","name":"Kim","tier":"gold"}`,
		"string user:profile:404: cache: miss",
		"cache-aside user:profile:404 read 3 times: loader ran 1 time(s)",
		"hash user:settings:123 = theme:dark language:ko notifications:true",
		"hash user:settings:123 field theme after HSet = light",
		"set user:permissions:123: transfer:create=true admin=false",
		"sorted set leaderboard:daily top 3: 1. user:789 99.25, 2. user:123 95.5, 3. user:456 88",
		"sorted set leaderboard:daily: user:123 ranks #2 with 95.5",
		// sessions
		"user=acc-1001 shard_id=1 ttl=1h0m0s absolute lifetime: false\n",
		" and "+ns+"session:sessionInfo:",
		"TTL refreshed true",
		"limit 3: 4 logins, the oldest (",
		"was evicted: true",
		"the 3 newer sessions still validate: 3; tracked oldest first: 3",
		"rotate: old token rejected true, new token valid true",
		"rejected afterwards: true",
		// locks on Valkey, with the server's view of the key
		"server key "+ns+"lock:scheduler:outbox_events TTL 5m0s",
		"server key "+ns+"lock:scheduler:create_table TTL 1m0s",
		"server key "+ns+"lock:scheduler:cleanup_queues TTL 1h0m0s",
		"server key "+ns+"lock:scheduler:monthly_summary TTL 30m0s",
		// locks on DynamoDB
		"distributed lock on DynamoDB, DynamoDB at "+ep,
		"lease item "+c.Table+" PK=LOCK#scheduler:outbox_events SK=LOCK",
		// metrics and health
		"demo cleanup: deleted 5 cache keys",
		"failed=0 success_rate=1.000",
		"connection_failures=0 timeouts=0 server_errors=0",
		"health: healthy=true nodes=1",
		"redis_version=",
	)
	if !regexp.MustCompile(`validate: ok, last_access_time moved [1-9]\d*ms past login_time`).MatchString(out) {
		t.Error("validate did not move last_access_time")
	}
	lockLines(t, out, 2)

	// The demo left no cache keys or sessions behind.
	cc, err := cache.New(cache.Options{AppID: app, Env: "test", Service: c.Service, Addresses: []string{addr}, DisableTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	for _, k := range []string{"user:profile:123", "user:settings:123", "leaderboard:daily"} {
		if _, err := cc.Get(ctx, k); !errors.Is(err, cache.ErrMiss) {
			t.Errorf("%s still there: %v", k, err)
		}
	}
	sv, err := cc.WithService("session", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sv.ZRangeByRank(ctx, "user:sessions:{acc-1001}", 0, -1, false); err != nil {
		t.Fatal(err)
	} else if ms, _ := sv.ZRangeByRank(ctx, "user:sessions:{acc-1001}", 0, -1, false); len(ms) != 0 {
		t.Errorf("sessions left: %d", len(ms))
	}
	// The lock table the example created is gone.
	db := testenv.NewDynamoClient(ep)
	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(c.Table)})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("table %s after run: %v, want ResourceNotFoundException", c.Table, err)
	}
}

// In cluster mode the same program runs unchanged: the session keys share
// a slot through their hash tag, the lock and its fence counter too, and the
// cleanup's DEL is split per slot.
func TestRunCluster(t *testing.T) {
	addrs := testenv.ValkeyClusterAddrs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	app := strings.ReplaceAll(testenv.UniqueName("finance_app"), "-", "_")
	c := cfg{AppID: app, Env: "test", Service: testenv.UniqueName("svc"), ValkeyAddrs: addrs, Cluster: true}
	var buf bytes.Buffer
	if err := run(ctx, &buf, c); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	out := buf.String()
	mustContain(t, out,
		"(tls=false cluster=true)",
		"was evicted: true",
		"the 3 newer sessions still validate: 3; tracked oldest first: 3",
		"server key "+app+":test:lock:scheduler:outbox_events TTL 5m0s",
		"demo cleanup: deleted 5 cache keys",
		"failed=0 success_rate=1.000",
		"health: healthy=true nodes=",
	)
	if t.Failed() {
		t.Log("\n" + out)
	}
}

// embeddedEngineWorks reports whether ddbmem can create a table (it is a
// stub until the engine lands).
func embeddedEngineWorks(ctx context.Context) bool {
	_, err := ensureTable(ctx, ddbmem.New(), "probe")
	return err == nil
}

func TestRunWithoutServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var buf bytes.Buffer
	if err := run(ctx, &buf, cfg{}); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	out := buf.String()
	t.Log("\n" + out)
	mustContain(t, out,
		"base server example (seed 002): app_id=finance_app env=dev",
		"no Valkey configured (set TABLEKIT_VALKEY_ADDR, or BASESERVER_VALKEY_ENDPOINT for TLS): the Redis-backed parts",
		"  finance_app:dev:cache:user:profile:123\n",
		"  finance_app:dev:session:abc123-def456\n",
		"  finance_app:dev:lock:scheduler:outbox_events\n",
		"a placeholder copied from the document is rejected: cache: invalid key",
		"GetOrLoad user:profile:123 twice: the loader ran 2 times",
		"Get user:profile:123: cache: miss",
		"sessions: session: the cache has no endpoint",
		"metrics: operations=2 bypassed=2 misses=3",
		"health: healthy=true enabled=false",
		"distributed lock on DynamoDB, the embedded engine (ddbmem)",
	)
	if embeddedEngineWorks(ctx) {
		lockLines(t, out, 1)
		mustContain(t, out, "lease item BaseServerTable PK=LOCK#scheduler:create_table SK=LOCK")
	} else {
		mustContain(t, out, "skipped: the embedded engine cannot create table BaseServerTable")
	}
}

func TestConfigFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want cfg
	}{
		{"nothing", nil, cfg{}},
		{"local", map[string]string{"TABLEKIT_VALKEY_ADDR": "127.0.0.1:6379"},
			cfg{ValkeyAddrs: []string{"127.0.0.1:6379"}}},
		{"tls endpoint wins", map[string]string{
			"TABLEKIT_VALKEY_ADDR": "127.0.0.1:6379", "BASESERVER_VALKEY_ENDPOINT": "a.example.com:6379,b.example.com:6379",
			"BASESERVER_VALKEY_CLUSTER": "true", "BASESERVER_APP_ID": "pay", "BASESERVER_ENV": "prod",
			"TABLEKIT_DYNAMODB_ENDPOINT": "http://127.0.0.1:8000"},
			cfg{AppID: "pay", Env: "prod", ValkeyAddrs: []string{"a.example.com:6379", "b.example.com:6379"},
				TLS: true, Cluster: true, DynamoEndpoint: "http://127.0.0.1:8000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"TABLEKIT_VALKEY_ADDR", "BASESERVER_VALKEY_ENDPOINT", "BASESERVER_VALKEY_CLUSTER",
				"BASESERVER_APP_ID", "BASESERVER_ENV", "TABLEKIT_DYNAMODB_ENDPOINT"} {
				t.Setenv(k, tc.env[k])
			}
			if diff := cmp.Diff(tc.want, configFromEnv(), cmp.AllowUnexported(cfg{})); diff != "" {
				t.Errorf("configFromEnv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunBadAddress(t *testing.T) {
	err := run(context.Background(), &bytes.Buffer{}, cfg{ValkeyAddrs: []string{"no-port"}})
	if err == nil || !strings.Contains(err.Error(), `valkey address "no-port"`) {
		t.Errorf("run with a bad address: %v", err)
	}
}

// TestMain runs the program's main instead of the tests when
// BASESERVER_RUN_MAIN=1: TestMainExit starts the test binary that way.
func TestMain(m *testing.M) {
	if os.Getenv("BASESERVER_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestMainExit checks the program's exit codes: 0 with no server
// configured, 1 with a message on stderr for an unusable address.
func TestMainExit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		code   int
		stdout string
		stderr string
	}{
		{"no server", nil, 0, "the Redis-backed parts (cached values, sessions, the Valkey lock) need a server", ""},
		{"bad endpoint", []string{"BASESERVER_VALKEY_ENDPOINT=no-port"}, 1, "", `baseserver: connect to Valkey at no-port: valkey address "no-port"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			for _, kv := range os.Environ() {
				switch k, _, _ := strings.Cut(kv, "="); k {
				case "TABLEKIT_VALKEY_ADDR", "BASESERVER_VALKEY_ENDPOINT", "BASESERVER_VALKEY_CLUSTER", "TABLEKIT_DYNAMODB_ENDPOINT":
				default:
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "BASESERVER_RUN_MAIN=1")
			cmd.Env = append(cmd.Env, tc.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
		})
	}
}
