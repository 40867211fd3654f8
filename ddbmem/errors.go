package ddbmem

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// ValidationException is the error code of the engine's validation
// errors, which are *smithy.GenericAPIError values just like the SDK
// returns for the same code:
//
//	var ae smithy.APIError
//	if errors.As(err, &ae) && ae.ErrorCode() == ddbmem.ValidationException { ... }
const ValidationException = "ValidationException"

func validationf(format string, args ...any) error {
	return &smithy.GenericAPIError{Code: ValidationException, Message: fmt.Sprintf(format, args...)}
}

func validation(msg string) error {
	return &smithy.GenericAPIError{Code: ValidationException, Message: msg}
}

// notFound is DynamoDB's answer to an item operation on a missing table
// (DynamoDB Local says "Cannot do operations on a non-existent table").
func notFound() error {
	return &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
}

// tableNotFound is DynamoDB's answer to a table operation (DescribeTable,
// DeleteTable, UpdateTable, DescribeTimeToLive) on a missing table.
func tableNotFound(name string) error {
	return &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Table: " + name + " not found")}
}

func conditionFailed(old map[string]types.AttributeValue, rv types.ReturnValuesOnConditionCheckFailure) error {
	e := &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
	if rv == types.ReturnValuesOnConditionCheckFailureAllOld && old != nil {
		e.Item = copyItem(old)
	}
	return e
}

func keySet(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "{" + strings.Join(keys, ", ") + "}"
}
