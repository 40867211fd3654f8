package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestDifferentialNumbers writes 1,500 random number texts, valid or not,
// and compares what the engine and DynamoDB Local make of each: the error,
// or the number as a GetItem reads it back (canonical: no leading or
// trailing zeroes, no exponent). The texts vary the sign, leading zeroes,
// the decimal point's place, an exponent's letter case, sign and leading
// zeroes, the count of significant digits around the limit of 38, the
// magnitude around the limits of 1E-130 and 1E+126, and flaws: an empty
// text, spaces, a second point or sign, letters, "Infinity" and "NaN", a
// hexadecimal. Each is written as an attribute, as the member of a number
// set with a second text of the same value or not, and as the table's
// numeric sort key.
//
// Left out: digits of other scripts ("١"), which DynamoDB Local takes as
// decimal digits (Java's BigDecimal does) and the engine refuses; AWS
// documents numbers as decimal text and dynalite refuses them too.
func TestDifferentialNumbers(t *testing.T) {
	targets := diffTargets(t, "N", nil)
	r := rand.New(rand.NewSource(diffSeed(73)))
	ctx := context.Background()
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		return b.String()
	}
	number := func() string {
		if r.Intn(12) == 0 {
			return []string{"", " 1", "1 ", "1.2.3", "--1", "+-1", "1e", "e5", ".", "-", "0x10", "Infinity", "NaN", "1,5", "1_000"}[r.Intn(15)]
		}
		var b strings.Builder
		switch r.Intn(5) {
		case 0:
			b.WriteByte('-')
		case 1:
			b.WriteByte('+')
		}
		b.WriteString(strings.Repeat("0", r.Intn(3)))
		n := []int{0, 1, 2, 5, 19, 37, 38, 39, 40}[r.Intn(9)]
		whole := digits(n)
		point := r.Intn(n + 2) // where the point goes, or none
		switch {
		case point > n || n == 0:
			b.WriteString(whole)
			if n == 0 {
				b.WriteString("0")
			}
		case point == 0:
			b.WriteString("." + whole)
		default:
			b.WriteString(whole[:point] + "." + whole[point:])
		}
		b.WriteString(strings.Repeat("0", r.Intn(3)))
		if r.Intn(3) == 0 {
			b.WriteString([]string{"e", "E"}[r.Intn(2)])
			b.WriteString([]string{"", "+", "-"}[r.Intn(3)])
			b.WriteString(strings.Repeat("0", r.Intn(2)))
			b.WriteString(fmt.Sprint([]int{0, 1, 9, 88, 124, 125, 126, 127, 128, 129, 130, 131, 160}[r.Intn(13)]))
		}
		return b.String()
	}
	diffs := &diffCount{t: t, what: "number"}
	for i := range 1500 {
		s := number()
		var item I
		var desc string
		sk := N(fmt.Sprint(i))
		switch i % 3 {
		case 0:
			item, desc = I{"pk": S("n"), "sk": sk, "v": N(s)}, fmt.Sprintf("attribute %q", s)
		case 1:
			other := []string{"1", "1.0", "0" + s, s + "0", s}[r.Intn(5)]
			item, desc = I{"pk": S("n"), "sk": sk, "v": NS(s, other)}, fmt.Sprintf("set {%q, %q}", s, other)
		default:
			item, desc = I{"pk": S("k"), "sk": N(s)}, fmt.Sprintf("sort key %q", s)
		}
		var got [2]string
		for j, d := range targets {
			_, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: item})
			if err != nil {
				got[j] = diffErr(err)
				continue
			}
			// Read back what was written: by its sort key when that is
			// the number, the last item of "k" then.
			q := &dynamodb.QueryInput{TableName: aws.String(d.table), KeyConditionExpression: aws.String("pk = :p AND sk = :s"),
				ExpressionAttributeValues: vals{":p": item["pk"], ":s": item["sk"]}, ConsistentRead: aws.Bool(true)}
			out, err := d.c.Query(ctx, q)
			if err != nil {
				got[j] = "read: " + diffErr(err)
				continue
			}
			got[j] = fmt.Sprint(len(out.Items), " read: ")
			for _, it := range out.Items {
				got[j] += itemText(I{"sk": it["sk"], "v": it["v"]})
			}
		}
		codesWhereLocalWords(&got)
		diffs.compare(desc, got)
	}
	diffs.done("1500")
}
