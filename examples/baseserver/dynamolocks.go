package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/dynamolock"
)

// The DynamoDB lock backend: a lease item in the application's table.

func runDynamoLocks(ctx context.Context, w io.Writer, c cfg) error {
	var db entity.Client = ddbmem.New()
	where := "the embedded engine (ddbmem)"
	if c.DynamoEndpoint != "" {
		db, where = entity.LocalClient(c.DynamoEndpoint), "DynamoDB at "+c.DynamoEndpoint
	}
	section(w, "distributed lock on DynamoDB, "+where)
	created, err := ensureTable(ctx, db, c.Table)
	if err != nil {
		if c.DynamoEndpoint == "" {
			// The embedded engine may not offer every call yet.
			fmt.Fprintf(w, "skipped: the embedded engine cannot create table %s: %v\n", c.Table, err)
			return nil
		}
		return fmt.Errorf("create table %s: %w", c.Table, err)
	}
	if created {
		defer func() {
			// A fresh context: the table goes even if ctx ended.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_, _ = db.DeleteTable(dctx, &dynamodb.DeleteTableInput{TableName: aws.String(c.Table)})
		}()
	}
	b, err := dynamolock.New(db, func(o *dynamolock.Options) { o.Table = c.Table })
	if err != nil {
		return err
	}
	describe := func(ctx context.Context, key string) string {
		k, err := b.ItemKey(key)
		if err != nil {
			return err.Error()
		}
		pk, _ := k["PK"].(*types.AttributeValueMemberS)
		sk, _ := k["SK"].(*types.AttributeValueMemberS)
		if pk == nil || sk == nil {
			return fmt.Sprintf("lease item %v", k)
		}
		return fmt.Sprintf("lease item %s PK=%s SK=%s", c.Table, pk.Value, sk.Value)
	}
	lk := lock.New(b)
	return locks(ctx, w, lk, lk, describe)
}

// ensureTable creates table (PK, SK strings, on demand) unless it exists and
// reports whether it did.
func ensureTable(ctx context.Context, db entity.Client, table string) (bool, error) {
	if _, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err == nil {
		return false, nil
	}
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		return false, err
	}
	return true, nil
}
