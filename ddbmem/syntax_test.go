package ddbmem_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestConditionSyntax pins the messages DynamoDB Local returned for the
// same malformed conditions.
func TestConditionSyntax(t *testing.T) {
	db := newTable(t)
	cases := []struct{ expr, msg string }{
		{"a = :v AND", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		{"a IN ()", `Invalid ConditionExpression: Syntax error; token: ")", near: "()"`},
		{"a BETWEEN :v", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"`},
		{"size(a)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"attribute_exists(a) = :v", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"a.b[x] = :v", `Invalid ConditionExpression: Syntax error; token: "x", near: "[x]"`},
		{"a[-1] = :v", `Invalid ConditionExpression: Syntax error; token: "-", near: "[-1"`},
		{"#a = :v", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #a"},
		{"begins_with(a)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{"a = :v :v", `Invalid ConditionExpression: Syntax error; token: ":v", near: ":v :v"`},
		{"a == :v", `Invalid ConditionExpression: Syntax error; token: "=", near: "== :v"`},
		{"a = :v)", `Invalid ConditionExpression: Syntax error; token: ")", near: ":v)"`},
		{"(a = :v", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"`},
		{"contains(:v, a)", ""},
		{"NOT NOT a = :v", ""},
		{"a.b.c.d = :v AND e[1][2] = :v", ""},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: key("z", "z"),
				ConditionExpression: aws.String(c.expr), ExpressionAttributeValues: map[string]av{":v": s("x")}})
			if c.msg == "" {
				var ccf *types.ConditionalCheckFailedException
				if err != nil && !errors.As(err, &ccf) {
					t.Fatalf("got %v, want the condition evaluated", err)
				}
				return
			}
			if !isValidation(err) || apiMsg(err) != c.msg {
				t.Fatalf("got %v\nwant %s", err, c.msg)
			}
		})
	}
}
