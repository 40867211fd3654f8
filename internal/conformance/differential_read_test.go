package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDifferentialReadParameters compares 800 random Query and Scan
// requests whose parameters combine in every way, valid or not: Select
// with and without a projection or AttributesToGet, an index (global,
// local, or none that exists) with ConsistentRead, Segment and
// TotalSegments, Limit, start keys of every shape (the table's, an
// index's, an attribute missing or added, of the wrong type), a filter,
// the order. A table with a KEYS_ONLY global index and an ALL local one
// holds eight items. What is compared is every page (items in order for
// a Query, as a set for a Scan, with Count and ScannedCount) or the
// error's code and message (only the code where DynamoDB Local words it
// its own way, localOnlyMessages).
func TestDifferentialReadParameters(t *testing.T) {
	ctx := context.Background()
	in := &dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("sk"), AttributeType: "N"},
			{AttributeName: aws.String("g"), AttributeType: "S"}, {AttributeName: aws.String("l"), AttributeType: "N"}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}
	var items []I
	for i := range 8 {
		it := I{"pk": S([]string{"a", "b"}[i%2]), "sk": N(fmt.Sprint(i)), "n": N(fmt.Sprint(i % 3)), "s": S(fmt.Sprint("v", i))}
		if i%3 != 0 {
			it["g"] = S([]string{"g1", "g2"}[i%2])
		}
		if i%4 != 1 {
			it["l"] = N(fmt.Sprint(10 - i))
		}
		items = append(items, it)
	}
	targets := diffTargetsOf(t, in, items)
	r := rand.New(rand.NewSource(diffSeed(47)))
	chance := func(p float64) bool { return r.Float64() < p }
	pick := func(n int) int { return r.Intn(n) }
	startKeys := []I{
		{"pk": S("a"), "sk": N("2")}, {"pk": S("b"), "sk": N("3")}, {"pk": S("a")}, {"pk": S("a"), "sk": S("2")},
		{"pk": S("a"), "sk": N("2"), "x": S("1")}, {"pk": S("a"), "sk": N("2"), "g": S("g1")}, {"pk": S("b"), "sk": N("1"), "g": S("g2")},
		{"pk": S("a"), "sk": N("4"), "l": N("6")}, {"pk": S("a"), "l": N("6")}, {"g": S("g1")}, {"pk": S("z"), "sk": N("9")},
	}
	diffs := &diffCount{t: t, what: "read"}
	for range 800 {
		query := chance(0.5)
		var desc []string
		var index *string
		switch k := pick(10); {
		case k < 3:
			index = aws.String("byG")
		case k < 6:
			index = aws.String("byL")
		case k < 7:
			index = aws.String("nope")
		}
		if index != nil {
			desc = append(desc, "index "+*index)
		}
		vals := vals{}
		var keyCond, filter, proj *string
		var attrs []string
		var sel types.Select
		if query {
			switch {
			case index != nil && *index == "byG":
				keyCond, vals[":h"] = aws.String("g = :h"), S([]string{"g1", "g2"}[pick(2)])
			case index != nil && *index == "byL" && chance(0.6):
				keyCond, vals[":h"], vals[":r"] = aws.String("pk = :h AND l > :r"), S("a"), N(fmt.Sprint(pick(8)))
			default:
				keyCond, vals[":h"] = aws.String("pk = :h"), S([]string{"a", "b"}[pick(2)])
				if chance(0.4) {
					keyCond, vals[":r"] = aws.String("pk = :h AND sk >= :r"), N(fmt.Sprint(pick(8)))
				}
			}
			desc = append(desc, "Query "+*keyCond)
		} else {
			desc = append(desc, "Scan")
		}
		if chance(0.3) && aws.ToString(index) != "byG" {
			// (Not on the KEYS_ONLY index: DynamoDB Local filters a GSI
			// Scan on the table's item, the case "GSI filter on an
			// unprojected attribute".)
			filter, vals[":f"] = aws.String("n <> :f"), N(fmt.Sprint(pick(3)))
			desc = append(desc, "filter")
		}
		if chance(0.4) {
			sel = []types.Select{types.SelectAllAttributes, types.SelectAllProjectedAttributes, types.SelectSpecificAttributes, types.SelectCount}[pick(4)]
			desc = append(desc, "Select "+string(sel))
		}
		switch pick(6) {
		case 0:
			proj = aws.String([]string{"n", "pk, g", "s, l"}[pick(3)])
			desc = append(desc, "projection "+*proj)
		case 1:
			if keyCond == nil && filter == nil {
				attrs = [][]string{{"n"}, {"pk", "g"}}[pick(2)]
				desc = append(desc, fmt.Sprint("AttributesToGet ", attrs))
			}
		}
		var consistent *bool
		if chance(0.3) {
			consistent = aws.Bool(chance(0.5))
			desc = append(desc, fmt.Sprint("ConsistentRead ", *consistent))
		}
		var segment, total *int32
		if !query && chance(0.3) {
			switch pick(5) {
			case 0:
				segment = aws.Int32(int32(pick(3)))
			case 1:
				total = aws.Int32(int32(1 + pick(3)))
			default:
				total = aws.Int32(int32(1 + pick(3)))
				segment = aws.Int32(int32(pick(3)))
			}
			desc = append(desc, fmt.Sprintf("Segment %v of %v", aws.ToInt32(segment), aws.ToInt32(total)))
		}
		var limit *int32
		if chance(0.4) {
			// Limit 0 breaks a constraint of the API model, which
			// DynamoDB checks first (the engine too); DynamoDB Local
			// looks for the index first.
			limit = aws.Int32(int32(1 + pick(3)))
			if chance(0.1) && aws.ToString(index) != "nope" {
				limit = aws.Int32(0)
			}
			desc = append(desc, fmt.Sprint("Limit ", *limit))
		}
		var start I
		// (Not with segments: which segment a key lies in is the
		// implementation's hash; TestScanHashSegments in ddbmem pins
		// DynamoDB's.)
		if chance(0.25) && segment == nil && total == nil {
			start = startKeys[pick(len(startKeys))]
			desc = append(desc, "start "+itemText(start))
		}
		backward := query && chance(0.4)
		var got [2]string
		for j, d := range targets {
			var pages strings.Builder
			esk := start
			for range 20 {
				var out readPage
				var err error
				if query {
					q := &dynamodb.QueryInput{TableName: aws.String(d.table), IndexName: index, KeyConditionExpression: keyCond, FilterExpression: filter,
						ProjectionExpression: proj, Select: sel, ConsistentRead: consistent, Limit: limit, ExclusiveStartKey: esk,
						ExpressionAttributeValues: usedValues(strings.Join([]string{aws.ToString(keyCond), aws.ToString(filter)}, " "), vals)}
					if backward {
						q.ScanIndexForward = aws.Bool(false)
					}
					var o *dynamodb.QueryOutput
					if o, err = d.c.Query(ctx, q); err == nil {
						out = readPage{o.Items, o.Count, o.ScannedCount, o.LastEvaluatedKey}
					}
				} else {
					s := &dynamodb.ScanInput{TableName: aws.String(d.table), IndexName: index, FilterExpression: filter, ProjectionExpression: proj,
						AttributesToGet: attrs, Select: sel, ConsistentRead: consistent, Segment: segment, TotalSegments: total, Limit: limit,
						ExclusiveStartKey: esk, ExpressionAttributeValues: usedValues(aws.ToString(filter), vals)}
					var o *dynamodb.ScanOutput
					if o, err = d.c.Scan(ctx, s); err == nil {
						out = readPage{o.Items, o.Count, o.ScannedCount, o.LastEvaluatedKey}
					}
				}
				if err != nil {
					pages.WriteString(diffErr(err))
					break
				}
				var rows []string
				for _, it := range out.items {
					rows = append(rows, itemText(it))
				}
				if !query {
					// A Scan's order is the implementation's.
					sort.Strings(rows)
				}
				fmt.Fprintf(&pages, "%d/%d %s|", out.count, out.scanned, strings.Join(rows, " "))
				if out.last == nil {
					break
				}
				esk = out.last
			}
			got[j] = pages.String()
		}
		// Where a Scan starts matters only to the implementation's order
		// (a start key, a segment): whether it fails, and how.
		orderOnly := !query && (start != nil || segment != nil || total != nil)
		// A Query's start key in another partition: DynamoDB says it
		// is outside the query's boundaries, DynamoDB Local that it
		// does not match the range key predicate (localStartKeyText),
		// and checks it before Select.
		otherPartition := query && start != nil && (start["pk"] == nil || valueText(start["pk"]) != valueText(vals[":h"])) &&
			(start["g"] == nil || valueText(start["g"]) != valueText(vals[":h"]))
		if orderOnly {
			for j := range got {
				if !strings.HasPrefix(got[j], "error ") {
					got[j] = "ok"
				}
			}
		}
		if strings.HasPrefix(got[0], "error ") && strings.HasPrefix(got[1], "error ") {
			// Both fail: where DynamoDB Local words it its own way, only
			// the codes.
			if _, msg, _ := strings.Cut(got[1], ": "); localOnlyMessage(msg) || orderOnly || otherPartition {
				for j := range got {
					got[j], _, _ = strings.Cut(got[j], ":")
				}
			}
		}
		if !query && strings.Contains(got[0], "|") {
			// A Scan's pages split where the implementation's order puts
			// them: compare them joined.
			for j := range got {
				got[j] = joinScanPages(got[j])
			}
		}
		diffs.compare(strings.Join(desc, "; "), got)
	}
	diffs.done("800")
}

type readPage struct {
	items          []I
	count, scanned int32
	last           I
}

// joinScanPages is pages rendered by TestDifferentialReadParameters as
// one: the counts added, the items sorted.
func joinScanPages(s string) string {
	var count, scanned int
	var rows []string
	for _, p := range strings.Split(strings.TrimSuffix(s, "|"), "|") {
		var c, sc int
		head, rest, _ := strings.Cut(p, " ")
		fmt.Sscanf(head, "%d/%d", &c, &sc)
		count += c
		scanned += sc
		if rest != "" {
			rows = append(rows, strings.Fields(rest)...)
		}
	}
	sort.Strings(rows)
	return fmt.Sprintf("%d/%d %s", count, scanned, strings.Join(rows, " "))
}
