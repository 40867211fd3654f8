package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func putReq(it I) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func delReq(k I) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
}

func bw(reqs map[string][]types.WriteRequest) *dynamodb.BatchWriteItemInput {
	return &dynamodb.BatchWriteItemInput{RequestItems: reqs}
}

func bg(reqs map[string]types.KeysAndAttributes) *dynamodb.BatchGetItemInput {
	return &dynamodb.BatchGetItemInput{RequestItems: reqs}
}

func keys(ks ...I) types.KeysAndAttributes { return types.KeysAndAttributes{Keys: ks} }

func nPuts(n int) []types.WriteRequest {
	var out []types.WriteRequest
	for i := 0; i < n; i++ {
		out = append(out, putReq(I{"pk": S(fmt.Sprintf("k%03d", i)), "v": N(fmt.Sprint(i))}))
	}
	return out
}

func nKeys(n int) []I {
	var out []I
	for i := 0; i < n; i++ {
		out = append(out, pk(fmt.Sprintf("k%03d", i)))
	}
	return out
}

var batchCases = []tc{
	// Every request's values (and a write's kind) are checked before any
	// key against its table; a BatchGetItem's duplicate keys before the
	// keys' schema, as DynamoDB checks them (dynalite's suite records the
	// order; TestDifferentialBatches found the engine checking request by
	// request).
	{
		name:   "Batch/which error first",
		tables: tables(tPKSK()),
		items:  []I{pks("a", "1")},
		steps: []step{
			failMsg(eValid, bw(map[string][]types.WriteRequest{"T": {delReq(pk("a")), putReq(I{"pk": S("b"), "sk": S("1"), "e": &types.AttributeValueMemberSS{Value: []string{}}})}})),
			failMsg(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(I{"pk": S("b")}), {}}})),
			failMsg(eValid, bw(map[string][]types.WriteRequest{"T": {delReq(I{"pk": S("a"), "sk": N("1")}), delReq(I{"pk": S("a"), "sk": S("1"), "n": &types.AttributeValueMemberNS{Value: []string{"1", "1"}}})}})),
			failMsg(eValid, bg(map[string]types.KeysAndAttributes{"T": {Keys: []map[string]types.AttributeValue{pk("a"), pks("b", "1"), {"pk": S("c"), "sk": &types.AttributeValueMemberSS{Value: []string{}}}}}})),
			failMsg(eValid, bg(map[string]types.KeysAndAttributes{"T": {Keys: []map[string]types.AttributeValue{pks("a", "2"), pk("b"), pks("a", "2")}}})),
		},
	},
	{
		name:   "BatchWriteItem/puts and deletes",
		tables: tables(tPK()),
		items:  []I{pk("old1"), pk("old2")},
		steps: []step{
			do(bw(map[string][]types.WriteRequest{"T": {
				putReq(I{"pk": S("a"), "v": N("1")}), putReq(I{"pk": S("old1"), "v": N("2")}), delReq(pk("old2")), delReq(pk("never")),
			}})),
		},
	},
	{
		name:   "BatchWriteItem/25 items",
		tables: tables(tPK()),
		steps:  []step{do(bw(map[string][]types.WriteRequest{"T": nPuts(25)}))},
	},
	{
		name:   "BatchWriteItem/26 items",
		tables: tables(tPK()),
		// Over the limit in one table, DynamoDB lists the constraint
		// (dynalite's suite records it); DynamoDB Local says "Too many
		// items requested for the BatchWriteItem call", which DynamoDB
		// says for the batch as a whole (the next case).
		// (The text names the table, which the harness renames: ddbmem's
		// TestBatch checks it.)
		steps: []step{docStep(fail(eValid, bw(map[string][]types.WriteRequest{"T": nPuts(26)})), localBatchLimit, "")},
	},
	{
		name:   "BatchWriteItem/two tables",
		tables: tables(tPK(), table("T2", hs("id", "N"), attr{})),
		steps: []step{do(bw(map[string][]types.WriteRequest{
			"T":  {putReq(pk("a"))},
			"T2": {putReq(I{"id": N("1"), "x": S("y")}), putReq(I{"id": N("2")})},
		}))},
	},
	{
		name:   "BatchWriteItem/26 items over two tables",
		tables: tables(tPK(), table("T2", hs("id", "N"), attr{})),
		steps: []step{fail(eValid, bw(map[string][]types.WriteRequest{
			"T":  nPuts(20),
			"T2": {putReq(I{"id": N("1")}), putReq(I{"id": N("2")}), putReq(I{"id": N("3")}), putReq(I{"id": N("4")}), putReq(I{"id": N("5")}), putReq(I{"id": N("6")})},
		}))},
	},
	{
		name:   "BatchWriteItem/duplicate put keys",
		tables: tables(tPK()),
		steps: []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {
			putReq(I{"pk": S("a"), "v": N("1")}), putReq(I{"pk": S("a"), "v": N("2")}),
		}}))},
	},
	{
		name:   "BatchWriteItem/put and delete of one key",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(pk("a")), delReq(pk("a"))}}))},
	},
	{
		name:   "BatchWriteItem/duplicate number keys after canonicalization",
		tables: tables(table("T", hs("id", "N"), attr{})),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(I{"id": N("1")}), putReq(I{"id": N("1.0")})}}))},
	},
	{
		name:   "BatchWriteItem/empty request",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{}))},
	},
	{
		name:   "BatchWriteItem/empty list for a table",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {}}))},
	},
	{
		name:   "BatchWriteItem/missing table",
		tables: tables(tPK()),
		steps:  []step{fail(eNotFound, bw(map[string][]types.WriteRequest{"T": {putReq(pk("a"))}, "Missing": {putReq(pk("a"))}}))},
	},
	{
		name:   "BatchWriteItem/invalid item writes nothing",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(pk("a")), putReq(pk(""))}}))},
	},
	{
		name:   "BatchWriteItem/wrong key type",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(pk("a")), delReq(I{"pk": N("1")})}}))},
	},
	{
		name:   "BatchWriteItem/item over 400 KB",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(I{"pk": S("a"), "d": S(bigString(409597))})}}))},
	},
	{
		name:   "BatchWriteItem/empty set",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bw(map[string][]types.WriteRequest{"T": {putReq(I{"pk": S("a"), "s": SS()})}}))},
	},
	{
		name:   "BatchGetItem/existing and missing keys",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "v": N("1")}, {"pk": S("b"), "v": N("2")}, {"pk": S("c")}},
		steps:  []step{do(bg(map[string]types.KeysAndAttributes{"T": keys(pk("a"), pk("c"), pk("zz"))}))},
	},
	{
		name:   "BatchGetItem/100 keys",
		tables: tables(tPK()),
		steps: []step{
			do(bw(map[string][]types.WriteRequest{"T": nPuts(25)})),
			do(bg(map[string]types.KeysAndAttributes{"T": keys(nKeys(100)...)})),
		},
	},
	{
		name:   "BatchGetItem/101 keys",
		tables: tables(tPK()),
		// The same for BatchGetItem: DynamoDB lists the 101 keys.
		steps: []step{docStep(fail(eValid, bg(map[string]types.KeysAndAttributes{"T": keys(nKeys(101)...)})), localBatchLimit, "")},
	},
	{
		name:   "BatchGetItem/101 keys over two tables",
		tables: tables(tPK(), table("T2", hs("pk", "S"), attr{})),
		steps: []step{fail(eValid, bg(map[string]types.KeysAndAttributes{
			"T": keys(nKeys(60)...), "T2": keys(nKeys(41)...),
		}))},
	},
	{
		name:   "BatchGetItem/duplicate keys",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bg(map[string]types.KeysAndAttributes{"T": keys(pk("a"), pk("a"))}))},
	},
	{
		name:   "BatchGetItem/projection and names",
		tables: tables(tPK()),
		items:  []I{{"pk": S("a"), "name": S("x"), "v": N("1")}, {"pk": S("b"), "name": S("y")}},
		steps: []step{do(bg(map[string]types.KeysAndAttributes{"T": {
			Keys: []I{pk("a"), pk("b")}, ProjectionExpression: str("#n, v"), ExpressionAttributeNames: names{"#n": "name"},
		}}))},
	},
	{
		name:   "BatchGetItem/unused name",
		tables: tables(tPK()),
		steps: []step{fail(eValid, bg(map[string]types.KeysAndAttributes{"T": {
			Keys: []I{pk("a")}, ProjectionExpression: str("v"), ExpressionAttributeNames: names{"#n": "name"},
		}}))},
	},
	{
		name:   "BatchGetItem/two tables",
		tables: tables(tPK(), table("T2", hs("id", "N"), attr{})),
		steps: []step{
			do(bw(map[string][]types.WriteRequest{"T": {putReq(pk("a"))}, "T2": {putReq(I{"id": N("7"), "x": BOOL(true)})}})),
			do(bg(map[string]types.KeysAndAttributes{"T": keys(pk("a"), pk("b")), "T2": keys(I{"id": N("7")})})),
		},
	},
	{
		name:   "BatchGetItem/missing table",
		tables: tables(tPK()),
		steps:  []step{fail(eNotFound, bg(map[string]types.KeysAndAttributes{"Missing": keys(pk("a"))}))},
	},
	{
		name:   "BatchGetItem/wrong key type",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bg(map[string]types.KeysAndAttributes{"T": keys(I{"pk": N("1")})}))},
	},
	{
		name:   "BatchGetItem/empty request",
		tables: tables(tPK()),
		steps:  []step{fail(eValid, bg(map[string]types.KeysAndAttributes{}))},
	},
}

func init() {
	batchCases = group(batchCases, "BatchWriteItem/invalid requests",
		"BatchWriteItem/26 items", "BatchWriteItem/duplicate put keys", "BatchWriteItem/put and delete of one key",
		"BatchWriteItem/empty request", "BatchWriteItem/empty list for a table", "BatchWriteItem/invalid item writes nothing",
		"BatchWriteItem/wrong key type", "BatchWriteItem/item over 400 KB", "BatchWriteItem/empty set",
		"BatchWriteItem/missing table")
	batchCases = group(batchCases, "BatchGetItem/invalid requests",
		"BatchGetItem/101 keys", "BatchGetItem/duplicate keys", "BatchGetItem/unused name",
		"BatchGetItem/missing table", "BatchGetItem/wrong key type", "BatchGetItem/empty request")
}

const localBatchLimit = "DynamoDB Local words a batch over its limit in one table as one over it in all tables"
