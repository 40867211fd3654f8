// Package testenv gives tests the real servers that the test command
// (scripts/test.sh) starts: DynamoDB Local and Redis 7 (the Valkey
// protocol), standalone and as a three-master cluster.
//
// Addresses come from the environment:
//
//	TABLEKIT_DYNAMODB_ENDPOINT      http://127.0.0.1:PORT
//	TABLEKIT_VALKEY_ADDR            127.0.0.1:PORT
//	TABLEKIT_VALKEY_CLUSTER_ADDRS   127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3
//
// When a variable is missing the test is skipped, unless CI=true or
// TABLEKIT_REQUIRE_SERVERS=1, in which case it fails: in CI a test never
// silently skips its server. Tests that call [Dynamo] run on the embedded
// engine instead of skipping.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

// Required reports whether a missing server must fail the test.
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("TABLEKIT_REQUIRE_SERVERS") == "1"
}

func missing(t testing.TB, what, env string) {
	t.Helper()
	if Required() {
		t.Fatalf("testenv: %s is required but %s is not set (run the README's test command)", what, env)
	}
	t.Skipf("testenv: %s not configured (%s unset); run the README's test command", what, env)
}

// DynamoEndpoint returns the DynamoDB Local endpoint URL.
func DynamoEndpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT")
	if ep == "" {
		missing(t, "DynamoDB Local", "TABLEKIT_DYNAMODB_ENDPOINT")
	}
	return ep
}

// DynamoDB returns an SDK client for DynamoDB Local.
func DynamoDB(t testing.TB) *dynamodb.Client {
	t.Helper()
	return NewDynamoClient(DynamoEndpoint(t))
}

// NewDynamoClient returns an SDK client for the endpoint with dummy
// static credentials, as DynamoDB Local accepts any.
func NewDynamoClient(endpoint string) *dynamodb.Client {
	return entity.LocalClient(endpoint)
}

// Dynamo returns the DynamoDB client of a test that runs on either
// target: DynamoDB Local when TABLEKIT_DYNAMODB_ENDPOINT is set (as the
// test command does), else — unless servers are required — the embedded
// engine (package ddbmem), so that `go test ./...` on a machine with no
// server still runs these tests, fast and in process.
func Dynamo(t testing.TB) entity.Client {
	t.Helper()
	if os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT") == "" && !Required() {
		return ddbmem.New()
	}
	return DynamoDB(t)
}

// ValkeyAddr returns host:port of the standalone Redis/Valkey server.
func ValkeyAddr(t testing.TB) string {
	t.Helper()
	a := os.Getenv("TABLEKIT_VALKEY_ADDR")
	if a == "" {
		missing(t, "Valkey/Redis", "TABLEKIT_VALKEY_ADDR")
	}
	return a
}

// ValkeyClusterAddrs returns the seed addresses of the local cluster.
func ValkeyClusterAddrs(t testing.TB) []string {
	t.Helper()
	a := os.Getenv("TABLEKIT_VALKEY_CLUSTER_ADDRS")
	if a == "" {
		missing(t, "Valkey/Redis cluster", "TABLEKIT_VALKEY_CLUSTER_ADDRS")
	}
	return strings.Split(a, ",")
}

// HostPort splits "host:port" into host and numeric port.
func HostPort(t testing.TB, addr string) (string, int) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("testenv: bad address %q: %v", addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("testenv: bad port in %q: %v", addr, err)
	}
	return h, n
}

// Table creates tbl on its server ([entity.Table.EnsureTable], within 30
// seconds), deletes it when the test ends, and returns it.
func Table(t testing.TB, tbl *entity.Table) *entity.Table {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	return tbl
}

// CreatePKSKTable creates table name keyed by the strings PK (hash) and SK
// (range), billed on demand, with the raw SDK.
func CreatePKSKTable(ctx context.Context, c entity.Client, name string) error {
	return CreateKeyTable(ctx, c, name, "PK", "SK")
}

// CreateKeyTable creates table name keyed by the string attributes hash
// and rng, billed on demand, with the raw SDK.
func CreateKeyTable(ctx context.Context, c entity.Client, name, hash, rng string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(hash), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(rng), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	return err
}

// PKSKTable creates a [CreatePKSKTable] table named prefix plus a random
// suffix (within 30 seconds), deletes it when the test ends, and returns
// its name.
func PKSKTable(t testing.TB, c entity.Client, prefix string) string {
	t.Helper()
	return KeyTable(t, c, prefix, "PK", "SK")
}

// KeyTable is [PKSKTable] for a table keyed by the string attributes hash
// and rng ([CreateKeyTable]).
func KeyTable(t testing.TB, c entity.Client, prefix, hash, rng string) string {
	t.Helper()
	name := UniqueName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := CreateKeyTable(ctx, c, name, hash, rng); err != nil {
		t.Fatalf("testenv: create table %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// Must returns a function that passes on the value of a (value, error)
// call and fails the test t when the error is not nil, for tables of
// wanted values: must := testenv.Must[entity.Key](t); must(f(x)).
func Must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// RawItem reads the item at k of tbl with a consistent GetItem through
// the raw client (nil when there is none).
func RawItem(t testing.TB, tbl *entity.Table, k entity.Key) map[string]types.AttributeValue {
	t.Helper()
	out, err := tbl.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(k), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// UniqueName returns prefix plus a random suffix, for table names and key
// namespaces that must not collide between tests and runs.
func UniqueName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testenv: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// RedisProcess is a private redis-server started by a test that needs to
// stop and restart its server (fault tests). It never touches the shared
// servers of the test command. Its Port and Addr fields (of the embedded
// node) give its loopback port and address.
type RedisProcess struct {
	redisNode
}

// redisNode is a redis-server owned by one test: its port and address on
// loopback, its directory and, while it runs, its process.
type redisNode struct {
	t    testing.TB
	Port int
	Addr string
	dir  string
	cmd  *serverProc
}

// newRedisNode picks a free port (with its cluster bus port, port+10000,
// free too when cluster is set) and a directory for a redis-server of t,
// which requires the binary as [StartRedis] says.
func newRedisNode(t testing.TB, cluster bool) redisNode {
	t.Helper()
	RequireBinary(t, "redis-server")
	port := 0
	if cluster {
		port = freeClusterPort(t)
	} else {
		port = FreePort(t)
	}
	n := redisNode{t: t, Port: port, dir: t.TempDir()}
	n.Addr = fmt.Sprintf("127.0.0.1:%d", n.Port)
	return n
}

// Stop kills the server (as a crash would) and waits for it to exit.
func (n *redisNode) Stop() { stopRedisServer(&n.cmd) }

// RequireBinary makes sure the named program is on PATH: without it the
// test fails under the same rules as a missing server (it skips only
// outside CI).
func RequireBinary(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		missing(t, name+" binary", "PATH")
	}
}

// StartRedis starts a private redis-server on a free loopback port and
// stops it when the test ends. The redis-server binary must be on PATH
// (the test command installs it); it is required under the same rules as
// the shared servers.
func StartRedis(t testing.TB) *RedisProcess {
	t.Helper()
	p := &RedisProcess{newRedisNode(t, false)}
	p.Start()
	t.Cleanup(p.Stop)
	return p
}

// Start (re)starts the server on the same port and waits until it answers.
func (p *RedisProcess) Start() {
	p.t.Helper()
	if p.cmd != nil {
		return
	}
	p.cmd = startRedisServer(p.t, p.Port, p.Addr, p.dir)
}
