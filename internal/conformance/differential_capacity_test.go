package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDifferentialCapacity compares the ConsumedCapacity of 1,500 random
// requests on a table with three global and two local indexes of every
// projection: PutItem, UpdateItem and DeleteItem of items from a few
// bytes to 20 KB (around the 1 KB and 4 KB unit edges) that enter,
// leave, move within and change their projection in each index;
// GetItem, Query and Scan with and without consistency, projection and
// Limit; BatchGetItem, BatchWriteItem and TransactGetItems. What is compared is the
// request's answer (its count) and its capacity, by table and index; the
// item a request writes must be the same on both sides before it.
//
// Where DynamoDB Local departs from what AWS documents, the test leaves
// out only the departing part, and each such place names the source:
//   - Local sizes a local index entry 100 bytes larger (the overhead AWS
//     documents for an index entry's storage, not its writes): a local
//     index may consume up to one more unit per entry written.
//   - Local charges a global index for an item that has the index's key
//     attributes in neither its old nor its new version (case
//     "Capacity/index key split between the old and new item").
//   - Local charges a table read for every item of a local index Query
//     with a projection expression, projected attributes or not (case
//     "Capacity/LSI read of projected attributes").
//   - Local charges nothing for a Query that reads nothing (case
//     "Capacity/empty Query").
//   - Local charges nothing for a key BatchGetItem does not find, where
//     AWS charges a read as for GetItem (dynalite's suite records it).
//   - Local charges two units for a batch's delete of an item that is
//     not there, where DeleteItem charges one (case "Capacity/batch
//     delete of a missing item"): a batch deletes only items that are
//     there.
//   - Local charges an eventually consistent index Scan in whole units
//     (case "Capacity/LSI fetches"): index Scans are left out.
//   - Local's transactional writes follow no one rate (twice the
//     documented one for most, the documented one for a delete of an
//     item that is not there; case "Capacity/transaction index writes"):
//     TransactWriteItems is left out.
//
// Index Queries take no Limit: items that share an index key come in
// DynamoDB's order of their table keys (as dynalite's suite records it),
// not DynamoDB Local's, so a page would end at another item.
func TestDifferentialCapacity(t *testing.T) {
	in := tPKSK()
	in = withGSI(in, "gAll", hs("g", "S"), attr{}, projection(types.ProjectionTypeAll))
	in = withGSI(in, "gKeys", hs("h", "S"), hs("sk", "S"), projection(types.ProjectionTypeKeysOnly))
	in = withGSI(in, "gInc", hs("g", "S"), hs("n", "N"), projection(types.ProjectionTypeInclude, "a", "w"))
	in = withLSI(in, "lInc", hs("l", "S"), projection(types.ProjectionTypeInclude, "a"))
	in = withLSI(in, "lAll", hs("n", "N"), projection(types.ProjectionTypeAll))
	gsiKeys := map[string][]string{"gAll": {"g"}, "gKeys": {"h"}, "gInc": {"g", "n"}}
	targets := diffTargetsOf(t, in, nil)
	r := rand.New(rand.NewSource(diffSeed(61)))
	ctx := context.Background()
	chance := func(p float64) bool { return r.Float64() < p }
	sizes := []int{0, 1, 100, 900, 1000, 1010, 1024, 2000, 3000, 4000, 4050, 4096, 5000, 8000, 8190, 12000, 20000}
	text := func(c byte) types.AttributeValue { return S(strings.Repeat(string(c), sizes[r.Intn(len(sizes))])) }
	randItem := func(key I) I {
		it := I{"pk": key["pk"], "sk": key["sk"]}
		for _, name := range []string{"g", "h", "l", "n", "a", "w", "q"} {
			if !chance(map[string]float64{"g": 0.6, "w": 0.7, "q": 0.3}[name] + 0.5*float64(strings.Count("hlna", name))) {
				continue
			}
			switch name {
			case "g", "l":
				it[name] = S([]string{"x", "y"}[r.Intn(2)])
			case "h":
				it[name] = S("h")
			case "n":
				it[name] = N(fmt.Sprint(r.Intn(3)))
			default:
				it[name] = text(name[0])
			}
		}
		return it
	}
	randKey := func() I { return I{"pk": S([]string{"a", "b"}[r.Intn(2)]), "sk": S(fmt.Sprint(1 + r.Intn(4)))} }
	updates := []string{"SET g = :x", "REMOVE g", "SET a = :big", "SET q = :big", "REMOVE w", "SET h = :x", "SET n = :n", "REMOVE l, n", "SET l = :x, w = :big"}
	const indexes = types.ReturnConsumedCapacityIndexes
	diffs := &diffCount{t: t, what: "capacity of a request"}
	localGlitches := 0
	for range 1500 {
		key := randKey()
		// The item as it stands on both targets, for the index-key split
		// above; the request is sent only where they hold the same.
		var olds [2]I
		for j, d := range targets {
			o, err := d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(d.table), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatalf("%s: GetItem: %v", d.name, err)
			}
			olds[j] = o.Item
		}
		if itemText(olds[0]) != itemText(olds[1]) {
			t.Fatalf("the item %s differs: engine %s, DynamoDB Local %s", itemText(key), itemSizes(olds[0]), itemSizes(olds[1]))
		}
		old := olds[0]
		rcc := []types.ReturnConsumedCapacity{indexes, types.ReturnConsumedCapacityTotal}[r.Intn(2)]
		op := []string{"Put", "Put", "Update", "Delete", "Get", "Query", "Query", "Scan", "BatchGet", "BatchWrite", "TransactGet"}[r.Intn(11)]
		var item I
		if op == "Put" || op == "BatchWrite" {
			item = randItem(key)
		}
		upd := updates[r.Intn(len(updates))]
		upVals := vals{":x": S("x"), ":big": text('b'), ":n": N("1")}
		for k := range upVals {
			if !strings.Contains(upd, k) {
				delete(upVals, k)
			}
		}
		if len(upVals) == 0 {
			upVals = nil
		}
		ix := []string{"", "", "gAll", "gKeys", "gInc", "lInc", "lAll"}[r.Intn(7)]
		consistent := chance(0.5) && !strings.HasPrefix(ix, "g")
		var proj *string
		if chance(0.4) {
			proj = aws.String([]string{"pk, sk", "a", "w", "q, g", "pk"}[r.Intn(5)])
		}
		var limit *int32
		if chance(0.5) && ix == "" {
			limit = aws.Int32(int32(1 + r.Intn(5)))
		}
		batchKeys := []I{randKey(), randKey(), randKey()}
		if batchKeys[1]["pk"] == batchKeys[0]["pk"] && batchKeys[1]["sk"] == batchKeys[0]["sk"] {
			batchKeys = batchKeys[:1]
		}
		// BatchWrite deletes the item of batchKeys[0] when it is there and
		// is not the put's: DynamoDB Local charges two units for a batch's
		// delete of an item that is not there, where AWS charges what
		// DeleteItem does, one (case "Capacity/batch delete of a missing
		// item").
		var delOld I
		if op == "BatchWrite" && itemText(batchKeys[0]) != itemText(key) {
			if o, err := targets[0].c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(targets[0].table), Key: batchKeys[0], ConsistentRead: aws.Bool(true)}); err == nil {
				delOld = o.Item
			}
		}
		var desc string
		var got [2]capAnswer
		for j, d := range targets {
			tbl := aws.String(d.table)
			a := &got[j]
			var err error
			switch op {
			case "Put":
				desc = fmt.Sprintf("Put %s %s (before: %s)", rcc, itemSizes(item), itemSizes(old))
				var out *dynamodb.PutItemOutput
				if out, err = d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item, ReturnConsumedCapacity: indexes}); err == nil {
					a.write(out.ConsumedCapacity, gsiKeys, old, item)
				}
			case "Update":
				desc = fmt.Sprintf("Update %q of %s", upd, itemSizes(old))
				var out *dynamodb.UpdateItemOutput
				if out, err = d.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String(upd),
					ExpressionAttributeValues: upVals, ReturnConsumedCapacity: indexes, ReturnValues: types.ReturnValueAllNew}); err == nil {
					a.write(out.ConsumedCapacity, gsiKeys, old, out.Attributes)
				}
			case "Delete":
				desc = fmt.Sprintf("Delete of %s", itemSizes(old))
				var out *dynamodb.DeleteItemOutput
				if out, err = d.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: key, ReturnConsumedCapacity: indexes}); err == nil {
					a.write(out.ConsumedCapacity, gsiKeys, old, nil)
				}
			case "Get":
				desc = fmt.Sprintf("Get %s consistent=%v projection=%q of %s", rcc, consistent, aws.ToString(proj), itemSizes(old))
				var out *dynamodb.GetItemOutput
				if out, err = d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key, ConsistentRead: aws.Bool(consistent),
					ProjectionExpression: proj, ReturnConsumedCapacity: rcc}); err == nil {
					a.answer, a.capacity = fmt.Sprint(len(out.Item), " attributes"), capJSON(out.ConsumedCapacity)
				}
			case "Query":
				desc = fmt.Sprintf("Query %s index=%q consistent=%v projection=%q limit=%d", rcc, ix, consistent, aws.ToString(proj), aws.ToInt32(limit))
				q := &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: vals{":p": key["pk"]},
					ConsistentRead: aws.Bool(consistent), ProjectionExpression: proj, Limit: limit, ReturnConsumedCapacity: rcc}
				switch ix {
				case "gAll", "gInc":
					q.KeyConditionExpression, q.ExpressionAttributeValues = aws.String("g = :p"), vals{":p": S("x")}
				case "gKeys":
					q.KeyConditionExpression, q.ExpressionAttributeValues = aws.String("h = :p"), vals{":p": S("h")}
				}
				if ix != "" {
					q.IndexName = aws.String(ix)
				}
				var out *dynamodb.QueryOutput
				if out, err = d.c.Query(ctx, q); err == nil {
					a.answer = fmt.Sprint(out.Count, " of ", out.ScannedCount)
					c := out.ConsumedCapacity
					switch {
					case out.ScannedCount == 0:
						c = nil // Local's empty Query
					case strings.HasPrefix(ix, "l") && proj != nil:
						c.CapacityUnits, c.Table = nil, nil // Local's fetch of projected attributes
					}
					a.capacity = capJSON(c)
				}
			case "Scan":
				desc = fmt.Sprintf("Scan %s consistent=%v projection=%q limit=%d", rcc, consistent, aws.ToString(proj), aws.ToInt32(limit))
				var out *dynamodb.ScanOutput
				if out, err = d.c.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, ConsistentRead: aws.Bool(consistent), ProjectionExpression: proj,
					Limit: limit, ReturnConsumedCapacity: rcc}); err == nil {
					a.answer, a.capacity = fmt.Sprint(out.Count, " of ", out.ScannedCount), capJSON(out.ConsumedCapacity)
				}
			case "TransactGet":
				desc = fmt.Sprintf("TransactGet %s projection=%q of %d keys", rcc, aws.ToString(proj), len(batchKeys))
				var gets []types.TransactGetItem
				for _, k := range batchKeys {
					gets = append(gets, types.TransactGetItem{Get: &types.Get{TableName: tbl, Key: k, ProjectionExpression: proj}})
				}
				var out *dynamodb.TransactGetItemsOutput
				if out, err = d.c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets, ReturnConsumedCapacity: rcc}); err == nil {
					found := 0
					for _, resp := range out.Responses {
						if resp.Item != nil {
							found++
						}
					}
					// Local leaves ReadCapacityUnits out of the table's part
					// (it keeps WriteCapacityUnits in a transactional
					// write's); the engine reports both parts alike.
					for k := range out.ConsumedCapacity {
						if c := &out.ConsumedCapacity[k]; c.Table != nil {
							c.Table = &types.Capacity{CapacityUnits: c.Table.CapacityUnits}
						}
					}
					a.answer, a.capacity = fmt.Sprint(found, " found"), capJSON(out.ConsumedCapacity)
				}
			case "BatchGet":
				desc = fmt.Sprintf("BatchGet %s consistent=%v projection=%q of %d keys", rcc, consistent, aws.ToString(proj), len(batchKeys))
				var out *dynamodb.BatchGetItemOutput
				if out, err = d.c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: rcc, RequestItems: map[string]types.KeysAndAttributes{
					d.table: {Keys: batchKeys, ConsistentRead: aws.Bool(consistent), ProjectionExpression: proj}}}); err == nil {
					found := len(out.Responses[d.table])
					a.answer = fmt.Sprint(found, " found")
					if found == len(batchKeys) { // Local charges nothing for a key not found
						a.capacity = capJSON(out.ConsumedCapacity)
					}
				}
			case "BatchWrite":
				// A put and, when its item is there, a delete of another.
				desc = fmt.Sprintf("BatchWrite put %s (before: %s), delete %s", itemSizes(item), itemSizes(old), itemSizes(delOld))
				reqs := []types.WriteRequest{{PutRequest: &types.PutRequest{Item: item}}}
				if delOld != nil {
					reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: batchKeys[0]}})
				}
				var out *dynamodb.BatchWriteItemOutput
				if out, err = d.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: indexes,
					RequestItems: map[string][]types.WriteRequest{d.table: reqs}}); err == nil && len(out.ConsumedCapacity) == 1 {
					a.write(&out.ConsumedCapacity[0], gsiKeys, old, item)
					a.entries += float64(len(reqs) - 1) // the delete's entry
				} else if err == nil {
					a.answer = fmt.Sprint(len(out.ConsumedCapacity), " capacities")
				}
			}
			if err != nil {
				a.answer = diffErr(err)
			}
		}
		got[0].lsiLeeway(&got[1])
		// DynamoDB Local now and then charges an UpdateItem as if the item
		// had not been there: the new item's units on the table and none
		// on the indexes, where the same update run again is charged as
		// documented (seen about once in 20,000 updates, more often on a
		// loaded machine). Such an answer is logged and left out, at
		// most three times a run: an engine that charged updates wrongly
		// would differ far more often. The item after it is still
		// compared, on the next round.
		if op == "Update" && got[1].noIndex && got[0].String() != got[1].String() && localGlitches < 3 {
			localGlitches++
			t.Logf("DynamoDB Local charged %s as a new item: %s (engine: %s)", desc, got[1], got[0])
			continue
		}
		diffs.compare(desc, [2]string{got[0].String(), got[1].String()})
	}
	diffs.done("1500")
}

