package ddbmem_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestRandomOperations applies random writes and checks the engine
// against a plain map model: every item reads back as the model says,
// and the table, its GSI and paged scans all hold the same items.
func TestRandomOperations(t *testing.T) {
	db := newTable(t)
	tbl := aws.String("tbl")
	rng := rand.New(rand.NewPCG(7, 11))
	type state struct {
		n       int
		indexed bool
	}
	model := map[[2]string]state{}
	for op := 0; op < 3000; op++ {
		pk, sk := fmt.Sprintf("p%d", rng.IntN(5)), fmt.Sprintf("s%03d", rng.IntN(60))
		k := [2]string{pk, sk}
		switch rng.IntN(4) {
		case 0, 1:
			v := rng.IntN(100)
			it := map[string]av{"pk": s(pk), "sk": s(sk), "n": n(fmt.Sprint(v))}
			if v%2 == 0 {
				it["gpk"], it["gsk"] = s("even"), n(fmt.Sprint(v))
			}
			put(t, db, it)
			model[k] = state{v, v%2 == 0}
		case 2:
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key(pk, sk), UpdateExpression: aws.String("SET n = n + :one REMOVE gpk, gsk"),
				ConditionExpression: aws.String("attribute_exists(n)"), ExpressionAttributeValues: map[string]av{":one": n("1")}})
			if _, ok := model[k]; ok {
				if err != nil {
					t.Fatal(err)
				}
				model[k] = state{model[k].n + 1, false} // REMOVE took it out of the index
			} else if err == nil {
				t.Fatal("update of a missing item passed attribute_exists")
			}
		case 3:
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: key(pk, sk)}); err != nil {
				t.Fatal(err)
			}
			delete(model, k)
		}
	}
	inIndex := 0
	for k, v := range model {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key(k[0], k[1])})
		if err != nil || out.Item == nil {
			t.Fatalf("%v missing: %v", k, err)
		}
		if got := out.Item["n"].(*types.AttributeValueMemberN).Value; got != fmt.Sprint(v.n) {
			t.Fatalf("%v: n = %s, want %d", k, got, v.n)
		}
		if _, ok := out.Item["gpk"]; ok != v.indexed {
			t.Fatalf("%v: indexed %v, want %v", k, ok, v.indexed)
		}
		if v.indexed {
			inIndex++
		}
	}
	scanAll := func(index *string) int {
		n := 0
		var esk map[string]av
		for {
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, IndexName: index, Limit: aws.Int32(17), ExclusiveStartKey: esk})
			if err != nil {
				t.Fatal(err)
			}
			n += len(out.Items)
			if esk = out.LastEvaluatedKey; esk == nil {
				return n
			}
		}
	}
	if got := scanAll(nil); got != len(model) {
		t.Fatalf("table scan saw %d items, model has %d", got, len(model))
	}
	if got := scanAll(aws.String("gsi")); got != inIndex {
		t.Fatalf("index scan saw %d items, want %d", got, inIndex)
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: tbl})
	if err != nil || aws.ToInt64(d.Table.ItemCount) != int64(len(model)) {
		t.Fatalf("ItemCount %v, want %d (%v)", d.Table.ItemCount, len(model), err)
	}
}
