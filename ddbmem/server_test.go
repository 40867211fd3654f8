package ddbmem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

const sigV4 = "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"

// rawCall posts body to the endpoint with the given target and content
// type and returns the status, headers and body.
func rawCall(t *testing.T, url, method, target, ct, auth, body string) (int, http.Header, string) {
	t.Helper()
	resp := do(t, newRequest(t, url, method, target, ct, auth, strings.NewReader(body)))
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// newRequest is a request with the given target, content type and
// Authorization header (and then an X-Amz-Date).
func newRequest(t *testing.T, url, method, target, ct, auth string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
		req.Header.Set("X-Amz-Date", "20260101T000000Z")
	}
	return req
}

func do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// pkTable is the CreateTable input of table name, keyed by the string pk,
// billed on demand.
func pkTable(name *string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            name,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
}

func serve(t *testing.T) *ddbmem.Server {
	t.Helper()
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// TestServerProtocol checks the protocol's edges with raw HTTP requests:
// status, body (__type and message as DynamoDB sends them), content type,
// and on every response a request id and the CRC32 of the body.
func TestServerProtocol(t *testing.T) {
	srv := serve(t)
	const json10 = "application/x-amz-json-1.0"
	const tgt = "DynamoDB_20120810."
	cases := []struct {
		name                     string
		method, target, ct, auth string
		body                     string
		status                   int
		wantCT                   string
		want                     string // exact body, or JSON compared as a map
	}{
		{"ListTables", "POST", tgt + "ListTables", json10, sigV4, `{}`, 200, json10, `{"TableNames":[]}`},
		{"application/json is accepted and echoed", "POST", tgt + "ListTables", "application/json; charset=utf-8", sigV4, `{}`, 200, "application/json", `{"TableNames":[]}`},
		{"unknown members are ignored", "POST", tgt + "ListTables", json10, sigV4, `{"Bogus":[1,{"a":null}],"Limit":null}`, 200, json10, `{"TableNames":[]}`},
		{"unknown target", "POST", tgt + "Nope", json10, sigV4, `{}`, 400, json10, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"other service", "POST", "Kinesis_20131202.ListStreams", json10, sigV4, `{}`, 400, json10, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"DynamoDB Streams on the same port", "POST", "DynamoDBStreams_20120810.ListStreams", json10, sigV4, `{}`, 200, json10, `{"Streams":[]}`},
		{"unknown DynamoDB Streams target", "POST", "DynamoDBStreams_20120810.Nope", json10, sigV4, `{}`, 400, json10, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"no target", "POST", "", json10, sigV4, `{}`, 400, json10, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"malformed JSON", "POST", tgt + "ListTables", json10, sigV4, `{"Limit":`, 400, json10, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"trailing garbage", "POST", tgt + "ListTables", json10, sigV4, `{} x`, 400, json10, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"empty body", "POST", tgt + "ListTables", json10, sigV4, ``, 400, json10, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"wrong content type", "POST", tgt + "ListTables", "text/plain", sigV4, `{}`, 404, "", "<UnknownOperationException/>\n"},
		{"not a POST", "PUT", tgt + "ListTables", json10, sigV4, `{}`, 404, "", "<UnknownOperationException/>\n"},
		{"a null request is an empty one", "POST", tgt + "ListTables", json10, sigV4, `null`, 200, json10, `{"TableNames":[]}`},
		{"GET is a health check", "GET", "", "", "", ``, 200, "", "healthy: dynamodb.us-east-1.amazonaws.com "},
		{"missing authentication", "POST", tgt + "ListTables", json10, "", `{}`, 400, json10,
			`{"__type":"com.amazon.coral.service#MissingAuthenticationTokenException","message":"Request is missing Authentication Token"}`},
		{"incomplete signature", "POST", tgt + "ListTables", json10, "AWS4- Signature=b,Credential=a", `{}`, 400, json10,
			`{"__type":"com.amazon.coral.service#IncompleteSignatureException","message":"Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4- Signature=b,Credential=a"}`},
		{"not a version 4 signature", "POST", tgt + "ListTables", json10, "AWS abc", `{}`, 400, json10,
			`{"__type":"com.amazon.coral.service#MissingAuthenticationTokenException","message":"Request is missing Authentication Token"}`},
		{"malformed JSON without authentication", "POST", tgt + "ListTables", json10, "", `{`, 400, json10, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"string for an integer", "POST", tgt + "ListTables", json10, sigV4, `{"Limit":"5"}`, 400, json10,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"STRING_VALUE cannot be converted to Integer"}`},
		{"number for a string", "POST", tgt + "DescribeTable", json10, sigV4, `{"TableName":5}`, 400, json10,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"NUMBER_VALUE cannot be converted to String"}`},
		{"list for a map", "POST", tgt + "GetItem", json10, sigV4, `{"TableName":"abc","Key":[]}`, 400, json10,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"}`},
		{"attribute value with two types", "POST", tgt + "GetItem", json10, sigV4, `{"TableName":"abc","Key":{"pk":{"S":"a","N":"1"}}}`, 400, json10,
			`{"__type":"com.amazon.coral.validate#ValidationException","message":"Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"}`},
		{"two types, one a bad number", "POST", tgt + "GetItem", json10, sigV4, `{"TableName":"abc","Key":{"pk":{"S":"a","N":"b"}}}`, 400, json10,
			`{"__type":"com.amazon.coral.validate#ValidationException","message":"The parameter cannot be converted to a numeric value: b"}`},
		{"bad base64", "POST", tgt + "GetItem", json10, sigV4, `{"TableName":"abc","Key":{"pk":{"B":"abc"}}}`, 400, json10,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"Base64 encoded length is expected a multiple of 4 bytes but found: 3"}`},
		{"bad base64 character", "POST", tgt + "GetItem", json10, sigV4, `{"TableName":"abc","Key":{"pk":{"B":"ab.d"}}}`, 400, json10,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"Invalid Base64 character: '.'"}`},
		{"non-canonical base64", "POST", tgt + "GetItem", json10, sigV4, `{"TableName":"abc","Key":{"pk":{"B":"AB=="}}}`, 400, json10,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"Invalid last non-pad Base64 character dectected"}`},
		{"validation error", "POST", tgt + "ListTables", json10, sigV4, `{"Limit":500}`, 400, json10,
			`{"__type":"com.amazon.coral.validate#ValidationException","message":"1 validation error detected: Value '500' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"}`},
		{"missing table", "POST", tgt + "DescribeTable", json10, sigV4, `{"TableName":"missing"}`, 400, json10,
			`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found: Table: missing not found"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := rawCall(t, srv.URL(), c.method, c.target, c.ct, c.auth, c.body)
			if status != c.status {
				t.Errorf("status %d, want %d (body %s)", status, c.status, body)
			}
			if got := h.Get("Content-Type"); c.wantCT != "" && got != c.wantCT {
				t.Errorf("Content-Type %q, want %q", got, c.wantCT)
			}
			if got, want := h.Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 10); got != want {
				t.Errorf("x-amz-crc32 %q, want %q (the CRC32 of the body)", got, want)
			}
			if id := h.Get("X-Amzn-Requestid"); len(id) != 52 {
				t.Errorf("x-amzn-RequestId %q, want 52 characters", id)
			}
			if h.Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length %q, body of %d bytes", h.Get("Content-Length"), len(body))
			}
			if strings.HasPrefix(c.want, "{") {
				var got, want map[string]any
				if err := json.Unmarshal([]byte(body), &got); err != nil {
					t.Fatalf("body %q: %v", body, err)
				}
				if err := json.Unmarshal([]byte(c.want), &want); err != nil {
					t.Fatal(err)
				}
				if c.name == "missing table" {
					// The message is the engine's; only its presence is checked.
					want["message"] = got["message"]
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("body (-want +got):\n%s", d)
				}
			} else if body != c.want {
				t.Errorf("body %q, want %q", body, c.want)
			}
		})
	}
}

