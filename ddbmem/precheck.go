package ddbmem

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// Request validation before the table lookup.
//
// DynamoDB checks a request in three stages: first the constraints of its
// API model (required members, lengths, patterns, enums, ranges), all
// reported together ("3 validation errors detected: ...", at most ten);
// then the operation's own checks that need no table (expression
// parameters, attribute values, expressions, the size of an item); only
// then does it look the table up and check the key schema and indexes.
// So a request naming a table that does not exist is a
// ValidationException when it is invalid, and a
// ResourceNotFoundException only when it is valid (dynalite's suite
// records this from DynamoDB: its validation tests name random missing
// tables). DynamoDB Local looks the table up first, and checks few of
// the constraints (it accepts an unknown ReturnItemCollectionMetrics).
//
// Every operation checks its members' constraints first (the
// xConstraints functions: comparisons that allocate nothing while they
// hold), then looks the table up, and checks the rest in its own order
// once it has it, as DynamoDB Local does. When the lookup fails, it calls
// missingTable, which runs the second stage and returns its error, or the
// lookup's when the request is valid.

// maxViolations is the most constraint violations DynamoDB lists.
const maxViolations = 10

// violations collects a request's constraint violations.
type violations struct{ list []string }

// add records that value (already formatted: null or 'text') at path
// breaks rule ("must not be null", ...).
func (v *violations) add(value, path, rule string) {
	v.addConstraint(value, path, "Member "+rule)
}

// addConstraint records a violation of a constraint given whole.
func (v *violations) addConstraint(value, path, constraint string) {
	if len(v.list) < maxViolations {
		v.list = append(v.list, "Value "+value+" at '"+path+"' failed to satisfy constraint: "+constraint)
	}
}

// Batch limits.
const (
	maxBatchGet   = 100
	maxBatchWrite = 25
)

// requestItems checks a batch's requestItems: present, not empty, keyed
// by table names.
func (v *violations) requestItems(null bool, names []string) {
	switch {
	case null:
		v.notNull("requestItems", true)
	case len(names) == 0:
		v.add("'{}'", "requestItems", "must have length greater than or equal to 1")
	}
	v.tableNames(names)
}

// keysString writes a list of keys as DynamoDB quotes it, each attribute
// value in the AWS SDK for Java's form ({S: a,}).
func keysString(keys []map[string]types.AttributeValue) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('{')
		for j, name := range sortedNames(k) {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(name + "={" + ddbexpr.TypeName(k[name]) + ": " + scalarText(k[name]) + ",}")
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// scalarText is a key value's text in keysString.
func scalarText(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(x.Value)
	}
	return "..."
}

// tableNames checks the table names that key a batch's requestItems.
func (v *violations) tableNames(names []string) {
	for _, n := range names {
		if len(n) < 3 || len(n) > 255 || !tableNameRE.MatchString(n) {
			v.addConstraint("'{"+strings.Join(names, ", ")+"}'", "requestItems",
				"Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]")
			return
		}
	}
}

// err is the ValidationException listing the violations, or nil.
func (v *violations) err() error {
	switch len(v.list) {
	case 0:
		return nil
	case 1:
		return validation("1 validation error detected: " + v.list[0])
	}
	return validation(strconv.Itoa(len(v.list)) + " validation errors detected: " + strings.Join(v.list, "; "))
}

// notNull checks a required member.
func (v *violations) notNull(path string, null bool) {
	if null {
		v.add("null", path, "must not be null")
	}
}

