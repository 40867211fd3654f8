package evolve_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/evolve/internal/rekeyed"
	"github.com/tablekit/tablekit/examples/evolve/post"
	"github.com/tablekit/tablekit/internal/shop"
	"github.com/tablekit/tablekit/internal/testenv"
)

func rawGet(ctx context.Context, t testing.TB, tbl *entity.Table, k entity.Key) evolve.Item {
	t.Helper()
	out, err := tbl.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(k), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// sized is n on the engine and n/2 on DynamoDB Local (slow on a shared
// machine; the claims do not depend on the size).
func sized(t *testing.T, n int) int {
	if testingLocal(t) {
		return max(n/2, 10)
	}
	return n
}

func testingLocal(t *testing.T) bool { return strings.Contains(t.Name(), "dynamodb-local") }

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// TestRename: title is renamed to headline while a writer keeps writing
// headline (the new code) on some posts. Readers during the run find the
// value under title or headline (never neither); afterwards every post has
// headline, with the writer's last acknowledged value where it wrote one,
// and no title.
func TestRename(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		tbl, posts := seedPosts(t, c, sized(t, 200))
		ctx := ctxT(t, 3*time.Minute)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		last := map[string]string{}
		var neither atomic.Int64
		wg.Add(2)
		go func() { // writer: the new code writes headline
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := posts[(i*7)%len(posts)]
				k, _ := codex.PostKey(p.CategoryID, p.ID)
				v := fmt.Sprint("headline ", i)
				_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(k),
					UpdateExpression: aws.String("SET headline = :h"), ExpressionAttributeValues: map[string]types.AttributeValue{":h": s(v)}})
				if err != nil {
					t.Error(err)
					return
				}
				last[p.ID] = v
			}
		}()
		go func() { // reader: title or headline, never neither
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := posts[(i*13)%len(posts)]
				k, _ := codex.PostKey(p.CategoryID, p.ID)
				it := rawGet(ctx, t, tbl, k)
				if it["title"] == nil && it["headline"] == nil {
					neither.Add(1)
				}
			}
		}()
		rep, err := evolve.Run(ctx, tbl, evolve.Job{Name: "rename", Steps: []evolve.Step{evolve.Rename(codex.PostType, "title", "headline")}},
			func(o *evolve.Options) { o.PageSize = 25 })
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if neither.Load() != 0 {
			t.Errorf("%d reads found neither title nor headline", neither.Load())
		}
		if rep.Counts.Failures != 0 {
			t.Fatalf("failures: %v", rep.Failures)
		}
		for _, p := range posts {
			k, _ := codex.PostKey(p.CategoryID, p.ID)
			it := rawGet(ctx, t, tbl, k)
			want := p.Title
			if v, ok := last[p.ID]; ok {
				want = v
			}
			if it["title"] != nil || testenv.Text(it, "headline") != want {
				t.Fatalf("%s: title %v headline %q, want %q", p.ID, it["title"], testenv.Text(it, "headline"), want)
			}
		}
		t.Logf("rename: scanned %d changed %d skipped %d conflicts %d in %v", rep.Counts.Scanned, rep.Counts.Changed, rep.Counts.Skipped, rep.Counts.Conflicts, rep.Duration.Round(time.Millisecond))
	})
}

