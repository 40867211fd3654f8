package ddbmem_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	"github.com/tablekit/tablekit/internal/testenv"
)

// streamsAPI is the part of the DynamoDB Streams client the tests use:
// the SDK's client and the engine's both have it.
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

// streamTable creates table name (pk S, sk S) with a stream of view on db
// and returns the stream's ARN.
func streamTable(t testing.TB, db *ddbmem.DB, name string, view types.StreamViewType) string {
	t.Helper()
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view},
	})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.TableDescription.LatestStreamArn)
}

// readStream reads every record of a stream from TRIM_HORIZON, parent
// shards before their children, and returns them with the shards.
func readStream(t testing.TB, api streamsAPI, arn string) ([]st.Record, []st.Shard) {
	t.Helper()
	var shards []st.Shard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}
	for {
		d, err := api.DescribeStream(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d.StreamDescription.Shards...)
		if d.StreamDescription.LastEvaluatedShardId == nil {
			break
		}
		in.ExclusiveStartShardId = d.StreamDescription.LastEvaluatedShardId
	}
	done := map[string]bool{}
	known := map[string]bool{}
	for _, sh := range shards {
		known[*sh.ShardId] = true
	}
	var recs []st.Record
	for len(done) < len(shards) {
		progress := false
		for _, sh := range shards {
			id := *sh.ShardId
			if done[id] || sh.ParentShardId != nil && known[*sh.ParentShardId] && !done[*sh.ParentShardId] {
				continue
			}
			recs = append(recs, readShard(t, api, arn, id)...)
			done[id] = true
			progress = true
		}
		if !progress {
			t.Fatal("shard lineage has a cycle")
		}
	}
	return recs, shards
}

// readShard reads a shard from TRIM_HORIZON until it is drained (closed)
// or returns nothing (open).
func readShard(t testing.TB, api streamsAPI, arn, id string) []st.Record {
	t.Helper()
	it, err := api.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id), ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	var recs []st.Record
	next := it.ShardIterator
	for next != nil {
		out, err := api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, out.Records...)
		if len(out.Records) == 0 {
			break
		}
		next = out.NextShardIterator
	}
	return recs
}

// change is a record reduced to what the tests compare.
type change struct {
	Event          string
	Keys, Old, New string
	Size           int64
	TTL            bool
	View, Src, Ver string
	HasTime, HasID bool
}

func changes(recs []st.Record) []change {
	var cs []change
	for _, r := range recs {
		c := change{Event: string(r.EventName), Keys: imageText(r.Dynamodb.Keys), Old: imageText(r.Dynamodb.OldImage), New: imageText(r.Dynamodb.NewImage),
			Size: aws.ToInt64(r.Dynamodb.SizeBytes), View: string(r.Dynamodb.StreamViewType), Src: aws.ToString(r.EventSource), Ver: aws.ToString(r.EventVersion),
			HasTime: r.Dynamodb.ApproximateCreationDateTime != nil, HasID: aws.ToString(r.EventID) != ""}
		if r.UserIdentity != nil {
			c.TTL = aws.ToString(r.UserIdentity.Type) == "Service" && aws.ToString(r.UserIdentity.PrincipalId) == "dynamodb.amazonaws.com"
		}
		cs = append(cs, c)
	}
	return cs
}

// imageText renders an image's scalar attributes in name order.
func imageText(m map[string]st.AttributeValue) string {
	if m == nil {
		return ""
	}
	out := ""
	for _, k := range sortedNames(m) {
		switch v := m[k].(type) {
		case *st.AttributeValueMemberS:
			out += k + "=" + v.Value + " "
		case *st.AttributeValueMemberN:
			out += k + "=" + v.Value + " "
		default:
			out += k + "=? "
		}
	}
	return out
}

func sortedNames(m map[string]st.AttributeValue) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

func pkItem(pk, sk string, attrs ...string) map[string]av {
	it := map[string]av{"pk": s(pk), "sk": s(sk)}
	for i := 0; i+1 < len(attrs); i += 2 {
		it[attrs[i]] = n(attrs[i+1])
	}
	return it
}

