package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

// This file holds the DynamoDB Streams cases. A Streams case is a
// function run once per target (DynamoDB Local, the engine in process,
// the engine over HTTP through the SDK's dynamodbstreams client); it logs
// normalized results (records without sequence numbers, event IDs and
// times; errors by code and message; ARNs and labels left out), and the
// logs must be equal. DynamoDB Local has one shard per stream, as the
// engine by default; where its records or shards depart from AWS's
// documentation, the case says so and checks the engine alone.

// streamsAPI is the DynamoDB Streams client the cases call.
type streamsAPI interface {
	ListStreams(context.Context, *dynamodbstreams.ListStreamsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var (
	_ streamsAPI = (*dynamodbstreams.Client)(nil)
	_ streamsAPI = (*ddbmem.Streams)(nil)
)

type tableUpdater interface {
	UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// sh is one target of a Streams case, with the case's log.
type sh struct {
	t      *testing.T
	ctx    context.Context
	target string
	c      entity.Client
	s      streamsAPI
	n      *nameMap
	log    []any
}

const localTarget = "DynamoDB Local"

// logf appends a labelled value to the log.
func (h *sh) logf(label string, v any) { h.log = append(h.log, map[string]any{label: v}) }

// call runs a DynamoDB input (logical table names) and logs its error
// (nil on success); it returns the output.
func (h *sh) call(label string, in any) any {
	var out any
	var err error
	if u, ok := in.(*dynamodb.UpdateTableInput); ok {
		c := *u
		c.TableName = h.n.ptr(u.TableName)
		out, err = h.c.(tableUpdater).UpdateTable(h.ctx, &c)
	} else {
		out, err = call(h.ctx, h.c, h.n.rewrite(in))
	}
	h.logf(label, normErr(err, true, h.n))
	return out
}

// arn returns the LatestStreamArn of table T.
func (h *sh) arn() string {
	out, err := h.c.DescribeTable(h.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(h.n.get("T"))})
	if err != nil {
		h.t.Fatalf("%s: DescribeTable: %v", h.target, err)
	}
	return aws.ToString(out.Table.LatestStreamArn)
}

// indexActive waits (up to 30 s) until table T's global secondary index
// name is ACTIVE: DynamoDB Local answers writes with InternalFailure
// while it builds an index it has just been asked to create (seen on a
// loaded machine), and DynamoDB documents writes during a build only as
// allowed, not as when they show in the index. It logs nothing, so the
// targets' logs stay comparable.
func (h *sh) indexActive(name string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := h.c.DescribeTable(h.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(h.n.get("T"))})
		if err != nil {
			h.t.Fatalf("%s: DescribeTable: %v", h.target, err)
		}
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == name && g.IndexStatus == types.IndexStatusActive && !aws.ToBool(g.Backfilling) {
				return
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: index %s is not ACTIVE after 30 s", h.target, name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamErr logs a Streams error by code and message.
func (h *sh) streamErr(label string, err error) {
	h.logf(label, normErr(err, true, h.n))
}

// shards returns the shards of a stream.
func (h *sh) shards(arn string) []st.Shard {
	out, err := h.s.DescribeStream(h.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		h.t.Fatalf("%s: DescribeStream: %v", h.target, err)
	}
	return out.StreamDescription.Shards
}

// iterator returns a shard iterator, failing the case on error.
func (h *sh) iterator(arn, shard string, typ st.ShardIteratorType, seq *string) *string {
	out, err := h.s.GetShardIterator(h.ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: typ, SequenceNumber: seq})
	if err != nil {
		h.t.Fatalf("%s: GetShardIterator %s: %v", h.target, typ, err)
	}
	return out.ShardIterator
}

// records reads a stream from TRIM_HORIZON, parents first, and returns
// the raw records.
func (h *sh) records(arn string) []st.Record {
	shards := h.shards(arn)
	var recs []st.Record
	for _, s := range shards {
		next := h.iterator(arn, *s.ShardId, st.ShardIteratorTypeTrimHorizon, nil)
		for next != nil {
			out, err := h.s.GetRecords(h.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next})
			if err != nil {
				h.t.Fatalf("%s: GetRecords: %v", h.target, err)
			}
			recs = append(recs, out.Records...)
			if len(out.Records) == 0 {
				break
			}
			next = out.NextShardIterator
		}
	}
	return recs
}

// logRecords logs the records of the stream, normalized, and checks that
// their sequence numbers increase.
func (h *sh) logRecords(label, arn string) []st.Record {
	recs := h.records(arn)
	var out []any
	for i, r := range recs {
		out = append(out, normRecord(r, h.n))
		if i > 0 && aws.ToString(r.Dynamodb.SequenceNumber) <= aws.ToString(recs[i-1].Dynamodb.SequenceNumber) {
			h.t.Errorf("%s: %s: sequence number %s after %s", h.target, label, *r.Dynamodb.SequenceNumber, *recs[i-1].Dynamodb.SequenceNumber)
		}
	}
	h.logf(label, out)
	return recs
}

// normRecord is a record without its sequence number, event ID and time.
func normRecord(r st.Record, n *nameMap) any {
	m := map[string]any{
		"eventName": string(r.EventName), "eventSource": aws.ToString(r.EventSource), "eventVersion": aws.ToString(r.EventVersion),
		"awsRegion": aws.ToString(r.AwsRegion),
	}
	if r.UserIdentity != nil {
		m["userIdentity"] = aws.ToString(r.UserIdentity.Type) + " " + aws.ToString(r.UserIdentity.PrincipalId)
	}
	if d := r.Dynamodb; d != nil {
		m["Keys"] = plainOf(fromStreamItem(d.Keys), n)
		if d.NewImage != nil {
			m["NewImage"] = plainOf(fromStreamItem(d.NewImage), n)
		}
		if d.OldImage != nil {
			m["OldImage"] = plainOf(fromStreamItem(d.OldImage), n)
		}
		m["SizeBytes"] = aws.ToInt64(d.SizeBytes)
		m["StreamViewType"] = string(d.StreamViewType)
		m["hasTime"] = d.ApproximateCreationDateTime != nil
		m["hasSequenceNumber"] = len(aws.ToString(d.SequenceNumber)) >= 21
	}
	return m
}

func fromStreamItem(m map[string]st.AttributeValue) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = fromStream(v)
	}
	return out
}