// name checks a table or index name: 3 to 255 of [a-zA-Z0-9_.-].
func (v *violations) name(path string, s *string, required bool) {
	if s == nil {
		v.notNull(path, required)
		return
	}
	if validTableName(*s) {
		return
	}
	q := "'" + *s + "'"
	if !tableNameRE.MatchString(*s) {
		v.add(q, path, "must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if len(*s) < 3 {
		v.add(q, path, "must have length greater than or equal to 3")
	}
	if len(*s) > 255 {
		v.add(q, path, "must have length less than or equal to 255")
	}
}

// validTableName reports whether s is a valid table or index name.
func validTableName(s string) bool {
	if len(s) < 3 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// enumSet is an enum's members, and their list as DynamoDB writes it.
type enumSet struct {
	text    string
	members []string
}

func newEnumSet(text string) enumSet { return enumSet{text, strings.Split(text, ", ")} }

// enum checks an enum member; "" is an absent one.
func (v *violations) enum(path, s string, set enumSet) {
	if s == "" {
		return
	}
	if s == emptyEnum {
		s = ""
	}
	for _, m := range set.members {
		if s == m {
			return
		}
	}
	v.add("'"+s+"'", path, "must satisfy enum value set: ["+set.text+"]")
}

// atLeast checks a number member's lower bound.
func (v *violations) atLeast(path string, n *int32, lo int32) {
	if n != nil && *n < lo {
		v.add("'"+strconv.Itoa(int(*n))+"'", path, "must have value greater than or equal to "+strconv.Itoa(int(lo)))
	}
}

// nonEmptyList checks a list member that, when present, has at least one
// element.
func (v *violations) nonEmptyList(path string, l []string) {
	if l != nil && len(l) == 0 {
		v.add("'[]'", path, "must have length greater than or equal to 1")
	}
}

// emptyEnum is how the wire decoder keeps an enum member sent as "" where
// DynamoDB tells it from a missing one (a legacy condition's
// ComparisonOperator): a value no enum has, which enum reports as an
// empty quoted value.
const emptyEnum = "\x00"

// The enum sets, in the order DynamoDB lists them.
var (
	setConsumed    = newEnumSet("INDEXES, TOTAL, NONE")
	setReturns     = newEnumSet("ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW")
	setMetrics     = newEnumSet("SIZE, NONE")
	setCondOp      = newEnumSet("OR, AND")
	setSelect      = newEnumSet("SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES")
	setComparisons = newEnumSet("IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS")
	setActions     = newEnumSet("ADD, PUT, DELETE")
	setBilling     = newEnumSet("PROVISIONED, PAY_PER_REQUEST")
)

// conditions checks the comparison operators of legacy conditions
// (KeyConditions, QueryFilter, ScanFilter), in name order.
func (v *violations) conditions(path string, cs map[string]types.Condition) {
	for _, a := range sortedNames(cs) {
		op := string(cs[a].ComparisonOperator)
		p := path + "." + a + ".member.comparisonOperator"
		v.notNull(p, op == "")
		v.enum(p, op, setComparisons)
	}
}

// expected checks the comparison operators of a legacy Expected.
func (v *violations) expected(es map[string]types.ExpectedAttributeValue) {
	for _, a := range sortedNames(es) {
		v.enum("expected."+a+".member.comparisonOperator", string(es[a].ComparisonOperator), setComparisons)
	}
}

// missingTable returns the error of a request whose table lookup failed
// with lookupErr, and whose members' constraints hold: the first error
// of check (the operation's checks that need no table), else lookupErr.
func missingTable(lookupErr error, check func() error) error {
	if err := check(); err != nil {
		return err
	}
	return lookupErr
}

// checkKeyValues checks the values of a key given with no table to check
// it against, as the values of an item.
func checkKeyValues(key item) error {
	for _, v := range key {
		if _, err := importValue(v); err != nil {
			return err
		}
	}
	return nil
}

// checkStartKeyValues checks the values of an ExclusiveStartKey given
// with no table to check it against. DynamoDB prefixes most of its
// messages, not those on numbers, sets and duplicates.
func checkStartKeyValues(key item) error {
	for _, v := range key {
		if _, err := importValue(v); err != nil {
			msg := err.Error()
			var ae interface{ ErrorMessage() string }
			if errors.As(err, &ae) {
				msg = ae.ErrorMessage()
			}
			for _, unprefixed := range []string{"contains duplicates", "number set", "numeric value", "significant digits", "number with magnitude"} {
				if strings.Contains(msg, unprefixed) {
					return err
				}
			}
			return validation("The provided starting key is invalid: " + msg)
		}
	}
	return nil
}

// The operations' checks before the table lookup.

// getConstraints checks the constraints of a Get request's members.
func getConstraints(in *dynamodb.GetItemInput) error {
	var v violations
	v.nonEmptyList("attributesToGet", in.AttributesToGet)
	v.enum("returnConsumedCapacity", string(in.ReturnConsumedCapacity), setConsumed)
	v.notNull("key", in.Key == nil)
	v.name("tableName", in.TableName, true)
	return v.err()
}

func (db *DB) missingGet(lookupErr error, in *dynamodb.GetItemInput) error {
	return missingTable(lookupErr, func() error {
		// How the parameters mix, the key's values, then AttributesToGet,
		// as DynamoDB checks them.
		if err := exprParams([]param{{"AttributesToGet", in.AttributesToGet != nil}}, []param{{"ProjectionExpression", in.ProjectionExpression != nil}},
			in.ExpressionAttributeNames, nil, ""); err != nil {
			return err
		}
		if err := checkKeyValues(in.Key); err != nil {
			return err
		}
		in, err := legacyGet(in)
		if err != nil {
			return err
		}
		_, err = db.parseExprs(exprReq{names: in.ExpressionAttributeNames, proj: in.ProjectionExpression})
		return err
	})
}

// write checks the members PutItem, DeleteItem and UpdateItem share.
func (v *violations) write(consumed types.ReturnConsumedCapacity, returns types.ReturnValue, metrics types.ReturnItemCollectionMetrics,
	condOp types.ConditionalOperator, expected map[string]types.ExpectedAttributeValue) {
	v.enum("returnConsumedCapacity", string(consumed), setConsumed)
	v.enum("returnValues", string(returns), setReturns)
	v.enum("returnItemCollectionMetrics", string(metrics), setMetrics)
	v.enum("conditionalOperator", string(condOp), setCondOp)
	v.expected(expected)
}

// putConstraints checks the constraints of a Put request's members.
func putConstraints(in *dynamodb.PutItemInput) error {
	var v violations
	v.write(in.ReturnConsumedCapacity, in.ReturnValues, in.ReturnItemCollectionMetrics, in.ConditionalOperator, in.Expected)
	v.notNull("item", in.Item == nil)
	v.name("tableName", in.TableName, true)
	return v.err()
}

func (db *DB) missingPut(lookupErr error, in *dynamodb.PutItemInput) error {
	return missingTable(lookupErr, func() error {
		if err := conditionParams(in.Expected, in.ConditionalOperator, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues); err != nil {
			return err
		}
		it, err := importItem(in.Item)
		if err != nil {
			return err
		}
		if err := checkOldReturns(in.ReturnValues, in.ReturnValuesOnConditionCheckFailure); err != nil {
			return err
		}
		if ddbexpr.ItemSize(it) > maxItemSize {
			return validation(errItemSize)
		}
		legacy := in.Expected != nil
		if in, err = legacyPut(in); err != nil {
			return err
		}
		_, err = db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, cond: in.ConditionExpression, valueExprs: "ConditionExpression is null", legacy: legacy})
		return err
	})
}

