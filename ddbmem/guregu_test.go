package ddbmem_test

import (
	"context"
	"errors"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/tablekit/tablekit/ddbmem"
)

// gureguEngine adapts the engine to guregu/dynamo's client interface,
// which also lists two operations the engine does not implement.
type gureguEngine struct{ *ddbmem.DB }

var errUnsupported = errors.New("not implemented by the engine")

func (gureguEngine) ListGlobalTables(context.Context, *dynamodb.ListGlobalTablesInput, ...func(*dynamodb.Options)) (*dynamodb.ListGlobalTablesOutput, error) {
	return nil, errUnsupported
}
func (gureguEngine) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return nil, errUnsupported
}

var _ dynamodbiface.DynamoDBAPI = gureguEngine{}

type order struct {
	User  string   `dynamo:"User,hash"`
	Order string   `dynamo:"Order,range"`
	Total int      `dynamo:"Total"`
	Note  string   `dynamo:"Note,omitempty"`
	Tags  []string `dynamo:"Tags,set,omitempty"`
}

// TestGureguDynamo runs guregu/dynamo v2, which sends the legacy
// KeyConditions parameter in its queries, on the engine: through the HTTP
// endpoint with the SDK's client, and in process.
func TestGureguDynamo(t *testing.T) {
	for _, c := range []struct {
		name   string
		client func(t *testing.T) dynamodbiface.DynamoDBAPI
	}{
		{"HTTP endpoint", func(t *testing.T) dynamodbiface.DynamoDBAPI {
			srv, err := ddbmem.Serve(ddbmem.New(), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close() })
			return srv.Client()
		}},
		{"in process", func(t *testing.T) dynamodbiface.DynamoDBAPI { return gureguEngine{ddbmem.New()} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db := dynamo.NewFromIface(c.client(t))
			if err := db.CreateTable("orders", order{}).OnDemand(true).Run(ctx); err != nil {
				t.Fatal(err)
			}
			tbl := db.Table("orders")
			orders := []order{
				{User: "kim", Order: "2026-01", Total: 10, Tags: []string{"gift"}},
				{User: "kim", Order: "2026-02", Total: 25},
				{User: "kim", Order: "2026-03", Total: 40, Note: "rush"},
				{User: "lee", Order: "2026-01", Total: 5},
			}
			for _, o := range orders {
				if err := tbl.Put(o).Run(ctx); err != nil {
					t.Fatalf("Put: %v", err)
				}
			}

			var got order
			if err := tbl.Get("User", "kim").Range("Order", dynamo.Equal, "2026-01").One(ctx, &got); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if d := cmp.Diff(orders[0], got); d != "" {
				t.Errorf("Get (-want +got):\n%s", d)
			}

			var page []order
			if err := tbl.Get("User", "kim").Range("Order", dynamo.Greater, "2026-01").Filter("'Total' > ?", 20).All(ctx, &page); err != nil {
				t.Fatalf("Query: %v", err)
			}
			if d := cmp.Diff(orders[1:3], page); d != "" {
				t.Errorf("Query (-want +got):\n%s", d)
			}

			var all []order
			if err := tbl.Scan().Filter("'Total' < ?", 30).All(ctx, &all); err != nil {
				t.Fatalf("Scan: %v", err)
			}
			sort.Slice(all, func(i, j int) bool { return all[i].User+all[i].Order < all[j].User+all[j].Order })
			if d := cmp.Diff([]order{orders[0], orders[1], orders[3]}, all); d != "" {
				t.Errorf("Scan (-want +got):\n%s", d)
			}

			var updated order
			if err := tbl.Update("User", "lee").Range("Order", "2026-01").Add("Total", 7).Set("Note", "edited").
				If("'Total' = ?", 5).Value(ctx, &updated); err != nil {
				t.Fatalf("Update: %v", err)
			}
			want := order{User: "lee", Order: "2026-01", Total: 12, Note: "edited"}
			if d := cmp.Diff(want, updated); d != "" {
				t.Errorf("Update (-want +got):\n%s", d)
			}

			err := tbl.Put(order{User: "lee", Order: "2026-01"}).If("attribute_not_exists('User')").Run(ctx)
			var ccf *types.ConditionalCheckFailedException
			if !dynamo.IsCondCheckFailed(err) || !errors.As(err, &ccf) {
				t.Fatalf("conditional Put: got %v, want a ConditionalCheckFailedException", err)
			}
		})
	}
}
