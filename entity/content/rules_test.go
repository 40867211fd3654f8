package content_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/internal/testenv"
)

// memTable returns a content table on the embedded engine.
func memTable(t *testing.T) *entity.Table {
	t.Helper()
	tbl := content.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tbl
}

// count is the number of items in the table.
func count(t *testing.T, tbl *entity.Table) int {
	t.Helper()
	out, err := tbl.Client().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tbl.Name())})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

func goodImage() content.GeneratedImage {
	return content.NewImage("evt-1", content.StyleFancy, content.PlatformKakao, "https://cdn/x.png", "p")
}

func goodJob() content.Job {
	return content.Job{ID: "job-img-abc123", EventID: "evt-1", Kind: content.KindImageGeneration, Status: content.StatusPending, Progress: 0}
}

// wantBreach runs the subtest name: good() changed by mod and written
// to a fresh table by write must fail with the rule (typ, attr, rule), and
// nothing must be written.
func wantBreach[T any](t *testing.T, name string, good func() T, mod func(*T), write func(*entity.Table, *T) error, typ, attr, rule string) {
	t.Run(name, func(t *testing.T) {
		tbl := memTable(t)
		v := good()
		mod(&v)
		testenv.WantRule(t, name, write(tbl, &v), typ, attr, rule)
		if n := count(t, tbl); n != 0 {
			t.Errorf("%d items written", n)
		}
	})
}

