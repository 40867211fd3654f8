package content_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
)

var t0 = time.Date(2025, 10, 29, 10, 0, 0, 0, time.UTC)

// now is the clock of tests that write to DynamoDB Local. It must be
// recent: DynamoDB Local deletes items whose TTL has passed (seen while
// writing these tests), so a job stamped in 2025 would vanish mid-test.
var now = time.Now().UTC().Truncate(time.Second)

// TestSeedKeys pins every key string of the content table.
func TestSeedKeys(t *testing.T) {
	must := testenv.Must[entity.Key](t)
	str := testenv.Must[string](t)
	keyCases := []struct {
		name      string
		got, want entity.Key
	}{
		{"content", must(content.ContentKey("evt-draft-12345")), entity.Key{PK: "EVENT#evt-draft-12345", SK: "CONTENT"}},
		{"image", must(content.GeneratedImageKey("evt-draft-12345", content.StyleSimple, content.PlatformInstagram, "01JB")), entity.Key{PK: "EVENT#evt-draft-12345", SK: "IMAGE#SIMPLE#INSTAGRAM#01JB"}},
		{"job", must(content.JobKey("job-img-abc123")), entity.Key{PK: "JOB#job-img-abc123", SK: "META"}},
	}
	for _, c := range keyCases {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s: %s", c.name, diff)
		}
	}
	strCases := []struct{ got, want string }{
		{str(content.GeneratedImageSKPrefixByStylePlatform(content.StyleSimple, content.PlatformInstagram)), "IMAGE#SIMPLE#INSTAGRAM#"},
		{str(content.GeneratedImageSKPrefixByStyle(content.StyleFancy)), "IMAGE#FANCY#"},
		{content.GeneratedImageSKPrefix, "IMAGE#"},
		{str(content.JobGSI1PK("evt-draft-12345")), "EVENT#evt-draft-12345"},
		{str(content.JobGSI1SK(t0, "job-img-abc123")), "JOB#2025-10-29T10:00:00.000Z#job-img-abc123"},
		{str(content.JobGSI2PK(content.StatusProcessing)), "JOBSTATUS#PROCESSING"},
		{str(content.JobGSI2SK(t0, "job-img-abc123")), "2025-10-29T10:00:00.000Z#job-img-abc123"},
		{content.ContentType + content.GeneratedImageType + content.JobType, "ContentGeneratedImageJob"},
	}
	for i, c := range strCases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
	if k := must(content.ContentKey("e#1")); k.PK != "EVENT#e%231" {
		t.Errorf("delimiter not escaped: %q", k.PK)
	}
	if k := must(content.JobKey("job-img-a#b")); k.PK != "JOB#job-img-a%23b" {
		t.Errorf("delimiter not escaped: %q", k.PK)
	}
	for name, err := range map[string]error{
		"content": func() error { _, err := content.ContentKey(""); return err }(),
		"image": func() error {
			_, err := content.GeneratedImageKey("e", content.StyleFancy, content.PlatformBlog, "")
			return err
		}(),
		"job": func() error { _, err := content.JobKey(""); return err }(),
	} {
		if !errors.Is(err, keys.ErrMissingField) {
			t.Errorf("empty %s id: %v", name, err)
		}
	}
	ev, st, pl, id, err := content.ParseGeneratedImageKey(entity.Key{PK: "EVENT#e%231", SK: "IMAGE#TRENDY#BLOG#x"})
	if err != nil || ev != "e#1" || st != content.StyleTrendy || pl != content.PlatformBlog || id != "x" {
		t.Fatalf("parse: %q %q %q %q %v", ev, st, pl, id, err)
	}
	for p, want := range map[content.Platform][2]int{
		content.PlatformInstagram: {1080, 1080}, content.PlatformFacebook: {1200, 628},
		content.PlatformKakao: {800, 800}, content.PlatformBlog: {800, 600},
	} {
		w, h, ok := content.DefaultResolution(p)
		if !ok || w != want[0] || h != want[1] {
			t.Errorf("%s: %dx%d", p, w, h)
		}
	}
	if _, _, ok := content.DefaultResolution("TIKTOK"); ok {
		t.Error("unknown platform has a resolution")
	}
}

func TestJobIDs(t *testing.T) {
	id := content.NewJobID()
	if !strings.HasPrefix(id, "job-img-") || len(id) != len("job-img-")+36 || entity.Check(content.JobID, id) != nil {
		t.Fatalf("NewJobID %q", id)
	}
	if id == content.NewJobID() {
		t.Fatal("two equal job ids")
	}
	for _, bad := range []string{"", "job-img-", "job-vid-abc", "abc"} {
		testenv.WantRule(t, bad, entity.Check(content.JobID, bad), content.JobType, "id", entity.RulePrefix)
	}
	if err := entity.Check(content.JobID, "job-img-abc123"); err != nil {
		t.Errorf("seed sample: %v", err)
	}
}

