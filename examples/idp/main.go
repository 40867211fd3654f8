// Command idp is the runnable example of the idp_v2 backend (seed 000):
// five entities on one table with GSI1/GSI2, every query pattern of the
// seed, and the Valkey list cache with its invalidation rules.
//
// DynamoDB: the embedded engine (package ddbmem) by default; DynamoDB
// Local or AWS when TABLEKIT_DYNAMODB_ENDPOINT is set.
//
// Valkey: as the seed says, with no endpoint configured the cache is
// bypassed and the loader is called directly. IDP_ELASTICACHE_ENDPOINT
// (host:port) connects with TLS, as in production; TABLEKIT_VALKEY_ADDR
// connects to a local server without TLS.
//
//	go run ./examples/idp
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	m "github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/entity/idp/idpcache"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/query"
	q "github.com/tablekit/tablekit/query/idp"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := newCache()
	if err != nil {
		fmt.Fprintln(os.Stderr, "idp example:", err)
		os.Exit(2)
	}
	defer c.Close()
	if err := run(ctx, os.Stdout, newClient(), c); err != nil {
		fmt.Fprintln(os.Stderr, "idp example:", err)
		os.Exit(1)
	}
}

// newClient returns the embedded engine, or a client of the DynamoDB
// endpoint in TABLEKIT_DYNAMODB_ENDPOINT.
func newClient() entity.Client {
	if ep := os.Getenv("TABLEKIT_DYNAMODB_ENDPOINT"); ep != "" {
		return entity.LocalClient(ep)
	}
	return ddbmem.New()
}

func newCache() (*cache.Cache, error) {
	o := cache.Options{AppID: "idp", Env: "example", Service: "backend-" + strings.ToLower(keys.NewID()[18:])}
	if ep := os.Getenv("IDP_ELASTICACHE_ENDPOINT"); ep != "" {
		o.Addresses = []string{ep} // TLS on: an endpoint is configured
	} else if addr := os.Getenv("TABLEKIT_VALKEY_ADDR"); addr != "" {
		o.Addresses, o.DisableTLS = []string{addr}, true
	}
	return cache.New(o)
}

