package ddbjson_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity/internal/ddbjson"
)

// Decode fills an SDK output from a GetItem response body.
func ExampleDecode() {
	body := []byte(`{"Item":{"PK":{"S":"USER#u001"},"SK":{"S":"METADATA"},"n":{"N":"42"}}}`)
	var out dynamodb.GetItemOutput
	if err := ddbjson.Decode(body, &out); err != nil {
		panic(err)
	}
	fmt.Println(out.Item["PK"].(*types.AttributeValueMemberS).Value, out.Item["n"].(*types.AttributeValueMemberN).Value)
	// Output: USER#u001 42
}