// writeSequence runs the writes of TestStreamRecords: each kind of write,
// and the writes that must leave no record.
func writeSequence(t *testing.T, db *ddbmem.DB, table string) {
	t.Helper()
	tb := aws.String(table)
	steps := []struct {
		name string
		call func() error
		fail bool
	}{
		{"insert", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tb, Item: pkItem("a", "1", "x", "1")})
			return err
		}, false},
		{"same put", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tb, Item: pkItem("a", "1", "x", "1.0")})
			return err
		}, false},
		{"update", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tb, Key: key("a", "1"), UpdateExpression: aws.String("SET x = :v"), ExpressionAttributeValues: map[string]av{":v": n("2")}})
			return err
		}, false},
		{"same update", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tb, Key: key("a", "1"), UpdateExpression: aws.String("SET x = :v"), ExpressionAttributeValues: map[string]av{":v": n("2")}})
			return err
		}, false},
		{"failed condition", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: tb, Item: pkItem("a", "1", "x", "3"), ConditionExpression: aws.String("attribute_not_exists(pk)")})
			return err
		}, true},
		{"delete missing", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tb, Key: key("zz", "1")})
			return err
		}, false},
		{"delete", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tb, Key: key("a", "1")})
			return err
		}, false},
		{"update creates", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tb, Key: key("b", "1"), UpdateExpression: aws.String("REMOVE y")})
			return err
		}, false},
	}
	for _, s := range steps {
		err := s.call()
		var ccf *types.ConditionalCheckFailedException
		if s.fail && !errors.As(err, &ccf) || !s.fail && err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
}

// TestStreamRecords checks the records of each kind of write under each
// view type: one per change, none for a write that changes nothing or
// fails its condition.
func TestStreamRecords(t *testing.T) {
	for _, tc := range []struct {
		view types.StreamViewType
		want []change
	}{
		{types.StreamViewTypeNewAndOldImages, []change{
			{Event: "INSERT", Keys: "pk=a sk=1 ", New: "pk=a sk=1 x=1 ", Size: 6 + 9},
			{Event: "MODIFY", Keys: "pk=a sk=1 ", Old: "pk=a sk=1 x=1 ", New: "pk=a sk=1 x=2 ", Size: 6 + 9 + 9},
			{Event: "REMOVE", Keys: "pk=a sk=1 ", Old: "pk=a sk=1 x=2 ", Size: 6 + 9},
			{Event: "INSERT", Keys: "pk=b sk=1 ", New: "pk=b sk=1 ", Size: 6 + 6},
		}},
		{types.StreamViewTypeKeysOnly, []change{
			{Event: "INSERT", Keys: "pk=a sk=1 ", Size: 6},
			{Event: "MODIFY", Keys: "pk=a sk=1 ", Size: 6},
			{Event: "REMOVE", Keys: "pk=a sk=1 ", Size: 6},
			{Event: "INSERT", Keys: "pk=b sk=1 ", Size: 6},
		}},
		{types.StreamViewTypeNewImage, []change{
			{Event: "INSERT", Keys: "pk=a sk=1 ", New: "pk=a sk=1 x=1 ", Size: 6 + 9},
			{Event: "MODIFY", Keys: "pk=a sk=1 ", New: "pk=a sk=1 x=2 ", Size: 6 + 9},
			{Event: "REMOVE", Keys: "pk=a sk=1 ", Size: 6},
			{Event: "INSERT", Keys: "pk=b sk=1 ", New: "pk=b sk=1 ", Size: 6 + 6},
		}},
		{types.StreamViewTypeOldImage, []change{
			{Event: "INSERT", Keys: "pk=a sk=1 ", Size: 6},
			{Event: "MODIFY", Keys: "pk=a sk=1 ", Old: "pk=a sk=1 x=1 ", Size: 6 + 9},
			{Event: "REMOVE", Keys: "pk=a sk=1 ", Old: "pk=a sk=1 x=2 ", Size: 6 + 9},
			{Event: "INSERT", Keys: "pk=b sk=1 ", Size: 6},
		}},
	} {
		t.Run(string(tc.view), func(t *testing.T) {
			db := ddbmem.New()
			arn := streamTable(t, db, "tbl", tc.view)
			writeSequence(t, db, "tbl")
			recs, _ := readStream(t, db.Streams(), arn)
			for i := range tc.want {
				w := &tc.want[i]
				w.View, w.Src, w.Ver, w.HasTime, w.HasID = string(tc.view), "aws:dynamodb", "1.1", true, true
			}
			if d := cmp.Diff(tc.want, changes(recs)); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			checkSequence(t, recs)
		})
	}
}

