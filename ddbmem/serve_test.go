package ddbmem_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

// rawRequest is a ListTables request as clients send it, with extra head
// lines and a body framed by Content-Length or chunked.
func rawRequest(proto string, extra []string, chunked bool) string {
	body := `{"Limit":3}`
	h := []string{"POST / " + proto, "Host: x", "Content-Type: application/x-amz-json-1.0",
		"X-Amz-Target: DynamoDB_20120810.ListTables", "Authorization: " + sigV4, "X-Amz-Date: 20260101T000000Z"}
	h = append(h, extra...)
	if chunked {
		h = append(h, "Transfer-Encoding: chunked")
		return strings.Join(h, "\r\n") + fmt.Sprintf("\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	}
	h = append(h, fmt.Sprint("Content-Length: ", len(body)))
	return strings.Join(h, "\r\n") + "\r\n\r\n" + body
}

// TestServeLeanLoop sends raw requests that the lean loop answers and
// requests it hands to net/http, pipelined on one connection, and checks
// that every answer is the same: status, body and header names.
func TestServeLeanLoop(t *testing.T) {
	srv := serve(t)
	addr := strings.TrimPrefix(srv.URL(), "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reqs := []string{
		rawRequest("HTTP/1.1", nil, false),                                // lean
		rawRequest("HTTP/1.1", []string{"connection: Keep-Alive"}, false), // lean
		rawRequest("HTTP/1.1", []string{"X-Other:  spaced \t"}, false),    // lean
		rawRequest("HTTP/1.1", []string{"Expect: 100-continue"}, false),   // net/http from here on
		rawRequest("HTTP/1.1", nil, true),                                 // chunked
		rawRequest("HTTP/1.1", nil, false),                                // net/http keeps the connection
		rawRequest("HTTP/1.1", []string{"Connection: close"}, false),      // the last one
	}
	if _, err := io.WriteString(c, strings.Join(reqs, "")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	type answer struct {
		Status  int
		Body    string
		Headers []string
	}
	var first answer
	for i := range reqs {
		resp, err := http.ReadResponse(br, nil)
		for err == nil && resp.StatusCode == http.StatusContinue {
			resp, err = http.ReadResponse(br, nil) // Expect: 100-continue's interim answer
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		var names []string
		for k := range resp.Header {
			if k != "Connection" {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		got := answer{resp.StatusCode, string(b), names}
		if i == 0 {
			first = got
			want := []string{"Content-Length", "Content-Type", "Date", "X-Amz-Crc32", "X-Amzn-Requestid"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Fatalf("lean loop's headers (-want +got)\n%s", diff)
			}
		} else if diff := cmp.Diff(first, got); diff != "" {
			t.Fatalf("request %d answered unlike the first (-first +got)\n%s", i, diff)
		}
		if i == len(reqs)-1 && !resp.Close {
			t.Fatal("Connection: close request: the response does not close the connection")
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("after Connection: close, read %d bytes, %v; want EOF", n, err)
	}
}

// TestServeLeanLoopEdges checks requests the lean loop must not take up
// as its own and connection handling: HTTP/1.0, a malformed head, a
// request cut short, and Close with open connections.
func TestServeLeanLoopEdges(t *testing.T) {
	srv := serve(t)
	addr := strings.TrimPrefix(srv.URL(), "http://")
	roundTrip := func(raw string) (*http.Response, string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := roundTrip(rawRequest("HTTP/1.0", nil, false)); resp.StatusCode != 200 || !strings.Contains(body, "TableNames") {
		t.Fatalf("HTTP/1.0: %d %s", resp.StatusCode, body)
	}
	if resp, _ := roundTrip("POST / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\nContent-Length: 0\r\n\r\n"); resp.StatusCode != 400 {
		t.Fatalf("malformed head: %d, want net/http's 400", resp.StatusCode)
	}
	if resp, _ := roundTrip("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"); resp.StatusCode != 400 {
		t.Fatalf("no Host: %d, want net/http's 400", resp.StatusCode)
	}
	if resp, body := roundTrip("GET / HTTP/1.1\r\nHost: x\r\n\r\n"); resp.StatusCode != 200 || !strings.HasPrefix(body, "healthy") {
		t.Fatalf("GET: %d %q", resp.StatusCode, body)
	}
	// A body cut short, then Close with idle connections of both kinds.
	short, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	_, _ = io.WriteString(short, strings.TrimSuffix(rawRequest("HTTP/1.1", nil, false), "}"))
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	_, _ = io.WriteString(idle, rawRequest("HTTP/1.1", nil, true)) // handed to net/http
	if _, err := http.ReadResponse(bufio.NewReader(idle), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []net.Conn{short, idle} {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("after Close: %v, want EOF", err)
		}
	}
}

// TestServeWholeItems checks that full-item reads over the endpoint
// (answered from a per-record cache of the item's JSON) return what the
// engine returns in process, for every attribute type, before and after
// the item changes.
func TestServeWholeItems(t *testing.T) {
	ctx := context.Background()
	srv := serve(t)
	c := srv.Client()
	db := srv.DB()
	tbl := aws.String("whole")
	if _, err := c.CreateTable(ctx, pkTable(tbl)); err != nil {
		t.Fatal(err)
	}
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "k\"\\é\n"},
		"n":  &types.AttributeValueMemberN{Value: "-1.50"},
		"b":  &types.AttributeValueMemberB{Value: []byte{0, 1, 255}},
		"t":  &types.AttributeValueMemberBOOL{Value: true},
		"z":  &types.AttributeValueMemberNULL{Value: true},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberN{Value: "3"}}},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"in": &types.AttributeValueMemberL{}}},
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item}); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": item["pk"]}
	check := func(label string) {
		t.Helper()
		want, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // the first read fills the cache, the second uses it
			got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: key})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want.Item, got.Item, cmpAV); d != "" {
				t.Fatalf("%s: GetItem over HTTP (-in process +HTTP):\n%s", label, d)
			}
			q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :k"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":k": item["pk"]}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Items) != 1 || q.Count != 1 || q.ConsumedCapacity == nil {
				t.Fatalf("%s: Query over HTTP: %d items, count %d, capacity %v", label, len(q.Items), q.Count, q.ConsumedCapacity)
			}
			if d := cmp.Diff(want.Item, q.Items[0], cmpAV); d != "" {
				t.Fatalf("%s: Query over HTTP (-in process +HTTP):\n%s", label, d)
			}
			s, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: tbl})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Items) != 1 {
				t.Fatalf("%s: Scan over HTTP: %d items", label, len(s.Items))
			}
			if d := cmp.Diff(want.Item, s.Items[0], cmpAV); d != "" {
				t.Fatalf("%s: Scan over HTTP (-in process +HTTP):\n%s", label, d)
			}
		}
	}
	check("stored")
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String("SET n = n + :one, m.x = :one REMOVE b"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}); err != nil {
		t.Fatal(err)
	}
	check("updated")
}

// TestServeLeanLoopPipelinedLate: a request that arrives while the loop
// is still answering the one before it (so it is in the socket, not yet
// read) is answered too. The engine is slowed down so that the second
// request arrives during the first one's call.
func TestServeLeanLoopPipelinedLate(t *testing.T) {
	srv := serve(t)
	srv.DB().SetFault("ListTables", ddbmem.Fault{Latency: 100 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := rawRequest("HTTP/1.1", nil, false)
	for i := 0; i < 3; i++ {
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond) // the loop has read the request and is in the call
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	for i := 0; i < 3; i++ {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("response %d: %d, %v", i, resp.StatusCode, err)
		}
	}
}
