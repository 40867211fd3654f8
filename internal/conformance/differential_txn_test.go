package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDifferentialTransactions compares 600 random TransactWriteItems
// requests of one to four actions (Put, Update, Delete, ConditionCheck)
// on four keys, a quarter of the actions flawed: a key with an attribute
// missing, added or of the wrong type, an empty key value, an item
// without its key, an update of a key attribute or of the wrong type, a
// malformed expression, a missing table, two actions on one item, a
// condition that fails. After each, the table's items are compared too.
// What is compared is the error's code and message, and each
// cancellation reason's code, or the table.
func TestDifferentialTransactions(t *testing.T) {
	targets := diffTargets(t, "N", []I{{"pk": S("a"), "sk": N("1"), "n": N("1"), "ss": SS("x")}, {"pk": S("b"), "sk": N("2"), "n": N("2")}})
	r := rand.New(rand.NewSource(diffSeed(43)))
	chance := func(p float64) bool { return r.Float64() < p }
	ctx := context.Background()
	diffs := &diffCount{t: t, what: "TransactWriteItems"}
	for range 600 {
		type action struct {
			kind  string
			key   I
			flaw  string
			value types.AttributeValue
		}
		var acts []action
		for range 1 + r.Intn(4) {
			a := action{kind: []string{"Put", "Update", "Delete", "Check"}[r.Intn(4)],
				key: I{"pk": S([]string{"a", "b"}[r.Intn(2)]), "sk": N([]string{"1", "2"}[r.Intn(2)])}, value: N(fmt.Sprint(r.Intn(3)))}
			if chance(0.25) {
				a.flaw = []string{"no sk", "extra attr", "sk type", "pk bool", "empty pk", "key attr", "update type", "syntax",
					"missing table", "fails", "empty set", "unused value"}[r.Intn(12)]
			}
			acts = append(acts, a)
		}
		// Two actions on one item: DynamoDB Local evaluates the
		// conditions one after the other, each on the item as the
		// actions before it left it, and reports the second action only
		// when all hold; the engine refuses the request first, as
		// DynamoDB checks a request before it reads an item. Both fail,
		// with any error.
		twice := false
		seen := map[string]bool{}
		for _, a := range acts {
			switch a.flaw {
			case "extra attr":
				if a.kind != "Put" {
					continue // a key of three attributes: not that item
				}
				// A Put's item may have attributes beyond its key.
			case "no sk", "sk type", "pk bool", "empty pk", "missing table":
				continue // not that item
			}
			id := valueText(a.key["pk"]) + "/" + valueText(a.key["sk"])
			twice = twice || seen[id]
			seen[id] = true
		}
		var desc []string
		for _, a := range acts {
			desc = append(desc, fmt.Sprintf("%s %s/%s %s", a.kind, valueText(a.key["pk"]), valueText(a.key["sk"]), a.flaw))
		}
		var got [2]string
		for j, d := range targets {
			var items []types.TransactWriteItem
			for _, a := range acts {
				table := aws.String(d.table)
				key := I{"pk": a.key["pk"], "sk": a.key["sk"]}
				cond := aws.String("attribute_exists(pk) OR attribute_not_exists(pk)")
				upd := "SET n = :v"
				vals := vals{":v": a.value}
				key = applyKeyFlaw(key, a.flaw)
				switch a.flaw {
				case "key attr":
					upd = "SET sk = :v"
				case "update type":
					upd = "ADD ss :v"
				case "syntax":
					cond = aws.String("attribute_exists(pk) AND")
				case "missing table":
					table = aws.String(d.table + "-missing")
				case "fails":
					cond = aws.String("n = :v AND attribute_exists(ss)")
				case "empty set":
					vals[":v"] = &types.AttributeValueMemberSS{Value: []string{}}
				case "unused value":
					vals[":u"] = N("1")
				}
				var it types.TransactWriteItem
				switch a.kind {
				case "Put":
					item := I{"n": vals[":v"]}
					for k, v := range key {
						item[k] = v
					}
					if a.flaw == "key attr" {
						delete(item, "pk")
					}
					it.Put = &types.Put{TableName: table, Item: item, ConditionExpression: cond, ExpressionAttributeValues: usedOrAll(*cond, vals, a.flaw)}
				case "Update":
					it.Update = &types.Update{TableName: table, Key: key, UpdateExpression: aws.String(upd), ConditionExpression: cond,
						ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
				case "Delete":
					it.Delete = &types.Delete{TableName: table, Key: key, ConditionExpression: cond, ExpressionAttributeValues: usedOrAll(*cond, vals, a.flaw)}
				default:
					it.ConditionCheck = &types.ConditionCheck{TableName: table, Key: key, ConditionExpression: cond,
						ExpressionAttributeValues: usedOrAll(*cond, vals, a.flaw)}
				}
				items = append(items, it)
			}
			_, err := d.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			got[j] = txnText(err, len(items))
			got[j] += " => " + d.rows(ctx, t)
		}
		// Where DynamoDB Local words an error its own way, or lists
		// fewer cancellation reasons than actions (the case "transact
		// write key shapes"), only the codes are compared.
		if twice && strings.HasPrefix(got[0], "error ") && strings.HasPrefix(got[1], "error ") {
			for j := range got {
				_, table, _ := strings.Cut(got[j], " => ")
				got[j] = "error => " + table
			}
		}
		if strings.Contains(got[1], "(local-only)") {
			for j := range got {
				got[j] = txnCodeOnly(got[j])
			}
		}
		diffs.compare(strings.Join(desc, "; "), got)
	}
	diffs.done("600")
}

// usedOrAll returns the values expr names, or all of them for the flaw
// "unused value" and for a condition that uses none.
func usedOrAll(expr string, v vals, flaw string) vals {
	if flaw == "unused value" {
		return v
	}
	return usedValues(expr, v)
}

// txnText renders a transaction's error of n actions: code, message,
// and each cancellation reason's code, marked (local-only) where only the
// code can be compared with the engine's.
func txnText(err error, n int) string {
	s := diffErr(err)
	if s != "ok" && localOnlyMessage(strings.TrimPrefix(s[strings.Index(s, ":")+1:], " ")) {
		s += " (local-only)"
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		var codes []string
		for _, r := range tce.CancellationReasons {
			codes = append(codes, aws.ToString(r.Code))
		}
		s += " [" + strings.Join(codes, ",") + "]"
		if len(codes) != n {
			s += " (local-only)"
		}
	}
	return s
}

// txnCodeOnly keeps the error's code (and the table after =>).
func txnCodeOnly(s string) string {
	code, _, _ := strings.Cut(s, ":")
	_, table, _ := strings.Cut(s, " => ")
	return code + " => " + table
}
