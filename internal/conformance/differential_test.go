package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

// The differential tests send the same random expressions, from fixed
// seeds, to the engine and to DynamoDB Local and compare what each
// answers: filters (the items each keeps, or the error's code and
// text), updates (the new and old items, or that both fail) and
// queries (every page). They found the differences the cases
// "condition operand checks", "if_not_exists fallback and operands" and
// "REMOVE with other actions on one list" now pin down.

// diffSeed returns the seed of a differential test: def, or the number
// in TABLEKIT_DIFF_SEED, to look for differences beyond the fixed seeds
// (TABLEKIT_DIFF_SEED=7 go test -run TestDifferential ./internal/conformance).
func diffSeed(def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv("TABLEKIT_DIFF_SEED"), 10, 64); err == nil {
		return v
	}
	return def
}

// diffTarget is one side of a differential test: a client and the table
// it created.
type diffTarget struct {
	name  string
	c     entity.Client
	table string
}

// diffTargets creates the table (hash key pk, S, and sk of skType when
// it is not empty) on the engine and on DynamoDB Local and puts items.
func diffTargets(t *testing.T, skType types.ScalarAttributeType, items []I) []diffTarget {
	t.Helper()
	in := &dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	if skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: skType})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	return diffTargetsOf(t, in, items)
}

// diffTargetsOf is diffTargets for the table in describes (its name is
// each target's own).
func diffTargetsOf(t *testing.T, in *dynamodb.CreateTableInput, items []I) []diffTarget {
	t.Helper()
	ctx := context.Background()
	targets := []diffTarget{{name: "engine", c: ddbmem.New()}, {name: "DynamoDB Local", c: local(t)}}
	for i := range targets {
		d := &targets[i]
		d.table = testenv.UniqueName("diff")
		c := *in
		c.TableName = aws.String(d.table)
		if _, err := d.c.CreateTable(ctx, &c); err != nil {
			t.Fatalf("%s: CreateTable: %v", d.name, err)
		}
		t.Cleanup(func() {
			_, _ = d.c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(d.table)})
		})
		for _, it := range items {
			if _, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: it}); err != nil {
				t.Fatalf("%s: PutItem: %v", d.name, err)
			}
		}
	}
	return targets
}

// rows renders the items of d's table, sorted, for a comparison of the
// table after a request.
func (d diffTarget) rows(ctx context.Context, t *testing.T) string {
	t.Helper()
	return d.rowsAs(ctx, t, itemText)
}

// rowsAs is rows with each item rendered by text.
func (d diffTarget) rowsAs(ctx context.Context, t *testing.T, text func(map[string]types.AttributeValue) string) string {
	t.Helper()
	out, err := d.c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(d.table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("%s: Scan: %v", d.name, err)
	}
	var rows []string
	for _, it := range out.Items {
		rows = append(rows, text(it))
	}
	sort.Strings(rows)
	return strings.Join(rows, " ")
}

