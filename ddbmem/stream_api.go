package ddbmem

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Streams serves the DynamoDB Streams API of a DB in process: its
// methods have the signatures of *dynamodbstreams.Client's, so code
// written against an interface of that client runs on the engine too.
// Get one with [DB.Streams]; it is safe for concurrent use.
type Streams struct{ db *DB }

// Streams returns the engine's DynamoDB Streams API.
func (db *DB) Streams() *Streams { return &Streams{db} }

// iteratorTTL is how long a shard iterator stays valid, as in DynamoDB.
const iteratorTTL = 15 * time.Minute

// maxRecordBytes is the most GetRecords returns at once, as in DynamoDB.
const maxRecordBytes = 1 << 20

// streamNotFound and shardNotFound have DynamoDB Local's messages.
func streamNotFound() error {
	return &st.ResourceNotFoundException{Message: aws.String("Stream does not exist")}
}

func shardNotFound() error {
	return &st.ResourceNotFoundException{Message: aws.String("Shard does not exist")}
}

// ListStreams lists the streams of the DB (of TableName when set), the
// disabled ones included until their records expire, in creation order,
// paged by Limit (1 to 100, default 100) and ExclusiveStartStreamArn.
func (s *Streams) ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error) {
	if err := s.db.begin(ctx, "ListStreams"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodbstreams.ListStreamsInput{}
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if in.TableName != nil {
		if err := checkTableName(*in.TableName); err != nil {
			return nil, err
		}
	}
	all := s.db.streams.list(s.db.now())
	out := &dynamodbstreams.ListStreamsOutput{Streams: []st.Stream{}}
	started := in.ExclusiveStartStreamArn == nil
	for _, x := range all {
		if !started {
			started = x.arn == *in.ExclusiveStartStreamArn
			continue
		}
		if in.TableName != nil && x.table != *in.TableName {
			continue
		}
		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = out.Streams[limit-1].StreamArn
			break
		}
		out.Streams = append(out.Streams, st.Stream{StreamArn: aws.String(x.arn), StreamLabel: aws.String(x.label), TableName: aws.String(x.table)})
	}
	return out, nil
}

// pageLimit validates the Limit of ListStreams and DescribeStream.
func pageLimit(l *int32) (int, error) {
	if l == nil {
		return 100, nil
	}
	if *l < 1 {
		return 0, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *l)
	}
	if *l > 100 {
		return 0, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100", *l)
	}
	return int(*l), nil
}