// TestRekey: posts move from CATEGORY#c/POST#id to POST#id/CATEGORY#c. A
// reader that looks up the old key and then the new one finds the post at
// one of them (never neither); a writer updating posts by their old key
// either lands before the move (the move carries its write) or finds the
// post gone. At the end every post is at its new key only, and the doctor
// with the new entity finds nothing.
func TestRekey(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		tbl, posts := seedPosts(t, c, sized(t, 200))
		ctx := ctxT(t, 3*time.Minute)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var neither atomic.Int64
		last := map[string]string{}
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := posts[(i*13)%len(posts)]
				ok, _ := codex.PostKey(p.CategoryID, p.ID)
				nk, _ := rekeyed.PostKey(p.ID, p.CategoryID)
				if rawGet(ctx, t, tbl, ok) == nil && rawGet(ctx, t, tbl, nk) == nil {
					neither.Add(1)
				}
			}
		}()
		go func() { // the old code updates by the old key, only while the post is there
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := posts[(i*7)%len(posts)]
				k, _ := codex.PostKey(p.CategoryID, p.ID)
				v := fmt.Sprint("edit ", i)
				_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(k),
					UpdateExpression: aws.String("SET title = :t"), ConditionExpression: aws.String("attribute_exists(PK)"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":t": s(v)}})
				var ccf *types.ConditionalCheckFailedException
				if errors.As(err, &ccf) {
					continue // moved already
				}
				if err != nil {
					t.Error(err)
					return
				}
				last[p.ID] = v
			}
		}()
		rep, err := evolve.Run(ctx, tbl, evolve.Job{Name: "rekey", Steps: []evolve.Step{evolve.Rekey(evolve.EntityOf[rekeyed.Post]())}},
			func(o *evolve.Options) { o.PageSize = 25 })
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if neither.Load() != 0 {
			t.Errorf("%d lookups found the post at neither key", neither.Load())
		}
		for _, p := range posts {
			ok, _ := codex.PostKey(p.CategoryID, p.ID)
			nk, _ := rekeyed.PostKey(p.ID, p.CategoryID)
			want := p.Title
			if v, ok := last[p.ID]; ok {
				want = v
			}
			if rawGet(ctx, t, tbl, ok) != nil {
				t.Fatalf("%s still at its old key", p.ID)
			}
			if it := rawGet(ctx, t, tbl, nk); testenv.Text(it, "title") != want {
				t.Fatalf("%s at its new key has title %q, want %q", p.ID, testenv.Text(it, "title"), want)
			}
		}
		d, err := evolve.Doctor(ctx, tbl, []evolve.Entity{evolve.EntityOf[rekeyed.Post]()}, 3)
		if err != nil || d.Problems != 0 || d.Scanned != int64(len(posts)) {
			t.Fatalf("doctor: %+v %v", d, err)
		}
		if rep.Counts.Moved != int64(len(posts)) {
			t.Fatalf("moved %d", rep.Counts.Moved)
		}
		t.Logf("rekey: scanned %d moved %d skipped %d conflicts %d in %v", rep.Counts.Scanned, rep.Counts.Moved, rep.Counts.Skipped, rep.Counts.Conflicts, rep.Duration.Round(time.Millisecond))
	})
}

