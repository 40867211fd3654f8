package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// TestDifferentialPartiQL sends 600 random PartiQL statements, from a
// fixed seed, through ExecuteStatement to the engine and to DynamoDB
// Local, on a table (pk, sk) with a global index byG (g, sk; ALL) and a
// local one byL (pk, l; KEYS_ONLY or INCLUDE n, s) holding 60 random
// items of every type. Two thirds are SELECTs (of the table or an index;
// *, top-level names, nested paths and list elements; WHERE of random
// comparisons, BETWEEN, IN, functions, IS [NOT] MISSING and NULL, with
// literals of the right or wrong type or ? parameters; with the
// partition key's equality or IN, a sort key condition and ORDER BY, so
// that they run as a Query, or without, so that they scan; with a Limit,
// paged with NextToken to the end), a third writes (UPDATE with SET and
// REMOVE, DELETE, INSERT of new and existing keys, with extra conditions
// and RETURNING), and about 15% are invalid on purpose (an unknown
// function, a parameter missing, a key value of the wrong type, an
// UPDATE or DELETE without the full key, syntax errors, clauses PartiQL
// does not take). Compared are the items (in order for a Query-like
// SELECT, page by page with NextToken's presence; sorted for one that
// scans, whose order is the implementation's, with the page count), or
// the error (its code; with the message where both are
// ValidationExceptions; with the item a failed condition returns), the
// item each write names after it, and the whole tables at the end.
//
// PARTIQL.md records DynamoDB Local's answers; the forms it
// gets wrong (there, and its InternalFailures listed in
// PARTIQL.md) are not sent (see selectStatement and
// pqdGen.noExist), and its differences from DynamoDB that the engine
// follows AWS in are normalized (see pqdErrText and pqdItemText).
func TestDifferentialPartiQL(t *testing.T) {
	start := time.Now()
	r := rand.New(rand.NewSource(diffSeed(97)))
	g := &pqdGen{r: r}
	lsiProj := &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	if r.Intn(2) == 0 {
		lsiProj = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"n", "s"}}
	}
	in := &dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("sk"), AttributeType: "S"},
			{AttributeName: aws.String("g"), AttributeType: "S"}, {AttributeName: aws.String("l"), AttributeType: "S"}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: lsiProj}},
	}
	items := g.items(60)
	targets := diffTargetsOf(t, in, items)
	t.Logf("seed %d; LSI projection %s %v; %d items", diffSeed(97), lsiProj.ProjectionType, lsiProj.NonKeyAttributes, len(items))

	ctx := context.Background()
	var findings []string
	outcomes := map[string]int{} // kind of statement / DynamoDB Local's outcome, for the log
	const total = 600
	for i := range total {
		s := g.statement()
		var got [2]pqdOutcome
		for j, d := range targets {
			got[j] = pqdRun(ctx, d, s)
		}
		// DynamoDB Local is targets[1].
		outcomes[s.kind+" "+got[1].kind()]++
		switch {
		case got[1].Err == "InternalFailure":
			// A crash of DynamoDB Local's (PARTIQL.md lists those the
			// generator avoids; this is one it does not know yet).
			continue
		case got[0].Err == "" && got[1].Err == "" && cmp.Equal(got[0].Items, got[1].Items) && len(got[1].Pages) > len(got[0].Pages):
			// The same items in more pages: DynamoDB Local's PartiQL ends
			// a page with a NextToken whenever Limit items were read, and
			// reads the whole table when a key attribute is in two
			// conditions (PARTIQL.md, "Limit and paging"); the engine's
			// Query ends a page at the key condition's inclusive bound, as
			// its Query does.
			continue
		}
		if diff := cmp.Diff(got[1], got[0]); diff != "" {
			findings = append(findings, fmt.Sprintf("statement %d (%s): %s\n  parameters: %s%s\n  DynamoDB Local: %s\n  engine:         %s\n  diff (-Local +engine):\n%s",
				i, s.kind, s.text, pqdParams(s.params), s.extras(), got[1], got[0], diff))
		}
		if s.key == nil {
			continue
		}
		// The item a write names, after it (then the engine's copy is set
		// to DynamoDB Local's, so that one difference is reported once).
		var after [2]I
		for j, d := range targets {
			out, err := d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(d.table), Key: s.key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatalf("%s: GetItem: %v", d.name, err)
			}
			after[j] = out.Item
		}
		if pqdItemText(after[0]) != pqdItemText(after[1]) {
			findings = append(findings, fmt.Sprintf("statement %d (%s): %s\n  parameters: %s\n  item afterwards:\n  DynamoDB Local: %s\n  engine:         %s",
				i, s.kind, s.text, pqdParams(s.params), pqdItemText(after[1]), pqdItemText(after[0])))
			e := targets[0]
			var err error
			if after[1] == nil {
				_, err = e.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(e.table), Key: s.key})
			} else {
				_, err = e.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: after[1]})
			}
			if err != nil {
				t.Fatalf("engine: resync: %v", err)
			}
		}
		if after[1] != nil {
			g.addKey(s.key)
		}
	}
	if rows := [2]string{targets[0].rowsAs(ctx, t, pqdItemText), targets[1].rowsAs(ctx, t, pqdItemText)}; rows[0] != rows[1] {
		findings = append(findings, fmt.Sprintf("the tables at the end differ:\n%s", cmp.Diff(strings.Split(rows[1], " "), strings.Split(rows[0], " "))))
	}
	var kinds []string
	for k, n := range outcomes {
		kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("%d statements in %v (DynamoDB Local's outcomes):\n  %s", total, time.Since(start).Round(time.Millisecond), strings.Join(kinds, "\n  "))
	for _, f := range findings {
		t.Errorf("%s", f)
	}
	if len(findings) > 0 {
		t.Errorf("%d of %d statements differ (seed %d)", len(findings), total, diffSeed(97))
	}
}

