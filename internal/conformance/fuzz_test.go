package conformance

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

// The differential property test: random operation sequences, generated
// from a seed, run against DynamoDB Local and the engine; every response
// and the final table contents must agree.
//
// Strings are ASCII and numbers stored by updates are canonical; see
// canonicalNumbers for the DynamoDB Local behaviour this works around.

const (
	diffSequences = 20 // sequences in a normal test run
	diffOps       = 30 // operations per sequence
)

// TestDifferential runs diffSequences sequences; CONFORMANCE_SEQUENCES
// overrides the count for a longer exploration.
func TestDifferential(t *testing.T) {
	lc := local(t)
	count := diffSequences
	if v, err := strconv.Atoi(os.Getenv("CONFORMANCE_SEQUENCES")); err == nil && v > 0 {
		count = v
	}
	var wg, deletions sync.WaitGroup
	for i := 0; i < count; i++ {
		seed := []byte(fmt.Sprintf("seed-%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer acquireSlot()()
			t.Run(string(seed), func(t *testing.T) { runSequence(t, lc, seed, diffOps, &deletions) })
		}()
	}
	wg.Wait()
	deletions.Wait()
}

// FuzzDifferential explores more sequences under go test -fuzz; the input
// is the seed of the generator.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte("fuzz-0"))
	f.Add([]byte("fuzz-1"))
	f.Fuzz(func(t *testing.T, seed []byte) {
		runSequence(t, local(t), seed, 2*diffOps, nil)
	})
}

// fuzzTable has a string hash key, a sort key of type skType (chosen by
// the seed), a GSI on g/u and an LSI on n.
func fuzzTable(skType string) *dynamodb.CreateTableInput {
	t := table("T", hs("pk", "S"), hs("sk", skType))
	t = withLSI(t, "byN", hs("n", "N"), projection(types.ProjectionTypeInclude, "s"))
	return withGSI(t, "byG", hs("g", "S"), hs("u", "N"), projection(types.ProjectionTypeInclude, "n"))
}

// gen produces random operations.
type gen struct {
	r      *rand.Rand
	skType string // S, N or B
	// byS: the global index on s that indexOp creates and deletes
	// exists, with its projection.
	byS     bool
	bySProj types.ProjectionType
}

func newGen(seed []byte) *gen {
	h := fnv.New64a()
	h.Write(seed)
	s := h.Sum64()
	g := &gen{r: rand.New(rand.NewPCG(s, uint64(len(seed))+0x9e3779b97f4a7c15))}
	g.skType = []string{"N", "S", "B"}[g.pick(3)]
	return g
}

var (
	fuzzStrings = []string{"a", "ab", "a#1", "a#10", "a#2", "b", "B", "é", "0", "~"}
	fuzzBinary  = [][]byte{{0}, {1}, {1, 0}, {0x7f}, {0x80}, {0xff}, {0xff, 0}, {1, 2}}
)

// skVal returns a random sort key value of the table's type.
func (g *gen) skVal() types.AttributeValue {
	switch g.skType {
	case "S":
		return S(fuzzStrings[g.pick(len(fuzzStrings))])
	case "B":
		return B(fuzzBinary[g.pick(len(fuzzBinary))]...)
	}
	return N(g.num())
}

// skPrefix returns a begins_with operand, or nil for number sort keys.
func (g *gen) skPrefix() types.AttributeValue {
	switch g.skType {
	case "S":
		if g.chance(0.2) {
			return S("") // a validation error on both
		}
		return S([]string{"a", "a#", "a#1", "b"}[g.pick(4)])
	case "B":
		if g.chance(0.2) {
			return B()
		}
		return B([][]byte{{1}, {0xff}, {0x80}}[g.pick(3)]...)
	}
	return nil
}

