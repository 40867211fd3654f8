// Package leasetest is a stand-in for the fenced lease package, used by
// package feed's tests until that package is merged: a lease table of
// conditional writes on a DynamoDB table (the engine or DynamoDB Local),
// shared by every process that points at the same table.
package leasetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/feed"
)

// Leases keeps leases as items (PK = name, SK = "LEASE") of a table keyed
// by the strings PK and SK.
type Leases struct {
	C     entity.Client
	Table string
}

var _ feed.Leases = (*Leases)(nil)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func key(name string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": s(name), "SK": s("LEASE")}
}

func text(m map[string]types.AttributeValue, k string) string {
	switch v := m[k].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return ""
}

func num(m map[string]types.AttributeValue, k string) int64 {
	v, _ := strconv.ParseInt(text(m, k), 10, 64)
	return v
}

// List implements feed.Leases.
func (l *Leases) List(ctx context.Context, prefix string) ([]feed.LeaseInfo, error) {
	var out []feed.LeaseInfo
	in := &dynamodb.ScanInput{TableName: aws.String(l.Table), ConsistentRead: aws.Bool(true)}
	now := time.Now().UnixMilli()
	for {
		res, err := l.C.Scan(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			name := text(it, "PK")
			if text(it, "SK") != "LEASE" || !strings.HasPrefix(name, prefix) {
				continue
			}
			out = append(out, feed.LeaseInfo{Name: name, Owner: text(it, "owner"),
				Live: text(it, "owner") != "" && num(it, "expires") > now, Checkpoint: text(it, "cp")})
		}
		if len(res.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// Acquire implements feed.Leases.
func (l *Leases) Acquire(ctx context.Context, name, owner string, ttl time.Duration) (feed.Lease, error) {
	now := time.Now().UnixMilli()
	out, err := l.C.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(l.Table), Key: key(name),
		UpdateExpression:         aws.String("SET #o = :o, expires = :e ADD fence :one"),
		ConditionExpression:      aws.String("attribute_not_exists(PK) OR #o = :empty OR expires < :now"),
		ExpressionAttributeNames: map[string]string{"#o": "owner"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": s(owner), ":e": n(now + ttl.Milliseconds()),
			":one": n(1), ":empty": s(""), ":now": n(now)},
		ReturnValues: types.ReturnValueAllNew,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil, fmt.Errorf("%w: %s", feed.ErrLeaseHeld, name)
	}
	if err != nil {
		return nil, err
	}
	return &lease{ls: l, name: name, owner: owner, ttl: ttl, fence: num(out.Attributes, "fence"), cp: text(out.Attributes, "cp")}, nil
}

type lease struct {
	ls          *Leases
	name, owner string
	ttl         time.Duration
	fence       int64
	cp          string
}

func (x *lease) Checkpoint() string { return x.cp }

// Fence returns the lease's fencing number.
func (x *lease) Fence() int64 { return x.fence }

func (x *lease) update(ctx context.Context, set string, vals map[string]types.AttributeValue) error {
	vals[":o"], vals[":f"] = s(x.owner), n(x.fence)
	_, err := x.ls.C.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(x.ls.Table), Key: key(x.name),
		UpdateExpression: aws.String(set), ConditionExpression: aws.String("#o = :o AND fence = :f"),
		ExpressionAttributeNames: map[string]string{"#o": "owner"}, ExpressionAttributeValues: vals,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("%w: %s", feed.ErrLeaseLost, x.name)
	}
	return err
}

func (x *lease) expires() types.AttributeValue { return n(time.Now().Add(x.ttl).UnixMilli()) }

func (x *lease) Save(ctx context.Context, cp string) error {
	err := x.update(ctx, "SET cp = :cp, expires = :e", map[string]types.AttributeValue{":cp": s(cp), ":e": x.expires()})
	if err == nil {
		x.cp = cp
	}
	return err
}

func (x *lease) Renew(ctx context.Context) error {
	return x.update(ctx, "SET expires = :e", map[string]types.AttributeValue{":e": x.expires()})
}

func (x *lease) Release(ctx context.Context) error {
	return x.update(ctx, "SET #o = :empty, expires = :z", map[string]types.AttributeValue{":empty": s(""), ":z": n(0)})
}
