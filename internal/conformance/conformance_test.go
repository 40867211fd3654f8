package conformance

import "testing"

// TestConformance runs every case against DynamoDB Local and the engine.
func TestConformance(t *testing.T) {
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
	} {
		t.Run(g.name, func(t *testing.T) { runCases(t, g.cases) })
	}
}
