package ddbjson

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// SerializeRequest implements smithyhttp.ClientProtocol. The requests
// the runtime sends on its hot paths (GetItem, PutItem, UpdateItem,
// DeleteItem, Query and Scan) are written by [Encode], which produces the
// JSON the SDK's serializer produces (the same members in the same
// order, the same escapes) in a fraction of its time: long strings with
// non-ASCII text are copied in runs instead of decoded rune by rune. A
// request Encode does not handle (a legacy parameter such as Expected or
// KeyConditions, a nil attribute value, another operation, another
// protocol) goes to the SDK's serializer unchanged.
func (p Protocol) SerializeRequest(ctx context.Context, schema *smithy.OperationSchema, in smithy.Serializable, req *smithyhttp.Request) error {
	if p.ClientProtocol.ID() != awsJSON10 {
		return p.ClientProtocol.SerializeRequest(ctx, schema, in, req)
	}
	body, target, ok := Encode(in)
	if !ok {
		return p.ClientProtocol.SerializeRequest(ctx, schema, in, req)
	}
	req.Method = http.MethodPost
	if len(req.URL.Path) == 0 {
		req.URL.Path = "/"
	}
	req.Header.Set("X-Amz-Target", target)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	sreq, err := req.SetStream(bytes.NewReader(body))
	if err != nil {
		return err
	}
	*req = *sreq
	return nil
}

var awsJSON10 = smithy.ShapeID{Namespace: "aws.protocols", Name: "awsJson1_0"}

// Encode returns the JSON body and the X-Amz-Target header of a GetItem,
// PutItem, UpdateItem, DeleteItem, Query or Scan input, as the SDK's
// awsJson1_0 serializer writes them. ok is false for any other input and
// for one that uses a legacy parameter or holds a nil or unknown
// attribute value.
func Encode(in any) (body []byte, target string, ok bool) {
	e := encoder{b: make([]byte, 0, 512)}
	switch v := in.(type) {
	case *dynamodb.GetItemInput:
		target = "DynamoDB_20120810.GetItem"
		ok = e.getItem(v)
	case *dynamodb.PutItemInput:
		target = "DynamoDB_20120810.PutItem"
		if n := estimate(v.Item); n > cap(e.b) {
			e.b = make([]byte, 0, n)
		}
		ok = e.putItem(v)
	case *dynamodb.UpdateItemInput:
		target = "DynamoDB_20120810.UpdateItem"
		ok = e.updateItem(v)
	case *dynamodb.DeleteItemInput:
		target = "DynamoDB_20120810.DeleteItem"
		ok = e.deleteItem(v)
	case *dynamodb.QueryInput:
		target = "DynamoDB_20120810.Query"
		ok = e.query(v)
	case *dynamodb.ScanInput:
		target = "DynamoDB_20120810.Scan"
		ok = e.scan(v)
	}
	if !ok {
		return nil, "", false
	}
	return e.b, target, true
}

// estimate is a generous guess of an item's JSON length, so that its
// body is written into one buffer.
func estimate(item map[string]types.AttributeValue) int {
	n := 256
	for k, v := range item {
		n += len(k) + 16
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			n += len(s.Value) + len(s.Value)/8
		} else {
			n += 32
		}
	}
	return n
}

type encoder struct {
	b     []byte
	comma bool // a member was written in the current object
}

func (e *encoder) open()  { e.b = append(e.b, '{'); e.comma = false }
func (e *encoder) close() { e.b = append(e.b, '}'); e.comma = true }

// name writes an object member's name (a constant in plain ASCII).
func (e *encoder) name(n string) {
	if e.comma {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, n...)
	e.b = append(e.b, '"', ':')
	e.comma = true
}

func (e *encoder) strMember(n string, v *string) {
	if v != nil {
		e.name(n)
		e.str(*v)
	}
}

func (e *encoder) enumMember(n, v string) {
	if v != "" {
		e.name(n)
		e.str(v)
	}
}