func TestCheckTransition(t *testing.T) {
	legal := [][2]content.Status{
		{content.StatusPending, content.StatusProcessing},
		{content.StatusProcessing, content.StatusCompleted},
		{content.StatusProcessing, content.StatusFailed},
	}
	testenv.Transitions(t, content.StatusValues(), legal, content.CheckTransition, func(err error, _, _ content.Status) bool {
		return errors.Is(err, content.ErrIllegalTransition)
	})
	testenv.WantRule(t, "unknown", content.CheckTransition("DONE", content.StatusFailed), content.JobType, "status", entity.RuleEnum)
}

func newTable(t *testing.T) *entity.Table {
	t.Helper()
	tbl := content.NewTable(testenv.Dynamo(t), testenv.UniqueName("content"))
	return testenv.Table(t, tbl)
}

func raw(t *testing.T, tbl *entity.Table, k entity.Key) map[string]types.AttributeValue {
	t.Helper()
	return testenv.RawItem(t, tbl, k)
}

// TestContentAndImages: one content per event, image validation, TTL.
func TestContentAndImages(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t)
	svc := content.NewService(tbl, func(o *content.Options) { o.Now = func() time.Time { return now } })
	c := content.Content{EventID: "evt-draft-12345", EventTitle: "봄맞이 커피 할인 이벤트", EventDescription: "신메뉴 아메리카노 1+1 이벤트"}
	if err := svc.CreateContent(ctx, &c); err != nil {
		t.Fatal(err)
	}
	again := content.Content{EventID: "evt-draft-12345", EventTitle: "dup"}
	if err := svc.CreateContent(ctx, &again); !errors.Is(err, entity.ErrAlreadyExists) {
		t.Fatalf("second content of an event: %v", err)
	}
	if err := svc.CreateContent(ctx, &content.Content{EventTitle: "x"}); !errors.Is(err, keys.ErrMissingField) {
		t.Fatalf("empty event: %v", err)
	}
	if err := svc.CreateContent(ctx, &content.Content{EventID: "e"}); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("empty title: %v", err)
	}
	it := raw(t, tbl, entity.Key{PK: "EVENT#evt-draft-12345", SK: "CONTENT"})
	if testenv.Text(it, "Type") != "Content" || testenv.Text(it, "eventTitle") != c.EventTitle || testenv.Text(it, "createdAt") == "<absent>" || testenv.Text(it, "ttl") != "<absent>" {
		t.Fatalf("content item %v", it)
	}

	g := content.NewImage("evt-draft-12345", content.StyleSimple, content.PlatformInstagram, "https://cdn.kt-event.com/images/evt-draft-12345-simple.png", "Clean and simple coffee event poster")
	if err := svc.AddImage(ctx, &g); err != nil {
		t.Fatal(err)
	}
	k, _ := g.PrimaryKey()
	it = raw(t, tbl, k)
	if want := strconv.FormatInt(now.Add(90*24*time.Hour).Unix(), 10); testenv.Text(it, "ttl") != want {
		t.Fatalf("image ttl %s, want %s (90 days)", testenv.Text(it, "ttl"), want)
	}
	if testenv.Text(it, "SK") != "IMAGE#SIMPLE#INSTAGRAM#"+g.ID || testenv.Text(it, "width") != "1080" || testenv.Text(it, "selected") != "<absent>" && it["selected"].(*types.AttributeValueMemberBOOL).Value {
		t.Fatalf("image item %v", it)
	}
	bad := g
	bad.ID, bad.Width = "other", 0
	testenv.WantRule(t, "zero width", svc.AddImage(ctx, &bad), content.GeneratedImageType, "width", entity.RuleMin)
	sel, err := svc.SelectImage(ctx, g.EventID, g.Style, g.Platform, g.ID, true)
	if err != nil || !sel.Selected {
		t.Fatalf("select: %+v %v", sel, err)
	}
	if _, err := svc.SelectImage(ctx, g.EventID, g.Style, g.Platform, "missing", true); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("select missing: %v", err)
	}
	if _, err := svc.SelectImage(ctx, "", g.Style, g.Platform, g.ID, true); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("select empty event: %v", err)
	}
}

