package ddbmem

import (
	"context"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// lockTables write-locks (or read-locks) the distinct tables in name
// order, so concurrent multi-table requests cannot deadlock, and returns
// the unlock function.
func lockTables(ts []*table, write bool) func() {
	seen := map[*table]bool{}
	var uniq []*table
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			uniq = append(uniq, t)
		}
	}
	sort.Slice(uniq, func(i, j int) bool { return uniq[i].name < uniq[j].name })
	for _, t := range uniq {
		if write {
			t.mu.Lock()
		} else {
			t.mu.RLock()
		}
	}
	return func() {
		for i := len(uniq) - 1; i >= 0; i-- {
			if write {
				uniq[i].mu.Unlock()
			} else {
				uniq[i].mu.RUnlock()
			}
		}
	}
}

func sortedTableNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BatchGetItem reads up to 100 items from one or more tables. Missing
// items are left out. UnprocessedKeys is empty unless a [Fault] with
// Unprocessed is set.
func (db *DB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := db.begin(ctx, "BatchGetItem"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.BatchGetItemInput{}
	}
	if err := batchGetConstraints(in); err != nil {
		return nil, err
	}
	n := 0
	for _, ka := range in.RequestItems {
		n += len(ka.Keys)
	}
	if n > 100 {
		return nil, db.batchGetFirst(in, validation("Too many items requested for the BatchGetItem call"))
	}
	type req struct {
		t          *table
		x          *exprs
		keys       [][2]string
		orig       []map[string]types.AttributeValue
		ka         types.KeysAndAttributes
		consistent bool
	}
	reqs := map[string]*req{}
	var ts []*table
	for _, name := range sortedTableNames(in.RequestItems) {
		ka := in.RequestItems[name]
		t, err := db.table(&name)
		if err != nil {
			return nil, db.missingBatchGet(err, in)
		}
		if ka, err = legacyKeysAndAttributes(ka); err != nil {
			return nil, err
		}
		if len(ka.Keys) == 0 {
			return nil, validation("1 validation error detected: Value '[]' at 'requestItems." + name + ".member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		x, err := db.parseExprs(exprReq{names: ka.ExpressionAttributeNames, proj: ka.ProjectionExpression})
		if err != nil {
			return nil, db.batchGetFirst(in, err)
		}
		if err := t.checkNestedKeys(x); err != nil {
			return nil, db.batchGetFirst(in, err)
		}
		r := &req{t: t, x: x, ka: ka, consistent: aws.ToBool(ka.ConsistentRead)}
		seen := map[[2]string]bool{}
		for _, k := range ka.Keys {
			pk, sk, err := t.parseKey(k)
			if err != nil {
				return nil, db.batchGetFirst(in, err)
			}
			key := [2]string{pk, sk}
			if seen[key] {
				return nil, db.batchGetFirst(in, validation("Provided list of item keys contains duplicates"))
			}
			seen[key] = true
			r.keys = append(r.keys, key)
			r.orig = append(r.orig, k)
		}
		reqs[name] = r
		ts = append(ts, t)
	}
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}, UnprocessedKeys: map[string]types.KeysAndAttributes{}}
	if skip := db.unprocessed("BatchGetItem", n); skip > 0 {
		// Leave the last skip keys, in table-name order, unprocessed.
		left := skip
		names := sortedTableNames(reqs)
		for i := len(names) - 1; i >= 0 && left > 0; i-- {
			r := reqs[names[i]]
			m := min(left, len(r.keys))
			ka := r.ka
			ka.Keys = r.orig[len(r.keys)-m:]
			out.UnprocessedKeys[names[i]] = ka
			r.keys = r.keys[:len(r.keys)-m]
			left -= m
		}
	}
	unlock := lockTables(ts, false)
	units := map[string]float64{}
	for name, r := range reqs {
		items := []map[string]types.AttributeValue{}
		for _, k := range r.keys {
			it := r.t.data.get(k[0], k[1])
			units[name] += readUnits(recSize(it), r.consistent, true)
			if it != nil {
				items = append(items, r.x.output(it))
			}
		}
		out.Responses[name] = items
	}
	unlock()
	out.ConsumedCapacity = consumedList(in.ReturnConsumedCapacity, units, 0)
	return out, nil
}

// batchGetFirst returns the error a BatchGetItem reports when checking
// it against its tables found err: one of the checks that need no table
// (batchGetOwnChecks), which DynamoDB makes first, when one fails. They
// run only once a request has failed, so a valid request pays nothing.
func (db *DB) batchGetFirst(in *dynamodb.BatchGetItemInput, err error) error {
	if first := db.batchGetOwnChecks(in); first != nil {
		return first
	}
	return err
}

