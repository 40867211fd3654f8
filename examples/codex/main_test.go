package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestRun runs the example against DynamoDB Local and checks that every
// access pattern printed its results.
func TestRun(t *testing.T) { testRun(t, testenv.DynamoDB(t)) }

// TestRunEmbedded runs the example on the embedded engine, as the README's
// main command does with no endpoint configured.
func TestRunEmbedded(t *testing.T) { testRun(t, ddbmem.New()) }

func testRun(t *testing.T, client entity.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, client, testenv.UniqueName("FMWebAppTable-example"), true); err != nil {
		t.Fatal(err, out.String())
	}
	for _, want := range []string{"김대연 (u001)", "회사 소식", "page 2:", "2025년 3월 사업보고서", "Year-end event", "패밀리매니지먼트", "Single-table design in Go", "홍길동", "with 1 posts", "done"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
