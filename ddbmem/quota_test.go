package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

func quotaUnits(r, w int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

// quotaTable is a CreateTable of a PROVISIONED table name with r read and
// w write units, and a global index gix of gr and gw units when gr > 0; r
// = 0 makes it PAY_PER_REQUEST.
func quotaTable(name string, r, w, gr, gw int64) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{TableName: aws.String(name),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	}
	if r == 0 {
		in.BillingMode = types.BillingModePayPerRequest
		return in
	}
	in.ProvisionedThroughput = quotaUnits(r, w)
	if gr > 0 {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gix"), ProvisionedThroughput: quotaUnits(gr, gw),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	}
	return in
}

// wantQuotaErr checks that err is the ValidationException of a quota
// ("table", "global secondary index" or "account").
func wantQuotaErr(t *testing.T, err error, per string) {
	t.Helper()
	n := "40,000"
	if per == "account" {
		n = "80,000"
	}
	want := "Cannot increase provisioned throughput to more than " + n + " units per " + per
	var api interface{ ErrorCode() string }
	if err == nil || !errors.As(err, &api) || api.ErrorCode() != "ValidationException" || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("err = %v, want a ValidationException %q", err, want)
	}
}

// TestThroughputQuotas follows DynamoDB Local's answers (this sequence
// was run against it by hand: its account quota cannot be a conformance
// case, see cases_table_test.go): 40,000 read and write units per table
// and per global index, 80,000 of each for all tables and their global
// indexes together, read and write apart; on-demand tables count nothing;
// UpdateTable and DeleteTable move a table's share, and a preexisting
// table is refused before the account quota is checked. One departure:
// after a switch to on demand, DynamoDB Local still describes a global
// index's units and counts them; the engine describes them as gone, as
// DynamoDB does, and counts them no more.
func TestThroughputQuotas(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	create := func(in *dynamodb.CreateTableInput) error { _, err := db.CreateTable(ctx, in); return err }
	update := func(in *dynamodb.UpdateTableInput) error { _, err := db.UpdateTable(ctx, in); return err }

	lim, err := db.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := [4]int64{aws.ToInt64(lim.AccountMaxReadCapacityUnits), aws.ToInt64(lim.AccountMaxWriteCapacityUnits),
		aws.ToInt64(lim.TableMaxReadCapacityUnits), aws.ToInt64(lim.TableMaxWriteCapacityUnits)}
	if diff := cmp.Diff([4]int64{80_000, 80_000, 40_000, 40_000}, got); diff != "" {
		t.Fatalf("DescribeLimits (-want +got):\n%s", diff)
	}

	wantQuotaErr(t, create(quotaTable("big", 40_001, 1, 0, 0)), "table")
	wantQuotaErr(t, create(quotaTable("big", 1, 40_001, 0, 0)), "table")
	wantQuotaErr(t, create(quotaTable("big", 1, 1, 1, 40_001)), "global secondary index")
	// A table and its index 40,000 each: the account's 80,000 reads.
	if err := create(quotaTable("taa", 40_000, 1, 40_000, 1)); err != nil {
		t.Fatal(err)
	}
	wantQuotaErr(t, create(quotaTable("tbb", 1, 1, 0, 0)), "account")
	if err := create(quotaTable("ondemand", 0, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	var inUse *types.ResourceInUseException
	if err := create(quotaTable("taa", 1, 1, 0, 0)); !errors.As(err, &inUse) {
		t.Fatalf("CreateTable of a preexisting table over the account quota: %v, want ResourceInUseException", err)
	}
	// Writes are counted apart from reads.
	if err := create(quotaTable("other", 0, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := update(&dynamodb.UpdateTableInput{TableName: aws.String("taa"), ProvisionedThroughput: quotaUnits(39_998, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := create(quotaTable("tbb", 1, 40_000, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := create(quotaTable("tcc", 1, 39_997, 0, 0)); err != nil {
		t.Fatal(err)
	}
	wantQuotaErr(t, create(quotaTable("tdd", 1, 1, 0, 0)), "account") // reads 80,000 again, writes 79,999
	// UpdateTable: of the table, of its index, a decrease always fits.
	wantQuotaErr(t, update(&dynamodb.UpdateTableInput{TableName: aws.String("tbb"), ProvisionedThroughput: quotaUnits(2, 40_000)}), "account")
	wantQuotaErr(t, update(&dynamodb.UpdateTableInput{TableName: aws.String("taa"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gix"), ProvisionedThroughput: quotaUnits(40_000, 3)}}}}), "account")
	if err := update(&dynamodb.UpdateTableInput{TableName: aws.String("taa"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gix"), ProvisionedThroughput: quotaUnits(30_000, 1)}}}}); err != nil {
		t.Fatal(err)
	}
	if err := create(quotaTable("tdd", 10_000, 1, 0, 0)); err != nil {
		t.Fatal(err)
	}
	// On demand frees a table's share, and so does DeleteTable.
	if err := update(&dynamodb.UpdateTableInput{TableName: aws.String("taa"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	if err := create(quotaTable("tee", 40_000, 1, 20_000, 1)); err != nil {
		t.Fatal(err)
	}
	wantQuotaErr(t, create(quotaTable("tff", 20_000, 1, 0, 0)), "account")
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tee")}); err != nil {
		t.Fatal(err)
	}
	if err := create(quotaTable("tff", 20_000, 1, 0, 0)); err != nil {
		t.Fatal(err)
	}
}

// TestThroughputQuotaConcurrent creates tables from many goroutines at
// once: exactly as many as the account quota holds are created.
func TestThroughputQuotaConcurrent(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	var wg sync.WaitGroup
	var mu sync.Mutex
	created, refused := 0, 0
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.CreateTable(ctx, quotaTable(fmt.Sprintf("t%02d", i), 7_000, 1, 3_000, 1))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case strings.HasSuffix(err.Error(), "more than 80,000 units per account"):
				refused++
			default:
				t.Errorf("CreateTable: %v", err)
			}
		}()
	}
	wg.Wait()
	if created != 8 || refused != 24 {
		t.Fatalf("created %d and refused %d tables of 10,000 read units, want 8 and 24", created, refused)
	}
}
