package conformance

import (
	"os"
	"sync"
	"testing"
)

// TestConformance runs every case against DynamoDB Local and the engine.
func TestConformance(t *testing.T) {
	var wg sync.WaitGroup
	for _, g := range []struct {
		name  string
		cases []tc
	}{
		{"table", tableCases},
		{"items", itemCases},
		{"conditions", condCases},
		{"updates", updateCases},
		{"query", queryCases},
		{"scan", scanCases},
		{"index", indexCases},
		{"batch", batchCases},
		{"transactions", txnCases},
		{"legacy", legacyCases},
		{"ttl", ttlCases},
		{"partiql", partiqlCases},
		{"fidelity", fidelityCases},
		{"edges", edgeCases},
	} {
		cases := make([]tc, len(g.cases))
		copy(cases, g.cases)
		for i := range cases {
			if m, ok := engineBugs[g.name+"/"+cases[i].name]; ok && cases[i].engineBug == "" {
				cases[i].engineBug = m
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(g.name, func(t *testing.T) { runCases(t, cases) })
		}()
	}
	wg.Wait()
	if os.Getenv("CONFORMANCE_LOG") != "" {
		t.Logf("DynamoDB Local time per operation:\n%s", opTimes)
	}
}
