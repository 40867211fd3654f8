package entity_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

func TestSchemaLSIProvisionedTTL(t *testing.T) {
	tbl := entity.NewTable(testenv.Dynamo(t), testenv.UniqueName("schema"), func(o *entity.Options) {
		o.BillingMode = types.BillingModeProvisioned
		o.ReadCapacity, o.WriteCapacity = 3, 2
		o.LSIs = []entity.Index{{Name: "ByTitle", SK: "LSI1SK", Projection: types.ProjectionTypeInclude, NonKeyAttrs: []string{"title"}}}
		o.GSIs = []entity.Index{{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK", SKType: types.ScalarAttributeTypeN, Projection: types.ProjectionTypeKeysOnly}}
		o.TTLAttr = "expires"
	})
	in := tbl.CreateTableInput()
	if *in.ProvisionedThroughput.ReadCapacityUnits != 3 || len(in.LocalSecondaryIndexes) != 1 || *in.LocalSecondaryIndexes[0].KeySchema[0].AttributeName != "PK" {
		t.Fatalf("create input %+v", in)
	}
	js, err := tbl.CloudFormation()
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(js, &res); err != nil {
		t.Fatal(err)
	}
	props := res["Properties"].(map[string]any)
	if props["TableName"] != tbl.Name() || props["TimeToLiveSpecification"].(map[string]any)["AttributeName"] != "expires" || !strings.Contains(string(js), `"AttributeType": "N"`) {
		t.Fatalf("cloudformation %s", js)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// DynamoDB Local 1.25 fails (HTTP 500) on a provisioned table with an
	// LSI, which AWS accepts: create the provisioned variant without it.
	prov := entity.NewTable(tbl.Client(), testenv.UniqueName("schema-prov"), func(o *entity.Options) {
		*o = tbl.Options()
		o.LSIs = nil
	})
	if err := prov.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prov.DeleteTable(context.Background()) })
	tbl = entity.NewTable(tbl.Client(), tbl.Name(), func(o *entity.Options) {
		*o = tbl.Options()
		o.BillingMode = types.BillingModePayPerRequest
	})
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	// Ensuring again is a no-op.
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.KeyAttrs("nope"); !errors.Is(err, entity.ErrValidation) {
		t.Fatalf("unknown index: %v", err)
	}
	if a, _ := tbl.KeyAttrs("ByTitle"); strings.Join(a, ",") != "PK,LSI1SK" {
		t.Fatalf("LSI keys %v", a)
	}
}

func TestTTL(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ttl := entity.ExpiresAt(at)
	av, _ := ttl.MarshalDynamoDBAttributeValue()
	if av.(*types.AttributeValueMemberN).Value != "1893553445" {
		t.Fatalf("epoch seconds %v", av)
	}
	var back entity.TTL
	if err := back.UnmarshalDynamoDBAttributeValue(av); err != nil || !back.Time().Equal(at) {
		t.Fatalf("round trip %v %v", back, err)
	}
	if !ttl.Expired(at) || ttl.Expired(at.Add(-time.Second)) || entity.TTL(0).Expired(at) {
		t.Fatal("Expired")
	}
	if err := back.UnmarshalDynamoDBAttributeValue(&types.AttributeValueMemberS{Value: "x"}); err == nil {
		t.Fatal("a string TTL must fail")
	}
}

// TestStoreSchemaMismatch: a schema that does not fit its table is a
// *SchemaError from CheckSchema, and NewStore panics with it, before any
// call.
func TestStoreSchemaMismatch(t *testing.T) {
	withGSIs := func(gsis ...entity.Index) func(*entity.Options) {
		return func(o *entity.Options) { o.GSIs = gsis }
	}
	all := []entity.Index{
		{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"},
		{Name: "GSI2", PK: "GSI2PK", SK: "GSI2SK"},
		{Name: "Type_CreatedAt", PK: "Type", SK: "CreatedAt"},
	}
	for _, tc := range []struct {
		name     string
		opts     []func(*entity.Options)
		index    string // the index the error names; "" for the primary key
		mismatch bool
	}{
		{"fits", []func(*entity.Options){withGSIs(all...)}, "", false},
		{"primary key attribute", []func(*entity.Options){withGSIs(all...), func(o *entity.Options) { o.PK = "pk" }}, "", true},
		{"index not declared", []func(*entity.Options){withGSIs(all[0], all[2])}, "GSI2", true},
		{"index with other attributes", []func(*entity.Options){withGSIs(all[0], entity.Index{Name: "GSI2", PK: "GSI2PK", SK: "sk2"}, all[2])}, "GSI2", true},
		{"plain attribute index not declared", []func(*entity.Options){withGSIs(all[0], all[1])}, "Type_CreatedAt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := entity.NewTable(nil, "t", tc.opts...)
			err := entity.CheckSchema(tbl, new(Note).EntitySchema())
			if !tc.mismatch {
				if err != nil {
					t.Fatal(err)
				}
				entity.NewStore[Note](tbl)
				return
			}
			var se *entity.SchemaError
			if !errors.Is(err, entity.ErrSchemaMismatch) || !errors.As(err, &se) || se.Index != tc.index || se.Type != "NOTE" {
				t.Fatalf("CheckSchema: %v, want a *SchemaError about %q", err, tc.index)
			}
			defer func() {
				r := recover()
				if perr, ok := r.(error); !ok || !errors.Is(perr, entity.ErrSchemaMismatch) {
					t.Fatalf("NewStore recovered %v, want the *SchemaError", r)
				}
			}()
			entity.NewStore[Note](tbl)
		})
	}
}