func (g *gen) pick(n int) int { return g.r.IntN(n) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

var fuzzNumbers = []string{"-10", "-2.5", "-1", "-0.5", "0", "0.25", "1", "1.50", "2", "3e1", "10", "99.9"}

func (g *gen) num() string { return fuzzNumbers[g.pick(len(fuzzNumbers))] }

// DynamoDB Local canonicalizes the top-level numbers of a PutItem item
// ("1.50" is read back as "1.5") but keeps the text of numbers nested in
// lists and maps, and of numbers assigned by an update expression ("SET
// u = :u" with "3e1" reads back "3e1"), and of numbers written by
// TransactWriteItems and BatchWriteItem; observed with the DynamoDB Local
// that scripts/test.sh runs. DynamoDB returns numbers in canonical form.
// Nested and update-assigned numbers are therefore canonical here.
var canonicalNumbers = []string{"-10", "-2.5", "-1", "-0.5", "0", "0.25", "1", "1.5", "2", "30", "10", "99.9"}

func (g *gen) cnum() string { return canonicalNumbers[g.pick(len(canonicalNumbers))] }

func (g *gen) pkVal() string { return []string{"a", "b", "c"}[g.pick(3)] }

func (g *gen) word() string { return []string{"", "x", "xy", "ab", "abc", "b", "zz"}[g.pick(7)] }

func (g *gen) key() I { return I{"pk": S(g.pkVal()), "sk": g.skVal()} }

// item returns a random item; loose allows non-canonical text for the
// top-level number n (only PutItem canonicalizes it on DynamoDB Local).
func (g *gen) item(loose bool) I {
	it := g.key()
	if g.chance(0.8) {
		if loose {
			it["n"] = N(g.num())
		} else {
			it["n"] = N(g.cnum())
		}
	}
	if g.chance(0.6) {
		it["s"] = S(g.word())
	}
	if g.chance(0.4) {
		it["ss"] = SS([]string{"p", "q", "r", "s"}[:1+g.pick(4)]...)
	}
	if g.chance(0.4) {
		var l []types.AttributeValue
		for i := g.pick(3); i > 0; i-- {
			l = append(l, N(g.cnum()))
		}
		it["l"] = L(l...)
	}
	if g.chance(0.5) {
		it["g"] = S([]string{"g1", "g2"}[g.pick(2)])
		if g.chance(0.8) {
			it["u"] = N(g.num())
		}
	}
	if g.chance(0.2) {
		it["m"] = M(I{"k": S(g.word()), "v": N(g.cnum())})
	}
	return it
}

// cond returns a random condition over non-key attributes, with values.
func (g *gen) cond() (string, vals) {
	switch g.pick(10) {
	case 0:
		return "attribute_exists(pk)", nil
	case 1:
		return "attribute_not_exists(pk)", nil
	case 2:
		return "n < :v", vals{":v": N(g.num())}
	case 3:
		return "n >= :v", vals{":v": N(g.num())}
	case 4:
		return "n BETWEEN :a AND :b", vals{":a": N("-1"), ":b": N("2")}
	case 5:
		return "begins_with(s, :p)", vals{":p": S(g.word())}
	case 6:
		return "contains(ss, :x)", vals{":x": S("q")}
	case 7:
		return "size(l) > :k", vals{":k": N(fmt.Sprint(g.pick(3)))}
	case 8:
		return "attribute_type(n, :t) OR s IN (:s1, :s2)", vals{":t": S("N"), ":s1": S("x"), ":s2": S("abc")}
	default:
		return "NOT (n = :v) AND attribute_exists(s)", vals{":v": N(g.num())}
	}
}

func merge(a, b vals) vals {
	if a == nil && b == nil {
		return nil
	}
	out := vals{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

var fuzzReturnValues = []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld,
	types.ReturnValueUpdatedOld, types.ReturnValueAllNew, types.ReturnValueUpdatedNew}

func (g *gen) update() (string, vals) {
	switch g.pick(11) {
	case 0:
		return "SET n = n + :d", vals{":d": N(g.cnum())}
	case 1:
		return "SET n = if_not_exists(n, :z) - :d", vals{":z": N("0"), ":d": N(g.cnum())}
	case 2:
		return "ADD ss :s", vals{":s": SS("q", "t")}
	case 3:
		return "DELETE ss :s", vals{":s": SS("p", "q")}
	case 4:
		return "REMOVE s, l[0]", nil // invalid when l is missing
	case 5:
		return "SET s = :s, m = if_not_exists(m, :m)", vals{":s": S(g.word()), ":m": M(I{"k": S("new")})}
	case 6:
		return "SET l = list_append(if_not_exists(l, :e), :l)", vals{":e": L(), ":l": L(N(g.cnum()))}
	case 7:
		return "ADD n :d SET g = :g, u = :u", vals{":d": N(g.cnum()), ":g": S("g1"), ":u": N(g.cnum())}
	case 8:
		return "SET m.k = :s REMOVE g", vals{":s": S(g.word())}
	case 9:
		return "SET l[1] = :v, m.v = if_not_exists(m.v, :v)", vals{":v": N(g.cnum())}
	default:
		return "REMOVE m.v, l[1] ADD ss :s", vals{":s": SS("p")}
	}
}

// indexOp creates the global index byS (on s, and n when it has a sort
// key) on the table as it is, deletes it, or queries it: its entries are
// the items written before it was created and after, those whose s is
// not empty.
func (g *gen) indexOp() step {
	if !g.byS {
		g.byS = true
		g.bySProj = []types.ProjectionType{types.ProjectionTypeAll, types.ProjectionTypeKeysOnly, types.ProjectionTypeInclude}[g.pick(3)]
		p := &types.Projection{ProjectionType: g.bySProj}
		if g.bySProj == types.ProjectionTypeInclude {
			p.NonKeyAttributes = []string{"l"}
		}
		ks := []types.KeySchemaElement{{AttributeName: str("s"), KeyType: types.KeyTypeHash}}
		if g.chance(0.5) {
			ks = append(ks, types.KeySchemaElement{AttributeName: str("n"), KeyType: types.KeyTypeRange})
		}
		return step{in: &dynamodb.UpdateTableInput{TableName: str("T"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("s"), AttributeType: "S"}, {AttributeName: str("n"), AttributeType: "N"}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: str("byS"),
				KeySchema: ks, Projection: p}}}}, err: "any"}
	}
	if g.chance(0.3) {
		g.byS = false
		return step{in: &dynamodb.UpdateTableInput{TableName: str("T"),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str("byS")}}}}, err: "any"}
	}
	q := query("s = :s", vals{":s": S(g.word())})
	q.IndexName = str("byS")
	if g.chance(0.3) {
		q.ProjectionExpression = str("pk, sk, s, l")
	}
	return step{in: &fuzzGSIQuery{q}, err: "any"}
}

