// Package ddbjson is a fast encoder of the DynamoDB JSON requests the
// runtime sends most (GetItem, PutItem, UpdateItem, DeleteItem, Query and
// Scan; see [Encode]) and a fast decoder of the responses that carry items
// (Query, Scan, GetItem, and the returned attributes of PutItem,
// UpdateItem and DeleteItem), plugged into the aws SDK as a wrapper of its
// protocol. The encoder writes the bytes the SDK's serializer writes.
//
// The decoder builds exactly the values the SDK's own
// decoder builds, with far fewer allocations: the payload is converted to
// one string and every unescaped string value is a substring of it.
//
// Anything it does not handle (an error status, an unknown field such as
// ConsumedCapacity, malformed input) falls back to the SDK's decoder on
// the same bytes, so behaviour never differs.
package ddbjson

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/tablekit/tablekit/internal/jsonscan"
)

// Protocol wraps the SDK's protocol with the fast encoder and decoder.
type Protocol struct {
	smithyhttp.ClientProtocol
}

// Use is a per-call SDK option installing the fast encoder and decoder.
func Use(o *dynamodb.Options) {
	if o.Protocol == nil {
		return
	}
	if _, ok := o.Protocol.(Protocol); ok {
		return
	}
	o.Protocol = Protocol{o.Protocol}
}

// DeserializeResponse implements smithyhttp.ClientProtocol.
func (p Protocol) DeserializeResponse(ctx context.Context, schema *smithy.OperationSchema, reg *smithy.TypeRegistry, resp *smithyhttp.Response, out smithy.Deserializable) error {
	if resp.StatusCode != 200 {
		return p.ClientProtocol.DeserializeResponse(ctx, schema, reg, resp, out)
	}
	switch out.(type) {
	case *dynamodb.QueryOutput, *dynamodb.GetItemOutput, *dynamodb.ScanOutput,
		*dynamodb.UpdateItemOutput, *dynamodb.PutItemOutput, *dynamodb.DeleteItemOutput:
	default:
		return p.ClientProtocol.DeserializeResponse(ctx, schema, reg, resp, out)
	}
	payload, err := readBody(resp)
	if err != nil {
		return &smithy.DeserializationError{Err: err}
	}
	if Decode(payload, out) == nil {
		return nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(payload))
	return p.ClientProtocol.DeserializeResponse(ctx, schema, reg, resp, out)
}

// readBody reads the whole body, in one allocation when its length is
// known.
func readBody(resp *smithyhttp.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n < 64<<20 {
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		// Anything after the announced length is an error for the SDK too.
		return b, nil
	}
	return io.ReadAll(resp.Body)
}

// errFallback means "let the SDK decode this".
var errFallback = errors.New("ddbjson: not handled")

