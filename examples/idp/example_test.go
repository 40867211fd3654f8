package main

import (
	"context"
	"os"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
)

// The example on the embedded engine with the cache bypassed (no Valkey
// endpoint), as `go run ./examples/idp` does on a machine with no server.
func Example() {
	c, err := cache.New(cache.Options{AppID: "idp", Env: "example", Service: "backend"})
	if err != nil {
		panic(err)
	}
	if err := run(context.Background(), os.Stdout, ddbmem.New(), c); err != nil {
		panic(err)
	}
	// Output:
	// == table with GSI1, GSI2; cache enabled: false ==
	// ProjectByID(p1): 계약서 분석
	// Projects: [p1 계약서 분석, p2 Invoices]
	// DocumentByID(p1,d2): annex.pdf
	// DocumentsOfProject(p1): [계약서.pdf, annex.pdf]
	// WorkflowByID(d1,w1): COMPLETED
	// WorkflowsOfDocument(d1): [w1]
	// SegmentByIndex(w1,2): page 2
	// SegmentsOfWorkflow(w1) in numeric order: [1, 2, 10]
	// ArtifactByID(a2): totals.csv
	// ArtifactsOfUser(u1), newest first: [tables.json, totals.csv, 요약.md]
	// ArtifactsOfUserProject(u1,p1): [요약.md, tables.json]
	// query_projects read 1: [p1 p2] (loader runs so far: 1)
	// query_projects read 2: [p1 p2] (loader runs so far: 2)
	// after a create through the cached store: [p1 p2 p3] (loader runs so far: 3)
	// cache metrics: hits=0 misses=3 bypassed=3
}
