package ddbmem_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdateSetValuesCopied checks that a SET of string and binary
// values (which the engine takes from the request as they are) and of a
// list stores copies: a caller that changes the values afterwards
// changes nothing stored.
func TestUpdateSetValuesCopied(t *testing.T) {
	db := newTable(t)
	key := map[string]av{"pk": s("p"), "sk": s("s")}
	str := &types.AttributeValueMemberS{Value: "a"}
	bin := &types.AttributeValueMemberB{Value: []byte("b")}
	list := &types.AttributeValueMemberL{Value: []av{s("l")}}
	for _, u := range []*dynamodb.UpdateItemInput{
		{UpdateExpression: aws.String("SET s = :s, b = :b"), ExpressionAttributeValues: map[string]av{":s": str, ":b": bin}},
		{UpdateExpression: aws.String("SET l = :l"), ExpressionAttributeValues: map[string]av{":l": list}},
	} {
		u.TableName, u.Key = aws.String("tbl"), key
		if _, err := db.UpdateItem(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	str.Value, bin.Value[0], list.Value[0] = "changed", 'X', s("changed")
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if v := out.Item["s"].(*types.AttributeValueMemberS).Value; v != "a" {
		t.Errorf("s = %q", v)
	}
	if v := out.Item["b"].(*types.AttributeValueMemberB).Value; string(v) != "b" {
		t.Errorf("b = %q", v)
	}
	if v := out.Item["l"].(*types.AttributeValueMemberL).Value[0].(*types.AttributeValueMemberS).Value; v != "l" {
		t.Errorf("l[0] = %q", v)
	}
}

// TestUpdateSetEmptyBinary checks that a SET of an empty binary value
// stores the empty value (a nil one is refused as an empty
// AttributeValue).
func TestUpdateSetEmptyBinary(t *testing.T) {
	db := newTable(t)
	key := map[string]av{"pk": s("p"), "sk": s("s")}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key,
		UpdateExpression:          aws.String("SET b = :b"),
		ExpressionAttributeValues: map[string]av{":b": &types.AttributeValueMemberB{Value: []byte{}}},
	}); err != nil {
		t.Fatal(err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if v := out.Item["b"].(*types.AttributeValueMemberB).Value; v == nil || len(v) != 0 {
		t.Errorf("b = %#v, want empty, not nil", v)
	}
}
