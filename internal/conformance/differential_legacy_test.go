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

// The legacy differential tests do for the pre-expression parameters
// what the tests above do for expressions: random ScanFilter, Expected
// and AttributeUpdates maps, every comparison operator with value lists
// of every length and type, sent to the engine and to DynamoDB Local.
// The whole answer is compared: the items kept, the old and new item,
// or the error's code and text.

var legacyOperators = []types.ComparisonOperator{
	types.ComparisonOperatorEq, types.ComparisonOperatorNe, types.ComparisonOperatorLt, types.ComparisonOperatorLe,
	types.ComparisonOperatorGt, types.ComparisonOperatorGe, types.ComparisonOperatorIn, types.ComparisonOperatorBetween,
	types.ComparisonOperatorNotNull, types.ComparisonOperatorNull, types.ComparisonOperatorContains,
	types.ComparisonOperatorNotContains, types.ComparisonOperatorBeginsWith,
}

// legacyGen draws the values and conditions of the legacy tests.
type legacyGen struct{ r *rand.Rand }

// value returns a random value, scalars most often.
func (g legacyGen) value() types.AttributeValue {
	vals := []types.AttributeValue{
		N("5"), N("-3"), N("0"), N("5.0"), N("100"), S("he"), S("hello"), S("x"), S("zz"), S(""),
		B('a'), B('a', 'b'), B('b'), BOOL(true), BOOL(false), NULL(),
		SS("hello", "x"), NS("1", "5"), BS([]byte("ab")), L(N("1"), S("hello")), M(I{"a": N("1")}),
	}
	if g.r.Intn(3) == 0 {
		return vals[10+g.r.Intn(len(vals)-10)]
	}
	return vals[g.r.Intn(10)]
}

// list returns a value list, most often of the length op takes.
func (g legacyGen) list(op types.ComparisonOperator) []types.AttributeValue {
	n := 1
	switch op {
	case types.ComparisonOperatorNotNull, types.ComparisonOperatorNull:
		n = 0
	case types.ComparisonOperatorBetween:
		n = 2
	case types.ComparisonOperatorIn:
		n = 1 + g.r.Intn(3)
	}
	if g.r.Intn(8) == 0 {
		n = g.r.Intn(4)
	}
	out := make([]types.AttributeValue, n)
	for i := range out {
		out[i] = g.value()
	}
	return out
}

func (g legacyGen) op() types.ComparisonOperator {
	return legacyOperators[g.r.Intn(len(legacyOperators))]
}

// conditional returns "", AND or OR, AND and OR most often when there
// are two or more conditions.
func (g legacyGen) conditional(n int) types.ConditionalOperator {
	if n < 2 && g.r.Intn(6) != 0 {
		return ""
	}
	return []types.ConditionalOperator{"", types.ConditionalOperatorAnd, types.ConditionalOperatorOr}[g.r.Intn(3)]
}

// names returns 1 to 3 distinct names of paths.
func (g legacyGen) names(paths []string) []string {
	p := g.r.Perm(len(paths))
	out := make([]string, 1+g.r.Intn(3))
	for i := range out {
		out[i] = paths[p[i]]
	}
	return out
}

// orderFree keeps only the error codes when both sides fail a request
// of n > 1 conditions or updates: each side reports the first invalid
// one, and the SDK sends a map's members in a random order, which
// DynamoDB Local follows. (Requests of one compare whole messages.)
// DynamoDB Local's type names in AttributeUpdates messages (STRING,
// NUMBER, ...) become DynamoDB's (S, N, ...; dynalite's suite records
// them), and only the codes are compared when DynamoDB Local's message
// is one of localOnlyMessages, as in TestConformance.
func orderFree(got [2]string, n int) [2]string {
	for i := range got {
		for local, aws := range localTypeNames {
			if strings.HasSuffix(got[i], "for the type "+local) {
				got[i] = strings.TrimSuffix(got[i], local) + aws
			}
		}
	}
	if strings.HasPrefix(got[1], "error InternalFailure") {
		// DynamoDB Local fails inside (a sort key condition NE, say):
		// there is nothing to compare with.
		got[1] = got[0]
	}
	both := strings.HasPrefix(got[0], "error ") && strings.HasPrefix(got[1], "error ")
	if both && (n > 1 || localOnlyMessage(strings.TrimPrefix(got[1][strings.Index(got[1], ":")+1:], " "))) {
		for i := range got {
			got[i], _, _ = strings.Cut(got[i], ":")
		}
	}
	return got
}

