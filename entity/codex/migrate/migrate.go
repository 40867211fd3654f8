// Package migrate moves the Codex data of the legacy three-table backend
// (seed 001 §0: PostsTable, CategoriesTable, CorpMetaTable) into the
// single table, preserving Type and the timestamps, and can be re-run as
// a delta: an item is written only when it is missing from the single
// table or the legacy copy is newer (its UpdatedAt is later).
//
// The legacy layouts it reads (the seed does not give them; these are the
// FastAPI backend's plain tables):
//
//	CategoriesTable  key id;  title, desc, createdAt, updatedAt
//	PostsTable       key id;  categoryId, authorId, title, contents, createdAt, updatedAt
//	CorpMetaTable    key id;  name, address, email, fax, corpNum, createdAt, updatedAt
//
// Timestamp attributes may be spelled createdAt/updatedAt or
// CreatedAt/UpdatedAt, in RFC 3339. A missing createdAt falls back to
// updatedAt, then to the migration time (for posts: the Unix epoch, see
// below), so every item gets the CreatedAt that the GSI Type_CreatedAt
// needs.
//
// Posts get new IDs. Seed 001 lists a category's posts by SK = POST#<id>
// in creation order, which legacy ids ("p001") do not give, so each post
// is stored under [codex.MigratedPostID]: an ID minted at its CreatedAt
// (seconds) whose remaining bits are a hash of its legacy id. The same
// legacy post therefore gets the same key on every run, and a re-run
// updates it in place instead of adding a copy; the legacy id is kept in
// the attribute legacyId ([codex.Post].LegacyID). A legacy post with no
// timestamp at all is dated at the Unix epoch (it lists as the oldest)
// rather than at the migration time, which would change between runs.
// Changing a legacy post's createdAt or categoryId between runs gives it a
// new key; the old item is then left behind.
//
// Each legacy table is copied by a job of package evolve (an
// [evolve.Import] step): parallel segments under leases with checkpoints,
// capacity budgets and progress ([Options.Evolve]), and the put-if-newer
// condition above. Every run is a new job (named
// "codex-migrate-<table>-<run>"), whose lease items and record stay in the
// single table (or in Options.Evolve's LeaseTable).
package migrate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/keys"
)

// Options names the legacy tables. The zero value uses the seed's names.
type Options struct {
	// PostsTable, CategoriesTable and CorpMetaTable default to
	// "PostsTable", "CategoriesTable" and "CorpMetaTable". Set one to "-"
	// to skip it.
	PostsTable, CategoriesTable, CorpMetaTable string
	// Now is the clock for items without any timestamp; nil means time.Now.
	Now func() time.Time
	// Evolve tunes the evolve jobs that copy the tables (Segments,
	// budgets, LeaseTable, Progress...); nil: evolve's defaults.
	Evolve func(*evolve.Options)
}

// Report counts what a run did, per legacy table.
type Report struct {
	Scanned int // legacy items read
	Written int // items created or refreshed in the single table
	Skipped int // items already migrated and not newer
}

type legacy struct {
	ID         string `dynamodbav:"id"`
	CategoryID string `dynamodbav:"categoryId"`
	AuthorID   string `dynamodbav:"authorId"`
	Title      string `dynamodbav:"title"`
	Desc       string `dynamodbav:"desc"`
	Contents   string `dynamodbav:"contents"`
	Name       string `dynamodbav:"name"`
	Address    string `dynamodbav:"address"`
	Email      string `dynamodbav:"email"`
	Fax        string `dynamodbav:"fax"`
	CorpNum    string `dynamodbav:"corpNum"`
	CreatedA   string `dynamodbav:"createdAt"`
	CreatedB   string `dynamodbav:"CreatedAt"`
	UpdatedA   string `dynamodbav:"updatedAt"`
	UpdatedB   string `dynamodbav:"UpdatedAt"`
}

func parseTime(vals ...string) time.Time {
	for _, v := range vals {
		if v == "" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC().Truncate(time.Second)
		}
	}
	return time.Time{}
}

func (l legacy) times(now time.Time) (created, updated time.Time) {
	updated = parseTime(l.UpdatedA, l.UpdatedB)
	created = parseTime(l.CreatedA, l.CreatedB)
	if created.IsZero() {
		created = updated
	}
	if created.IsZero() {
		created = now
	}
	if updated.IsZero() {
		updated = created
	}
	return created, updated
}

