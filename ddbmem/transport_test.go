package ddbmem_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestEndpointClientLocal runs NewEndpointClient's client (placeholder
// signature, lean transport) against DynamoDB Local, which must accept
// it as it accepts the SDK's default client.
func TestEndpointClientLocal(t *testing.T) {
	c := ddbmem.NewEndpointClient(testenv.DynamoEndpoint(t))
	endpointClientRoundTrip(t, c, testenv.UniqueName("epclient"))
}

// TestEndpointClientEngine runs the same calls against the engine's
// endpoint.
func TestEndpointClientEngine(t *testing.T) {
	endpointClientRoundTrip(t, serve(t).Client(), "epclient")
}

func endpointClientRoundTrip(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	ctx := context.Background()
	tbl := aws.String(name)
	if _, err := c.CreateTable(ctx, pkTable(tbl)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: tbl}) })
	big := strings.Repeat("y", 100<<10) // a body bigger than one write buffer
	for i := 0; i < 20; i++ {
		item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}}
		if i == 7 {
			item["big"] = &types.AttributeValueMemberS{Value: big}
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k7"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["big"].(*types.AttributeValueMemberS).Value; got != big {
		t.Fatalf("big attribute of %d bytes, want %d", len(got), len(big))
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, ConditionExpression: aws.String("attribute_not_exists(pk)"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k1"}}})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("conditional put of an existing item: %v, want a ConditionalCheckFailedException", err)
	}
	scan, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if scan.Count != 20 {
		t.Fatalf("scan counted %d items, want 20", scan.Count)
	}
}

// countingServer is an httptest server that counts its connections.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestEndpointTransport checks the lean transport against net/http's
// server: keep-alive reuse, chunked and read-to-close bodies,
// Connection: close, a body not read to the end, a server that closes
// idle connections, and the context.
func TestEndpointTransport(t *testing.T) {
	ctx := context.Background()
	var mode atomic.Value
	mode.Store("")
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if got := r.Header.Get("X-Amz-Target"); got != "DynamoDB_20120810.ListTables" {
			http.Error(w, "target "+got, 400)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		switch mode.Load().(string) {
		case "chunked":
			w.(http.Flusher).Flush() // no Content-Length: chunked
		case "close":
			w.Header().Set("Connection", "close")
		case "slow":
			time.Sleep(time.Second)
		case "hijack":
			// Answer, then close the connection without saying so, as
			// a server whose idle timeout expires does.
			c, bw, _ := w.(http.Hijacker).Hijack()
			body := fmt.Sprintf(`{"TableNames":["%d"]}`, len(b))
			_, _ = fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			_ = bw.Flush()
			_ = c.Close()
			return
		}
		_, _ = fmt.Fprintf(w, `{"TableNames":["%d"]}`, len(b))
	})
	c := ddbmem.NewEndpointClient(srv.URL, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	call := func(ctx context.Context) ([]string, error) {
		out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(5)})
		if err != nil {
			return nil, err
		}
		return out.TableNames, nil
	}
	want := []string{fmt.Sprint(len(`{"Limit":5}`))}
	for _, m := range []string{"", "", "", "chunked", "chunked", "", "close", "", ""} {
		mode.Store(m)
		got, err := call(ctx)
		if err != nil {
			t.Fatalf("mode %q: %v", m, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("mode %q: (-want +got)\n%s", m, diff)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (one closed by Connection: close)", n)
	}
	// The server closes the connection after answering without saying
	// so: the next call finds it closed and is sent again on a new one.
	for _, m := range []string{"hijack", ""} {
		mode.Store(m)
		if _, err := call(ctx); err != nil {
			t.Fatalf("mode %q after a connection closed while idle: %v", m, err)
		}
	}
	closeIdle(t, srv)
	if _, err := call(ctx); err != nil {
		t.Fatalf("after the server closed its idle connections: %v", err)
	}
	// Deadline and cancellation.
	mode.Store("slow")
	dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := call(dctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call past its deadline: %v, want context.DeadlineExceeded", err)
	}
	cctx, cancel2 := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel2)
	if _, err := call(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Fatalf("deadline and cancellation took %v, want them to cut the calls short", d)
	}
	mode.Store("")
	if _, err := call(ctx); err != nil {
		t.Fatalf("after a cancelled call: %v", err)
	}
}

// closeIdle makes srv close its idle connections, as a server's idle
// timeout does.
func closeIdle(t *testing.T, srv *httptest.Server) {
	t.Helper()
	srv.Config.SetKeepAlivesEnabled(false) // closes idle connections
	srv.Config.SetKeepAlivesEnabled(true)
	time.Sleep(10 * time.Millisecond)
}

// TestEndpointClientRealSigner checks that NewEndpointClient's defaults
// can be undone: with the SDK's own signer the payload hash is back.
func TestEndpointClientRealSigner(t *testing.T) {
	srv := serve(t)
	c := srv.Client(func(o *dynamodb.Options) { o.HTTPSignerV4 = v4.NewSigner() })
	if _, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
}

// TestEndpointTransportRawResponses answers the lean transport with
// handcrafted response heads: ones its own parser reads and ones it
// leaves to net/http's.
func TestEndpointTransportRawResponses(t *testing.T) {
	body := `{"TableNames":["t"]}`
	heads := []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n",
		"HTTP/1.1 200\r\ncontent-length: %d\r\nX-Custom:  v \r\n\r\n",         // no reason phrase, lower case
		"HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\nContent-Length: %d\r\n\r\n", // obsolete line folding: net/http's parser
		"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",  // the connection is not reused
		"HTTP/1.0 200 OK\r\n\r\n", // read to close
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", // chunked
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	var next atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					h := heads[int(next.Add(1)-1)%len(heads)]
					var resp string
					switch {
					case strings.HasPrefix(h, "HTTP/1.0"):
						resp = h + body
					case strings.Contains(h, "chunked"):
						resp = fmt.Sprintf(h, len(body), body)
					default:
						resp = fmt.Sprintf(h, len(body)) + body
					}
					if _, err := io.WriteString(c, resp); err != nil || strings.Contains(h, "close") || strings.HasPrefix(h, "HTTP/1.0") {
						return
					}
				}
			}()
		}
	}()
	c := ddbmem.NewEndpointClient("http://"+ln.Addr().String(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	for i := range heads {
		out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatalf("head %d %q: %v", i, heads[i], err)
		}
		if diff := cmp.Diff([]string{"t"}, out.TableNames); diff != "" {
			t.Fatalf("head %d: (-want +got)\n%s", i, diff)
		}
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("%d connections, want 3 (after Connection: close, after HTTP/1.0)", n)
	}
}