// pkList renders the partition keys of items, sorted.
func pkList(items []I) string {
	var keys []string
	for _, it := range items {
		keys = append(keys, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// diffCount counts the expressions on which the engine and DynamoDB
// Local answer differently, reporting the first ten.
type diffCount struct {
	t    *testing.T
	what string // "filter", "update"
	n    int
}

func (d *diffCount) compare(expr string, got [2]string) {
	d.t.Helper()
	if got[0] != got[1] {
		if d.n++; d.n <= 10 {
			d.t.Errorf("%s %s:\n  engine:         %s\n  DynamoDB Local: %s", d.what, expr, got[0], got[1])
		}
	}
}

func (d *diffCount) done(total string) {
	d.t.Helper()
	if d.n > 10 {
		d.t.Errorf("%d %ss of %s differ", d.n, d.what, total)
	}
}

// codesWhereLocalWords cuts two errors rendered by diffErr (the engine's
// and DynamoDB Local's) to their codes where Local words the error its own
// way (localOnlyMessages).
func codesWhereLocalWords(got *[2]string) {
	if strings.HasPrefix(got[0], "error ") && strings.HasPrefix(got[1], "error ") {
		if _, msg, _ := strings.Cut(got[1], ": "); localOnlyMessage(msg) {
			got[0], _, _ = strings.Cut(got[0], ":")
			got[1], _, _ = strings.Cut(got[1], ":")
		}
	}
}

// diffErr renders an error by its code and message.
func diffErr(err error) string {
	info := normErr(err, true, newNameMap())
	if info == nil {
		return "ok"
	}
	return "error " + info.Code + ": " + info.Message
}

// itemText renders an item with its maps' keys and its sets sorted.
func itemText(it I) string {
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + valueText(it[k]) + ";")
	}
	return b.String()
}

func valueText(v types.AttributeValue) string {
	sorted := func(s []string) string {
		s = append([]string(nil), s...)
		sort.Strings(s)
		return strings.Join(s, ",")
	}
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + x.Value
	case *types.AttributeValueMemberN:
		return "N:" + x.Value
	case *types.AttributeValueMemberB:
		return "B:" + string(x.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint("BOOL:", x.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS:" + sorted(x.Value)
	case *types.AttributeValueMemberNS:
		return "NS:" + sorted(x.Value)
	case *types.AttributeValueMemberBS:
		var s []string
		for _, e := range x.Value {
			s = append(s, string(e))
		}
		return "BS:" + sorted(s)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(x.Value))
		for i, e := range x.Value {
			parts[i] = valueText(e)
		}
		return "L:[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M:{" + itemText(x.Value) + "}"
	}
	return fmt.Sprintf("%T", v)
}

// usedValues returns the values of vals whose placeholder expr names.
func usedValues(expr string, vals map[string]types.AttributeValue) map[string]types.AttributeValue {
	var out map[string]types.AttributeValue
	for _, tok := range strings.FieldsFunc(expr, func(r rune) bool { return strings.ContainsRune(" ,()", r) }) {
		if v, ok := vals[tok]; ok {
			if out == nil {
				out = map[string]types.AttributeValue{}
			}
			out[tok] = v
		}
	}
	return out
}

var diffValues = map[string]types.AttributeValue{
	":n": N("5"), ":s": S("he"), ":l": L(N("1"), S("hello")), ":ss": SS("hello", "x"), ":ns": NS("5"),
	":m": M(I{"a": N("1")}), ":b": BOOL(true), ":el": L(), ":sub": S("ell"), ":nul": NULL(), ":bin": B('a'),
	":zero": N("0"), ":neg": N("-1"), ":big": N("99999999999999999999999999999999999999"),
	":tS": S("S"), ":tN": S("N"), ":tL": S("L"), ":tM": S("M"), ":tSS": S("SS"), ":tNS": S("NS"),
	":tBOOL": S("BOOL"), ":tNULL": S("NULL"), ":tB": S("B"), ":tBS": S("BS"),
}

// TestDifferentialFilters compares 1,500 random filter expressions
// (comparisons, BETWEEN, IN, every function, NOT, AND, OR; paths into
// maps and lists, size, values of every type) over four items.
func TestDifferentialFilters(t *testing.T) {
	items := []I{
		{"pk": S("a"), "n": N("5"), "n2": N("5.0"), "s": S("hello"), "l": L(N("1"), S("hello")), "m": M(I{"a": N("1"), "b": S("he"), "l": L(S("q"))}),
			"ss": SS("hello", "x"), "ns": NS("1", "5"), "b": BOOL(true), "nul": NULL(), "bs": BS([]byte("ab")), "a.b": S("dotted")},
		{"pk": S("b"), "n": N("-3"), "s": S("he"), "l": L(), "m": M(I{}), "ss": SS("he"), "b": BOOL(false)},
		{"pk": S("c"), "s": S(""), "bin": B('a', 'b'), "n": N("0"), "ns": NS("0"), "l": L(M(I{"x": N("1")}))},
		{"pk": S("d")},
	}
	targets := diffTargets(t, "", items)
	paths := []string{"n", "s", "l", "m", "ss", "ns", "m.a", "m.b", "l[0]", "l[1]", "l[5]", "missing", "b", "nul", "bs", "m.l[0]", "#dot", "n2"}
	vals := []string{":n", ":s", ":l", ":ss", ":ns", ":m", ":b", ":el", ":sub", ":nul", ":bin", ":zero", ":neg"}
	typeNames := []string{":tS", ":tN", ":tL", ":tM", ":tSS", ":tNS", ":tBOOL", ":tNULL", ":tB", ":tBS"}
	r := rand.New(rand.NewSource(diffSeed(11)))
	operand := func() string {
		switch k := r.Intn(10); {
		case k < 4:
			return vals[r.Intn(len(vals))]
		case k < 9:
			return paths[r.Intn(len(paths))]
		default:
			return "size(" + paths[r.Intn(len(paths))] + ")"
		}
	}
	var cond func(depth int) string
	cond = func(depth int) string {
		k := r.Intn(12)
		if depth > 2 {
			k = r.Intn(8)
		}
		switch k {
		case 0, 1, 2:
			ops := []string{"=", "<>", "<", "<=", ">", ">="}
			return operand() + " " + ops[r.Intn(len(ops))] + " " + operand()
		case 3:
			return "attribute_exists(" + paths[r.Intn(len(paths))] + ")"
		case 4:
			return "attribute_not_exists(" + paths[r.Intn(len(paths))] + ")"
		case 5:
			return "attribute_type(" + paths[r.Intn(len(paths))] + ", " + typeNames[r.Intn(len(typeNames))] + ")"
		case 6:
			return "begins_with(" + operand() + ", " + operand() + ")"
		case 7:
			return "contains(" + operand() + ", " + operand() + ")"
		case 8:
			return operand() + " BETWEEN " + operand() + " AND " + operand()
		case 9:
			return operand() + " IN (" + operand() + ", " + operand() + ")"
		case 10:
			return "NOT " + cond(depth+1)
		default:
			return "(" + cond(depth+1) + " " + []string{"AND", "OR"}[r.Intn(2)] + " " + cond(depth+1) + ")"
		}
	}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "filter"}
	for i := 0; i < 1500; i++ {
		f := cond(0)
		var names map[string]string
		if strings.Contains(f, "#dot") {
			names = map[string]string{"#dot": "a.b"}
		}
		var got [2]string
		for j, d := range targets {
			out, err := d.c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(d.table), FilterExpression: aws.String(f),
				ExpressionAttributeValues: usedValues(f, diffValues), ExpressionAttributeNames: names})
			if err != nil {
				got[j] = diffErr(err)
				continue
			}
			got[j] = pkList(out.Items)
		}
		diffs.compare(f, got)
	}
	diffs.done("1,500")
}

