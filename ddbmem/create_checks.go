package ddbmem

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateTable's checks, in DynamoDB's order (dynalite's suite records it
// from DynamoDB): the TableName parameter; then the constraints of the
// request's members, listed together (createTableConstraints); then the
// table's own rules, one at a time (checkCreateTable): billing and
// throughput, the key schema against the attribute definitions, the
// local secondary indexes, then the global ones. DynamoDB Local checks
// in an order of its own and words several rules otherwise
// (TestConformance's localOnlyMessages).

var (
	setAttrType   = newEnumSet("B, N, S")
	setKeyType    = newEnumSet("HASH, RANGE")
	setProjection = newEnumSet("ALL, INCLUDE, KEYS_ONLY")
)

// createTableConstraints checks the constraints of a CreateTable
// request's members, in the order of DynamoDB's model.
func createTableConstraints(in *dynamodb.CreateTableInput) error {
	if err := tableNameParam(in.TableName); err != nil {
		return err
	}
	var v violations
	v.notNull("attributeDefinitions", in.AttributeDefinitions == nil)
	for i, d := range in.AttributeDefinitions {
		p := "attributeDefinitions." + strconv.Itoa(i+1) + ".member."
		v.notNull(p+"attributeName", d.AttributeName == nil)
		v.notNull(p+"attributeType", d.AttributeType == "")
		v.enum(p+"attributeType", string(d.AttributeType), setAttrType)
	}
	v.name("tableName", in.TableName, true)
	v.enum("billingMode", string(in.BillingMode), setBilling)
	v.throughput("provisionedThroughput", in.ProvisionedThroughput)
	v.keySchema("keySchema", in.KeySchema, true)
	for i, l := range in.LocalSecondaryIndexes {
		p := "localSecondaryIndexes." + strconv.Itoa(i+1) + ".member."
		v.name(p+"indexName", l.IndexName, true)
		v.keySchema(p+"keySchema", l.KeySchema, false)
		v.projection(p+"projection", l.Projection)
	}
	for i, g := range in.GlobalSecondaryIndexes {
		p := "globalSecondaryIndexes." + strconv.Itoa(i+1) + ".member."
		v.name(p+"indexName", g.IndexName, true)
		v.keySchema(p+"keySchema", g.KeySchema, false)
		v.projection(p+"projection", g.Projection)
		v.throughput(p+"provisionedThroughput", g.ProvisionedThroughput)
	}
	return v.err()
}

// keySchema checks a key schema: one or two elements, each with a name
// and a key type (of the enum for the table's schema; DynamoDB's model
// constrains an index's key types only later, in checkIndexKeys).
func (v *violations) keySchema(path string, ks []types.KeySchemaElement, table bool) {
	switch {
	case ks == nil:
		v.notNull(path, true)
		return
	case len(ks) == 0:
		v.add("'[]'", path, "must have length greater than or equal to 1")
	case len(ks) > 2:
		v.add("'"+keySchemaString(ks)+"'", path, "must have length less than or equal to 2")
	}
	for i, k := range ks {
		p := path + "." + strconv.Itoa(i+1) + ".member."
		v.notNull(p+"attributeName", k.AttributeName == nil)
		v.notNull(p+"keyType", k.KeyType == "")
		if table {
			v.enum(p+"keyType", string(k.KeyType), setKeyType)
		}
	}
}

// projection checks an index's projection: present, of a known type,
// with at least one non-key attribute when it lists them.
func (v *violations) projection(path string, p *types.Projection) {
	if p == nil {
		v.notNull(path, true)
		return
	}
	v.enum(path+".projectionType", string(p.ProjectionType), setProjection)
	v.nonEmptyList(path+".nonKeyAttributes", p.NonKeyAttributes)
}

// keySchemaString writes a key schema as DynamoDB quotes it.
func keySchemaString(ks []types.KeySchemaElement) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('{')
		sep := ""
		if k.AttributeName != nil {
			b.WriteString("AttributeName: " + *k.AttributeName)
			sep = ","
		}
		if k.KeyType != "" {
			b.WriteString(sep + "KeyType: " + string(k.KeyType))
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// Index limits per table.
const (
	maxLocalIndexes  = 5
	maxGlobalIndexes = 20
)

// checkCreateTable checks a CreateTable request's own rules, which
// createTableConstraints has let through, in DynamoDB's order, and
// reports the first one broken.
func checkCreateTable(in *dynamodb.CreateTableInput) error {
	if err := checkCreateBilling(in); err != nil {
		return err
	}
	defs := make(map[string]bool, len(in.AttributeDefinitions))
	for _, d := range in.AttributeDefinitions {
		defs[*d.AttributeName] = true
	}
	if len(in.KeySchema) > len(in.AttributeDefinitions) {
		return validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	if err := checkIndexKeys(in.KeySchema, defs, in.AttributeDefinitions); err != nil {
		return err
	}
	if in.LocalSecondaryIndexes == nil && in.GlobalSecondaryIndexes == nil && len(in.KeySchema) != len(in.AttributeDefinitions) {
		return validation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	names := map[string]bool{}
	if in.LocalSecondaryIndexes != nil {
		if len(in.LocalSecondaryIndexes) == 0 {
			return validation("One or more parameter values were invalid: List of LocalSecondaryIndexes is empty")
		}
		if len(in.KeySchema) != 2 {
			return validation("One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		tableHash := *in.KeySchema[0].AttributeName
		for _, l := range in.LocalSecondaryIndexes {
			name := *l.IndexName
			if err := checkIndexKeys(l.KeySchema, defs, in.AttributeDefinitions); err != nil {
				return err
			}
			if len(l.KeySchema) != 2 {
				return validation("One or more parameter values were invalid: Index KeySchema does not have a range key for index: " + name)
			}
			if hash := *l.KeySchema[0].AttributeName; hash != tableHash {
				return validationf("One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s", name, hash, tableHash)
			}
			if err := checkIndexProjection(l.Projection); err != nil {
				return err
			}
			if names[name] {
				return validation("One or more parameter values were invalid: Duplicate index name: " + name)
			}
			names[name] = true
		}
		if len(in.LocalSecondaryIndexes) > maxLocalIndexes {
			return validation("One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5")
		}
	}
	if in.GlobalSecondaryIndexes != nil {
		if len(in.GlobalSecondaryIndexes) == 0 {
			return validation("One or more parameter values were invalid: List of GlobalSecondaryIndexes is empty")
		}
		for _, g := range in.GlobalSecondaryIndexes {
			name := *g.IndexName
			if err := checkIndexKeys(g.KeySchema, defs, in.AttributeDefinitions); err != nil {
				return err
			}
			if err := checkIndexProjection(g.Projection); err != nil {
				return err
			}
			switch {
			case in.BillingMode == types.BillingModePayPerRequest && g.ProvisionedThroughput != nil:
				return validationf("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
			case in.BillingMode != types.BillingModePayPerRequest && g.ProvisionedThroughput == nil:
				return validation("No provisioned throughput specified for the global secondary index")
			}
			if names[name] {
				return validation("One or more parameter values were invalid: Duplicate index name: " + name)
			}
			names[name] = true
		}
		if len(in.GlobalSecondaryIndexes) > maxGlobalIndexes {
			return validation("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20")
		}
	}
	return nil
}

// checkCreateBilling checks the billing mode against the throughput.
func checkCreateBilling(in *dynamodb.CreateTableInput) error {
	pt := in.ProvisionedThroughput
	if in.BillingMode == types.BillingModePayPerRequest {
		if pt != nil {
			return validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		return nil
	}
	if pt == nil || aws.ToInt64(pt.ReadCapacityUnits) == 0 || aws.ToInt64(pt.WriteCapacityUnits) == 0 {
		return validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	if *pt.ReadCapacityUnits > maxCapacityUnits {
		return validationf("Given value %d for ReadCapacityUnits is out of bounds", *pt.ReadCapacityUnits)
	}
	if *pt.WriteCapacityUnits > maxCapacityUnits {
		return validationf("Given value %d for WriteCapacityUnits is out of bounds", *pt.WriteCapacityUnits)
	}
	return nil
}

// checkIndexKeys checks a table's or an index's key schema against the
// attribute definitions and the key types' order.
func checkIndexKeys(ks []types.KeySchemaElement, defs map[string]bool, all []types.AttributeDefinition) error {
	for _, k := range ks {
		if !defs[*k.AttributeName] {
			return validationf("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", keyNames(ks), defNames(all))
		}
	}
	if len(ks) == 2 && *ks[0].AttributeName == *ks[1].AttributeName {
		return validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if ks[0].KeyType != types.KeyTypeHash {
		return validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 && ks[1].KeyType != types.KeyTypeRange {
		return validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	return nil
}

// checkIndexProjection checks an index's projection type against its
// non-key attributes.
func checkIndexProjection(p *types.Projection) error {
	switch {
	case p.ProjectionType == "":
		return validation("One or more parameter values were invalid: Unknown ProjectionType: null")
	case p.NonKeyAttributes != nil && p.ProjectionType != types.ProjectionTypeInclude:
		return validationf("One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is specified", p.ProjectionType)
	case p.ProjectionType == types.ProjectionTypeInclude && len(p.NonKeyAttributes) == 0:
		return validation("One or more parameter values were invalid: NonKeyAttributes must not be empty")
	}
	// A name listed twice: DynamoDB Local's words (AWS documents no
	// message for it).
	for i, a := range p.NonKeyAttributes {
		if slices.Contains(p.NonKeyAttributes[:i], a) {
			return validation("Cannot have two attributes with the same name")
		}
	}
	return nil
}