// Run copies the legacy tables into target (a table with the Codex
// layout, for instance codex.NewTable(client, name)), reading them with
// client. It is safe to run again: unchanged items are skipped. Legacy
// items that do not fit (no id, a post without categoryId) are left out
// and fail the run with an error wrapping entity.ErrValidation (and an
// *evolve.ItemError), after every other item of their table was
// migrated; fixing the data and re-running completes the copy. A job
// error (an evolve.ErrUnfit, a client error) stops the run at once.
func Run(ctx context.Context, client entity.Client, target *entity.Table, optFns ...func(*Options)) (map[string]Report, error) {
	o := Options{PostsTable: "PostsTable", CategoriesTable: "CategoriesTable", CorpMetaTable: "CorpMetaTable", Now: time.Now}
	for _, fn := range optFns {
		fn(&o)
	}
	now := o.Now().UTC().Truncate(time.Second)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	reports := map[string]Report{}
	steps := []struct {
		table string
		step  func(string) evolve.Step
	}{
		{o.CategoriesTable, func(table string) evolve.Step {
			return evolve.Import(table, func(it evolve.Item) (*codex.Category, error) {
				l, err := decode(it)
				if err != nil {
					return nil, err
				}
				c, u := l.times(now)
				return &codex.Category{ID: l.ID, Title: l.Title, Desc: l.Desc, CreatedAt: c, UpdatedAt: u}, nil
			})
		}},
		{o.PostsTable, func(table string) evolve.Step {
			return evolve.Import(table, func(it evolve.Item) (*codex.Post, error) {
				l, err := decode(it)
				if err != nil {
					return nil, err
				}
				if l.ID == "" {
					return nil, &entity.ValidationError{Op: "migrate", Type: codex.PostType, Field: "id", Err: keys.ErrMissingField}
				}
				// The ID must be the same on every run, so a post without
				// any timestamp is dated at the Unix epoch, not at now.
				c, u := l.times(time.Unix(0, 0).UTC())
				return &codex.Post{
					ID: codex.MigratedPostID(c, l.ID), LegacyID: l.ID, CategoryID: l.CategoryID, AuthorID: l.AuthorID,
					Title: l.Title, Contents: l.Contents, CreatedAt: c, UpdatedAt: u,
				}, nil
			})
		}},
		{o.CorpMetaTable, func(table string) evolve.Step {
			return evolve.Import(table, func(it evolve.Item) (*codex.CorpInfo, error) {
				l, err := decode(it)
				if err != nil {
					return nil, err
				}
				c, u := l.times(now)
				return &codex.CorpInfo{ID: codex.CorpID, Name: l.Name, Address: l.Address, Email: l.Email, Fax: l.Fax, CorpNum: l.CorpNum, CreatedAt: c, UpdatedAt: u}, nil
			})
		}},
	}
	var failed error
	for _, st := range steps {
		if st.table == "-" || st.table == "" {
			continue
		}
		job := evolve.Job{Name: "codex-migrate-" + st.table + "-" + run, Steps: []evolve.Step{st.step(st.table)}}
		rep, err := evolve.Run(ctx, target, job, func(eo *evolve.Options) {
			if o.Evolve != nil {
				o.Evolve(eo)
			}
			eo.SourceClient = client
		})
		if rep != nil {
			c := rep.Counts
			reports[st.table] = Report{Scanned: int(c.Scanned), Written: int(c.Changed), Skipped: int(c.Skipped)}
		}
		if err != nil {
			return reports, fmt.Errorf("migrate: %s: %w", st.table, err)
		}
		if len(rep.Failures) > 0 && failed == nil {
			failed = fmt.Errorf("migrate: %s: %d items not migrated, the first: %w", st.table, rep.Counts.Failures, rep.Failures[0])
		}
	}
	return reports, failed
}

func decode(it evolve.Item) (legacy, error) {
	var l legacy
	if err := attributevalue.UnmarshalMap(it, &l); err != nil {
		return l, &entity.ValidationError{Op: "migrate", Err: err}
	}
	return l, nil
}
