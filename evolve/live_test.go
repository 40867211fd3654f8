package evolve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/evolve/evolvecmd"
	"github.com/tablekit/tablekit/examples/evolve/post"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
)

// cmdConfig is the wiring the child processes of TestLiveBackfill run:
// the example's.
var cmdConfig = evolvecmd.Config{
	Table:    post.NewTable,
	Entities: []evolve.Entity{evolve.EntityOf[post.Post]()},
	Jobs:     []evolve.Job{backfillJob("post-author-index")},
}

// TestMain runs the command in a child process of TestLiveBackfill
// (EVOLVE_CHILD_ARGS holds its arguments, JSON-encoded).
func TestMain(m *testing.M) {
	if a := os.Getenv("EVOLVE_CHILD_ARGS"); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			panic(err)
		}
		os.Exit(evolvecmd.Run(context.Background(), cmdConfig, args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// ackedPost is the last acknowledged state of a post a writer touched.
type ackedPost struct {
	key    entity.Key
	live   bool
	title  string
	author string
}

// TestLiveBackfill is seed 001 §7 on a live table: posts written by the
// old code (no AuthorId_CreatedAt keys), then the job run by two OS
// processes (the evolve command), one of them SIGKILLed twice and
// restarted, while 8 goroutines keep creating, updating and deleting
// posts with the new code. At the end the doctor finds nothing, every
// live post is in the new index exactly once, and every acknowledged
// write of the application is what the table holds.
//
// Sizes: 10,000 posts on the engine and 1,000 on DynamoDB Local by
// default (about 20 s and 60 s under -race on 2 busy cores; the issue's
// 100,000 and 10,000 took 99 s and 66 s there, more than the default run
// can spend); TABLEKIT_EVOLVE_FULL=1 runs the sizes, and
// TABLEKIT_EVOLVE_N and TABLEKIT_EVOLVE_LOCAL_N set either size.
func TestLiveBackfill(t *testing.T) {
	full := os.Getenv("TABLEKIT_EVOLVE_FULL") == "1"
	size := func(env string, n int) int {
		if v, err := strconv.Atoi(os.Getenv(env)); err == nil && v > 0 {
			return v
		}
		return n
	}
	t.Run("engine", func(t *testing.T) {
		n := 10000
		if full {
			n = 100000
		}
		n = size("TABLEKIT_EVOLVE_N", n)
		db := ddbmem.New()
		srv, err := ddbmem.Serve(db, "")
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		liveBackfill(t, db, srv.URL(), n, time.Second)
	})
	t.Run("dynamodb-local", func(t *testing.T) {
		n := 1000
		if full {
			n = 10000
		}
		liveBackfill(t, testenv.DynamoDB(t), testenv.DynamoEndpoint(t), size("TABLEKIT_EVOLVE_LOCAL_N", n), 4*time.Second)
	})
}

func liveBackfill(t *testing.T, c entity.Client, endpoint string, n int, leaseDur time.Duration) {
	start := time.Now()
	tbl, seeded := seedPosts(t, c, n)
	t.Logf("seeded %d posts in %v", n, time.Since(start).Round(time.Millisecond))
	ctx := ctxT(t, 20*time.Minute)
	store := entity.NewStore[post.Post](tbl)

	// 8 application writers, each on its own posts (a share of the seeded
	// ones and those it creates), logging every acknowledged write.
	const writers = 8
	logs := make([]map[string]*ackedPost, writers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var acked [writers]int
	for w := 0; w < writers; w++ {
		mine := map[string]*ackedPost{}
		var ids []string
		for i := w; i < len(seeded); i += writers {
			p := seeded[i]
			k, _ := post.PostKey(p.CategoryID, p.ID)
			mine[p.ID] = &ackedPost{key: k, live: true, title: p.Title, author: p.AuthorID}
			ids = append(ids, p.ID)
		}
		logs[w] = mine
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 19))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				time.Sleep(20 * time.Millisecond) // an application's pace, not a load test
				id := ids[rng.IntN(len(ids))]
				a := mine[id]
				var err error
				switch op := rng.IntN(10); {
				case op < 2: // create
					p := post.Post{ID: codex.NewID(), CategoryID: fmt.Sprintf("c%02d", rng.IntN(97)), Title: fmt.Sprint("new ", w, " ", i), AuthorID: fmt.Sprintf("u%03d", rng.IntN(50))}
					if err = store.Create(ctx, &p); err == nil {
						k, _ := post.PostKey(p.CategoryID, p.ID)
						mine[p.ID] = &ackedPost{key: k, live: true, title: p.Title, author: p.AuthorID}
						ids = append(ids, p.ID)
					}
				case op < 3 && a.live: // delete
					if err = store.Delete(ctx, a.key); err == nil {
						a.live = false
					}
				case a.live: // update the title, sometimes the author (a source of the new index)
					title := fmt.Sprint("upd ", w, " ", i)
					if rng.IntN(3) == 0 { // a new author: read and put the whole post (new code)
						var p post.Post
						if p, err = store.Get(ctx, a.key, entity.ConsistentRead); err == nil {
							p.Title, p.AuthorID = title, fmt.Sprintf("u%03d", rng.IntN(50))
							if err = store.Put(ctx, &p); err == nil {
								a.title, a.author = p.Title, p.AuthorID
							}
						}
						break
					}
					if _, err = store.Update(ctx, a.key, entity.Changes[post.Post]{entity.Set(post.PostTitle, title)}); err == nil {
						a.title = title
					}
				default:
					continue
				}
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				acked[w]++
			}
		}(w)
	}

	// Two OS processes run the job; A is killed twice and restarted, each
	// time only once it has checkpointed a page of a segment it has not
	// finished, so that the segment is taken over from that checkpoint.
	// Small pages give every segment several checkpoints; a write budget
	// per process keeps the run long enough to kill A inside a segment (it
	// binds at the default sizes only), and B works on at most 2 segments
	// at once, so that each restarted A takes over some of the segments.
	bin := os.Args[0]
	dir := t.TempDir()
	page := max(2, min(100, n/48))
	wcu := max(40, n/10)
	run := func(name string, seq int) *exec.Cmd {
		workers := "8"
		if name == "B" {
			workers = "2"
		}
		args := []string{"-workers", workers, "-endpoint", endpoint, "-table", tbl.Name(), "-segments", "8", "-lease", leaseDur.String(),
			"-page", strconv.Itoa(page), "-wcu", strconv.Itoa(wcu),
			"-owner", fmt.Sprint(name, "-", seq), "-progress", "lines", "-json", filepath.Join(dir, fmt.Sprint(name, seq, ".json")), "-md", filepath.Join(dir, fmt.Sprint(name, seq, ".md")),
			"apply", "post-author-index"}
		b, _ := json.Marshal(args)
		cmd := exec.Command(bin, "-test.run", "^$")
		cmd.Env = append(os.Environ(), "EVOLVE_CHILD_ARGS="+string(b))
		logf, _ := os.Create(filepath.Join(dir, fmt.Sprint(name, seq, ".log")))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	a, b := run("A", 0), run("B", 0)
	status := func() *evolve.JobStatus {
		st, err := evolve.Status(ctx, tbl, "post-author-index")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// checkpointed returns a segment that owner holds, has not finished,
	// and has checkpointed since it acquired it (its checkpointed count
	// grew under this owner), or -1.
	firstSeen := map[[2]string]int64{}
	checkpointed := func(st *evolve.JobStatus, owner string) (int, int64) {
		for _, g := range st.Segments {
			if g.Owner != owner || g.Done {
				continue
			}
			k := [2]string{owner, strconv.Itoa(g.Segment)}
			seen, ok := firstSeen[k]
			if !ok {
				firstSeen[k] = g.Counts.Scanned
				continue
			}
			if g.Counts.Scanned > seen {
				return g.Segment, g.Counts.Scanned
			}
		}
		return -1, 0
	}
	kills, atCheckpoint := 0, 0
	var killedAt []string
	for _, frac := range []int{4, 2} { // kill at about 1/4 and 1/2 of the items
		owner := fmt.Sprint("A-", kills)
		seg, pos := -1, int64(0)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			st := status()
			if st.Finished {
				break
			}
			if seg, pos = checkpointed(st, owner); seg >= 0 && st.Total.Scanned >= int64(n/frac) {
				break
			}
			seg = -1
		}
		if err := a.Process.Signal(syscall.SIGKILL); err == nil {
			kills++
			if seg >= 0 {
				atCheckpoint++
				killedAt = append(killedAt, fmt.Sprintf("%s in segment %d after its checkpoint at %d items", owner, seg, pos))
			}
		}
		_ = a.Wait()
		a = run("A", kills)
	}
	timer := time.AfterFunc(5*time.Minute, func() { // a hung run fails with its logs
		_ = a.Process.Kill()
		_ = b.Process.Kill()
	})
	errA, errB := a.Wait(), b.Wait()
	timer.Stop()
	close(stop)
	wg.Wait()
	if errA != nil || errB != nil {
		for _, f := range []string{"A0", "A1", "A2", "B0"} {
			out, _ := os.ReadFile(filepath.Join(dir, f+".log"))
			t.Logf("%s log:\n%s", f, lastLines(string(out), 15))
		}
		t.Fatalf("processes: A %v, B %v", errA, errB)
	}
	took := time.Since(start)
	st, err := evolve.Status(ctx, tbl, "post-author-index")
	if err != nil || !st.Finished {
		t.Fatalf("status %+v %v", st, err)
	}

	// The doctor finds nothing.
	d, err := evolve.Doctor(ctx, tbl, cmdConfig.Entities, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.Problems != 0 {
		t.Errorf("doctor: %d problems: %+v", d.Problems, d.Findings)
	}
	// Every acknowledged write is what the table holds.
	live := map[string]*ackedPost{}
	lost := 0
	for _, m := range logs {
		for id, a := range m {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(a.key), ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !a.live && out.Item != nil, a.live && out.Item == nil:
				lost++
			case a.live:
				p, err := store.Decode(out.Item)
				if err != nil || p.Title != a.title || p.AuthorID != a.author {
					lost++
				}
				live[id] = a
			}
		}
	}
	if lost != 0 {
		t.Errorf("%d acknowledged writes lost or overwritten", lost)
	}
	// Every live post with an author is in the new index exactly once.
	seen := map[string]int{}
	for u := 0; u < 50; u++ {
		for p, err := range query.New[post.Post](tbl, "posts-of-author").Index(post.AuthorIDCreatedAt).PartitionKey(post.PostAuthorPK(fmt.Sprintf("u%03d", u))).All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if a := live[p.ID]; a == nil || a.author != p.AuthorID {
				t.Errorf("index holds %s (author %s), not a live post of that author", p.ID, p.AuthorID)
			}
			seen[p.ID]++
		}
	}
	missing, twice := 0, 0
	withAuthor := 0
	for id, a := range live {
		if a.author == "" {
			continue
		}
		withAuthor++
		switch seen[id] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	if missing != 0 || twice != 0 {
		t.Errorf("index: %d live posts missing, %d more than once (of %d)", missing, twice, withAuthor)
	}
	ops := 0
	for _, x := range acked {
		ops += x
	}
	tot := st.Total
	t.Logf("killed %s", strings.Join(killedAt, "; "))
	if atCheckpoint == 0 || tot.Takeovers == 0 {
		t.Errorf("kills at a checkpoint %d of %d, takeovers %d: no segment was taken over from a checkpoint", atCheckpoint, kills, tot.Takeovers)
	}
	t.Logf("live backfill: items %d (seeded %d), changed %d, skipped %d, conflicts %d, takeovers %d, kills %d (%d at a checkpoint), acked app writes %d, live posts in index %d/%d, doctor problems %d, duration %v",
		tot.Scanned, n, tot.Changed, tot.Skipped, tot.Conflicts, tot.Takeovers, kills, atCheckpoint, ops, len(seen), withAuthor, d.Problems, took.Round(time.Millisecond))
}

func lastLines(s string, n int) string {
	lines := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			lines++
			if lines > n {
				return s[i+1:]
			}
		}
	}
	return s
}
