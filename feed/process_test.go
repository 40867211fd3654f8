package feed_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestFeedChild is the consumer process of TestThreeProcesses (it runs
// only when FEED_CHILD is set): it appends one line per handled record,
// "fence shard pk v at" (at: the handler call's time in Unix
// nanoseconds), to FEED_OUT before the batch is checkpointed.
func TestFeedChild(t *testing.T) {
	if os.Getenv("FEED_CHILD") == "" {
		t.Skip("the child process of TestThreeProcesses")
	}
	ep, table, leaseTable, owner := os.Getenv("FEED_ENDPOINT"), os.Getenv("FEED_TABLE"), os.Getenv("FEED_LEASES"), os.Getenv("FEED_OWNER")
	out, err := os.OpenFile(os.Getenv("FEED_OUT"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var db entity.Client = testenv.NewDynamoClient(ep)
	var streams feed.Streams = localStreams(ep)
	if os.Getenv("FEED_ENGINE") != "" {
		db, streams = ddbmem.NewEndpointClient(ep), ddbmem.NewStreamsEndpointClient(ep)
	}
	c, err := feed.New(streams, table, func(ctx context.Context, b feed.Batch) error {
		var sb strings.Builder
		at := time.Now().UnixNano()
		for _, r := range b.Records {
			fmt.Fprintf(&sb, "%d %s %s %s %d\n", b.Fence, b.Shard, r.Keys["PK"].(*types.AttributeValueMemberS).Value, r.New["v"].(*types.AttributeValueMemberN).Value, at)
		}
		_, err := out.WriteString(sb.String())
		return err
	}, func(o *feed.Options) {
		o.Leases = leases(t, db, leaseTable, owner)
		fast(o)
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Run(context.Background()) // until killed
}

// TestThreeProcesses: three consumer processes share one stream; one is
// killed with SIGKILL twice (a third and two thirds of the way through
// the writes) and started again. Every record is handled, per item in
// order within each owner's tenure (fence), and a record is handled twice
// only under a later fence than its first handling (after a takeover).
// It runs on the engine served over HTTP (ddbmem.Serve, its stream in 4
// shards, 10,000 writes) and on DynamoDB Local (one shard; 1,000 writes,
// 10,000 with TABLEKIT_FEED_FULL=1: a shared DynamoDB Local under load
// takes 20 s to over 3 minutes for 10,000 writes to a table with a
// stream), and prints the counts, the time the writes took and the lag
// from a write's acknowledgement to the first handler call of its record
// (the processes share the clock). TABLEKIT_FEED_WRITES=N runs N writes
// on each (a multiple of 10).
func TestThreeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Run("engine", func(t *testing.T) {
		srv, err := ddbmem.Serve(ddbmem.New(func(o *ddbmem.Options) { o.Stream.Shards = 4 }), "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		tg := target{name: "engine", db: srv.Client(), streams: srv.StreamsClient()}
		threeProcesses(t, tg, srv.URL(), processWrites(t, 10_000))
	})
	t.Run("local", func(t *testing.T) {
		writes := 1_000
		if os.Getenv("TABLEKIT_FEED_FULL") != "" {
			writes = 10_000
		}
		threeProcesses(t, localTarget(t), testenv.DynamoEndpoint(t), processWrites(t, writes))
	})
}

// processWrites is the number of writes of TestThreeProcesses: def, or
// TABLEKIT_FEED_WRITES.
func processWrites(t *testing.T, def int) int {
	v := os.Getenv("TABLEKIT_FEED_WRITES")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 30 || n%10 != 0 {
		t.Fatalf("TABLEKIT_FEED_WRITES=%q: want a multiple of 10, at least 30", v)
	}
	return n
}

func threeProcesses(t *testing.T, tg target, ep string, writes int) {
	const items = 50
	table := streamTable(t, tg.db, "feedproc")
	leaseTbl := testenv.PKSKTable(t, tg.db, "feedproclease")
	dir := t.TempDir()
	type proc struct {
		cmd  *exec.Cmd
		name string
	}
	start := func(name string) *proc {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestFeedChild$", "-test.v")
		cmd.Env = append(os.Environ(), "FEED_CHILD=1", "FEED_ENGINE="+map[bool]string{true: "1"}[tg.name == "engine"], "FEED_ENDPOINT="+ep, "FEED_TABLE="+table, "FEED_LEASES="+leaseTbl,
			"FEED_OWNER="+name, "FEED_OUT="+filepath.Join(dir, name+".out"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd, name}
		t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
		return p
	}
	procs := []*proc{start("p0"), start("p1"), start("p2")}
	began := time.Now()
	// the victim is the owner of the shard: the last to write its output
	victim := func() int {
		best, bestAt := 0, time.Time{}
		for i, p := range procs {
			if st, err := os.Stat(filepath.Join(dir, p.name+".out")); err == nil && st.ModTime().After(bestAt) {
				best, bestAt = i, st.ModTime()
			}
		}
		return best
	}
	// 10 writers, each writing its own items in version order; the
	// victim is killed when a third and two thirds of the writes are done
	kills := 0
	var written atomic.Int64
	type rec struct {
		pk string
		v  int
	}
	var ackMu sync.Mutex
	acks := make(map[rec]int64, writes)
	var wg sync.WaitGroup
	perWriter := writes / 10
	for g := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				// writer g owns items g, g+10, g+20, ...; each gets versions 1, 2, ...
				k := g + 10*(i%(items/10))
				r := rec{fmt.Sprintf("item%02d", k), i/(items/10) + 1}
				putV(t, tg.db, table, r.pk, r.v)
				at := time.Now().UnixNano()
				ackMu.Lock()
				acks[r] = at
				ackMu.Unlock()
				written.Add(1)
			}
		}()
	}
	for _, at := range []int64{int64(writes / 3), int64(2 * writes / 3)} {
		for written.Load() < at {
			time.Sleep(5 * time.Millisecond)
		}
		i := victim()
		p := procs[i]
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		kills++
		procs[i] = start(fmt.Sprintf("%s-restart%d", strings.Split(p.name, "-")[0], kills))
	}
	wg.Wait()
	wrote := time.Since(began)
	// wait until every record was handled
	var handled map[rec][]int64
	var firstAt map[rec]int64
	var outLines int
	perProc := map[string]int{}
	tenures := map[string]bool{}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		handled = map[rec][]int64{}
		firstAt = map[rec]int64{}
		outLines = 0
		clear(perProc)
		clear(tenures)
		files, _ := filepath.Glob(filepath.Join(dir, "*.out"))
		type line struct {
			fence int64
			shard string
			r     rec
			at    int64
		}
		var all [][]line
		for _, f := range files {
			var ls []line
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				var l line
				if _, err := fmt.Sscanf(sc.Text(), "%d %s %s %d %d", &l.fence, &l.shard, &l.r.pk, &l.r.v, &l.at); err != nil {
					continue // a line cut by SIGKILL
				}
				ls = append(ls, l)
				handled[l.r] = append(handled[l.r], l.fence)
				if f, ok := firstAt[l.r]; !ok || l.at < f {
					firstAt[l.r] = l.at
				}
				outLines++
				perProc[filepath.Base(f)]++
				tenures[fmt.Sprint(l.shard, " ", l.fence)] = true
			}
			fh.Close()
			all = append(all, ls)
		}
		if len(handled) >= writes || time.Now().After(deadline) {
			// per-item order within each tenure
			disorder := 0
			for _, ls := range all {
				last := map[[2]string]int{}
				for _, l := range ls {
					k := [2]string{strconv.FormatInt(l.fence, 10) + l.shard, l.r.pk}
					if l.r.v <= last[k] {
						disorder++
					}
					last[k] = l.r.v
				}
			}
			if disorder > 0 {
				t.Errorf("%d records out of per-item order within one owner's tenure", disorder)
			}
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	dups, badDups := 0, 0
	for r, fs := range handled {
		if len(fs) > 1 {
			dups += len(fs) - 1
			sort.Slice(fs, func(i, j int) bool { return fs[i] < fs[j] })
			for i := 1; i < len(fs); i++ {
				if fs[i] == fs[i-1] {
					badDups++
					t.Errorf("%v handled twice under fence %d (no takeover between)", r, fs[i])
				}
			}
		}
	}
	t.Logf("writes %d, records handled %d of %d, handler lines %d, duplicates %d (all after a takeover: %v), shard tenures (shard, fence) %d, SIGKILLs %d, lines per process %v",
		writes, len(handled), writes, outLines, dups, badDups == 0, len(tenures), kills, perProc)
	var lags []time.Duration
	for r, at := range firstAt {
		if a, ok := acks[r]; ok {
			lags = append(lags, time.Duration(max(at-a, 0)))
		}
	}
	slices.Sort(lags)
	pct := func(p float64) time.Duration {
		if len(lags) == 0 {
			return 0
		}
		return lags[min(int(p*float64(len(lags))), len(lags)-1)]
	}
	t.Logf("writes took %v (%.0f/s), every record handled %v after the last write",
		wrote.Round(time.Millisecond), float64(writes)/wrote.Seconds(), (time.Since(began) - wrote).Round(time.Millisecond))
	t.Logf("lag write ack -> first handler call: p50 %v, p90 %v, p99 %v, max %v (%d records; a SIGKILL and takeover in between)",
		pct(0.5), pct(0.9), pct(0.99), pct(1), len(lags))
	if len(handled) != writes {
		t.Fatalf("%d records never handled", writes-len(handled))
	}
}