// TestJobLifecycle: PENDING -> PROCESSING -> COMPLETED with progress,
// completedAt, TTL, the GSI2 status key following the status, and every
// illegal step refused.
func TestJobLifecycle(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t)
	svc := content.NewService(tbl, func(o *content.Options) { o.Now = func() time.Time { return now } })
	j := content.Job{ID: "job-img-abc123", EventID: "evt-draft-12345", Kind: content.KindImageGeneration}
	if err := svc.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateJob(ctx, &content.Job{ID: "job-img-abc123", EventID: "e", Kind: content.KindImageGeneration}); !errors.Is(err, entity.ErrAlreadyExists) {
		t.Fatalf("duplicate job: %v", err)
	}
	for name, bad := range map[string]content.Job{
		"bad id":      {ID: "job-abc", EventID: "e", Kind: content.KindImageGeneration},
		"no kind":     {ID: "job-img-x1", EventID: "e"},
		"empty event": {ID: "job-img-x2", Kind: content.KindImageGeneration},
	} {
		if err := svc.CreateJob(ctx, &bad); !errors.Is(err, entity.ErrValidation) {
			t.Errorf("%s: %v", name, err)
		}
	}
	key, _ := content.JobKey(j.ID)
	it := raw(t, tbl, key)
	if testenv.Text(it, "status") != "PENDING" || testenv.Text(it, "progress") != "0" || testenv.Text(it, "GSI2PK") != "JOBSTATUS#PENDING" ||
		testenv.Text(it, "GSI1PK") != "EVENT#evt-draft-12345" || testenv.Text(it, "GSI1SK") != "JOB#"+now.Format("2006-01-02T15:04:05.000Z")+"#job-img-abc123" ||
		testenv.Text(it, "ttl") != strconv.FormatInt(now.Add(30*24*time.Hour).Unix(), 10) {
		t.Fatalf("job item %v", it)
	}
	var te *content.TransitionError
	if _, err := svc.CompleteJob(ctx, j.ID, "early"); !errors.As(err, &te) || te.From != content.StatusPending || te.To != content.StatusCompleted {
		t.Fatalf("complete a pending job: %v", err)
	}
	if _, err := svc.SetProgress(ctx, j.ID, 10); !errors.As(err, &te) || te.From != content.StatusPending {
		t.Fatalf("progress of a pending job: %v", err)
	}
	got, err := svc.StartJob(ctx, j.ID)
	if err != nil || got.Status != content.StatusProcessing {
		t.Fatalf("start: %+v %v", got, err)
	}
	if _, err := svc.StartJob(ctx, j.ID); !errors.As(err, &te) || te.From != content.StatusProcessing {
		t.Fatalf("start twice: %v", err)
	}
	for _, p := range []int{-1, 101} {
		_, err := svc.SetProgress(ctx, j.ID, p)
		testenv.WantRule(t, "progress "+strconv.Itoa(p), err, content.JobType, "progress", map[bool]string{true: entity.RuleMin, false: entity.RuleMax}[p < 0])
	}
	if got, err = svc.SetProgress(ctx, j.ID, 50); err != nil || got.Progress != 50 {
		t.Fatalf("progress: %+v %v", got, err)
	}
	if testenv.Text(raw(t, tbl, key), "GSI2PK") != "JOBSTATUS#PROCESSING" {
		t.Fatal("GSI2 key did not follow the status")
	}
	got, err = svc.CompleteJob(ctx, j.ID, "4 images")
	if err != nil || got.Status != content.StatusCompleted || got.Progress != 100 || !got.CompletedAt.Equal(now) || got.ResultMessage != "4 images" {
		t.Fatalf("complete: %+v %v", got, err)
	}
	if _, err := svc.FailJob(ctx, j.ID, "late"); !errors.As(err, &te) || te.From != content.StatusCompleted {
		t.Fatalf("fail a completed job: %v", err)
	}
	if _, err := svc.StartJob(ctx, "job-img-missing"); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("missing job: %v", err)
	}
	_, err = svc.StartJob(ctx, "nope")
	testenv.WantRule(t, "bad id", err, content.JobType, "id", entity.RulePrefix)
	// FAILED sets completedAt too.
	f := content.Job{ID: content.NewJobID(), EventID: "evt-2", Kind: content.KindImageRegeneration}
	if err := svc.CreateJob(ctx, &f); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.StartJob(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	got, err = svc.FailJob(ctx, f.ID, "stable diffusion timeout")
	if err != nil || got.Status != content.StatusFailed || got.CompletedAt.IsZero() || got.ErrorMessage == "" {
		t.Fatalf("fail: %+v %v", got, err)
	}
}

// TestStartJobRace: 16 workers start the same job; exactly one wins, the
// others get a TransitionError from PROCESSING.
func TestStartJobRace(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t)
	svc := content.NewService(tbl)
	j := content.Job{ID: content.NewJobID(), EventID: "evt-r", Kind: content.KindImageGeneration}
	if err := svc.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	var wins, lost atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.StartJob(ctx, j.ID)
			var te *content.TransitionError
			switch {
			case err == nil:
				wins.Add(1)
			case errors.As(err, &te) && te.From == content.StatusProcessing:
				lost.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 || lost.Load() != 15 {
		t.Fatalf("wins %d, lost %d", wins.Load(), lost.Load())
	}
}
