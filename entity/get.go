package entity

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Get reads the item with the given key. It is eventually consistent
// unless [ConsistentRead] is given. It returns an error matching
// [ErrNotFound] when the item does not exist, a [*ValidationError] for an
// empty key or an item of another Type, and the codec's error (wrapped)
// for an attribute it cannot decode.
func (s *Store[T, PT]) Get(ctx context.Context, key Key, optFns ...func(*CallOptions)) (T, error) {
	var v T
	o := callOpts(optFns)
	in, err := s.getInput(key, &o)
	if err != nil {
		return v, err
	}
	if o.DryRun != nil {
		*o.DryRun = Request{Op: "GetItem", Input: in}
		return v, nil
	}
	out, err := send(ctx, s.t, s.tracer(&o), "GetItem", "", in, s.t.client.GetItem, s.t.sdkOpts...)
	if err != nil {
		return v, s.fail("Get", key, &o, false, err)
	}
	if len(out.Item) == 0 {
		return v, fmt.Errorf("entity: Get %s %s/%s: %w", s.schema.Type, key.PK, key.SK, ErrNotFound)
	}
	err = s.decode(out.Item, &v)
	return v, err
}

// GetInput builds the GetItem request of [Store.Get] without sending it.
func (s *Store[T, PT]) GetInput(key Key, optFns ...func(*CallOptions)) (*dynamodb.GetItemInput, error) {
	o := callOpts(optFns)
	return s.getInput(key, &o)
}

func (s *Store[T, PT]) getInput(key Key, o *CallOptions) (*dynamodb.GetItemInput, error) {
	if err := s.checkKey("Get", key); err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: &s.t.name, Key: s.t.KeyMap(key)}
	if o.ConsistentRead {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, nil
}
