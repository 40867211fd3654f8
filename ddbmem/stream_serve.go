package ddbmem

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"
	smithyendpoints "github.com/aws/smithy-go/endpoints"
	"github.com/aws/smithy-go/middleware"
)

// The endpoint serves the DynamoDB Streams API on the same port as
// DynamoDB's, as DynamoDB Local does: requests whose X-Amz-Target starts
// with streamsTargetPrefix.
const streamsTargetPrefix = "DynamoDBStreams_20120810."

// streamOp adapts a Streams method to a handlerFn.
func streamOp[I any, O smithy.Serializable](m func(*Streams, context.Context, *I, ...func(*dynamodbstreams.Options)) (O, error)) handlerFn {
	return func(db *DB, ctx context.Context, body []byte) (smithy.Serializable, error) {
		in := new(I)
		if err := decodeInput(body, in); err != nil {
			return nil, err
		}
		out, err := m(&Streams{db}, ctx, in)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

var streamsOperations = map[string]handlerFn{
	"ListStreams":      streamOp((*Streams).ListStreams),
	"DescribeStream":   streamOp((*Streams).DescribeStream),
	"GetShardIterator": streamOp((*Streams).GetShardIterator),
	"GetRecords":       streamOp((*Streams).GetRecords),
}

// streamsOperation returns the handler of a DynamoDB Streams target.
func streamsOperation(target string) (handlerFn, bool) {
	name, ok := strings.CutPrefix(target, streamsTargetPrefix)
	if !ok {
		return nil, false
	}
	fn, ok := streamsOperations[name]
	return fn, ok
}

// NewStreamsEndpointClient returns the SDK's DynamoDB Streams client for
// a local endpoint URL (this package's server, see [Serve], or DynamoDB
// Local, which both serve the Streams API on their DynamoDB port), built
// as [NewEndpointClient] builds the DynamoDB client: region us-east-1,
// dummy credentials, a placeholder signature, the standard retryer
// without its rate limiter, and the lean transport for loopback URLs.
// optFns are applied last. The client is safe for concurrent use.
func NewStreamsEndpointClient(endpoint string, optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	return newStreamsClient(endpointOptions(endpoint, nil), optFns)
}

// newStreamsClient is the Streams client with the DynamoDB client options
// d (see [endpointOptions]).
func newStreamsClient(d dynamodb.Options, optFns []func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	o := dynamodbstreams.Options{
		Region: d.Region, BaseEndpoint: d.BaseEndpoint, Credentials: d.Credentials,
		HTTPSignerV4: d.HTTPSignerV4, Retryer: d.Retryer, HTTPClient: d.HTTPClient,
		APIOptions:                 []func(*middleware.Stack) error{trimStack},
		DisableClockSkewCorrection: true,
		EndpointResolverV2:         &streamsResolver{},
	}
	return dynamodbstreams.New(o, append(optFns, func(o *dynamodbstreams.Options) {
		if _, ok := o.HTTPSignerV4.(placeholderSigner); ok {
			o.APIOptions = append(o.APIOptions, removePayloadHash)
		}
	})...)
}

// StreamsClient returns the SDK's DynamoDB Streams client for the
// endpoint, built by [NewStreamsEndpointClient], optFns applied last; like
// [Server.Client], it reaches the server in process.
func (s *Server) StreamsClient(optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	return newStreamsClient(endpointOptions(s.url, s.dialPipe), optFns)
}

// streamsResolver resolves every request to the client's BaseEndpoint,
// as staticResolver does for the DynamoDB client.
type streamsResolver struct{ staticResolver }

func (r *streamsResolver) ResolveEndpoint(ctx context.Context, p dynamodbstreams.EndpointParameters) (smithyendpoints.Endpoint, error) {
	return r.staticResolver.ResolveEndpoint(ctx, dynamodb.EndpointParameters{Endpoint: p.Endpoint})
}
