package ddbmem_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestUnusedShared checks the unused placeholder check when the update
// and the condition share placeholders: each counts once.
func TestUnusedShared(t *testing.T) {
	db := newTable(t)
	key := map[string]av{"pk": s("p"), "sk": s("s")}
	upd := func(names map[string]string, vals map[string]av) error {
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String("tbl"), Key: key,
			UpdateExpression:          aws.String("SET #a = :v, #b = :w"),
			ConditionExpression:       aws.String("attribute_not_exists(#a) OR #a <> :v"),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: vals,
		})
		return err
	}
	if err := upd(map[string]string{"#a": "a", "#b": "b"}, map[string]av{":v": s("x"), ":w": s("y")}); err != nil {
		t.Fatal(err)
	}
	err := upd(map[string]string{"#a": "a", "#b": "b", "#c": "c"}, map[string]av{":v": s("z"), ":w": s("y")})
	if err == nil || !strings.Contains(err.Error(), "unused in expressions: keys: {#c}") {
		t.Fatalf("extra name: %v", err)
	}
	err = upd(map[string]string{"#a": "a", "#b": "b"}, map[string]av{":v": s("z"), ":w": s("y"), ":u": s("u")})
	if err == nil || !strings.Contains(err.Error(), "unused in expressions: keys: {:u}") {
		t.Fatalf("extra value: %v", err)
	}
}
