package lock

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// FenceAttribute is the default name of the attribute in which the
// application's own items keep the fencing number of their last writer.
const FenceAttribute = "fence"

// FenceCondition returns the condition that admits a write by the holder of
// fencing number token: attribute_not_exists(attr) OR attr < token. attr ""
// means [FenceAttribute]. Combine it with your own conditions and pair it
// with [FenceUpdate], which stores token, so that a holder that lost its
// lock without knowing (paused past its TTL) cannot write after a later
// holder did.
func FenceCondition(attr string, token int64) expression.ConditionBuilder {
	if attr == "" {
		attr = FenceAttribute
	}
	name := expression.Name(attr)
	return name.AttributeNotExists().Or(name.LessThan(expression.Value(token)))
}

// FenceUpdate returns SET attr = token (attr "" means [FenceAttribute]).
// Chain your own SET/REMOVE/ADD clauses onto it.
func FenceUpdate(attr string, token int64) expression.UpdateBuilder {
	if attr == "" {
		attr = FenceAttribute
	}
	return expression.Set(expression.Name(attr), expression.Value(token))
}

// FencedExpression builds [FenceCondition] and [FenceUpdate] into a ready
// expression: use its Condition(), Update(), Names() and Values() in an
// UpdateItemInput.
func FencedExpression(attr string, token int64) (expression.Expression, error) {
	return expression.NewBuilder().WithCondition(FenceCondition(attr, token)).WithUpdate(FenceUpdate(attr, token)).Build()
}

// PutFenced puts in.Item with its FenceAttribute set to token, on the
// condition that the stored item is absent or carries a smaller fencing
// number. An existing in.ConditionExpression is kept and ANDed with the
// fence condition (this function uses the placeholders #tkfence and
// :tkfence). in is not modified.
//
// A stale holder's write fails with an error matching
// entity.ErrConditionFailed; other errors are the SDK's.
func PutFenced(ctx context.Context, c entity.Client, in *dynamodb.PutItemInput, token int64) (*dynamodb.PutItemOutput, error) {
	cp := *in
	cp.Item = make(map[string]types.AttributeValue, len(in.Item)+1)
	for k, v := range in.Item {
		cp.Item[k] = v
	}
	cp.Item[FenceAttribute] = &types.AttributeValueMemberN{Value: strconv.FormatInt(token, 10)}
	cp.ExpressionAttributeNames = map[string]string{"#tkfence": FenceAttribute}
	for k, v := range in.ExpressionAttributeNames {
		cp.ExpressionAttributeNames[k] = v
	}
	cp.ExpressionAttributeValues = map[string]types.AttributeValue{":tkfence": cp.Item[FenceAttribute]}
	for k, v := range in.ExpressionAttributeValues {
		cp.ExpressionAttributeValues[k] = v
	}
	cond := "(attribute_not_exists(#tkfence) OR #tkfence < :tkfence)"
	if in.ConditionExpression != nil && *in.ConditionExpression != "" {
		cond = "(" + *in.ConditionExpression + ") AND " + cond
	}
	cp.ConditionExpression = aws.String(cond)
	out, err := c.PutItem(ctx, &cp)
	return out, translate(err, token)
}

// UpdateFenced applies update to the item at key of table, adding SET of
// the fencing number and the fence condition (ANDed with cond when cond is
// not nil). The expression package's builders share their clause lists,
// so do not reuse update after the call. A stale holder's write fails with an error matching
// entity.ErrConditionFailed; an invalid update fails with the expression
// package's error before any I/O.
func UpdateFenced(ctx context.Context, c entity.Client, table string, key map[string]types.AttributeValue,
	update expression.UpdateBuilder, cond *expression.ConditionBuilder, token int64) (*dynamodb.UpdateItemOutput, error) {
	fc := FenceCondition("", token)
	if cond != nil {
		fc = cond.And(fc)
	}
	expr, err := expression.NewBuilder().
		WithCondition(fc).
		WithUpdate(update.Set(expression.Name(FenceAttribute), expression.Value(token))).
		Build()
	if err != nil {
		return nil, fmt.Errorf("lock: fenced update: %w", err)
	}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       key,
		UpdateExpression:          expr.Update(),
		ConditionExpression:       expr.Condition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	})
	return out, translate(err, token)
}

func translate(err error, token int64) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("lock: fenced write with fence %d rejected: %w", token, entity.ErrConditionFailed)
	}
	return err
}