// TestDifferentialMalformedFilters compares the errors of 1,500 random
// filter expressions, most of them invalid: function calls anywhere
// (unknown, misused, of the wrong operand count or type), operands in
// parentheses (doubled ones too), reserved and grammar words as names,
// undefined placeholders, and then a token dropped, doubled or added.
// The whole message is compared, so the order of the checks is: which
// of several errors each names. Only attribute_type's list of types for
// a path is left out (DynamoDB Local lists its own internal types).
func TestDifferentialMalformedFilters(t *testing.T) {
	targets := diffTargets(t, "", []I{{"pk": S("a"), "n": N("1")}})
	r := rand.New(rand.NewSource(diffSeed(1)))
	paths := []string{"n", "s", "m.a", "l[0]", "#n", "#u", "x.y[1].z", "name", "between", "size"}
	values := []string{":s", ":n", ":bin", ":el", ":b", ":nul", ":u", ":tN"}
	funcs := []string{"size", "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains", "if_not_exists", "whatever", "Size"}
	call := func(f string, args int, operand func() string) string {
		var as []string
		for range args {
			as = append(as, operand())
		}
		return f + "(" + strings.Join(as, ", ") + ")"
	}
	var operand func(depth int) string
	operand = func(depth int) string {
		k := r.Intn(20)
		if depth > 2 {
			k = r.Intn(14)
		}
		switch {
		case k < 6:
			return paths[r.Intn(len(paths))]
		case k < 12:
			return values[r.Intn(len(values))]
		case k < 14:
			return "(" + operand(depth+1) + ")"
		}
		f, args := funcs[r.Intn(len(funcs))], 1+r.Intn(2)
		if r.Intn(3) > 0 {
			f = "size"
			if r.Intn(4) > 0 {
				args = 1
			}
		}
		return call(f, args, func() string { return operand(depth + 1) })
	}
	var cond func(depth int) string
	cond = func(depth int) string {
		k := r.Intn(12)
		if depth > 2 {
			k = r.Intn(8)
		}
		switch k {
		case 0, 1, 2:
			ops := []string{"=", "<>", "<", "<=", ">", ">="}
			return operand(0) + " " + ops[r.Intn(len(ops))] + " " + operand(0)
		case 3, 4:
			return call(funcs[1+r.Intn(len(funcs)-1)], 1+r.Intn(2), func() string { return operand(1) })
		case 5:
			return operand(0) + " BETWEEN " + operand(0) + " AND " + operand(0)
		case 6:
			return operand(0) + " IN (" + operand(0) + ", " + operand(0) + ")"
		case 7:
			return "(" + cond(depth+1) + ")"
		case 8:
			return "NOT " + cond(depth+1)
		}
		return cond(depth+1) + " " + []string{"AND", "OR"}[r.Intn(2)] + " " + cond(depth+1)
	}
	token := regexp.MustCompile(`[A-Za-z_#:][A-Za-z0-9_]*|[0-9]+|<>|<=|>=|\S`)
	mutate := func(s string) string {
		toks := token.FindAllString(s, -1)
		switch r.Intn(6) {
		case 0:
			if len(toks) > 1 {
				i := r.Intn(len(toks))
				toks = append(toks[:i], toks[i+1:]...)
			}
		case 1:
			i := r.Intn(len(toks))
			toks = append(toks[:i+1], toks[i:]...)
		case 2:
			extra := []string{"(", ")", ",", "AND", "\"", "ü", "[", "]", ".", "1", "=", "between", "#", "in"}
			i := r.Intn(len(toks) + 1)
			toks = append(toks[:i], append([]string{extra[r.Intn(len(extra))]}, toks[i:]...)...)
		}
		return strings.Join(toks, " ")
	}
	typeList := regexp.MustCompile(`operand type: \{[^}]*\}`)
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "filter"}
	for range 1500 {
		f := mutate(cond(0))
		var names map[string]string
		if strings.Contains(f, "#n") {
			names = map[string]string{"#n": "n"}
		}
		var got [2]string
		for j, d := range targets {
			_, err := d.c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(d.table), FilterExpression: aws.String(f),
				ExpressionAttributeValues: usedValues(f, diffValues), ExpressionAttributeNames: names})
			got[j] = typeList.ReplaceAllString(diffErr(err), "operand type: {...}")
		}
		diffs.compare(f, got)
	}
	diffs.done("1,500")
}