func (e *encoder) boolMember(n string, v *bool) {
	if v != nil {
		e.name(n)
		e.b = strconv.AppendBool(e.b, *v)
	}
}

func (e *encoder) intMember(n string, v *int32) {
	if v != nil {
		e.name(n)
		e.b = strconv.AppendInt(e.b, int64(*v), 10)
	}
}

func (e *encoder) namesMember(n string, m map[string]string) {
	if m == nil {
		return
	}
	e.name(n)
	e.open()
	for k, v := range m {
		e.key(k)
		e.str(v)
	}
	e.close()
}

func (e *encoder) stringList(n string, l []string) {
	if l == nil {
		return
	}
	e.name(n)
	e.strs(l)
}

func (e *encoder) strs(l []string) {
	e.b = append(e.b, '[')
	for i, s := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

// itemMember writes an attribute map member; false for a nil or unknown
// value inside it.
func (e *encoder) itemMember(n string, m map[string]types.AttributeValue) bool {
	if m == nil {
		return true
	}
	e.name(n)
	return e.item(m)
}

func (e *encoder) key(k string) {
	if e.comma {
		e.b = append(e.b, ',')
	}
	e.str(k)
	e.b = append(e.b, ':')
	e.comma = true
}

func (e *encoder) item(m map[string]types.AttributeValue) bool {
	e.open()
	for k, v := range m {
		e.key(k)
		if !e.value(v) {
			return false
		}
	}
	e.close()
	return true
}

// value writes one attribute value as the SDK writes its union: an
// object with one member named by the type.
func (e *encoder) value(v types.AttributeValue) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		e.b = append(e.b, `{"S":`...)
		e.str(v.Value)
	case *types.AttributeValueMemberN:
		e.b = append(e.b, `{"N":`...)
		e.str(v.Value)
	case *types.AttributeValueMemberB:
		e.b = append(e.b, `{"B":`...)
		e.blob(v.Value)
	case *types.AttributeValueMemberBOOL:
		e.b = append(e.b, `{"BOOL":`...)
		e.b = strconv.AppendBool(e.b, v.Value)
	case *types.AttributeValueMemberNULL:
		e.b = append(e.b, `{"NULL":`...)
		e.b = strconv.AppendBool(e.b, v.Value)
	case *types.AttributeValueMemberSS:
		e.b = append(e.b, `{"SS":`...)
		e.strs(v.Value)
	case *types.AttributeValueMemberNS:
		e.b = append(e.b, `{"NS":`...)
		e.strs(v.Value)
	case *types.AttributeValueMemberBS:
		e.b = append(e.b, `{"BS":[`...)
		for i, x := range v.Value {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.blob(x)
		}
		e.b = append(e.b, ']')
	case *types.AttributeValueMemberL:
		e.b = append(e.b, `{"L":[`...)
		for i, x := range v.Value {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			if !e.value(x) {
				return false
			}
		}
		e.b = append(e.b, ']')
	case *types.AttributeValueMemberM:
		e.b = append(e.b, `{"M":`...)
		if !e.item(v.Value) {
			return false
		}
	default:
		return false
	}
	e.b = append(e.b, '}')
	e.comma = true
	return true
}

func (e *encoder) blob(v []byte) {
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '"')
	e.b = base64.StdEncoding.AppendEncode(e.b, v)
	e.b = append(e.b, '"')
}

func (e *encoder) getItem(v *dynamodb.GetItemInput) bool {
	e.open()
	e.stringList("AttributesToGet", v.AttributesToGet)
	e.boolMember("ConsistentRead", v.ConsistentRead)
	e.namesMember("ExpressionAttributeNames", v.ExpressionAttributeNames)
	if !e.itemMember("Key", v.Key) {
		return false
	}
	e.strMember("ProjectionExpression", v.ProjectionExpression)
	e.enumMember("ReturnConsumedCapacity", string(v.ReturnConsumedCapacity))
	e.strMember("TableName", v.TableName)
	e.close()
	return true
}

