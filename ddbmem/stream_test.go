package ddbmem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/ddbmem"
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
	// A reader tails the stream while the writers run (for -race).
	stop := make(chan struct{})
	tailed := make(chan int)
	go func() {
		n := 0
		defer func() { tailed <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			d, err := db.Streams().DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
			if err != nil {
				t.Error(err)
				return
			}
			for _, sh := range d.StreamDescription.Shards {
				it, err := db.Streams().GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
				if err != nil {
					t.Error(err)
					return
				}
				out, err := db.Streams().GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(100)})
				if err != nil {
					t.Error(err)
					return
				}
				n += len(out.Records)
			}
		}
	}()
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
	close(stop)
	t.Logf("the tailing reader read %d records while the writers ran", <-tailed)
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

// clock is a settable engine clock.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) Now() time.Time                { return time.Unix(0, c.ns.Load()) }
func (c *clock) Advance(d time.Duration)       { c.ns.Add(int64(d)) }
func withClock(c *clock) func(*ddbmem.Options) { return func(o *ddbmem.Options) { o.Now = c.Now } }

// served serves db and returns its DynamoDB and Streams clients.
func served(t *testing.T, db *ddbmem.DB) (*dynamodb.Client, *dynamodbstreams.Client) {
	t.Helper()
	srv, err := ddbmem.Serve(db, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Client(), srv.StreamsClient()
}

// TestStreamOverHTTP checks that the SDK's Streams client on the
// endpoint reads exactly what the engine returns in process, and that
// StreamSpecification goes through the endpoint's CreateTable,
// UpdateTable and DescribeTable.
func TestStreamOverHTTP(t *testing.T) {
	db := ddbmem.New()
	ddb, sc := served(t, db)
	out, err := ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tbl"),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	if arn == "" || out.TableDescription.StreamSpecification == nil || out.TableDescription.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Fatalf("CreateTable over HTTP: stream %q, spec %+v", arn, out.TableDescription.StreamSpecification)
	}
	writeSequence(t, db, "tbl")
	local, localShards := readStream(t, db.Streams(), arn)
	remote, remoteShards := readStream(t, sc, arn)
	if a, b := jsonOf(t, local), jsonOf(t, remote); a != b {
		t.Errorf("records differ:\nin process: %s\nover HTTP:  %s", a, b)
	}
	if a, b := jsonOf(t, localShards), jsonOf(t, remoteShards); a != b {
		t.Errorf("shards differ:\nin process: %s\nover HTTP:  %s", a, b)
	}
	if len(remote) != 4 {
		t.Errorf("%d records over HTTP, want 4", len(remote))
	}
	u, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if u.TableDescription.StreamSpecification != nil || aws.ToString(u.TableDescription.LatestStreamArn) != arn {
		t.Errorf("UpdateTable over HTTP: spec %+v, latest %s", u.TableDescription.StreamSpecification, aws.ToString(u.TableDescription.LatestStreamArn))
	}
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if d.StreamDescription.StreamStatus != st.StreamStatusDisabled {
		t.Errorf("status %s, want DISABLED", d.StreamDescription.StreamStatus)
	}
	// Errors come back as the SDK's types.
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("garbage")})
	if !isValidation(err) {
		t.Errorf("bad iterator over HTTP: %v", err)
	}
	var rnf *st.ResourceNotFoundException
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "x")})
	if !errors.As(err, &rnf) {
		t.Errorf("unknown stream over HTTP: %v", err)
	}
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStreamIterators checks each iterator type, Limit paging, expiry
// and trimming, in process and over HTTP.
func TestStreamIterators(t *testing.T) {
	clk := newClock()
	db := ddbmem.New(withClock(clk), func(o *ddbmem.Options) { o.Stream.MaxRecords = 20 })
	arn := streamTable(t, db, "tbl", types.StreamViewTypeKeysOnly)
	_, sc := served(t, db)
	for i := 1; i <= 5; i++ {
		put(t, db, pkItem(fmt.Sprint(i), "1"))
	}
	for _, api := range []struct {
		name string
		api  streamsAPI
	}{{"in process", db.Streams()}, {"over HTTP", sc}} {
		t.Run(api.name, func(t *testing.T) {
			a := api.api
			d, err := a.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
			if err != nil {
				t.Fatal(err)
			}
			shard := d.StreamDescription.Shards[0].ShardId
			iter := func(typ st.ShardIteratorType, seq *string) (*string, error) {
				out, err := a.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard, ShardIteratorType: typ, SequenceNumber: seq})
				if err != nil {
					return nil, err
				}
				return out.ShardIterator, nil
			}
			keysAt := func(it *string, limit int32) ([]string, *string) {
				t.Helper()
				out, err := a.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(limit)})
				if err != nil {
					t.Fatal(err)
				}
				var ks []string
				for _, r := range out.Records {
					ks = append(ks, r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value)
				}
				return ks, out.NextShardIterator
			}
			th, err := iter(st.ShardIteratorTypeTrimHorizon, nil)
			if err != nil {
				t.Fatal(err)
			}
			ks, next := keysAt(th, 2)
			if d := cmp.Diff([]string{"1", "2"}, ks); d != "" {
				t.Errorf("TRIM_HORIZON, Limit 2 (-want +got):\n%s", d)
			}
			ks, next = keysAt(next, 1000)
			if d := cmp.Diff([]string{"3", "4", "5"}, ks); d != "" {
				t.Errorf("next page (-want +got):\n%s", d)
			}
			if next == nil {
				t.Fatal("an open shard must give a NextShardIterator")
			}
			out, _ := a.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: th, Limit: aws.Int32(3)})
			third := out.Records[2].Dynamodb.SequenceNumber
			at, err := iter(st.ShardIteratorTypeAtSequenceNumber, third)
			if err != nil {
				t.Fatal(err)
			}
			if ks, _ := keysAt(at, 1); cmp.Diff([]string{"3"}, ks) != "" {
				t.Errorf("AT_SEQUENCE_NUMBER: %v", ks)
			}
			after, err := iter(st.ShardIteratorTypeAfterSequenceNumber, third)
			if err != nil {
				t.Fatal(err)
			}
			if ks, _ := keysAt(after, 1); cmp.Diff([]string{"4"}, ks) != "" {
				t.Errorf("AFTER_SEQUENCE_NUMBER: %v", ks)
			}
			latest, err := iter(st.ShardIteratorTypeLatest, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ks, _ := keysAt(latest, 10); len(ks) != 0 {
				t.Errorf("LATEST: %v", ks)
			}
			for _, bad := range []struct {
				name string
				call func() error
			}{
				{"AT without a sequence number", func() error { _, err := iter(st.ShardIteratorTypeAtSequenceNumber, nil); return err }},
				{"TRIM_HORIZON with a sequence number", func() error { _, err := iter(st.ShardIteratorTypeTrimHorizon, third); return err }},
				{"short sequence number", func() error { _, err := iter(st.ShardIteratorTypeAtSequenceNumber, aws.String("12")); return err }},
				{"unknown type", func() error { _, err := iter("BOGUS", nil); return err }},
				{"garbage iterator", func() error {
					_, err := a.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("x|1|!!")})
					return err
				}},
				{"Limit 0", func() error {
					_, err := a.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: th, Limit: aws.Int32(0)})
					return err
				}},
				{"Limit 1001", func() error {
					_, err := a.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: th, Limit: aws.Int32(1001)})
					return err
				}},
			} {
				if err := bad.call(); !isValidation(err) {
					t.Errorf("%s: %v, want a ValidationException", bad.name, err)
				}
			}
			var rnf *st.ResourceNotFoundException
			_, err = a.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String("shardId-nope"), ShardIteratorType: st.ShardIteratorTypeLatest})
			if !errors.As(err, &rnf) {
				t.Errorf("unknown shard: %v", err)
			}
		})
	}

	// An iterator expires after 15 minutes.
	streams := db.Streams()
	d, _ := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	shard := d.StreamDescription.Shards[0].ShardId
	it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	first, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(15*time.Minute + time.Second)
	var expired *st.ExpiredIteratorException
	if _, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: first.NextShardIterator}); !errors.As(err, &expired) {
		t.Errorf("iterator after 15 minutes: %v, want ExpiredIteratorException", err)
	}
	if _, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: first.NextShardIterator}); !errors.As(err, &expired) {
		t.Errorf("iterator after 15 minutes over HTTP: %v, want ExpiredIteratorException", err)
	}

	// Beyond MaxRecords (20, trimmed in steps of an eighth) the oldest
	// records are trimmed: a position among them is trimmed data.
	it, _ = streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: first.Records[0].Dynamodb.SequenceNumber})
	for i := 0; i < 30; i++ {
		put(t, db, pkItem(fmt.Sprint("more", i), "1"))
	}
	var trimmed *st.TrimmedDataAccessException
	if _, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator}); !errors.As(err, &trimmed) {
		t.Errorf("GetRecords at a trimmed record: %v, want TrimmedDataAccessException", err)
	}
	if _, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: first.Records[0].Dynamodb.SequenceNumber}); !errors.As(err, &trimmed) {
		t.Errorf("GetShardIterator at a trimmed record over HTTP: %v, want TrimmedDataAccessException", err)
	}
	recs, _ := readStream(t, streams, arn)
	if len(recs) > 20+20/8 || len(recs) < 20 {
		t.Errorf("%d records held, want about MaxRecords (20)", len(recs))
	}

	// After 24 hours every record is trimmed.
	clk.Advance(24*time.Hour + time.Second)
	if recs, _ := readStream(t, streams, arn); len(recs) != 0 {
		t.Errorf("%d records after 24 hours, want 0", len(recs))
	}
}

