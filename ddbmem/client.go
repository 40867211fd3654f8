package ddbmem

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	smithyendpoints "github.com/aws/smithy-go/endpoints"
	"github.com/aws/smithy-go/middleware"
)

// endpointAccessKey is the access key of [NewEndpointClient]'s dummy
// credentials.
const endpointAccessKey = "ddbmem"

// NewEndpointClient returns an SDK client for a local DynamoDB endpoint
// URL: this package's server ([Serve]) or DynamoDB Local, which accept
// it alike. It is the SDK's own *dynamodb.Client — its input validation,
// serializer, deserializer, retryer and error types — with the parts of
// its pipeline that only matter when talking to AWS left out:
//
//   - Region us-east-1, the URL as BaseEndpoint, used as it is rather
//     than run through the SDK's endpoint rules, and dummy static
//     credentials (access key "ddbmem"): no shared config files,
//     environment credentials or IMDS lookups.
//   - A placeholder signature: requests carry an Authorization header of
//     SigV4's form (algorithm, credential scope with the access key, date,
//     region and service, signed headers, signature) and an X-Amz-Date,
//     which both servers require, but no signature is computed and the
//     payload is not hashed: neither server verifies signatures.
//   - No clock skew correction, which adjusts signing times to AWS's
//     clock.
//   - The retryer is the SDK's standard one without its client-side rate
//     limiter (ratelimit.None): retries are not rationed by a token
//     bucket, which only protects AWS from retry storms.
//   - No informational headers: User-Agent, amz-sdk-invocation-id and
//     the Lambda recursion-detection header, which neither server reads.
//   - For an http:// URL, a lean HTTP/1.1 transport: keep-alive
//     connections written and read by the calling goroutine, instead of
//     net/http's transport with its two goroutines per connection, which
//     also keeps the client clear of aws-sdk-go-v2#2737 (a request
//     failing with "use of closed network connection" against a server
//     that answers fast; see README.md, "The engine as a DynamoDB
//     endpoint"). It uses no proxy. On a loopback host, no check of the
//     responses' X-Amz-Crc32 either (it guards against proxies that
//     damage bodies; a loopback connection has none, and TCP checks its
//     segments). https:// URLs use the SDK's default HTTP client and keep
//     the check.
//
// optFns are applied last: they can restore any of these (for example
// HTTPSignerV4 = v4.NewSigner(), or an HTTPClient of one's own). Do not
// use it for AWS itself: build that client from config.LoadDefaultConfig.
// The client is safe for concurrent use.
func NewEndpointClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(endpointOptions(endpoint, nil), endpointOptFns(optFns)...)
}

// endpointOptions are [NewEndpointClient]'s options for endpoint; with
// pipe set, its transport reaches the endpoint's host:port in process
// (see [Server.Client]).
func endpointOptions(endpoint string, pipe func() net.Conn) dynamodb.Options {
	o := dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: endpointAccessKey, SecretAccessKey: endpointAccessKey, Source: "ddbmem"}, nil
		}),
		HTTPSignerV4: placeholderSigner{},
		Retryer: retry.NewStandard(func(so *retry.StandardOptions) {
			so.RateLimiter = ratelimit.None
		}),
		APIOptions: []func(*middleware.Stack) error{trimStack},
		// The skew corrects signing times for AWS; a local endpoint
		// shares the machine's clock and ignores the signature.
		DisableClockSkewCorrection: true,
		EndpointResolverV2:         &staticResolver{},
	}
	if u, err := url.Parse(endpoint); err == nil && u.Scheme == "http" {
		t := newTransport()
		t.pipe, t.pipeHost = pipe, u.Host
		o.HTTPClient = t
		o.DisableValidateResponseChecksum = pipe != nil || isLoopback(u.Hostname())
	}
	return o
}

// endpointOptFns is optFns followed by what depends on their outcome:
// without the placeholder signer (optFns chose another), the payload hash
// stays.
func endpointOptFns(optFns []func(*dynamodb.Options)) []func(*dynamodb.Options) {
	return append(optFns[:len(optFns):len(optFns)], func(o *dynamodb.Options) {
		if _, ok := o.HTTPSignerV4.(placeholderSigner); ok {
			o.APIOptions = append(o.APIOptions, removePayloadHash)
		}
	})
}

// trimStack removes the middleware that sets informational headers.
func trimStack(s *middleware.Stack) error {
	// Remove fails only when the middleware is absent, which is fine.
	for _, id := range []string{"UserAgent", "ClientRequestID", "RecursionDetection"} {
		_, _ = s.Build.Remove(id)
	}
	return nil
}

// removePayloadHash removes the payload's SHA-256, which only a real
// signature needs.
func removePayloadHash(s *middleware.Stack) error {
	_, _ = s.Finalize.Remove((*v4.ComputePayloadSHA256)(nil).ID())
	return nil
}

// staticResolver resolves every request to the client's BaseEndpoint, as
// the SDK's endpoint rules do for a BaseEndpoint (without FIPS or
// dual-stack, which a custom endpoint cannot have), without running them.
type staticResolver struct {
	last atomic.Pointer[resolved]
}

type resolved struct {
	endpoint string
	uri      url.URL
}

func (r *staticResolver) ResolveEndpoint(_ context.Context, p dynamodb.EndpointParameters) (smithyendpoints.Endpoint, error) {
	if p.Endpoint == nil {
		return smithyendpoints.Endpoint{}, fmt.Errorf("ddbmem: no BaseEndpoint to resolve to")
	}
	last := r.last.Load()
	if last == nil || last.endpoint != *p.Endpoint {
		u, err := url.Parse(*p.Endpoint)
		if err != nil {
			return smithyendpoints.Endpoint{}, fmt.Errorf("ddbmem: BaseEndpoint: %w", err)
		}
		last = &resolved{endpoint: *p.Endpoint, uri: *u}
		r.last.Store(last)
	}
	return smithyendpoints.Endpoint{URI: last.uri}, nil
}

// isLoopback reports whether host names the loopback interface.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// placeholderSigner writes an Authorization header of SigV4's form with
// a placeholder signature (see [NewEndpointClient]).
type placeholderSigner struct{}

func (placeholderSigner) SignHTTP(_ context.Context, c aws.Credentials, r *http.Request, _ string, service, region string, t time.Time, _ ...func(*v4.SignerOptions)) error {
	t = t.UTC()
	var b []byte
	b = append(b, "AWS4-HMAC-SHA256 Credential="...)
	b = append(b, c.AccessKeyID...)
	b = append(b, '/')
	b = t.AppendFormat(b, "20060102")
	b = append(b, '/')
	b = append(b, region...)
	b = append(b, '/')
	b = append(b, service...)
	b = append(b, "/aws4_request, SignedHeaders=host;x-amz-date, Signature=0000000000000000000000000000000000000000000000000000000000000000"...)
	r.Header["Authorization"] = []string{string(b)}
	r.Header["X-Amz-Date"] = []string{t.Format("20060102T150405Z")}
	if c.SessionToken != "" {
		r.Header["X-Amz-Security-Token"] = []string{c.SessionToken}
	}
	return nil
}
