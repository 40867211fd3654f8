package ddbmem_test

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// lifecycleDB is an engine with the lifecycle l on a clock the test
// moves, set at 2026-11-28.
func lifecycleDB(l ddbmem.Lifecycle) (*ddbmem.DB, *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)}
	return ddbmem.New(func(o *ddbmem.Options) {
		o.Now = clock.Now
		o.Lifecycle = l
	}), clock
}

// TestLifecycle walks a table through CREATING, ACTIVE, UPDATING,
// DELETING and gone on a clock the test moves, checking what each state
// allows: DynamoDB's answers (ResourceNotFoundException for the reads
// and writes of a table that is not ACTIVE or UPDATING,
// ResourceInUseException for changing one).
func TestLifecycle(t *testing.T) {
	db, clock := lifecycleDB(ddbmem.Lifecycle{Create: time.Second, Delete: 2 * time.Second, Update: 3 * time.Second})
	name := aws.String("life")
	create := withPkIndex(pkTable(name))
	status := func() types.TableStatus {
		t.Helper()
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		if err != nil {
			t.Fatal(err)
		}
		return out.Table.TableStatus
	}
	put := func() error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: map[string]av{"pk": s("a")}})
		return err
	}
	notFound := func(what string, err error) {
		t.Helper()
		var nf *types.ResourceNotFoundException
		if !errors.As(err, &nf) || aws.ToString(nf.Message) != "Requested resource not found" {
			t.Fatalf("%s: %v, want ResourceNotFoundException: Requested resource not found", what, err)
		}
	}
	inUse := func(what string, err error, state string) {
		t.Helper()
		var iu *types.ResourceInUseException
		want := "Attempt to change a resource which is still in use: Table is being " + state + ": life"
		if !errors.As(err, &iu) || aws.ToString(iu.Message) != want {
			t.Fatalf("%s: %v, want ResourceInUseException: %s", what, err, want)
		}
	}

	out, err := db.CreateTable(ctx, create)
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != types.TableStatusCreating {
		t.Fatalf("CreateTable answered %s, want CREATING", out.TableDescription.TableStatus)
	}
	if s := out.TableDescription.GlobalSecondaryIndexes[0].IndexStatus; s != types.IndexStatusCreating {
		t.Fatalf("CreateTable answered index status %s, want CREATING", s)
	}
	if id := aws.ToString(out.TableDescription.TableId); !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Fatalf("TableId %q is not a version 4 UUID", id)
	}
	// DynamoDB dates a PAY_PER_REQUEST table's billing summary once it
	// is ACTIVE (by its creation).
	if b := out.TableDescription.BillingModeSummary; b == nil || b.BillingMode != types.BillingModePayPerRequest || b.LastUpdateToPayPerRequestDateTime != nil {
		t.Fatalf("CreateTable answered billing summary %+v, want PAY_PER_REQUEST without a time", b)
	}
	created := aws.ToTime(out.TableDescription.CreationDateTime)
	notFound("PutItem while CREATING", put())
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: name, KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]av{":p": s("a")}})
	notFound("Query while CREATING", err)
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name})
	inUse("DeleteTable while CREATING", err, "created")
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	inUse("UpdateTable while CREATING", err, "created")
	if l, _ := db.ListTables(ctx, &dynamodb.ListTablesInput{}); len(l.TableNames) != 1 {
		t.Fatalf("ListTables while CREATING: %v", l.TableNames)
	}

	clock.Add(time.Second)
	if s := status(); s != types.TableStatusActive {
		t.Fatalf("after Create: %s, want ACTIVE", s)
	}
	if d, _ := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name}); !aws.ToTime(d.Table.BillingModeSummary.LastUpdateToPayPerRequestDateTime).Equal(created) {
		t.Fatalf("ACTIVE: billing summary %+v, want it dated by the creation, %v", d.Table.BillingModeSummary, created)
	}
	if err := put(); err != nil {
		t.Fatal(err)
	}

	up, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	if err != nil {
		t.Fatal(err)
	}
	if up.TableDescription.TableStatus != types.TableStatusUpdating || up.TableDescription.StreamSpecification == nil {
		t.Fatalf("UpdateTable answered %s with stream %v, want UPDATING with the stream on", up.TableDescription.TableStatus, up.TableDescription.StreamSpecification)
	}
	if err := put(); err != nil {
		t.Fatalf("PutItem while UPDATING: %v", err)
	}
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	inUse("UpdateTable while UPDATING", err, "updated")
	clock.Add(3 * time.Second)
	if s := status(); s != types.TableStatusActive {
		t.Fatalf("after Update: %s, want ACTIVE", s)
	}

	del, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name})
	if err != nil {
		t.Fatal(err)
	}
	if del.TableDescription.TableStatus != types.TableStatusDeleting || status() != types.TableStatusDeleting {
		t.Fatalf("DeleteTable answered %s, want DELETING, described so", del.TableDescription.TableStatus)
	}
	// DynamoDB describes a DELETING table without its global indexes.
	if g := del.TableDescription.GlobalSecondaryIndexes; g != nil {
		t.Fatalf("DeleteTable answered global indexes %v, want none", g)
	}
	if d, _ := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name}); d.Table.GlobalSecondaryIndexes != nil {
		t.Fatalf("DescribeTable while DELETING: global indexes %v, want none", d.Table.GlobalSecondaryIndexes)
	}
	notFound("PutItem while DELETING", put())
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name})
	inUse("DeleteTable while DELETING", err, "deleted")
	_, err = db.CreateTable(ctx, create)
	inUse("CreateTable while DELETING", err, "deleted")

	clock.Add(2 * time.Second)
	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("DescribeTable once gone: %v, want ResourceNotFoundException", err)
	}
	if l, _ := db.ListTables(ctx, &dynamodb.ListTablesInput{}); len(l.TableNames) != 0 {
		t.Fatalf("ListTables once gone: %v", l.TableNames)
	}
	again, err := db.CreateTable(ctx, create)
	if err != nil {
		t.Fatalf("CreateTable of the name once gone: %v", err)
	}
	if aws.ToString(again.TableDescription.TableId) == aws.ToString(out.TableDescription.TableId) {
		t.Fatal("a new table of the same name has the old one's TableId")
	}
}

