// Package ddbmem is an embedded, in-process DynamoDB engine. Its *DB
// implements entity.Client, so examples and unit tests run with no server.
//
// This is a stub being replaced by the real engine: every call returns an
// error.
package ddbmem

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Options configures a DB. The zero value is valid.
type Options struct{}

// DB is an in-memory DynamoDB. It is safe for concurrent use.
type DB struct{}

// New returns an empty engine.
func New(optFns ...func(*Options)) *DB { return &DB{} }

var errStub = errors.New("ddbmem: not implemented yet")

// GetItem is not implemented yet.
func (db *DB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errStub
}

// PutItem is not implemented yet.
func (db *DB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errStub
}

// UpdateItem is not implemented yet.
func (db *DB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errStub
}

// DeleteItem is not implemented yet.
func (db *DB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errStub
}

// Query is not implemented yet.
func (db *DB) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, errStub
}

// Scan is not implemented yet.
func (db *DB) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return nil, errStub
}

// BatchGetItem is not implemented yet.
func (db *DB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return nil, errStub
}

// BatchWriteItem is not implemented yet.
func (db *DB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, errStub
}

// TransactWriteItems is not implemented yet.
func (db *DB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, errStub
}

// TransactGetItems is not implemented yet.
func (db *DB) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return nil, errStub
}

// CreateTable is not implemented yet.
func (db *DB) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return nil, errStub
}

// DeleteTable is not implemented yet.
func (db *DB) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return nil, errStub
}

// DescribeTable is not implemented yet.
func (db *DB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, errStub
}

// ListTables is not implemented yet.
func (db *DB) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return nil, errStub
}

// UpdateTimeToLive is not implemented yet.
func (db *DB) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, errStub
}