func (s *Streams) stream(arn *string) (*stream, error) {
	if arn == nil || *arn == "" {
		return nil, validation("1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	}
	x := s.db.streams.byARN(*arn)
	if x == nil {
		return nil, streamNotFound()
	}
	return x, nil
}

// streamMissing is DescribeStream's error for an unknown stream, with
// DynamoDB Local's message.
func streamMissing(arn string) error {
	return &st.ResourceNotFoundException{Message: aws.String("Requested resource not found: Stream: " + arn + " not found")}
}

// DescribeStream describes a stream and its shards (each with its
// ParentShardId and SequenceNumberRange; EndingSequenceNumber is set once
// the shard is closed), in creation order, paged by Limit (1 to 100,
// default 100) and ExclusiveStartShardId. A ShardFilter of type
// CHILD_SHARDS lists the children of its ShardId. It returns a
// *types.ResourceNotFoundException (of package dynamodbstreams/types)
// for an unknown stream.
func (s *Streams) DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	if err := s.db.begin(ctx, "DescribeStream"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodbstreams.DescribeStreamInput{}
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	x, err := s.stream(in.StreamArn)
	if err != nil {
		if _, ok := err.(*st.ResourceNotFoundException); ok {
			err = streamMissing(*in.StreamArn)
		}
		return nil, err
	}
	var parent string
	if f := in.ShardFilter; f != nil {
		if f.Type != st.ShardFilterTypeChildShards {
			return nil, validationf("1 validation error detected: Value '%s' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]", f.Type)
		}
		if f.ShardId == nil || *f.ShardId == "" {
			return nil, validation("1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy constraint: Member must not be null")
		}
		parent = *f.ShardId
	}
	x.lockApplied()
	x.maintain(x.now().UnixNano())
	d := &st.StreamDescription{
		StreamArn: aws.String(x.arn), StreamLabel: aws.String(x.label), StreamStatus: st.StreamStatusEnabled,
		StreamViewType: st.StreamViewType(x.view), CreationRequestDateTime: aws.Time(x.created),
		TableName: aws.String(x.table), Shards: []st.Shard{},
	}
	if !x.disabledAt.IsZero() {
		d.StreamStatus = st.StreamStatusDisabled
	}
	for _, k := range x.keys {
		d.KeySchema = append(d.KeySchema, st.KeySchemaElement{AttributeName: aws.String(*k.AttributeName), KeyType: st.KeyType(k.KeyType)})
	}
	started := in.ExclusiveStartShardId == nil
	for _, sh := range x.shards {
		if !started {
			started = sh.id == *in.ExclusiveStartShardId
			continue
		}
		if parent != "" && sh.parent != parent {
			continue
		}
		if len(d.Shards) == limit {
			d.LastEvaluatedShardId = d.Shards[limit-1].ShardId
			break
		}
		r := &st.SequenceNumberRange{StartingSequenceNumber: aws.String(seqString(sh.start))}
		if sh.closed() {
			r.EndingSequenceNumber = aws.String(seqString(sh.end))
		}
		shd := st.Shard{ShardId: aws.String(sh.id), SequenceNumberRange: r}
		if sh.parent != "" {
			shd.ParentShardId = aws.String(sh.parent)
		}
		d.Shards = append(d.Shards, shd)
	}
	x.mu.Unlock()
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: d}, nil
}

// seqString formats a sequence number as DynamoDB Local does: 21 digits.
func seqString(n uint64) string { return fmt.Sprintf("%021d", n) }

// parseSeq parses a SequenceNumber parameter.
func parseSeq(s *string) (uint64, error) {
	if s == nil {
		return 0, validation("One or more parameter values were invalid: Invalid SequenceNumber")
	}
	if len(*s) < 21 {
		return 0, validationf("1 validation error detected: Value '%s' at 'sequenceNumber' failed to satisfy constraint: Member must have length greater than or equal to 21", *s)
	}
	n, err := strconv.ParseUint(strings.TrimLeft(*s, "0"), 10, 64)
	if err != nil && strings.TrimLeft(*s, "0") != "" {
		return 0, validation("One or more parameter values were invalid: Invalid SequenceNumber")
	}
	return n, nil
}

// A shard iterator is the stream ARN, a version, and the base64 of the
// shard ID, the position (the first sequence number to read; 0 for the
// oldest record held) and the time it was issued, as DynamoDB Local
// builds them.
func makeIterator(arn, shardID string, pos uint64, issued time.Time) string {
	raw := shardID + "|" + strconv.FormatUint(pos, 10) + "|" + strconv.FormatInt(issued.UnixNano(), 10)
	return arn + "|1|" + base64.RawURLEncoding.EncodeToString([]byte(raw))
}

type iterator struct {
	arn, shardID string
	pos          uint64
	issued       int64
}

var errBadIterator = validation("Invalid ShardIterator")

func parseIterator(s *string) (iterator, error) {
	var it iterator
	if s == nil {
		return it, errBadIterator
	}
	arn, rest, ok := strings.Cut(*s, "|1|")
	if !ok {
		return it, errBadIterator
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return it, errBadIterator
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 3 {
		return it, errBadIterator
	}
	it.arn, it.shardID = arn, parts[0]
	if it.pos, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return it, errBadIterator
	}
	if it.issued, err = strconv.ParseInt(parts[2], 10, 64); err != nil {
		return it, errBadIterator
	}
	return it, nil
}

// GetShardIterator returns an iterator into a shard, valid for 15
// minutes of Options.Now: TRIM_HORIZON (the oldest record held), LATEST
// (after the newest), AT_SEQUENCE_NUMBER and AFTER_SEQUENCE_NUMBER
// (SequenceNumber), AT_TIMESTAMP (the first record written at or after
// Timestamp). It returns a *types.ResourceNotFoundException (package
// dynamodbstreams/types) for an unknown stream or shard and a
// *types.TrimmedDataAccessException for a sequence number whose record
// was trimmed.
func (s *Streams) GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	if err := s.db.begin(ctx, "GetShardIterator"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodbstreams.GetShardIteratorInput{}
	}
	var seq uint64
	switch in.ShardIteratorType {
	case st.ShardIteratorTypeTrimHorizon, st.ShardIteratorTypeLatest, st.ShardIteratorTypeAtTimestamp:
		if in.SequenceNumber != nil {
			return nil, validation("One or more parameter values were invalid: SequenceNumber should not be passed for this iterator type")
		}
		if in.ShardIteratorType == st.ShardIteratorTypeAtTimestamp && in.Timestamp == nil {
			return nil, validation("One or more parameter values were invalid: Timestamp must be passed for AT_TIMESTAMP")
		}
	case st.ShardIteratorTypeAtSequenceNumber, st.ShardIteratorTypeAfterSequenceNumber:
		var err error
		if seq, err = parseSeq(in.SequenceNumber); err != nil {
			return nil, err
		}
	default:
		return nil, validation("Invalid ShardIteratorType.")
	}
	if in.ShardId == nil || *in.ShardId == "" {
		return nil, validation("1 validation error detected: Value null at 'shardId' failed to satisfy constraint: Member must not be null")
	}
	x, err := s.stream(in.StreamArn)
	if err != nil {
		return nil, err
	}
	now := x.now()
	x.lockApplied()
	defer x.mu.Unlock()
	x.maintain(now.UnixNano())
	sh := x.shard(*in.ShardId)
	if sh == nil {
		return nil, shardNotFound()
	}
	var pos uint64
	switch in.ShardIteratorType {
	case st.ShardIteratorTypeLatest:
		pos = x.next
		if sh.closed() {
			pos = sh.end + 1
		}
	case st.ShardIteratorTypeAtTimestamp:
		t := in.Timestamp.UnixNano()
		i := sh.recs.search(func(r *streamRec) bool { return r.at >= t })
		pos = x.next
		if i < sh.recs.len() {
			pos = sh.recs.at(i).seq
		} else if sh.closed() {
			pos = sh.end + 1
		}
	case st.ShardIteratorTypeAtSequenceNumber, st.ShardIteratorTypeAfterSequenceNumber:
		if seq < sh.trimmed {
			return nil, &st.TrimmedDataAccessException{Message: aws.String("Trimmed data: the sequence number " + seqString(seq) + " is past the trim horizon of shard " + sh.id)}
		}
		pos = seq
		if in.ShardIteratorType == st.ShardIteratorTypeAfterSequenceNumber {
			pos++
		}
		if pos == 0 {
			pos = 1
		}
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(makeIterator(x.arn, sh.id, pos, now))}, nil
}