// TestServerSerializationMessages checks the SerializationException
// texts DynamoDB's deserializer gives a JSON value of the wrong type, by
// what was expected and where it stands (a structure's member, or a
// list's element or map's value), as dynalite's suite records them from
// DynamoDB.
func TestServerSerializationMessages(t *testing.T) {
	srv := serve(t)
	const cast = "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of loader 'bootstrap')"
	cases := []struct{ name, op, body, want string }{
		{"true for a string", "DescribeTable", `{"TableName":true}`, "TRUE_VALUE cannot be converted to String"},
		{"a decimal for a string", "DescribeTable", `{"TableName":34.56}`, "DECIMAL_VALUE cannot be converted to String"},
		{"a big integer for a string", "DescribeTable", `{"TableName":2147483648}`, "NUMBER_VALUE cannot be converted to String"},
		{"a list for a string", "DescribeTable", `{"TableName":[]}`, "Unrecognized collection type class java.lang.String"},
		{"an object for a string", "DescribeTable", `{"TableName":{}}`, "Start of structure or map found where not expected"},
		{"false for an integer", "ListTables", `{"Limit":false}`, "FALSE_VALUE cannot be converted to Integer"},
		{"a list for a long", "CreateTable", `{"ProvisionedThroughput":{"ReadCapacityUnits":[]}}`, "Unrecognized collection type class java.lang.Long"},
		{"a number for a Boolean", "GetItem", `{"ConsistentRead":23}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{"a string for a Boolean", "GetItem", `{"ConsistentRead":"23"}`, "Unexpected token received from parser"},
		{"a number for a blob", "GetItem", `{"Key":{"a":{"B":23}}}`, "only base-64-encoded strings are convertible to bytes"},
		{"a list for a blob", "GetItem", `{"Key":{"a":{"BS":[[]]}}}`, "Unrecognized collection type class java.nio.ByteBuffer"},
		{"base64 of the wrong length", "GetItem", `{"Key":{"a":{"B":"23456"}}}`, "Base64 encoded length is expected a multiple of 4 bytes but found: 5"},
		{"padding before the end", "GetItem", `{"Key":{"a":{"B":"=+/="}}}`, "Invalid last non-pad Base64 character dectected"},
		{"a string for a list member", "GetItem", `{"AttributesToGet":"a"}`, "Unexpected field type"},
		{"an object for a list member", "GetItem", `{"AttributesToGet":{}}`, "Start of structure or map found where not expected"},
		{"a number for a map member", "GetItem", `{"Key":5}`, "Unexpected field type"},
		{"a list for a map member", "GetItem", `{"Key":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"},
		{"a list for a map of strings", "GetItem", `{"ExpressionAttributeNames":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, java.lang.String>"},
		{"a string for a structure member", "CreateTable", `{"ProvisionedThroughput":"a"}`, "Unexpected field type"},
		{"a list for a structure member", "CreateTable", `{"ProvisionedThroughput":[]}`, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.ProvisionedThroughput"},
		{"a number for a structure in a list", "CreateTable", `{"KeySchema":[5]}`, "Unexpected value type in payload"},
		{"a list for a structure in a list", "CreateTable", `{"KeySchema":[[]]}`, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.KeySchemaElement"},
		{"a string for an attribute value in a map", "GetItem", `{"Key":{"a":"x"}}`, "Unexpected value type in payload"},
		{"a string for an attribute value member", "UpdateItem", `{"AttributeUpdates":{"a":{"Value":"x"}}}`, "Unexpected field type"},
		{"a string for a list in a map", "BatchWriteItem", `{"RequestItems":{"t":"x"}}`, cast},
		{"a list for a map of lists", "BatchWriteItem", `{"RequestItems":[]}`,
			"Unrecognized collection type java.util.Map<java.lang.String, java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>>"},
		{"a number for a map in a list", "BatchGetItem", `{"RequestItems":{"t":{"Keys":[5]}}}`, cast},
		{"a string for an attribute value's list", "GetItem", `{"Key":{"a":{"L":"x"}}}`, "Unexpected field type"},
		{"a list for an attribute value's map", "GetItem", `{"Key":{"a":{"M":[]}}}`,
			"Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810."+c.op, "application/x-amz-json-1.0", sigV4, c.body)
			var got struct{ Type, Message string }
			if err := json.Unmarshal([]byte(body), &struct {
				Type    *string `json:"__type"`
				Message *string
			}{&got.Type, &got.Message}); err != nil {
				t.Fatal(err)
			}
			if status != 400 || got.Type != "com.amazon.coral.service#SerializationException" || got.Message != c.want {
				t.Errorf("%d %s %q, want 400 SerializationException %q", status, got.Type, got.Message, c.want)
			}
		})
	}
	// DynamoDB reads true, 1 and yes (false, 0 and no) as Booleans, in any
	// case: NULL "no" is a NULL of false, which it rejects as such.
	for _, v := range []string{`"no"`, `"FALSE"`, `"0"`} {
		_, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810.GetItem", "application/x-amz-json-1.0", sigV4,
			`{"TableName":"abc","Key":{"a":{"NULL":`+v+`}}}`)
		if want := "Null attribute value types must have the value of true"; !strings.Contains(body, want) {
			t.Errorf("NULL %s: %s, want %q", v, body, want)
		}
	}
}

// TestServerEmptyComparisonOperator checks that a legacy condition's
// ComparisonOperator sent as "" is a value outside the enum, and one
// left out a missing one (dynalite's suite records DynamoDB so).
func TestServerEmptyComparisonOperator(t *testing.T) {
	srv := serve(t)
	for _, c := range []struct{ op, body, want string }{
		{"Scan", `{"TableName":"abc","ScanFilter":{"a":{},"b":{"ComparisonOperator":""}}}`,
			"2 validation errors detected: Value null at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null; " +
				"Value '' at 'scanFilter.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"PutItem", `{"TableName":"abc","Item":{"a":{"S":"x"}},"Expected":{"b":{"ComparisonOperator":""}}}`,
			"1 validation error detected: Value '' at 'expected.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
	} {
		status, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810."+c.op, "application/x-amz-json-1.0", sigV4, c.body)
		var got struct{ Message string }
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if status != 400 || got.Message != c.want {
			t.Errorf("%s: %d %q, want 400 %q", c.op, status, got.Message, c.want)
		}
	}
}

// TestServerTenViolations checks which ten of a Query's or Scan's
// constraint violations are listed: DynamoDB's order of members, as
// dynalite's suite records it, leaves a Scan's attributesToGet and a
// Query's second key condition out.
func TestServerTenViolations(t *testing.T) {
	srv := serve(t)
	for _, c := range []struct{ op, body, in, out string }{
		{"Scan", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[],"IndexName":"abc;","Segment":-1,"TotalSegments":-1,"Select":"hi","Limit":-1,` +
			`"ScanFilter":{"a":{},"b":{"ComparisonOperator":""}},"ConditionalOperator":"AN"}`, "'totalSegments'", "'attributesToGet'"},
		{"Query", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[],"IndexName":"abc;","Select":"hi","Limit":-1,` +
			`"KeyConditions":{"a":{},"b":{"ComparisonOperator":""}},"ConditionalOperator":"AN","QueryFilter":{"a":{},"b":{"ComparisonOperator":""}}}`,
			"'keyConditions.a.member.comparisonOperator'", "'keyConditions.b.member.comparisonOperator'"},
	} {
		_, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810."+c.op, "application/x-amz-json-1.0", sigV4, c.body)
		var got struct{ Message string }
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got.Message, "10 validation errors detected: ") || !strings.Contains(got.Message, c.in) || strings.Contains(got.Message, c.out) {
			t.Errorf("%s: %q, want ten violations with %s and without %s", c.op, got.Message, c.in, c.out)
		}
	}
}

// TestServerManyTypesInPlace checks that an attribute value with two types
// (or two types, one an N that is no number) is reported where it stands,
// in the words of its place, on a table that exists, and that nothing is
// written.
func TestServerManyTypesInPlace(t *testing.T) {
	srv := serve(t)
	ctx := context.Background()
	if _, err := srv.Client().CreateTable(ctx, pkTable(aws.String("tbl"))); err != nil {
		t.Fatal(err)
	}
	const two = `{"S":"a","N":"1"}`
	const many = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	cases := []struct{ name, op, body, want string }{
		{"Key", "GetItem", `{"TableName":"tbl","Key":{"pk":` + two + `}}`, many},
		{"Key, a bad number", "GetItem", `{"TableName":"tbl","Key":{"pk":{"S":"a","N":"b"}}}`, "The parameter cannot be converted to a numeric value: b"},
		{"Item", "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"x":` + two + `}}`, many},
		{"ExpressionAttributeValues", "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"}},"ConditionExpression":"x = :b","ExpressionAttributeValues":{":b":` + two + `}}`,
			"ExpressionAttributeValues contains invalid value: " + many + " for key :b"},
		{"ExpressionAttributeValues before the expression", "DeleteItem", `{"TableName":"tbl","Key":{"pk":{"S":"a"}},"ConditionExpression":"","ExpressionAttributeValues":{":b":{"N":"1e-131"}}}`,
			"ExpressionAttributeValues contains invalid value: Number underflow. Attempting to store a number with magnitude smaller than supported range for key :b"},
		{"ExclusiveStartKey", "Scan", `{"TableName":"tbl","ExclusiveStartKey":{"pk":` + two + `}}`, "The provided starting key is invalid: " + many},
		{"AttributeUpdates", "UpdateItem", `{"TableName":"tbl","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"x":{"Action":"PUT","Value":` + two + `}}}`, many},
		{"Expected", "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Value":` + two + `}}}`, many},
		{"ScanFilter", "Scan", `{"TableName":"tbl","ScanFilter":{"x":{"ComparisonOperator":"EQ","AttributeValueList":[` + two + `]}}}`, many},
		{"BatchWriteItem", "BatchWriteItem", `{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"pk":{"S":"a"},"x":` + two + `}}}]}}`, many},
		{"TransactWriteItems", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"tbl","Item":{"pk":{"S":"a"},"x":` + two + `}}}]}`, many},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810."+c.op, "application/x-amz-json-1.0", sigV4, c.body)
			var got struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if status != 400 || got.Type != "com.amazon.coral.validate#ValidationException" || got.Message != c.want {
				t.Errorf("%d %s %q, want 400 ValidationException %q", status, got.Type, got.Message, c.want)
			}
		})
	}
	out, err := srv.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl")})
	if err != nil || out.Count != 0 {
		t.Fatalf("scan after the failed writes: %v items, %v", out.Count, err)
	}
}