// TestLifecycleOff checks the default: every change is immediate.
func TestLifecycleOff(t *testing.T) {
	db := ddbmem.New()
	out, err := db.CreateTable(ctx, pkTable(aws.String("now")))
	if err != nil || out.TableDescription.TableStatus != types.TableStatusActive {
		t.Fatalf("CreateTable: %v, %v; want ACTIVE", err, out)
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("now")}); err != nil {
		t.Fatal(err)
	}
	if l, _ := db.ListTables(ctx, &dynamodb.ListTablesInput{}); len(l.TableNames) != 0 {
		t.Fatalf("ListTables after DeleteTable: %v", l.TableNames)
	}
}

// TestRegion checks that Options.Region names the region of the ARNs of
// tables, indexes and streams.
func TestRegion(t *testing.T) {
	for _, c := range []struct{ region, want string }{{"", "ddblocal"}, {"eu-west-1", "eu-west-1"}} {
		db := ddbmem.New(func(o *ddbmem.Options) { o.Region = c.region })
		in := withPkIndex(pkTable(aws.String("arns")))
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
		out, err := db.CreateTable(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		d := out.TableDescription
		prefix := "arn:aws:dynamodb:" + c.want + ":000000000000:table/arns"
		for _, arn := range []string{aws.ToString(d.TableArn), aws.ToString(d.GlobalSecondaryIndexes[0].IndexArn), aws.ToString(d.LatestStreamArn)} {
			if !strings.HasPrefix(arn, prefix) {
				t.Errorf("Region %q: ARN %s, want it to start %s", c.region, arn, prefix)
			}
		}
	}
}

// TestLifecycleConcurrentChanges counts the winners of concurrent changes
// of one table: while UPDATING or DELETING takes time, exactly one of
// many concurrent UpdateTable calls, and then one of many DeleteTable
// calls, succeeds; the others are ResourceInUseException.
func TestLifecycleConcurrentChanges(t *testing.T) {
	db := ddbmem.New(func(o *ddbmem.Options) {
		o.Lifecycle = ddbmem.Lifecycle{Delete: time.Hour, Update: time.Hour}
	})
	name := aws.String("race")
	if _, err := db.CreateTable(ctx, pkTable(name)); err != nil {
		t.Fatal(err)
	}
	count := func(call func() error) (won, inUse int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := call()
				var iu *types.ResourceInUseException
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.As(err, &iu):
					inUse++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		return won, inUse
	}
	won, busy := count(func() error {
		_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
		return err
	})
	if won != 1 || busy != 31 {
		t.Fatalf("UpdateTable: %d succeeded, %d in use; want 1 and 31", won, busy)
	}
	db2 := ddbmem.New(func(o *ddbmem.Options) { o.Lifecycle = ddbmem.Lifecycle{Delete: time.Hour} })
	if _, err := db2.CreateTable(ctx, pkTable(name)); err != nil {
		t.Fatal(err)
	}
	won, busy = count(func() error {
		_, err := db2.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name})
		return err
	})
	if won != 1 || busy != 31 {
		t.Fatalf("DeleteTable: %d succeeded, %d in use; want 1 and 31", won, busy)
	}
}

