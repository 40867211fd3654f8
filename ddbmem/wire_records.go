package ddbmem

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// The endpoint answers full-item reads (GetItem, Query and Scan without a
// projection) from a per-record cache of the item's JSON: the first such
// read of a record version encodes it, later ones copy the bytes. The
// items are not copied into AttributeValue maps first. Records are never
// changed once stored (a write stores a new one), so the cache cannot go
// stale; it costs about the item's size once read over the endpoint.

// wireSink collects, for the endpoint, the records a read returns whole;
// the read leaves them out of its output.
type wireSink struct {
	recs []*record
}

type wireSinkKey struct{}

// wireSinkOf returns the sink of a read the endpoint serves, or nil.
func wireSinkOf(ctx context.Context) *wireSink {
	w, _ := ctx.Value(wireSinkKey{}).(*wireSink)
	return w
}

// wireOp is op for a read whose whole items the endpoint writes from the
// records' cached JSON, as member ("Item", or the list "Items").
func wireOp[I any, O smithy.Serializable](m func(*DB, context.Context, *I, ...func(*dynamodb.Options)) (O, error), member string) handlerFn {
	return func(db *DB, ctx context.Context, body []byte) (smithy.Serializable, error) {
		in := new(I)
		if err := decodeInput(body, in); err != nil {
			return nil, err
		}
		w := &wireOut{member: member}
		out, err := m(db, context.WithValue(ctx, wireSinkKey{}, &w.sink), in)
		if err != nil {
			return nil, err
		}
		w.out = out
		return w, nil
	}
}

// wireOut is the output of a wireOp: the operation's output, without the
// items of its sink.
type wireOut struct {
	out    smithy.Serializable
	member string
	sink   wireSink
}

// Serialize serializes the output without its sink's items; respond adds
// them with appendRecords.
func (w *wireOut) Serialize(s smithy.ShapeSerializer) { w.out.Serialize(s) }

// appendRecords adds the sink's items to buf, the JSON object of w.out.
func (w *wireOut) appendRecords(buf []byte) []byte {
	recs := w.sink.recs
	if len(recs) == 0 || len(buf) < 2 || buf[len(buf)-1] != '}' {
		return buf
	}
	buf = buf[:len(buf)-1]
	if buf[len(buf)-1] != '{' {
		buf = append(buf, ',')
	}
	buf = append(buf, '"')
	buf = append(buf, w.member...)
	buf = append(buf, `":`...)
	if w.member == "Item" {
		buf = append(buf, recs[0].wireJSON()...)
		return append(buf, '}')
	}
	buf = append(buf, '[')
	for i, r := range recs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, r.wireJSON()...)
	}
	return append(buf, "]}"...)
}

// wireJSON returns r's item in DynamoDB's JSON, as the endpoint's encoder
// writes it, from the cache or encoded now.
func (r *record) wireJSON() []byte {
	if b := r.wire.Load(); b != nil {
		return *b
	}
	// Encode a GetItemOutput of the item and keep the item's object.
	e := jenc{buf: make([]byte, 0, r.size+16*len(r.attrs)+16)}
	(&dynamodb.GetItemOutput{Item: r.item}).Serialize(&e)
	b := e.buf[len(`{"Item":`) : len(e.buf)-1]
	r.wire.Store(&b)
	return b
}