// op returns the next random operation.
func (g *gen) op() step {
	if g.chance(0.05) {
		return g.indexOp()
	}
	switch k := g.pick(100); {
	case k < 20:
		in := put(g.item(true))
		if g.chance(0.4) {
			c, v := g.cond()
			in.ConditionExpression, in.ExpressionAttributeValues = str(c), v
		}
		if g.chance(0.3) {
			in.ReturnValues = types.ReturnValueAllOld
		}
		return step{in: in, err: "any"}
	case k < 40:
		expr, v := g.update()
		in := &dynamodb.UpdateItemInput{TableName: str("T"), Key: g.key(), UpdateExpression: str(expr),
			ReturnValues: fuzzReturnValues[g.pick(len(fuzzReturnValues))]}
		if (in.ReturnValues == types.ReturnValueUpdatedOld || in.ReturnValues == types.ReturnValueUpdatedNew) && strings.ContainsAny(expr, ".[") {
			// For nested paths DynamoDB Local returns whole top-level
			// attributes (localWholeTopLevel; the case "Update/ReturnValues
			// of nested paths" has what DynamoDB returns).
			in.ReturnValues = types.ReturnValueAllNew
		}
		if g.chance(0.4) {
			c, cv := g.cond()
			// Rename the condition's placeholders so that they never clash.
			v = merge(v, renamed(cv, "c"))
			in.ConditionExpression = str(renameExpr(c, cv, "c"))
			if g.chance(0.5) {
				in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
			}
		}
		in.ExpressionAttributeValues = v
		return step{in: in, err: "any"}
	case k < 50:
		in := del(g.key())
		if g.chance(0.5) {
			c, v := g.cond()
			in.ConditionExpression, in.ExpressionAttributeValues = str(c), v
		}
		if g.chance(0.5) {
			in.ReturnValues = types.ReturnValueAllOld
		}
		return step{in: in, err: "any"}
	case k < 52:
		in := get(g.key())
		if g.chance(0.4) {
			in.ProjectionExpression = str("n, m.k, l[1], ss, nope")
		}
		return step{in: in, err: "any"}
	case k < 55:
		keys := []I{g.key()}
		if k2 := g.key(); !sameKey(keys[0], k2) {
			keys = append(keys, k2)
		}
		return step{in: bg(map[string]types.KeysAndAttributes{"T": {Keys: keys, ConsistentRead: aws.Bool(true)}}), err: "any"}
	case k < 58:
		k1, k2 := g.key(), g.key()
		in := tg(tgGet("T", k1))
		if !sameKey(k1, k2) {
			in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: str("T"), Key: k2,
				ProjectionExpression: str("sk, n")}})
		}
		return step{in: in, err: "any"}
	case k < 75:
		p := g.pkVal()
		q := query("pk = :p", vals{":p": S(p)})
		switch c := g.pick(9); c {
		case 0, 1, 2, 3, 4:
			q.KeyConditionExpression = str("pk = :p AND sk " + [...]string{"=", "<", ">=", ">", "<="}[c] + " :v")
			q.ExpressionAttributeValues[":v"] = g.skVal()
		case 5:
			// Bounds may come out reversed: a validation error on both.
			q.KeyConditionExpression = str("pk = :p AND sk BETWEEN :a AND :b")
			q.ExpressionAttributeValues[":a"] = g.skVal()
			q.ExpressionAttributeValues[":b"] = g.skVal()
		case 6:
			if pre := g.skPrefix(); pre != nil {
				q.KeyConditionExpression = str("pk = :p AND begins_with(sk, :v)")
				q.ExpressionAttributeValues[":v"] = pre
			}
		}
		// A start key may lie outside the sort-key condition, or on its
		// far bound: validation errors on both.
		if g.chance(0.2) {
			q.ExclusiveStartKey = I{"pk": S(p), "sk": g.skVal()}
		}
		if g.chance(0.2) {
			q.ProjectionExpression = str("sk, n, l[0], m")
		}
		if g.chance(0.5) {
			q.ScanIndexForward = aws.Bool(false)
		}
		if g.chance(0.4) {
			q.Limit = aws.Int32(int32(1 + g.pick(4)))
		}
		if g.chance(0.3) {
			c, v := g.cond()
			if c != "attribute_exists(pk)" && c != "attribute_not_exists(pk)" {
				q.FilterExpression = str(renameExpr(c, v, "f"))
				q.ExpressionAttributeValues = merge(q.ExpressionAttributeValues, renamed(v, "f"))
			}
		}
		if g.chance(0.2) {
			q.Select = types.SelectCount
		}
		return step{in: q, err: "any"}
	case k < 82:
		s := scan()
		if g.chance(0.5) {
			c, v := g.cond()
			s.FilterExpression, s.ExpressionAttributeValues = str(c), v
		}
		if g.chance(0.3) {
			s.ProjectionExpression = str("pk, sk, n, l[0], m.k")
		}
		if g.chance(0.3) {
			// Scan order is the implementation's: page through and
			// compare the union. Some scans read an index, whose
			// entries (and start keys) hold its keys too.
			s.Limit = aws.Int32(int32(1 + g.pick(5)))
			switch g.pick(4) {
			case 0:
				// Only projected attributes in the filter: DynamoDB
				// Local filters a GSI Scan on the table's item (the
				// case "GSI filter on an unprojected attribute").
				s.IndexName = str("byG")
				s.FilterExpression, s.ExpressionAttributeValues = nil, nil
				if g.chance(0.5) {
					s.FilterExpression, s.ExpressionAttributeValues = str("n >= :v"), vals{":v": N(g.cnum())}
				}
				if s.ProjectionExpression != nil {
					s.ProjectionExpression = str("pk, g, u, n")
				}
			case 1:
				s.IndexName = str("byN")
				s.ConsistentRead = aws.Bool(true)
			default:
				s.ConsistentRead = aws.Bool(true)
			}
			return step{in: s, mode: modeScanAll, err: "any"}
		}
		return step{in: s, err: "any"}
	case k < 84:
		// GSI query: the order of items with equal index keys is not
		// defined, so the page is compared sorted (no Limit).
		q := query("g = :g", vals{":g": S([]string{"g1", "g2"}[g.pick(2)])})
		q.IndexName = str("byG")
		return step{in: &fuzzGSIQuery{q}, err: "any"}
	case k < 87:
		// LSI query, compared sorted as a GSI query is: a filter,
		// projection or Select may name attributes the index does not
		// project (fetched from the table, or refused).
		q := query("pk = :p", vals{":p": S(g.pkVal())})
		q.IndexName = str("byN")
		if g.chance(0.5) {
			q.KeyConditionExpression = str("pk = :p AND n " + [...]string{"=", "<", ">="}[g.pick(3)] + " :v")
			q.ExpressionAttributeValues[":v"] = N(g.cnum())
		}
		if g.chance(0.4) {
			c, v := g.cond()
			if c != "attribute_exists(pk)" && c != "attribute_not_exists(pk)" {
				q.FilterExpression = str(renameExpr(c, v, "f"))
				q.ExpressionAttributeValues = merge(q.ExpressionAttributeValues, renamed(v, "f"))
			}
		}
		switch g.pick(5) {
		case 0:
			q.ProjectionExpression = str([]string{"sk, n, s", "sk, l[0], m.k"}[g.pick(2)])
		case 1:
			q.Select = types.SelectAllAttributes
		case 2:
			q.Select = types.SelectAllProjectedAttributes
		case 3:
			q.Select = types.SelectCount
		}
		if g.chance(0.3) {
			q.ConsistentRead = aws.Bool(true)
		}
		return step{in: &fuzzGSIQuery{q}, err: "any"}
	case k < 94:
		k1, k2 := g.key(), g.key()
		items := []types.TransactWriteItem{{Put: &types.Put{TableName: str("T"), Item: with(k1, "n", N(g.cnum()))}}}
		if !sameKey(k1, k2) {
			c, v := g.cond()
			onFail := types.ReturnValuesOnConditionCheckFailure("")
			if g.chance(0.5) {
				onFail = types.ReturnValuesOnConditionCheckFailureAllOld
			}
			// The second action, conditional, of each kind.
			switch g.pick(4) {
			case 0, 1:
				items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: str("T"), Key: k2,
					UpdateExpression: str("SET s = :cs"), ConditionExpression: str(c),
					ExpressionAttributeValues: merge(v, vals{":cs": S(g.word())}), ReturnValuesOnConditionCheckFailure: onFail}})
			case 2:
				items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: str("T"), Key: k2,
					ConditionExpression: str(c), ExpressionAttributeValues: v, ReturnValuesOnConditionCheckFailure: onFail}})
			default:
				items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: str("T"), Key: k2,
					ConditionExpression: str(c), ExpressionAttributeValues: v, ReturnValuesOnConditionCheckFailure: onFail}})
			}
		}
		return step{in: tw(items...), err: "any"}
	default:
		var reqs []types.WriteRequest
		seen := map[string]bool{}
		for i := g.pick(4); i >= 0; i-- {
			it := g.item(false)
			id := keyID(it)
			if seen[id] {
				continue
			}
			seen[id] = true
			if g.chance(0.3) {
				reqs = append(reqs, delReq(I{"pk": it["pk"], "sk": it["sk"]}))
			} else {
				reqs = append(reqs, putReq(it))
			}
		}
		return step{in: bw(map[string][]types.WriteRequest{"T": reqs}), err: "any"}
	}
}