func fromStream(v st.AttributeValue) types.AttributeValue {
	switch x := v.(type) {
	case *st.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: x.Value}
	case *st.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: x.Value}
	case *st.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: x.Value}
	case *st.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: x.Value}
	case *st.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: x.Value}
	case *st.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: x.Value}
	case *st.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: x.Value}
	case *st.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: x.Value}
	case *st.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = fromStream(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case *st.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: fromStreamItem(x.Value)}
	}
	return nil
}

// streamTbl is table T (pk, sk strings) with a stream of view ("" for
// none).
func streamTbl(view types.StreamViewType) *dynamodb.CreateTableInput {
	in := tPKSK()
	if view != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}
	}
	return in
}

func streamSpec(on bool, view types.StreamViewType) *dynamodb.UpdateTableInput {
	return &dynamodb.UpdateTableInput{TableName: str("T"), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(on), StreamViewType: view}}
}

func putIt(it I) *dynamodb.PutItemInput { return &dynamodb.PutItemInput{TableName: str("T"), Item: it} }

func keyOf(pk, sk string) I { return I{"pk": S(pk), "sk": S(sk)} }

// writeKinds is every kind of single-item write, with those that change
// nothing (a rewrite of the same item, an update to the same value, a
// failed condition, a delete of a missing item), which DynamoDB
// documents as writing no record: "If you perform a PutItem or
// UpdateItem operation that does not change any data in an item,
// DynamoDB Streams does not write a stream record for that operation."
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html)
func writeKinds(h *sh) {
	h.call("insert", putIt(I{"pk": S("a"), "sk": S("1"), "x": N("1"), "l": L(S("p"), M(I{"q": NS("1", "2")})), "b": B(1, 2), "ss": SS("u", "v"), "t": BOOL(true), "z": NULL()}))
	h.call("same put", putIt(I{"pk": S("a"), "sk": S("1"), "x": N("1.0"), "l": L(S("p"), M(I{"q": NS("2", "1")})), "b": B(1, 2), "ss": SS("v", "u"), "t": BOOL(true), "z": NULL()}))
	h.call("update", &dynamodb.UpdateItemInput{TableName: str("T"), Key: keyOf("a", "1"), UpdateExpression: str("SET x = :v REMOVE l"), ExpressionAttributeValues: vals{":v": N("25")}})
	h.call("same update", &dynamodb.UpdateItemInput{TableName: str("T"), Key: keyOf("a", "1"), UpdateExpression: str("SET x = :v"), ExpressionAttributeValues: vals{":v": N("25")}})
	h.call("failed condition", &dynamodb.PutItemInput{TableName: str("T"), Item: keyOf("a", "1"), ConditionExpression: str("attribute_not_exists(pk)")})
	h.call("delete missing", &dynamodb.DeleteItemInput{TableName: str("T"), Key: keyOf("zz", "1")})
	h.call("delete", &dynamodb.DeleteItemInput{TableName: str("T"), Key: keyOf("a", "1")})
	h.call("update creates", &dynamodb.UpdateItemInput{TableName: str("T"), Key: keyOf("b", "1"), UpdateExpression: str("REMOVE y")})
}

