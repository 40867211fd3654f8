package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestIndexThroughput compares the provisioned throughput each global
// index of a PROVISIONED table describes (its own, as created and as an
// UpdateTable index Update sets it) on the engine, in process and over
// HTTP, with DynamoDB Local's. It is a test of its own rather than a case
// of TestConformance because DynamoDB Local, loaded by the suite's
// parallel cases, now and then answers a PROVISIONED CreateTable with an
// InternalFailure; here the CreateTable is retried.
func TestIndexThroughput(t *testing.T) {
	ctx := context.Background()
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	targets := []struct {
		name string
		c    interface {
			CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
			UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
			DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
			DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
		}
	}{{"DynamoDB Local", local(t).(*dynamodb.Client)}, {"engine", ddbmem.New()}, {"engine over HTTP", ddbmem.NewEndpointClient(srv.URL())}}
	units := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	gsi := func(name, attr string, p types.ProjectionType) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{IndexName: aws.String(name), ProvisionedThroughput: units(5, 6),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(attr), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: p}}
	}
	var want []map[string][2]int64
	for _, tg := range targets {
		name := testenv.UniqueName("thru")
		in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: units(3, 4),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "S"},
				{AttributeName: aws.String("g1"), AttributeType: "S"}, {AttributeName: aws.String("g2"), AttributeType: "N"}},
			KeySchema:              []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("gsi1", "g1", types.ProjectionTypeAll), gsi("gsi2", "g2", types.ProjectionTypeKeysOnly)},
		}
		for attempt := 1; ; attempt++ {
			_, err := tg.c.CreateTable(ctx, in)
			if attempt < 5 && isInternalFailure(err) {
				t.Logf("%s: CreateTable attempt %d: %v", tg.name, attempt, err)
				time.Sleep(250 * time.Millisecond)
				continue
			}
			if err != nil {
				t.Fatalf("%s: CreateTable: %v", tg.name, err)
			}
			break
		}
		t.Cleanup(func() {
			_, _ = tg.c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
		var got []map[string][2]int64
		describe := func() {
			t.Helper()
			d, err := tg.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatalf("%s: DescribeTable: %v", tg.name, err)
			}
			m := map[string][2]int64{}
			for _, g := range d.Table.GlobalSecondaryIndexes {
				m[aws.ToString(g.IndexName)] = [2]int64{aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits)}
			}
			got = append(got, m)
		}
		describe()
		if _, err := tg.c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
			Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gsi2"), ProvisionedThroughput: units(7, 8)}}}}); err != nil {
			t.Fatalf("%s: UpdateTable: %v", tg.name, err)
		}
		describe()
		if want == nil {
			want = got
			t.Logf("%s: %v", tg.name, got)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: index throughput differs from DynamoDB Local's (-Local +%s):\n%s", tg.name, tg.name, d)
		}
	}
}
