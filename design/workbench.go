package design

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// WorkbenchMeta is the ModelMetadata of a Workbench model. Dates are
// written as given ("Nov 14, 2025, 12:00 AM", the form Workbench
// exports), so a generated file stays the same from run to run.
type WorkbenchMeta struct {
	Author, Description           string
	DateCreated, DateLastModified string
}

type wbAttr struct {
	AttributeName string
	AttributeType string
}

type wbKeys struct {
	PartitionKey wbAttr
	SortKey      *wbAttr `json:",omitempty"`
}

type wbAlias struct {
	PartitionKeyAlias string
	SortKeyAlias      string `json:",omitempty"`
}

type wbFacet struct {
	FacetName         string
	KeyAttributeAlias wbAlias
	TableData         []map[string]any
	NonKeyAttributes  []string
	DataAccess        map[string]any
}

type wbGSI struct {
	IndexName     string
	KeyAttributes wbKeys
	Projection    struct{ ProjectionType string }
}

type wbTable struct {
	TableName              string
	KeyAttributes          wbKeys
	NonKeyAttributes       []wbAttr
	TableFacets            []wbFacet
	GlobalSecondaryIndexes []wbGSI `json:",omitempty"`
	TableData              []map[string]any
	DataAccess             map[string]any
	BillingMode            string
}

type wbModel struct {
	ModelName     string
	ModelMetadata struct {
		Author, DateCreated, DateLastModified, Description, AWSService, Version string
	}
	DataModel []wbTable
}

// ddbJSON writes an attribute value in DynamoDB JSON ({"S": "..."}).
func ddbJSON(av types.AttributeValue) (map[string]any, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}, nil
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}, nil
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}, nil
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}, nil
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}, nil
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}, nil
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			j, err := ddbJSON(e)
			if err != nil {
				return nil, err
			}
			l[i] = j
		}
		return map[string]any{"L": l}, nil
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range v.Value {
			j, err := ddbJSON(e)
			if err != nil {
				return nil, err
			}
			m[k] = j
		}
		return map[string]any{"M": m}, nil
	}
	return nil, fmt.Errorf("design: unsupported attribute value %T", av)
}

func attrType(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberM:
		return "M"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	}
	return "S"
}

func scalar(t types.ScalarAttributeType) string {
	if t == "" {
		return "S"
	}
	return string(t)
}

// Workbench returns the service's table as a NoSQL Workbench data model
// (JSON, the format Workbench imports and exports: ModelName,
// ModelMetadata, DataModel with TableName, KeyAttributes,
// NonKeyAttributes, one TableFacet per entity with its key templates as
// aliases, GlobalSecondaryIndexes, and the Samples as TableData). A
// service without a table is an error.
func Workbench(s Service, meta WorkbenchMeta) ([]byte, error) {
	if s.Table == nil {
		return nil, fmt.Errorf("design: %s has no table", s.Name)
	}
	o := s.Table.Options()
	tbl := wbTable{TableName: s.Table.Name(), DataAccess: map[string]any{"MySql": map[string]any{}}, BillingMode: string(o.BillingMode)}
	keys := func(pk, sk string, pkt, skt types.ScalarAttributeType) wbKeys {
		k := wbKeys{PartitionKey: wbAttr{pk, scalar(pkt)}}
		if sk != "" {
			k.SortKey = &wbAttr{sk, scalar(skt)}
		}
		return k
	}
	tbl.KeyAttributes = keys(o.PK, o.SK, "", "")
	keyAttrs := map[string]bool{o.PK: true, o.SK: true}
	for _, g := range o.GSIs {
		x := wbGSI{IndexName: g.Name, KeyAttributes: keys(g.PK, g.SK, g.PKType, g.SKType)}
		x.Projection.ProjectionType = string(g.Projection)
		if x.Projection.ProjectionType == "" {
			x.Projection.ProjectionType = "ALL"
		}
		tbl.GlobalSecondaryIndexes = append(tbl.GlobalSecondaryIndexes, x)
	}
	nonKey := map[string]string{}
	var order []string
	addNonKey := func(name, typ string) {
		if keyAttrs[name] {
			return
		}
		if _, ok := nonKey[name]; !ok {
			order = append(order, name)
			nonKey[name] = typ
		}
	}
	for _, g := range o.GSIs {
		addNonKey(g.PK, scalar(g.PKType))
		if g.SK != "" {
			addNonKey(g.SK, scalar(g.SKType))
		}
	}
	samples := map[string][]map[string]any{}
	sampleAttrs := map[string]map[string]string{}
	for _, it := range s.Samples {
		item, err := it.MarshalItem()
		if err != nil {
			return nil, fmt.Errorf("design: sample %T: %w", it, err)
		}
		typ := it.EntitySchema().Type
		row := map[string]any{}
		names := make([]string, 0, len(item))
		for k := range item {
			names = append(names, k)
		}
		slices.Sort(names)
		if sampleAttrs[typ] == nil {
			sampleAttrs[typ] = map[string]string{}
		}
		for _, k := range names {
			j, err := ddbJSON(item[k])
			if err != nil {
				return nil, err
			}
			row[k] = j
			sampleAttrs[typ][k] = attrType(item[k])
		}
		samples[typ] = append(samples[typ], row)
		tbl.TableData = append(tbl.TableData, row)
	}
	for _, e := range s.Entities {
		f := wbFacet{FacetName: e.Schema.Type, DataAccess: map[string]any{"MySql": map[string]any{}}, TableData: samples[e.Schema.Type]}
		if f.TableData == nil {
			f.TableData = []map[string]any{}
		}
		for _, k := range e.Schema.Keys {
			switch {
			case k.Index == "" && k.Role == "pk":
				f.KeyAttributeAlias.PartitionKeyAlias = k.Template
			case k.Index == "" && k.Role == "sk":
				f.KeyAttributeAlias.SortKeyAlias = k.Template
			default:
				f.NonKeyAttributes = append(f.NonKeyAttributes, k.Attr)
				addNonKey(k.Attr, "S")
			}
		}
		for _, a := range e.Schema.Attrs {
			if slices.Contains(f.NonKeyAttributes, a) || keyAttrs[a] {
				continue
			}
			f.NonKeyAttributes = append(f.NonKeyAttributes, a)
			t := "S"
			if st, ok := sampleAttrs[e.Schema.Type][a]; ok {
				t = st
			}
			addNonKey(a, t)
		}
		tbl.TableFacets = append(tbl.TableFacets, f)
	}
	for _, n := range order {
		tbl.NonKeyAttributes = append(tbl.NonKeyAttributes, wbAttr{n, nonKey[n]})
	}
	if tbl.TableData == nil {
		tbl.TableData = []map[string]any{}
	}
	var m wbModel
	m.ModelName = s.Name
	m.ModelMetadata.Author = meta.Author
	m.ModelMetadata.DateCreated = meta.DateCreated
	m.ModelMetadata.DateLastModified = meta.DateLastModified
	m.ModelMetadata.Description = meta.Description
	if m.ModelMetadata.Description == "" {
		m.ModelMetadata.Description = s.Title
	}
	m.ModelMetadata.AWSService = "Amazon DynamoDB"
	m.ModelMetadata.Version = "3.0"
	m.DataModel = []wbTable{tbl}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