// deleteConstraints checks the constraints of a Delete request's members.
func deleteConstraints(in *dynamodb.DeleteItemInput) error {
	var v violations
	v.write(in.ReturnConsumedCapacity, in.ReturnValues, in.ReturnItemCollectionMetrics, in.ConditionalOperator, in.Expected)
	v.notNull("key", in.Key == nil)
	v.name("tableName", in.TableName, true)
	return v.err()
}

func (db *DB) missingDelete(lookupErr error, in *dynamodb.DeleteItemInput) error {
	return missingTable(lookupErr, func() error {
		if err := conditionParams(in.Expected, in.ConditionalOperator, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues); err != nil {
			return err
		}
		if err := checkKeyValues(in.Key); err != nil {
			return err
		}
		legacy := in.Expected != nil
		in, err := legacyDelete(in)
		if err != nil {
			return err
		}
		if err := checkOldReturns(in.ReturnValues, in.ReturnValuesOnConditionCheckFailure); err != nil {
			return err
		}
		_, err = db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, cond: in.ConditionExpression, valueExprs: "ConditionExpression is null", legacy: legacy})
		return err
	})
}

// updateConstraints checks the constraints of a Update request's members.
func updateConstraints(in *dynamodb.UpdateItemInput) error {
	var v violations
	v.write(in.ReturnConsumedCapacity, in.ReturnValues, in.ReturnItemCollectionMetrics, in.ConditionalOperator, in.Expected)
	for _, a := range sortedNames(in.AttributeUpdates) {
		v.enum("attributeUpdates."+a+".member.action", string(in.AttributeUpdates[a].Action), setActions)
	}
	v.notNull("key", in.Key == nil)
	v.name("tableName", in.TableName, true)
	return v.err()
}

