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

	"github.com/tablekit/tablekit/entity"
	ce "github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
)

func setup(t *testing.T, client entity.Client) (*entity.Table, *ce.Service) {
	t.Helper()
	// A recent clock: DynamoDB Local deletes items whose TTL has passed.
	c := testenv.NewClock(time.Now().UTC().Truncate(time.Second))
	tbl := ce.NewTable(client, testenv.UniqueName("qcontent"), func(o *entity.Options) { o.Now = c.Now })
	testenv.Table(t, tbl)
	return tbl, ce.NewService(tbl, func(o *ce.Options) { o.Now = c.Now })
}

func imageIDs(gs []ce.GeneratedImage) []string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%s/%s/%s", g.Style, g.Platform, g.Prompt))
	}
	return out
}

func jobIDs(js []ce.Job) []string {
	var out []string
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}

// TestAccessPatterns runs every access pattern against DynamoDB Local.
func TestAccessPatterns(t *testing.T) {
	ctx := context.Background()
	tbl, svc := setup(t, testenv.Dynamo(t))
	for _, ev := range []string{"evt-a", "evt-b"} {
		if err := svc.CreateContent(ctx, &ce.Content{EventID: ev, EventTitle: "title " + ev}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(ev string, s ce.Style, p ce.Platform, prompt string) ce.GeneratedImage {
		g := ce.NewImage(ev, s, p, "https://cdn/"+prompt+".png", prompt)
		if err := svc.AddImage(ctx, &g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	add("evt-a", ce.StyleSimple, ce.PlatformInstagram, "v1")
	v2 := add("evt-a", ce.StyleSimple, ce.PlatformInstagram, "v2") // a regeneration
	add("evt-a", ce.StyleFancy, ce.PlatformBlog, "f1")
	add("evt-b", ce.StyleTrendy, ce.PlatformKakao, "t1")
	if _, err := svc.SelectImage(ctx, "evt-a", v2.Style, v2.Platform, v2.ID, true); err != nil {
		t.Fatal(err)
	}
	var jobs []ce.Job
	for i := range 3 {
		j := ce.Job{ID: fmt.Sprintf("job-img-%d", i), EventID: "evt-a", Kind: ce.KindImageGeneration}
		if err := svc.CreateJob(ctx, &j); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	if _, err := svc.StartJob(ctx, "job-img-1"); err != nil {
		t.Fatal(err)
	}

	c, err := qc.ContentByEvent(ctx, tbl, "evt-a", entity.ConsistentRead)
	if err != nil || c.EventTitle != "title evt-a" {
		t.Fatalf("content %+v %v", c, err)
	}
	all, err := qc.ImagesOfEvent(ctx, tbl, "evt-a", query.PageOptions{ConsistentRead: true})
	if diff := cmp.Diff([]string{"FANCY/BLOG/f1", "SIMPLE/INSTAGRAM/v1", "SIMPLE/INSTAGRAM/v2"}, imageIDs(all.Items)); err != nil || diff != "" {
		t.Fatalf("images of event: %v %s", err, diff)
	}
	bySP, err := qc.ImagesByStylePlatform(ctx, tbl, "evt-a", ce.StyleSimple, ce.PlatformInstagram, query.PageOptions{Limit: 1})
	if err != nil || len(bySP.Items) != 1 || bySP.Items[0].Prompt != "v2" || bySP.Next == "" {
		t.Fatalf("by style/platform: %v %v", imageIDs(bySP.Items), err)
	}
	rest, err := qc.ImagesByStylePlatform(ctx, tbl, "evt-a", ce.StyleSimple, ce.PlatformInstagram, query.PageOptions{After: bySP.Next})
	if err != nil || len(rest.Items) != 1 || rest.Items[0].Prompt != "v1" {
		t.Fatalf("page 2: %v %v", imageIDs(rest.Items), err)
	}
	latest, err := qc.LatestImage(ctx, tbl, "evt-a", ce.StyleSimple, ce.PlatformInstagram)
	if err != nil || latest.ID != v2.ID {
		t.Fatalf("latest %+v %v", latest, err)
	}
	if _, err := qc.LatestImage(ctx, tbl, "evt-a", ce.StyleTrendy, ce.PlatformKakao); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("latest none: %v", err)
	}
	sel, err := qc.SelectedImages(ctx, tbl, "evt-a")
	if err != nil || len(sel) != 1 || sel[0].ID != v2.ID || !sel[0].Selected {
		t.Fatalf("selected %v %v", imageIDs(sel), err)
	}
	one, err := qc.Image(ctx, tbl, "evt-a", v2.Style, v2.Platform, v2.ID)
	if err != nil || one.Prompt != "v2" {
		t.Fatalf("image %v", err)
	}
	recent, err := qc.RecentImages(ctx, tbl, query.PageOptions{Limit: 2})
	if diff := cmp.Diff([]string{"TRENDY/KAKAO/t1", "FANCY/BLOG/f1"}, imageIDs(recent.Items)); err != nil || diff != "" {
		t.Fatalf("recent images: %v %s", err, diff)
	}
	rc, err := qc.RecentContents(ctx, tbl, query.PageOptions{})
	if err != nil || len(rc.Items) != 2 || rc.Items[0].EventID != "evt-b" {
		t.Fatalf("recent contents %+v %v", rc.Items, err)
	}
	j, err := qc.JobByID(ctx, tbl, "job-img-1")
	if err != nil || j.Status != ce.StatusProcessing {
		t.Fatalf("job %+v %v", j, err)
	}
	ofEvent, err := qc.JobsOfEvent(ctx, tbl, "evt-a", query.PageOptions{})
	if diff := cmp.Diff([]string{"job-img-2", "job-img-1", "job-img-0"}, jobIDs(ofEvent.Items)); err != nil || diff != "" {
		t.Fatalf("jobs of event: %v %s", err, diff)
	}
	pending, err := qc.JobsByStatus(ctx, tbl, ce.StatusPending, query.PageOptions{})
	if diff := cmp.Diff([]string{"job-img-2", "job-img-0"}, jobIDs(pending.Items)); err != nil || diff != "" {
		t.Fatalf("pending jobs: %v %s", err, diff)
	}
	processing, err := qc.JobsByStatus(ctx, tbl, ce.StatusProcessing, query.PageOptions{})
	if err != nil || len(processing.Items) != 1 || processing.Items[0].ID != "job-img-1" {
		t.Fatalf("processing jobs %v %v", jobIDs(processing.Items), err)
	}

	// Bad input.
	for name, err := range map[string]error{
		"content empty event": func() error { _, err := qc.ContentByEvent(ctx, tbl, ""); return err }(),
		"images empty event":  func() error { _, err := qc.ImagesOfEvent(ctx, tbl, "", query.PageOptions{}); return err }(),
		"image empty id":      func() error { _, err := qc.Image(ctx, tbl, "evt-a", ce.StyleSimple, ce.PlatformBlog, ""); return err }(),
		"jobs empty event":    func() error { _, err := qc.JobsOfEvent(ctx, tbl, "", query.PageOptions{}); return err }(),
		"selected empty":      func() error { _, err := qc.SelectedImages(ctx, tbl, ""); return err }(),
	} {
		if !errors.Is(err, keys.ErrMissingField) || !errors.Is(err, entity.ErrValidation) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := qc.ImagesByStylePlatform(ctx, tbl, "evt-a", "RETRO", ce.PlatformBlog, query.PageOptions{}); !isConstraint(err) {
		t.Errorf("unknown style: %v", err)
	}
	if _, err := qc.ImagesByStylePlatform(ctx, tbl, "evt-a", ce.StyleFancy, "TIKTOK", query.PageOptions{}); !isConstraint(err) {
		t.Errorf("unknown platform: %v", err)
	}
	if _, err := qc.JobsByStatus(ctx, tbl, "PAUSED", query.PageOptions{}); !isConstraint(err) {
		t.Errorf("unknown status: %v", err)
	}
	if _, err := qc.JobByID(ctx, tbl, "img-1"); !isConstraint(err) {
		t.Errorf("bad job id: %v", err)
	}
	if _, err := qc.JobByID(ctx, tbl, "job-img-none"); !errors.Is(err, entity.ErrNotFound) {
		t.Errorf("missing job: %v", err)
	}
	if _, err := qc.ImagesOfEvent(ctx, tbl, "evt-a", query.PageOptions{After: "x.y"}); !errors.Is(err, query.ErrInvalidCursor) {
		t.Errorf("forged cursor: %v", err)
	}
	if _, err := qc.ImagesByStylePlatform(ctx, tbl, "evt-b", ce.StyleSimple, ce.PlatformInstagram, query.PageOptions{After: bySP.Next}); !errors.Is(err, query.ErrInvalidCursor) {
		t.Errorf("cursor of another event: %v", err)
	}

	// An item with an unknown style in the table is a typed error on read.
	_, err = tbl.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "EVENT#evt-bad"}, "SK": &types.AttributeValueMemberS{Value: "IMAGE#RETRO#BLOG#x"},
		"Type": &types.AttributeValueMemberS{Value: "GeneratedImage"}, "id": &types.AttributeValueMemberS{Value: "x"},
		"eventId": &types.AttributeValueMemberS{Value: "evt-bad"}, "style": &types.AttributeValueMemberS{Value: "RETRO"},
		"platform": &types.AttributeValueMemberS{Value: "BLOG"}, "cdnUrl": &types.AttributeValueMemberS{Value: "u"},
		"width": &types.AttributeValueMemberN{Value: "800"}, "height": &types.AttributeValueMemberN{Value: "600"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var ee *entity.ConstraintError
	if _, err := qc.ImagesOfEvent(ctx, tbl, "evt-bad", query.PageOptions{}); !errors.As(err, &ee) || ee.Attr != "style" || ee.Value != ce.Style("RETRO") {
		t.Errorf("stored unknown style: %v", err)
	}
}

// isConstraint reports whether err is an *entity.ConstraintError.
func isConstraint(err error) bool {
	var ce *entity.ConstraintError
	return errors.As(err, &ce) && errors.Is(err, entity.ErrValidation)
}
