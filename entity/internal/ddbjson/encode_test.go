package ddbjson_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity/internal/ddbjson"
)

// capture records the body and headers of the last request and answers
// with an empty object.
type capture struct {
	body   []byte
	header http.Header
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	c.body, _ = io.ReadAll(r.Body)
	c.header = r.Header.Clone()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"application/x-amz-json-1.0"}},
		Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

// bodies sends in with the SDK's serializer and with ours and returns
// both request bodies and X-Amz-Target headers.
func sendBoth(t *testing.T, in any) (sdk, ours []byte, sdkTarget, ourTarget string) {
	t.Helper()
	c := &capture{}
	cl := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://x.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}, nil
		}),
		HTTPClient: &http.Client{Transport: c},
	})
	ctx := context.Background()
	send := func(opts ...func(*dynamodb.Options)) ([]byte, string) {
		var err error
		switch in := in.(type) {
		case *dynamodb.GetItemInput:
			_, err = cl.GetItem(ctx, in, opts...)
		case *dynamodb.PutItemInput:
			_, err = cl.PutItem(ctx, in, opts...)
		case *dynamodb.UpdateItemInput:
			_, err = cl.UpdateItem(ctx, in, opts...)
		case *dynamodb.DeleteItemInput:
			_, err = cl.DeleteItem(ctx, in, opts...)
		case *dynamodb.QueryInput:
			_, err = cl.Query(ctx, in, opts...)
		case *dynamodb.ScanInput:
			_, err = cl.Scan(ctx, in, opts...)
		}
		if err != nil {
			t.Fatal(err)
		}
		return c.body, c.header.Get("X-Amz-Target")
	}
	sdk, sdkTarget = send()
	ours, ourTarget = send(ddbjson.Use)
	return
}

func s(v string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: v} }

// strs are strings that exercise every escape: control characters,
// quotes, DEL, U+2028/U+2029, other three-byte sequences starting with
// 0xE2, invalid UTF-8, and runs longer than eight bytes around them.
var strs = []string{
	"", "a", "plain ascii longer than eight bytes", "2025년 3월 사업보고서 / March 2025 business report",
	"quote\" back\\slash", "ctl\x00\x01\x1f\t\n\r end", "del\x7f", "<>&'/",
	"line\u2028para\u2029", "€ – — … \u2027\u202a", "bad\xff\xfeutf8", "trunc\xe2\x80", "\xe2",
	strings.Repeat("Markdown contents, 마크다운 본문. ", 40), strings.Repeat("\"", 17), "emoji 😀 \U0010ffff",
}

func TestEncodeStringsLikeSDK(t *testing.T) {
	for _, v := range strs {
		in := &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"k" + v: s(v)}}
		sdk, ours, st, ot := sendBoth(t, in)
		if !bytes.Equal(sdk, ours) || st != ot {
			t.Errorf("%q:\n sdk %s %s\nours %s %s", v, st, sdk, ot, ours)
		}
	}
}

func TestEncodeStringsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "\"", "\\", "\x00", "\x1f", "\x7f", "\xe2", "\x80", "\xa8", "\xa9", "\xff", "한", "\u2028", "\u2029", " ", "é"}
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		v := b.String()
		in := &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"k": s(v)}}
		sdk, ours, _, _ := sendBoth(t, in)
		if !bytes.Equal(sdk, ours) {
			t.Fatalf("%q:\n sdk %s\nours %s", v, sdk, ours)
		}
	}
}

// one holds every attribute value type, each map with one member so that
// the bytes are deterministic.
func every() types.AttributeValue {
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{
		s("x"), &types.AttributeValueMemberN{Value: "-12.5e3"},
		&types.AttributeValueMemberB{Value: []byte("hello\x00")}, &types.AttributeValueMemberB{Value: []byte{}},
		&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{},
		&types.AttributeValueMemberNULL{Value: true},
		&types.AttributeValueMemberSS{Value: []string{"a", "b\""}}, &types.AttributeValueMemberSS{},
		&types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		&types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		&types.AttributeValueMemberL{}, &types.AttributeValueMemberM{},
		&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n\"ested": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("deep")}}}},
	}}
}

func one(k string, v types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{k: v}
}

