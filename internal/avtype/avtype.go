// Package avtype names the type of a DynamoDB attribute value as the wire
// format does, for the engine and for the client's error messages.
package avtype

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// Name returns the wire type of v: "S", "N", "B", "BOOL", "NULL", "SS",
// "NS", "BS", "L" or "M"; "" for any other value (nil included).
func Name(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberM:
		return "M"
	}
	return ""
}