// TestStreamRollover checks forced and automatic rollover and splits:
// every record is read once, parents before children, each closed shard
// ends with no NextShardIterator, and per-item order holds.
func TestStreamRollover(t *testing.T) {
	clk := newClock()
	db := ddbmem.New(withClock(clk), func(o *ddbmem.Options) { o.Stream.ShardRecords = 7 })
	arn := streamTable(t, db, "tbl", types.StreamViewTypeNewImage)
	v := 0
	write := func(n int) {
		for i := 0; i < n; i++ {
			v++
			put(t, db, pkItem(fmt.Sprint("item", v%5), "1", "v", strconv.Itoa(v)))
		}
	}
	write(10) // one automatic rollover at 7 records
	if err := db.RolloverStream("tbl", false); err != nil {
		t.Fatal(err)
	}
	write(3)
	if err := db.RolloverStream("tbl", true); err != nil {
		t.Fatal(err)
	}
	write(5)
	clk.Advance(4 * time.Hour) // shards age out
	write(2)
	recs, shards := readStream(t, db.Streams(), arn)
	if len(recs) != v {
		t.Errorf("%d records, want %d", len(recs), v)
	}
	last := map[string]int{}
	for _, r := range recs {
		k := r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value
		n, _ := strconv.Atoi(r.Dynamodb.NewImage["v"].(*st.AttributeValueMemberN).Value)
		if n <= last[k] {
			t.Errorf("item %s: version %d after %d", k, n, last[k])
		}
		last[k] = n
	}
	ids := map[string]bool{}
	open := 0
	for _, sh := range shards {
		ids[*sh.ShardId] = true
		if sh.ParentShardId != nil && !ids[*sh.ParentShardId] {
			t.Errorf("shard %s listed before its parent %s", *sh.ShardId, *sh.ParentShardId)
		}
		if sh.SequenceNumberRange.EndingSequenceNumber == nil {
			open++
			continue
		}
		// A drained closed shard gives no NextShardIterator.
		it, err := db.Streams().GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeLatest})
		if err != nil {
			t.Fatal(err)
		}
		out, err := db.Streams().GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		if out.NextShardIterator != nil || len(out.Records) != 0 {
			t.Errorf("closed shard %s at LATEST: %d records, next %v", *sh.ShardId, len(out.Records), out.NextShardIterator)
		}
	}
	// 1 shard, rolled at 7 records, forced, split in two, both aged out.
	if len(shards) != 7 || open != 2 {
		t.Errorf("%d shards (%d open), want 7 (2 open)", len(shards), open)
	}
	children, err := db.Streams().DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &st.ShardFilter{Type: st.ShardFilterTypeChildShards, ShardId: shards[2].ShardId}})
	if err != nil {
		t.Fatal(err)
	}
	if len(children.StreamDescription.Shards) != 2 {
		t.Errorf("CHILD_SHARDS of the split shard: %d shards, want 2", len(children.StreamDescription.Shards))
	}
	t.Logf("%d records in %d shards", len(recs), len(shards))
	if err := db.RolloverStream("nope", false); !errors.As(err, new(*types.ResourceNotFoundException)) {
		t.Errorf("RolloverStream of an unknown table: %v", err)
	}
}