// TestDifferentialMalformedUpdates compares the errors of 1,500 random
// update expressions, most of them invalid (sections of SET, REMOVE, ADD
// and DELETE actions with doubled parentheses, unknown functions, wrong
// operand counts and types, undefined placeholders, overlapping paths,
// paths the item cannot take; then a token dropped, doubled or added),
// each on a fresh copy of one item: the whole message, so which of
// several errors each names. Expressions with a value placeholder after
// a dot are left out: DynamoDB Local answers some of them with an
// internal error.
func TestDifferentialMalformedUpdates(t *testing.T) {
	item := I{"pk": S("a"), "n": N("1"), "s": S("x"), "m": M(I{"a": N("2")}), "l": L(N("3"))}
	targets := diffTargets(t, "", nil)
	r := rand.New(rand.NewSource(diffSeed(3)))
	pick := func(l []string) string { return l[r.Intn(len(l))] }
	paths := []string{"n", "s", "m.a", "l[0]", "#n", "#u", "x.y[1].z", "name", "between", "size", "set", "l[5]"}
	values := []string{":s", ":n", ":bin", ":el", ":b", ":nul", ":u", ":ss", ":ns"}
	var operand func(depth int) string
	operand = func(depth int) string {
		k := r.Intn(16)
		if depth > 1 {
			k = r.Intn(10)
		}
		switch {
		case k < 4:
			return pick(paths)
		case k < 8:
			return pick(values)
		case k < 10:
			return "(" + operand(depth+1) + ")"
		case k < 12:
			return operand(depth+1) + " " + pick([]string{"+", "-"}) + " " + operand(depth+1)
		}
		args := 2
		if r.Intn(3) == 0 {
			args = 1 + r.Intn(3)
		}
		var as []string
		for range args {
			as = append(as, operand(depth+1))
		}
		return pick([]string{"if_not_exists", "list_append", "size", "whatever", "attribute_exists"}) + "(" + strings.Join(as, ", ") + ")"
	}
	section := func() string {
		kw := pick([]string{"SET", "REMOVE", "ADD", "DELETE"})
		var as []string
		for range 1 + r.Intn(2) {
			switch kw {
			case "SET":
				as = append(as, pick(paths)+" = "+operand(0))
			case "REMOVE":
				as = append(as, pick(paths))
			default:
				as = append(as, pick(paths)+" "+pick(values))
			}
		}
		return kw + " " + strings.Join(as, ", ")
	}
	token := regexp.MustCompile(`[A-Za-z_#:][A-Za-z0-9_]*|[0-9]+|\S`)
	mutate := func(s string) string {
		toks := token.FindAllString(s, -1)
		switch r.Intn(6) {
		case 0:
			if len(toks) > 1 {
				i := r.Intn(len(toks))
				toks = append(toks[:i], toks[i+1:]...)
			}
		case 1:
			i := r.Intn(len(toks))
			toks = append(toks[:i+1], toks[i:]...)
		case 2:
			i := r.Intn(len(toks) + 1)
			toks = append(toks[:i], append([]string{pick([]string{"(", ")", ",", "SET", "\"", "[", "]", ".", "1", "=", "between", "#", "+"})}, toks[i:]...)...)
		}
		return strings.Join(toks, " ")
	}
	ctx := context.Background()
	diffs, n := &diffCount{t: t, what: "update"}, 0
	for n < 1500 {
		u := section()
		if r.Intn(2) == 0 {
			u += " " + section()
		}
		u = mutate(u)
		if strings.Contains(u, ". :") {
			continue
		}
		n++
		var names map[string]string
		if strings.Contains(u, "#n") {
			names = map[string]string{"#n": "n"}
		}
		var got [2]string
		for j, d := range targets {
			if _, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: item}); err != nil {
				t.Fatalf("%s: PutItem: %v", d.name, err)
			}
			_, err := d.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.table), Key: I{"pk": S("a")}, UpdateExpression: aws.String(u),
				ExpressionAttributeNames: names, ExpressionAttributeValues: usedValues(u, diffValues)})
			got[j] = diffErr(err)
		}
		diffs.compare(u, got)
	}
	diffs.done("1,500")
}