func (db *DB) missingUpdate(lookupErr error, in *dynamodb.UpdateItemInput) error {
	return missingTable(lookupErr, func() error {
		if err := exprParams([]param{{"AttributeUpdates", in.AttributeUpdates != nil}, {"Expected", in.Expected != nil}, {"ConditionalOperator", in.ConditionalOperator != ""}},
			[]param{{"UpdateExpression", in.UpdateExpression != nil}, {"ConditionExpression", in.ConditionExpression != nil}},
			in.ExpressionAttributeNames, in.ExpressionAttributeValues, "UpdateExpression and ConditionExpression are null"); err != nil {
			return err
		}
		if err := checkKeyValues(in.Key); err != nil {
			return err
		}
		legacy := in.AttributeUpdates != nil || in.Expected != nil
		in, err := legacyUpdate(in, nil)
		if err != nil {
			return err
		}
		if err := checkRVOnFailure(in.ReturnValuesOnConditionCheckFailure); err != nil {
			return err
		}
		var x exprs
		return db.parseExprsInto(&x, exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, update: in.UpdateExpression, cond: in.ConditionExpression, valueExprs: "UpdateExpression and ConditionExpression are null", legacy: legacy})
	})
}

// queryConstraints checks the constraints of a Query request's members.
func queryConstraints(in *dynamodb.QueryInput) error {
	// DynamoDB lists the members in its own order (that of their names
	// in a hash table, so Query's and Scan's differ) and stops at ten:
	// dynalite's suite records which ten.
	var v violations
	v.enum("select", string(in.Select), setSelect)
	v.name("indexName", in.IndexName, false)
	v.enum("returnConsumedCapacity", string(in.ReturnConsumedCapacity), setConsumed)
	v.conditions("queryFilter", in.QueryFilter)
	v.name("tableName", in.TableName, true)
	v.enum("conditionalOperator", string(in.ConditionalOperator), setCondOp)
	v.atLeast("limit", in.Limit, 1)
	v.nonEmptyList("attributesToGet", in.AttributesToGet)
	v.conditions("keyConditions", in.KeyConditions)
	return v.err()
}

func (db *DB) missingQuery(lookupErr error, in *dynamodb.QueryInput) error {
	return missingTable(lookupErr, func() error {
		// DynamoDB's order: how the parameters mix, the filter's
		// conditions, AttributesToGet, the start key, the key condition
		// (the legacy conditions on their own here, and against the key
		// schema with the table).
		if err := legacyQueryMix(in); err != nil {
			return err
		}
		for _, a := range sortedNames(in.QueryFilter) {
			if err := checkCondition(in.QueryFilter[a].ComparisonOperator, in.QueryFilter[a].AttributeValueList); err != nil {
				return err
			}
		}
		if err := duplicateAttributes(in.AttributesToGet); err != nil {
			return err
		}
		if err := checkStartKeyValues(in.ExclusiveStartKey); err != nil {
			return err
		}
		if err := keyConditionGiven(in); err != nil {
			return err
		}
		if in.KeyConditions != nil || in.QueryFilter != nil || in.AttributesToGet != nil || in.ConditionalOperator != "" {
			for _, a := range sortedNames(in.KeyConditions) {
				if err := checkCondition(in.KeyConditions[a].ComparisonOperator, in.KeyConditions[a].AttributeValueList); err != nil {
					return err
				}
			}
			if n := len(in.KeyConditions); in.KeyConditions != nil && (n < 1 || n > 2) {
				return validation("Conditions can be of length 1 or 2 only")
			}
			return nil
		}
		x, err := db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, key: in.KeyConditionExpression, filter: in.FilterExpression, proj: in.ProjectionExpression,
			valueExprs: "FilterExpression and KeyConditionExpression are null"})
		if err != nil {
			return err
		}
		_, err = keyTerms(x, nil)
		return err
	})
}

