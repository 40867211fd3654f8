package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
	"github.com/valkey-io/valkey-glide/go/v2/options"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// warmup cycles run before the timer starts: connection set-up and the
// first EVALSHA (NOSCRIPT, then SCRIPT LOAD) are not part of a cycle.
const warmup = 50

// rawRelease is the compare-and-delete script a hand-written lock uses.
var rawRelease = options.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// BenchmarkLock measures one obtain + release cycle, uncontended.
//
//	ValkeyCycle    lock.Locker on valkeylock (acquire: MULTI/EXEC of SET NX PX and the
//	               fence INCR; release: compare-and-delete script)
//	RawGlideCycle  the same by hand: SET NX PX, then the compare-and-delete script
//	DynamoCycle    lock.Locker on dynamolock (two conditional UpdateItems)
//
// and the valkey-go pair ValkeyGoCycle / RawValkeyGoCycle (benchLockValkeyGo).
// Goal: ValkeyCycle <= 1.15 × RawGlideCycle ns/op.
func BenchmarkLock(b *testing.B) {
	ctx := context.Background()
	prefix := "tablekit:" + testenv.UniqueName("benchlock")

	valkeyClient := func(b *testing.B) *glide.Client {
		h, p := testenv.HostPort(b, testenv.ValkeyAddr(b))
		c, err := glide.NewClient(config.NewClientConfiguration().WithAddress(&config.NodeAddress{Host: h, Port: p}))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		return c
	}

	b.Run("ValkeyCycle", func(b *testing.B) {
		c := valkeyClient(b)
		vb, err := valkeylock.New(cache.NewGlideConn(c), func(o *valkeylock.Options) { o.Prefix = prefix })
		if err != nil {
			b.Fatal(err)
		}
		lk := lock.New(vb)
		runCycles(b, warmup, lockCycle(ctx, b, lk, "cycle"))
	})

	b.Run("RawGlideCycle", func(b *testing.B) {
		c := valkeyClient(b)
		key := prefix + ":lock:raw"
		setOpts := *options.NewSetOptions().SetOnlyIfDoesNotExist().SetExpiry(options.NewExpiryIn(10 * time.Second))
		cycle := func() {
			var tb [16]byte
			_, _ = rand.Read(tb[:])
			token := hex.EncodeToString(tb[:])
			r, err := c.SetWithOptions(ctx, key, token, setOpts)
			if err != nil || r.IsNil() {
				b.Fatalf("SET NX: %v %v", r, err)
			}
			res, err := c.InvokeScriptWithOptions(ctx, *rawRelease, options.ScriptOptions{Keys: []string{key}, Args: []string{token}})
			if err != nil || res != int64(1) {
				b.Fatalf("release: %v %v", res, err)
			}
		}
		runCycles(b, warmup, cycle)
	})

	benchLockValkeyGo(b, prefix)

	b.Run("DynamoCycle", func(b *testing.B) {
		dc := testenv.DynamoDB(b)
		table := testenv.PKSKTable(b, dc, "benchlock")
		db, err := dynamolock.New(dc, func(o *dynamolock.Options) { o.Table = table })
		if err != nil {
			b.Fatal(err)
		}
		lk := lock.New(db)
		runCycles(b, 0, lockCycle(ctx, b, lk, "cycle"))
	})
}

// runCycles runs cycle warm times untimed, then b.N times timed, with
// allocations and process CPU (cpu-ns/op) reported.
func runCycles(b *testing.B, warm int, cycle func()) {
	for i := 0; i < warm; i++ {
		cycle()
	}
	b.ReportAllocs()
	b.ResetTimer()
	stopCPU := reportCPU(b)
	for i := 0; i < b.N; i++ {
		cycle()
	}
	b.StopTimer()
	stopCPU()
}

// lockCycle is one cycle of the lock benchmarks: obtain the lock name on
// lk, then release it.
func lockCycle(ctx context.Context, b *testing.B, lk *lock.Locker, name string) func() {
	return func() {
		l, err := lk.Obtain(ctx, name, 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
