package conformance

import "github.com/aws/aws-sdk-go-v2/service/dynamodb"

func describeTTL(name string) *dynamodb.DescribeTimeToLiveInput {
	return &dynamodb.DescribeTimeToLiveInput{TableName: str(name)}
}

// ttlCases cover DescribeTimeToLive.
var ttlCases = []tc{
	{
		name:   "DescribeTimeToLive/disabled, enabled, disabled",
		tables: tables(tPK()),
		steps: []step{
			do(describeTTL("T")),
			do(ttl("T", "expires", true)),
			do(describeTTL("T")),
			do(ttl("T", "expires", false)),
			do(describeTTL("T")),
		},
	},
	{
		name:  "DescribeTimeToLive/missing table",
		steps: []step{fail(eNotFound, describeTTL("nope"))},
	},
}
