// Package ddbjson is a fast decoder of the DynamoDB JSON responses that
// carry items (Query, Scan, GetItem), plugged into the aws SDK as a
// wrapper of its protocol. It builds exactly the values the SDK's own
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
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Protocol wraps the SDK's protocol with the fast decoder.
type Protocol struct {
	smithyhttp.ClientProtocol
}

// Use is a per-call SDK option installing the fast decoder.
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
	case *dynamodb.QueryOutput, *dynamodb.GetItemOutput, *dynamodb.ScanOutput:
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

// Decode fills out (*dynamodb.QueryOutput, *dynamodb.ScanOutput or
// *dynamodb.GetItemOutput) from a successful response payload. It returns
// an error, leaving out in an unspecified state, for anything it does not
// handle.
func Decode(payload []byte, out any) error {
	if len(payload) == 0 {
		return errFallback
	}
	// The payload is never written again: share it instead of copying.
	d := decoder{s: unsafe.String(&payload[0], len(payload))}
	d.ws()
	if !d.eat('{') {
		return errFallback
	}
	var (
		items          []map[string]types.AttributeValue
		item           map[string]types.AttributeValue
		last           map[string]types.AttributeValue
		count, scanned int32
	)
	first := true
	for {
		d.ws()
		if d.eat('}') {
			break
		}
		if !first && !d.eat(',') {
			return errFallback
		}
		first = false
		d.ws()
		name, ok := d.str()
		if !ok {
			return errFallback
		}
		d.ws()
		if !d.eat(':') {
			return errFallback
		}
		d.ws()
		switch name {
		case "Items":
			if items, ok = d.itemList(); !ok {
				return errFallback
			}
		case "Item":
			if item, ok = d.item(); !ok {
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
		default:
			return errFallback
		}
	}
	d.ws()
	if d.i != len(d.s) {
		return errFallback
	}
	switch o := out.(type) {
	case *dynamodb.QueryOutput:
		if item != nil {
			return errFallback
		}
		o.Items, o.LastEvaluatedKey, o.Count, o.ScannedCount = items, last, count, scanned
	case *dynamodb.ScanOutput:
		if item != nil {
			return errFallback
		}
		o.Items, o.LastEvaluatedKey, o.Count, o.ScannedCount = items, last, count, scanned
	case *dynamodb.GetItemOutput:
		if items != nil || last != nil || count != 0 || scanned != 0 {
			return errFallback
		}
		o.Item = item
	default:
		return errFallback
	}
	return nil
}

type decoder struct {
	s string
	i int
}

func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) eat(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *decoder) int32() (int32, bool) {
	j := d.i
	for j < len(d.s) && (d.s[j] == '-' || (d.s[j] >= '0' && d.s[j] <= '9')) {
		j++
	}
	n, err := strconv.ParseInt(d.s[d.i:j], 10, 32)
	if err != nil {
		return 0, false
	}
	d.i = j
	return int32(n), true
}

// str reads a JSON string. Unescaped strings are substrings of the payload.
func (d *decoder) str() (string, bool) {
	if !d.eat('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			v := d.s[start:d.i]
			d.i++
			return v, true
		case c == '\\':
			// Like the SDK: a string with escapes is unquoted in full
			// (invalid UTF-8 becomes U+FFFD); one without is kept as is.
			d.i = start
			return d.slowStr(start)
		case c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

func (d *decoder) slowStr(start int) (string, bool) {
	b := make([]byte, 0, 64)
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.s[d.i:d.i+size]...)
			}
			d.i += size
			continue
		case c != '\\':
			b = append(b, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.s) {
			return "", false
		}
		e := d.s[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.i+1 < len(d.s) && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					var ok2 bool
					if r2, ok2 = d.hex4(); !ok2 {
						return "", false
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						continue
					}
					d.i = save
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(d.s[d.i:d.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
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
	if !d.eat('[') {
		return false, false
	}
	d.ws()
	if d.eat(']') {
		return false, true
	}
	d.ws()
	return true, true
}

// arrayNext reads what follows an array element: ',' (more follows) or ']'.
func (d *decoder) arrayNext() (more, ok bool) {
	d.ws()
	if d.eat(']') {
		return false, true
	}
	if !d.eat(',') {
		return false, false
	}
	d.ws()
	return true, true
}

// item reads {"name": {AV}, ...}.
func (d *decoder) item() (map[string]types.AttributeValue, bool) {
	if !d.eat('{') {
		return nil, false
	}
	m := make(map[string]types.AttributeValue, 12)
	d.ws()
	if d.eat('}') {
		return m, true
	}
	for {
		d.ws()
		name, ok := d.str()
		if !ok {
			return nil, false
		}
		d.ws()
		if !d.eat(':') {
			return nil, false
		}
		d.ws()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[name] = v
		d.ws()
		if d.eat('}') {
			return m, true
		}
		if !d.eat(',') {
			return nil, false
		}
	}
}

// value reads one AttributeValue object: {"S": "..."} and so on.
func (d *decoder) value() (types.AttributeValue, bool) {
	if !d.eat('{') {
		return nil, false
	}
	d.ws()
	tag, ok := d.str()
	if !ok {
		return nil, false
	}
	d.ws()
	if !d.eat(':') {
		return nil, false
	}
	d.ws()
	var v types.AttributeValue
	switch tag {
	case "S":
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		v = &types.AttributeValueMemberS{Value: s}
	case "N":
		s, ok := d.str()
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
		case len(d.s)-d.i >= 4 && d.s[d.i:d.i+4] == "true":
			bv, d.i = true, d.i+4
		case len(d.s)-d.i >= 5 && d.s[d.i:d.i+5] == "false":
			d.i += 5
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
	d.ws()
	if !d.eat('}') {
		return nil, false
	}
	return v, true
}

func (d *decoder) strList() ([]string, bool) {
	out := []string{}
	more, ok := d.arrayStart()
	for more && ok {
		var e string
		if e, ok = d.str(); ok {
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
	s, ok := d.str()
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	return b, true
}
