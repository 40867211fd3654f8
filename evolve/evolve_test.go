package evolve_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/examples/evolve/post"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/query"
)

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// targets runs f on the embedded engine and on DynamoDB Local.
func targets(t *testing.T, f func(t *testing.T, c entity.Client)) {
	t.Run("engine", func(t *testing.T) { t.Parallel(); f(t, ddbmem.New()) })
	t.Run("dynamodb-local", func(t *testing.T) { t.Parallel(); f(t, testenv.DynamoDB(t)) })
}

// seedTable creates the table with the new GSI and fills it with n posts
// written by the old code (codex.Post: no AuthorId_CreatedAt keys); every
// fifth post has no author.
func seedTable(t testing.TB, c entity.Client, n int) *entity.Table {
	t.Helper()
	tbl, _ := seedPosts(t, c, n)
	return tbl
}

func seedPosts(t testing.TB, c entity.Client, n int) (*entity.Table, []codex.Post) {
	t.Helper()
	var all []codex.Post
	tbl := testenv.Table(t, post.NewTable(c, testenv.UniqueName("evolve")))
	old := entity.NewStore[codex.Post](tbl)
	ctx := ctxT(t, 5*time.Minute)
	batch := make([]codex.Post, 0, 25)
	for i := 0; i < n; i++ {
		p := codex.Post{ID: codex.NewID(), CategoryID: fmt.Sprintf("c%02d", i%97), Title: fmt.Sprint("post ", i)}
		if i%5 != 0 {
			p.AuthorID = fmt.Sprintf("u%03d", i%50)
		}
		batch = append(batch, p)
		all = append(all, p)
		if len(batch) == cap(batch) || i == n-1 {
			if err := old.BatchPut(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return tbl, all
}

var entities = []evolve.Entity{evolve.EntityOf[post.Post](), evolve.EntityOf[codex.Category]()}

func backfillJob(name string) evolve.Job {
	return evolve.Job{Name: name, Steps: []evolve.Step{evolve.Backfill(evolve.EntityOf[post.Post](), post.AuthorIDCreatedAt)}}
}

// TestBackfillSmall: the doctor finds the missing keys, a dry run counts
// them and writes nothing, the run backfills them, the doctor then finds
// nothing, a second run is a no-op.
func TestBackfillSmall(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		tbl := seedTable(t, c, 300)
		ctx := ctxT(t, 3*time.Minute)
		d, err := evolve.Doctor(ctx, tbl, entities, 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.Problems != 240 || len(d.Findings) != 1 || d.Findings[0].Class != evolve.IndexMissing {
			t.Fatalf("doctor before: %+v", d)
		}
		dry, err := evolve.Run(ctx, tbl, backfillJob("bf"), func(o *evolve.Options) { o.DryRun = true })
		if err != nil {
			t.Fatal(err)
		}
		if dry.Counts.Changed != 240 || dry.Counts.Skipped != 60 {
			t.Fatalf("dry run: %+v", dry.Counts)
		}
		rep, err := evolve.Run(ctx, tbl, backfillJob("bf"), func(o *evolve.Options) { o.PageSize = 50 })
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counts.Changed != 240 || rep.Counts.Skipped != 60 || rep.Counts.Scanned != 300 || !rep.Finished {
			t.Fatalf("run: %+v", rep.Counts)
		}
		d, err = evolve.Doctor(ctx, tbl, entities, 2)
		if err != nil || d.Problems != 0 || d.Scanned != 300 {
			t.Fatalf("doctor after: %+v %v", d, err)
		}
		again, err := evolve.Run(ctx, tbl, backfillJob("bf"))
		if err != nil || !again.AlreadyDone || again.Counts.Changed != 240 {
			t.Fatalf("second run: %+v %v", again, err)
		}
		st, err := evolve.Status(ctx, tbl, "bf")
		if err != nil || !st.Finished || st.Total.Changed != 240 || len(st.Segments) != 4 {
			t.Fatalf("status: %+v %v", st, err)
		}
		page, err := query.New[post.Post](tbl, "posts-of-author").Index(post.AuthorIDCreatedAt).
			PartitionKey(post.PostAuthorPK("u001")).Limit(100).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 6 {
			t.Fatalf("u001 has %d posts in the index", len(page.Items))
		}
		t.Logf("backfill: scanned %d changed %d skipped %d conflicts %d in %v", rep.Counts.Scanned, rep.Counts.Changed, rep.Counts.Skipped, rep.Counts.Conflicts, rep.Duration)
	})
}

var _ = errors.Is
var _ = aws.String
var _ = dynamodb.ScanInput{}
var _ types.AttributeValue