// TestSeedRulesOnEveryWrite writes each breach of a seed 003 rule through
// a plain entity.Store, on every full-write path, and checks the typed
// error and that nothing was written.
func TestSeedRulesOnEveryWrite(t *testing.T) {
	type rule struct{ attr, rule string }
	images := map[string]struct {
		mod  func(*content.GeneratedImage)
		want rule
	}{
		"style UGLY":      {func(g *content.GeneratedImage) { g.Style = "UGLY" }, rule{"style", entity.RuleEnum}},
		"platform TIKTOK": {func(g *content.GeneratedImage) { g.Platform = "TIKTOK" }, rule{"platform", entity.RuleEnum}},
		"width 0":         {func(g *content.GeneratedImage) { g.Width = 0 }, rule{"width", entity.RuleMin}},
		"height -1":       {func(g *content.GeneratedImage) { g.Height = -1 }, rule{"height", entity.RuleMin}},
		"file size -5":    {func(g *content.GeneratedImage) { g.FileSize = -5 }, rule{"fileSize", entity.RuleMin}},
		"no cdn url":      {func(g *content.GeneratedImage) { g.CDNURL = "" }, rule{"cdnUrl", entity.RuleNonEmpty}},
	}
	jobs := map[string]struct {
		mod  func(*content.Job)
		want rule
	}{
		"id without job-img-": {func(j *content.Job) { j.ID = "img-1" }, rule{"id", entity.RulePrefix}},
		"id job-img- alone":   {func(j *content.Job) { j.ID = "job-img-" }, rule{"id", entity.RulePrefix}},
		"empty event":         {func(j *content.Job) { j.EventID = "" }, rule{"eventId", entity.RuleNonEmpty}},
		"kind VIDEO":          {func(j *content.Job) { j.Kind = "VIDEO" }, rule{"jobType", entity.RuleEnum}},
		"no kind":             {func(j *content.Job) { j.Kind = "" }, rule{"jobType", entity.RuleEnum}},
		"status PAUSED":       {func(j *content.Job) { j.Status = "PAUSED" }, rule{"status", entity.RuleEnum}},
		"progress -1":         {func(j *content.Job) { j.Progress = -1 }, rule{"progress", entity.RuleMin}},
		"progress 500":        {func(j *content.Job) { j.Progress = 500 }, rule{"progress", entity.RuleMax}},
		"completed without completedAt": {func(j *content.Job) { j.Status, j.Progress = content.StatusCompleted, 100 },
			rule{"", entity.RuleValidate}},
		"pending with completedAt": {func(j *content.Job) { j.CompletedAt = t0 }, rule{"", entity.RuleValidate}},
	}
	ctx := context.Background()
	type path struct {
		name  string
		image func(*entity.Table, *content.GeneratedImage) error
		job   func(*entity.Table, *content.Job) error
	}
	paths := []path{
		{"Create",
			func(tbl *entity.Table, g *content.GeneratedImage) error {
				return entity.NewStore[content.GeneratedImage](tbl).Create(ctx, g)
			},
			func(tbl *entity.Table, j *content.Job) error { return entity.NewStore[content.Job](tbl).Create(ctx, j) }},
		{"Put",
			func(tbl *entity.Table, g *content.GeneratedImage) error {
				return entity.NewStore[content.GeneratedImage](tbl).Put(ctx, g)
			},
			func(tbl *entity.Table, j *content.Job) error { return entity.NewStore[content.Job](tbl).Put(ctx, j) }},
		{"BatchPut",
			func(tbl *entity.Table, g *content.GeneratedImage) error {
				return entity.NewStore[content.GeneratedImage](tbl).BatchPut(ctx, []content.GeneratedImage{goodImage(), *g})
			},
			func(tbl *entity.Table, j *content.Job) error {
				ok := goodJob()
				ok.ID = "job-img-ok"
				return entity.NewStore[content.Job](tbl).BatchPut(ctx, []content.Job{ok, *j})
			}},
		{"BatchWrite",
			func(tbl *entity.Table, g *content.GeneratedImage) error {
				s := entity.NewStore[content.GeneratedImage](tbl)
				ok := goodImage()
				return tbl.BatchWrite(ctx, s.PutOp(&ok), s.PutOp(g))
			},
			func(tbl *entity.Table, j *content.Job) error {
				return tbl.BatchWrite(ctx, entity.NewStore[content.Job](tbl).PutOp(j))
			}},
		{"TxCreate",
			func(tbl *entity.Table, g *content.GeneratedImage) error {
				ok := goodImage()
				s := entity.NewStore[content.GeneratedImage](tbl)
				return tbl.Tx().Add(s.TxCreate(&ok), s.TxCreate(g)).Exec(ctx)
			},
			func(tbl *entity.Table, j *content.Job) error {
				return tbl.Tx().Add(entity.NewStore[content.Job](tbl).TxCreate(j)).Exec(ctx)
			}},
		{"TxPut",
			func(tbl *entity.Table, g *content.GeneratedImage) error {
				return tbl.Tx().Add(entity.NewStore[content.GeneratedImage](tbl).TxPut(g)).Exec(ctx)
			},
			func(tbl *entity.Table, j *content.Job) error {
				ok := content.Content{EventID: "evt-1", EventTitle: "t"}
				return tbl.Tx().Add(entity.NewStore[content.Content](tbl).TxPut(&ok), entity.NewStore[content.Job](tbl).TxPut(j)).Exec(ctx)
			}},
	}
	for _, p := range paths {
		for name, c := range images {
			wantBreach(t, p.name+"/image/"+name, goodImage, c.mod, p.image, content.GeneratedImageType, c.want.attr, c.want.rule)
		}
		for name, c := range jobs {
			wantBreach(t, p.name+"/job/"+name, goodJob, c.mod, p.job, content.JobType, c.want.attr, c.want.rule)
		}
	}
	t.Run("Create/content/empty title", func(t *testing.T) {
		tbl := memTable(t)
		err := entity.NewStore[content.Content](tbl).Create(ctx, &content.Content{EventID: "evt-1"})
		testenv.WantRule(t, "empty title", err, content.ContentType, "eventTitle", entity.RuleNonEmpty)
		if n := count(t, tbl); n != 0 {
			t.Errorf("%d items written", n)
		}
	})
	// The good values pass every path.
	for _, p := range paths {
		tbl := memTable(t)
		g, j := goodImage(), goodJob()
		if err := p.image(tbl, &g); err != nil {
			t.Errorf("%s good image: %v", p.name, err)
		}
		if err := p.job(tbl, &j); err != nil {
			t.Errorf("%s good job: %v", p.name, err)
		}
	}
}

