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

	"github.com/tablekit/tablekit/internal/itemsize"
)

// TestDifferentialItemSize checks the engine's item size against DynamoDB
// Local's to the byte, on 600 random items of every type, nested up to
// four levels: each is padded with a string to exactly a 1 KB boundary,
// or one byte past it, by the engine's size, and written with
// ReturnConsumedCapacity, so that one byte of disagreement changes the
// write units; one item in six is padded to the 400 KB limit, or one byte
// past it, where one byte decides whether the write is accepted. One
// item in three is written by UpdateItem, the rest by PutItem. Numbers
// of every shape are among the values: their size is that of DynamoDB's
// stored form (itemsize.Number), one or two bytes more than AWS's
// "approximately" formula for a negative number or digits that do not
// pair up on even powers of ten.
func TestDifferentialItemSize(t *testing.T) {
	targets := diffTargets(t, "", nil)
	r := rand.New(rand.NewSource(diffSeed(71)))
	ctx := context.Background()
	name := func() string {
		return []string{"a", "bb", "ccc", "dé", "名前", strings.Repeat("n", 1+r.Intn(40))}[r.Intn(6)]
	}
	num := func() string {
		return []string{"0", "7", "-7", "10", "100", "150", "12345", "-99999", "1000000", "123456789012345678901234567890", "1e3", "5E+10", "-0",
			"2.5", "-0.05", "12.3456", "1.5e-3", "-1.0E-3", "0.125", "-123.45", "9." + strings.Repeat("9", 37) + "E+125", "1E-130"}[r.Intn(22)]
	}
	var value func(depth int) types.AttributeValue
	value = func(depth int) types.AttributeValue {
		k := r.Intn(11)
		if depth >= 4 && k >= 9 {
			k = r.Intn(9)
		}
		switch k {
		case 0:
			return S(strings.Repeat("s", 1+r.Intn(30)))
		case 1:
			return N(num())
		case 2:
			return B(make([]byte, 1+r.Intn(20))...)
		case 3:
			return BOOL(r.Intn(2) == 0)
		case 4:
			return NULL()
		case 5:
			set := map[string]bool{}
			for range 1 + r.Intn(4) {
				set[fmt.Sprint("m", r.Intn(100))] = true
			}
			var ss []string
			for v := range set {
				ss = append(ss, v)
			}
			return SS(ss...)
		case 6:
			set := map[string]bool{}
			for range 1 + r.Intn(4) {
				set[fmt.Sprint(r.Intn(1000))] = true
			}
			var ns []string
			for v := range set {
				ns = append(ns, v)
			}
			return NS(ns...)
		case 7:
			return &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}[:1+r.Intn(2)]}
		case 8:
			return L() // an empty list
		case 9:
			var l []types.AttributeValue
			for range r.Intn(4) {
				l = append(l, value(depth+1))
			}
			return L(l...)
		default:
			m := I{}
			for range r.Intn(4) {
				m[name()] = value(depth + 1)
			}
			return M(m)
		}
	}
	diffs := &diffCount{t: t, what: "item size"}
	for i := range 600 {
		it := I{"pk": S(fmt.Sprint("item", i))}
		for range r.Intn(6) {
			it[name()] = value(0)
		}
		// Pad to the boundary (or a byte past it) by the engine's size:
		// the pad attribute "p" adds 1 byte for its name and one per
		// character.
		it["p"] = S("x")
		base := itemsize.Of(it) - 1
		target := 1024 * (1 + (base+1024)/1024)
		if i%6 == 0 {
			target = itemsize.Max
		}
		over := r.Intn(2)
		it["p"] = S(strings.Repeat("x", target+over-base))
		// One item in three is written by an UpdateItem that SETs every
		// attribute but the key.
		byUpdate := r.Intn(3) == 0
		upd := func(table string) *dynamodb.UpdateItemInput {
			in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: I{"pk": it["pk"]}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				ExpressionAttributeNames: map[string]string{}, ExpressionAttributeValues: vals{}}
			var sets []string
			for k, v := range it {
				if k == "pk" {
					continue
				}
				n := fmt.Sprint(len(sets))
				in.ExpressionAttributeNames["#"+n], in.ExpressionAttributeValues[":"+n] = k, v
				sets = append(sets, "#"+n+" = :"+n)
			}
			in.UpdateExpression = aws.String("SET " + strings.Join(sets, ", "))
			return in
		}
		desc := fmt.Sprintf("%d bytes by the engine's size, by update %v (%s)", target+over, byUpdate, itemText(withoutPad(it)))
		var got [2]string
		for j, d := range targets {
			var c *types.ConsumedCapacity
			var err error
			if byUpdate {
				var out *dynamodb.UpdateItemOutput
				if out, err = d.c.UpdateItem(ctx, upd(d.table)); err == nil {
					c = out.ConsumedCapacity
				}
			} else {
				var out *dynamodb.PutItemOutput
				if out, err = d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: it, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}); err == nil {
					c = out.ConsumedCapacity
				}
			}
			if err != nil {
				got[j] = diffErr(err)
			} else {
				got[j] = fmt.Sprint(aws.ToFloat64(c.CapacityUnits), " units")
			}
		}
		diffs.compare(desc, got)
	}
	diffs.done("600")
}

// withoutPad is it without its pad attribute "p", for a short
// description.
func withoutPad(it I) I {
	out := I{}
	for k, v := range it {
		if k != "p" {
			out[k] = v
		}
	}
	return out
}