// GetRecords returns the records at a shard iterator, at most Limit (1
// to 1000, default 1000) and about 1 MB, in sequence-number order, and
// NextShardIterator to read on from. NextShardIterator is nil once a
// closed shard has no more records to give. It returns a
// *types.ExpiredIteratorException (package dynamodbstreams/types) for an
// iterator issued more than 15 minutes ago on Options.Now, a
// *types.TrimmedDataAccessException when records the iterator points at
// were trimmed, and a *types.ResourceNotFoundException when the stream
// or shard is gone.
func (s *Streams) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	if err := s.db.begin(ctx, "GetRecords"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodbstreams.GetRecordsInput{}
	}
	limit := 1000
	if in.Limit != nil {
		switch {
		case *in.Limit < 1:
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
		case *in.Limit > 1000:
			return nil, validation("One or more parameter values were invalid: Limit should be less than or equal to 1000")
		}
		limit = int(*in.Limit)
	}
	it, err := parseIterator(in.ShardIterator)
	if err != nil {
		return nil, err
	}
	x := s.db.streams.byARN(it.arn)
	if x == nil {
		return nil, streamNotFound()
	}
	now := x.now()
	if now.UnixNano()-it.issued > int64(iteratorTTL) {
		return nil, &st.ExpiredIteratorException{Message: aws.String("Iterator expired. The iterator was created at time " + time.Unix(0, it.issued).UTC().Format(time.RFC1123) + " while right now it is " + now.UTC().Format(time.RFC1123) + ".")}
	}
	x.lockApplied()
	x.maintain(now.UnixNano())
	sh := x.shard(it.shardID)
	if sh == nil {
		x.mu.Unlock()
		return nil, shardNotFound()
	}
	if it.pos != 0 && it.pos < sh.trimmed {
		x.mu.Unlock()
		return nil, &st.TrimmedDataAccessException{Message: aws.String("Trimmed data: the iterator's position is past the trim horizon of shard " + sh.id)}
	}
	i := sh.recs.search(func(r *streamRec) bool { return r.seq >= it.pos })
	j := i
	size := 0
	var recs []recView
	for j < sh.recs.len() && j-i < limit && size < maxRecordBytes {
		if recs == nil {
			recs = make([]recView, 0, min(sh.recs.len()-i, limit))
		}
		recs = append(recs, x.recView(sh.recs.at(j)))
		size += x.recordSize(&recs[len(recs)-1])
		j++
	}
	pos := it.pos
	if j > i {
		pos = recs[len(recs)-1].seq + 1
	}
	done := sh.closed() && j == sh.recs.len()
	id := sh.id
	x.mu.Unlock()

	out := &dynamodbstreams.GetRecordsOutput{Records: make([]st.Record, len(recs))}
	for k := range recs {
		out.Records[k] = x.record(&recs[k])
	}
	if !done {
		out.NextShardIterator = aws.String(makeIterator(x.arn, id, pos, now))
	}
	return out, nil
}

