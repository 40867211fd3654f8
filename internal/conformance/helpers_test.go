package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Short constructors for inputs on table "T".

func put(it I) *dynamodb.PutItemInput { return &dynamodb.PutItemInput{TableName: str("T"), Item: it} }

func putIf(it I, cond string, v vals) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{TableName: str("T"), Item: it, ConditionExpression: str(cond), ExpressionAttributeValues: v}
}

func get(k I) *dynamodb.GetItemInput {
	return &dynamodb.GetItemInput{TableName: str("T"), Key: k, ConsistentRead: aws.Bool(true)}
}

func getP(k I, proj string, n names) *dynamodb.GetItemInput {
	return &dynamodb.GetItemInput{TableName: str("T"), Key: k, ProjectionExpression: str(proj), ExpressionAttributeNames: n}
}

func del(k I) *dynamodb.DeleteItemInput {
	return &dynamodb.DeleteItemInput{TableName: str("T"), Key: k}
}

func delIf(k I, cond string, v vals) *dynamodb.DeleteItemInput {
	return &dynamodb.DeleteItemInput{TableName: str("T"), Key: k, ConditionExpression: str(cond), ExpressionAttributeValues: v}
}

func upd(k I, expr string, v vals) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{TableName: str("T"), Key: k, UpdateExpression: str(expr),
		ExpressionAttributeValues: v, ReturnValues: types.ReturnValueAllNew}
}

func updN(k I, expr string, n names, v vals) *dynamodb.UpdateItemInput {
	u := upd(k, expr, v)
	u.ExpressionAttributeNames = n
	return u
}

func updRV(k I, expr string, v vals, rv types.ReturnValue) *dynamodb.UpdateItemInput {
	u := upd(k, expr, v)
	u.ReturnValues = rv
	return u
}

func query(cond string, v vals) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{TableName: str("T"), KeyConditionExpression: str(cond), ExpressionAttributeValues: v}
}

func scan() *dynamodb.ScanInput { return &dynamodb.ScanInput{TableName: str("T")} }

// pk returns a key {pk: S(p)}; pks returns {pk: S(p), sk: S(s)}.
func pk(p string) I     { return I{"pk": S(p)} }
func pks(p, s string) I { return I{"pk": S(p), "sk": S(s)} }
func with(k I, kv ...any) I {
	out := I{}
	for a, v := range k {
		out[a] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return out
}

// merged joins read-only cases that share tables and items into one case
// named name, to create fewer tables on DynamoDB Local (creating and
// deleting a table there costs 0.1-0.7 s). Each part keeps its steps.
func merged(name string, parts ...tc) tc {
	out := tc{name: name, tables: parts[0].tables, items: parts[0].items}
	for _, p := range parts {
		out.steps = append(out.steps, p.steps...)
	}
	return out
}

// group replaces the named cases of cs (which must have the same tables
// and items) by one merged case called name, at the place of the first.
// Errors leave the table unchanged, so error cases group well.
func group(cs []tc, name string, members ...string) []tc {
	idx := map[string]int{}
	for i, c := range cs {
		idx[c.name] = i
	}
	var parts []tc
	for _, m := range members {
		i, ok := idx[m]
		if !ok {
			panic("group: no case " + m)
		}
		parts = append(parts, cs[i])
		if js(cs[i].tables) != js(parts[0].tables) || js(cs[i].items) != js(parts[0].items) {
			panic("group: " + m + " has other tables or items than " + members[0])
		}
	}
	out := make([]tc, 0, len(cs))
	for _, c := range cs {
		switch {
		case c.name == members[0]:
			out = append(out, merged(name, parts...))
		case contains(members, c.name):
		default:
			out = append(out, c)
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