func keyID(it I) string {
	return js(plainOf(it["pk"], nil)) + js(plainOf(it["sk"], nil))
}

func sameKey(a, b I) bool { return keyID(a) == keyID(b) }

// renamed returns v with every placeholder ":x" renamed ":<p>x".
func renamed(v vals, p string) vals {
	if v == nil {
		return nil
	}
	out := vals{}
	for k, x := range v {
		out[":"+p+k[1:]] = x
	}
	return out
}

func renameExpr(expr string, v vals, p string) string {
	// Placeholders in the generated conditions are distinct tokens, so a
	// plain textual replacement of ":name" followed by a delimiter works.
	out := ""
	for i := 0; i < len(expr); i++ {
		if expr[i] == ':' {
			j := i + 1
			for j < len(expr) && (expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			if _, ok := v[expr[i:j]]; ok {
				out += ":" + p + expr[i+1:j]
				i = j - 1
				continue
			}
		}
		out += string(expr[i])
	}
	return out
}

// fuzzGSIQuery is a GSI query whose items are compared as a sorted set.
type fuzzGSIQuery struct{ q *dynamodb.QueryInput }

// runSequence applies ops random operations generated from seed to both
// targets. The table is deleted in the background, tracked by deletions,
// or at once when deletions is nil.
func runSequence(t *testing.T, lc entity.Client, seed []byte, ops int, deletions *sync.WaitGroup) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	n := newNameMap()
	// DynamoDB Local returns the text of computed numbers as its decimal
	// arithmetic leaves it (1.5 + -2.5 reads back "-1.0"), where DynamoDB
	// returns "-1": numbers are compared by value here.
	n.canonNumbers = true
	eng := ddbmem.New()
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// tgts[2], the engine served over HTTP, must answer as tgts[1] does.
	tgts := []target{{"DynamoDB Local", lc}, {"engine", eng}, {"engine over HTTP", ddbmem.NewEndpointClient(srv.URL())}}
	t.Cleanup(func() {
		real := n.get("T")
		drop := func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			_, _ = lc.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(real)})
			_, _ = eng.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(real)})
		}
		if deletions == nil {
			drop()
			return
		}
		deletions.Add(1)
		go func() {
			defer deletions.Done()
			drop()
		}()
	})
	g := newGen(seed)
	for _, tg := range tgts {
		if r := exec(ctx, tg, do(fuzzTable(g.skType)), n); r.Err != nil {
			t.Fatalf("%s: create table: %s", tg.name, r.Err.Detail)
		}
	}
	var history []string
	for i := 0; i < ops; i++ {
		s := g.op()
		var want, got, gotHTTP result
		if q, ok := s.in.(*fuzzGSIQuery); ok {
			want = sortedQuery(ctx, tgts[0], q.q, n)
			got = sortedQuery(ctx, tgts[1], q.q, n)
			gotHTTP = sortedQuery(ctx, tgts[2], q.q, n)
			history = append(history, "Query "+js(q.q))
		} else {
			want = exec(ctx, tgts[0], s, n)
			for start := time.Now(); localBusy(s, want) && time.Since(start) < 60*time.Second; {
				// DynamoDB Local builds indexes on at most five tables at
				// a time (as DynamoDB limits them), and the sequences run
				// side by side; it also fails some UpdateTable calls
				// inside while it is busy: try again.
				time.Sleep(200 * time.Millisecond)
				want = exec(ctx, tgts[0], s, n)
			}
			got = exec(ctx, tgts[1], s, n)
			gotHTTP = exec(ctx, tgts[2], s, n)
			history = append(history, opName(s.in)+" "+js(s.in))
			if _, ok := s.in.(*dynamodb.UpdateTableInput); ok {
				// DynamoDB Local answers (and describes) a new index
				// CREATING, as DynamoDB does, though it serves it at once;
				// the engine makes it ACTIVE at once unless
				// Options.Lifecycle asks for DynamoDB's CREATING
				// (TestLifecycle). Only errors are compared.
				want.Out, got.Out, gotHTTP.Out = nil, nil, nil
				// DynamoDB Local then builds or drops the index for a
				// while, refusing another change meanwhile (and leaving
				// some writes unprocessed): wait until it is done.
				waitIndexSettled(ctx, t, lc, n.get("T"))
			}
		}
		if d := cmp.Diff(got, gotHTTP, ignoreDetail); d != "" {
			t.Fatalf("seed %q op %d: the engine over HTTP differs from the engine in process (-in process +HTTP):\n%s\nops so far:\n%s", seed, i, d, joinLines(history))
		}
		if wholeTxnFailure(want, got) {
			// localFailsWholeTxn: where an update cannot apply, the
			// engine cancels with a ValidationError reason, as DynamoDB
			// documents; DynamoDB Local fails the whole request.
			continue
		}
		if d := cmp.Diff(want, got, ignoreDetail); d != "" {
			t.Fatalf("seed %q op %d differs (-DynamoDB Local +engine):\n%s%s\nops so far:\n%s", seed, i, d, details(want, got), joinLines(history))
		}
	}
	final := step{in: &dynamodb.ScanInput{TableName: str("T"), ConsistentRead: aws.Bool(true)}, mode: modeScanAll}
	want := exec(ctx, tgts[0], final, n)
	got := exec(ctx, tgts[1], final, n)
	if d := cmp.Diff(want, got, ignoreDetail); d != "" {
		t.Fatalf("seed %q final table contents differ (-DynamoDB Local +engine):\n%s\nops:\n%s", seed, d, joinLines(history))
	}
}

