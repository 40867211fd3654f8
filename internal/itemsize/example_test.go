package itemsize_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/itemsize"
)

func Example() {
	item := map[string]types.AttributeValue{
		"PK":    &types.AttributeValueMemberS{Value: "USER#u1"},    // 2 + 7
		"n":     &types.AttributeValueMemberN{Value: "12345"},      // 1 + 4
		"ok":    &types.AttributeValueMemberBOOL{Value: true},      // 2 + 1
		"bytes": &types.AttributeValueMemberB{Value: []byte{1, 2}}, // 5 + 2
	}
	fmt.Println(itemsize.Of(item), itemsize.Of(item) <= itemsize.Max)
	// Output: 24 true
}
