package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/internal/testenv"
)

// mixedRequests sends n requests (PutItem, GetItem, Query, Scan,
// UpdateItem, DeleteItem in turn) from workers goroutines through c with
// the SDK's retries off, and returns the failures.
func mixedRequests(t *testing.T, c *dynamodb.Client, table string, n, workers int) (failed int64, first error) {
	t.Helper()
	ctx := context.Background()
	noRetry := func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
	var fails atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				pk := &types.AttributeValueMemberS{Value: "p" + strconv.Itoa(int(i%16))}
				sk := &types.AttributeValueMemberS{Value: "s" + strconv.Itoa(int(i%64))}
				key := map[string]types.AttributeValue{"pk": pk, "sk": sk}
				var err error
				switch i % 6 {
				case 0:
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
						"pk": pk, "sk": sk, "v": &types.AttributeValueMemberS{Value: fmt.Sprintf("%0200d", i)}}}, noRetry)
				case 1:
					_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key}, noRetry)
				case 2:
					_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :p"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":p": pk}}, noRetry)
				case 3:
					_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: &table, Limit: aws.Int32(scanLimit)}, noRetry)
				case 4:
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key, UpdateExpression: aws.String("ADD n :one"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}, noRetry)
				case 5:
					_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key}, noRetry)
				}
				if err != nil {
					fails.Add(1)
					once.Do(func() { first = err })
				}
			}
		}()
	}
	wg.Wait()
	return fails.Load(), first
}

// TestEndpointClientsNoClosedConnections: the clients this package builds
// (Server.Client, NewEndpointClient) answer 12,000 mixed requests each
// (DDBMEM_CLOSEDCONN_N sets another number) from 8 goroutines with the
// SDK's retries off and no failure; NewEndpointClient gives every http://
// URL the same transport. The SDK's own client, with its default HTTP client,
// can fail a request with "use of closed network connection" against a
// server that answers this fast (aws-sdk-go-v2#2737); see README,
// "The engine over HTTP". DDBMEM_CLOSEDCONN_PLAIN=1 also runs the plain
// client and logs its failures.
func TestEndpointClientsNoClosedConnections(t *testing.T) {
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	table := "closedconn"
	if err := testenv.CreateKeyTable(context.Background(), srv.Client(), table, "pk", "sk"); err != nil {
		t.Fatal(err)
	}
	// The size: about 5 s per client under -race on a quiet
	// two-core machine, 80 s on a loaded one.
	n := 12_000
	if v, _ := strconv.Atoi(os.Getenv("DDBMEM_CLOSEDCONN_N")); v > 0 {
		n = v
	}
	clients := []struct {
		name string
		c    *dynamodb.Client
	}{
		{"Server.Client", srv.Client()},
		{"NewEndpointClient", ddbmem.NewEndpointClient(srv.URL())},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			failed, first := mixedRequests(t, c.c, table, n, 8)
			t.Logf("%d mixed requests, %d failed", n, failed)
			if failed != 0 {
				t.Fatalf("%d of %d requests failed; first: %v", failed, n, first)
			}
		})
	}
	for _, u := range []string{srv.URL(), "http://dynamodb-local:8000", "http://10.0.0.1"} {
		c := ddbmem.NewEndpointClient(u)
		if got := fmt.Sprintf("%T", c.Options().HTTPClient); got != "*ddbmem.transport" {
			t.Errorf("NewEndpointClient(%q) uses %s, want the package's transport", u, got)
		}
	}
	if os.Getenv("DDBMEM_CLOSEDCONN_PLAIN") != "" {
		plain := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL()),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, nil
			})})
		w, _ := strconv.Atoi(os.Getenv("DDBMEM_CLOSEDCONN_WORKERS"))
		if w == 0 {
			w = 8
		}
		if l, _ := strconv.Atoi(os.Getenv("DDBMEM_CLOSEDCONN_SCAN")); l > 0 {
			scanLimit = int32(l)
		}
		failed, first := mixedRequests(t, plain, table, n, w)
		t.Logf("the SDK's plain client: %d of %d requests failed; first: %v (net.ErrClosed: %v)", failed, n, first, errors.Is(first, net.ErrClosed))
	}
}

// scanLimit is the Limit of the Scans mixedRequests sends.
var scanLimit int32 = 50