// batchWriteFirst is batchGetFirst for a BatchWriteItem.
func batchWriteFirst(in *dynamodb.BatchWriteItemInput, err error) error {
	if first := batchWriteOwnChecks(in); first != nil {
		return first
	}
	return err
}

// BatchWriteItem puts or deletes up to 25 items in one or more tables.
// The whole batch is validated first; each write is then applied
// atomically. UnprocessedItems is empty unless a [Fault] with Unprocessed
// is set.
func (db *DB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := db.begin(ctx, "BatchWriteItem"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.BatchWriteItemInput{}
	}
	if err := batchWriteConstraints(in); err != nil {
		return nil, err
	}
	n := 0
	for _, ws := range in.RequestItems {
		n += len(ws)
	}
	if n > 25 {
		return nil, batchWriteFirst(in, validation("Too many items requested for the BatchWriteItem call"))
	}
	type write struct {
		t      *table
		name   string
		req    types.WriteRequest
		pk, sk string
		it     item // nil deletes
	}
	var writes []write
	var ts []*table
	for _, name := range sortedTableNames(in.RequestItems) {
		ws := in.RequestItems[name]
		t, err := db.table(&name)
		if err != nil {
			return nil, db.missingBatchWrite(err, in)
		}
		if len(ws) == 0 {
			return nil, validation("1 validation error detected: Value '[]' at 'requestItems." + name + ".member' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		seen := map[[2]string]bool{}
		for _, w := range ws {
			var wr write
			switch {
			case w.PutRequest != nil && w.DeleteRequest == nil:
				p, err := db.preparePut(t, w.PutRequest.Item, exprReq{})
				if err != nil {
					return nil, batchWriteFirst(in, batchPutKeyError(err))
				}
				wr = write{t: t, pk: p.pk, sk: p.sk, it: p.it}
			case w.DeleteRequest != nil && w.PutRequest == nil:
				pk, sk, err := t.parseKey(w.DeleteRequest.Key)
				if err != nil {
					return nil, batchWriteFirst(in, err)
				}
				wr = write{t: t, pk: pk, sk: sk}
			default:
				return nil, validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			wr.name, wr.req = name, w
			key := [2]string{wr.pk, wr.sk}
			if seen[key] {
				return nil, batchWriteFirst(in, validation("Provided list of item keys contains duplicates"))
			}
			seen[key] = true
			writes = append(writes, wr)
		}
		ts = append(ts, t)
	}
	left := map[string][]types.WriteRequest{}
	if skip := db.unprocessed("BatchWriteItem", len(writes)); skip > 0 {
		for _, w := range writes[len(writes)-skip:] {
			left[w.name] = append(left[w.name], w.req)
		}
		writes = writes[:len(writes)-skip]
	}
	unlock := lockTables(ts, true)
	var usages map[string]*usage
	if wantCapacity(in.ReturnConsumedCapacity) {
		usages = map[string]*usage{}
	}
	cols := collections{want: in.ReturnItemCollectionMetrics}
	for _, w := range writes {
		oldRec := w.t.data.getRec(w.pk, w.sk)
		old := oldRec.get()
		if usages != nil {
			u := usages[w.t.name]
			if u == nil {
				u = &usage{}
				usages[w.t.name] = u
			}
			u.add(w.t.writeUsage(w.pk, w.sk, old, w.it))
		}
		w.t.write(w.pk, w.sk, oldRec, w.it)
		if cols.want != "" {
			key := w.it
			if key == nil {
				key = w.req.DeleteRequest.Key
			}
			cols.add(w.t, w.pk, key)
		}
	}
	unlock()
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: left,
		ConsumedCapacity: usageList(in.ReturnConsumedCapacity, usages, 0), ItemCollectionMetrics: cols.out}, nil
}

// batchPutKeyError words an error of a batch's PutRequest as DynamoDB
// does: an item whose table key is missing or of another type does not
// match the key schema (dynalite's suite records it), where PutItem names
// the key.
func batchPutKeyError(err error) error {
	m := apiMessage(err)
	if strings.HasPrefix(m, "One or more parameter values were invalid: Missing the key ") ||
		strings.HasPrefix(m, keyTypeMismatchMsg+" ") || err == errKeyValueType {
		return validation(errKeySchema)
	}
	return err
}
