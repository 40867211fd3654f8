package lock_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// Shared connections of this test binary, opened on first use and closed
// by TestMain.
var (
	envMu         sync.Mutex
	standalone    *glide.Client
	cluster       *glide.ClusterClient
	vgStandalone  cache.Conn
	vgCluster     cache.Conn
	ddb           *dynamodb.Client
	tables        []string
	leaseTable    string
	dataTable     string
	runPrefix     = "tablekit:" + testenv.UniqueName("locktest")
	cleanupFuncs  []func()
	dynamoTimeout = 5 * time.Second
)

func TestMain(m *testing.M) {
	code := m.Run()
	envMu.Lock()
	for _, f := range cleanupFuncs {
		f()
	}
	envMu.Unlock()
	os.Exit(code)
}

func standaloneClient(t testing.TB) *glide.Client {
	t.Helper()
	addr := testenv.ValkeyAddr(t)
	envMu.Lock()
	defer envMu.Unlock()
	if standalone == nil {
		standalone = newStandalone(t, addr)
		c := standalone
		cleanupFuncs = append(cleanupFuncs, c.Close)
	}
	return standalone
}

func newStandalone(t testing.TB, addr string) *glide.Client {
	t.Helper()
	h, p := testenv.HostPort(t, addr)
	c, err := glide.NewClient(config.NewClientConfiguration().
		WithAddress(&config.NodeAddress{Host: h, Port: p}).
		WithRequestTimeout(2 * time.Second))
	if err != nil {
		t.Fatalf("glide client: %v", err)
	}
	return c
}

func clusterClient(t testing.TB) *glide.ClusterClient {
	t.Helper()
	addrs := testenv.ValkeyClusterAddrs(t)
	envMu.Lock()
	defer envMu.Unlock()
	if cluster == nil {
		cfg := config.NewClusterClientConfiguration().WithRequestTimeout(2 * time.Second)
		for _, a := range addrs {
			h, p := testenv.HostPort(t, a)
			cfg.WithAddress(&config.NodeAddress{Host: h, Port: p})
		}
		c, err := glide.NewClusterClient(cfg)
		if err != nil {
			t.Fatalf("glide cluster client: %v", err)
		}
		cluster = c
		cleanupFuncs = append(cleanupFuncs, c.Close)
	}
	return cluster
}

// valkeyConn is one Valkey client library on one server kind.
type valkeyConn struct {
	name string
	conn cache.Conn
}

// valkeyConns returns the shared connections of both client libraries
// (glide and valkey-go), standalone and cluster: every Valkey test runs on
// each.
func valkeyConns(t testing.TB) []valkeyConn {
	t.Helper()
	sc, cc := standaloneClient(t), clusterClient(t)
	return []valkeyConn{
		{"valkey", cache.NewGlideConn(sc)},
		{"valkey-cluster", cache.NewGlideClusterConn(cc)},
		{"valkeygo", valkeyGoConn(t, false)},
		{"valkeygo-cluster", valkeyGoConn(t, true)},
	}
}

func newValkeyGo(t testing.TB, addrs []string, cluster bool) cache.Conn {
	t.Helper()
	c, err := cache.DialValkeyGo(cache.ValkeyGoOptions{Addresses: addrs, Cluster: cluster, DisableTLS: true,
		RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("valkey-go conn: %v", err)
	}
	return c
}

func valkeyGoConn(t testing.TB, clustered bool) cache.Conn {
	t.Helper()
	addrs := []string{testenv.ValkeyAddr(t)}
	if clustered {
		addrs = testenv.ValkeyClusterAddrs(t)
	}
	envMu.Lock()
	defer envMu.Unlock()
	p := &vgStandalone
	if clustered {
		p = &vgCluster
	}
	if *p == nil {
		*p = newValkeyGo(t, addrs, clustered)
		cleanupFuncs = append(cleanupFuncs, (*p).Close)
	}
	return *p
}

func dynamo(t testing.TB) *dynamodb.Client {
	t.Helper()
	ep := testenv.DynamoEndpoint(t)
	envMu.Lock()
	defer envMu.Unlock()
	if ddb == nil {
		ddb = testenv.NewDynamoClient(ep)
		leaseTable = createTable(t, ddb, "locklease")
		dataTable = createTable(t, ddb, "lockdata")
		c := ddb
		cleanupFuncs = append(cleanupFuncs, func() {
			ctx, cancel := context.WithTimeout(context.Background(), dynamoTimeout)
			defer cancel()
			for _, tb := range tables {
				_, _ = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(tb)})
			}
		})
	}
	return ddb
}

