package entity

import (
	"encoding/json"
	"slices"
)

// PolicyOptions says what an IAM policy of the table allows: package
// design fills it from a service's declarations ([Table.IAMPolicy],
// [Table.CloudFormationPolicy]).
type PolicyOptions struct {
	// Actions are the DynamoDB actions on the table ("dynamodb:GetItem").
	Actions []string
	// IndexActions are the actions on the indexes listed in Indexes
	// (usually "dynamodb:Query"); ignored when Indexes is empty.
	IndexActions []string
	// Indexes are the secondary indexes the service reads.
	Indexes []string
	// TableARN is the table's ARN in [Table.IAMPolicy]; "" means
	// "arn:aws:dynamodb:*:*:table/NAME".
	TableARN string
	// TableLogicalID is the logical id of the AWS::DynamoDB::Table
	// resource in [Table.CloudFormationPolicy]; "" means "Table".
	TableLogicalID string
}

type iamStatement struct {
	Sid      string
	Effect   string
	Action   []string
	Resource []any
}

type iamDocument struct {
	Version   string
	Statement []iamStatement
}

func (t *Table) policy(o PolicyOptions, table any, index func(string) any) iamDocument {
	doc := iamDocument{Version: "2012-10-17"}
	acts := slices.Sorted(slices.Values(o.Actions))
	if len(acts) > 0 {
		doc.Statement = append(doc.Statement, iamStatement{Sid: "Table", Effect: "Allow", Action: slices.Compact(acts), Resource: []any{table}})
	}
	if len(o.Indexes) > 0 && len(o.IndexActions) > 0 {
		idx := slices.Compact(slices.Sorted(slices.Values(o.Indexes)))
		res := make([]any, len(idx))
		for i, n := range idx {
			res[i] = index(n)
		}
		ia := slices.Compact(slices.Sorted(slices.Values(o.IndexActions)))
		doc.Statement = append(doc.Statement, iamStatement{Sid: "Indexes", Effect: "Allow", Action: ia, Resource: res})
	}
	return doc
}

// IAMPolicy returns an IAM policy document (JSON, indented) that allows
// exactly o.Actions on the table and o.IndexActions on the indexes
// o.Indexes, nothing else: the least-privilege replacement of SAM's
// DynamoDBCrudPolicy.
func (t *Table) IAMPolicy(o PolicyOptions) ([]byte, error) {
	arn := o.TableARN
	if arn == "" {
		arn = "arn:aws:dynamodb:*:*:table/" + t.name
	}
	return json.MarshalIndent(t.policy(o, arn, func(n string) any { return arn + "/index/" + n }), "", "  ")
}

// CloudFormationPolicy returns the policy of [Table.IAMPolicy] as an
// AWS::IAM::ManagedPolicy resource (JSON, indented) whose resources refer
// to the table resource o.TableLogicalID of the same template (the one
// [Table.CloudFormation] writes): put it under Resources.<LogicalId> and
// attach it to a role, or use its PolicyDocument in a SAM function's
// Policies.
func (t *Table) CloudFormationPolicy(o PolicyOptions) ([]byte, error) {
	id := o.TableLogicalID
	if id == "" {
		id = "Table"
	}
	doc := t.policy(o, map[string]any{"Fn::GetAtt": []string{id, "Arn"}},
		func(n string) any { return map[string]string{"Fn::Sub": "${" + id + ".Arn}/index/" + n} })
	r := map[string]any{"Type": "AWS::IAM::ManagedPolicy", "Properties": map[string]any{"PolicyDocument": doc}}
	return json.MarshalIndent(r, "", "  ")
}