func (e *encoder) putItem(v *dynamodb.PutItemInput) bool {
	if v.ConditionalOperator != "" || v.Expected != nil {
		return false
	}
	if !e.condHead(v.ConditionExpression, v.ExpressionAttributeNames, v.ExpressionAttributeValues, "Item", v.Item) {
		return false
	}
	e.writeReturns(v.ReturnConsumedCapacity, v.ReturnItemCollectionMetrics, v.ReturnValues, v.ReturnValuesOnConditionCheckFailure)
	e.strMember("TableName", v.TableName)
	e.close()
	return true
}

// condHead opens a PutItem, UpdateItem or DeleteItem request and writes
// its members up to the item or key (named what).
func (e *encoder) condHead(cond *string, names map[string]string, values map[string]types.AttributeValue, what string, m map[string]types.AttributeValue) bool {
	e.open()
	e.strMember("ConditionExpression", cond)
	e.namesMember("ExpressionAttributeNames", names)
	return e.itemMember("ExpressionAttributeValues", values) && e.itemMember(what, m)
}

// readHead opens a Query or Scan request and writes its members up to
// IndexName.
func (e *encoder) readHead(attrs []string, consistent *bool, start map[string]types.AttributeValue, names map[string]string,
	values map[string]types.AttributeValue, filter, index *string) bool {
	e.open()
	e.stringList("AttributesToGet", attrs)
	e.boolMember("ConsistentRead", consistent)
	if !e.itemMember("ExclusiveStartKey", start) {
		return false
	}
	e.namesMember("ExpressionAttributeNames", names)
	if !e.itemMember("ExpressionAttributeValues", values) {
		return false
	}
	e.strMember("FilterExpression", filter)
	e.strMember("IndexName", index)
	return true
}

func (e *encoder) writeReturns(rcc types.ReturnConsumedCapacity, ricm types.ReturnItemCollectionMetrics, rv types.ReturnValue, rvf types.ReturnValuesOnConditionCheckFailure) {
	e.enumMember("ReturnConsumedCapacity", string(rcc))
	e.enumMember("ReturnItemCollectionMetrics", string(ricm))
	e.enumMember("ReturnValues", string(rv))
	e.enumMember("ReturnValuesOnConditionCheckFailure", string(rvf))
}

func (e *encoder) updateItem(v *dynamodb.UpdateItemInput) bool {
	if v.AttributeUpdates != nil || v.ConditionalOperator != "" || v.Expected != nil {
		return false
	}
	if !e.condHead(v.ConditionExpression, v.ExpressionAttributeNames, v.ExpressionAttributeValues, "Key", v.Key) {
		return false
	}
	e.writeReturns(v.ReturnConsumedCapacity, v.ReturnItemCollectionMetrics, v.ReturnValues, v.ReturnValuesOnConditionCheckFailure)
	e.strMember("TableName", v.TableName)
	e.strMember("UpdateExpression", v.UpdateExpression)
	e.close()
	return true
}

func (e *encoder) deleteItem(v *dynamodb.DeleteItemInput) bool {
	if v.ConditionalOperator != "" || v.Expected != nil {
		return false
	}
	if !e.condHead(v.ConditionExpression, v.ExpressionAttributeNames, v.ExpressionAttributeValues, "Key", v.Key) {
		return false
	}
	e.writeReturns(v.ReturnConsumedCapacity, v.ReturnItemCollectionMetrics, v.ReturnValues, v.ReturnValuesOnConditionCheckFailure)
	e.strMember("TableName", v.TableName)
	e.close()
	return true
}

func (e *encoder) query(v *dynamodb.QueryInput) bool {
	if v.ConditionalOperator != "" || v.KeyConditions != nil || v.QueryFilter != nil {
		return false
	}
	if !e.readHead(v.AttributesToGet, v.ConsistentRead, v.ExclusiveStartKey, v.ExpressionAttributeNames, v.ExpressionAttributeValues, v.FilterExpression, v.IndexName) {
		return false
	}
	e.strMember("KeyConditionExpression", v.KeyConditionExpression)
	e.intMember("Limit", v.Limit)
	e.strMember("ProjectionExpression", v.ProjectionExpression)
	e.enumMember("ReturnConsumedCapacity", string(v.ReturnConsumedCapacity))
	e.boolMember("ScanIndexForward", v.ScanIndexForward)
	e.enumMember("Select", string(v.Select))
	e.strMember("TableName", v.TableName)
	e.close()
	return true
}

