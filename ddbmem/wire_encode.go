package ddbmem

import (
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	smithytime "github.com/aws/smithy-go/time"
)

// jenc writes the JSON of an SDK output (or error) struct: it implements
// smithy.ShapeSerializer, which the SDK's generated Serialize methods
// drive with the model's member names, so the JSON is the shape DynamoDB
// sends and the SDK reads.
type jenc struct {
	buf []byte
	// frames: one per open object or array; first is set until a
	// member has been written, object when members carry keys.
	frames []frame
	// keyed is set when the next value's key has been written already
	// (after WriteKey, or inside a union).
	keyed bool
}

type frame struct{ first, object bool }

var _ smithy.ShapeSerializer = (*jenc)(nil)

func (e *jenc) Bytes() []byte { return e.buf }

// prefix writes the separator and, in an object, the member's key.
func (e *jenc) prefix(s *smithy.Schema) {
	if e.keyed {
		e.keyed = false
		return
	}
	n := len(e.frames)
	if n == 0 {
		return
	}
	f := &e.frames[n-1]
	if !f.first {
		e.buf = append(e.buf, ',')
	}
	f.first = false
	if f.object && s != nil {
		e.buf = appendJSONString(e.buf, s.MemberName())
		e.buf = append(e.buf, ':')
	}
}

func (e *jenc) open(c byte, object bool) {
	e.buf = append(e.buf, c)
	e.frames = append(e.frames, frame{first: true, object: object})
}

func (e *jenc) close(c byte) {
	e.buf = append(e.buf, c)
	e.frames = e.frames[:len(e.frames)-1]
}

func (e *jenc) WriteInt8(s *smithy.Schema, v int8)   { e.WriteInt64(s, int64(v)) }
func (e *jenc) WriteInt16(s *smithy.Schema, v int16) { e.WriteInt64(s, int64(v)) }
func (e *jenc) WriteInt32(s *smithy.Schema, v int32) { e.WriteInt64(s, int64(v)) }
func (e *jenc) WriteInt64(s *smithy.Schema, v int64) {
	e.prefix(s)
	e.buf = strconv.AppendInt(e.buf, v, 10)
}
func (e *jenc) WriteFloat32(s *smithy.Schema, v float32) { e.WriteFloat64(s, float64(v)) }
func (e *jenc) WriteFloat64(s *smithy.Schema, v float64) {
	e.prefix(s)
	switch {
	case math.IsNaN(v):
		e.buf = append(e.buf, `"NaN"`...)
	case math.IsInf(v, 1):
		e.buf = append(e.buf, `"Infinity"`...)
	case math.IsInf(v, -1):
		e.buf = append(e.buf, `"-Infinity"`...)
	default:
		e.buf = strconv.AppendFloat(e.buf, v, 'f', -1, 64)
	}
}
func (e *jenc) WriteBool(s *smithy.Schema, v bool) {
	e.prefix(s)
	e.buf = strconv.AppendBool(e.buf, v)
}
func (e *jenc) WriteString(s *smithy.Schema, v string) {
	e.prefix(s)
	e.buf = appendJSONString(e.buf, v)
}
func (e *jenc) WriteBigInt(s *smithy.Schema, v *big.Int) {
	e.prefix(s)
	e.buf = v.Append(e.buf, 10)
}
func (e *jenc) WriteBigFloat(s *smithy.Schema, v *big.Float) {
	e.prefix(s)
	e.buf = v.Append(e.buf, 'f', -1)
}
func (e *jenc) WriteBlob(s *smithy.Schema, v []byte) {
	e.prefix(s)
	e.buf = append(e.buf, '"')
	e.buf = base64.StdEncoding.AppendEncode(e.buf, v)
	e.buf = append(e.buf, '"')
}

// WriteTime writes epoch seconds, DynamoDB's timestamp format.
func (e *jenc) WriteTime(s *smithy.Schema, v time.Time) {
	e.WriteFloat64(s, smithytime.FormatEpochSeconds(v))
}

func (e *jenc) WriteUnion(s, variant *smithy.Schema) {
	e.prefix(s)
	e.open('{', true)
	e.prefix(variant)
	e.keyed = true
}
func (e *jenc) CloseUnion() {
	e.keyed = false
	e.close('}')
}
func (e *jenc) WriteDocument(s *smithy.Schema, _ document.Value) {
	e.WriteNil(s) // DynamoDB's outputs carry no documents
}
func (e *jenc) WriteNil(s *smithy.Schema) {
	e.prefix(s)
	e.buf = append(e.buf, "null"...)
}
func (e *jenc) WriteStruct(s *smithy.Schema) {
	e.prefix(s)
	e.open('{', true)
}
func (e *jenc) CloseStruct() { e.close('}') }
func (e *jenc) WriteList(s *smithy.Schema) {
	e.prefix(s)
	e.open('[', false)
}
func (e *jenc) CloseList() { e.close(']') }
func (e *jenc) WriteMap(s *smithy.Schema) {
	e.prefix(s)
	e.open('{', false)
}
func (e *jenc) WriteKey(_ *smithy.Schema, key string) {
	e.prefix(nil)
	e.buf = appendJSONString(e.buf, key)
	e.buf = append(e.buf, ':')
	e.keyed = true
}
func (e *jenc) CloseMap() { e.close('}') }

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as a JSON string. Invalid UTF-8 is
// replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time: no control character, quote,
		// backslash or non-ASCII byte among them.
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plain8 reports whether the 8 bytes of s need no escaping: each is
// printable ASCII other than '"' and '\\'.
func plain8(s string) bool {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	q := x ^ (lsb * '"')
	bs := x ^ (lsb * '\\')
	// A byte is flagged when it is < 0x20, is zero after the XORs (a
	// quote or backslash), or has its high bit set.
	return ((x-lsb*0x20)|(q-lsb)|(bs-lsb)|x)&msb == 0
}