// TestServerTypedErrors checks that the SDK's client turns the endpoint's
// errors into the SDK's typed errors, with their data.
func TestServerTypedErrors(t *testing.T) {
	ctx := context.Background()
	srv := serve(t)
	c := srv.Client()
	tbl := aws.String("things")
	if _, err := c.CreateTable(ctx, pkTable(tbl)); err != nil {
		t.Fatal(err)
	}
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "1"}}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item}); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}

	t.Run("ConditionalCheckFailedException with the old item", func(t *testing.T) {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			t.Fatalf("got %v, want a *types.ConditionalCheckFailedException", err)
		}
		if d := cmp.Diff(item, ccf.Item, cmp.Comparer(func(a, b types.AttributeValue) bool {
			return cmp.Equal(a, b, cmp.AllowUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{}))
		})); d != "" {
			t.Errorf("Item (-want +got):\n%s", d)
		}
		if ccf.ErrorMessage() != "The conditional request failed" {
			t.Errorf("message %q", ccf.ErrorMessage())
		}
	})
	t.Run("TransactionCanceledException with reasons", func(t *testing.T) {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: tbl, Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "b"}}}},
			{ConditionCheck: &types.ConditionCheck{TableName: tbl, Key: key, ConditionExpression: aws.String("n = :two"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":two": &types.AttributeValueMemberN{Value: "2"}}}},
		}})
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) {
			t.Fatalf("got %v, want a *types.TransactionCanceledException", err)
		}
		var codes []string
		for _, r := range tce.CancellationReasons {
			codes = append(codes, aws.ToString(r.Code))
		}
		if d := cmp.Diff([]string{"None", "ConditionalCheckFailed"}, codes); d != "" {
			t.Errorf("reasons (-want +got):\n%s", d)
		}
		if !strings.Contains(tce.ErrorMessage(), "[None, ConditionalCheckFailed]") {
			t.Errorf("message %q", tce.ErrorMessage())
		}
	})
	t.Run("ResourceNotFoundException", func(t *testing.T) {
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("missing"), Key: key})
		var rnf *types.ResourceNotFoundException
		if !errors.As(err, &rnf) {
			t.Fatalf("got %v, want a *types.ResourceNotFoundException", err)
		}
	})
	t.Run("ResourceInUseException", func(t *testing.T) {
		_, err := c.CreateTable(ctx, pkTable(tbl))
		var riu *types.ResourceInUseException
		if !errors.As(err, &riu) {
			t.Fatalf("got %v, want a *types.ResourceInUseException", err)
		}
	})
	t.Run("ValidationException", func(t *testing.T) {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String("SET n = n +")})
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != ddbmem.ValidationException {
			t.Fatalf("got %v, want a ValidationException", err)
		}
	})
	t.Run("injected ThrottlingException", func(t *testing.T) {
		srv.DB().SetFault("GetItem", ddbmem.Fault{ThrottleRate: 1, ThrottleErr: &types.ThrottlingException{Message: aws.String("Rate exceeded")}})
		defer srv.DB().ClearFaults()
		_, err := srv.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }).GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key})
		var te *types.ThrottlingException
		if !errors.As(err, &te) || te.ErrorMessage() != "Rate exceeded" {
			t.Fatalf("got %v, want a *types.ThrottlingException", err)
		}
		_, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810.GetItem", "application/x-amz-json-1.0", sigV4, `{"TableName":"things","Key":{"pk":{"S":"a"}}}`)
		if !strings.Contains(body, `"__type":"com.amazon.coral.availability#ThrottlingException"`) {
			t.Errorf("body %s, want DynamoDB's __type of ThrottlingException", body)
		}
	})
	t.Run("injected internal error", func(t *testing.T) {
		srv.DB().SetFault("GetItem", ddbmem.Fault{Err: &types.InternalServerError{Message: aws.String("boom")}})
		defer srv.DB().ClearFaults()
		status, _, _ := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810.GetItem", "application/x-amz-json-1.0", sigV4, `{"TableName":"things","Key":{"pk":{"S":"a"}}}`)
		if status != 500 {
			t.Errorf("status %d, want 500", status)
		}
		_, err := srv.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }).GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key})
		var ise *types.InternalServerError
		if !errors.As(err, &ise) {
			t.Fatalf("got %v, want a *types.InternalServerError", err)
		}
	})
	t.Run("injected throttling", func(t *testing.T) {
		srv.DB().SetFault("GetItem", ddbmem.Fault{ThrottleRate: 1})
		defer srv.DB().ClearFaults()
		_, err := srv.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }).GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key})
		var pte *types.ProvisionedThroughputExceededException
		if !errors.As(err, &pte) {
			t.Fatalf("got %v, want a *types.ProvisionedThroughputExceededException", err)
		}
	})
}

