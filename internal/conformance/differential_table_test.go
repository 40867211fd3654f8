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
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestDifferentialCreateTable compares 600 random CreateTable requests,
// most of them invalid in how their parts fit together (each member on
// its own meets its constraints): attribute definitions defined twice,
// unused or missing; key schemas of every shape; local and global
// indexes with wrong keys, duplicate names, every projection with and
// without NonKeyAttributes; billing modes with and without throughput.
// What is compared is whether each creates the table, and, when both do,
// its key schema, attribute definitions and indexes as described (of an
// error, only its code: DynamoDB Local words most of them its own way).
func TestDifferentialCreateTable(t *testing.T) {
	targets := []diffTarget{{name: "engine", c: ddbmem.New()}, {name: "DynamoDB Local", c: local(t)}}
	r := rand.New(rand.NewSource(diffSeed(41)))
	pick := func(n int) int { return r.Intn(n) }
	chance := func(p float64) bool { return r.Float64() < p }
	attrs := []types.AttributeDefinition{
		{AttributeName: aws.String("pk"), AttributeType: "S"}, {AttributeName: aws.String("sk"), AttributeType: "N"},
		{AttributeName: aws.String("g"), AttributeType: "S"}, {AttributeName: aws.String("l"), AttributeType: "B"},
		{AttributeName: aws.String("x"), AttributeType: "S"}, {AttributeName: aws.String("pk"), AttributeType: "N"},
	}
	names := []string{"pk", "sk", "g", "l", "x", "y"}
	keySchema := func(hashes, ranges []string) []types.KeySchemaElement {
		var ks []types.KeySchemaElement
		switch k := pick(10); {
		case k < 8:
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(hashes[pick(len(hashes))]), KeyType: types.KeyTypeHash})
			if chance(0.6) {
				ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(ranges[pick(len(ranges))]), KeyType: types.KeyTypeRange})
			}
		case k < 9:
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(names[pick(len(names))]), KeyType: types.KeyTypeRange})
			if chance(0.5) {
				ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(names[pick(len(names))]), KeyType: types.KeyTypeHash})
			}
		default:
			for range 1 + pick(3) {
				ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(names[pick(len(names))]),
					KeyType: []types.KeyType{types.KeyTypeHash, types.KeyTypeRange}[pick(2)]})
			}
		}
		return ks
	}
	projection := func() *types.Projection {
		p := &types.Projection{}
		switch pick(4) {
		case 0:
			p.ProjectionType = types.ProjectionTypeAll
		case 1:
			p.ProjectionType = types.ProjectionTypeKeysOnly
		case 2:
			p.ProjectionType = types.ProjectionTypeInclude
		}
		if chance(0.4) {
			p.NonKeyAttributes = [][]string{{"a"}, {"a", "b"}, {"pk"}, {"g", "z"}, {"a", "a"}}[pick(5)]
		}
		return p
	}
	throughput := func() *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(int64(1 + pick(5))), WriteCapacityUnits: aws.Int64(int64(1 + pick(5)))}
	}
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "CreateTable"}
	created := 0
	for i := range 600 {
		in := &dynamodb.CreateTableInput{}
		for _, j := range r.Perm(len(attrs))[:1+pick(4)] {
			in.AttributeDefinitions = append(in.AttributeDefinitions, attrs[j])
		}
		in.KeySchema = keySchema([]string{"pk", "pk", "g", "y"}, []string{"sk", "sk", "l", "pk", "y"})
		switch pick(4) {
		case 0, 1:
			in.BillingMode = types.BillingModePayPerRequest
			if chance(0.1) {
				in.ProvisionedThroughput = throughput()
			}
		case 2:
			in.BillingMode = types.BillingModeProvisioned
			if chance(0.9) {
				in.ProvisionedThroughput = throughput()
			}
		default:
			if chance(0.9) {
				in.ProvisionedThroughput = throughput()
			}
		}
		provisioned := in.ProvisionedThroughput != nil
		for range pick(3) * pick(2) {
			idx := types.LocalSecondaryIndex{IndexName: aws.String([]string{"lsi1", "lsi2", "gsi1"}[pick(3)]),
				KeySchema: keySchema([]string{"pk", "pk", "pk", "g"}, []string{"l", "l", "x", "sk", "y"}), Projection: projection()}
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, idx)
		}
		for range pick(3) * pick(2) {
			idx := types.GlobalSecondaryIndex{IndexName: aws.String([]string{"gsi1", "gsi2", "lsi1"}[pick(3)]),
				KeySchema: keySchema([]string{"g", "g", "x", "pk", "y"}, []string{"l", "sk", "pk", "y"}), Projection: projection()}
			if provisioned != chance(0.1) {
				idx.ProvisionedThroughput = throughput()
			}
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, idx)
		}
		if chance(0.6) {
			// Mostly valid: exactly the attributes the keys use,
			// sometimes one more.
			used := map[string]bool{}
			for _, k := range in.KeySchema {
				used[aws.ToString(k.AttributeName)] = true
			}
			for _, l := range in.LocalSecondaryIndexes {
				for _, k := range l.KeySchema {
					used[aws.ToString(k.AttributeName)] = true
				}
			}
			for _, g := range in.GlobalSecondaryIndexes {
				for _, k := range g.KeySchema {
					used[aws.ToString(k.AttributeName)] = true
				}
			}
			in.AttributeDefinitions = nil
			for _, n := range sortedKeys(used) {
				in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(n),
					AttributeType: map[string]types.ScalarAttributeType{"pk": "S", "sk": "N", "g": "S", "l": "B", "x": "S", "y": "N"}[n]})
			}
			if chance(0.2) {
				in.AttributeDefinitions = append(in.AttributeDefinitions, attrs[pick(len(attrs))])
			}
		}
		var got, msgs [2]string
		for j, d := range targets {
			c := *in
			c.TableName = aws.String(testenv.UniqueName(fmt.Sprint("ct", i)))
			out, err := d.c.CreateTable(ctx, &c)
			if err != nil {
				// The error's code only: DynamoDB Local words most
				// CreateTable errors its own way, and checks them in its
				// own order (localOnlyMessages; the engine has DynamoDB's,
				// as dynalite's suite records them).
				msgs[j] = diffErr(err)
				got[j], _, _ = strings.Cut(msgs[j], ":")
				continue
			}
			got[j] = tableShape(out.TableDescription)
			if _, err := d.c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: c.TableName}); err != nil {
				t.Fatalf("%s: DeleteTable: %v", d.name, err)
			}
		}
		if strings.HasPrefix(got[1], "created") && localAccepts(msgs[0]) {
			got[1] = got[0]
		}
		if strings.HasPrefix(got[0], "created") && strings.HasPrefix(got[1], "created") {
			created++
		}
		desc := createText(in)
		if got[0] != got[1] {
			desc += "\n  messages: " + msgs[0] + " | " + msgs[1]
		}
		diffs.compare(desc, got)
	}
	diffs.done("600")
	t.Logf("%d of 600 created on both", created)
}

