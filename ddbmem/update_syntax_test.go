package ddbmem_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdateSyntax runs update expressions in order against one item and
// pins the outcome DynamoDB Local gave for the same sequence ("" is
// success).
func TestUpdateSyntax(t *testing.T) {
	db := newTable(t)
	put(t, db, map[string]av{"pk": s("z"), "sk": s("z"), "l": &types.AttributeValueMemberL{Value: []av{s("a")}}, "n": n("1"),
		"m": &types.AttributeValueMemberM{Value: map[string]av{"a": s("b")}}})
	cases := []struct{ expr, msg string }{
		{"SET a = :v,", "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\""},
		{"SET a = :v, REMOVE b", "Invalid UpdateExpression: Syntax error; token: \"REMOVE\", near: \", REMOVE b\""},
		{"SET a :v", "Invalid UpdateExpression: Syntax error; token: \":v\", near: \"a :v\""},
		{"SET a = :v SET b = :v", "Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;"},
		{"REMOVE a, a", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"REMOVE l[0], l[1]", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"},
		{"SET l[5] = :v", ""},
		{"SET m.x.y = :v", "The document path provided in the update expression is invalid for update"},
		{"ADD m.a :v", "An operand in the update expression has an incorrect data type"},
		{"DELETE n :v", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"SET a = if_not_exists(b)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"SET a = list_append(:v)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"SET a = b + c + :v", "Invalid UpdateExpression: Syntax error; token: \"+\", near: \"c + :v\""},
		{"SET a = (:v)", ""},
		{"UPDATE a = :v", "Invalid UpdateExpression: Syntax error; token: \"UPDATE\", near: \"UPDATE a\""},
		{"SET a = :v REMOVE n ADD x :v DELETE y :v", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"SET a = size(l)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
		{"SET n = n - :v", ""},
		{"REMOVE pk", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"},
		{"SET a = :v, b = a", ""},
		{"SET m.a = :v, m = :v", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m]"},
		{"SET #n = :v", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #n"},
	}
	for _, c := range cases {
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("z", "z"),
			UpdateExpression: aws.String(c.expr), ExpressionAttributeValues: map[string]av{":v": n("1")}})
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v, want success", c.expr, err)
			}
			continue
		}
		if !isValidation(err) || apiMsg(err) != c.msg {
			t.Errorf("%s: got %v\nwant %s", c.expr, err, c.msg)
		}
	}
}
