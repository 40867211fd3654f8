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

// TestDifferentialArithmetic compares 1,000 random additions and
// subtractions of numbers of every magnitude and precision (up to 38
// significant digits, exponents from -130 to 125): SET n = n + :v,
// SET n = :v - n and ADD n :v on a stored number, and ADD of a number set.
// What is compared is the number (or set) stored after it, or the error:
// a result past 38 significant digits, or out of DynamoDB's range.
func TestDifferentialArithmetic(t *testing.T) {
	targets := diffTargets(t, "", nil)
	r := rand.New(rand.NewSource(diffSeed(83)))
	ctx := context.Background()
	number := func() string {
		digits := 1 + r.Intn(19)
		if r.Intn(6) == 0 {
			digits = 20 + r.Intn(19)
		}
		var b strings.Builder
		if r.Intn(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(byte('1' + r.Intn(9)))
		if digits > 1 {
			b.WriteByte('.')
			for range digits - 1 {
				b.WriteByte(byte('0' + r.Intn(10)))
			}
		}
		exp := []int{0, 0, 0, 1, 1, 5, -3, 20, 37, 38, -38, 124, 125, -125, -129, -130}[r.Intn(16)]
		fmt.Fprintf(&b, "E%d", exp)
		return b.String()
	}
	diffs := &diffCount{t: t, what: "arithmetic"}
	outcomes := map[string]int{} // the engine's, for the log
	for i := range 1000 {
		key := I{"pk": S(fmt.Sprint("a", i))}
		n, v := number(), number()
		item := I{"pk": key["pk"], "n": N(n), "s": NS(n)}
		op := []string{"SET n = n + :v", "SET n = :v - n", "ADD n :v", "ADD s :set"}[r.Intn(4)]
		values := vals{":v": N(v)}
		if op == "ADD s :set" {
			values = vals{":set": NS(v)}
		}
		desc := fmt.Sprintf("%s with n = %s, v = %s", op, n, v)
		var got [2]string
		for j, d := range targets {
			if _, err := d.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.table), Item: item}); err != nil {
				got[j] = "put: " + diffErr(err)
				continue
			}
			out, err := d.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.table), Key: key, UpdateExpression: aws.String(op),
				ExpressionAttributeValues: values, ReturnValues: types.ReturnValueUpdatedNew})
			if err != nil {
				got[j] = diffErr(err)
				continue
			}
			// DynamoDB Local returns a computed number's text as its
			// decimal arithmetic leaves it (trailing zeroes kept); DynamoDB
			// returns the canonical text: numbers are compared by value.
			got[j] = itemText(canonNumbers(out.Attributes))
		}
		codesWhereLocalWords(&got)
		kind := got[0]
		if !strings.HasPrefix(kind, "error") {
			kind = "stored"
		}
		outcomes[kind]++
		diffs.compare(desc, got)
	}
	diffs.done("1000")
	t.Logf("outcomes: %v", outcomes)
}

// canonNumbers returns it with its numbers, and its number sets'
// members, in canonical text.
func canonNumbers(it I) I {
	out := I{}
	for k, v := range it {
		switch v := v.(type) {
		case *types.AttributeValueMemberN:
			out[k] = N(canonNum(v.Value))
		case *types.AttributeValueMemberNS:
			ns := make([]string, len(v.Value))
			for i, x := range v.Value {
				ns[i] = canonNum(x)
			}
			out[k] = NS(ns...)
		default:
			out[k] = v
		}
	}
	return out
}