// localAccepts tells the engine's refusals of tables that DynamoDB
// refuses and DynamoDB Local creates.
func localAccepts(msg string) bool {
	for _, m := range []string{
		// dynalite's suite records both from DynamoDB ("should return
		// ValidationException if ProvisionedThroughput set when
		// BillingMode is PAY_PER_REQUEST", "should not allow
		// ProvisionedThroughput with PAY_PER_REQUEST and
		// GlobalSecondaryIndexes").
		"Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
		"ProvisionedThroughput should not be specified for index: ",
		// DynamoDB Local compares the number of definitions with the
		// number of key attributes counted with repeats (a table's hash
		// key that is an index's too counts twice).
		"Some AttributeDefinitions are not used.",
	} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tableShape renders what a CreateTable made: key schema, attribute
// definitions and indexes, with their projections.
func tableShape(d *types.TableDescription) string {
	ks := func(k []types.KeySchemaElement) string {
		var parts []string
		for _, e := range k {
			parts = append(parts, aws.ToString(e.AttributeName)+":"+string(e.KeyType))
		}
		return strings.Join(parts, ",")
	}
	proj := func(p *types.Projection) string {
		if p == nil {
			return "nil"
		}
		return string(p.ProjectionType) + fmt.Sprint(p.NonKeyAttributes)
	}
	var defs []string
	for _, a := range d.AttributeDefinitions {
		defs = append(defs, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	sort.Strings(defs)
	s := "created " + ks(d.KeySchema) + " defs " + strings.Join(defs, ",")
	var idx []string
	for _, l := range d.LocalSecondaryIndexes {
		idx = append(idx, "LSI "+aws.ToString(l.IndexName)+" "+ks(l.KeySchema)+" "+proj(l.Projection))
	}
	for _, g := range d.GlobalSecondaryIndexes {
		idx = append(idx, "GSI "+aws.ToString(g.IndexName)+" "+ks(g.KeySchema)+" "+proj(g.Projection))
	}
	sort.Strings(idx)
	return s + " " + strings.Join(idx, "; ")
}

// createText renders a CreateTable request for a report.
func createText(in *dynamodb.CreateTableInput) string {
	ks := func(k []types.KeySchemaElement) string {
		var parts []string
		for _, e := range k {
			parts = append(parts, aws.ToString(e.AttributeName)+":"+string(e.KeyType))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	proj := func(p *types.Projection) string {
		if p == nil {
			return "no projection"
		}
		return string(p.ProjectionType) + fmt.Sprint(p.NonKeyAttributes)
	}
	var b strings.Builder
	b.WriteString("defs")
	for _, a := range in.AttributeDefinitions {
		b.WriteString(" " + aws.ToString(a.AttributeName) + ":" + string(a.AttributeType))
	}
	fmt.Fprintf(&b, "; key %s; billing %q throughput %v", ks(in.KeySchema), in.BillingMode, in.ProvisionedThroughput != nil)
	for _, l := range in.LocalSecondaryIndexes {
		fmt.Fprintf(&b, "; LSI %s %s %s", aws.ToString(l.IndexName), ks(l.KeySchema), proj(l.Projection))
	}
	for _, g := range in.GlobalSecondaryIndexes {
		fmt.Fprintf(&b, "; GSI %s %s %s throughput %v", aws.ToString(g.IndexName), ks(g.KeySchema), proj(g.Projection), g.ProvisionedThroughput != nil)
	}
	return b.String()
}