// TestServerCRC checks the x-amz-crc32 header of every response to the
// SDK's client, successes and errors alike, against the body sent.
func TestServerCRC(t *testing.T) {
	h := ddbmem.New().Handler()
	var mu sync.Mutex
	var bad []string
	checked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		mu.Lock()
		checked++
		if got, want := rec.Header().Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10); got != want {
			bad = append(bad, fmt.Sprintf("%s: x-amz-crc32 %q, want %q", r.Header.Get("X-Amz-Target"), got, want))
		}
		mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	ctx := context.Background()
	c := ddbmem.NewEndpointClient(srv.URL)
	tbl := aws.String("crc")
	if _, err := c.CreateTable(ctx, pkTable(tbl)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%d \u00e9\"\n", i)},
			"b": &types.AttributeValueMemberB{Value: []byte{byte(i), 0xff}}}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item}); err != nil {
			t.Fatal(err)
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")})
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			t.Fatalf("got %v, want a ConditionalCheckFailedException", err)
		}
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: tbl})
	if err != nil || len(out.Items) != 20 {
		t.Fatalf("Scan: %d items, %v", len(out.Items), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 || checked != 42 {
		t.Fatalf("%d responses checked, want 42; mismatches: %v", checked, bad)
	}
}

// TestServeStart checks that an endpoint starts well under 5 ms and that
// Close stops it.
func TestServeStart(t *testing.T) {
	start := time.Now()
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if _, err := srv.Client().ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q, want a loopback URL", srv.URL())
	}
	t.Logf("Serve took %v", took)
	if _, err := srv.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }).ListTables(context.Background(), &dynamodb.ListTablesInput{}); err == nil {
		t.Error("the endpoint answers after Close")
	}
}