// scanConstraints checks the constraints of a Scan request's members.
func scanConstraints(in *dynamodb.ScanInput) error {
	// In DynamoDB's order (see queryConstraints).
	var v violations
	v.enum("select", string(in.Select), setSelect)
	v.name("indexName", in.IndexName, false)
	v.atLeast("totalSegments", in.TotalSegments, 1)
	v.enum("returnConsumedCapacity", string(in.ReturnConsumedCapacity), setConsumed)
	v.name("tableName", in.TableName, true)
	v.enum("conditionalOperator", string(in.ConditionalOperator), setCondOp)
	v.conditions("scanFilter", in.ScanFilter)
	v.atLeast("segment", in.Segment, 0)
	v.atLeast("limit", in.Limit, 1)
	v.nonEmptyList("attributesToGet", in.AttributesToGet)
	return v.err()
}

func (db *DB) missingScan(lookupErr error, in *dynamodb.ScanInput) error {
	return missingTable(lookupErr, func() error {
		legacy := in.ScanFilter != nil || in.AttributesToGet != nil
		in, err := legacyScan(in, true)
		if err != nil {
			return err
		}
		if err := checkStartKeyValues(in.ExclusiveStartKey); err != nil {
			return err
		}
		if _, _, err := scanSegments(in); err != nil {
			return err
		}
		_, err = db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, filter: in.FilterExpression, proj: in.ProjectionExpression,
			valueExprs: "FilterExpression is null", legacy: legacy})
		return err
	})
}

// throughput checks a ProvisionedThroughput's members.
func (v *violations) throughput(path string, pt *types.ProvisionedThroughput) {
	if pt == nil {
		return
	}
	for _, m := range []struct {
		name string
		n    *int64
	}{{"writeCapacityUnits", pt.WriteCapacityUnits}, {"readCapacityUnits", pt.ReadCapacityUnits}} {
		v.notNull(path+"."+m.name, m.n == nil)
		if m.n != nil && *m.n < 1 {
			v.add("'"+strconv.FormatInt(*m.n, 10)+"'", path+"."+m.name, "must have value greater than or equal to 1")
		}
	}
}

// tableNameParam is the first check of the table operations, which
// DynamoDB words apart from the constraint list.
func tableNameParam(name *string) error {
	if name == nil {
		return validation("The parameter 'TableName' is required but was not present in the request")
	}
	if len(*name) < 3 || len(*name) > 255 {
		return validation("TableName must be at least 3 characters long and at most 255 characters long")
	}
	return nil
}

// updateTableConstraints checks the constraints of an UpdateTable
// request's members.
func updateTableConstraints(in *dynamodb.UpdateTableInput) error {
	if err := tableNameParam(in.TableName); err != nil {
		return err
	}
	var v violations
	v.name("tableName", in.TableName, true)
	v.enum("billingMode", string(in.BillingMode), setBilling)
	v.throughput("provisionedThroughput", in.ProvisionedThroughput)
	for i, u := range in.GlobalSecondaryIndexUpdates {
		p := "globalSecondaryIndexUpdates." + strconv.Itoa(i+1) + ".member."
		if c := u.Create; c != nil {
			// The members of a new index, as CreateTable's.
			v.name(p+"create.indexName", c.IndexName, true)
			v.keySchema(p+"create.keySchema", c.KeySchema, false)
			v.projection(p+"create.projection", c.Projection)
			v.throughput(p+"create.provisionedThroughput", c.ProvisionedThroughput)
		}
		if d := u.Delete; d != nil {
			v.name(p+"delete.indexName", d.IndexName, true)
		}
		if u.Update == nil {
			continue
		}
		v.name(p+"update.indexName", u.Update.IndexName, true)
		v.notNull(p+"update.provisionedThroughput", u.Update.ProvisionedThroughput == nil)
		v.throughput(p+"update.provisionedThroughput", u.Update.ProvisionedThroughput)
	}
	return v.err()
}

// maxCapacityUnits is the most capacity units a table's throughput may
// name.
const maxCapacityUnits = 1_000_000_000_000

