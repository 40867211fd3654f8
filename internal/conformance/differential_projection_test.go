package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDifferentialProjections reads 1,000 random items of nested maps and
// lists through random projection expressions of one to three document
// paths (map keys, list indexes in and past range, paths that overlap or
// repeat): the item GetItem returns, or the error (for overlapping or
// conflicting paths, its kind).
func TestDifferentialProjections(t *testing.T) {
	targets := diffTargets(t, "", nil)
	r := rand.New(rand.NewSource(diffSeed(89)))
	ctx := context.Background()
	keys := []string{"a", "b", "c"}
	var value func(depth int) types.AttributeValue
	value = func(depth int) types.AttributeValue {
		k := r.Intn(6)
		if depth >= 3 {
			k = r.Intn(3)
		}
		switch k {
		case 0:
			return S(fmt.Sprint("s", r.Intn(10)))
		case 1:
			return N(fmt.Sprint(r.Intn(10)))
		case 2:
			return SS("x", "y")
		case 3, 4:
			var l []types.AttributeValue
			for range r.Intn(4) {
				l = append(l, value(depth+1))
			}
			return L(l...)
		default:
			m := I{}
			for range r.Intn(4) {
				m[keys[r.Intn(3)]] = value(depth + 1)
			}
			return M(m)
		}
	}
	path := func() string {
		var b strings.Builder
		b.WriteString(keys[r.Intn(3)])
		for range r.Intn(4) {
			if r.Intn(2) == 0 {
				fmt.Fprintf(&b, "[%d]", r.Intn(4))
			} else {
				b.WriteString("." + keys[r.Intn(3)])
			}
		}
		return b.String()
	}
	diffs := &diffCount{t: t, what: "projection"}
	outcomes := map[string]int{} // the engine's, for the log
	for i := range 1000 {
		key := I{"pk": S(fmt.Sprint("p", i%50))}
		item := I{"pk": key["pk"]}
		for _, k := range keys {
			if r.Intn(4) > 0 {
				item[k] = value(0)
			}
		}
		var paths []string
		for range 1 + r.Intn(3) {
			paths = append(paths, path())
		}
		proj := strings.Join(paths, ", ")
		desc := fmt.Sprintf("%q of %s", proj, itemText(item))
		var got [2]string
		for j, d := range targets {
			if _, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: item}); err != nil {
				got[j] = "put: " + diffErr(err)
				continue
			}
			out, err := d.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(d.table), Key: key, ProjectionExpression: aws.String(proj)})
			if err != nil {
				got[j] = diffErr(err)
				continue
			}
			got[j] = itemText(out.Item)
		}
		// Of several overlapping or conflicting paths, which two the
		// message names is not settled: dynalite's suite records that
		// AWS's choice changed over time, and DynamoDB Local names other
		// pairs than the engine. The kind of error is compared then.
		if k0, k1 := strings.Index(got[0], "; path one:"), strings.Index(got[1], "; path one:"); k0 >= 0 && k1 >= 0 {
			got[0], got[1] = got[0][:k0], got[1][:k1]
		}
		kind := "item"
		if strings.HasPrefix(got[0], "error ") {
			kind = "error"
		}
		outcomes[kind]++
		diffs.compare(desc, got)
	}
	diffs.done("1000")
	t.Logf("outcomes: %v", outcomes)
}