// TestServerCORS checks the answers to browsers' cross-origin requests.
func TestServerCORS(t *testing.T) {
	srv := serve(t)
	req, err := http.NewRequest(http.MethodOptions, srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "x-amz-target,content-type")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := map[string]string{}
	for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age"} {
		got[h] = resp.Header.Get(h)
	}
	want := map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "POST",
		"Access-Control-Allow-Headers": "x-amz-target,content-type", "Access-Control-Max-Age": "172800"}
	if resp.StatusCode != 200 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("headers (-want +got):\n%s", d)
	}
}

// TestServerConcurrent has many goroutines increment one counter through
// the endpoint and counts the result: no increment is lost.
func TestServerConcurrent(t *testing.T) {
	ctx := context.Background()
	srv := serve(t)
	c := srv.Client()
	tbl := aws.String("counters")
	if _, err := c.CreateTable(ctx, pkTable(tbl)); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "c"}}
	const workers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String("ADD n :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["n"].(*types.AttributeValueMemberN).Value; got != strconv.Itoa(workers*each) {
		t.Fatalf("counter %s, want %d", got, workers*each)
	}
}

// TestServerQueryAuthAndSize checks signatures in the query string and
// the 16 MB request limit.
func TestServerQueryAuthAndSize(t *testing.T) {
	srv := serve(t)
	const json10 = "application/x-amz-json-1.0"
	cases := []struct {
		name, query, auth string
		body              string
		status            int
		want              string
	}{
		{"complete query signature", "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a&X-Amz-Signature=b&X-Amz-SignedHeaders=host&X-Amz-Date=d",
			"", `{}`, 200, `{"TableNames":[]}`},
		{"incomplete query signature", "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a", "", `{}`, 400,
			`{"__type":"com.amazon.coral.service#IncompleteSignatureException","message":"AWS query-string parameters must include 'X-Amz-Signature'. AWS query-string parameters must include 'X-Amz-SignedHeaders'. AWS query-string parameters must include 'X-Amz-Date'. Re-examine the query-string parameters."}`},
		{"header and query signatures", "?X-Amz-Algorithm", sigV4, `{}`, 400,
			`{"__type":"com.amazon.coral.service#InvalidSignatureException","message":"Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header."}`},
		{"over 16 MB", "", sigV4, `{"TableName":"` + strings.Repeat("a", 16<<20) + `"}`, 413, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := rawCall(t, srv.URL()+"/"+c.query, "POST", "DynamoDB_20120810.ListTables", json10, c.auth, c.body)
			if status != c.status || body != c.want {
				t.Errorf("got %d %s, want %d %s", status, body, c.status, c.want)
			}
		})
	}
}

