package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

// tagClient is the engine, in process or through its endpoint.
type tagClient interface {
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	TagResource(context.Context, *dynamodb.TagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error)
	UntagResource(context.Context, *dynamodb.UntagResourceInput, ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error)
	ListTagsOfResource(context.Context, *dynamodb.ListTagsOfResourceInput, ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
}

// Tags of tables, as dynalite's suite records DynamoDB's answers
// (DynamoDB Local has no tagging: "Tagging is not currently supported in
// DynamoDB Local").
func TestTags(t *testing.T) {
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	for _, c := range []struct {
		name string
		c    tagClient
	}{{"in process", ddbmem.New()}, {"endpoint", srv.Client()}} {
		t.Run(c.name, func(t *testing.T) { testTags(t, c.c) })
	}
}

func testTags(t *testing.T, c tagClient) {
	ctx := context.Background()
	tag := func(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	create := &dynamodb.CreateTableInput{
		TableName:            aws.String("tagged"),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		Tags:                 []types.Tag{tag("env", "test")},
	}
	if _, err := c.CreateTable(ctx, create); err != nil {
		t.Fatal(err)
	}
	// Any region and account name the table.
	arn := aws.String("arn:aws:dynamodb:eu-west-1:123456789012:table/tagged")
	list := func() []types.Tag {
		t.Helper()
		out, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		return out.Tags
	}
	same := func(got, want []types.Tag) {
		t.Helper()
		if d := cmp.Diff(fmt.Sprint(tagStrings(want)), fmt.Sprint(tagStrings(got))); d != "" {
			t.Errorf("tags (-want +got):\n%s", d)
		}
	}
	same(list(), []types.Tag{tag("env", "test")})
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{tag("team", "a"), tag("env", "prod")}}); err != nil {
		t.Fatal(err)
	}
	same(list(), []types.Tag{tag("env", "prod"), tag("team", "a")})
	if _, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"env", "absent"}}); err != nil {
		t.Fatal(err)
	}
	same(list(), []types.Tag{tag("team", "a")})

	// 50 tags at most, and a refused request changes nothing.
	var many []types.Tag
	for i := range 50 {
		many = append(many, tag(fmt.Sprintf("k%02d", i), "v"))
	}
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: many}); !isValidationMsg(err, "The number of tags on the resource would exceed the limit of 50") {
		t.Errorf("51 tags: %v", err)
	}
	same(list(), []types.Tag{tag("team", "a")})

	wantErr := func(what string, err error, code, msg string) {
		t.Helper()
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != code || !strings.Contains(ae.ErrorMessage(), msg) {
			t.Errorf("%s: %v, want %s: %s", what, err, code, msg)
		}
	}
	missing := aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/absent")
	_, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: missing})
	wantErr("missing table", err, "ResourceNotFoundException", "Requested resource not found: ResourcArn: "+*missing+" not found")
	_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("a:b:c:d:e:f")})
	wantErr("no resource path", err, "AccessDeniedException", "is not authorized to perform: dynamodb:ListTagsOfResource on resource: a:b:c:d:e:f")
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String("a:b:c:d:e:f/g"), Tags: []types.Tag{}})
	wantErr("not a table ARN", err, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input a:b:c:d:e:f/g")
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{}})
	wantErr("no tags", err, "ValidationException", "Atleast one Tag needs to be provided as Input.")
	_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{}})
	wantErr("no tag keys", err, "ValidationException", "Atleast one Tag Key needs to be provided as Input.")
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{tag("aws:x", "1")}})
	wantErr("reserved prefix", err, "ValidationException", "Tag key prefix aws: is reserved")
}

func tagStrings(tags []types.Tag) []string {
	var s []string
	for _, t := range tags {
		s = append(s, *t.Key+"="+*t.Value)
	}
	return s
}

func isValidationMsg(err error, msg string) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" && strings.Contains(ae.ErrorMessage(), msg)
}
