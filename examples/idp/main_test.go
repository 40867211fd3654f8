package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

func runExample(t *testing.T, client entity.Client, c *cache.Cache) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, client, c); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	return out.String()
}

func TestExampleOnEngineWithoutCache(t *testing.T) {
	c, err := cache.New(cache.Options{AppID: "idp", Env: "test", Service: "example"})
	if err != nil {
		t.Fatal(err)
	}
	out := runExample(t, ddbmem.New(), c)
	for _, want := range []string{
		"SegmentsOfWorkflow(w1) in numeric order: [1, 2, 10]",
		"ArtifactsOfUser(u1), newest first: [tables.json, totals.csv, 요약.md]",
		"query_projects read 2: [p1 p2] (loader runs so far: 2)", // bypassed: loader every time
		"after a create through the cached store: [p1 p2 p3]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestExampleOnDynamoDBLocalWithValkey(t *testing.T) {
	c, err := cache.New(cache.Options{AppID: "idp", Env: "test", Service: testenv.UniqueName("example"),
		Addresses: []string{testenv.ValkeyAddr(t)}, DisableTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := runExample(t, testenv.DynamoDB(t), c)
	for _, want := range []string{
		"SegmentsOfWorkflow(w1) in numeric order: [1, 2, 10]",
		"query_projects read 2: [p1 p2] (loader runs so far: 1)", // served from Valkey
		"after a create through the cached store: [p1 p2 p3] (loader runs so far: 2)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