type streamCase struct {
	name string
	run  func(h *sh)
}

var streamCases = []streamCase{
	{"records/NEW_AND_OLD_IMAGES", func(h *sh) {
		h.call("create", streamTbl(types.StreamViewTypeNewAndOldImages))
		writeKinds(h)
		h.logRecords("records", h.arn())
	}},
	{"records/NEW_IMAGE", func(h *sh) {
		h.call("create", streamTbl(types.StreamViewTypeNewImage))
		writeKinds(h)
		h.logRecords("records", h.arn())
	}},
	{"records/OLD_IMAGE", func(h *sh) {
		h.call("create", streamTbl(types.StreamViewTypeOldImage))
		writeKinds(h)
		h.logRecords("records", h.arn())
	}},
	{"records/KEYS_ONLY", func(h *sh) {
		h.call("create", streamTbl(types.StreamViewTypeKeysOnly))
		writeKinds(h)
		h.logRecords("records", h.arn())
	}},
	{"records/batch and transactions", func(h *sh) {
		h.call("create", streamTbl(types.StreamViewTypeNewAndOldImages))
		h.call("put", putIt(I{"pk": S("a"), "sk": S("1")}))
		h.call("batch", &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"T": {
			{PutRequest: &types.PutRequest{Item: I{"pk": S("b"), "sk": S("1")}}},
			{PutRequest: &types.PutRequest{Item: I{"pk": S("a"), "sk": S("1")}}}, // unchanged
			{DeleteRequest: &types.DeleteRequest{Key: keyOf("nope", "1")}},
		}}})
		h.call("transaction", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: str("T"), Item: I{"pk": S("c"), "sk": S("1"), "v": N("1")}}},
			{Update: &types.Update{TableName: str("T"), Key: keyOf("b", "1"), UpdateExpression: str("SET v = :v"), ExpressionAttributeValues: vals{":v": N("7")}}},
			{Delete: &types.Delete{TableName: str("T"), Key: keyOf("a", "1")}},
			{ConditionCheck: &types.ConditionCheck{TableName: str("T"), Key: keyOf("d", "1"), ConditionExpression: str("attribute_not_exists(pk)")}},
		}})
		h.call("cancelled transaction", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: str("T"), Item: I{"pk": S("e"), "sk": S("1")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: str("T"), Key: keyOf("c", "1"), ConditionExpression: str("attribute_not_exists(pk)")}},
		}})
		h.logRecords("records", h.arn())
	}},
	// A global index created on a table that holds items is built from
	// them, and kept current; one index per call; then deleted. (DynamoDB
	// and DynamoDB Local answer CREATING and DELETING, then backfill; the
	// engine's index is ACTIVE, or gone, when UpdateTable returns: only
	// the errors and what the index reads are compared here. ddbmem's
	// TestUpdateTableIndexes has the rest: a second create, a write of
	// another type, concurrent writers.)
	{"table/global index created and deleted", func(h *sh) {
		h.call("create", tPKSK())
		for i := 0; i < 12; i++ {
			it := I{"pk": S(fmt.Sprint("p", i)), "sk": S("1")}
			if i%4 != 3 {
				it["g"] = S(fmt.Sprint("g", i%3))
			}
			h.call("put", putIt(it))
		}
		gDef := []types.AttributeDefinition{{AttributeName: str("g"), AttributeType: types.ScalarAttributeTypeS}}
		create := func(name string, defs []types.AttributeDefinition) *dynamodb.UpdateTableInput {
			return &dynamodb.UpdateTableInput{TableName: str("T"), AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
				Create: &types.CreateGlobalSecondaryIndexAction{IndexName: str(name), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
					KeySchema: []types.KeySchemaElement{{AttributeName: str("g"), KeyType: types.KeyTypeHash}, {AttributeName: str("pk"), KeyType: types.KeyTypeRange}}}}}}
		}
		h.call("create without definitions", create("byG", nil))
		two := create("byG", gDef)
		two.GlobalSecondaryIndexUpdates = append(two.GlobalSecondaryIndexUpdates, create("byH", gDef).GlobalSecondaryIndexUpdates...)
		h.call("create two", two)
		h.call("redefine a key attribute", create("byG", []types.AttributeDefinition{{AttributeName: str("pk"), AttributeType: types.ScalarAttributeTypeN}}))
		h.call("delete a missing index", &dynamodb.UpdateTableInput{TableName: str("T"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str("nope")}}}})
		h.call("create the index", create("byG", gDef))
		h.indexActive("byG")
		h.call("put after", putIt(I{"pk": S("q"), "sk": S("1"), "g": S("g1")}))
		for g := 0; g < 3; g++ {
			out := h.call("query", &dynamodb.QueryInput{TableName: str("T"), IndexName: str("byG"), KeyConditionExpression: str("g = :g"),
				ExpressionAttributeValues: vals{":g": S(fmt.Sprint("g", g))}})
			if q, ok := out.(*dynamodb.QueryOutput); ok {
				h.logf("items", js(q.Items))
			}
		}
		h.call("delete the index", &dynamodb.UpdateTableInput{TableName: str("T"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str("byG")}}}})
	}},
	{"table/stream specification", func(h *sh) {
		h.call("create without a view type", &dynamodb.CreateTableInput{TableName: str("T"), BillingMode: types.BillingModePayPerRequest,
			KeySchema: tPKSK().KeySchema, AttributeDefinitions: tPKSK().AttributeDefinitions, StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true)}})
		h.call("create with a bad view type", streamTblSpec(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: "BAD"}))
		h.call("create disabled with a view type", streamTblSpec(&types.StreamSpecification{StreamEnabled: aws.Bool(false), StreamViewType: types.StreamViewTypeKeysOnly}))
		out := h.call("create disabled", streamTblSpec(&types.StreamSpecification{StreamEnabled: aws.Bool(false)}))
		h.logf("created", streamFields(out.(*dynamodb.CreateTableOutput).TableDescription))
		h.call("disable none", streamSpec(false, ""))
		h.call("nothing to update", &dynamodb.UpdateTableInput{TableName: str("T")})
		u := h.call("enable", streamSpec(true, types.StreamViewTypeKeysOnly))
		h.logf("enabled", streamFields(u.(*dynamodb.UpdateTableOutput).TableDescription))
		first := h.arn()
		h.call("enable again", streamSpec(true, types.StreamViewTypeNewImage))
		h.call("disable with a view type", streamSpec(false, types.StreamViewTypeKeysOnly))
		h.call("put", putIt(I{"pk": S("a"), "sk": S("1")}))
		u = h.call("disable", streamSpec(false, ""))
		h.logf("disabled", streamFields(u.(*dynamodb.UpdateTableOutput).TableDescription))
		h.logf("same latest stream", h.arn() == first)
		h.call("put while disabled", putIt(I{"pk": S("b"), "sk": S("1")}))
		time.Sleep(2 * time.Millisecond) // a new label
		h.call("enable a new stream", streamSpec(true, types.StreamViewTypeNewImage))
		second := h.arn()
		h.logf("new stream", second != first && second != "")
		h.call("put on the new stream", putIt(I{"pk": S("c"), "sk": S("1")}))
		d, err := h.c.DescribeTable(h.ctx, &dynamodb.DescribeTableInput{TableName: str(h.n.get("T"))})
		if err != nil {
			h.t.Fatal(err)
		}
		h.logf("described", streamFields(d.Table))
		ls, err := h.s.ListStreams(h.ctx, &dynamodbstreams.ListStreamsInput{TableName: str(h.n.get("T"))})
		h.streamErr("ListStreams", err)
		if err != nil {
			return
		}
		var arns []bool
		for _, s := range ls.Streams {
			arns = append(arns, aws.ToString(s.StreamArn) == first || aws.ToString(s.StreamArn) == second)
		}
		h.logf("listed", len(arns))
		for _, arn := range []string{first, second} {
			d, err := h.s.DescribeStream(h.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
			h.streamErr("DescribeStream", err)
			if err != nil {
				continue
			}
			sd := d.StreamDescription
			var closed []bool
			for _, s := range sd.Shards {
				closed = append(closed, s.SequenceNumberRange.EndingSequenceNumber != nil)
			}
			h.logf("stream", map[string]any{"status": string(sd.StreamStatus), "view": string(sd.StreamViewType), "table": h.n.logical(aws.ToString(sd.TableName)),
				"keys": plainOf(sd.KeySchema, h.n), "closed shards": closed, "label in ARN": strings.HasSuffix(arn, "/stream/"+aws.ToString(sd.StreamLabel))})
			h.logRecords("records", arn)
		}
	}},
	{"iterators", func(h *sh) {
		h.call("create", streamTbl(types.StreamViewTypeKeysOnly))
		for _, k := range []string{"a", "b", "c", "d"} {
			h.call("put", putIt(I{"pk": S(k), "sk": S("1")}))
		}
		arn := h.arn()
		shards := h.shards(arn)
		h.logf("shards", len(shards))
		shard := *shards[0].ShardId
		h.logf("starting sequence number", len(aws.ToString(shards[0].SequenceNumberRange.StartingSequenceNumber)) >= 21)
		keys := func(label string, it *string, limit int32) (*string, []st.Record) {
			out, err := h.s.GetRecords(h.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(limit)})
			h.streamErr(label, err)
			if err != nil {
				return nil, nil
			}
			var ks []string
			for _, r := range out.Records {
				ks = append(ks, r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value)
			}
			h.logf(label, map[string]any{"keys": ks, "next": out.NextShardIterator != nil})
			return out.NextShardIterator, out.Records
		}
		next, recs := keys("TRIM_HORIZON, Limit 2", h.iterator(arn, shard, st.ShardIteratorTypeTrimHorizon, nil), 2)
		keys("next page", next, 100)
		second := recs[1].Dynamodb.SequenceNumber
		keys("AT_SEQUENCE_NUMBER", h.iterator(arn, shard, st.ShardIteratorTypeAtSequenceNumber, second), 1)
		keys("AFTER_SEQUENCE_NUMBER", h.iterator(arn, shard, st.ShardIteratorTypeAfterSequenceNumber, second), 1)
		latest := h.iterator(arn, shard, st.ShardIteratorTypeLatest, nil)
		keys("LATEST", latest, 10)
		h.call("put after LATEST", putIt(I{"pk": S("e"), "sk": S("1")}))
		keys("LATEST after a put", latest, 10)
		for _, bad := range []struct {
			label string
			in    *dynamodbstreams.GetShardIteratorInput
		}{
			{"no sequence number", &dynamodbstreams.GetShardIteratorInput{ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber}},
			{"short sequence number", &dynamodbstreams.GetShardIteratorInput{ShardIteratorType: st.ShardIteratorTypeAfterSequenceNumber, SequenceNumber: str("12")}},
			{"sequence number for TRIM_HORIZON", &dynamodbstreams.GetShardIteratorInput{ShardIteratorType: st.ShardIteratorTypeTrimHorizon, SequenceNumber: second}},
			{"unknown type", &dynamodbstreams.GetShardIteratorInput{ShardIteratorType: "BOGUS"}},
			{"unknown shard", &dynamodbstreams.GetShardIteratorInput{ShardIteratorType: st.ShardIteratorTypeLatest, ShardId: str("shardId-00000001795701968761-00000000")}},
			{"unknown stream", &dynamodbstreams.GetShardIteratorInput{ShardIteratorType: st.ShardIteratorTypeLatest, StreamArn: str(arn + "x")}},
		} {
			in := *bad.in
			if in.StreamArn == nil {
				in.StreamArn = aws.String(arn)
			}
			if in.ShardId == nil {
				in.ShardId = aws.String(shard)
			}
			_, err := h.s.GetShardIterator(h.ctx, &in)
			h.streamErr(bad.label, err)
		}
		keys("garbage iterator", str("garbage"), 1)
		keys("Limit 0", latest, 0)
		keys("Limit 1001", latest, 1001)
		_, err := h.s.DescribeStream(h.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: str(arn + "x")})
		e := normErr(err, true, h.n)
		e.Message = strings.ReplaceAll(e.Message, arn, "ARN")
		h.logf("DescribeStream of an unknown stream", e)
		_, err = h.s.DescribeStream(h.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: str(arn), Limit: aws.Int32(0)})
		h.streamErr("DescribeStream Limit 0", err)
		// A closed shard read to its end gives no NextShardIterator.
		h.call("disable", streamSpec(false, ""))
		next, _ = keys("closed shard, Limit 4", h.iterator(arn, shard, st.ShardIteratorTypeTrimHorizon, nil), 4)
		keys("closed shard, the rest", next, 100)
		keys("closed shard at LATEST", h.iterator(arn, shard, st.ShardIteratorTypeLatest, nil), 100)
	}},
}