// TestStreamEnableDisable checks StreamSpecification on UpdateTable:
// the errors, a new stream when re-enabled, and disabled streams staying
// readable.
func TestStreamEnableDisable(t *testing.T) {
	clk := newClock()
	db := ddbmem.New(withClock(clk))
	first := streamTable(t, db, "tbl", types.StreamViewTypeKeysOnly)
	put(t, db, pkItem("a", "1"))
	spec := func(on bool, view types.StreamViewType) *dynamodb.UpdateTableInput {
		return &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(on), StreamViewType: view}}
	}
	for _, bad := range []struct {
		name string
		in   *dynamodb.UpdateTableInput
	}{
		{"enable again", spec(true, types.StreamViewTypeNewImage)},
		{"disable with a view type", spec(false, types.StreamViewTypeKeysOnly)},
		{"enable without a view type", spec(true, "")},
		{"unknown view type", spec(true, "BAD")},
		{"nothing", &dynamodb.UpdateTableInput{TableName: aws.String("tbl")}},
	} {
		if _, err := db.UpdateTable(ctx, bad.in); !isValidation(err) {
			t.Errorf("%s: %v, want a ValidationException", bad.name, err)
		}
	}
	if _, err := db.UpdateTable(ctx, spec(false, "")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTable(ctx, spec(false, "")); !isValidation(err) {
		t.Errorf("disable twice: %v", err)
	}
	put(t, db, pkItem("b", "1")) // no stream: no record anywhere
	out, err := db.UpdateTable(ctx, spec(true, types.StreamViewTypeNewImage))
	if err != nil {
		t.Fatal(err)
	}
	second := aws.ToString(out.TableDescription.LatestStreamArn)
	if second == first || second == "" {
		t.Fatalf("re-enabled stream ARN %q, first %q", second, first)
	}
	put(t, db, pkItem("c", "1"))
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if tbl := desc.Table; aws.ToString(tbl.LatestStreamArn) != second || tbl.StreamSpecification == nil || tbl.StreamSpecification.StreamViewType != types.StreamViewTypeNewImage || aws.ToString(tbl.LatestStreamLabel) == "" {
		t.Errorf("DescribeTable: latest %s label %s spec %+v", aws.ToString(tbl.LatestStreamArn), aws.ToString(tbl.LatestStreamLabel), tbl.StreamSpecification)
	}
	streams := db.Streams()
	ls, err := streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Streams) != 2 {
		t.Fatalf("ListStreams: %d streams, want 2", len(ls.Streams))
	}
	page, _ := streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(1)})
	if len(page.Streams) != 1 || page.LastEvaluatedStreamArn == nil {
		t.Errorf("ListStreams Limit 1: %d streams, last %v", len(page.Streams), page.LastEvaluatedStreamArn)
	}
	for _, c := range []struct {
		arn    string
		status st.StreamStatus
		keys   []string
	}{{first, st.StreamStatusDisabled, []string{"a"}}, {second, st.StreamStatusEnabled, []string{"c"}}} {
		d, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(c.arn)})
		if err != nil {
			t.Fatal(err)
		}
		if d.StreamDescription.StreamStatus != c.status {
			t.Errorf("%s: status %s, want %s", c.arn, d.StreamDescription.StreamStatus, c.status)
		}
		recs, _ := readStream(t, streams, c.arn)
		var keys []string
		for _, r := range recs {
			keys = append(keys, r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value)
		}
		if d := cmp.Diff(c.keys, keys); d != "" {
			t.Errorf("%s: records (-want +got):\n%s", c.arn, d)
		}
	}
	// Deleting the table disables its stream, which stays readable for
	// 24 hours, then disappears.
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := readStream(t, streams, second); len(recs) != 1 {
		t.Errorf("stream of a deleted table: %d records, want 1", len(recs))
	}
	clk.Advance(25 * time.Hour)
	if ls, _ := streams.ListStreams(ctx, nil); len(ls.Streams) != 0 {
		t.Errorf("ListStreams 25 hours later: %d streams, want 0", len(ls.Streams))
	}
	var rnf *st.ResourceNotFoundException
	if _, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(second)}); !errors.As(err, &rnf) {
		t.Errorf("DescribeStream 25 hours later: %v", err)
	}
}

