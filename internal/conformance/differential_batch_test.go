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

// batchFlaws are what TestDifferentialBatches does to a request's key
// or item.
var batchFlaws = []string{"no sk", "extra attr", "sk type", "pk bool", "empty pk", "empty set", "put and delete", "neither"}

// batchKey returns key k (of the table's four) with flaw applied.
func batchKey(k int, flaw string) I {
	return applyKeyFlaw(I{"pk": S([]string{"a", "b"}[k%2]), "sk": N(fmt.Sprint(1 + k/2))}, flaw)
}

// applyKeyFlaw applies a key flaw of the differential tests (no sk,
// extra attr, sk type, pk bool, empty pk; others change nothing) to a
// copy of key.
func applyKeyFlaw(key I, flaw string) I {
	out := I{}
	for k, v := range key {
		out[k] = v
	}
	switch flaw {
	case "no sk":
		delete(out, "sk")
	case "extra attr":
		out["x"] = S("x")
	case "sk type":
		out["sk"] = S("1")
	case "pk bool":
		out["pk"] = BOOL(true)
	case "empty pk":
		out["pk"] = S("")
	}
	return out
}

// TestDifferentialBatches compares 600 random BatchWriteItem and
// BatchGetItem requests: up to 27 writes or 102 keys over four items,
// some of them twice, a sixth of them flawed (a key missing an
// attribute, with one more or of the wrong type, an empty key value, an
// empty set in an item, a write request with both or neither of Put and
// Delete), now and then a second, missing, table, and for reads a
// projection, AttributesToGet or both. What is compared is the error's
// code and message, or the answer (the items read, sorted, and how many
// requests come back unprocessed) and the table after each.
func TestDifferentialBatches(t *testing.T) {
	targets := diffTargets(t, "N", []I{{"pk": S("a"), "sk": N("1"), "n": N("1")}, {"pk": S("b"), "sk": N("1"), "n": N("2"), "s": S("x")}})
	r := rand.New(rand.NewSource(diffSeed(53)))
	chance := func(p float64) bool { return r.Float64() < p }
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "batch"}
	for range 600 {
		write := chance(0.5)
		n := 1 + r.Intn(4)
		switch {
		case chance(0.08):
			n = 0
		case chance(0.08):
			n = map[bool]int{true: 25 + r.Intn(3), false: 99 + r.Intn(4)}[write]
		}
		type req struct {
			k    int
			flaw string
			del  bool
		}
		var reqs []req
		for range n {
			q := req{k: r.Intn(4), del: chance(0.3)}
			if n > 24 {
				q.k = len(reqs) // many distinct keys, of items that do not exist
			}
			if chance(1.0 / 6) {
				q.flaw = batchFlaws[r.Intn(len(batchFlaws))]
			}
			reqs = append(reqs, q)
		}
		missing := chance(0.1)
		var proj *string
		var attrs []string
		consistent := chance(0.5)
		if !write {
			switch r.Intn(5) {
			case 0:
				proj = aws.String("sk, n")
			case 1:
				attrs = []string{"pk", "s"}
			case 2:
				proj, attrs = aws.String("n"), []string{"n"}
			}
		}
		var desc []string
		for _, q := range reqs {
			desc = append(desc, fmt.Sprintf("%d%s%s", q.k, map[bool]string{true: " del", false: ""}[q.del && write], map[bool]string{true: " " + q.flaw, false: ""}[q.flaw != ""]))
		}
		head := fmt.Sprintf("BatchGetItem proj=%v attrs=%v", proj != nil, attrs)
		if write {
			head = "BatchWriteItem"
		}
		if missing {
			head += " +missing table"
		}
		var got [2]string
		for j, d := range targets {
			if write {
				var wr []types.WriteRequest
				for _, q := range reqs {
					key := batchKey(q.k, q.flaw)
					item := I{"n": N("9")}
					for k, v := range key {
						item[k] = v
					}
					if q.flaw == "empty set" {
						item["e"] = &types.AttributeValueMemberSS{Value: []string{}}
					}
					var w types.WriteRequest
					switch {
					case q.flaw == "neither":
					case q.flaw == "put and delete":
						w = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}, DeleteRequest: &types.DeleteRequest{Key: key}}
					case q.del:
						w = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
					default:
						w = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
					}
					wr = append(wr, w)
				}
				ri := map[string][]types.WriteRequest{d.table: wr}
				if missing {
					ri[d.table+"-missing"] = []types.WriteRequest{{PutRequest: &types.PutRequest{Item: I{"pk": S("a"), "sk": N("1")}}}}
				}
				out, err := d.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: ri})
				if err != nil {
					got[j] = diffErr(err)
				} else {
					got[j] = fmt.Sprintf("ok, %d unprocessed", len(out.UnprocessedItems[d.table]))
				}
			} else {
				keys := []map[string]types.AttributeValue{}
				for _, q := range reqs {
					key := batchKey(q.k, q.flaw)
					if q.flaw == "empty set" {
						key["e"] = &types.AttributeValueMemberSS{Value: []string{}}
					}
					keys = append(keys, key)
				}
				ri := map[string]types.KeysAndAttributes{d.table: {Keys: keys, ProjectionExpression: proj, AttributesToGet: attrs, ConsistentRead: aws.Bool(consistent)}}
				if missing {
					ri[d.table+"-missing"] = types.KeysAndAttributes{Keys: []map[string]types.AttributeValue{{"pk": S("a"), "sk": N("1")}}}
				}
				out, err := d.c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: ri})
				if err != nil {
					got[j] = diffErr(err)
				} else {
					var rows []string
					for _, it := range out.Responses[d.table] {
						rows = append(rows, itemText(it))
					}
					sort.Strings(rows)
					got[j] = fmt.Sprintf("ok, %d unprocessed: %s", len(out.UnprocessedKeys[d.table].Keys), strings.Join(rows, " "))
				}
			}
			got[j] += " => " + d.rows(ctx, t)
		}
		if strings.HasPrefix(got[0], "error ") && strings.HasPrefix(got[1], "error ") {
			// Both fail: only the codes where DynamoDB Local words it its
			// own way.
			// Over the limit DynamoDB reports the constraint of its API
			// model first; DynamoDB Local checks the values first. For a
			// put's key of a type no key has, DynamoDB says "The provided
			// key element does not match the schema" (dynalite's suite
			// records it), DynamoDB Local "Invalid attribute value type".
			_, msg, _ := strings.Cut(strings.Split(got[1], " => ")[0], ": ")
			// An empty list too: DynamoDB reports the constraint ('[]'
			// at 'requestItems.T.member.keys', dynalite's suite records
			// it), DynamoDB Local its own words, after other checks.
			over := write && n > 25 || !write && n > 100 || n == 0
			// DynamoDB Local checks a BatchGetItem's keys in an order of
			// its own (not the list's, nor the same for every list): of
			// two flawed keys, either may be reported.
			flawed := 0
			for _, q := range reqs {
				if q.flaw != "" {
					flawed++
				}
			}
			if localOnlyMessage(msg) || over || write && msg == "Invalid attribute value type" || !write && flawed > 1 {
				for j := range got {
					code, _, _ := strings.Cut(got[j], ":")
					_, table, _ := strings.Cut(got[j], " => ")
					got[j] = code + " => " + table
				}
			}
		}
		if missing && strings.HasPrefix(got[0], "error ") && strings.HasPrefix(got[1], "error ") {
			// With a missing table beside errors of another, which one
			// is reported depends on the order of the tables, which the
			// SDK sends in a random order.
			for j := range got {
				_, table, _ := strings.Cut(got[j], " => ")
				got[j] = "error => " + table
			}
		}
		diffs.compare(head+": "+strings.Join(desc, ", "), got)
	}
	diffs.done("600")
}