// TestLifecycleIndexBackfill checks a global index that UpdateTable
// creates under Lifecycle.Update: CREATING with Backfilling, its reads a
// ValidationException, then ACTIVE and readable, with the table's items.
func TestLifecycleIndexBackfill(t *testing.T) {
	db, clock := lifecycleDB(ddbmem.Lifecycle{Update: time.Minute})
	name := aws.String("fill")
	if _, err := db.CreateTable(ctx, pkTable(name)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: map[string]av{"pk": s("a"), "g": s("x")}}); err != nil {
		t.Fatal(err)
	}
	up, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: "S"}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := up.TableDescription.GlobalSecondaryIndexes[0]
	if up.TableDescription.TableStatus != types.TableStatusUpdating || g.IndexStatus != types.IndexStatusCreating || !aws.ToBool(g.Backfilling) {
		t.Fatalf("UpdateTable answered table %s, index %s backfilling %v; want UPDATING, CREATING, true", up.TableDescription.TableStatus, g.IndexStatus, aws.ToBool(g.Backfilling))
	}
	query := func() (*dynamodb.QueryOutput, error) {
		return db.Query(ctx, &dynamodb.QueryInput{TableName: name, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
			ExpressionAttributeValues: map[string]av{":g": s("x")}})
	}
	_, err = query()
	var ve interface{ ErrorCode() string }
	if !errors.As(err, &ve) || ve.ErrorCode() != "ValidationException" || !strings.Contains(err.Error(), "Cannot read from backfilling global secondary index: byG") {
		t.Fatalf("Query while backfilling: %v, want ValidationException: Cannot read from backfilling global secondary index: byG", err)
	}
	_, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: name, IndexName: aws.String("byG")})
	if err == nil {
		t.Fatal("Scan while backfilling succeeded")
	}
	clock.Add(time.Minute)
	out, err := query()
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("Query once ACTIVE: %v, %v", out, err)
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Table.GlobalSecondaryIndexes[0]; g.IndexStatus != types.IndexStatusActive || g.Backfilling != nil || d.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("once done: table %s, index %s backfilling %v; want ACTIVE, ACTIVE, absent", d.Table.TableStatus, g.IndexStatus, g.Backfilling)
	}
}

// withPkIndex adds a KEYS_ONLY global index "byPk" keyed by pk.
func withPkIndex(in *dynamodb.CreateTableInput) *dynamodb.CreateTableInput {
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byPk"),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
	return in
}

// TestDeletionProtection checks that a protected table refuses
// DeleteTable with DynamoDB's message until UpdateTable lifts the
// protection, and that changing the protection alone leaves the table
// ACTIVE, even where other updates take a while (Lifecycle.Update).
func TestDeletionProtection(t *testing.T) {
	db, _ := lifecycleDB(ddbmem.Lifecycle{Update: time.Hour})
	name := aws.String("guarded")
	in := pkTable(name)
	in.DeletionProtectionEnabled = aws.Bool(true)
	if _, err := db.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	const refused = "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name}); err == nil || !strings.Contains(err.Error(), refused) {
		t.Fatalf("DeleteTable of a protected table: %v, want %q", err, refused)
	}
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, DeletionProtectionEnabled: aws.Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.TableDescription; aws.ToBool(d.DeletionProtectionEnabled) || d.TableStatus != types.TableStatusActive {
		t.Errorf("after lifting the protection: protected %v, status %s, want false and ACTIVE", aws.ToBool(d.DeletionProtectionEnabled), d.TableStatus)
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name}); err != nil {
		t.Errorf("DeleteTable once unprotected: %v", err)
	}
}
