package ddbmem_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
)

// TestRequestLimits checks the request limits of issue 15 without a
// server; internal/conformance compares the same with DynamoDB Local.
func TestRequestLimits(t *testing.T) {
	nest := func(depth int) av {
		v := s("leaf")
		for i := 0; i < depth; i++ {
			v = &types.AttributeValueMemberM{Value: map[string]av{"m": v}}
		}
		return v
	}
	ors := func(k int) string { return strings.Repeat("n = :v OR ", k-1) + "n = :v" }
	one := map[string]av{":v": n("1")}
	tbl := aws.String("tbl")
	cases := []struct {
		name string
		in   any
		msg  string // "" for success
	}{
		{"299 operators", &dynamodb.ScanInput{TableName: tbl, FilterExpression: aws.String(ors(150)), ExpressionAttributeValues: one}, ""},
		{"301 operators", &dynamodb.ScanInput{TableName: tbl, FilterExpression: aws.String(ors(151)), ExpressionAttributeValues: one},
			"Invalid FilterExpression: The expression contains too many operators; operator count: 301"},
		{"name of 65535 bytes", &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("a"), "sk": s("1"), strings.Repeat("x", 65535): s("v")}}, ""},
		{"name of 65536 bytes", &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("a"), "sk": s("1"), strings.Repeat("x", 65536): s("v")}},
			"Attribute name is too large, must be less than 65536 bytes"},
		{"31 containers", &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("a"), "sk": s("1"), "m": nest(31)}}, ""},
		{"32 containers", &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("a"), "sk": s("1"), "m": nest(32)}},
			"Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"},
		{"conflicting paths", &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "1"), ProjectionExpression: aws.String("d[0], d.a")},
			"Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [d, [0]], path two: [d, a]"},
		{"number with a space", &dynamodb.PutItemInput{TableName: tbl, Item: map[string]av{"pk": s("a"), "sk": s("1"), "n": n(" 1")}},
			"The parameter cannot be converted to a numeric value:  1"},
		{"name mapped to empty", &dynamodb.GetItemInput{TableName: tbl, Key: key("a", "1"), ProjectionExpression: aws.String("#e"), ExpressionAttributeNames: map[string]string{"#e": ""}},
			"ExpressionAttributeNames contains invalid value: Empty attribute name for key #e"},
		{"operand in parentheses", &dynamodb.ScanInput{TableName: tbl, FilterExpression: aws.String("(size(sk)) = :v"), ExpressionAttributeValues: one}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := newTable(t)
			var err error
			switch in := c.in.(type) {
			case *dynamodb.ScanInput:
				_, err = db.Scan(ctx, in)
			case *dynamodb.PutItemInput:
				_, err = db.PutItem(ctx, in)
			case *dynamodb.GetItemInput:
				_, err = db.GetItem(ctx, in)
			}
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
				t.Fatalf("got %v, want a ValidationException", err)
			}
			if api.ErrorMessage() != c.msg {
				t.Errorf("message %q, want %q", api.ErrorMessage(), c.msg)
			}
		})
	}
}

// TestIndexWriteCapacity checks that writes report the index writes.
func TestIndexWriteCapacity(t *testing.T) {
	db := newTable(t)
	out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
		Item: map[string]av{"pk": s("a"), "sk": s("1"), "gpk": s("g"), "gsk": n("1")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	want := &types.ConsumedCapacity{TableName: aws.String("tbl"), CapacityUnits: aws.Float64(2),
		Table:                  &types.Capacity{CapacityUnits: aws.Float64(1)},
		GlobalSecondaryIndexes: map[string]types.Capacity{"gsi": {CapacityUnits: aws.Float64(1)}}}
	if d := cmp.Diff(want, out.ConsumedCapacity, cmpAV); d != "" {
		t.Error("put:", d)
	}
	// The GSI key changes: the old entry is deleted and the new one put.
	up, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("a", "1"),
		UpdateExpression: aws.String("SET gsk = :two"), ExpressionAttributeValues: map[string]av{":two": n("2")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToFloat64(up.ConsumedCapacity.CapacityUnits); got != 3 {
		t.Errorf("update: %v units, want 3", got)
	}
}