// pqdStatement is one random statement: its text, with {T} for the table
// name, and what it is sent with.
type pqdStatement struct {
	kind    string // "select-query", "select-scan", "update", "delete", "insert", "invalid-..."
	text    string
	params  []types.AttributeValue
	limit   *int32
	onFail  types.ReturnValuesOnConditionCheckFailure
	ordered bool // a Query-like SELECT: its items are compared in order
	// ties, for a Query-like SELECT of an index, are its key attributes:
	// items with the same index key come in the implementation's order.
	ties []string
	key  I // the item a write names (nil for reads and writes without a key)
}

func (s *pqdStatement) extras() string {
	var b strings.Builder
	if s.limit != nil {
		fmt.Fprintf(&b, "; Limit %d", *s.limit)
	}
	if s.onFail != "" {
		fmt.Fprintf(&b, "; ReturnValuesOnConditionCheckFailure %s", s.onFail)
	}
	return b.String()
}

func pqdParams(ps []types.AttributeValue) string {
	if len(ps) == 0 {
		return "none"
	}
	var out []string
	for _, p := range ps {
		out = append(out, valueText(p))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// pqdOutcome is what a statement answered: the error, or the items
// (every page's, concatenated) with the pages.
type pqdOutcome struct {
	Err   string
	Items []string
	// Pages lists, per page, its number of items (of a Query-like
	// SELECT only: where a scan's pages split is the implementation's)
	// and whether it came with a NextToken.
	Pages []string
}

func (o pqdOutcome) kind() string {
	if o.Err != "" {
		return strings.TrimSuffix(strings.Fields(o.Err)[0], ":")
	}
	return "ok"
}

func (o pqdOutcome) String() string {
	if o.Err != "" {
		return o.Err
	}
	return fmt.Sprintf("%d items %v pages %v", len(o.Items), o.Items, o.Pages)
}

// pqdRun runs s on d, paging with NextToken to the end.
func pqdRun(ctx context.Context, d diffTarget, s *pqdStatement) pqdOutcome {
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(strings.ReplaceAll(s.text, "{T}", d.table)), Parameters: s.params,
		Limit: s.limit, ReturnValuesOnConditionCheckFailure: s.onFail}
	var o pqdOutcome
	var items []I
	for range 100 {
		// (No ReturnConsumedCapacity: DynamoDB Local returns none, see
		// PARTIQL.md "ReturnConsumedCapacity".)
		// (call turns a panic of the engine into an error.)
		res, err := call(ctx, d.c, in)
		if err != nil {
			return pqdOutcome{Err: pqdErrText(err, d.table)}
		}
		out := res.(*dynamodb.ExecuteStatementOutput)
		items = append(items, out.Items...)
		// NextToken's presence only: its contents are each
		// implementation's; LastEvaluatedKey is not compared (the engine
		// returns it, DynamoDB Local does not, PARTIQL.md
		// "Output shape").
		page := "end"
		if out.NextToken != nil {
			page = "token"
		}
		if s.ordered && s.ties == nil {
			page = fmt.Sprintf("%d+%s", len(out.Items), page)
		}
		o.Pages = append(o.Pages, page)
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	for _, it := range items {
		o.Items = append(o.Items, pqdItemText(it))
	}
	switch {
	case !s.ordered:
		// A SELECT that scans returns the items in the implementation's
		// order (PARTIQL.md "Full scan order").
		sort.Strings(o.Items)
	case s.ties != nil:
		// Items with the same key in an index (a GSI's g and sk, an
		// LSI's pk and l) come in the implementation's order, as in a
		// Query: those runs are sorted (the whole list when the
		// projection leaves out a key attribute), and which page an
		// item falls on is not compared.
		run := 0
		for i := 1; i <= len(items); i++ {
			if i < len(items) && pqdTieKey(items[i], s.ties) != "" && pqdTieKey(items[i], s.ties) == pqdTieKey(items[run], s.ties) {
				continue
			}
			if pqdTieKey(items[run], s.ties) == "" {
				sort.Strings(o.Items)
				break
			}
			sort.Strings(o.Items[run:i])
			run = i
		}
	}
	return o
}

// pqdTieKey is the values of an item's attributes keys, "" when one is
// missing.
func pqdTieKey(it I, keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		v, ok := it[k]
		if !ok {
			return ""
		}
		b.WriteString(valueText(v) + "|")
	}
	return b.String()
}

// pqdItemText is itemText with numbers by value: DynamoDB Local keeps a
// number's text as written or computed ("10.0"), where DynamoDB returns
// its canonical text, as the engine does (as in TestDifferentialArithmetic
// and the stream tests).
func pqdItemText(it I) string {
	if it == nil {
		return itemText(nil)
	}
	return itemText(pqdCanon(M(it)).(*types.AttributeValueMemberM).Value)
}

func pqdCanon(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		return N(canonNum(v.Value))
	case *types.AttributeValueMemberNS:
		ns := make([]string, len(v.Value))
		for i, x := range v.Value {
			ns[i] = canonNum(x)
		}
		return NS(ns...)
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, x := range v.Value {
			l[i] = pqdCanon(x)
		}
		return L(l...)
	case *types.AttributeValueMemberM:
		m := make(I, len(v.Value))
		for k, x := range v.Value {
			m[k] = pqdCanon(x)
		}
		return M(m)
	}
	return v
}