var localTypeNames = map[string]string{"STRING": "S", "NUMBER": "N", "BINARY": "B", "BOOLEAN": "BOOL", "MAP": "M", "LIST": "L",
	"STRING_SET": "SS", "NUMBER_SET": "NS", "BINARY_SET": "BS"}

// legacyText renders a legacy request's conditions in a stable order.
func legacyText(m map[string]string, op types.ConditionalOperator) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" "+m[k])
	}
	s := strings.Join(parts, "; ")
	if op != "" {
		s += " [" + string(op) + "]"
	}
	return s
}

func listText(l []types.AttributeValue) string {
	parts := make([]string, len(l))
	for i, v := range l {
		parts[i] = valueText(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// legacyFilterItems are TestDifferentialFilters' items, with a binary.
func legacyFilterItems() []I {
	return []I{
		{"pk": S("a"), "n": N("5"), "s": S("hello"), "l": L(N("1"), S("hello")), "m": M(I{"a": N("1")}),
			"ss": SS("hello", "x"), "ns": NS("1", "5"), "b": BOOL(true), "nul": NULL(), "bs": BS([]byte("ab")), "a.b": S("dotted")},
		{"pk": S("b"), "n": N("-3"), "s": S("he"), "l": L(), "m": M(I{}), "ss": SS("he"), "b": BOOL(false), "bin": B('b')},
		{"pk": S("c"), "s": S(""), "bin": B('a', 'b'), "n": N("0"), "ns": NS("0"), "l": L(M(I{"x": N("1")}))},
		{"pk": S("d")},
	}
}

var legacyPaths = []string{"n", "s", "l", "m", "ss", "ns", "b", "nul", "bs", "bin", "a.b", "missing"}

// TestDifferentialLegacyFilters compares 1,500 random ScanFilters: one
// to three conditions, each of the 13 comparison operators with value
// lists of every length and type, with and without ConditionalOperator,
// over four items.
func TestDifferentialLegacyFilters(t *testing.T) {
	targets := diffTargets(t, "", legacyFilterItems())
	g := legacyGen{rand.New(rand.NewSource(diffSeed(23)))}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "ScanFilter"}
	for range 1500 {
		filter := conds{}
		text := map[string]string{}
		for _, p := range g.names(legacyPaths) {
			op := g.op()
			l := g.list(op)
			filter[p] = types.Condition{ComparisonOperator: op, AttributeValueList: l}
			text[p] = string(op) + listText(l)
		}
		cop := g.conditional(len(filter))
		var got [2]string
		for j, d := range targets {
			out, err := d.c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(d.table), ScanFilter: filter, ConditionalOperator: cop})
			if err != nil {
				got[j] = diffErr(err)
				continue
			}
			got[j] = pkList(out.Items)
		}
		diffs.compare(legacyText(text, cop), orderFree(got, len(filter)))
	}
	diffs.done("1,500")
}

// TestDifferentialLegacyExpected compares 1,500 random Expected maps on
// a DeleteItem of each of the four items (a fresh copy each time): Value
// alone, Exists true or false with or without Value, and
// ComparisonOperator with its list, mixed now and then with Value or
// Exists, which is invalid. What is compared is whether the item was
// deleted, or the error.
func TestDifferentialLegacyExpected(t *testing.T) {
	targets := diffTargets(t, "", nil)
	items := legacyFilterItems()
	g := legacyGen{rand.New(rand.NewSource(diffSeed(29)))}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "Expected"}
	for i := range 1500 {
		expected := exp{}
		text := map[string]string{}
		for _, p := range g.names(legacyPaths) {
			var e types.ExpectedAttributeValue
			var desc []string
			switch g.r.Intn(5) {
			case 0:
				e.Value = g.value()
			case 1:
				e.Exists = aws.Bool(g.r.Intn(2) == 0)
				if g.r.Intn(3) == 0 {
					e.Value = g.value()
				}
			default:
				e.ComparisonOperator = g.op()
				e.AttributeValueList = g.list(e.ComparisonOperator)
				if g.r.Intn(10) == 0 {
					e.Value = g.value()
				}
				if g.r.Intn(10) == 0 {
					e.Exists = aws.Bool(g.r.Intn(2) == 0)
				}
			}
			if e.Value != nil {
				desc = append(desc, "Value="+valueText(e.Value))
			}
			if e.Exists != nil {
				desc = append(desc, fmt.Sprint("Exists=", *e.Exists))
			}
			if e.ComparisonOperator != "" {
				desc = append(desc, string(e.ComparisonOperator)+listText(e.AttributeValueList))
			}
			expected[p] = e
			text[p] = strings.Join(desc, " ")
		}
		cop := g.conditional(len(expected))
		src := items[g.r.Intn(len(items))]
		var got [2]string
		for j, d := range targets {
			it := I{}
			for k, v := range src {
				it[k] = v
			}
			it["pk"] = S(fmt.Sprint("k", i))
			if _, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: it}); err != nil {
				t.Fatalf("%s: PutItem: %v", d.name, err)
			}
			_, err := d.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(d.table), Key: I{"pk": it["pk"]},
				Expected: expected, ConditionalOperator: cop})
			got[j] = diffErr(err)
		}
		diffs.compare(fmt.Sprintf("on %s: %s", src["pk"].(*types.AttributeValueMemberS).Value, legacyText(text, cop)), orderFree(got, len(expected)))
	}
	diffs.done("1,500")
}