// TestSeedRulesOnUpdate sets one attribute at a time through Update and
// TxUpdate: a breach is the typed error and the stored item is unchanged.
func TestSeedRulesOnUpdate(t *testing.T) {
	ctx := context.Background()
	tbl := memTable(t)
	images := entity.NewStore[content.GeneratedImage](tbl)
	jobs := entity.NewStore[content.Job](tbl)
	g, j := goodImage(), goodJob()
	if err := images.Create(ctx, &g); err != nil {
		t.Fatal(err)
	}
	if err := jobs.Create(ctx, &j); err != nil {
		t.Fatal(err)
	}
	gk, _ := g.PrimaryKey()
	jk, _ := j.PrimaryKey()
	imageCases := []struct {
		name, attr, rule string
		change           entity.Change[content.GeneratedImage]
	}{
		{"width 0", "width", entity.RuleMin, entity.Set(content.GeneratedImageWidth, 0)},
		{"height -1", "height", entity.RuleMin, entity.Set(content.GeneratedImageHeight, -1)},
		{"empty cdn url", "cdnUrl", entity.RuleNonEmpty, entity.Set(content.GeneratedImageCDNURL, "")},
		{"file size -1", "fileSize", entity.RuleMin, entity.Set(content.GeneratedImageFileSize, -1)},
	}
	jobCases := []struct {
		name, attr, rule string
		change           entity.Change[content.Job]
	}{
		{"progress 500", "progress", entity.RuleMax, entity.Set(content.JobProgress, 500)},
		{"progress -1", "progress", entity.RuleMin, entity.Set(content.JobProgress, -1)},
		{"status BOGUS", "status", entity.RuleEnum, entity.Set(content.JobStatus, "BOGUS")},
		{"kind VIDEO", "jobType", entity.RuleEnum, entity.Set(content.JobKind, "VIDEO")},
		{"empty event", "eventId", entity.RuleNonEmpty, entity.Set(content.JobEventID, "")},
	}
	for _, c := range imageCases {
		_, err := images.Update(ctx, gk, entity.Changes[content.GeneratedImage]{c.change})
		testenv.WantRule(t, "Update "+c.name, err, content.GeneratedImageType, c.attr, c.rule)
		err = tbl.Tx().Add(images.TxUpdate(gk, entity.Changes[content.GeneratedImage]{c.change})).Exec(ctx)
		testenv.WantRule(t, "TxUpdate "+c.name, err, content.GeneratedImageType, c.attr, c.rule)
	}
	for _, c := range jobCases {
		_, err := jobs.Update(ctx, jk, entity.Changes[content.Job]{entity.Set(content.JobResultMessage, "x"), c.change})
		testenv.WantRule(t, "Update "+c.name, err, content.JobType, c.attr, c.rule)
		err = tbl.Tx().Add(jobs.TxUpdate(jk, entity.Changes[content.Job]{c.change})).Exec(ctx)
		testenv.WantRule(t, "TxUpdate "+c.name, err, content.JobType, c.attr, c.rule)
	}
	gotG, err := images.Get(ctx, gk)
	if err != nil {
		t.Fatal(err)
	}
	gotJ, err := jobs.Get(ctx, jk)
	if err != nil {
		t.Fatal(err)
	}
	ignore := cmp.Transformer("times", func(time.Time) int { return 0 })
	if diff := cmp.Diff(g, gotG, ignore); diff != "" {
		t.Errorf("image changed: %s", diff)
	}
	if diff := cmp.Diff(j, gotJ, ignore); diff != "" {
		t.Errorf("job changed: %s", diff)
	}
	// A good Set goes through.
	if got, err := jobs.Update(ctx, jk, entity.Changes[content.Job]{entity.Set(content.JobProgress, 100)}); err != nil || got.Progress != 100 {
		t.Fatalf("good update: %+v %v", got, err)
	}
}

// TestSeedRulesOnRead stores unknown enum values behind the codec's back:
// reading them is the typed error naming the attribute and the value.
func TestSeedRulesOnRead(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, attr, value string
		typ               string
	}{
		{"style", "style", "UGLY", content.GeneratedImageType},
		{"platform", "platform", "TIKTOK", content.GeneratedImageType},
		{"status", "status", "PAUSED", content.JobType},
		{"kind", "jobType", "VIDEO", content.JobType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := memTable(t)
			var item map[string]types.AttributeValue
			var key entity.Key
			var err error
			if c.typ == content.JobType {
				j := goodJob()
				j.CreatedAt = t0
				item, err = j.MarshalItem()
				key, _ = j.PrimaryKey()
			} else {
				g := goodImage()
				item, err = g.MarshalItem()
				key, _ = g.PrimaryKey()
			}
			if err != nil {
				t.Fatal(err)
			}
			item[c.attr] = &types.AttributeValueMemberS{Value: c.value}
			if _, err := tbl.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: item}); err != nil {
				t.Fatal(err)
			}
			if c.typ == content.JobType {
				_, err = entity.NewStore[content.Job](tbl).Get(ctx, key)
			} else {
				_, err = entity.NewStore[content.GeneratedImage](tbl).Get(ctx, key)
			}
			testenv.WantRule(t, c.name, err, c.typ, c.attr, entity.RuleEnum)
			var ce *entity.ConstraintError
			if errors.As(err, &ce) && ce.Value != any(c.value) && fmt.Sprint(ce.Value) != c.value {
				t.Errorf("value %v, want %s", ce.Value, c.value)
			}
		})
	}
}