// capAnswer is what TestDifferentialCapacity compares of one answer.
type capAnswer struct {
	answer   string
	capacity string
	// lsi is a write's units on each local index, compared with
	// DynamoDB Local's 100 bytes of leeway per entry (lsiLeeway) on each
	// of the entries the request can write.
	lsi     map[string]float64
	entries float64
	// noIndex is set for a write whose capacity has no index part.
	noIndex bool
}

func (a capAnswer) String() string {
	return fmt.Sprintf("%s %s lsi=%v", a.answer, a.capacity, a.lsi)
}

// write records the capacity c of a write that replaced old by nw (nil
// for none; a batch's other writes may add to c): the table's and every
// global index's part, and each local index's apart. A global index that
// neither version is in is left out: DynamoDB Local charges it when one
// version has its hash key and the other its sort key (its split-key
// charge), and in a batch that charge cannot be told apart from the
// other writes'.
func (a *capAnswer) write(c *types.ConsumedCapacity, gsiKeys map[string][]string, old, nw I) {
	if c == nil {
		a.capacity = "no capacity"
		return
	}
	has := func(it I, keys []string) bool {
		for _, k := range keys {
			if _, ok := it[k]; !ok {
				return false
			}
		}
		return it != nil
	}
	cc := *c
	cc.CapacityUnits, cc.LocalSecondaryIndexes = nil, nil
	gsi := map[string]types.Capacity{}
	for n, u := range c.GlobalSecondaryIndexes {
		if has(old, gsiKeys[n]) || has(nw, gsiKeys[n]) {
			gsi[n] = u
		}
	}
	cc.GlobalSecondaryIndexes = gsi
	a.capacity = capJSON(&cc)
	a.noIndex = len(c.GlobalSecondaryIndexes) == 0 && len(c.LocalSecondaryIndexes) == 0
	a.lsi, a.entries = map[string]float64{}, 2 // an old entry and a new one
	for n, u := range c.LocalSecondaryIndexes {
		a.lsi[n] = aws.ToFloat64(u.CapacityUnits)
	}
}