// localStreams is a Streams client for DynamoDB Local with the region
// and credentials of the DynamoDB client (entity.LocalClient): Local
// keeps one database per access key and region.
func localStreams(endpoint string) *dynamodbstreams.Client {
	return ddbmem.NewStreamsEndpointClient(endpoint, func(o *dynamodbstreams.Options) {
		o.Region = entity.LocalRegion
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		})
	})
}

func streamTblSpec(spec *types.StreamSpecification) *dynamodb.CreateTableInput {
	in := tPKSK()
	in.StreamSpecification = spec
	return in
}

// streamFields are the stream fields of a table description.
func streamFields(d *types.TableDescription) any {
	if d == nil {
		return nil
	}
	m := map[string]any{"hasLatestStreamArn": d.LatestStreamArn != nil, "hasLatestStreamLabel": d.LatestStreamLabel != nil}
	if d.StreamSpecification != nil {
		m["StreamSpecification"] = fmt.Sprintf("%v %s", aws.ToBool(d.StreamSpecification.StreamEnabled), d.StreamSpecification.StreamViewType)
	}
	if d.LatestStreamArn != nil && d.LatestStreamLabel != nil {
		m["label in ARN"] = strings.HasSuffix(*d.LatestStreamArn, "/stream/"+*d.LatestStreamLabel)
	}
	return m
}