// TestBadInput: each bad input is a typed error; a refused job writes
// nothing, a failed item is left untouched.
func TestBadInput(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		tbl, posts := seedPosts(t, c, 20)
		ctx := ctxT(t, 2*time.Minute)
		pe := evolve.EntityOf[post.Post]()
		broken := pe
		sc := *pe.Schema
		sc.Keys = append([]entity.KeyAttr(nil), sc.Keys...)
		for i := range sc.Keys {
			if sc.Keys[i].Attr == "AuthorPK" {
				sc.Keys[i].Template = "AUTHOR#{AuthorID"
			}
		}
		broken.Schema = &sc
		refused := map[string]evolve.Job{
			"empty name":         {Name: "", Steps: []evolve.Step{evolve.Backfill(pe)}},
			"no steps":           {Name: "x"},
			"unknown index":      {Name: "x", Steps: []evolve.Step{evolve.Backfill(pe, "NoSuchIndex")}},
			"unbuildable key":    {Name: "x", Steps: []evolve.Step{evolve.Backfill(broken)}},
			"entity not wired":   {Name: "x", Steps: []evolve.Step{evolve.Backfill(evolve.Entity{Schema: pe.Schema})}},
			"rename of the key":  {Name: "x", Steps: []evolve.Step{evolve.Rename("", "PK", "pk2")}},
			"nil transform":      {Name: "x", Steps: []evolve.Step{evolve.Transform("", nil)}},
			"index of no key":    {Name: "x", Steps: []evolve.Step{evolve.Backfill(pe, codex.TypeCreatedAt)}},
			"import from itself": {Name: "x", Steps: []evolve.Step{evolve.Import(tbl.Name(), func(evolve.Item) (*codex.Post, error) { return nil, nil })}},
			"import and more":    {Name: "x", Steps: []evolve.Step{evolve.Import("Legacy", func(evolve.Item) (*codex.Post, error) { return nil, nil }), evolve.Backfill(pe)}},
			"nil import":         {Name: "x", Steps: []evolve.Step{evolve.Import[codex.Post]("Legacy", nil)}},
		}
		for name, job := range refused {
			t.Run(name, func(t *testing.T) {
				_, err := evolve.Run(ctx, tbl, job)
				var je *evolve.JobError
				if !errors.Is(err, evolve.ErrUnfit) || !errors.As(err, &je) {
					t.Fatalf("Run = %v, want a *JobError matching ErrUnfit", err)
				}
			})
		}
		st, err := evolve.Status(ctx, tbl, "x")
		if err != nil || len(st.Segments) != 0 {
			t.Fatalf("a refused job wrote its leases: %+v %v", st, err)
		}

		// A transform error and an undecodable item: left untouched, reported.
		bad, _ := codex.PostKey(posts[0].CategoryID, posts[0].ID)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(bad),
			UpdateExpression: aws.String("SET title = :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "7"}}})
		if err != nil {
			t.Fatal(err)
		}
		failing, _ := codex.PostKey(posts[1].CategoryID, posts[1].ID)
		errNope := errors.New("nope")
		before := rawGet(ctx, t, tbl, failing)
		rep, err := evolve.Run(ctx, tbl, evolve.Job{Name: "bad-items", Steps: []evolve.Step{
			evolve.Backfill(pe, post.AuthorIDCreatedAt),
			evolve.Transform(codex.PostType, func(it evolve.Item) (evolve.Item, error) {
				if testenv.Text(it, "id") == posts[1].ID {
					return nil, errNope
				}
				return it, nil
			}),
		}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counts.Failures != 2 || len(rep.Failures) != 2 {
			t.Fatalf("failures %d: %v", rep.Counts.Failures, rep.Failures)
		}
		var decodeErr, transformErr bool
		for _, f := range rep.Failures {
			var ie *evolve.ItemError
			if !errors.As(f, &ie) {
				t.Fatalf("failure %v is not an *ItemError", f)
			}
			decodeErr = decodeErr || (errors.Is(f, evolve.ErrDecode) && ie.Key == bad)
			transformErr = transformErr || (errors.Is(f, evolve.ErrTransform) && errors.Is(f, errNope) && ie.Key == failing)
		}
		if !decodeErr || !transformErr {
			t.Fatalf("failures: %v", rep.Failures)
		}
		if it := rawGet(ctx, t, tbl, bad); it["AuthorPK"] != nil {
			t.Fatal("an undecodable item was rewritten")
		}
		if after := rawGet(ctx, t, tbl, failing); after["AuthorPK"] != nil || len(after) != len(before) {
			t.Fatal("an item whose transform failed was rewritten")
		}
		d, err := evolve.Doctor(ctx, tbl, []evolve.Entity{pe}, 3)
		if err != nil {
			t.Fatal(err)
		}
		classes := map[string]int64{}
		for _, f := range d.Findings {
			classes[f.Class] += f.Count
		}
		if classes[evolve.Undecodable] != 1 || d.Problems != classes[evolve.Undecodable]+classes[evolve.IndexMissing] {
			t.Fatalf("doctor: %+v", d.Findings)
		}
	})
}

// TestDoctorClasses: the doctor names each kind of drift.
func TestDoctorClasses(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		tbl, posts := seedPosts(t, c, 10)
		ctx := ctxT(t, 2*time.Minute)
		pe := evolve.EntityOf[post.Post]()
		if _, err := evolve.Run(ctx, tbl, backfillJob("doc")); err != nil {
			t.Fatal(err)
		}
		put := func(it evolve.Item) {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: it}); err != nil {
				t.Fatal(err)
			}
		}
		put(evolve.Item{"PK": s("WIDGET#1"), "SK": s("METADATA"), "Type": s("Widget")})
		put(evolve.Item{"PK": s("CATEGORY#c01"), "SK": s("POST#wrong"), "Type": s("Post"), "id": s("right"), "categoryId": s("c01"), "title": s("t"), "CreatedAt": s("2025-01-01T00:00:00Z")})
		k, _ := codex.PostKey(posts[1].CategoryID, posts[1].ID)
		it := rawGet(ctx, t, tbl, k)
		it["AuthorPK"] = s("AUTHOR#nobody")
		put(it)
		d, err := evolve.Doctor(ctx, tbl, []evolve.Entity{pe}, 3)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, f := range d.Findings {
			got[f.Type+"/"+f.Class] = f.Count
		}
		want := map[string]int64{"Widget/" + evolve.UnknownType: 1, "Post/" + evolve.KeyMismatch: 1, "Post/" + evolve.IndexStale: 1}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
	})
}

