package conformance

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var tableCases = []tc{
	{
		name:   "DescribeTable/hash only",
		tables: []*dynamodb.CreateTableInput{tPK()},
		steps:  []step{do(&dynamodb.DescribeTableInput{TableName: str("T")})},
	},
	{
		name:   "DescribeTable/hash and range",
		tables: []*dynamodb.CreateTableInput{tPKSK()},
		steps:  []step{do(&dynamodb.DescribeTableInput{TableName: str("T")})},
	},
	{
		name: "DescribeTable/GSI and LSI",
		tables: []*dynamodb.CreateTableInput{
			withLSI(withGSI(tPKSK(), "gsi1", hs("gpk", "S"), hs("gsk", "N"), projection(types.ProjectionTypeAll)),
				"lsi1", hs("lsk", "B"), projection(types.ProjectionTypeInclude, "a", "b")),
		},
		steps: []step{do(&dynamodb.DescribeTableInput{TableName: str("T")})},
	},
	{
		name:  "DescribeTable/missing",
		steps: []step{fail(eNotFound, &dynamodb.DescribeTableInput{TableName: str("Missing")})},
	},
	{
		name:  "CreateTable/output",
		steps: []step{do(tPKSK()), listAll()},
	},
	{
		name:   "CreateTable/exists",
		tables: []*dynamodb.CreateTableInput{tPK()},
		steps:  []step{fail(eInUse, tPK())},
	},
}
