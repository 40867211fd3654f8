package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func describe(name string) *dynamodb.DescribeTableInput {
	return &dynamodb.DescribeTableInput{TableName: str(name)}
}

func ttl(name, attrName string, on bool) *dynamodb.UpdateTimeToLiveInput {
	return &dynamodb.UpdateTimeToLiveInput{TableName: str(name), TimeToLiveSpecification: &types.TimeToLiveSpecification{
		AttributeName: str(attrName), Enabled: aws.Bool(on)}}
}

func tables(t ...*dynamodb.CreateTableInput) []*dynamodb.CreateTableInput { return t }

func units(r, w int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

// provisioned makes in a PROVISIONED table of r read and w write units.
func provisioned(in *dynamodb.CreateTableInput, r, w int64) *dynamodb.CreateTableInput {
	in.BillingMode, in.ProvisionedThroughput = types.BillingModeProvisioned, units(r, w)
	return in
}

// gsiUnits gives in's global indexes r read and w write units each.
func gsiUnits(in *dynamodb.CreateTableInput, r, w int64) *dynamodb.CreateTableInput {
	for i := range in.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes[i].ProvisionedThroughput = units(r, w)
	}
	return in
}

// Table management. DynamoDB Local creates tables ACTIVE at once, where
// DynamoDB reports CREATING first ("Usage notes" in the DynamoDB Local
// documentation: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.UsageNotes.html);
// the engine follows DynamoDB Local here, which is what tests want.
var tableCases = []tc{
	{
		name:   "DescribeTable/hash only",
		tables: tables(tPK()),
		steps:  []step{do(describe("T"))},
	},
	{
		name:   "DescribeTable/hash and range",
		tables: tables(tPKSK()),
		steps:  []step{do(describe("T"))},
	},
	{
		name:   "DescribeTable/number hash binary range",
		tables: tables(table("T", hs("id", "N"), hs("ver", "B"))),
		steps:  []step{do(describe("T"))},
	},
	{
		name: "DescribeTable/GSI and LSI",
		tables: tables(
			withLSI(withGSI(tPKSK(), "gsi1", hs("gpk", "S"), hs("gsk", "N"), projection(types.ProjectionTypeAll)),
				"lsi1", hs("lsk", "B"), projection(types.ProjectionTypeInclude, "a", "b")),
		),
		steps: []step{do(describe("T"))},
	},
	{
		name: "DescribeTable/KEYS_ONLY and INCLUDE GSIs",
		tables: tables(
			withGSI(withGSI(tPKSK(), "bykeys", hs("gpk", "S"), attr{}, projection(types.ProjectionTypeKeysOnly)),
				"byinc", hs("gpk", "S"), hs("sk", "S"), projection(types.ProjectionTypeInclude, "x")),
		),
		steps: []step{do(describe("T"))},
	},
	{
		name:  "DescribeTable/missing",
		steps: []step{fail(eNotFound, describe("Missing"))},
	},
	{
		name:  "DescribeTable/invalid name",
		steps: []step{fail(eValid, describe("=ab"))},
	},
	{
		name:  "CreateTable/output",
		steps: []step{do(tPKSK()), listAll()},
	},
	{
		name: "CreateTable/output with indexes",
		steps: []step{do(withLSI(withGSI(tPKSK(), "gsi1", hs("g", "N"), attr{}, projection(types.ProjectionTypeKeysOnly)),
			"lsi1", hs("l", "S"), projection(types.ProjectionTypeAll)))},
	},
	{
		name:   "CreateTable/exists",
		tables: tables(tPK()),
		steps:  []step{fail(eInUse, tPK())},
	},
	{
		name:  "CreateTable/index name too short",
		steps: []step{fail(eValid, withGSI(tPK(), "g", hs("g", "S"), attr{}, projection(types.ProjectionTypeAll)))},
	},
	{
		name: "CreateTable/key attribute not defined",
		steps: []step{fail(eValid, &dynamodb.CreateTableInput{
			TableName: str("T"), BillingMode: types.BillingModePayPerRequest,
			KeySchema: []types.KeySchemaElement{{AttributeName: str("pk"), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: str("other"), AttributeType: types.ScalarAttributeTypeS}},
		})},
	},
	{
		name: "CreateTable/unused attribute definition",
		steps: []step{fail(eValid, &dynamodb.CreateTableInput{
			TableName: str("T"), BillingMode: types.BillingModePayPerRequest,
			KeySchema: []types.KeySchemaElement{{AttributeName: str("pk"), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: str("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: str("extra"), AttributeType: types.ScalarAttributeTypeS}},
		})},
	},
	{
		name:  "CreateTable/LSI on hash-only table",
		steps: []step{fail(eValid, withLSI(tPK(), "lsi1", hs("l", "S"), projection(types.ProjectionTypeAll)))},
	},
	{
		name: "CreateTable/duplicate index names",
		steps: []step{fail(eValid, withGSI(withGSI(tPK(), "gsi1", hs("a", "S"), attr{}, projection(types.ProjectionTypeAll)),
			"gsi1", hs("b", "S"), attr{}, projection(types.ProjectionTypeAll)))},
	},
	{
		name: "CreateTable/two tables",
		steps: []step{
			do(tPK()),
			do(table("T2", hs("id", "N"), attr{})),
			listAll(),
			do(describe("T2")),
		},
	},
	// Throughput quotas: DynamoDB's defaults, which DescribeLimits
	// reports, hold a table and each global index to 40,000 read and
	// write units. The cases only ask for more, which provisions nothing:
	// DynamoDB Local holds all its tables to an account quota of 80,000
	// units, shared by every test that runs at the same time, so what is
	// granted up to the quotas (and the account quota itself) is tested on
	// the engine alone, in ddbmem (TestThroughputQuotas).
	{
		name:  "DescribeLimits/defaults",
		steps: []step{do(&dynamodb.DescribeLimitsInput{})},
	},
	{
		name: "CreateTable/throughput quota per table",
		steps: []step{
			failMsg(eValid, provisioned(tPK(), 40_001, 1)),
			failMsg(eValid, provisioned(tPK(), 1, 40_001)),
			do(tPK()),
			failMsg(eValid, provisioned(tPK(), 40_001, 1)), // before ResourceInUse
		},
	},
	{
		name: "CreateTable/throughput quota per global index",
		steps: []step{
			failMsg(eValid, gsiUnits(withGSI(provisioned(tPK(), 1, 1), "gsi1", hs("g", "S"), attr{}, projection(types.ProjectionTypeAll)), 40_001, 1)),
			failMsg(eValid, gsiUnits(withGSI(provisioned(tPK(), 1, 1), "gsi1", hs("g", "S"), attr{}, projection(types.ProjectionTypeAll)), 1, 40_001)),
		},
	},
	{
		name: "UpdateTable/throughput quotas",
		tables: tables(gsiUnits(withGSI(provisioned(tPK(), 1, 1), "gsi1", hs("g", "S"), attr{},
			projection(types.ProjectionTypeAll)), 1, 1)),
		steps: []step{
			failMsg(eValid, &dynamodb.UpdateTableInput{TableName: str("T"), ProvisionedThroughput: units(40_001, 1)}),
			failMsg(eValid, &dynamodb.UpdateTableInput{TableName: str("T"), ProvisionedThroughput: units(1, 40_001)}),
			failMsg(eValid, &dynamodb.UpdateTableInput{TableName: str("T"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
				{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: str("gsi1"), ProvisionedThroughput: units(40_001, 1)}}}}),
			failMsg(eValid, &dynamodb.UpdateTableInput{TableName: str("T"),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("h"), AttributeType: types.ScalarAttributeTypeS}},
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: str("gsi2"), KeySchema: []types.KeySchemaElement{{AttributeName: str("h"), KeyType: types.KeyTypeHash}},
					Projection: projection(types.ProjectionTypeAll), ProvisionedThroughput: units(1, 40_001)}}}}),
			do(describe("T")),
		},
	},
	{
		name:   "DeleteTable/then describe",
		tables: tables(tPKSK()),
		steps: []step{
			do(&dynamodb.DeleteTableInput{TableName: str("T")}),
			fail(eNotFound, describe("T")),
			listAll(),
			fail(eNotFound, put(pks("a", "b"))),
		},
	},
	// A table protected against deletion refuses DeleteTable until
	// UpdateTable lifts the protection; the protection alone is an
	// update, and DescribeTable shows it.
	{
		name: "DeleteTable/deletion protection",
		steps: []step{
			do(func() *dynamodb.CreateTableInput {
				in := tPK()
				in.DeletionProtectionEnabled = aws.Bool(true)
				return in
			}()),
			failMsg(eValid, &dynamodb.DeleteTableInput{TableName: str("T")}),
			do(describe("T")),
			do(put(pk("a"))),
			do(&dynamodb.UpdateTableInput{TableName: str("T"), DeletionProtectionEnabled: aws.Bool(true)}),
			failMsg(eValid, &dynamodb.DeleteTableInput{TableName: str("T")}),
			do(&dynamodb.UpdateTableInput{TableName: str("T"), DeletionProtectionEnabled: aws.Bool(false)}),
			do(describe("T")),
			do(&dynamodb.DeleteTableInput{TableName: str("T")}),
			fail(eNotFound, describe("T")),
		},
	},
	{
		name:  "DeleteTable/missing",
		steps: []step{fail(eNotFound, &dynamodb.DeleteTableInput{TableName: str("Missing")})},
	},
	{
		name:   "DeleteTable/recreate empty",
		tables: tables(tPK()),
		items:  []I{pk("a"), pk("b")},
		steps: []step{
			do(&dynamodb.DeleteTableInput{TableName: str("T")}),
			do(tPK()),
			do(get(pk("a"))),
		},
	},
	{
		name:   "UpdateTimeToLive/enable",
		tables: tables(tPK()),
		steps:  []step{do(ttl("T", "expires", true))},
	},
	{
		name:   "UpdateTimeToLive/enable then disable",
		tables: tables(tPK()),
		steps:  []step{do(ttl("T", "expires", true)), do(ttl("T", "expires", false))},
	},
	{
		name:  "UpdateTimeToLive/missing table",
		steps: []step{fail(eNotFound, ttl("Missing", "expires", true))},
	},
	{
		// An expired item is not removed at once: DynamoDB deletes expired
		// items in the background, "typically within a few days", and reads
		// still see them until then.
		name:   "UpdateTimeToLive/expired item still readable",
		tables: tables(tPK()),
		steps: []step{
			do(ttl("T", "expires", true)),
			do(put(I{"pk": S("old"), "expires": N("1000")})),
			do(get(pk("old"))),
		},
	},
	{
		name:  "GetItem/missing table",
		steps: []step{fail(eNotFound, get(pk("a")))},
	},
	{
		name:  "PutItem/missing table",
		steps: []step{fail(eNotFound, put(pk("a")))},
	},
}
