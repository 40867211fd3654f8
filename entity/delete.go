package entity

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Delete deletes the item with the given key. For a versioned entity
// [IfVersion] is required, and a mismatch is [ErrVersionConflict]; a
// missing item then matches [ErrNotFound]. Without a version or condition,
// deleting a missing item succeeds. For an entity with unique fields it
// reads the item (strongly consistent) and deletes it with its guards in
// one TransactWriteItems, on the condition that its unique values are
// still as read.
func (s *Store[T, PT]) Delete(ctx context.Context, key Key, optFns ...func(*CallOptions)) error {
	o := callOpts(optFns)
	in, err := s.deleteInput(key, &o)
	if err != nil {
		return err
	}
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "DeleteItem", Input: in}
		return nil
	}
	if len(s.schema.Unique) > 0 {
		return s.deleteUnique(ctx, key, in, &o)
	}
	if _, err := send(ctx, s.t, s.tracer(&o), "DeleteItem", "", in, s.t.client.DeleteItem, s.t.sdkOpts...); err != nil {
		return s.fail("Delete", key, &o, false, err)
	}
	return nil
}

// DeleteInput builds the DeleteItem request of [Store.Delete] without
// sending it.
func (s *Store[T, PT]) DeleteInput(key Key, optFns ...func(*CallOptions)) (*dynamodb.DeleteItemInput, error) {
	o := callOpts(optFns)
	return s.deleteInput(key, &o)
}

func (s *Store[T, PT]) deleteInput(key Key, o *CallOptions) (*dynamodb.DeleteItemInput, error) {
	if err := s.checkKey("Delete", key); err != nil {
		return nil, err
	}
	if s.schema.VersionAttr != "" && o.Version <= 0 {
		return nil, &ValidationError{Op: "Delete", Type: s.schema.Type, Field: s.schema.VersionAttr, Err: errors.New("versioned entity: IfVersion is required")}
	}
	if o.Version != 0 && s.schema.VersionAttr == "" {
		return nil, s.unversioned("Delete")
	}
	e := anyItem
	if o.Version > 0 {
		e = mustExist
	}
	c, err := s.writeCond("Delete", o, e)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.DeleteItemInput{
		TableName:                 &s.t.name,
		Key:                       s.t.KeyMap(key),
		ConditionExpression:       c.expr,
		ExpressionAttributeNames:  c.names,
		ExpressionAttributeValues: c.values,
	}
	if c.expr != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, nil
}
