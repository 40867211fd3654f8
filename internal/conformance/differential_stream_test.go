package conformance

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// randomStreamWrites is a Streams case of 300 random writes on six keys
// of a table whose stream keeps new and old images: puts, updates and
// deletes, alone, in batches and in transactions, many of which change
// nothing (the same item again, with its numbers written another way or
// its sets in another order; an update to the value there; a delete of
// an item that is not there; a failed condition; a cancelled
// transaction), which DynamoDB documents as writing no record. Each
// target runs the same writes (the seed is fixed, TABLEKIT_DIFF_SEED
// overrides it); what is compared is every write's error and then every
// record of the stream, with its images and size, item by item.
//
// Numbers are written in several ways ("7", "7.0", "007", "7.50"), with
// fractions and signs.
func randomStreamWrites(h *sh) {
	// DynamoDB Local keeps a number inside a list or map as it was
	// written ("003"); DynamoDB trims leading and trailing zeroes of
	// every number (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number),
	// as the engine does: numbers are compared by value.
	h.n.canonNumbers = true
	h.call("create", streamTbl(types.StreamViewTypeNewAndOldImages))
	r := rand.New(rand.NewSource(diffSeed(67)))
	num := func() types.AttributeValue {
		n := r.Intn(4)
		return N([]string{fmt.Sprint(n), fmt.Sprintf("%d.0", n), fmt.Sprintf("00%d", n), fmt.Sprintf("%d.00", n), fmt.Sprintf("-%d.5", n), fmt.Sprintf("%d.50", n)}[r.Intn(6)])
	}
	value := func() types.AttributeValue {
		switch r.Intn(7) {
		case 0:
			return S([]string{"x", "y"}[r.Intn(2)])
		case 1:
			return num()
		case 2:
			if r.Intn(2) == 0 {
				return SS("u", "v")
			}
			return SS("v", "u")
		case 3:
			if r.Intn(2) == 0 {
				return NS("1", "2")
			}
			return NS("2.0", "01")
		case 4:
			return M(I{"m": num(), "l": L(S("p"), num())})
		case 5:
			return BOOL(r.Intn(2) == 0)
		default:
			return L(num(), SS("u"))
		}
	}
	key := func() I { return keyOf([]string{"a", "b", "c"}[r.Intn(3)], fmt.Sprint(1+r.Intn(2))) }
	// keys returns one to three distinct keys, for a batch or a
	// transaction.
	keys := func() []I {
		var ks []I
		seen := map[string]bool{}
		for range 1 + r.Intn(3) {
			if k := key(); !seen[itemText(k)] {
				seen[itemText(k)] = true
				ks = append(ks, k)
			}
		}
		return ks
	}
	item := func(k I) I {
		it := I{"pk": k["pk"], "sk": k["sk"]}
		for _, name := range []string{"v", "w", "x"} {
			if r.Intn(3) > 0 {
				it[name] = value()
			}
		}
		return it
	}
	// update picks an update; in a transaction (txn) not "SET v = v",
	// which fails on an item without v: DynamoDB cancels the transaction
	// with a ValidationError reason, DynamoDB Local answers a
	// ValidationException (localFailsWholeTxn).
	update := func(txn bool) (string, vals) {
		n := 5
		if txn {
			n = 4
		}
		switch r.Intn(n) {
		case 0:
			return "SET v = :v", vals{":v": value()}
		case 1:
			return "REMOVE w", nil
		case 2:
			return "ADD n :n", vals{":n": N([]string{"0", "1", "0.0"}[r.Intn(3)])}
		case 3:
			return "SET x = if_not_exists(x, :v)", vals{":v": value()}
		default:
			return "SET v = v", nil
		}
	}
	for i := range 300 {
		label := fmt.Sprint("write ", i)
		switch r.Intn(7) {
		case 0, 1:
			in := putIt(item(key()))
			if r.Intn(4) == 0 {
				in.ConditionExpression = aws.String("attribute_not_exists(v)")
			}
			h.call(label, in)
		case 2, 3:
			expr, v := update(false)
			h.call(label, &dynamodb.UpdateItemInput{TableName: str("T"), Key: key(), UpdateExpression: aws.String(expr), ExpressionAttributeValues: v})
		case 4:
			h.call(label, &dynamodb.DeleteItemInput{TableName: str("T"), Key: key()})
		case 5:
			var reqs []types.WriteRequest
			for _, k := range keys() {
				if r.Intn(3) == 0 {
					reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}})
				} else {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item(k)}})
				}
			}
			h.call(label, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"T": reqs}})
		default:
			var acts []types.TransactWriteItem
			for _, k := range keys() {
				switch r.Intn(4) {
				case 0:
					acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: str("T"), Item: item(k)}})
				case 1:
					expr, v := update(true)
					acts = append(acts, types.TransactWriteItem{Update: &types.Update{TableName: str("T"), Key: k, UpdateExpression: aws.String(expr), ExpressionAttributeValues: v}})
				case 2:
					acts = append(acts, types.TransactWriteItem{Delete: &types.Delete{TableName: str("T"), Key: k}})
				default:
					// Fails when the item holds v: the transaction is
					// cancelled and writes nothing.
					acts = append(acts, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: str("T"), Key: k, ConditionExpression: aws.String("attribute_not_exists(v)")}})
				}
			}
			h.call(label, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
		}
	}
	// DynamoDB Streams keeps the order of each item's records ("the
	// stream records appear in the same sequence as the actual
	// modifications to the item",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html);
	// the order of two items' records written by one batch or transaction
	// is not defined. The records are compared item by item.
	recs := h.records(h.arn())
	byItem := map[string][]any{}
	var itemKeys []string
	for i, rec := range recs {
		if i > 0 && aws.ToString(rec.Dynamodb.SequenceNumber) <= aws.ToString(recs[i-1].Dynamodb.SequenceNumber) {
			h.t.Errorf("%s: sequence number %s after %s", h.target, *rec.Dynamodb.SequenceNumber, *recs[i-1].Dynamodb.SequenceNumber)
		}
		k := itemText(fromStreamItem(rec.Dynamodb.Keys))
		if byItem[k] == nil {
			itemKeys = append(itemKeys, k)
		}
		byItem[k] = append(byItem[k], normRecord(rec, h.n))
	}
	sort.Strings(itemKeys)
	for _, k := range itemKeys {
		h.logf("records of "+k, byItem[k])
	}
}

func init() {
	streamCases = append(streamCases, streamCase{"records/random writes", randomStreamWrites})
}
