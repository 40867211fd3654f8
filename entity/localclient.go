package entity

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// LocalRegion is the region of a [LocalClient]. DynamoDB Local keeps one
// set of tables per region and access key, so every LocalClient sees the
// same tables.
const LocalRegion = "us-east-1"

// LocalClient returns a DynamoDB client for a local endpoint such as
// DynamoDB Local ("http://127.0.0.1:8000"): the endpoint as given, region
// [LocalRegion] and fixed placeholder credentials, with no shared config
// files, environment credentials or IMDS lookups. optFns adjust the client
// options afterwards (retries, an HTTP client). Do not use it for AWS
// itself: build that client from aws config.LoadDefaultConfig.
func LocalClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       LocalRegion,
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local", Source: "tablekit.LocalClient"}, nil
		}),
	}, optFns...)
}
