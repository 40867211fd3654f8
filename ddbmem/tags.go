package ddbmem

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Tags of tables: CreateTable's Tags, TagResource, UntagResource and
// ListTagsOfResource, checked as DynamoDB checks them.
//
// A resource is named by its table's ARN. The engine's tables have ARNs
// in region "ddblocal" (or Options.Region) and account 000000000000, as
// DynamoDB Local's do (see DescribeTable), but any region and account
// name the table: a client configured for another region builds its ARNs
// with it.

// maxTags is the most tags a table holds (DynamoDB's quota).
const maxTags = 50

// errNoTableARN answers a tagging request without ResourceArn.
const errNoTableARN = "Invalid TableArn"

// tagPrincipal is the caller DynamoDB names when IAM refuses an action.
const tagPrincipal = "arn:aws:iam::000000000000:user/ddbmem"

// accessDenied is the IAM refusal DynamoDB answers to a ResourceArn that
// is no ARN of a resource (IAM decides before DynamoDB looks at it).
func accessDenied(action, arn string) error {
	if arn == "" {
		arn = "*"
	}
	return &smithy.GenericAPIError{Code: "AccessDeniedException",
		Message: "User: " + tagPrincipal + " is not authorized to perform: dynamodb:" + action + " on resource: " + arn}
}

// taggedTable returns the table an ARN names. The ARN is checked as
// DynamoDB does: an ARN without six parts and a resource path is refused
// by IAM; one that does not name a table by a valid name is a
// ValidationException; a missing table is a ResourceNotFoundException
// (notFound: the error for an ARN that is valid), given once check (the
// request's other members) passes.
func (db *DB) taggedTable(action string, arn *string, check func() error) (*table, error) {
	if arn == nil {
		return nil, validation(errNoTableARN)
	}
	parts := strings.SplitN(*arn, ":", 6)
	if len(parts) < 6 || !strings.Contains(parts[5], "/") {
		return nil, accessDenied(action, *arn)
	}
	if err := check(); err != nil {
		return nil, err
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if parts[0] != "arn" || !strings.HasPrefix(parts[1], "aws") || parts[2] != "dynamodb" || !ok || checkTableName(name) != nil {
		return nil, validation("Invalid TableArn: Invalid ResourceArn provided as input " + *arn)
	}
	t := db.lookup(name)
	if t == nil {
		return nil, nil
	}
	return t, nil
}

// checkTags checks tags to add: their keys and values (DynamoDB's lengths
// and characters) and that no key repeats.
func checkTags(tags []types.Tag) error {
	seen := map[string]bool{}
	for _, tg := range tags {
		if tg.Key == nil || tg.Value == nil {
			field := "key"
			if tg.Key != nil {
				field = "value"
			}
			return validation("1 validation error detected: Value null at 'tags.member." + field + "' failed to satisfy constraint: Member must not be null")
		}
		if n := len([]rune(*tg.Key)); n < 1 || n > 128 {
			return validation("1 validation error detected: Value '" + *tg.Key + "' at 'tags.member.key' failed to satisfy constraint: Member must have length between 1 and 128")
		}
		if len([]rune(*tg.Value)) > 256 {
			return validation("1 validation error detected: Value '" + *tg.Value + "' at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256")
		}
		if strings.HasPrefix(*tg.Key, "aws:") {
			return validation("One or more parameter values were invalid: Tag key prefix aws: is reserved for AWS use")
		}
		if seen[*tg.Key] {
			return validation("One or more parameter values were invalid: Duplicate tag keys found. Duplicate key: " + *tg.Key)
		}
		seen[*tg.Key] = true
	}
	return nil
}

// addTags sets tags on t (replacing the values of keys it has), or fails
// with nothing changed when t would hold more than maxTags. t.mu is held.
func (t *table) addTags(tags []types.Tag) error {
	n := len(t.tags)
	for _, tg := range tags {
		if _, ok := t.tags[*tg.Key]; !ok {
			n++
		}
	}
	if n > maxTags {
		return validation("One or more parameter values were invalid: The number of tags on the resource would exceed the limit of 50")
	}
	if t.tags == nil && len(tags) > 0 {
		t.tags = map[string]string{}
	}
	for _, tg := range tags {
		t.tags[*tg.Key] = *tg.Value
	}
	return nil
}

// TagResource adds tags to a table, or replaces the values of tags it
// has. A table holds at most 50.
func (db *DB) TagResource(ctx context.Context, in *dynamodb.TagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TagResourceOutput, error) {
	if err := db.begin(ctx, "TagResource"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.TagResourceInput{}
	}
	t, err := db.taggedTable("TagResource", in.ResourceArn, func() error {
		if in.Tags == nil {
			return validation("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, validation("Atleast one Tag needs to be provided as Input.")
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: ResourcArn: " + *in.ResourceArn + " not found")}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.addTags(in.Tags); err != nil {
		return nil, err
	}
	return &dynamodb.TagResourceOutput{}, nil
}

// UntagResource removes tags from a table by key; keys it does not have
// are ignored.
func (db *DB) UntagResource(ctx context.Context, in *dynamodb.UntagResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UntagResourceOutput, error) {
	if err := db.begin(ctx, "UntagResource"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.UntagResourceInput{}
	}
	t, err := db.taggedTable("UntagResource", in.ResourceArn, func() error {
		if in.TagKeys == nil {
			return validation("1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(in.TagKeys) == 0 {
		return nil, validation("Atleast one Tag Key needs to be provided as Input.")
	}
	if t == nil {
		return nil, notFound()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range in.TagKeys {
		delete(t.tags, k)
	}
	return &dynamodb.UntagResourceOutput{}, nil
}

// ListTagsOfResource lists a table's tags, by key, in one page.
func (db *DB) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	if err := db.begin(ctx, "ListTagsOfResource"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.ListTagsOfResourceInput{}
	}
	t, err := db.taggedTable("ListTagsOfResource", in.ResourceArn, func() error { return nil })
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: ResourcArn: " + *in.ResourceArn + " not found")}
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := &dynamodb.ListTagsOfResourceOutput{Tags: make([]types.Tag, 0, len(t.tags))}
	for k, v := range t.tags {
		out.Tags = append(out.Tags, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	slices.SortFunc(out.Tags, func(a, b types.Tag) int { return strings.Compare(*a.Key, *b.Key) })
	return out, nil
}
