// Package exampleenv chooses the DynamoDB client of the example programs:
// the embedded engine by default, or the DynamoDB endpoint named by
// TABLEKIT_DYNAMODB_ENDPOINT (DynamoDB Local, with dummy credentials).
package exampleenv

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

// EndpointEnv names the variable that points the examples at a server.
const EndpointEnv = "TABLEKIT_DYNAMODB_ENDPOINT"

// NewDynamoClient returns an SDK client for endpoint with static dummy
// credentials, which DynamoDB Local accepts.
func NewDynamoClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local", Source: "tablekit"}, nil
		}),
	})
}

// Client returns the embedded engine when endpoint is "", else a client of
// endpoint, and a short description of which it is.
func Client(endpoint string) (entity.Client, string) {
	if endpoint == "" {
		return ddbmem.New(), "the embedded engine (ddbmem)"
	}
	return NewDynamoClient(endpoint), "DynamoDB at " + endpoint
}

// FromEnv is Client of the endpoint in TABLEKIT_DYNAMODB_ENDPOINT.
func FromEnv() (entity.Client, string) { return Client(os.Getenv(EndpointEnv)) }