// TestStreamNextWrite: StreamWrites counts a stream's writes, and
// NextWrite's channel is ready at once for a count already passed, and
// otherwise once the next write comes (a write that changes nothing
// included); an unknown stream has neither.
func TestStreamNextWrite(t *testing.T) {
	db := ddbmem.New()
	arn := streamTable(t, db, "tbl", types.StreamViewTypeNewImage)
	s := db.Streams()
	if n := s.StreamWrites(arn); n != 0 {
		t.Fatalf("%d writes before any", n)
	}
	put := func(v string) {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: pkItem("a", "1", "v", v)}); err != nil {
			t.Fatal(err)
		}
	}
	ready := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	next := s.NextWrite(arn, 0)
	if ready(next) {
		t.Fatal("NextWrite ready before a write")
	}
	put("1")
	if !ready(next) {
		t.Fatal("NextWrite not ready after a write")
	}
	put("1") // changes nothing, still a write
	if n := s.StreamWrites(arn); n != 2 {
		t.Fatalf("%d writes, want 2", n)
	}
	if !ready(s.NextWrite(arn, 1)) || ready(s.NextWrite(arn, 2)) {
		t.Fatal("NextWrite of a passed count not ready, or of the current one ready")
	}
	waited := make(chan struct{})
	go func() {
		<-s.NextWrite(arn, 2)
		close(waited)
	}()
	time.Sleep(10 * time.Millisecond)
	put("2")
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter was not woken by the write")
	}
	if s.StreamWrites("arn:none") != 0 || s.NextWrite("arn:none", 0) != nil {
		t.Fatal("an unknown stream has writes or a channel")
	}
}
