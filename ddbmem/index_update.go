package ddbmem

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UpdateTable's GlobalSecondaryIndexUpdates. A created index is built
// from the table's items at once and is ACTIVE when UpdateTable returns
// (DynamoDB answers CREATING, then backfills; like a table, an index of
// the engine has no such state). An item whose value for the new index's
// key has another type than the index's is left out of the index, as
// DynamoDB leaves it out (an index key violation), and a write that
// keeps the wrong type is refused, as for any index. A deleted index is
// gone at once. Update (an index's throughput) is checked and accepted.
// The messages are DynamoDB Local's, but for an Update of an index that
// does not exist, where DynamoDB's is dynalite's suite's record.

// checkIndexUpdates checks what an UpdateTable's index updates are
// without the table: one action each, one update per index, and at most
// one index created or deleted.
func checkIndexUpdates(us []types.GlobalSecondaryIndexUpdate) error {
	seen := map[string]bool{}
	online := 0
	for _, u := range us {
		n := 0
		var name *string
		if u.Update != nil {
			n, name = n+1, u.Update.IndexName
		}
		if u.Create != nil {
			n, name, online = n+1, u.Create.IndexName, online+1
		}
		if u.Delete != nil {
			n, name, online = n+1, u.Delete.IndexName, online+1
		}
		if n != 1 {
			return validation("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
		}
		if name == nil {
			continue // a constraint violation (updateTableConstraints)
		}
		if seen[*name] {
			return validation("One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: " + *name)
		}
		seen[*name] = true
	}
	if online > 1 {
		return &types.LimitExceededException{Message: aws.String("Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")}
	}
	return nil
}

// prepareIndexUpdates checks in's index updates against t and returns
// the index set and attribute definitions the table has once they are
// applied (nil when there is no update). The caller holds t.mu.
func (t *table) prepareIndexUpdates(in *dynamodb.UpdateTableInput, billing types.BillingMode) (*indexSet, []types.AttributeDefinition, error) {
	if len(in.GlobalSecondaryIndexUpdates) == 0 {
		if len(in.AttributeDefinitions) > 0 {
			return nil, nil, validation("One or more parameter values were invalid: AttributeDefinitions can only be specified when creating a global secondary index")
		}
		return nil, nil, nil
	}
	cur := t.ixs.Load()
	next := &indexSet{byName: make(map[string]*index, len(cur.byName)+1)}
	defs := t.attrs
	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Update != nil:
			if ix := cur.byName[*u.Update.IndexName]; ix == nil || ix.local {
				return nil, nil, validation("This operation cannot be performed with given input values. Please contact DynamoDB service team for more info: Action Blocked: IndexUpdate")
			}
		case u.Delete != nil:
			if ix := cur.byName[*u.Delete.IndexName]; ix == nil || ix.local {
				return nil, nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
			}
		}
	}
	var created *types.CreateGlobalSecondaryIndexAction
	deleted := ""
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil {
			created = u.Create
		}
		if u.Delete != nil {
			deleted = *u.Delete.IndexName
		}
	}
	for _, ix := range cur.list {
		if ix.name != deleted {
			next.list = append(next.list, ix)
			next.byName[ix.name] = ix
		}
	}
	if created != nil {
		var err error
		if defs, err = mergeDefinitions(defs, in.AttributeDefinitions); err != nil {
			return nil, nil, err
		}
		ix, err := t.indexToCreate(created, defs, next, billing)
		if err != nil {
			return nil, nil, err
		}
		next.list = append(next.list, ix)
		next.byName[ix.name] = ix
	}
	return next, usedDefinitions(defs, t.pk, t.sk, next), nil
}

// mergeDefinitions adds the definitions add to defs; an attribute defined
// again must keep its type.
func mergeDefinitions(defs, add []types.AttributeDefinition) ([]types.AttributeDefinition, error) {
	if len(add) == 0 {
		return nil, validation("No Attribute Schema Defined")
	}
	out := append([]types.AttributeDefinition(nil), defs...)
next:
	for _, a := range add {
		for _, d := range out {
			if *d.AttributeName == *a.AttributeName {
				if d.AttributeType != a.AttributeType {
					return nil, validation("invalid attribute, SchemaElement redefined should be of same type as previously defined")
				}
				continue next
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// indexToCreate checks a new global index against the table and returns
// it, built from the table's items.
func (t *table) indexToCreate(c *types.CreateGlobalSecondaryIndexAction, defs []types.AttributeDefinition, next *indexSet, billing types.BillingMode) (*index, error) {
	name := *c.IndexName
	if next.byName[name] != nil { // one update per index: none deleted by this call
		return nil, validation("Attempting to create an index which already exists")
	}
	defTypes := make(map[string]types.ScalarAttributeType, len(defs))
	known := make(map[string]bool, len(defs))
	for _, d := range defs {
		defTypes[*d.AttributeName] = d.AttributeType
		known[*d.AttributeName] = true
	}
	if err := checkIndexKeys(c.KeySchema, known, defs); err != nil {
		return nil, err
	}
	if err := checkIndexProjection(c.Projection); err != nil {
		return nil, err
	}
	switch {
	case billing == types.BillingModePayPerRequest && c.ProvisionedThroughput != nil:
		return nil, validationf("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
	case billing != types.BillingModePayPerRequest && c.ProvisionedThroughput == nil:
		return nil, validation("No provisioned throughput specified for the global secondary index")
	}
	global := 0
	for _, ix := range next.list {
		if !ix.local {
			global++
		}
	}
	if global >= maxGlobalIndexes {
		return nil, validation("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20")
	}
	pk := keyAttr{*c.KeySchema[0].AttributeName, defTypes[*c.KeySchema[0].AttributeName]}
	var sk keyAttr
	if len(c.KeySchema) == 2 {
		sk = keyAttr{*c.KeySchema[1].AttributeName, defTypes[*c.KeySchema[1].AttributeName]}
	}
	ix := t.newIndex(name, pk, sk, c.Projection, false)
	ix.prov.units = copyThroughput(c.ProvisionedThroughput)
	for tpk, part := range t.data.parts {
		for i := 0; i < part.len(); i++ {
			e := part.at(i)
			ix.replace(tpk, e.sk, nil, e.rec.get(), e.rec)
		}
	}
	return ix, nil
}

// usedDefinitions returns the definitions of defs that some key of the
// table or of its indexes uses, in their order.
func usedDefinitions(defs []types.AttributeDefinition, pk, sk keyAttr, ixs *indexSet) []types.AttributeDefinition {
	used := map[string]bool{pk.name: true, sk.name: sk.name != ""}
	for _, ix := range ixs.list {
		used[ix.pk.name] = true
		if ix.sk.name != "" {
			used[ix.sk.name] = true
		}
	}
	var out []types.AttributeDefinition
	for _, d := range defs {
		if used[*d.AttributeName] {
			out = append(out, d)
		}
	}
	return out
}