// Decode fills out (*dynamodb.QueryOutput, *dynamodb.ScanOutput,
// *dynamodb.GetItemOutput, or the Attributes of *dynamodb.UpdateItemOutput,
// *dynamodb.PutItemOutput and *dynamodb.DeleteItemOutput) from a
// successful response payload. It returns
// an error, leaving out in an unspecified state, for anything it does not
// handle.
func Decode(payload []byte, out any) error {
	if len(payload) == 0 {
		return errFallback
	}
	// The payload is never written again: share it instead of copying.
	d := decoder{jsonscan.Scanner{S: unsafe.String(&payload[0], len(payload)), Escapes: jsonscan.Replace}}
	d.WS()
	if !d.Eat('{') {
		return errFallback
	}
	var (
		items          []map[string]types.AttributeValue
		item, attrs    map[string]types.AttributeValue
		last           map[string]types.AttributeValue
		count, scanned int32
		consumed       *types.ConsumedCapacity
	)
	first := true
	for {
		d.WS()
		if d.Eat('}') {
			break
		}
		if !first && !d.Eat(',') {
			return errFallback
		}
		first = false
		d.WS()
		name, ok := d.Str()
		if !ok {
			return errFallback
		}
		d.WS()
		if !d.Eat(':') {
			return errFallback
		}
		d.WS()
		switch name {
		case "Items":
			if items, ok = d.itemList(); !ok {
				return errFallback
			}
		case "Item":
			if item, ok = d.item(); !ok {
				return errFallback
			}
		case "Attributes":
			if attrs, ok = d.item(); !ok {
				return errFallback
			}
		case "LastEvaluatedKey":
			if last, ok = d.item(); !ok {
				return errFallback
			}
		case "Count":
			if count, ok = d.int32(); !ok {
				return errFallback
			}
		case "ScannedCount":
			if scanned, ok = d.int32(); !ok {
				return errFallback
			}
		case "ConsumedCapacity":
			if consumed, ok = d.capacity(); !ok {
				return errFallback
			}
		default:
			return errFallback
		}
	}
	if !d.End() {
		return errFallback
	}
	if attrs != nil {
		switch out.(type) {
		case *dynamodb.UpdateItemOutput, *dynamodb.PutItemOutput, *dynamodb.DeleteItemOutput:
		default:
			return errFallback
		}
	}
	write := items == nil && item == nil && last == nil && count == 0 && scanned == 0
	switch o := out.(type) {
	case *dynamodb.UpdateItemOutput:
		if !write {
			return errFallback
		}
		o.Attributes, o.ConsumedCapacity = attrs, consumed
	case *dynamodb.PutItemOutput:
		if !write {
			return errFallback
		}
		o.Attributes, o.ConsumedCapacity = attrs, consumed
	case *dynamodb.DeleteItemOutput:
		if !write {
			return errFallback
		}
		o.Attributes, o.ConsumedCapacity = attrs, consumed
	case *dynamodb.QueryOutput:
		if item != nil {
			return errFallback
		}
		o.Items, o.LastEvaluatedKey, o.Count, o.ScannedCount, o.ConsumedCapacity = items, last, count, scanned, consumed
	case *dynamodb.ScanOutput:
		if item != nil {
			return errFallback
		}
		o.Items, o.LastEvaluatedKey, o.Count, o.ScannedCount, o.ConsumedCapacity = items, last, count, scanned, consumed
	case *dynamodb.GetItemOutput:
		if items != nil || last != nil || count != 0 || scanned != 0 {
			return errFallback
		}
		o.Item, o.ConsumedCapacity = item, consumed
	default:
		return errFallback
	}
	return nil
}

// decoder reads a response; its strings follow the SDK's decoder
// (jsonscan.Replace).
type decoder struct {
	jsonscan.Scanner
}

// consumedJSON is the shape of a ConsumedCapacity this decoder reads;
// a member it does not list (VectorIndexes, say) sends the response to
// the SDK's decoder.
type consumedJSON struct {
	TableName                                            *string
	CapacityUnits, ReadCapacityUnits, WriteCapacityUnits *float64
	Table                                                *types.Capacity
	GlobalSecondaryIndexes, LocalSecondaryIndexes        map[string]types.Capacity
}

// capacity reads a ConsumedCapacity object (or null). Its extent is found
// by matching braces outside strings; encoding/json decodes it. Traced
// and budgeted requests ask for it, so their responses stay on the fast
// path.
func (d *decoder) capacity() (*types.ConsumedCapacity, bool) {
	if d.Peek() == 'n' {
		return nil, d.Lit("null")
	}
	start := d.I
	if !d.skipObject() {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(d.S[start:d.I]))
	dec.DisallowUnknownFields()
	var c consumedJSON
	if err := dec.Decode(&c); err != nil {
		return nil, false
	}
	return &types.ConsumedCapacity{TableName: c.TableName, CapacityUnits: c.CapacityUnits, ReadCapacityUnits: c.ReadCapacityUnits,
		WriteCapacityUnits: c.WriteCapacityUnits, Table: c.Table, GlobalSecondaryIndexes: c.GlobalSecondaryIndexes,
		LocalSecondaryIndexes: c.LocalSecondaryIndexes}, true
}

// skipObject moves past one JSON object.
func (d *decoder) skipObject() bool {
	if !d.Eat('{') {
		return false
	}
	for depth := 1; d.I < len(d.S); {
		switch d.S[d.I] {
		case '"':
			if _, ok := d.Str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				d.I++
				return true
			}
		}
		d.I++
	}
	return false
}

func (d *decoder) int32() (int32, bool) {
	j := d.I
	for j < len(d.S) && (d.S[j] == '-' || (d.S[j] >= '0' && d.S[j] <= '9')) {
		j++
	}
	n, err := strconv.ParseInt(d.S[d.I:j], 10, 32)
	if err != nil {
		return 0, false
	}
	d.I = j
	return int32(n), true
}

