package idp_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity"
	m "github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/query"
	q "github.com/tablekit/tablekit/query/idp"
)

// TestKeyStrings pins every key string of seed 000.
func TestKeyStrings(t *testing.T) {
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mustKey := func(k entity.Key, err error) entity.Key {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	created := time.Date(2025, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"project key", mustKey(m.ProjectKey("p1")), entity.Key{PK: "PROJ#p1", SK: "META"}},
		{"project GSI1PK", m.ProjectGSI1PK, "PROJECTS"},
		{"document key", mustKey(m.DocumentKey("p1", "d1")), entity.Key{PK: "PROJ#p1", SK: "DOC#d1"}},
		{"document GSI1PK", must(m.DocumentGSI1PK("p1")), "PROJ#p1#DOC"},
		{"workflow key", mustKey(m.WorkflowKey("d1", "w1")), entity.Key{PK: "DOC#d1", SK: "WF#w1"}},
		{"workflow prefix", m.WorkflowSKPrefix, "WF#"},
		{"segment key", mustKey(m.SegmentKey("w1", 2)), entity.Key{PK: "WF#w1", SK: "SEG#000002"}},
		{"segment prefix", m.SegmentSKPrefix, "SEG#"},
		{"artifact key", mustKey(m.ArtifactKey("a1")), entity.Key{PK: "ART#a1", SK: "META"}},
		{"artifact GSI1PK", must(m.ArtifactGSI1PK("u1")), "USR#u1#ART"},
		{"artifact GSI2PK", must(m.ArtifactGSI2PK("u1", "p1")), "USR#u1#PROJ#p1#ART"},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}

	a := m.Artifact{ArtifactID: "a1", UserID: "u1", ProjectID: "p1", Name: "n", CreatedAt: created}
	item, err := a.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	for attr, want := range map[string]string{
		"PK": "ART#a1", "SK": "META", "Type": "ARTIFACT",
		"GSI1PK": "USR#u1#ART", "GSI1SK": "2025-03-04T05:06:07.890Z",
		"GSI2PK": "USR#u1#PROJ#p1#ART", "GSI2SK": "2025-03-04T05:06:07.890Z",
	} {
		if got := testenv.Text(item, attr); got != want {
			t.Errorf("artifact %s = %q, want %q", attr, got, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := m.ProjectKey(""); !errors.Is(err, keys.ErrMissingField) {
		t.Errorf("empty project id: %v, want ErrMissingField", err)
	}
	if _, err := m.SegmentKey("w1", 1_000_000); !errors.Is(err, keys.ErrOverflow) {
		t.Errorf("segment index 1e6: %v, want ErrOverflow", err)
	}
	// A delimiter in an id is escaped, never a new segment.
	k, err := m.DocumentKey("p#1", "d1")
	if err != nil {
		t.Fatal(err)
	}
	if k.PK == "PROJ#p#1" {
		t.Errorf("delimiter not escaped: %q", k.PK)
	}
	if _, err := q.ProjectByID(context.Background(), m.NewTable(nil, ""), ""); !errors.As(err, new(*entity.ValidationError)) {
		t.Errorf("empty id lookup: %v, want *entity.ValidationError", err)
	}
}

func newTable(t *testing.T) *entity.Table {
	t.Helper()
	return testenv.Table(t, m.NewTable(testenv.Dynamo(t), testenv.UniqueName("idp")))
}

func TestQueryPatterns(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t)
	projects := entity.NewStore[m.Project](tbl)
	docs := entity.NewStore[m.Document](tbl)
	wfs := entity.NewStore[m.Workflow](tbl)
	segs := entity.NewStore[m.Segment](tbl)
	arts := entity.NewStore[m.Artifact](tbl)

	for i := 1; i <= 3; i++ {
		p := m.Project{ProjectID: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("프로젝트 %d", i)}
		if err := projects.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Millisecond) // distinct created_at
	}
	for i := 1; i <= 2; i++ {
		d := m.Document{ProjectID: "p1", DocumentID: fmt.Sprintf("d%d", i), FileName: fmt.Sprintf("doc%d.pdf", i)}
		if err := docs.Create(ctx, &d); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Millisecond)
	}
	if err := wfs.Create(ctx, &m.Workflow{DocumentID: "d1", WorkflowID: "w1", Status: "DONE"}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{10, 2, 1, 100} {
		if err := segs.Create(ctx, &m.Segment{WorkflowID: "w1", SegmentIndex: i, Text: fmt.Sprint("page ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, pid := range []string{"p1", "p2", "p1"} {
		a := m.Artifact{ArtifactID: fmt.Sprintf("a%d", i), UserID: "u1", ProjectID: pid, Name: "out"}
		if err := arts.Create(ctx, &a); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Millisecond)
	}

	p, err := q.ProjectByID(ctx, tbl, "p2")
	if err != nil || p.Name != "프로젝트 2" {
		t.Fatalf("ProjectByID = %+v, %v", p, err)
	}
	if _, err := q.ProjectByID(ctx, tbl, "nope"); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("missing project: %v", err)
	}
	ps, err := q.Projects(ctx, tbl, query.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"p1", "p2", "p3"}, ids(ps.Items, func(p m.Project) string { return p.ProjectID })); diff != "" {
		t.Errorf("Projects order (-want +got):\n%s", diff)
	}
	ps, err = q.Projects(ctx, tbl, query.PageOptions{Reverse: true, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"p3", "p2"}, ids(ps.Items, func(p m.Project) string { return p.ProjectID })); diff != "" || ps.Next == "" {
		t.Errorf("Projects newest first (-want +got):\n%s next=%q", diff, ps.Next)
	}
	ps, err = q.Projects(ctx, tbl, query.PageOptions{Reverse: true, Limit: 2, After: ps.Next})
	if err != nil || len(ps.Items) != 1 || ps.Items[0].ProjectID != "p1" {
		t.Errorf("Projects page 2 = %+v, %v", ps.Items, err)
	}

	if d, err := q.DocumentByID(ctx, tbl, "p1", "d2"); err != nil || d.FileName != "doc2.pdf" {
		t.Errorf("DocumentByID = %+v, %v", d, err)
	}
	ds, err := q.DocumentsOfProject(ctx, tbl, "p1", query.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"d1", "d2"}, ids(ds.Items, func(d m.Document) string { return d.DocumentID })); diff != "" {
		t.Errorf("DocumentsOfProject (-want +got):\n%s", diff)
	}
	// A cursor of one pattern is refused by another.
	ds2, err := q.DocumentsOfProject(ctx, tbl, "p1", query.PageOptions{Limit: 1})
	if err != nil || ds2.Next == "" {
		t.Fatalf("documents page: %v next=%q", err, ds2.Next)
	}
	if _, err := q.Projects(ctx, tbl, query.PageOptions{After: ds2.Next}); err == nil {
		t.Errorf("foreign cursor accepted")
	}

	if w, err := q.WorkflowByID(ctx, tbl, "d1", "w1"); err != nil || w.Status != "DONE" {
		t.Errorf("WorkflowByID = %+v, %v", w, err)
	}
	wl, err := q.WorkflowsOfDocument(ctx, tbl, "d1", query.PageOptions{})
	if err != nil || len(wl.Items) != 1 {
		t.Errorf("WorkflowsOfDocument = %+v, %v", wl.Items, err)
	}

	if s, err := q.SegmentByIndex(ctx, tbl, "w1", 10); err != nil || s.Text != "page 10" {
		t.Errorf("SegmentByIndex = %+v, %v", s, err)
	}
	sl, err := q.SegmentsOfWorkflow(ctx, tbl, "w1", query.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, s := range sl.Items {
		idx = append(idx, s.SegmentIndex)
	}
	if diff := cmp.Diff([]int{1, 2, 10, 100}, idx); diff != "" {
		t.Errorf("segments must list in numeric order (-want +got):\n%s", diff)
	}

	if a, err := q.ArtifactByID(ctx, tbl, "a1"); err != nil || a.ProjectID != "p2" {
		t.Errorf("ArtifactByID = %+v, %v", a, err)
	}
	al, err := q.ArtifactsOfUser(ctx, tbl, "u1", query.PageOptions{Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a2", "a1", "a0"}, ids(al.Items, func(a m.Artifact) string { return a.ArtifactID })); diff != "" {
		t.Errorf("ArtifactsOfUser (-want +got):\n%s", diff)
	}
	al, err = q.ArtifactsOfUserProject(ctx, tbl, "u1", "p1", query.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a0", "a2"}, ids(al.Items, func(a m.Artifact) string { return a.ArtifactID })); diff != "" {
		t.Errorf("ArtifactsOfUserProject (-want +got):\n%s", diff)
	}
}

func ids[T any](items []T, f func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, f(it))
	}
	return out
}
