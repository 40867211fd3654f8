package feed_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lease"
)

// target is one server with streams: a DynamoDB client, the streams
// client of the same server.
type target struct {
	name    string
	db      entity.Client
	streams feed.Streams
}

// engineTarget is the embedded engine with its in-process Streams API.
func engineTarget(optFns ...func(*ddbmem.Options)) target {
	db := ddbmem.New(optFns...)
	return target{name: "engine", db: db, streams: db.Streams()}
}

// eachTarget runs f on the engine and on DynamoDB Local.
func eachTarget(t *testing.T, f func(t *testing.T, tg target)) {
	t.Run("engine", func(t *testing.T) { f(t, engineTarget()) })
	t.Run("local", func(t *testing.T) { f(t, localTarget(t)) })
}

// localTarget is DynamoDB Local (its Streams API answers on the same
// endpoint).
func localTarget(t testing.TB) target {
	ep := testenv.DynamoEndpoint(t)
	return target{name: "local", db: testenv.DynamoDB(t), streams: localStreams(ep)}
}

func localStreams(endpoint string) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region: entity.LocalRegion, BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		}),
	})
}

// streamTable creates a PK/SK table with a NEW_AND_OLD_IMAGES stream.
func streamTable(t testing.TB, c entity.Client, prefix string) string {
	t.Helper()
	name := testenv.UniqueName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
		BillingMode: types.BillingModePayPerRequest,
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true),
			StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// leaseTable returns a lease manager on a fresh PK/SK table of c, with
// 2 s leases and a unique owner name.
func leaseTable(t testing.TB, c entity.Client) *lease.Manager {
	t.Helper()
	return leases(t, c, testenv.PKSKTable(t, c, "feedlease"), testenv.UniqueName("owner"))
}

func leases(t testing.TB, c entity.Client, table, owner string) *lease.Manager {
	t.Helper()
	m, err := lease.New(c, func(o *lease.Options) {
		o.Table, o.Owner, o.Duration = table, owner, 2*time.Second
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