// TestStreamConformance runs every Streams case on DynamoDB Local, the
// engine in process and the engine over HTTP, and compares their logs.
func TestStreamConformance(t *testing.T) {
	lc := local(t)
	ep := testenv.DynamoEndpoint(t)
	ls := localStreams(ep)
	var wg sync.WaitGroup
	for _, c := range streamCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer acquireSlot()()
			t.Run(c.name, func(t *testing.T) {
				// A Streams case makes 30 to 60 calls to DynamoDB Local,
				// which a loaded machine can slow to a second each.
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				n := newNameMap()
				db := ddbmem.New()
				srv, err := ddbmem.Serve(ddbmem.New(), "")
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				targets := []*sh{
					{t: t, ctx: ctx, target: localTarget, c: lc, s: ls, n: n},
					{t: t, ctx: ctx, target: "engine", c: db, s: db.Streams(), n: n},
					{t: t, ctx: ctx, target: "engine over HTTP", c: ddbmem.NewEndpointClient(srv.URL()), s: ddbmem.NewStreamsEndpointClient(srv.URL()), n: n},
				}
				defer func() {
					_, _ = lc.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(n.get("T"))})
				}()
				for _, h := range targets {
					c.run(h)
				}
				for _, h := range targets[1:] {
					if d := cmp.Diff(targets[0].log, h.log, ignoreDetail); d != "" {
						t.Errorf("%s differs from DynamoDB Local (-Local +%s):\n%s", h.target, h.target, d)
					}
				}
				if t.Failed() || testing.Verbose() {
					t.Logf("DynamoDB Local: %s", js(targets[0].log))
				}
			})
		}()
	}
	wg.Wait()
}

