package crashtest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/entity"
)

// Client is an entity.Client whose data-plane calls (reads, writes,
// queries, transactions) go through an [Injector]; table management calls
// pass through uncounted.
type Client struct {
	entity.Client
	In *Injector
}

var _ entity.Client = (*Client)(nil)

// GetItem implements entity.Client under the injector.
func (c *Client) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return call(c.In, "GetItem", func() (*dynamodb.GetItemOutput, error) { return c.Client.GetItem(ctx, in, optFns...) })
}

// PutItem implements entity.Client under the injector.
func (c *Client) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return call(c.In, "PutItem", func() (*dynamodb.PutItemOutput, error) { return c.Client.PutItem(ctx, in, optFns...) })
}

// UpdateItem implements entity.Client under the injector.
func (c *Client) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return call(c.In, "UpdateItem", func() (*dynamodb.UpdateItemOutput, error) { return c.Client.UpdateItem(ctx, in, optFns...) })
}

// DeleteItem implements entity.Client under the injector.
func (c *Client) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return call(c.In, "DeleteItem", func() (*dynamodb.DeleteItemOutput, error) { return c.Client.DeleteItem(ctx, in, optFns...) })
}

// Query implements entity.Client under the injector.
func (c *Client) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return call(c.In, "Query", func() (*dynamodb.QueryOutput, error) { return c.Client.Query(ctx, in, optFns...) })
}

// Scan implements entity.Client under the injector.
func (c *Client) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return call(c.In, "Scan", func() (*dynamodb.ScanOutput, error) { return c.Client.Scan(ctx, in, optFns...) })
}

// BatchGetItem implements entity.Client under the injector.
func (c *Client) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return call(c.In, "BatchGetItem", func() (*dynamodb.BatchGetItemOutput, error) { return c.Client.BatchGetItem(ctx, in, optFns...) })
}

// BatchWriteItem implements entity.Client under the injector.
func (c *Client) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return call(c.In, "BatchWriteItem", func() (*dynamodb.BatchWriteItemOutput, error) { return c.Client.BatchWriteItem(ctx, in, optFns...) })
}

// TransactWriteItems implements entity.Client under the injector.
func (c *Client) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return call(c.In, "TransactWriteItems", func() (*dynamodb.TransactWriteItemsOutput, error) {
		return c.Client.TransactWriteItems(ctx, in, optFns...)
	})
}

// TransactGetItems implements entity.Client under the injector.
func (c *Client) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return call(c.In, "TransactGetItems", func() (*dynamodb.TransactGetItemsOutput, error) { return c.Client.TransactGetItems(ctx, in, optFns...) })
}
