package entity

import (
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CloudFormationOptions tunes [Table.CloudFormation]. The zero value
// writes the table name literally and no stream.
type CloudFormationOptions struct {
	// TableNameParam, when set, writes TableName as {"Ref": TableNameParam}
	// so a SAM/CloudFormation parameter injects the name per environment.
	TableNameParam string
	// StreamViewType enables DynamoDB Streams with this view type (for
	// instance types.StreamViewTypeNewAndOldImages); "" means disabled.
	StreamViewType types.StreamViewType
}

type cfnAttrDef struct {
	AttributeName string
	AttributeType string
}

type cfnKey struct {
	AttributeName string
	KeyType       string
}

type cfnProjection struct {
	ProjectionType   string
	NonKeyAttributes []string `json:",omitempty"`
}

type cfnThroughput struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

type cfnIndex struct {
	IndexName             string
	KeySchema             []cfnKey
	Projection            cfnProjection
	ProvisionedThroughput *cfnThroughput `json:",omitempty"`
}

type cfnTTL struct {
	AttributeName string
	Enabled       bool
}

type cfnStream struct {
	StreamViewType string
}

type cfnProps struct {
	TableName               any
	BillingMode             string
	AttributeDefinitions    []cfnAttrDef
	KeySchema               []cfnKey
	GlobalSecondaryIndexes  []cfnIndex     `json:",omitempty"`
	LocalSecondaryIndexes   []cfnIndex     `json:",omitempty"`
	ProvisionedThroughput   *cfnThroughput `json:",omitempty"`
	TimeToLiveSpecification *cfnTTL        `json:",omitempty"`
	StreamSpecification     *cfnStream     `json:",omitempty"`
}

type cfnResource struct {
	Type       string
	Properties cfnProps
}

// CloudFormation returns the table as an AWS::DynamoDB::Table resource in
// JSON (indented), the value to put under Resources.<LogicalId> of a SAM
// or CloudFormation template, so the template is generated from the same
// schema as the code. It is built from [Table.CreateTableInput] plus the
// TTL attribute.
func (t *Table) CloudFormation(optFns ...func(*CloudFormationOptions)) ([]byte, error) {
	var o CloudFormationOptions
	for _, fn := range optFns {
		fn(&o)
	}
	in := t.CreateTableInput()
	keys := func(ks []types.KeySchemaElement) []cfnKey {
		out := make([]cfnKey, len(ks))
		for i, k := range ks {
			out[i] = cfnKey{AttributeName: *k.AttributeName, KeyType: string(k.KeyType)}
		}
		return out
	}
	thr := func(p *types.ProvisionedThroughput) *cfnThroughput {
		if p == nil {
			return nil
		}
		return &cfnThroughput{ReadCapacityUnits: *p.ReadCapacityUnits, WriteCapacityUnits: *p.WriteCapacityUnits}
	}
	proj := func(p *types.Projection) cfnProjection {
		return cfnProjection{ProjectionType: string(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}
	}
	r := cfnResource{Type: "AWS::DynamoDB::Table", Properties: cfnProps{
		TableName:             t.name,
		BillingMode:           string(in.BillingMode),
		KeySchema:             keys(in.KeySchema),
		ProvisionedThroughput: thr(in.ProvisionedThroughput),
	}}
	if o.TableNameParam != "" {
		r.Properties.TableName = map[string]string{"Ref": o.TableNameParam}
	}
	for _, d := range in.AttributeDefinitions {
		r.Properties.AttributeDefinitions = append(r.Properties.AttributeDefinitions, cfnAttrDef{*d.AttributeName, string(d.AttributeType)})
	}
	for _, g := range in.GlobalSecondaryIndexes {
		r.Properties.GlobalSecondaryIndexes = append(r.Properties.GlobalSecondaryIndexes, cfnIndex{
			IndexName: *g.IndexName, KeySchema: keys(g.KeySchema), Projection: proj(g.Projection), ProvisionedThroughput: thr(g.ProvisionedThroughput),
		})
	}
	for _, l := range in.LocalSecondaryIndexes {
		r.Properties.LocalSecondaryIndexes = append(r.Properties.LocalSecondaryIndexes, cfnIndex{
			IndexName: *l.IndexName, KeySchema: keys(l.KeySchema), Projection: proj(l.Projection),
		})
	}
	if t.opts.TTLAttr != "" {
		r.Properties.TimeToLiveSpecification = &cfnTTL{AttributeName: t.opts.TTLAttr, Enabled: true}
	}
	if o.StreamViewType != "" {
		r.Properties.StreamSpecification = &cfnStream{StreamViewType: string(o.StreamViewType)}
	}
	return json.MarshalIndent(r, "", "  ")
}
