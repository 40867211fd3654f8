package ddbmem_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

// TestFaultUnprocessed: Fault.Unprocessed leaves the last writes or keys of
// each batch request undone and returns them, but never all of them.
func TestFaultUnprocessed(t *testing.T) {
	for _, tc := range []struct {
		name            string
		unprocessed, n  int
		wantLeft, wantN int // unprocessed returned, items landed
	}{
		{"three of ten", 3, 10, 3, 7},
		{"one of one is processed", 5, 1, 0, 1},
		{"more than sent", 30, 4, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newTable(t)
			db.SetFault("BatchWriteItem", ddbmem.Fault{Unprocessed: tc.unprocessed})
			db.SetFault("BatchGetItem", ddbmem.Fault{Unprocessed: tc.unprocessed})
			var reqs []types.WriteRequest
			var keys []map[string]av
			for i := 0; i < tc.n; i++ {
				k := key("a", fmt.Sprint(i))
				keys = append(keys, k)
				reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: k}})
			}
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": reqs}})
			if err != nil {
				t.Fatal(err)
			}
			left := append([]types.WriteRequest{}, out.UnprocessedItems["tbl"]...)
			if diff := cmp.Diff(reqs[tc.n-tc.wantLeft:], left, cmp.Comparer(func(a, b types.WriteRequest) bool {
				return a.PutRequest == b.PutRequest
			})); diff != "" {
				t.Fatalf("UnprocessedItems (-want +got):\n%s", diff)
			}
			db.ClearFaults()
			scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl")})
			if err != nil || int(scan.Count) != tc.wantN {
				t.Fatalf("%d items landed, want %d (%v)", scan.Count, tc.wantN, err)
			}
			db.SetFault("BatchGetItem", ddbmem.Fault{Unprocessed: tc.unprocessed})
			got, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				"tbl": {Keys: keys, ConsistentRead: aws.Bool(true)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			ul := got.UnprocessedKeys["tbl"]
			if len(ul.Keys) != tc.wantLeft || len(got.Responses["tbl"])+len(ul.Keys) > tc.n || (tc.wantLeft > 0 && !aws.ToBool(ul.ConsistentRead)) {
				t.Fatalf("BatchGetItem: %d responses, %d unprocessed keys (consistent %v), want %d unprocessed",
					len(got.Responses["tbl"]), len(ul.Keys), aws.ToBool(ul.ConsistentRead), tc.wantLeft)
			}
		})
	}
}
