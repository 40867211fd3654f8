package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/ddbmem"
)

type av = types.AttributeValue

func s(v string) av { return &types.AttributeValueMemberS{Value: v} }
func n(v string) av { return &types.AttributeValueMemberN{Value: v} }

var ctx = context.Background()

// newTable returns an engine with table "t" (pk S, sk S) with a GSI
// "gsi" (gpk S, gsk N) projecting ALL.
func newTable(t testing.TB) *ddbmem.DB {
	t.Helper()
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gpk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gsk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("gsi"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("gpk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("gsk"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func put(t testing.TB, db *ddbmem.DB, it map[string]av) {
	t.Helper()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func isValidation(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

func TestPutGetDelete(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("a"), "sk": s("1"), "v": n("1.50")})
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: map[string]av{"pk": s("a"), "sk": s("1")}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]av{"pk": s("a"), "sk": s("1"), "v": n("1.5")}
	if d := cmp.Diff(want, out.Item, cmpAV); d != "" {
		t.Fatal(d)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: map[string]av{"pk": s("a"), "sk": s("1")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("got %v, want ConditionalCheckFailedException", err)
	}
	if d := cmp.Diff(want, ccf.Item, cmpAV); d != "" {
		t.Fatal(d)
	}
	del, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: map[string]av{"pk": s("a"), "sk": s("1")}, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, del.Attributes, cmpAV); d != "" {
		t.Fatal(d)
	}
	out, _ = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: map[string]av{"pk": s("a"), "sk": s("1")}})
	if out.Item != nil {
		t.Fatalf("item not deleted: %v", out.Item)
	}
}

var cmpAV = cmp.Exporter(func(reflect.Type) bool { return true })

func TestQuery(t *testing.T) {
	db := newTable(t)
	for i := 0; i < 10; i++ {
		put(t, db, map[string]av{"pk": s("p"), "sk": s(fmt.Sprintf("s%02d", i)), "gpk": s("g"), "gsk": n(fmt.Sprint(10 - i))})
	}
	put(t, db, map[string]av{"pk": s("q"), "sk": s("s00")})
	q := func(in *dynamodb.QueryInput) []string {
		t.Helper()
		in.TableName = aws.String("tbl")
		out, err := db.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberS).Value)
		}
		return got
	}
	vals := func(kv ...any) map[string]av {
		m := map[string]av{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(av)
		}
		return m
	}
	cases := []struct {
		name string
		in   *dynamodb.QueryInput
		want []string
	}{
		{"all", &dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: vals(":p", s("p"))},
			[]string{"s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09"}},
		{"between", &dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :a AND :b"), ExpressionAttributeValues: vals(":p", s("p"), ":a", s("s02"), ":b", s("s04"))},
			[]string{"s02", "s03", "s04"}},
		{"lt reverse", &dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk < :a"), ScanIndexForward: aws.Bool(false), ExpressionAttributeValues: vals(":p", s("p"), ":a", s("s02"))},
			[]string{"s01", "s00"}},
		{"begins_with", &dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :a)"), ExpressionAttributeValues: vals(":p", s("p"), ":a", s("s0"))},
			[]string{"s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09"}},
		{"gsi numeric", &dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gpk = :g AND gsk >= :n"), ExpressionAttributeValues: vals(":g", s("g"), ":n", n("8"))},
			[]string{"s02", "s01", "s00"}},
		{"filter", &dynamodb.QueryInput{IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gpk = :g"), FilterExpression: aws.String("sk IN (:a, :b)"), ExpressionAttributeValues: vals(":g", s("g"), ":a", s("s03"), ":b", s("s07"))},
			[]string{"s07", "s03"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, q(c.in)); d != "" {
				t.Fatal(d)
			}
		})
	}
	// paging
	var all []string
	var esk map[string]av
	for pages := 0; ; pages++ {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gpk = :g"),
			ExpressionAttributeValues: vals(":g", s("g")), Limit: aws.Int32(3), ExclusiveStartKey: esk})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			all = append(all, it["sk"].(*types.AttributeValueMemberS).Value)
		}
		esk = out.LastEvaluatedKey
		if esk == nil {
			break
		}
		if len(esk) != 4 {
			t.Fatalf("index LastEvaluatedKey %v, want table and index keys", esk)
		}
	}
	if len(all) != 10 || all[0] != "s09" || all[9] != "s00" {
		t.Fatalf("paged %v", all)
	}
	_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: vals(":p", s("p"), ":x", s("x"))})
	if !isValidation(err) || err.(smithy.APIError).ErrorMessage() != "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}" {
		t.Fatalf("got %v", err)
	}
}