// TestDifferentialLegacyUpdates compares 1,500 random AttributeUpdates
// maps (PUT, ADD and DELETE, with a value of every type or none) on a
// fresh copy of one item, with every ReturnValues: the answer's
// attributes and the new item when both succeed, the error otherwise.
func TestDifferentialLegacyUpdates(t *testing.T) {
	targets := diffTargets(t, "", nil)
	base := I{"n": N("5"), "s": S("hello"), "l": L(N("1")), "m": M(I{"a": N("1")}), "ss": SS("x", "y"), "ns": NS("1", "2"),
		"bs": BS([]byte("ab")), "b": BOOL(false), "nul": NULL()}
	paths := []string{"n", "s", "l", "m", "ss", "ns", "bs", "b", "nul", "xx", "yy", "pk"}
	g := legacyGen{rand.New(rand.NewSource(diffSeed(31)))}
	setValues := []types.AttributeValue{SS("x", "z"), NS("2", "7"), BS([]byte("ab"), []byte("c")), SS("q"), NS("-1")}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "AttributeUpdates"}
	for i := range 1500 {
		upd := updates{}
		text := map[string]string{}
		for _, p := range g.names(paths) {
			u := types.AttributeValueUpdate{Action: []types.AttributeAction{"", types.AttributeActionPut, types.AttributeActionAdd,
				types.AttributeActionDelete}[g.r.Intn(4)]}
			switch k := g.r.Intn(6); {
			case k == 0:
			case k < 3:
				u.Value = setValues[g.r.Intn(len(setValues))]
			default:
				u.Value = g.value()
			}
			desc := string(u.Action)
			if desc == "" {
				desc = "(PUT)"
			}
			if u.Value != nil {
				desc += " " + valueText(u.Value)
			}
			upd[p] = u
			text[p] = desc
		}
		rv := fuzzReturnValues[g.r.Intn(len(fuzzReturnValues))]
		var got [2]string
		for j, d := range targets {
			key := I{"pk": S(fmt.Sprint("k", i))}
			it := I{"pk": key["pk"]}
			for k, v := range base {
				it[k] = v
			}
			if _, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: it}); err != nil {
				t.Fatalf("%s: PutItem: %v", d.name, err)
			}
			out, err := d.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.table), Key: key,
				AttributeUpdates: upd, ReturnValues: rv})
			if err != nil {
				got[j] = diffErr(err)
				continue
			}
			gi, err := d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(d.table), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatalf("%s: GetItem: %v", d.name, err)
			}
			got[j] = itemText(out.Attributes) + " => " + itemText(gi.Item)
		}
		diffs.compare(fmt.Sprintf("%s (%s)", legacyText(text, ""), rv), orderFree(got, len(upd)))
	}
	diffs.done("1,500")
}

