package ddbjson_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity/internal/ddbjson"
)

type fixed struct{ body []byte }

func (f *fixed) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"application/x-amz-json-1.0"}},
		Body: io.NopCloser(bytes.NewReader(f.body)), Request: r}, nil
}

func client(body string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://x.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}, nil
		}),
		HTTPClient: &http.Client{Transport: &fixed{[]byte(body)}},
	})
}

func norm(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + v.Value
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B:%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL:%v", v.Value)
	case *types.AttributeValueMemberNULL:
		return fmt.Sprintf("NULL:%v", v.Value)
	case *types.AttributeValueMemberSS:
		return append([]string{"SS"}, v.Value...)
	case *types.AttributeValueMemberNS:
		return append([]string{"NS"}, v.Value...)
	case *types.AttributeValueMemberBS:
		out := []string{"BS"}
		for _, b := range v.Value {
			out = append(out, fmt.Sprintf("%x", b))
		}
		return out
	case *types.AttributeValueMemberL:
		out := []any{"L"}
		for _, e := range v.Value {
			out = append(out, norm(e))
		}
		return out
	case *types.AttributeValueMemberM:
		return normMap(v.Value)
	}
	return fmt.Sprintf("?%T", v)
}

func normMap(m map[string]types.AttributeValue) map[string]any {
	if m == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = norm(v)
	}
	return out
}

func normQuery(o *dynamodb.QueryOutput) any {
	var items []any
	for _, it := range o.Items {
		items = append(items, normMap(it))
	}
	return []any{items, normMap(o.LastEvaluatedKey), o.Count, o.ScannedCount}
}

var bodies = []string{
	`{"Count":2,"Items":[{"PK":{"S":"CATEGORY#c001"},"title":{"S":"2025년 3월 \"사업\" 보고서\n\u00e9\ud83d\ude00 \ud800x"},"n":{"N":"-12.5e3"},"b":{"B":"aGVsbG8="},"t":{"BOOL":true},"f":{"BOOL":false},"z":{"NULL":true},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AQ==","Ag=="]},"l":{"L":[{"S":"x"},{"N":"1"},{"L":[]},{"M":{}}]},"m":{"M":{"k":{"S":"v"},"nested":{"M":{"q":{"BOOL":false}}}}}},{"PK":{"S":"a\/b\\c\t"}}],"LastEvaluatedKey":{"PK":{"S":"CATEGORY#c001"},"SK":{"S":"POST#p001"}},"ScannedCount":3}`,
	` { "Items" : [ ] , "Count" : 0 , "ScannedCount" : 0 } `,
	`{"Count":1,"Items":[{"PK":{"S":""}}],"ScannedCount":1,"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5}}`,
	`{"Count":1,"Items":[{"PK":{"S":"x"}}],"ScannedCount":1,"Unknown":[1,2,{"a":null}]}`,
	`{"ConsumedCapacity":{"TableName":"t\"{[","CapacityUnits":2.5,"ReadCapacityUnits":2.5,"Table":{"CapacityUnits":1,"ReadCapacityUnits":1},"GlobalSecondaryIndexes":{"GSI1":{"CapacityUnits":1.5}},"LocalSecondaryIndexes":{"LSI1":{"ReadCapacityUnits":0.5,"WriteCapacityUnits":0}}},"Count":1,"Items":[{"PK":{"S":"x"}}],"ScannedCount":1}`,
	`{"Count":0,"Items":[],"ScannedCount":0,"ConsumedCapacity":null}`,
	`{"Count":0,"Items":[],"ScannedCount":0,"ConsumedCapacity":{"TableName":"t","CapacityUnits":1,"VectorIndexes":{}}}`,
}

// TestParity decodes each body with the SDK's decoder and with ours.
func TestParity(t *testing.T) {
	for i, body := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ctx := context.Background()
			in := &dynamodb.QueryInput{TableName: aws.String("t")}
			std, err1 := client(body).Query(ctx, in)
			fast, err2 := client(body).Query(ctx, in, ddbjson.Use)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("errors differ: %v / %v", err1, err2)
			}
			if err1 != nil {
				return
			}
			if diff := cmp.Diff(normQuery(std), normQuery(fast)); diff != "" {
				t.Fatal(diff)
			}
			sameCapacity(t, std.ConsumedCapacity, fast.ConsumedCapacity)
		})
	}
	get := `{"Item":{"PK":{"S":"USER#u001"},"displayName":{"S":"김대연"}}}`
	std, err := client(get).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := client(get).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}}, ddbjson.Use)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normMap(std.Item), normMap(fast.Item)); diff != "" {
		t.Fatal(diff)
	}
	empty, err := client(`{}`).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}}, ddbjson.Use)
	if err != nil || empty.Item != nil {
		t.Fatalf("empty GetItem %v %v", empty.Item, err)
	}
}