// TestDifferentialUpdates compares 1,500 random update expressions
// (SET with if_not_exists, list_append, + and -; REMOVE; ADD; DELETE;
// paths into maps, lists and past a list's end) on a fresh copy of one
// item: the old and new item when both succeed, and that both fail
// otherwise. (Which error an update reports, TestDifferentialMalformedUpdates
// compares.)
func TestDifferentialUpdates(t *testing.T) {
	targets := diffTargets(t, "", nil)
	base := I{"n": N("5"), "s": S("hello"), "l": L(N("1"), M(I{"x": S("in")})), "m": M(I{"a": N("1"), "l": L(S("q"))}),
		"ss": SS("x"), "ns": NS("1", "2"), "b": BOOL(false), "nul": NULL()}
	paths := []string{"n", "s", "l", "m", "ss", "ns", "m.a", "m.b", "l[0]", "l[1]", "l[2]", "l[5]", "l[7]", "m.l[0]", "m.l[1]", "m.l[4]", "l[1].x", "m.a.b", "b", "nul", "xx"}
	vals := []string{":n", ":s", ":l", ":ss", ":ns", ":m", ":b", ":el", ":big"}
	r := rand.New(rand.NewSource(diffSeed(2)))
	var operand func(depth int) string
	operand = func(depth int) string {
		switch k := r.Intn(10); {
		case k < 4:
			return vals[r.Intn(len(vals))]
		case k < 7:
			return paths[r.Intn(len(paths))]
		case k < 8 && depth < 2:
			return "list_append(" + operand(depth+1) + ", " + operand(depth+1) + ")"
		case k < 9 && depth < 2:
			return "if_not_exists(" + paths[r.Intn(len(paths))] + ", " + operand(depth+1) + ")"
		default:
			if depth < 2 {
				return operand(2) + " " + []string{"+", "-"}[r.Intn(2)] + " " + operand(2)
			}
			return ":n"
		}
	}
	update := func() string {
		var clauses []string
		used := map[string]bool{}
		pick := func() string {
			for range 10 {
				p := paths[r.Intn(len(paths))]
				top := strings.FieldsFunc(p, func(c rune) bool { return c == '.' || c == '[' })[0]
				if !used[top] {
					used[top] = true
					return p
				}
			}
			return ""
		}
		for _, kw := range []string{"SET", "REMOVE", "ADD", "DELETE"} {
			if r.Intn(3) != 0 {
				continue
			}
			var acts []string
			for range 1 + r.Intn(2) {
				p := pick()
				if p == "" {
					continue
				}
				switch kw {
				case "SET":
					acts = append(acts, p+" = "+operand(0))
				case "REMOVE":
					acts = append(acts, p)
				default:
					acts = append(acts, p+" "+[]string{":n", ":ss", ":ns", ":s", ":l"}[r.Intn(5)])
				}
			}
			if len(acts) > 0 {
				clauses = append(clauses, kw+" "+strings.Join(acts, ", "))
			}
		}
		if len(clauses) == 0 {
			return "SET n = :n"
		}
		return strings.Join(clauses, " ")
	}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "update"}
	for i := 0; i < 1500; i++ {
		expr := update()
		rv := []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueAllOld}[r.Intn(2)]
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
			out, err := d.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.table), Key: key, UpdateExpression: aws.String(expr),
				ExpressionAttributeValues: usedValues(expr, diffValues), ReturnValues: rv})
			if err != nil {
				got[j] = "error"
				continue
			}
			g, err := d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(d.table), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatalf("%s: GetItem: %v", d.name, err)
			}
			got[j] = itemText(out.Attributes) + " => " + itemText(g.Item)
		}
		diffs.compare(fmt.Sprintf("%s (%s)", expr, rv), got)
	}
	diffs.done("1,500")
}