// createTable creates a PK/SK table with the raw SDK. Call with envMu held.
func createTable(t testing.TB, c *dynamodb.Client, prefix string) string {
	t.Helper()
	name := testenv.UniqueName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), dynamoTimeout)
	defer cancel()
	err := testenv.CreatePKSKTable(ctx, c, name)
	if err != nil {
		t.Fatalf("create table %s: %v", name, err)
	}
	tables = append(tables, name)
	return name
}

// counterStore is the shared counter of the invariant tests, read and
// written with plain GET/SET (or GetItem/PutItem): only the lock protects it.
type counterStore interface {
	get(ctx context.Context) (int, error)
	set(ctx context.Context, v int) error
}

type valkeyCounter struct {
	c   cache.Conn
	key string
}

func (v valkeyCounter) get(ctx context.Context) (int, error) {
	s, ok, err := v.c.Get(ctx, v.key)
	if err != nil || !ok {
		return 0, err
	}
	return strconv.Atoi(s)
}

func (v valkeyCounter) set(ctx context.Context, n int) error {
	return v.c.Set(ctx, v.key, strconv.Itoa(n), 0)
}

type dynamoCounter struct {
	c  *dynamodb.Client
	pk string
}

func (d dynamoCounter) key() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: d.pk},
		"SK": &types.AttributeValueMemberS{Value: "COUNTER"},
	}
}

func (d dynamoCounter) get(ctx context.Context) (int, error) {
	out, err := d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(dataTable), Key: d.key(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, err
	}
	nv, ok := out.Item["n"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, nil
	}
	return strconv.Atoi(nv.Value)
}

func (d dynamoCounter) set(ctx context.Context, n int) error {
	item := d.key()
	item["n"] = &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
	_, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(dataTable), Item: item})
	return err
}

// backendCase is one backend under the shared API tests.
type backendCase struct {
	name    string
	backend lock.Backend
	locker  *lock.Locker
	counter func(name string) counterStore
	// slow scales the short TTLs of the timing tests: DynamoDB Local on a
	// loaded two-core machine can take hundreds of milliseconds per call.
	slow time.Duration
}

func backends(t *testing.T) []backendCase {
	t.Helper()
	var cases []backendCase
	for _, vc := range valkeyConns(t) {
		vb, err := valkeylock.New(vc.conn, func(o *valkeylock.Options) { o.Prefix = runPrefix })
		if err != nil {
			t.Fatal(err)
		}
		conn := vc.conn
		cases = append(cases, backendCase{name: vc.name, slow: 1, backend: vb, locker: lock.New(vb),
			counter: func(name string) counterStore { return valkeyCounter{c: conn, key: runPrefix + ":counter:" + name} }})
	}
	dc := dynamo(t)
	for _, mode := range []struct {
		name string
		mode dynamolock.Mode
	}{{"dynamo-skewsafe", dynamolock.SkewSafe}, {"dynamo-fast", dynamolock.FastTakeover}} {
		db, err := dynamolock.New(dc, func(o *dynamolock.Options) {
			o.Table = leaseTable
			o.Mode = mode.mode
			o.SkewMargin = 50 * time.Millisecond
		})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, backendCase{name: mode.name, slow: 4, backend: db, locker: lock.New(db),
			counter: func(name string) counterStore { return dynamoCounter{c: dc, pk: "COUNTER#" + name} }})
	}
	return cases
}

func uniqueKey(prefix string) string { return testenv.UniqueName(prefix) }

func ctxT(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustIs(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want errors.Is %v", err, target)
	}
}

var _ = entity.ErrConditionFailed