// TestDifferentialLegacyQueries compares 600 random legacy Queries:
// KeyConditions of every operator on the hash and the sort key (values
// of every type, some of them invalid), with and without a QueryFilter,
// AttributesToGet, Select, ScanIndexForward and a Limit, page by page.
func TestDifferentialLegacyQueries(t *testing.T) {
	var items []I
	for _, p := range []string{"p", "q"} {
		for i, sk := range []string{"a", "ab", "abc", "b", "he", "hello", "x", "zz"} {
			it := I{"pk": S(p), "sk": S(sk), "n": N(fmt.Sprint(i - 3))}
			if i%2 == 0 {
				it["s"] = S(sk + "!")
			}
			if i%3 == 0 {
				it["ss"] = SS("hello", "x")
			}
			items = append(items, it)
		}
	}
	targets := diffTargets(t, "S", items)
	g := legacyGen{rand.New(rand.NewSource(diffSeed(37)))}
	skValues := []types.AttributeValue{S("a"), S("ab"), S("b"), S("he"), S("x"), S("zz"), S(""), N("1"), B('a')}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "legacy Query"}
	for range 600 {
		kc := conds{}
		text := map[string]string{}
		hashOp := types.ComparisonOperatorEq
		if g.r.Intn(12) == 0 {
			hashOp = g.op()
		}
		hash := []types.AttributeValue{S([]string{"p", "q", "r"}[g.r.Intn(3)])}
		if g.r.Intn(12) == 0 {
			hash = g.list(hashOp)
		}
		if g.r.Intn(20) != 0 {
			kc["pk"] = types.Condition{ComparisonOperator: hashOp, AttributeValueList: hash}
			text["pk"] = string(hashOp) + listText(hash)
		}
		if g.r.Intn(3) != 0 {
			op := g.op()
			n := 1
			switch op {
			case types.ComparisonOperatorBetween, types.ComparisonOperatorIn:
				n = 2
			case types.ComparisonOperatorNull, types.ComparisonOperatorNotNull:
				n = 0
			}
			l := make([]types.AttributeValue, n)
			for i := range l {
				l[i] = skValues[g.r.Intn(len(skValues))]
			}
			kc["sk"] = types.Condition{ComparisonOperator: op, AttributeValueList: l}
			text["sk"] = string(op) + listText(l)
		}
		in := &dynamodb.QueryInput{KeyConditions: kc}
		desc := "KeyConditions " + legacyText(text, "")
		if g.r.Intn(3) == 0 {
			f := conds{}
			ftext := map[string]string{}
			for _, p := range g.names([]string{"n", "s", "ss", "missing", "sk"}) {
				op := g.op()
				l := g.list(op)
				f[p] = types.Condition{ComparisonOperator: op, AttributeValueList: l}
				ftext[p] = string(op) + listText(l)
			}
			in.QueryFilter = f
			in.ConditionalOperator = g.conditional(len(f))
			desc += "; QueryFilter " + legacyText(ftext, in.ConditionalOperator)
		}
		if g.r.Intn(4) == 0 {
			in.AttributesToGet = [][]string{{"sk", "n"}, {"s"}, {"ss", "missing"}}[g.r.Intn(3)]
			desc += fmt.Sprint("; AttributesToGet ", in.AttributesToGet)
		}
		if g.r.Intn(5) == 0 {
			in.Select = []types.Select{types.SelectCount, types.SelectAllAttributes, types.SelectSpecificAttributes}[g.r.Intn(3)]
			desc += "; Select " + string(in.Select)
		}
		if g.r.Intn(2) == 0 {
			in.ScanIndexForward = aws.Bool(false)
			desc += "; backward"
		}
		if g.r.Intn(3) == 0 {
			in.Limit = aws.Int32(int32(1 + g.r.Intn(3)))
			desc += fmt.Sprint("; Limit ", *in.Limit)
		}
		var got [2]string
		for j, d := range targets {
			q := *in
			q.TableName = aws.String(d.table)
			var pages strings.Builder
			for range 30 {
				out, err := d.c.Query(ctx, &q)
				if err != nil {
					pages.WriteString(diffErr(err))
					break
				}
				fmt.Fprintf(&pages, "%d/%d:", out.Count, out.ScannedCount)
				for _, it := range out.Items {
					pages.WriteString(itemText(it) + " ")
				}
				pages.WriteString("|")
				if out.LastEvaluatedKey == nil {
					break
				}
				q.ExclusiveStartKey = out.LastEvaluatedKey
			}
			got[j] = pages.String()
		}
		n := len(kc) + len(in.QueryFilter)
		switch hashOp {
		case types.ComparisonOperatorNe, types.ComparisonOperatorContains, types.ComparisonOperatorNotContains,
			types.ComparisonOperatorIn, types.ComparisonOperatorNull, types.ComparisonOperatorNotNull:
			// DynamoDB answers "Attempted conditional constraint is not
			// an indexable operation" (dynalite's suite records it for
			// each), DynamoDB Local "Query key condition not supported"
			// or "Only scalar types can be used as Hash Key values".
			n = 2
		}
		diffs.compare(desc, orderFree(got, n))
	}
	diffs.done("600")
}