// checkSequence checks that sequence numbers increase as strings and
// event IDs are unique.
func checkSequence(t testing.TB, recs []st.Record) {
	t.Helper()
	ids := map[string]bool{}
	for i, r := range recs {
		if ids[*r.EventID] {
			t.Errorf("record %d: event ID %s repeated", i, *r.EventID)
		}
		ids[*r.EventID] = true
		if i > 0 && *r.Dynamodb.SequenceNumber <= *recs[i-1].Dynamodb.SequenceNumber {
			t.Errorf("record %d: sequence number %s after %s", i, *r.Dynamodb.SequenceNumber, *recs[i-1].Dynamodb.SequenceNumber)
		}
	}
}

// TestStreamBatchAndTransaction checks that batches and transactions
// write one record per item they change.
func TestStreamBatchAndTransaction(t *testing.T) {
	db := ddbmem.New()
	arn := streamTable(t, db, "tbl", types.StreamViewTypeNewAndOldImages)
	put(t, db, pkItem("a", "1", "x", "1"))
	_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {
		{PutRequest: &types.PutRequest{Item: pkItem("b", "1")}},
		{PutRequest: &types.PutRequest{Item: pkItem("c", "1")}},
		{DeleteRequest: &types.DeleteRequest{Key: key("a", "1")}},
		{DeleteRequest: &types.DeleteRequest{Key: key("nope", "1")}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: pkItem("d", "1")}},
		{Update: &types.Update{TableName: aws.String("tbl"), Key: key("b", "1"), UpdateExpression: aws.String("SET x = :v"), ExpressionAttributeValues: map[string]av{":v": n("5")}}},
		{Delete: &types.Delete{TableName: aws.String("tbl"), Key: key("c", "1")}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("tbl"), Key: key("d", "9"), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// A cancelled transaction writes nothing.
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: pkItem("e", "1")}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("tbl"), Key: key("d", "1"), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("cancelled transaction: %v", err)
	}
	recs, _ := readStream(t, db.Streams(), arn)
	var got []string
	for _, c := range changes(recs) {
		got = append(got, c.Event+" "+c.Keys)
	}
	want := []string{"INSERT pk=a sk=1 ", "INSERT pk=b sk=1 ", "INSERT pk=c sk=1 ", "REMOVE pk=a sk=1 ", "INSERT pk=d sk=1 ", "MODIFY pk=b sk=1 ", "REMOVE pk=c sk=1 "}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}

// TestStreamTTL checks that TTL deletions carry the service identity.
func TestStreamTTL(t *testing.T) {
	db := ddbmem.New()
	arn := streamTable(t, db, "tbl", types.StreamViewTypeKeysOnly)
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	put(t, db, pkItem("a", "1", "exp", "100"))
	put(t, db, pkItem("b", "1", "exp", "99999999999"))
	if n := db.SweepExpired(time.Unix(1000, 0)); n != 1 {
		t.Fatalf("swept %d, want 1", n)
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: key("b", "1")}); err != nil {
		t.Fatal(err)
	}
	recs, _ := readStream(t, db.Streams(), arn)
	var got []string
	for _, c := range changes(recs) {
		got = append(got, fmt.Sprintf("%s %s ttl=%v", c.Event, c.Keys, c.TTL))
	}
	want := []string{"INSERT pk=a sk=1  ttl=false", "INSERT pk=b sk=1  ttl=false", "REMOVE pk=a sk=1  ttl=true", "REMOVE pk=b sk=1  ttl=false"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}

// TestStreamConcurrentWriters writes from many goroutines and checks
// that every write has its record, in per-item order.
func TestStreamConcurrentWriters(t *testing.T) {
	db := ddbmem.New(func(o *ddbmem.Options) { o.Stream.Shards = 4; o.Stream.ShardRecords = 500 })
	arn := streamTable(t, db, "tbl", types.StreamViewTypeNewImage)
	const writers, items, versions = 8, 25, 20
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := 1; v <= versions; v++ {
				for i := 0; i < items; i++ {
					if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: pkItem(fmt.Sprintf("w%d-%d", w, i), "1", "v", strconv.Itoa(v))}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	recs, shards := readStream(t, db.Streams(), arn)
	last := map[string]int{}
	for _, r := range recs {
		k := r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value
		v, _ := strconv.Atoi(r.Dynamodb.NewImage["v"].(*st.AttributeValueMemberN).Value)
		if v != last[k]+1 {
			t.Fatalf("item %s: version %d after %d", k, v, last[k])
		}
		last[k] = v
	}
	if len(recs) != writers*items*versions {
		t.Errorf("%d records, want %d", len(recs), writers*items*versions)
	}
	t.Logf("%d records in %d shards from %d writers", len(recs), len(shards), writers)
}

var _ = testenv.UniqueName