// lsiLeeway sets DynamoDB Local's local index units (l) to the engine's
// (a) where Local's exceed them by no more than the entries the request
// can write could take with 100 more bytes each.
func (a *capAnswer) lsiLeeway(l *capAnswer) {
	for n, u := range a.lsi {
		if v, ok := l.lsi[n]; ok && v >= u && v <= u+a.entries {
			l.lsi[n] = u
		}
	}
}

// capJSON renders a ConsumedCapacity (or a list of them) without the
// table's name, which differs between the targets, and with members in
// a fixed order.
func capJSON(c any) string {
	switch v := c.(type) {
	case *types.ConsumedCapacity:
		if v == nil {
			return "-"
		}
		cc := *v
		cc.TableName = nil
		c = cc
	case []types.ConsumedCapacity:
		list := make([]types.ConsumedCapacity, len(v))
		for i, x := range v {
			list[i] = x
			list[i].TableName = nil
		}
		c = list
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// itemSizes renders an item by its attributes' names and the lengths of
// its strings, short enough to read where items run to 20 KB.
func itemSizes(it I) string {
	if it == nil {
		return "no item"
	}
	var parts []string
	for k, v := range it {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			parts = append(parts, fmt.Sprintf("%s:%d", k, len(v.Value)))
		default:
			parts = append(parts, k)
		}
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, " ") + "}"
}