// TestDifferentialQueries compares 300 random key conditions per sort
// key type (S, N, B), forward and backward, with and without a Limit,
// page by page.
func TestDifferentialQueries(t *testing.T) {
	for _, typ := range []types.ScalarAttributeType{"S", "N", "B"} {
		t.Run(string(typ), func(t *testing.T) {
			keys := []string{"a", "ab", "abc", "b", "B", "ä", "a#1", "a#10", "a#2", "z"}
			if typ == "N" {
				keys = []string{"-1", "0", "1", "10", "2", "1.5", "-0.5", "100", "99.99", "3"}
			}
			value := func(s string) types.AttributeValue {
				switch typ {
				case "N":
					return N(s)
				case "B":
					return B([]byte(s)...)
				}
				return S(s)
			}
			var items []I
			for _, k := range keys {
				items = append(items, I{"pk": S("p"), "sk": value(k)})
			}
			targets := diffTargets(t, typ, items)
			conds := []string{"sk = :a", "sk < :a", "sk <= :a", "sk > :a", "sk >= :a", "sk BETWEEN :a AND :b", "begins_with(sk, :a)"}
			r := rand.New(rand.NewSource(diffSeed(3)))
			ctx := context.Background()
			for i := 0; i < 300; i++ {
				kc := "pk = :p AND " + conds[r.Intn(len(conds))]
				a, b := keys[r.Intn(len(keys))], keys[r.Intn(len(keys))]
				vals := map[string]types.AttributeValue{":p": S("p"), ":a": value(a)}
				if strings.Contains(kc, ":b") {
					vals[":b"] = value(b)
				}
				forward := r.Intn(2) == 0
				var limit *int32
				if r.Intn(2) == 0 {
					limit = aws.Int32(int32(1 + r.Intn(4)))
				}
				var got [2]string
				for j, d := range targets {
					in := &dynamodb.QueryInput{TableName: aws.String(d.table), KeyConditionExpression: aws.String(kc), ExpressionAttributeValues: vals,
						ScanIndexForward: aws.Bool(forward), Limit: limit}
					var pages strings.Builder
					for range 30 {
						out, err := d.c.Query(ctx, in)
						if err != nil {
							pages.WriteString(diffErr(err))
							break
						}
						for _, it := range out.Items {
							pages.WriteString(valueText(it["sk"]) + " ")
						}
						pages.WriteString("|")
						if out.LastEvaluatedKey == nil {
							break
						}
						in.ExclusiveStartKey = out.LastEvaluatedKey
					}
					got[j] = pages.String()
				}
				if got[0] != got[1] {
					t.Errorf("query %s a=%q b=%q forward=%v limit=%d:\n  engine:         %s\n  DynamoDB Local: %s", kc, a, b, forward, aws.ToInt32(limit), got[0], got[1])
				}
			}
		})
	}
}