// localBusy reports whether DynamoDB Local refused an UpdateTable for
// being busy: too many indexes being built, or an internal failure.
func localBusy(s step, r result) bool {
	_, ok := s.in.(*dynamodb.UpdateTableInput)
	return ok && r.Err != nil && (r.Err.Code == "LimitExceededException" || r.Err.Code == "InternalFailure")
}

// wholeTxnFailure reports whether DynamoDB Local failed a transaction
// with a ValidationException where the engine cancelled it with one
// ValidationError reason (localFailsWholeTxn).
func wholeTxnFailure(local, eng result) bool {
	if local.Err == nil || eng.Err == nil || local.Err.Kind != eValid || eng.Err.Kind != eTxn {
		return false
	}
	n := 0
	for _, r := range eng.Err.Reasons {
		switch r.Code {
		case "ValidationError":
			n++
		case "None":
		default:
			return false
		}
	}
	return n == 1
}

// waitIndexSettled waits until every global index of table is ACTIVE on
// DynamoDB Local (none CREATING, UPDATING or DELETING).
func waitIndexSettled(ctx context.Context, t *testing.T, lc entity.Client, table string) {
	d, ok := lc.(interface {
		DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	})
	if !ok {
		t.Fatalf("%T has no DescribeTable", lc)
	}
	start := time.Now()
	for {
		out, err := d.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatalf("DescribeTable: %v", err)
		}
		settled := true
		for _, g := range out.Table.GlobalSecondaryIndexes {
			settled = settled && g.IndexStatus == types.IndexStatusActive
		}
		if settled {
			return
		}
		if time.Since(start) > 60*time.Second {
			t.Fatalf("DynamoDB Local's indexes of %s did not settle in 60 s", table)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sortedQuery(ctx context.Context, tg target, q *dynamodb.QueryInput, n *nameMap) result {
	r := exec(ctx, tg, do(q), n)
	if m, ok := r.Out.(map[string]any); ok {
		if items, ok := m["Items"].([]any); ok {
			sortItems(items)
		}
	}
	return r
}

func joinLines(l []string) string {
	out := ""
	for i, s := range l {
		out += fmt.Sprintf("  %d: %s\n", i, s)
	}
	return out
}