func (d *decoder) itemList() ([]map[string]types.AttributeValue, bool) {
	out := make([]map[string]types.AttributeValue, 0, 16)
	more, ok := d.arrayStart()
	for more && ok {
		var m map[string]types.AttributeValue
		if m, ok = d.item(); ok {
			out = append(out, m)
			more, ok = d.arrayNext()
		}
	}
	return out, ok
}

// arrayStart reads the '[' of a JSON array and whether an element follows
// (false on "[]"). Each element read, arrayNext reads the ',' before the
// next one or the closing ']'. (Not a function taking an element reader:
// calling one through a func value would move the decoder to the heap.)
func (d *decoder) arrayStart() (more, ok bool) {
	if !d.Eat('[') {
		return false, false
	}
	d.WS()
	if d.Eat(']') {
		return false, true
	}
	d.WS()
	return true, true
}

// arrayNext reads what follows an array element: ',' (more follows) or ']'.
func (d *decoder) arrayNext() (more, ok bool) {
	d.WS()
	if d.Eat(']') {
		return false, true
	}
	if !d.Eat(',') {
		return false, false
	}
	d.WS()
	return true, true
}

// item reads {"name": {AV}, ...}.
func (d *decoder) item() (map[string]types.AttributeValue, bool) {
	if !d.Eat('{') {
		return nil, false
	}
	m := make(map[string]types.AttributeValue, 12)
	d.WS()
	if d.Eat('}') {
		return m, true
	}
	for {
		d.WS()
		name, ok := d.Str()
		if !ok {
			return nil, false
		}
		d.WS()
		if !d.Eat(':') {
			return nil, false
		}
		d.WS()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[name] = v
		d.WS()
		if d.Eat('}') {
			return m, true
		}
		if !d.Eat(',') {
			return nil, false
		}
	}
}

// value reads one AttributeValue object: {"S": "..."} and so on.
func (d *decoder) value() (types.AttributeValue, bool) {
	if !d.Eat('{') {
		return nil, false
	}
	d.WS()
	tag, ok := d.Str()
	if !ok {
		return nil, false
	}
	d.WS()
	if !d.Eat(':') {
		return nil, false
	}
	d.WS()
	var v types.AttributeValue
	switch tag {
	case "S":
		s, ok := d.Str()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberS{Value: s}
	case "N":
		s, ok := d.Str()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberN{Value: s}
	case "B":
		b, ok := d.bytes()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberB{Value: b}
	case "BOOL", "NULL":
		var bv bool
		switch {
		case d.Lit("true"):
			bv = true
		case d.Lit("false"):
		default:
			return nil, false
		}
		if tag == "BOOL" {
			v = &types.AttributeValueMemberBOOL{Value: bv}
		} else {
			v = &types.AttributeValueMemberNULL{Value: bv}
		}
	case "SS", "NS":
		ss, ok := d.strList()
		if !ok {
			return nil, false
		}
		if tag == "SS" {
			v = &types.AttributeValueMemberSS{Value: ss}
		} else {
			v = &types.AttributeValueMemberNS{Value: ss}
		}
	case "BS":
		bs, ok := d.bytesList()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberBS{Value: bs}
	case "L":
		l, ok := d.valueList()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberL{Value: l}
	case "M":
		m, ok := d.item()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberM{Value: m}
	default:
		return nil, false
	}
	d.WS()
	if !d.Eat('}') {
		return nil, false
	}
	return v, true
}

func (d *decoder) strList() ([]string, bool) {
	out := []string{}
	more, ok := d.arrayStart()
	for more && ok {
		var e string
		if e, ok = d.Str(); ok {
			out = append(out, e)
			more, ok = d.arrayNext()
		}
	}
	return out, ok
}

func (d *decoder) bytesList() ([][]byte, bool) {
	out := [][]byte{}
	more, ok := d.arrayStart()
	for more && ok {
		var e []byte
		if e, ok = d.bytes(); ok {
			out = append(out, e)
			more, ok = d.arrayNext()
		}
	}
	return out, ok
}

func (d *decoder) valueList() ([]types.AttributeValue, bool) {
	out := []types.AttributeValue{}
	more, ok := d.arrayStart()
	for more && ok {
		var e types.AttributeValue
		if e, ok = d.value(); ok {
			out = append(out, e)
			more, ok = d.arrayNext()
		}
	}
	return out, ok
}

func (d *decoder) bytes() ([]byte, bool) {
	s, ok := d.Str()
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	return b, true
}