// TestServerZeroCounts: a Query or Scan that finds nothing still carries
// Count and ScannedCount, as DynamoDB's answer does (the SDK's serializer
// would leave zeros out).
func TestServerZeroCounts(t *testing.T) {
	srv := serve(t)
	const json10 = "application/x-amz-json-1.0"
	create := `{"TableName":"zeros","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`
	if code, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810.CreateTable", json10, sigV4, create); code != 200 {
		t.Fatalf("CreateTable: %d %s", code, body)
	}
	for _, tc := range []struct{ target, body string }{
		{"Scan", `{"TableName":"zeros"}`},
		{"Query", `{"TableName":"zeros","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"none"}}}`},
	} {
		code, _, body := rawCall(t, srv.URL(), "POST", "DynamoDB_20120810."+tc.target, json10, sigV4, tc.body)
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 {
			t.Fatalf("%s: %d %s %v", tc.target, code, body, err)
		}
		if diff := cmp.Diff(map[string]any{"Count": 0.0, "ScannedCount": 0.0, "Items": []any{}}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.target, diff)
		}
	}
}

// TestServerTooLarge: the 413 to a body over 16 MB, sized or chunked, is
// DynamoDB's: an empty chunked body whose only headers are
// X-Amzn-Requestid and Date (see the package doc, "HTTP endpoint").
func TestServerTooLarge(t *testing.T) {
	srv := serve(t)
	big := `{"TableName":"` + strings.Repeat("a", 16<<20) + `"}`
	for _, c := range []struct {
		name string
		body io.Reader
	}{
		{"sized", strings.NewReader(big)},
		{"chunked", io.MultiReader(strings.NewReader(big))}, // no length: sent chunked
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := do(t, newRequest(t, srv.URL(), "POST", "DynamoDB_20120810.ListTables", "application/x-amz-json-1.0", sigV4, c.body))
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var names []string
			for k := range resp.Header {
				names = append(names, k)
			}
			sort.Strings(names)
			if resp.StatusCode != 413 || len(body) != 0 || !slices.Equal(resp.TransferEncoding, []string{"chunked"}) {
				t.Errorf("got %d, body of %d bytes, Transfer-Encoding %v; want 413, empty, chunked", resp.StatusCode, len(body), resp.TransferEncoding)
			}
			if diff := cmp.Diff([]string{"Date", "X-Amzn-Requestid"}, names); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