// pqdErrText renders an error: its code, its message where it is a
// ValidationException (the table's name as T), and the item a failed
// condition returns.
func pqdErrText(err error, table string) string {
	info := normErr(err, true, newNameMap())
	code := info.Code
	if code == "DuplicateItem" {
		// DynamoDB Local's code for an INSERT of an existing key; the
		// engine answers AWS's DuplicateItemException, as the API
		// reference of ExecuteStatement lists it (PARTIQL.md
		// "INSERT" and "Go SDK view").
		code = "DuplicateItemException"
	}
	text := code
	if code == "ValidationException" {
		msg := strings.ReplaceAll(info.Message, table, "T")
		// Of overlapping paths, which two the message names is not
		// settled (DynamoDB Local names other pairs than the engine, as
		// TestDifferentialProjections found; here even a path that
		// overlaps none): the kind of error is compared.
		msg, _, _ = strings.Cut(msg, "; path one:")
		text += ": " + msg
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && len(ccf.Item) > 0 {
		text += " item " + pqdItemText(ccf.Item)
	}
	return text
}

// pqdGen makes random items and statements.
type pqdGen struct {
	r *rand.Rand
	// noExist are the attributes a SELECT's conditions do not test for
	// existence: its source's key attributes and the table's, on which
	// DynamoDB Local fails with an InternalFailure
	// (PARTIQL.md).
	noExist map[string]bool
	keys    []I // keys known to have been in the table
	params  []types.AttributeValue
}

func (g *pqdGen) chance(p float64) bool  { return g.r.Float64() < p }
func (g *pqdGen) pick(l []string) string { return l[g.r.Intn(len(l))] }

var (
	pqdNumbers    = []string{"-5", "-1", "0", "1", "2", "2.5", "3", "7", "10", "12", "19", "100", "0.5"}
	pqdNumberLits = []string{"-5", "-1", "0", "1", "2", "2.5", "2.50", "3", "7", "10", "10.0", "1e1", "12", "19", "100", "0.5", "-0.5", "1000"}
	pqdWords      = []string{"apple", "apricot", "banana", "cherry", "ab", "a", "", "it's", "Zed", "g1", "hello", "x", "y"}
	pqdSetWords   = []string{"apple", "ab", "x", "y", "z", "q", "hello"}
)

func (g *pqdGen) addKey(k I) {
	for _, o := range g.keys {
		if itemText(o) == itemText(k) {
			return
		}
	}
	g.keys = append(g.keys, k)
}

// items returns n items over the partitions p0..p5.
func (g *pqdGen) items(n int) []I {
	var out []I
	seen := map[string]bool{}
	for len(out) < n {
		p, sk := fmt.Sprint("p", g.r.Intn(6)), fmt.Sprintf("s%02d", g.r.Intn(30))
		if seen[p+"/"+sk] {
			continue
		}
		seen[p+"/"+sk] = true
		it := I{"pk": S(p), "sk": S(sk)}
		if g.chance(0.8) {
			it["g"] = S(fmt.Sprint("g", g.r.Intn(4)))
		}
		if g.chance(0.7) {
			it["l"] = S(fmt.Sprint("l", g.r.Intn(10)))
		}
		if g.chance(0.85) {
			it["n"] = N(g.pick(pqdNumbers))
		}
		if g.chance(0.8) {
			it["s"] = S(g.pick(pqdWords))
		}
		if g.chance(0.7) {
			m := I{"b": N(g.pick(pqdNumbers))}
			if g.chance(0.8) {
				m["c"] = L(N(g.pick(pqdNumbers)), N(g.pick(pqdNumbers)), S(g.pick(pqdWords)))
			}
			if g.chance(0.5) {
				m["d"] = S(g.pick(pqdWords))
			}
			it["a"] = M(m)
		}
		if g.chance(0.5) {
			it["ss"] = SS(g.distinct(pqdSetWords)...)
		}
		if g.chance(0.4) {
			it["ns"] = NS(g.distinct(pqdNumbers)...)
		}
		if g.chance(0.5) {
			it["b"] = BOOL(g.chance(0.5))
		}
		if g.chance(0.3) {
			it["z"] = NULL()
		}
		if g.chance(0.15) {
			it["bin"] = B(byte('a'+g.r.Intn(3)), 'x')
		}
		out = append(out, it)
		g.keys = append(g.keys, I{"pk": S(p), "sk": S(sk)})
	}
	return out
}

// distinct returns one to three distinct members of l.
func (g *pqdGen) distinct(l []string) []string {
	var out []string
	seen := map[string]bool{}
	for range 1 + g.r.Intn(3) {
		w := g.pick(l)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// param records v as a parameter and returns its marker (finish turns
// the markers into ? with the parameters in the statement's order).
func (g *pqdGen) param(v types.AttributeValue) string {
	g.params = append(g.params, v)
	return fmt.Sprintf("?{%d}", len(g.params)-1)
}

var pqdKeyIn = regexp.MustCompile(`\b(pk|sk|g|l) IN [\[(]`)

var pqdMarker = regexp.MustCompile(`\?\{(\d+)\}`)

// finish makes a statement of text with markers.
func (g *pqdGen) finish(kind, text string) *pqdStatement {
	s := &pqdStatement{kind: kind}
	s.text = pqdMarker.ReplaceAllStringFunc(text, func(m string) string {
		i, _ := strconv.Atoi(pqdMarker.FindStringSubmatch(m)[1])
		s.params = append(s.params, g.params[i])
		return "?"
	})
	g.params = nil
	return s
}

func pqdQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// literal returns a value of type typ as a literal, or (sometimes) as a
// parameter.
func (g *pqdGen) literal(typ string) string {
	var text string
	var av types.AttributeValue
	switch typ {
	case "N":
		text = g.pick(pqdNumberLits)
		av = N(text)
	case "S":
		w := g.pick(pqdWords)
		text, av = pqdQuote(w), S(w)
	case "BOOL":
		b := g.chance(0.5)
		text, av = strconv.FormatBool(b), BOOL(b)
	case "NULL":
		text, av = "NULL", NULL()
	case "SS":
		ws := g.distinct(pqdSetWords)
		var q []string
		for _, w := range ws {
			q = append(q, pqdQuote(w))
		}
		text, av = "<<"+strings.Join(q, ", ")+">>", SS(ws...)
	case "NS":
		ns := g.distinct(pqdNumbers)
		text, av = "<<"+strings.Join(ns, ", ")+">>", NS(ns...)
	case "L":
		a, w := g.pick(pqdNumbers), g.pick(pqdWords)
		text, av = "["+a+", "+pqdQuote(w)+"]", L(N(a), S(w))
	case "M":
		a := g.pick(pqdNumbers)
		text, av = "{'b': "+a+"}", M(I{"b": N(a)})
	case "B":
		return g.param(B('a', 'x'))
	}
	if g.chance(0.15) {
		return g.param(av)
	}
	return text
}

var pqdTypes = []string{"N", "S", "BOOL", "NULL", "SS", "NS", "L", "M", "B"}

// pqdPaths are the paths conditions name, with their usual type.
var pqdPaths = []struct{ path, typ string }{
	{"n", "N"}, {"n", "N"}, {"s", "S"}, {"s", "S"}, {"a.b", "N"}, {"a.c[0]", "N"}, {"a.c[1]", "N"}, {"a.c[2]", "S"}, {"a.d", "S"},
	{"b", "BOOL"}, {"z", "NULL"}, {"ss", "SS"}, {"ns", "NS"}, {"sk", "S"}, {"l", "S"}, {"g", "S"}, {"nope", "N"}, {"a", "M"},
	{"a.c", "L"}, {`"n"`, "N"}, {"bin", "B"}, {"a.c[7]", "N"},
}

var pqdCmpOps = []string{"=", "<>", "<", "<=", ">", ">="}

// typedLiteral is a literal of typ, or (a fifth of the time) of another
// type.
func (g *pqdGen) typedLiteral(typ string) string {
	if g.chance(0.2) {
		typ = g.pick(pqdTypes)
	}
	return g.literal(typ)
}

// cond returns a random condition.
func (g *pqdGen) cond(depth int) string {
	k := g.r.Intn(17)
	if depth > 1 {
		k = g.r.Intn(13)
	}
	p := pqdPaths[g.r.Intn(len(pqdPaths))]
	switch k {
	case 0, 1, 2, 3:
		if g.chance(0.1) {
			q := pqdPaths[g.r.Intn(len(pqdPaths))]
			return p.path + " " + g.pick(pqdCmpOps) + " " + q.path
		}
		return p.path + " " + g.pick(pqdCmpOps) + " " + g.typedLiteral(p.typ)
	case 4:
		return p.path + " BETWEEN " + g.typedLiteral(p.typ) + " AND " + g.typedLiteral(p.typ)
	case 5:
		var l []string
		for range 1 + g.r.Intn(3) {
			l = append(l, g.typedLiteral(p.typ))
		}
		if g.chance(0.2) {
			return p.path + " IN (" + strings.Join(l, ", ") + ")"
		}
		return p.path + " IN [" + strings.Join(l, ", ") + "]"
	case 6:
		return "begins_with(" + p.path + ", " + g.typedLiteral("S") + ")"
	case 7:
		switch p.typ {
		case "SS", "S":
			return "contains(" + p.path + ", " + g.typedLiteral("S") + ")"
		case "NS", "L":
			return "contains(" + p.path + ", " + g.typedLiteral("N") + ")"
		}
		return "contains(" + p.path + ", " + g.typedLiteral("S") + ")"
	case 8:
		names := append([]string{"S", "N", "M", "L", "SS", "NS", "BOOL", "NULL", "B", "BS"}, p.typ, p.typ)
		return "attribute_type(" + p.path + ", " + pqdQuote(g.pick(names)) + ")"
	case 9:
		return "size(" + p.path + ") " + g.pick(pqdCmpOps) + " " + g.typedLiteral("N")
	case 10:
		if g.noExist[p.path] {
			return p.path + " = " + g.typedLiteral(p.typ)
		}
		return p.path + " IS " + g.pick([]string{"", "NOT "}) + "MISSING"
	case 11:
		return p.path + " IS " + g.pick([]string{"", "NOT "}) + "NULL"
	case 12:
		if g.noExist[p.path] {
			return p.path + " <> " + g.typedLiteral(p.typ)
		}
		return g.pick([]string{"attribute_exists(", "attribute_not_exists("}) + p.path + ")"
	case 13, 14:
		return "NOT (" + g.cond(depth+1) + ")"
	}
	return "(" + g.cond(depth+1) + " " + g.pick([]string{"AND", "OR"}) + " " + g.cond(depth+1) + ")"
}

// paren wraps a condition that is not one term in parentheses.
func pqdParen(c string) string {
	if strings.Contains(c, " AND ") || strings.Contains(c, " OR ") || strings.HasPrefix(c, "NOT ") {
		if !strings.HasPrefix(c, "(") || !strings.HasSuffix(c, ")") || strings.HasPrefix(c, "NOT ") {
			return "(" + c + ")"
		}
	}
	return c
}

// statement returns a random statement: a SELECT two thirds of the time
// (some invalid), else a write.
func (g *pqdGen) statement() *pqdStatement {
	if g.chance(0.15) {
		return g.invalid()
	}
	var s *pqdStatement
	switch k := g.r.Intn(30); {
	case k < 20:
		s = g.selectStatement()
	case k < 25:
		s = g.update()
	case k < 27:
		s = g.deleteStatement()
	default:
		s = g.insert()
	}
	if s.kind != "select-query" && s.kind != "select-scan" && g.chance(0.15) {
		s.onFail = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	if g.chance(0.03) {
		// Parameters past those the statement takes: DynamoDB Local
		// ignores them (PARTIQL.md "Parameters").
		s.params = append(s.params, S("extra"))
	}
	return s
}

// source is what a SELECT reads: the table or an index, with its keys.
type pqdSource struct {
	from, hash, rng string
	hashVals        []string
	index           string
}

func (g *pqdGen) source() pqdSource {
	switch g.r.Intn(4) {
	case 0:
		return pqdSource{`"{T}"."byG"`, "g", "sk", []string{"g0", "g1", "g2", "g3", "g9"}, "byG"}
	case 1:
		return pqdSource{`"{T}"."byL"`, "pk", "l", []string{"p0", "p1", "p2", "p3", "p4", "p5", "p9"}, "byL"}
	}
	return pqdSource{`"{T}"`, "pk", "sk", []string{"p0", "p1", "p2", "p3", "p4", "p5", "p9"}, ""}
}

// rangeValue is a value of the sort key rng.
func (g *pqdGen) rangeValue(rng string) string {
	if rng == "l" {
		return fmt.Sprint("l", g.r.Intn(10))
	}
	return fmt.Sprintf("s%02d", g.r.Intn(32))
}

// rangeCond is a condition on the sort key rng that a Query takes.
func (g *pqdGen) rangeCond(rng string) string {
	v := func() string {
		if g.chance(0.15) {
			return g.param(S(g.rangeValue(rng)))
		}
		return pqdQuote(g.rangeValue(rng))
	}
	switch g.r.Intn(9) {
	case 0, 1, 2, 3, 4:
		return rng + " " + g.pick([]string{"=", "<", "<=", ">", ">="}) + " " + v()
	case 5, 6:
		return rng + " BETWEEN " + v() + " AND " + v()
	case 7:
		return "begins_with(" + rng + ", " + pqdQuote(g.rangeValue(rng)[:2]) + ")"
	}
	return rng + " IN [" + v() + ", " + v() + "]"
}

// projection is a SELECT's projection list, and whether it has every
// attribute of keys.
func (g *pqdGen) projection(keys ...string) (string, bool) {
	if g.chance(0.4) {
		return "*", true
	}
	all := []string{"pk", "sk", "g", "l", "n", "s", "a", "a.b", "a.c[1]", "a.c[0]", "a.d", "ss", "ns", "b", "z", "nope", `"n"`, "bin", "a.c"}
	var out []string
	seen := map[string]bool{}
	for range 1 + g.r.Intn(4) {
		p := g.pick(all)
		name := strings.Trim(p, `"`)
		if !seen[name] {
			seen[name] = true
			out = append(out, p)
		}
	}
	if g.chance(0.5) {
		// Mostly with the keys.
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out = append([]string{k}, out...)
			}
		}
	}
	hasKeys := true
	for _, k := range keys {
		hasKeys = hasKeys && seen[k]
	}
	return strings.Join(out, ", "), hasKeys
}

func (g *pqdGen) selectStatement() *pqdStatement {
	src := g.source()
	keys := []string{"pk", "sk"}
	if src.hash == "g" {
		keys = append(keys, "g")
	}
	proj, hasKeys := g.projection(keys...)
	g.noExist = map[string]bool{"pk": true, "sk": true, src.hash: true, src.rng: true}
	defer func() { g.noExist = nil }()
	text := "SELECT " + proj + " FROM " + src.from
	hashVal := func() string {
		v := g.pick(src.hashVals)
		if g.chance(0.2) {
			return g.param(S(v))
		}
		return pqdQuote(v)
	}
	var limit *int32
	kind, unordered := "select-scan", false
	switch k := g.r.Intn(20); {
	case k < 9: // a Query: the partition key's equality
		kind = "select-query"
		terms := []string{src.hash + " = " + hashVal()}
		if g.chance(0.6) {
			terms = append(terms, g.rangeCond(src.rng))
		}
		if g.chance(0.6) {
			terms = append(terms, pqdParen(g.cond(0)))
		}
		if g.chance(0.3) {
			g.r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
		}
		text += " WHERE " + strings.Join(terms, " AND ")
		// Not with a NOT (or IS NOT) in the WHERE: DynamoDB Local fails
		// with an InternalFailure then (PARTIQL.md).
		if g.chance(0.35) && !strings.Contains(text, "NOT ") {
			desc := false
			if g.chance(0.4) {
				// Not the forms DynamoDB Local gets wrong
				// (PARTIQL.md "ORDER BY" and "ORDER BY DESC
				// with Limit"): a projection without a key attribute,
				// an LSI, with a Limit (set below only when !desc).
				desc = hasKeys && src.index != "byL"
			}
			switch {
			case desc:
				text += " ORDER BY " + src.rng + " DESC"
			case g.chance(0.2):
				text += " ORDER BY " + src.hash
			case g.chance(0.2) && src.index == "":
				text += " ORDER BY pk, sk"
			default:
				text += " ORDER BY " + src.rng + g.pick([]string{"", " ASC"})
			}
			if !desc && g.chance(0.3) {
				limit = aws.Int32(int32(1 + g.r.Intn(5)))
			}
		} else if g.chance(0.3) {
			limit = aws.Int32(int32(1 + g.r.Intn(5)))
		}
	case k < 11: // a Query of several partitions (no Limit: DynamoDB Local's paging of IN is broken)
		kind = "select-query"
		l := []string{hashVal(), hashVal()}
		if g.chance(0.5) {
			l = append(l, hashVal())
		}
		terms := []string{src.hash + " IN [" + strings.Join(l, ", ") + "]"}
		if g.chance(0.4) {
			terms = append(terms, g.rangeCond(src.rng))
		}
		if g.chance(0.5) {
			terms = append(terms, pqdParen(g.cond(0)))
		}
		text += " WHERE " + strings.Join(terms, " AND ")
		// With another condition DynamoDB Local runs an IN of the
		// partition key as a filtered scan: the items come in its scan
		// order (and once each, which is compared;
		// PARTIQL.md).
		unordered = len(terms) > 1
	case k < 18: // a scan with a filter
		text += " WHERE " + g.cond(0)
		if g.chance(0.3) {
			limit = aws.Int32(int32(4 + g.r.Intn(20)))
		}
	default: // a scan
		if g.chance(0.3) {
			limit = aws.Int32(int32(4 + g.r.Intn(20)))
		}
	}
	if pqdKeyIn.MatchString(text) {
		// DynamoDB Local runs an IN of a key attribute as a filtered
		// scan of the whole table, so its Limit counts every item
		// (PARTIQL.md): no Limit then.
		limit = nil
	}
	s := g.finish(kind, text)
	s.ordered, s.limit = kind == "select-query" && !unordered, limit
	if s.ordered && src.index != "" {
		s.ties = []string{src.hash, src.rng}
	}
	return s
}

// key returns the key of a known item, or (sometimes) of none.
func (g *pqdGen) key() I {
	if g.chance(0.85) {
		return g.keys[g.r.Intn(len(g.keys))]
	}
	return I{"pk": S(fmt.Sprint("p", g.r.Intn(7))), "sk": S(fmt.Sprintf("s%02d", 30+g.r.Intn(5)))}
}

// keyWhere is a WHERE on the full key k.
func (g *pqdGen) keyWhere(k I) string {
	val := func(a string) string {
		v := k[a].(*types.AttributeValueMemberS).Value
		if g.chance(0.15) {
			return g.param(S(v))
		}
		return pqdQuote(v)
	}
	terms := []string{"pk = " + val("pk"), "sk = " + val("sk")}
	if g.chance(0.3) {
		terms = append(terms, pqdParen(g.cond(1)))
	}
	if g.chance(0.3) {
		g.r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
	}
	return " WHERE " + strings.Join(terms, " AND ")
}

// setAction is one SET of an UPDATE, on a top-level attribute not yet
// in used.
func (g *pqdGen) setAction(used map[string]bool) string {
	type act struct{ top, text string }
	acts := []act{
		{"n", "n = " + g.literal("N")}, {"n", "n = n + " + g.literal("N")}, {"n", "n = n - 2"}, {"n", "n = 3 + n"},
		{"s", "s = " + g.literal("S")}, {"a", "a.b = " + g.literal("N")}, {"a", "a.c[1] = " + g.literal("S")},
		{"a", "a.c = list_append(a.c, [1, 'x'])"}, {"a", "a.c = list_append([0], a.c)"}, {"a", "a.d = s"},
		{"ss", "ss = set_add(ss, <<'q', 'x'>>)"}, {"ss", "ss = set_delete(ss, <<'x', 'apple'>>)"},
		{"ns", "ns = set_add(ns, <<7, 1>>)"}, {"ns", "ns = set_delete(ns, <<1>>)"},
		{"b", "b = " + g.literal("BOOL")}, {"z", "z = NULL"}, {"w", "w = {'k': [1, 'v'], 'e': <<'a'>>}"},
		{"g", "g = " + pqdQuote(fmt.Sprint("g", g.r.Intn(4)))}, {"l", "l = " + pqdQuote(fmt.Sprint("l", g.r.Intn(10)))},
		{"v", "v = " + g.typedLiteral("S")}, {"a", "a = {'b': 1, 'c': [1, 2, 'x']}"}, {"ss", "ss = " + g.literal("SS")},
	}
	for range 10 {
		a := acts[g.r.Intn(len(acts))]
		if !used[a.top] {
			used[a.top] = true
			return a.text
		}
	}
	return ""
}

func (g *pqdGen) update() *pqdStatement {
	k := g.key()
	used := map[string]bool{}
	var clauses []string
	for range 1 + g.r.Intn(3) {
		if g.chance(0.7) {
			if a := g.setAction(used); a != "" {
				if len(clauses) > 0 && strings.HasPrefix(clauses[len(clauses)-1], "SET ") && g.chance(0.5) {
					clauses[len(clauses)-1] += ", " + a
				} else {
					clauses = append(clauses, "SET "+a)
				}
			}
			continue
		}
		for range 5 {
			p := g.pick([]string{"s", "a.b", "a.c[0]", "z", "g", "l", "ss", "v", "nope", "b"})
			top := strings.FieldsFunc(p, func(c rune) bool { return c == '.' || c == '[' })[0]
			if !used[top] {
				used[top] = true
				clauses = append(clauses, "REMOVE "+p)
				break
			}
		}
	}
	if len(clauses) == 0 {
		clauses = []string{"SET n = 1"}
	}
	text := `UPDATE "{T}" ` + strings.Join(clauses, " ") + g.keyWhere(k)
	if g.chance(0.4) {
		text += " RETURNING " + g.pick([]string{"ALL OLD", "ALL NEW", "MODIFIED OLD", "MODIFIED NEW"}) + " *"
	}
	s := g.finish("update", text)
	s.key = k
	return s
}

func (g *pqdGen) deleteStatement() *pqdStatement {
	k := g.key()
	text := `DELETE FROM "{T}"` + g.keyWhere(k)
	if g.chance(0.4) {
		text += " RETURNING ALL OLD *"
	}
	s := g.finish("delete", text)
	s.key = k
	return s
}

// insertItem is an INSERT's item literal with the key k.
func (g *pqdGen) insertItem(k I) string {
	fields := []string{"'pk': " + pqdQuote(k["pk"].(*types.AttributeValueMemberS).Value), "'sk': " + pqdQuote(k["sk"].(*types.AttributeValueMemberS).Value)}
	for _, a := range []struct{ name, typ string }{{"n", "N"}, {"s", "S"}, {"a", "M"}, {"ss", "SS"}, {"ns", "NS"}, {"b", "BOOL"}, {"z", "NULL"}, {"c", "L"}, {"bin", "B"}} {
		if g.chance(0.5) {
			fields = append(fields, pqdQuote(a.name)+": "+g.literal(a.typ))
		}
	}
	if g.chance(0.3) {
		fields = append(fields, "'g': "+pqdQuote(fmt.Sprint("g", g.r.Intn(4))))
	}
	if g.chance(0.3) {
		fields = append(fields, "'l': "+pqdQuote(fmt.Sprint("l", g.r.Intn(10))))
	}
	if g.chance(0.2) {
		fields = append(fields, "'m': {'x': [1, {'y': 'z'}], 'e': ''}")
	}
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ", ") + "}"
}

func (g *pqdGen) insert() *pqdStatement {
	k := g.keys[g.r.Intn(len(g.keys))]
	if g.chance(0.6) {
		k = I{"pk": S(fmt.Sprint("p", g.r.Intn(7))), "sk": S(fmt.Sprintf("s%02d", 30+g.r.Intn(40)))}
	}
	s := g.finish("insert", `INSERT INTO "{T}" VALUE `+g.insertItem(k))
	s.key = k
	return s
}

// invalid returns a statement that is wrong on purpose.
func (g *pqdGen) invalid() *pqdStatement {
	k := g.keys[g.r.Intn(len(g.keys))]
	pk, sk := pqdQuote(k["pk"].(*types.AttributeValueMemberS).Value), pqdQuote(k["sk"].(*types.AttributeValueMemberS).Value)
	var text string
	kind := "invalid"
	switch g.r.Intn(8) {
	case 0:
		kind += "-function"
		f := g.pick([]string{"foo(n)", "upper(s) = 'A'", "lower(s) = 'a'", "char_length(s) > 1", "exists(n)", "Size(s) > 1", "attribute_exists(n, s)", "size(s, n) > 1", "begins_with(s)"})
		switch g.r.Intn(3) {
		case 0:
			text = `SELECT * FROM "{T}" WHERE pk = ` + pk + " AND " + f
		case 1:
			text = `SELECT * FROM "{T}" WHERE ` + f
		default:
			text = `UPDATE "{T}" SET n = ` + g.pick([]string{"foo(n)", "upper(s)", "size(s)", "list_append(a.c)", "set_add(ss)"}) + " WHERE pk = " + pk + " AND sk = " + sk
		}
	case 1:
		kind += "-params"
		// A ? too few: the last parameter is dropped.
		var s *pqdStatement
		switch g.r.Intn(3) {
		case 0:
			s = g.finish(kind, `SELECT * FROM "{T}" WHERE pk = `+g.param(k["pk"])+" AND n > "+g.literal("N"))
		case 1:
			s = g.finish(kind, `UPDATE "{T}" SET n = `+g.param(N("4"))+" WHERE pk = "+g.param(k["pk"])+" AND sk = "+g.param(k["sk"]))
		default:
			s = g.finish(kind, `INSERT INTO "{T}" VALUE {'pk': `+g.param(S("p1"))+", 'sk': "+g.param(S("s99"))+"}")
		}
		s.params = s.params[:g.r.Intn(len(s.params))]
		return s
	case 2:
		kind += "-keytype"
		bad := g.pick([]string{"1", "true", "<<'a'>>", "NULL", "[1]"})
		if g.chance(0.3) {
			bad = g.param(N("1"))
		}
		// (Not in an IN of the partition key: DynamoDB Local fails with
		// an InternalFailure on any value of another type there,
		// PARTIQL.md.)
		switch g.r.Intn(6) {
		case 0:
			text = `SELECT * FROM "{T}" WHERE pk = ` + bad
		case 1:
			text = `SELECT * FROM "{T}" WHERE pk = ` + pk + " AND sk = " + bad
		case 2:
			text = `SELECT * FROM "{T}"."byG" WHERE g = ` + bad
		case 3:
			text = `UPDATE "{T}" SET n = 1 WHERE pk = ` + bad + " AND sk = " + sk
		case 4:
			text = `DELETE FROM "{T}" WHERE pk = ` + pk + " AND sk = " + bad
		default:
			text = `INSERT INTO "{T}" VALUE {'pk': ` + bad + ", 'sk': 's50'}"
		}
	case 3:
		kind += "-nokey"
		op := g.pick([]string{`UPDATE "{T}" SET n = 1`, `DELETE FROM "{T}"`})
		switch g.r.Intn(6) {
		case 0:
			text = op
		case 1:
			text = op + " WHERE pk = " + pk
		case 2:
			text = op + " WHERE sk = " + sk
		case 3:
			text = op + " WHERE pk = " + pk + " OR sk = " + sk
		case 4:
			text = op + " WHERE pk IN [" + pk + "] AND sk = " + sk
		default:
			text = op + " WHERE pk = " + pk + " AND n = 1"
		}
	case 4, 5:
		kind += "-syntax"
		var base *pqdStatement
		switch g.r.Intn(4) {
		case 0, 1:
			base = g.selectStatement()
		case 2:
			base = g.update()
		default:
			base = g.insert()
		}
		toks := strings.Fields(base.text)
		switch i := g.r.Intn(len(toks)); g.r.Intn(5) {
		case 0:
			toks = append(toks[:i], toks[i+1:]...)
		case 1:
			toks = append(toks[:i+1], toks[i:]...)
		case 2:
			extra := []string{"(", ")", ",", "AND", "=", "==", "'", "[", "]", ".", "1", "WHERE", "SELECT", "FROM", "!", ";"}
			toks = append(toks[:i], append([]string{g.pick(extra)}, toks[i:]...)...)
		case 3:
			toks[0] = g.pick([]string{"SELEC", "INSERTT", "UPDAT", "DELET", "select", "Update"})
		default:
			toks = toks[:i+1]
		}
		// (Compared sorted: without a token it may scan.)
		s := &pqdStatement{kind: kind, text: strings.Join(toks, " "), params: base.params, limit: base.limit}
		if base.kind == "update" || base.kind == "insert" {
			s.key = base.key
		}
		return s
	case 6:
		kind += "-orderby"
		text = `SELECT * FROM "{T}"` + g.pick([]string{
			" ORDER BY sk",
			" WHERE n > 1 ORDER BY sk",
			" WHERE pk = " + pk + " ORDER BY n",
			" WHERE pk = " + pk + " ORDER BY a.b",
			" WHERE sk = " + sk + " ORDER BY pk",
			" WHERE pk = " + pk + " OR pk = 'p2' ORDER BY sk",
		})
	default:
		kind += "-unsupported"
		text = g.pick([]string{
			`SELECT * FROM "{T}" LIMIT 1`,
			`SELECT * FROM "{T}" WHERE pk = ` + pk + ` LIMIT 2`,
			`SELECT DISTINCT pk FROM "{T}"`,
			`SELECT count(*) FROM "{T}"`,
			`SELECT * FROM "{T}"."nope" WHERE pk = ` + pk,
			`INSERT INTO "{T}" VALUE {'pk': 'p1', 'sk': 's88'} RETURNING ALL NEW *`,
			`INSERT INTO "{T}" VALUE {'pk': 'p1', 'sk': 's88', 'n': 1, 'n': 2}`,
			`INSERT INTO "{T}" VALUE {'pk': 'p1', 'sk': 's88', 'e': <<>>}`,
			`INSERT INTO "{T}" VALUE {'pk': 'p1', 'sk': 's88', 'e': <<'a', 'a'>>}`,
			`INSERT INTO "{T}" VALUE {'pk': 'p1', 'sk': 's88', 'e': <<1, 'a'>>}`,
			`INSERT INTO "{T}" VALUE {'pk': 'p1'}`,
			`INSERT INTO "{T}" VALUE {'pk': '', 'sk': 's88'}`,
			`INSERT INTO "{T}"."byG" VALUE {'pk': 'p1', 'sk': 's88'}`,
			`DELETE FROM "{T}" WHERE pk = ` + pk + ` AND sk = ` + sk + ` RETURNING ALL NEW *`,
			`UPDATE "{T}" SET n = 1 WHERE pk = ` + pk + ` AND sk = ` + sk + ` RETURNING ALL OLD n`,
			`UPDATE "{T}" SET pk = 'x' WHERE pk = ` + pk + ` AND sk = ` + sk,
			`UPDATE "{T}" SET n = n + 'a' WHERE pk = ` + pk + ` AND sk = ` + sk,
			`UPDATE "{T}" SET n = nope + 1 WHERE pk = ` + pk + ` AND sk = ` + sk,
			`UPDATE "{T}" SET ss = set_add(ss, <<1>>) WHERE pk = ` + pk + ` AND sk = ` + sk,
			`UPDATE "{T}" SET a.q.r = 1 WHERE pk = ` + pk + ` AND sk = ` + sk,
			`SELECT * FROM "{T}" WHERE EXISTS(SELECT * FROM "{T}" WHERE pk = ` + pk + `)`,
			`EXISTS(SELECT * FROM "{T}" WHERE pk = ` + pk + ` AND sk = ` + sk + ` AND n = 1)`,
			`SELECT * FROM "{T}" WHERE pk = "p1"`,
		})
	}
	s := g.finish(kind, text)
	switch {
	case strings.HasPrefix(text, "UPDATE"), strings.HasPrefix(text, "DELETE"):
		s.key = k
	case strings.HasPrefix(text, "INSERT"):
		s.key = I{"pk": S("p1"), "sk": S("s88")}
	}
	return s
}
