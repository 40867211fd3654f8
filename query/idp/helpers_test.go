package idp_test

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

func sval(m map[string]types.AttributeValue, k string) string {
	if v, ok := m[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return "<absent>"
}
