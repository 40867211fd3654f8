package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// scanItems returns n items over several partitions.
func scanItems(n int) []I {
	var out []I
	for i := 0; i < n; i++ {
		out = append(out, I{"pk": S(fmt.Sprintf("p%d", i%7)), "sk": S(fmt.Sprintf("%03d", i)), "n": N(fmt.Sprint(i)),
			"tag": SS(fmt.Sprintf("t%d", i%3))})
	}
	return out
}

func sIn(mod func(*dynamodb.ScanInput)) *dynamodb.ScanInput {
	s := scan()
	mod(s)
	return s
}

var scanCases = []tc{
	{
		name:   "Scan/all",
		tables: tables(tPKSK()),
		items:  scanItems(20),
		steps:  []step{do(scan())},
	},
	{
		name:   "Scan/empty table",
		tables: tables(tPKSK()),
		steps:  []step{do(scan())},
	},
	{
		name:   "Scan/filter",
		tables: tables(tPKSK()),
		items:  scanItems(20),
		steps: []step{
			do(sIn(func(s *dynamodb.ScanInput) {
				s.FilterExpression = str("n >= :a AND contains(tag, :t) OR pk = :p")
				s.ExpressionAttributeValues = vals{":a": N("10"), ":t": S("t1"), ":p": S("p0")}
			})),
		},
	},
	{
		name:   "Scan/projection",
		tables: tables(tPKSK()),
		items:  scanItems(10),
		steps: []step{
			do(sIn(func(s *dynamodb.ScanInput) { s.ProjectionExpression = str("n, tag") })),
		},
	},
	{
		name:   "Scan/Select COUNT",
		tables: tables(tPKSK()),
		items:  scanItems(15),
		steps: []step{
			do(sIn(func(s *dynamodb.ScanInput) { s.Select = types.SelectCount })),
			do(sIn(func(s *dynamodb.ScanInput) {
				s.Select = types.SelectCount
				s.FilterExpression = str("n < :a")
				s.ExpressionAttributeValues = vals{":a": N("4")}
			})),
		},
	},
	{
		name:   "Scan/Limit pages",
		tables: tables(tPKSK()),
		items:  scanItems(20),
		steps: []step{
			scanAll(sIn(func(s *dynamodb.ScanInput) { s.Limit = aws.Int32(6) })),
			scanAll(sIn(func(s *dynamodb.ScanInput) { s.Limit = aws.Int32(20) })),
			scanAll(sIn(func(s *dynamodb.ScanInput) {
				s.Limit = aws.Int32(6)
				s.FilterExpression = str("n < :a")
				s.ExpressionAttributeValues = vals{":a": N("4")}
			})),
		},
	},
	{
		name:   "Scan/segments",
		tables: tables(tPKSK()),
		items:  scanItems(30),
		steps: []step{
			scanAll(sIn(func(s *dynamodb.ScanInput) { s.TotalSegments = aws.Int32(1) })),
			scanAll(sIn(func(s *dynamodb.ScanInput) { s.TotalSegments = aws.Int32(3); s.Limit = aws.Int32(7) })),
			scanAll(sIn(func(s *dynamodb.ScanInput) { s.TotalSegments = aws.Int32(5) })),
		},
	},
	{
		name:   "Scan/Segment without TotalSegments",
		tables: tables(tPKSK()),
		steps:  []step{fail(eValid, sIn(func(s *dynamodb.ScanInput) { s.Segment = aws.Int32(0) }))},
	},
	{
		name:   "Scan/Segment not below TotalSegments",
		tables: tables(tPKSK()),
		steps: []step{fail(eValid, sIn(func(s *dynamodb.ScanInput) {
			s.Segment = aws.Int32(2)
			s.TotalSegments = aws.Int32(2)
		}))},
	},
	{
		name:   "Scan/TotalSegments zero",
		tables: tables(tPKSK()),
		steps: []step{fail(eValid, sIn(func(s *dynamodb.ScanInput) {
			s.Segment = aws.Int32(0)
			s.TotalSegments = aws.Int32(0)
		}))},
	},
	{
		name:   "Scan/1 MB pages",
		tables: tables(tPKSK()),
		items:  bigItems(23, 100*1000),
		steps:  []step{scanAll(scan())},
	},
	{
		name:   "Scan/ExclusiveStartKey of wrong shape",
		tables: tables(tPKSK()),
		items:  scanItems(3),
		steps:  []step{fail(eValid, sIn(func(s *dynamodb.ScanInput) { s.ExclusiveStartKey = pk("p0") }))},
	},
	{
		name:   "Scan/unused value placeholder",
		tables: tables(tPKSK()),
		steps: []step{failMsg(eValid, sIn(func(s *dynamodb.ScanInput) {
			s.FilterExpression = str("n = :a")
			s.ExpressionAttributeValues = vals{":a": N("1"), ":b": N("2")}
		}))},
	},
	{
		name:   "Scan/filter syntax error",
		tables: tables(tPKSK()),
		steps: []step{fail(eValid, sIn(func(s *dynamodb.ScanInput) {
			s.FilterExpression = str("n = = :a")
			s.ExpressionAttributeValues = vals{":a": N("1")}
		}))},
	},
	{
		name:  "Scan/missing table",
		steps: []step{fail(eNotFound, scan())},
	},
}

func init() {
	scanCases = group(scanCases, "Scan/invalid requests",
		"Scan/empty table", "Scan/Segment without TotalSegments", "Scan/Segment not below TotalSegments",
		"Scan/TotalSegments zero", "Scan/unused value placeholder", "Scan/filter syntax error")
}