// missingUpdateTable is the error of an UpdateTable request whose table is
// missing: DynamoDB checks the table's throughput bounds and what the
// request updates first (an index's throughput only with its table).
func missingUpdateTable(lookupErr error, in *dynamodb.UpdateTableInput) error {
	return missingTable(missingTableOnly(lookupErr, in.TableName), func() error {
		if pt := in.ProvisionedThroughput; pt != nil {
			if *pt.ReadCapacityUnits > maxCapacityUnits {
				return validationf("Given value %d for ReadCapacityUnits is out of bounds", *pt.ReadCapacityUnits)
			}
			if *pt.WriteCapacityUnits > maxCapacityUnits {
				return validationf("Given value %d for WriteCapacityUnits is out of bounds", *pt.WriteCapacityUnits)
			}
		}
		if in.ProvisionedThroughput == nil && in.BillingMode == "" && in.StreamSpecification == nil && len(in.GlobalSecondaryIndexUpdates) == 0 &&
			in.SSESpecification == nil && len(in.ReplicaUpdates) == 0 && in.DeletionProtectionEnabled == nil {
			return validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
		}
		seen := map[string]bool{}
		for _, u := range in.GlobalSecondaryIndexUpdates {
			var name *string
			switch {
			case u.Update != nil && u.Create == nil && u.Delete == nil:
				name = u.Update.IndexName
			case u.Create != nil && u.Update == nil && u.Delete == nil:
				name = u.Create.IndexName
			case u.Delete != nil && u.Update == nil && u.Create == nil:
				name = u.Delete.IndexName
			default:
				return validation("One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
			}
			if name != nil {
				if seen[*name] {
					return validation("One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: " + *name)
				}
				seen[*name] = true
			}
		}
		return nil
	})
}

// enumConstraints checks a transaction's ReturnConsumedCapacity and
// ReturnItemCollectionMetrics.
func enumConstraints(consumed types.ReturnConsumedCapacity, metrics types.ReturnItemCollectionMetrics) error {
	var v violations
	v.enum("returnConsumedCapacity", string(consumed), setConsumed)
	v.enum("returnItemCollectionMetrics", string(metrics), setMetrics)
	return v.err()
}

// missingTableOnly is the check of a table operation's request on its
// table's name (DescribeTable, DeleteTable, DescribeTimeToLive,
// UpdateTable), whose not-found error names the table.
func missingTableOnly(lookupErr error, name *string) error {
	var rnf *types.ResourceNotFoundException
	if errors.As(lookupErr, &rnf) && name != nil {
		return tableNotFound(*name)
	}
	return lookupErr
}

// listTablesConstraints checks the constraints of a ListTables request's
// members.
func listTablesConstraints(in *dynamodb.ListTablesInput) error {
	var v violations
	v.name("exclusiveStartTableName", in.ExclusiveStartTableName, false)
	v.atLeast("limit", in.Limit, 1)
	if in.Limit != nil && *in.Limit > 100 {
		v.add("'"+strconv.Itoa(int(*in.Limit))+"'", "limit", "must have value less than or equal to 100")
	}
	return v.err()
}

// tableOnlyConstraints checks the table name of a table operation
// (DescribeTable, DeleteTable, DescribeTimeToLive, UpdateTimeToLive).
func tableOnlyConstraints(name *string) error {
	if err := tableNameParam(name); err != nil {
		return err
	}
	var v violations
	v.name("tableName", name, true)
	return v.err()
}

// batchGetConstraints checks the constraints of a BatchGet request's members.
func batchGetConstraints(in *dynamodb.BatchGetItemInput) error {
	var v violations
	names := sortedTableNames(in.RequestItems)
	v.enum("returnConsumedCapacity", string(in.ReturnConsumedCapacity), setConsumed)
	v.requestItems(in.RequestItems == nil, names)
	for _, name := range names {
		keys := in.RequestItems[name].Keys
		p := "requestItems." + name + ".member.keys"
		v.notNull(p, keys == nil)
		switch {
		case keys != nil && len(keys) == 0:
			v.add("'[]'", p, "must have length greater than or equal to 1")
		case len(keys) > maxBatchGet:
			v.add("'"+keysString(keys)+"'", p, "must have length less than or equal to 100")
		}
	}
	return v.err()
}

func (db *DB) missingBatchGet(lookupErr error, in *dynamodb.BatchGetItemInput) error {
	return missingTable(lookupErr, func() error { return db.batchGetOwnChecks(in) })
}

// batchGetOwnChecks runs a BatchGetItem's checks that need no table, in
// DynamoDB's order: each table's expressions, then its keys' values and
// duplicates. They come before any check against a table.
func (db *DB) batchGetOwnChecks(in *dynamodb.BatchGetItemInput) error {
	for _, name := range sortedTableNames(in.RequestItems) {
		ka, err := legacyKeysAndAttributes(in.RequestItems[name])
		if err != nil {
			return err
		}
		// The expressions, then the keys, as DynamoDB checks them.
		if _, err := db.parseExprs(exprReq{names: ka.ExpressionAttributeNames, proj: ka.ProjectionExpression}); err != nil {
			return err
		}
		seen := make(map[string]bool, len(ka.Keys))
		for _, k := range ka.Keys {
			if err := checkKeyValues(k); err != nil {
				return err
			}
			// Two equal keys, whatever the table's schema.
			if id, ok := keyID(k); ok {
				if seen[id] {
					return validation("Provided list of item keys contains duplicates")
				}
				seen[id] = true
			}
		}
	}
	return nil
}

// keyID identifies a key of scalar values by its attributes' names and
// values (numbers by value); ok is false when a value is not a scalar.
func keyID(k item) (string, bool) {
	var b strings.Builder
	for _, name := range sortedNames(k) {
		if !scalarKeyType(k[name]) {
			return "", false
		}
		b.WriteString(name)
		b.WriteByte(0)
		b.WriteString(ddbexpr.TypeName(k[name]))
		b.WriteString(keyEnc(k[name]))
		b.WriteByte(0)
	}
	return b.String(), true
}

// batchWriteConstraints checks the constraints of a BatchWrite request's members.
func batchWriteConstraints(in *dynamodb.BatchWriteItemInput) error {
	var v violations
	names := sortedTableNames(in.RequestItems)
	v.enum("returnConsumedCapacity", string(in.ReturnConsumedCapacity), setConsumed)
	v.enum("returnItemCollectionMetrics", string(in.ReturnItemCollectionMetrics), setMetrics)
	v.requestItems(in.RequestItems == nil, names)
	for _, name := range names {
		for i, w := range in.RequestItems[name] {
			p := "requestItems." + name + ".member." + strconv.Itoa(i+1) + ".member."
			v.notNull(p+"deleteRequest.key", w.DeleteRequest != nil && w.DeleteRequest.Key == nil)
			v.notNull(p+"putRequest.item", w.PutRequest != nil && w.PutRequest.Item == nil)
		}
	}
	for _, name := range names {
		if n := len(in.RequestItems[name]); n == 0 || n > maxBatchWrite {
			v.addConstraint("'{"+strings.Join(names, ", ")+"}'", "requestItems",
				"Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
			break
		}
	}
	return v.err()
}

func (db *DB) missingBatchWrite(lookupErr error, in *dynamodb.BatchWriteItemInput) error {
	return missingTable(lookupErr, func() error { return batchWriteOwnChecks(in) })
}

// batchWriteOwnChecks runs a BatchWriteItem's checks that need no table:
// each request is a put or a delete, and its item's or key's values. They
// come before any check against a table.
func batchWriteOwnChecks(in *dynamodb.BatchWriteItemInput) error {
	for _, name := range sortedTableNames(in.RequestItems) {
		for _, w := range in.RequestItems[name] {
			switch {
			case w.PutRequest != nil && w.DeleteRequest == nil:
				it, err := importItem(w.PutRequest.Item)
				if err != nil {
					return err
				}
				if ddbexpr.ItemSize(it) > maxItemSize {
					return validation(errItemSize)
				}
			case w.DeleteRequest != nil && w.PutRequest == nil:
				if err := checkKeyValues(w.DeleteRequest.Key); err != nil {
					return err
				}
			default:
				return validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes") // DynamoDB's words
			}
		}
	}
	return nil
}