// TestDoctorGuards: the doctor checks the guard items of unique fields. An
// account deleted behind the runtime's back leaves an orphan guard; one
// whose slug was changed behind its back leaves a stale guard and lacks
// the guard of its new slug; one whose guard was deleted lacks it. Guards
// in order are no problem.
func TestDoctorGuards(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		ctx := ctxT(t, 2*time.Minute)
		tbl := testenv.Table(t, entity.NewTable(c, testenv.UniqueName("guards"), func(o *entity.Options) { o.GSIs = shop.GSIs }))
		accounts := entity.NewStore[shop.Account](tbl)
		for i := range 6 {
			if err := accounts.Create(ctx, &shop.Account{ID: fmt.Sprint("a", i), Slug: fmt.Sprint("s", i)}); err != nil {
				t.Fatal(err)
			}
		}
		ents := []evolve.Entity{evolve.EntityOf[shop.Account]()}
		d, err := evolve.Doctor(ctx, tbl, ents, 3)
		if err != nil || d.Problems != 0 || d.ByType[entity.GuardType] != 6 {
			t.Fatalf("doctor before: %+v %v", d, err)
		}
		key := func(id string) entity.Key { k, _ := shop.AccountKey(id); return k }
		guard := func(slug string) entity.Key {
			k, err := tbl.GuardKey(shop.AccountType, "slug", slug)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		del := func(k entity.Key) {
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(k)}); err != nil {
				t.Fatal(err)
			}
		}
		del(key("a1")) // guard s1 orphaned
		if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(key("a2")),
			UpdateExpression: aws.String("SET slug = :s"), ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("s2-new")}}); err != nil {
			t.Fatal(err) // guard s2 stale, guard s2-new missing
		}
		del(guard("s3")) // guard s3 missing
		d, err = evolve.Doctor(ctx, tbl, ents, 3)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]entity.Key{}
		for _, f := range d.Findings {
			got[f.Type+"/"+f.Class] = f.Samples
		}
		want := map[string][]entity.Key{
			"Account/" + evolve.GuardOrphan:  {guard("s1")},
			"Account/" + evolve.GuardStale:   {guard("s2")},
			"Account/" + evolve.GuardMissing: {key("a2"), key("a3")},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || d.Problems != 4 {
			t.Fatalf("findings %v (%d problems), want %v (4)", got, d.Problems, want)
		}
		// A re-key would leave the guards naming the old keys: refused.
		_, err = evolve.Run(ctx, tbl, evolve.Job{Name: "rekey-unique", Steps: []evolve.Step{evolve.Rekey(ents[0])}})
		if !errors.Is(err, evolve.ErrUnfit) {
			t.Fatalf("re-key of an entity with unique fields: %v, want ErrUnfit", err)
		}
	})
}

// TestImport: a legacy table (key id) is copied into the table as
// categories; a re-run (a new job) writes nothing; a legacy item edited
// later is copied again, unless the application wrote the category since
// (a newer UpdatedAt wins); an item the function rejects is reported.
func TestImport(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		ctx := ctxT(t, 2*time.Minute)
		tbl := testenv.Table(t, post.NewTable(c, testenv.UniqueName("import")))
		legacy := testenv.UniqueName("legacy")
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(legacy),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(legacy)})
		})
		putLegacy := func(id, title, updated string) {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(legacy), Item: evolve.Item{
				"id": s(id), "title": s(title), "updatedAt": s(updated)}}); err != nil {
				t.Fatal(err)
			}
		}
		const n = 30
		for i := range n {
			putLegacy(fmt.Sprint("c", i), fmt.Sprint("title ", i), "2025-01-01T00:00:00Z")
		}
		errBad := errors.New("bad legacy item")
		job := func(run int) evolve.Job {
			return evolve.Job{Name: fmt.Sprint("import-", run), Steps: []evolve.Step{evolve.Import(legacy, func(it evolve.Item) (*codex.Category, error) {
				if testenv.Text(it, "title") == "bad" {
					return nil, errBad
				}
				u, err := time.Parse(time.RFC3339, testenv.Text(it, "updatedAt"))
				if err != nil {
					return nil, err
				}
				return &codex.Category{ID: testenv.Text(it, "id"), Title: testenv.Text(it, "title"), CreatedAt: u, UpdatedAt: u}, nil
			})}}
		}
		counts := func(run int) evolve.Counts {
			t.Helper()
			rep, err := evolve.Run(ctx, tbl, job(run), func(o *evolve.Options) { o.PageSize = 7 })
			if err != nil {
				t.Fatal(err)
			}
			return rep.Counts
		}
		if got := counts(1); got.Scanned != n || got.Changed != n || got.Failures != 0 {
			t.Fatalf("first import: %+v", got)
		}
		if got := counts(2); got.Changed != 0 || got.Skipped != n {
			t.Fatalf("re-run: %+v", got)
		}
		// c1 and c2 edited in the legacy table; the application wrote c2
		// since (newer); c3 turned bad.
		putLegacy("c1", "edited 1", "2025-02-01T00:00:00Z")
		putLegacy("c2", "edited 2", "2025-02-01T00:00:00Z")
		putLegacy("c3", "bad", "2025-02-01T00:00:00Z")
		cats := entity.NewStore[codex.Category](tbl)
		if err := cats.Put(ctx, &codex.Category{ID: "c2", Title: "app", CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}, entity.KeepTimestamps); err != nil {
			t.Fatal(err)
		}
		rep, err := evolve.Run(ctx, tbl, job(3))
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Counts; got.Changed != 1 || got.Skipped != n-2 || got.Failures != 1 || !errors.Is(rep.Failures[0], errBad) {
			t.Fatalf("delta: %+v %v", got, rep.Failures)
		}
		for id, want := range map[string]string{"c1": "edited 1", "c2": "app", "c3": "title 3"} {
			k, _ := codex.CategoryKey(id)
			if got, err := cats.Get(ctx, k, entity.ConsistentRead); err != nil || got.Title != want {
				t.Fatalf("%s: %q %v, want %q", id, got.Title, err, want)
			}
		}
	})
}
