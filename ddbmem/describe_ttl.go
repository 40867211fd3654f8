package ddbmem

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DescribeTimeToLive reports a table's TTL setting: ENABLED with the
// attribute name, or DISABLED.
func (db *DB) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	if err := db.begin(ctx, "DescribeTimeToLive"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.DescribeTimeToLiveInput{}
	}
	if err := tableOnlyConstraints(in.TableName); err != nil {
		return nil, err
	}
	t, err := db.anyTable(in.TableName)
	if err != nil {
		return nil, missingTableOnly(err, in.TableName)
	}
	t.mu.RLock()
	attr := t.ttlAttr
	t.mu.RUnlock()
	d := &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}
	if attr != "" {
		d = &types.TimeToLiveDescription{AttributeName: aws.String(attr), TimeToLiveStatus: types.TimeToLiveStatusEnabled}
	}
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}