// sameCapacity fails t unless both ConsumedCapacity values have the same
// members (compared as JSON).
func sameCapacity(t *testing.T, std, fast *types.ConsumedCapacity) {
	t.Helper()
	a, _ := json.Marshal(std)
	b, _ := json.Marshal(fast)
	if string(a) != string(b) {
		t.Fatalf("consumed capacity differs:\n sdk %s\nours %s", a, b)
	}
}

// TestParityWrites decodes the returned attributes of UpdateItem, PutItem
// and DeleteItem with the SDK's decoder and with ours, including
// responses ours leaves to the SDK.
func TestParityWrites(t *testing.T) {
	ctx := context.Background()
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}
	for i, body := range []string{
		`{"Attributes":{"PK":{"S":"USER#u001"},"n":{"N":"3"},"l":{"L":[{"S":"x"}]},"m":{"M":{"a":{"BOOL":true}}}}}`,
		`{}`,
		` { "Attributes" : { } } `,
		`{"Attributes":{"PK":{"S":"x"}},"ConsumedCapacity":{"TableName":"t","CapacityUnits":1}}`,
		`{"Attributes":{"PK":{"S":"x"}},"ItemCollectionMetrics":{"SizeEstimateRangeGB":[0,1]}}`,
		`{"Attributes":{"PK":{"S":"x"}},"Count":1}`,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			type pair struct {
				std, fast map[string]types.AttributeValue
			}
			var got []pair
			u1, err1 := client(body).UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key})
			u2, err2 := client(body).UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key}, ddbjson.Use)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("UpdateItem errors differ: %v / %v", err1, err2)
			}
			if err1 == nil {
				got = append(got, pair{u1.Attributes, u2.Attributes})
				if (u1.ItemCollectionMetrics == nil) != (u2.ItemCollectionMetrics == nil) {
					t.Fatal("UpdateItem metadata differs")
				}
				sameCapacity(t, u1.ConsumedCapacity, u2.ConsumedCapacity)
			}
			p1, err1 := client(body).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: key})
			p2, err2 := client(body).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: key}, ddbjson.Use)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("PutItem errors differ: %v / %v", err1, err2)
			}
			if err1 == nil {
				got = append(got, pair{p1.Attributes, p2.Attributes})
			}
			d1, err1 := client(body).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("t"), Key: key})
			d2, err2 := client(body).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("t"), Key: key}, ddbjson.Use)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("DeleteItem errors differ: %v / %v", err1, err2)
			}
			if err1 == nil {
				got = append(got, pair{d1.Attributes, d2.Attributes})
			}
			for _, p := range got {
				if diff := cmp.Diff(normMap(p.std), normMap(p.fast)); diff != "" {
					t.Fatal(diff)
				}
				if (p.std == nil) != (p.fast == nil) {
					t.Fatalf("nil Attributes differ: %v / %v", p.std, p.fast)
				}
			}
		})
	}
}

// FuzzDecode: the decoder never panics, and whenever it accepts a payload
// the SDK decodes it to the same values.
func FuzzDecode(f *testing.F) {
	for _, b := range bodies {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var out dynamodb.QueryOutput
		if ddbjson.Decode([]byte(body), &out) != nil {
			return
		}
		std, err := client(body).Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("t")})
		if err != nil {
			t.Fatalf("accepted %q that the SDK rejects: %v", body, err)
		}
		if diff := cmp.Diff(normQuery(std), normQuery(&out)); diff != "" {
			t.Fatalf("%q: %s", body, diff)
		}
	})
}

// TestDecodeCapacity: a response with ConsumedCapacity stays on the fast
// path (traced and budgeted requests ask for it); one with a member the
// decoder does not know goes to the SDK.
func TestDecodeCapacity(t *testing.T) {
	var q dynamodb.QueryOutput
	if err := ddbjson.Decode([]byte(bodies[4]), &q); err != nil || q.ConsumedCapacity == nil || *q.ConsumedCapacity.CapacityUnits != 2.5 ||
		*q.ConsumedCapacity.TableName != `t"{[` || *q.ConsumedCapacity.GlobalSecondaryIndexes["GSI1"].CapacityUnits != 1.5 {
		t.Fatalf("capacity not decoded: %v %+v", err, q.ConsumedCapacity)
	}
	var g dynamodb.GetItemOutput
	if err := ddbjson.Decode([]byte(`{"Item":{"PK":{"S":"x"}},"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5}}`), &g); err != nil || *g.ConsumedCapacity.CapacityUnits != 0.5 {
		t.Fatalf("GetItem capacity: %v", err)
	}
	if err := ddbjson.Decode([]byte(bodies[6]), &dynamodb.QueryOutput{}); err == nil {
		t.Fatal("VectorIndexes decoded instead of falling back")
	}
}