func (e *encoder) scan(v *dynamodb.ScanInput) bool {
	if v.ConditionalOperator != "" || v.ScanFilter != nil {
		return false
	}
	if !e.readHead(v.AttributesToGet, v.ConsistentRead, v.ExclusiveStartKey, v.ExpressionAttributeNames, v.ExpressionAttributeValues, v.FilterExpression, v.IndexName) {
		return false
	}
	e.intMember("Limit", v.Limit)
	e.strMember("ProjectionExpression", v.ProjectionExpression)
	e.enumMember("ReturnConsumedCapacity", string(v.ReturnConsumedCapacity))
	e.intMember("Segment", v.Segment)
	e.enumMember("Select", string(v.Select))
	e.strMember("TableName", v.TableName)
	e.intMember("TotalSegments", v.TotalSegments)
	e.close()
	return true
}

// special marks the bytes a string cannot hold unchanged in the SDK's
// JSON: control characters, '"', '\\' and DEL are escaped, and 0xE2
// starts U+2028 and U+2029, which are escaped too.
var special = func() (t [256]bool) {
	for b := 0; b < 0x20; b++ {
		t[b] = true
	}
	t['"'], t['\\'], t[0x7F], t[0xE2] = true, true, true, true
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasByte reports whether a byte of w equals c.
func hasByte(w uint64, c byte) uint64 {
	x := w ^ (lsb * uint64(c))
	return (x - lsb) &^ x & msb
}

// str writes s as a JSON string, escaped as the SDK escapes it.
func (e *encoder) str(s string) {
	e.b = append(e.b, '"')
	if !utf8.ValidString(s) {
		e.strSlow(s)
		e.b = append(e.b, '"')
		return
	}
	p := unsafe.Slice(unsafe.StringData(s), len(s))
	start, i := 0, 0
	for i < len(p) {
		// Skip eight bytes at a time while none of them is special.
		for i+8 <= len(p) {
			w := uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24 |
				uint64(p[i+4])<<32 | uint64(p[i+5])<<40 | uint64(p[i+6])<<48 | uint64(p[i+7])<<56
			// A byte below 0x20 has its top three bits clear.
			low := (w&^msb + (lsb * (0x80 - 0x20))) | w
			if ^low&msb|hasByte(w, '"')|hasByte(w, '\\')|hasByte(w, 0x7F)|hasByte(w, 0xE2) != 0 {
				break
			}
			i += 8
		}
		if i >= len(p) {
			break
		}
		c := p[i]
		if !special[c] {
			i++
			continue
		}
		if c == 0xE2 {
			if i+2 < len(p) && p[i+1] == 0x80 && (p[i+2] == 0xA8 || p[i+2] == 0xA9) {
				e.b = append(e.b, p[start:i]...)
				e.b = append(e.b, '\\', 'u', '2', '0', '2', hex[p[i+2]&0xF])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		e.b = append(e.b, p[start:i]...)
		e.b = appendEscape(e.b, c)
		i++
		start = i
	}
	e.b = append(e.b, p[start:]...)
	e.b = append(e.b, '"')
}

const hex = "0123456789abcdef"

func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// strSlow writes a string that is not valid UTF-8: every invalid byte
// becomes U+FFFD, as in the SDK.
func (e *encoder) strSlow(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if special[c] {
				e.b = appendEscape(e.b, c)
			} else {
				e.b = append(e.b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			e.b = append(e.b, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			e.b = append(e.b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			e.b = append(e.b, s[i:i+size]...)
		}
		i += size
	}
}
