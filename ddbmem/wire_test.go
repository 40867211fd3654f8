package ddbmem

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// ignoreUnexported skips the SDK structs' unexported fields.
var ignoreUnexported = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name()[0] >= 'a' && sf.Name()[0] <= 'z'
}, cmp.Ignore())

// TestDecodeInputs serializes inputs with the SDK's own client and checks
// that the endpoint's decoder rebuilds them exactly.
func TestDecodeInputs(t *testing.T) {
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()
	c := NewEndpointClient(srv.URL, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	every := map[string]types.AttributeValue{
		"s": s("text \"quoted\" \\ \n\t é 日本 \u2028 \x01"), "n": &types.AttributeValueMemberN{Value: "-1.5e10"},
		"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}}, "bool": &types.AttributeValueMemberBOOL{Value: true},
		"null": &types.AttributeValueMemberNULL{Value: true}, "ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}}, "bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"in": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}},
	}
	cases := []struct {
		name string
		in   any
		call func(any) error
	}{
		{"PutItem", &dynamodb.PutItemInput{TableName: aws.String("t"), Item: every, ConditionExpression: aws.String("a = :a"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("x")}, ReturnValues: types.ReturnValueAllOld,
			Expected: map[string]types.ExpectedAttributeValue{"x": {Exists: aws.Bool(false)}, "y": {ComparisonOperator: "IN", AttributeValueList: []types.AttributeValue{s("a"), s("b")}}},
		}, func(in any) error { _, err := c.PutItem(ctx, in.(*dynamodb.PutItemInput)); return err }},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("t"), IndexName: aws.String("ix"), Limit: aws.Int32(math.MaxInt32),
			ScanIndexForward: aws.Bool(false), ExclusiveStartKey: every, Select: types.SelectCount,
			KeyConditions:   map[string]types.Condition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{s("a")}}},
			AttributesToGet: []string{"a", "b"}, ExpressionAttributeNames: map[string]string{"#a": "a"},
		}, func(in any) error { _, err := c.Query(ctx, in.(*dynamodb.QueryInput)); return err }},
		{"Scan", &dynamodb.ScanInput{TableName: aws.String("t"), Segment: aws.Int32(0), TotalSegments: aws.Int32(4), ConsistentRead: aws.Bool(true),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes},
			func(in any) error { _, err := c.Scan(ctx, in.(*dynamodb.ScanInput)); return err }},
		{"UpdateItem", &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: every,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberN{Value: "1"}}, "b": {Action: types.AttributeActionDelete}},
		}, func(in any) error { _, err := c.UpdateItem(ctx, in.(*dynamodb.UpdateItemInput)); return err }},
		{"CreateTable", &dynamodb.CreateTableInput{TableName: aws.String("t"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeB}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("g"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				Projection:            &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x"}},
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(math.MaxInt64)}}},
			Tags:                []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}},
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
		}, func(in any) error { _, err := c.CreateTable(ctx, in.(*dynamodb.CreateTableInput)); return err }},
		{"TransactWriteItems", &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"), TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("t"), Item: every}},
			{Update: &types.Update{TableName: aws.String("t"), Key: every, UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: every}},
			{Delete: &types.Delete{TableName: aws.String("t"), Key: every, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("t"), Key: every, ConditionExpression: aws.String("attribute_exists(a)")}},
		}}, func(in any) error {
			_, err := c.TransactWriteItems(ctx, in.(*dynamodb.TransactWriteItemsInput))
			return err
		}},
		{"BatchWriteItem", &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"t": {{PutRequest: &types.PutRequest{Item: every}}, {DeleteRequest: &types.DeleteRequest{Key: every}}}}},
			func(in any) error { _, err := c.BatchWriteItem(ctx, in.(*dynamodb.BatchWriteItemInput)); return err }},
		{"BatchGetItem", &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"t": {Keys: []map[string]types.AttributeValue{every, every}, ProjectionExpression: aws.String("a"), ConsistentRead: aws.Bool(true)}}},
			func(in any) error { _, err := c.BatchGetItem(ctx, in.(*dynamodb.BatchGetItemInput)); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(tc.in); err != nil {
				t.Fatal(err)
			}
			got := reflect.New(reflect.TypeOf(tc.in).Elem()).Interface()
			if err := decodeInput(<-bodies, got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.in, got, ignoreUnexported); d != "" {
				t.Errorf("decoded input differs (-sent +decoded):\n%s", d)
			}
		})
	}
}

// TestAppendJSONString checks the string encoder against encoding/json on
// strings of every kind, including invalid UTF-8 and characters next to
// the 8-byte fast path's boundaries.
func TestAppendJSONString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", "~", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "日", "\u2028", "\xff", "\xe6\x97", "😀"}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for n := r.IntN(40); n > 0; n-- {
			if r.IntN(3) == 0 {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			} else {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		s := b.String()
		var got, want string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", s, appendJSONString(nil, s), err)
		}
		std, _ := json.Marshal(s)
		if err := json.Unmarshal(std, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%q: decoded %q, want %q", s, got, want)
		}
	}
}