func TestEncodeRequestsLikeSDK(t *testing.T) {
	tbl := aws.String("FMWebAppTable")
	cond, upd, proj := aws.String("attribute_exists(#0) AND #1 = :0"), aws.String("SET #1 = :0"), aws.String("#0, #1")
	names := map[string]string{"#0": "PK"}
	ins := []any{
		&dynamodb.GetItemInput{TableName: tbl, Key: one("PK", s("A#1"))},
		&dynamodb.GetItemInput{TableName: tbl, Key: one("PK", every()), ConsistentRead: aws.Bool(true), ProjectionExpression: proj,
			ExpressionAttributeNames: names, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, AttributesToGet: []string{"a"}},
		&dynamodb.PutItemInput{TableName: tbl, Item: one("v", every())},
		&dynamodb.PutItemInput{TableName: tbl, Item: one("v", every()), ConditionExpression: cond, ExpressionAttributeNames: names,
			ExpressionAttributeValues: one(":0", s("x")), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
			ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize, ReturnValues: types.ReturnValueAllOld,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
		&dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{}, ExpressionAttributeNames: map[string]string{}},
		&dynamodb.UpdateItemInput{TableName: tbl, Key: one("PK", s("k")), UpdateExpression: upd, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: one(":0", every()), ReturnValues: types.ReturnValueAllNew},
		&dynamodb.DeleteItemInput{TableName: tbl, Key: one("PK", s("k")), ConditionExpression: cond, ExpressionAttributeNames: names,
			ExpressionAttributeValues: one(":0", s("x")), ReturnValues: types.ReturnValueAllOld},
		&dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: cond, ExpressionAttributeNames: names,
			ExpressionAttributeValues: one(":0", s("CATEGORY#c001")), Limit: aws.Int32(20), ScanIndexForward: aws.Bool(false),
			IndexName: aws.String("GSI1"), FilterExpression: cond, ProjectionExpression: proj, Select: types.SelectSpecificAttributes,
			ConsistentRead: aws.Bool(false), ExclusiveStartKey: one("PK", s("x")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal},
		&dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: cond, Limit: aws.Int32(-1), AttributesToGet: []string{}},
		&dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(3), TotalSegments: aws.Int32(16), Limit: aws.Int32(100),
			ExclusiveStartKey: one("PK", s("x")), FilterExpression: cond, ExpressionAttributeNames: names,
			ExpressionAttributeValues: one(":0", every()), IndexName: aws.String("i"), Select: types.SelectCount,
			ProjectionExpression: proj, ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityNone},
		&dynamodb.ScanInput{TableName: tbl},
	}
	for i, in := range ins {
		sdk, ours, st, ot := sendBoth(t, in)
		if !bytes.Equal(sdk, ours) || st != ot {
			t.Errorf("%d %T:\n sdk %s %s\nours %s %s", i, in, st, sdk, ot, ours)
		}
	}
}

// TestEncodeManyMembers compares requests whose maps have many members
// (whose order differs from run to run) as JSON values.
func TestEncodeManyMembers(t *testing.T) {
	item := map[string]types.AttributeValue{}
	for i, v := range strs {
		item[string(rune('a'+i))+v] = s(v)
	}
	item["all"] = every()
	inner := map[string]types.AttributeValue{}
	for k, v := range item {
		inner[k] = v
	}
	item["m"] = &types.AttributeValueMemberM{Value: inner}
	in := &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item, ExpressionAttributeNames: map[string]string{"#a": "a", "#b": "b\"", "#c": "ü"}}
	sdk, ours, _, _ := sendBoth(t, in)
	var a, b any
	if err := json.Unmarshal(sdk, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ours, &b); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Fatalf("-sdk +ours\n%s", d)
	}
}

// TestEncodeFallsBack: what Encode does not handle goes to the SDK.
func TestEncodeFallsBack(t *testing.T) {
	for _, in := range []any{
		&dynamodb.PutItemInput{TableName: aws.String("t"), Item: one("k", nil)},
		&dynamodb.PutItemInput{TableName: aws.String("t"), Item: one("k", s("x")), Expected: map[string]types.ExpectedAttributeValue{"k": {Exists: aws.Bool(false)}}},
		&dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: one("k", s("x")), AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionDelete}}},
		&dynamodb.QueryInput{TableName: aws.String("t"), KeyConditions: map[string]types.Condition{}},
		&dynamodb.ScanInput{TableName: aws.String("t"), ScanFilter: map[string]types.Condition{}},
		&dynamodb.ScanInput{TableName: aws.String("t"), ExpressionAttributeValues: one(":a", &types.AttributeValueMemberM{Value: one("x", nil)})},
		&dynamodb.DescribeTableInput{TableName: aws.String("t")},
	} {
		if _, _, ok := ddbjson.Encode(in); ok {
			t.Errorf("%T encoded", in)
		}
	}
	// The fallback sends what the SDK sends.
	in := &dynamodb.PutItemInput{TableName: aws.String("t"), Item: one("k", s("x")), Expected: map[string]types.ExpectedAttributeValue{"k": {Exists: aws.Bool(false)}}}
	sdk, ours, _, _ := sendBoth(t, in)
	if !bytes.Equal(sdk, ours) {
		t.Fatalf("sdk %s\nours %s", sdk, ours)
	}
}

func BenchmarkEncodePut(b *testing.B) {
	item := map[string]types.AttributeValue{}
	for i, v := range strs {
		item[string(rune('a'+i))] = s(v)
	}
	in := &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item}
	b.ReportAllocs()
	for b.Loop() {
		ddbjson.Encode(in)
	}
}
