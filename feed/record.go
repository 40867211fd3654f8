package feed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/tablekit/tablekit/entity"
)

// Streams is the narrow slice of the DynamoDB Streams API a [Consumer]
// uses. [*dynamodbstreams.Client] satisfies it (DynamoDB, DynamoDB
// Local), and so does the embedded engine's streams client.
type Streams interface {
	ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ Streams = (*dynamodbstreams.Client)(nil)

// Event is the kind of modification a record reports.
type Event string

// The three events of a DynamoDB stream.
const (
	Insert Event = "INSERT"
	Modify Event = "MODIFY"
	Remove Event = "REMOVE"
)

// Record is one stream record, its attribute values converted to the
// dynamodb package's types (those entity codecs decode).
type Record struct {
	// Shard is the ID of the shard the record came from.
	Shard string
	// EventID identifies the record (the same on every delivery).
	EventID string
	// Event is INSERT, MODIFY or REMOVE.
	Event Event
	// SequenceNumber orders the records of a shard (and of an item).
	SequenceNumber string
	// CreatedAt is the record's ApproximateCreationDateTime.
	CreatedAt time.Time
	// SizeBytes is the record's size as the stream reports it.
	SizeBytes int64
	// Keys, Old and New are the item's key attributes and its images
	// before and after the change; an image is nil when the stream's view
	// type does not carry it or the event has none (no Old on INSERT, no
	// New on REMOVE).
	Keys, Old, New map[string]types.AttributeValue
	// TTL reports a deletion made by DynamoDB's time to live (the record's
	// userIdentity is the dynamodb.amazonaws.com service).
	TTL bool
	// Type is the value of the table's Type attribute in the newest image
	// the record carries; "" when neither image has one.
	Type string
	// Change is the record decoded by the [Decoder] registered for Type:
	// a Change[T] (read it with [As]); nil for an unknown Type, which the
	// handler gets raw.
	Change any
	// DecodeErr is the error of that decoder, when an image of a known
	// Type did not decode (Change is then nil).
	DecodeErr error
}

// ErrDecode is wrapped by Record.DecodeErr when an image of a registered
// Type does not decode (the codec's error is wrapped too).
var ErrDecode = errors.New("feed: record does not decode")

// Change is a typed change of an entity T: its images before and after
// the write, nil where the record carries none.
type Change[T any] struct {
	Old, New *T
}

// As returns r's typed change when r's Type was registered as T.
func As[T any](r *Record) (Change[T], bool) {
	c, ok := r.Change.(Change[T])
	return c, ok
}

// Decoder decodes the images of one entity type; make one with [Entity].
type Decoder struct {
	typ    string
	decode func(old, new map[string]types.AttributeValue) (any, error)
}

// Type returns the Type attribute value the decoder handles.
func (d Decoder) Type() string { return d.typ }

// Entity returns the decoder of entity T: records whose Type is T's get a
// Change[T] in Record.Change.
func Entity[T any, PT interface {
	*T
	entity.Item
}]() Decoder {
	var zero T
	typ := PT(&zero).EntitySchema().Type
	one := func(m map[string]types.AttributeValue) (*T, error) {
		if m == nil {
			return nil, nil
		}
		v := new(T)
		if err := PT(v).UnmarshalItem(m); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrDecode, typ, err)
		}
		return v, nil
	}
	return Decoder{typ: typ, decode: func(old, new map[string]types.AttributeValue) (any, error) {
		o, err := one(old)
		if err != nil {
			return nil, err
		}
		n, err := one(new)
		if err != nil {
			return nil, err
		}
		return Change[T]{Old: o, New: n}, nil
	}}
}

// convert turns an SDK stream record into a Record.
func convert(shard string, r st.Record, typeAttr string, decoders map[string]Decoder) Record {
	out := Record{Shard: shard, Event: Event(r.EventName)}
	if r.EventID != nil {
		out.EventID = *r.EventID
	}
	if u := r.UserIdentity; u != nil && u.PrincipalId != nil && *u.PrincipalId == "dynamodb.amazonaws.com" {
		out.TTL = true
	}
	if d := r.Dynamodb; d != nil {
		if d.SequenceNumber != nil {
			out.SequenceNumber = *d.SequenceNumber
		}
		if d.ApproximateCreationDateTime != nil {
			out.CreatedAt = *d.ApproximateCreationDateTime
		}
		if d.SizeBytes != nil {
			out.SizeBytes = *d.SizeBytes
		}
		out.Keys = Item(d.Keys)
		out.Old = Item(d.OldImage)
		out.New = Item(d.NewImage)
	}
	for _, img := range []map[string]types.AttributeValue{out.New, out.Old} {
		if s, ok := img[typeAttr].(*types.AttributeValueMemberS); ok {
			out.Type = s.Value
			break
		}
	}
	if dec, ok := decoders[out.Type]; ok && out.Type != "" {
		out.Change, out.DecodeErr = dec.decode(out.Old, out.New)
	}
	return out
}

// Item converts a stream image (package dynamodbstreams' attribute
// values) to the dynamodb package's attribute values; nil stays nil.
func Item(m map[string]st.AttributeValue) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = Value(v)
	}
	return out
}

// Value converts one stream attribute value; an unknown member converts
// to nil.
func Value(v st.AttributeValue) types.AttributeValue {
	switch a := v.(type) {
	case *st.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: a.Value}
	case *st.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: a.Value}
	case *st.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: a.Value}
	case *st.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: a.Value}
	case *st.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: a.Value}
	case *st.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: a.Value}
	case *st.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: a.Value}
	case *st.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: a.Value}
	case *st.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: Item(a.Value)}
	case *st.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(a.Value))
		for i, e := range a.Value {
			l[i] = Value(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	}
	return nil
}
