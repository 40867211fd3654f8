package avtype_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/avtype"
)

func Example() {
	fmt.Println(avtype.Name(&types.AttributeValueMemberSS{Value: []string{"a"}}))
	fmt.Println(avtype.Name(&types.AttributeValueMemberN{Value: "1"}))
	fmt.Printf("%q\n", avtype.Name(nil))
	// Output:
	// SS
	// N
	// ""
}