// TestStreamDocumented holds the engine to what AWS documents where
// DynamoDB Local departs from it.
func TestStreamDocumented(t *testing.T) {
	lc := local(t)
	ls := localStreams(testenv.DynamoEndpoint(t))
	ctx := context.Background()
	db := ddbmem.New()
	n := newNameMap()
	defer func() { _, _ = lc.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(n.get("T"))}) }()
	// "ApproximateCreationDateTime: The approximate date and time when the
	// stream record was created, in UNIX epoch time format and rounded
	// down to the closest second."
	// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html)
	// DynamoDB Local rounds down to the minute.
	for _, h := range []*sh{
		{t: t, ctx: ctx, target: localTarget, c: lc, s: ls, n: n},
		{t: t, ctx: ctx, target: "engine", c: db, s: db.Streams(), n: n},
	} {
		h.call("create", streamTbl(types.StreamViewTypeKeysOnly))
		before := time.Now().Truncate(time.Second)
		h.call("put", putIt(I{"pk": S("a"), "sk": S("1")}))
		after := time.Now()
		recs := h.records(h.arn())
		if len(recs) != 1 {
			t.Fatalf("%s: %d records, want 1", h.target, len(recs))
		}
		at := *recs[0].Dynamodb.ApproximateCreationDateTime
		if h.target == localTarget {
			t.Logf("DynamoDB Local: ApproximateCreationDateTime %v for a write between %v and %v", at, before, after)
			continue
		}
		if at.Before(before) || at.After(after) || !at.Equal(at.Truncate(time.Second)) {
			t.Errorf("engine: ApproximateCreationDateTime %v, want the write's time (between %v and %v) rounded down to the second", at, before, after)
		}
	}
}
