package designs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The schema of a NoSQL Workbench data model, written down from a real
// export (aws-samples/amazon-dynamodb-design-patterns,
// examples/an-online-shop/json/AnOnlineShop_facets.json) and SPEC.md: the
// field names and their JSON types. Decoding with DisallowUnknownFields
// rejects any field the format does not have.
type wbSchemaAttr struct {
	AttributeName string `json:"AttributeName"`
	AttributeType string `json:"AttributeType"`
}

type wbSchemaKeys struct {
	PartitionKey wbSchemaAttr  `json:"PartitionKey"`
	SortKey      *wbSchemaAttr `json:"SortKey"`
}

type wbSchema struct {
	ModelName     string `json:"ModelName"`
	ModelMetadata struct {
		Author           string `json:"Author"`
		DateCreated      string `json:"DateCreated"`
		DateLastModified string `json:"DateLastModified"`
		Description      string `json:"Description"`
		AWSService       string `json:"AWSService"`
		Version          string `json:"Version"`
	} `json:"ModelMetadata"`
	DataModel []struct {
		TableName        string         `json:"TableName"`
		KeyAttributes    wbSchemaKeys   `json:"KeyAttributes"`
		NonKeyAttributes []wbSchemaAttr `json:"NonKeyAttributes"`
		TableFacets      []struct {
			FacetName         string `json:"FacetName"`
			KeyAttributeAlias struct {
				PartitionKeyAlias string `json:"PartitionKeyAlias"`
				SortKeyAlias      string `json:"SortKeyAlias"`
			} `json:"KeyAttributeAlias"`
			TableData        []map[string]map[string]any `json:"TableData"`
			NonKeyAttributes []string                    `json:"NonKeyAttributes"`
			DataAccess       map[string]any              `json:"DataAccess"`
		} `json:"TableFacets"`
		GlobalSecondaryIndexes []struct {
			IndexName     string       `json:"IndexName"`
			KeyAttributes wbSchemaKeys `json:"KeyAttributes"`
			Projection    struct {
				ProjectionType string `json:"ProjectionType"`
			} `json:"Projection"`
		} `json:"GlobalSecondaryIndexes"`
		TableData   []map[string]map[string]any `json:"TableData"`
		DataAccess  map[string]any              `json:"DataAccess"`
		BillingMode string                      `json:"BillingMode"`
	} `json:"DataModel"`
}

var ddbTypes = []string{"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// TestWorkbenchModel validates every committed workbench.json against the
// schema, and seed 001's against the seed's own example items.
func TestWorkbenchModel(t *testing.T) {
	for _, s := range All() {
		if s.Table == nil {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, Dir(s), "workbench.json"))
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			var m wbSchema
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("workbench.json does not fit the Workbench schema: %v", err)
			}
			if m.ModelMetadata.AWSService != "Amazon DynamoDB" || m.ModelMetadata.Version != "3.0" || len(m.DataModel) != 1 {
				t.Fatalf("metadata %+v, %d tables", m.ModelMetadata, len(m.DataModel))
			}
			tb := m.DataModel[0]
			if tb.TableName != s.Table.Name() || tb.KeyAttributes.PartitionKey.AttributeName != "PK" || tb.BillingMode != "PAY_PER_REQUEST" {
				t.Errorf("table %q keys %+v billing %q", tb.TableName, tb.KeyAttributes, tb.BillingMode)
			}
			known := map[string]bool{"PK": true, "SK": true}
			for _, a := range tb.NonKeyAttributes {
				known[a.AttributeName] = true
				if !slices.Contains(ddbTypes, a.AttributeType) {
					t.Errorf("attribute %s type %q", a.AttributeName, a.AttributeType)
				}
			}
			for _, g := range tb.GlobalSecondaryIndexes {
				if !known[g.KeyAttributes.PartitionKey.AttributeName] || g.Projection.ProjectionType == "" {
					t.Errorf("GSI %+v", g)
				}
			}
			if len(tb.TableFacets) != len(s.Entities) {
				t.Errorf("%d facets for %d entities", len(tb.TableFacets), len(s.Entities))
			}
			n := 0
			for _, f := range tb.TableFacets {
				if f.KeyAttributeAlias.PartitionKeyAlias == "" {
					t.Errorf("facet %s has no partition alias", f.FacetName)
				}
				for _, a := range f.NonKeyAttributes {
					if !known[a] {
						t.Errorf("facet %s: attribute %s not declared on the table", f.FacetName, a)
					}
				}
				for _, item := range f.TableData {
					n++
					for name, v := range item {
						if !known[name] || len(v) != 1 {
							t.Errorf("facet %s: item attribute %s = %v", f.FacetName, name, v)
						}
						for typ := range v {
							if !slices.Contains(ddbTypes, typ) {
								t.Errorf("facet %s: %s has type %q", f.FacetName, name, typ)
							}
						}
					}
					if item["Type"]["S"] != f.FacetName {
						t.Errorf("facet %s holds an item of Type %v", f.FacetName, item["Type"])
					}
				}
			}
			if n != len(tb.TableData) || n != len(s.Samples) {
				t.Errorf("%d facet items, %d table items, %d samples", n, len(tb.TableData), len(s.Samples))
			}
			t.Logf("%s: %d facets, %d GSIs, %d non-key attributes, %d sample items", s.Name, len(tb.TableFacets), len(tb.GlobalSecondaryIndexes), len(tb.NonKeyAttributes), n)
		})
	}
	// Seed 001's example items, as the seed writes them (§2.1-2.6).
	raw, err := os.ReadFile(filepath.Join(root, "entity", "codex", "workbench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m wbSchema
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"USER#u001": "METADATA", "CATEGORY#c001": "METADATA", "BANNER#bn001": "METADATA", "CORP#INFO": "METADATA", "CONTACT#inq001": "METADATA"}
	got := map[string]string{}
	for _, it := range m.DataModel[0].TableData {
		pk, sk := it["PK"]["S"].(string), it["SK"]["S"].(string)
		if sk == "POST#p001" && pk == "CATEGORY#c001" {
			continue
		}
		got[pk] = sk
	}
	if len(got) != len(want) {
		t.Errorf("seed 001 items: %v", got)
	}
	for pk, sk := range want {
		if got[pk] != sk {
			t.Errorf("seed 001 item %s/%s missing", pk, sk)
		}
	}
}