// run creates the table, writes sample data and runs every pattern.
func run(ctx context.Context, w io.Writer, client entity.Client, c *cache.Cache) error {
	tbl := m.NewTable(client, "idp-example-"+strings.ToLower(keys.NewID()[18:]))
	if err := tbl.EnsureTable(ctx); err != nil {
		return err
	}
	defer tbl.DeleteTable(context.WithoutCancel(ctx))
	fmt.Fprintf(w, "== table with GSI1, GSI2; cache enabled: %v ==\n", c.Enabled())

	projects := entity.NewStore[m.Project](tbl)
	docs := entity.NewStore[m.Document](tbl)
	wfs := entity.NewStore[m.Workflow](tbl)
	segs := entity.NewStore[m.Segment](tbl)
	arts := entity.NewStore[m.Artifact](tbl)

	base := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return base.Add(time.Duration(min) * time.Minute) }
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(projects.Create(ctx, &m.Project{ProjectID: "p1", Name: "계약서 분석", CreatedAt: at(0)}))
	must(projects.Create(ctx, &m.Project{ProjectID: "p2", Name: "Invoices", CreatedAt: at(1)}))
	must(docs.Create(ctx, &m.Document{ProjectID: "p1", DocumentID: "d1", FileName: "계약서.pdf", CreatedAt: at(2)}))
	must(docs.Create(ctx, &m.Document{ProjectID: "p1", DocumentID: "d2", FileName: "annex.pdf", CreatedAt: at(3)}))
	must(wfs.Create(ctx, &m.Workflow{DocumentID: "d1", WorkflowID: "w1", ProjectID: "p1", Status: "COMPLETED", TotalPages: 3, CreatedAt: at(4)}))
	for _, i := range []int{10, 2, 1} {
		must(segs.Create(ctx, &m.Segment{WorkflowID: "w1", SegmentIndex: i, Text: fmt.Sprintf("page %d", i), CreatedAt: at(5)}))
	}
	must(arts.Create(ctx, &m.Artifact{ArtifactID: "a1", UserID: "u1", ProjectID: "p1", Name: "요약.md", CreatedAt: at(6)}))
	must(arts.Create(ctx, &m.Artifact{ArtifactID: "a2", UserID: "u1", ProjectID: "p2", Name: "totals.csv", CreatedAt: at(7)}))
	must(arts.Create(ctx, &m.Artifact{ArtifactID: "a3", UserID: "u1", ProjectID: "p1", Name: "tables.json", CreatedAt: at(8)}))

	p, err := q.ProjectByID(ctx, tbl, "p1")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ProjectByID(p1): %s\n", p.Name)
	ps, err := q.Projects(ctx, tbl, query.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Projects: %s\n", list(ps.Items, func(p m.Project) string { return p.ProjectID + " " + p.Name }))
	d, err := q.DocumentByID(ctx, tbl, "p1", "d2")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "DocumentByID(p1,d2): %s\n", d.FileName)
	ds, err := q.DocumentsOfProject(ctx, tbl, "p1", query.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "DocumentsOfProject(p1): %s\n", list(ds.Items, func(d m.Document) string { return d.FileName }))
	wf, err := q.WorkflowByID(ctx, tbl, "d1", "w1")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "WorkflowByID(d1,w1): %s\n", wf.Status)
	wl, err := q.WorkflowsOfDocument(ctx, tbl, "d1", query.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "WorkflowsOfDocument(d1): %s\n", list(wl.Items, func(w m.Workflow) string { return w.WorkflowID }))
	s, err := q.SegmentByIndex(ctx, tbl, "w1", 2)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "SegmentByIndex(w1,2): %s\n", s.Text)
	sl, err := q.SegmentsOfWorkflow(ctx, tbl, "w1", query.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "SegmentsOfWorkflow(w1) in numeric order: %s\n", list(sl.Items, func(s m.Segment) string { return fmt.Sprint(s.SegmentIndex) }))
	a, err := q.ArtifactByID(ctx, tbl, "a2")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ArtifactByID(a2): %s\n", a.Name)
	al, err := q.ArtifactsOfUser(ctx, tbl, "u1", query.PageOptions{Reverse: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ArtifactsOfUser(u1), newest first: %s\n", list(al.Items, func(a m.Artifact) string { return a.Name }))
	al, err = q.ArtifactsOfUserProject(ctx, tbl, "u1", "p1", query.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ArtifactsOfUserProject(u1,p1): %s\n", list(al.Items, func(a m.Artifact) string { return a.Name }))

	// The seed's query_projects cache: cache-aside for 3600 s, declared
	// as a derived cache (package idpcache), so that a project created,
	// updated or deleted through the cached store invalidates it.
	stores, err := idpcache.New(tbl, c)
	if err != nil {
		return err
	}
	loads := 0
	loadProjects := func(ctx context.Context) ([]string, error) {
		loads++
		page, err := q.Projects(ctx, tbl, query.PageOptions{Limit: 100})
		return list2(page.Items), err
	}
	for i := 0; i < 2; i++ {
		names, err := idpcache.QueryProjects(ctx, stores, loadProjects)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "query_projects read %d: %v (loader runs so far: %d)\n", i+1, names, loads)
	}
	must(stores.Projects.Create(ctx, &m.Project{ProjectID: "p3", Name: "New project", CreatedAt: at(9)}))
	names, err := idpcache.QueryProjects(ctx, stores, loadProjects)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "after a create through the cached store: %v (loader runs so far: %d)\n", names, loads)
	mt := c.Metrics()
	fmt.Fprintf(w, "cache metrics: hits=%d misses=%d bypassed=%d\n", mt.Hits, mt.Misses, mt.Bypassed)
	return nil
}

func list[T any](items []T, f func(T) string) string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = f(it)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func list2(ps []m.Project) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ProjectID
	}
	return out
}