var eventNames = [...]st.OperationType{recInsert: st.OperationTypeInsert, recModify: st.OperationTypeModify, recRemove: st.OperationTypeRemove}

// recView is a stream record with copies of its images, which it can
// read without x.mu.
type recView struct {
	seq      uint64
	at       int64
	kind     uint8
	ttl      bool
	old, new imgCopy
}

// recView returns the recView of r; the caller holds x.mu.
func (x *stream) recView(r *streamRec) recView {
	v := recView{seq: r.seq, at: r.at, kind: r.kind, ttl: r.ttl}
	if r.old.n != 0 {
		v.old = x.imgs.copyOut(r.old, x.pk, x.sk)
	}
	if r.new.n != 0 {
		v.new = x.imgs.copyOut(r.new, x.pk, x.sk)
	}
	return v
}

// images returns the image a record takes its keys from and the images
// it shows (nil for none).
func (x *stream) images(r *recView) (keys, oldImg, newImg *imgCopy) {
	keys = &r.new
	if r.new.enc == "" {
		keys = &r.old
	}
	switch x.view {
	case types.StreamViewTypeNewImage:
		newImg = &r.new
	case types.StreamViewTypeOldImage:
		oldImg = &r.old
	case types.StreamViewTypeNewAndOldImages:
		oldImg, newImg = &r.old, &r.new
	}
	return keys, oldImg, newImg
}

// recordSize is a record's SizeBytes: its keys and images.
func (x *stream) recordSize(r *recView) int {
	keys, o, n := x.images(r)
	size := keys.keysSize
	if o != nil {
		size += o.size
	}
	if n != nil {
		size += n.size
	}
	return size
}

// record builds the Record of r.
func (x *stream) record(r *recView) st.Record {
	keys, o, n := x.images(r)
	sr := &st.StreamRecord{
		ApproximateCreationDateTime: aws.Time(time.Unix(r.at/int64(time.Second), 0)),
		Keys:                        keys.streamItem(true, x.pk, x.sk),
		SequenceNumber:              aws.String(seqString(r.seq)),
		SizeBytes:                   aws.Int64(int64(x.recordSize(r))),
		StreamViewType:              st.StreamViewType(x.view),
	}
	if o != nil {
		sr.OldImage = o.streamItem(false, "", "")
	}
	if n != nil {
		sr.NewImage = n.streamItem(false, "", "")
	}
	rec := st.Record{
		AwsRegion:    aws.String(x.region),
		Dynamodb:     sr,
		EventID:      aws.String(fmt.Sprintf("%016x%016x", hashKey(x.arn), r.seq)),
		EventName:    eventNames[r.kind],
		EventSource:  aws.String("aws:dynamodb"),
		EventVersion: aws.String("1.1"),
	}
	if r.ttl {
		rec.UserIdentity = &st.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")}
	}
	return rec
}

// StreamWrites returns the number of writes to the stream streamArn so
// far (each write to its table while it is enabled, those that change
// nothing included), 0 for a stream that does not exist. With
// [Streams.NextWrite] it lets a stream reader wait for the next write
// instead of polling: read the count, call GetRecords, and when it
// returns no record wait on NextWrite of the count.
func (s *Streams) StreamWrites(streamArn string) uint64 {
	x := s.db.streams.byARN(streamArn)
	if x == nil {
		return 0
	}
	x.qmu.Lock()
	defer x.qmu.Unlock()
	return x.writes
}

// NextWrite returns a channel that is closed once the stream streamArn
// has had more than since writes (see [Streams.StreamWrites]): at once
// when it has, and nil (a channel that is never ready) for a stream that
// does not exist. Package feed waits on it, beside its poll interval,
// when its Streams client has it; DynamoDB has no such call, so a reader
// of a real stream polls.
func (s *Streams) NextWrite(streamArn string, since uint64) <-chan struct{} {
	x := s.db.streams.byARN(streamArn)
	if x == nil {
		return nil
	}
	x.qmu.Lock()
	defer x.qmu.Unlock()
	if x.writes > since {
		return closedChan
	}
	if x.wake == nil {
		x.wake = make(chan struct{})
	}
	return x.wake
}

// closedChan is a closed channel, ready at once.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()
