package ddbmem

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/internal/jsonscan"
)

// This file decodes the JSON body of a DynamoDB request into the SDK's
// input struct. The SDK generates no decoders for inputs (a client never
// reads them), so the struct is filled by reflection: a JSON member
// "TableName" sets the Go field TableName, as the DynamoDB model names its
// members exactly as the SDK names the fields. Attribute values, the bulk
// of most requests, have their own code.
//
// Errors follow DynamoDB: malformed JSON is a SerializationException
// without a message; a value of the wrong JSON type is a
// SerializationException with DynamoDB's message ("class java.lang.String
// can not be converted to an Integer"); unknown members and null values
// are ignored.

// wireError is a protocol-level error: its __type and HTTP status are
// given, and msg is sent under msgKey ("Message" or "message") unless
// empty.
type wireError struct {
	typ    string
	status int
	msgKey string
	msg    string
}

func (e *wireError) Error() string { return e.typ + ": " + e.msg }

func serializationErr(msg string) error {
	return &wireError{typ: "com.amazon.coral.service#SerializationException", status: 400, msgKey: "Message", msg: msg}
}

var errSyntax = serializationErr("")

// jdec is a JSON reader over one request body; its strings are read as
// DynamoDB reads them (jsonscan.Keep).
type jdec struct {
	jsonscan.Scanner
}

func newJdec(body string) *jdec {
	return &jdec{jsonscan.Scanner{S: body, Escapes: jsonscan.Keep}}
}

// null consumes a null literal if one is next.
func (d *jdec) null() bool {
	if d.Peek() == 'n' {
		return d.Lit("null")
	}
	return false
}

// str reads a string; the opening quote is next, after white space.
func (d *jdec) str() (string, error) {
	d.WS()
	if s, ok := d.Str(); ok {
		return s, nil
	}
	return "", errSyntax
}

// number reads a JSON number's text.
func (d *jdec) number() (string, error) {
	d.WS()
	start := d.I
	if d.I < len(d.S) && d.S[d.I] == '-' {
		d.I++
	}
	digits := 0
	for d.I < len(d.S) {
		c := d.S[d.I]
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || ((c == '+' || c == '-') && digits > 0) {
			d.I++
			digits++
			continue
		}
		break
	}
	if digits == 0 {
		return "", errSyntax
	}
	if _, err := strconv.ParseFloat(d.S[start:d.I], 64); err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return "", errSyntax
		}
	}
	return d.S[start:d.I], nil
}

// skip skips one value.
func (d *jdec) skip() error {
	switch d.Peek() {
	case '{':
		d.I++
		if d.Token('}') {
			return nil
		}
		for {
			if _, err := d.str(); err != nil {
				return err
			}
			if !d.Token(':') {
				return errSyntax
			}
			if err := d.skip(); err != nil {
				return err
			}
			if d.Token('}') {
				return nil
			}
			if !d.Token(',') {
				return errSyntax
			}
		}
	case '[':
		d.I++
		if d.Token(']') {
			return nil
		}
		for {
			if err := d.skip(); err != nil {
				return err
			}
			if d.Token(']') {
				return nil
			}
			if !d.Token(',') {
				return errSyntax
			}
		}
	case '"':
		_, err := d.str()
		return err
	case 't':
		if d.Lit("true") {
			return nil
		}
	case 'f':
		if d.Lit("false") {
			return nil
		}
	case 'n':
		if d.Lit("null") {
			return nil
		}
	default:
		_, err := d.number()
		return err
	}
	return errSyntax
}

// object iterates the members of an object; the opening brace is next.
func (d *jdec) object(member func(key string) error) error {
	if !d.Token('{') {
		return errSyntax
	}
	if d.Token('}') {
		return nil
	}
	for {
		k, err := d.str()
		if err != nil {
			return err
		}
		if !d.Token(':') {
			return errSyntax
		}
		if err := member(k); err != nil {
			return err
		}
		if d.Token('}') {
			return nil
		}
		if !d.Token(',') {
			return errSyntax
		}
	}
}

// array iterates the elements of an array; the opening bracket is next.
func (d *jdec) array(elem func() error) error {
	if !d.Token('[') {
		return errSyntax
	}
	if d.Token(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if d.Token(']') {
			return nil
		}
		if !d.Token(',') {
			return errSyntax
		}
	}
}

// javaClass names the Java class DynamoDB reports for a JSON number.
func javaClass(num string) string {
	f, _ := strconv.ParseFloat(num, 64)
	switch {
	case f != math.Floor(f):
		return "java.lang.Double"
	case f >= -32768 && f <= 32767:
		return "java.lang.Short"
	case f >= -2147483648 && f <= 2147483647:
		return "java.lang.Integer"
	}
	return "java.lang.Long"
}

// typeErr builds DynamoDB's SerializationException for a value of the
// wrong JSON type where want ("String", "Integer", "Boolean", "Blob",
// "List", "Map", "Structure") was expected. It consumes the value.
func (d *jdec) typeErr(want string) error {
	article := "an "
	if want == "Blob" {
		article = "a "
	}
	switch c := d.Peek(); {
	case c == '{':
		if want == "List" {
			return serializationErr("Start of structure or map found where not expected.")
		}
		return serializationErr("Start of structure or map found where not expected.")
	case c == '[':
		return serializationErr("Start of list found where not expected")
	}
	start := d.I
	if err := d.skip(); err != nil {
		return err
	}
	raw := d.S[start:d.I]
	switch want {
	case "List":
		return serializationErr("Expected list or null")
	case "Map":
		return serializationErr("Expected map or null")
	case "Structure":
		return serializationErr("Expected null")
	}
	switch raw[0] {
	case 't', 'f':
		if want == "Boolean" {
			return errSyntax
		}
		return serializationErr("class java.lang.Boolean can not be converted to " + article + want)
	case '"':
		if want == "Boolean" {
			s, _ := newJdec(raw).str()
			return serializationErr("'" + upper(s) + "' can not be converted to an Boolean")
		}
		return serializationErr("class java.lang.String can not be converted to " + article + want)
	}
	return serializationErr("class " + javaClass(raw) + " can not be converted to " + article + want)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// Reflection-driven decoding of input structs.

type decFn func(d *jdec, v reflect.Value) error

var (
	avType   = reflect.TypeOf((*types.AttributeValue)(nil)).Elem()
	itemType = reflect.TypeOf(item(nil))
	timeType = reflect.TypeOf(time.Time{})
	decCache sync.Map // reflect.Type -> decFn
	decMu    sync.Mutex
)

// decodeInput fills in (a pointer to an SDK input struct) from body.
func decodeInput(body []byte, in any) error {
	v := reflect.ValueOf(in).Elem()
	d := newJdec(string(body))
	if !d.null() {
		// A null request is an empty one.
		if err := decoderFor(v.Type())(d, v); err != nil {
			return err
		}
	}
	if !d.End() {
		return errSyntax
	}
	return nil
}

func decoderFor(t reflect.Type) decFn {
	if f, ok := decCache.Load(t); ok {
		return f.(decFn)
	}
	decMu.Lock()
	defer decMu.Unlock()
	return buildDecoder(t, map[reflect.Type]*decFn{})
}

// buildDecoder builds (and caches) t's decoder; building maps types under
// construction to their eventual decoder, for recursive types.
func buildDecoder(t reflect.Type, building map[reflect.Type]*decFn) decFn {
	if f, ok := decCache.Load(t); ok {
		return f.(decFn)
	}
	if p, ok := building[t]; ok {
		return func(d *jdec, v reflect.Value) error { return (*p)(d, v) }
	}
	var f decFn
	building[t] = &f
	f = makeDecoder(t, building)
	decCache.Store(t, f)
	return f
}

func makeDecoder(t reflect.Type, building map[reflect.Type]*decFn) decFn {
	switch {
	case t == avType:
		return func(d *jdec, v reflect.Value) error {
			av, err := d.attr()
			if err == nil && av != nil {
				v.Set(reflect.ValueOf(av))
			}
			return err
		}
	case t == itemType:
		return func(d *jdec, v reflect.Value) error {
			it, err := d.item()
			if err == nil && it != nil {
				v.Set(reflect.ValueOf(it))
			}
			return err
		}
	case t == timeType:
		return func(d *jdec, v reflect.Value) error {
			if d.Peek() != '-' && (d.Peek() < '0' || d.Peek() > '9') {
				return d.typeErr("Date")
			}
			n, err := d.number()
			if err != nil {
				return err
			}
			f, _ := strconv.ParseFloat(n, 64)
			sec, frac := math.Modf(f)
			v.Set(reflect.ValueOf(time.Unix(int64(sec), int64(frac*1e9)).UTC()))
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := buildDecoder(t.Elem(), building)
		return func(d *jdec, v reflect.Value) error {
			p := reflect.New(t.Elem())
			if err := elem(d, p.Elem()); err != nil {
				return err
			}
			v.Set(p)
			return nil
		}
	case reflect.String:
		return func(d *jdec, v reflect.Value) error {
			if d.Peek() != '"' {
				return d.typeErr("String")
			}
			s, err := d.str()
			v.SetString(s)
			return err
		}
	case reflect.Bool:
		return func(d *jdec, v reflect.Value) error {
			switch {
			case d.Peek() == 't' && d.Lit("true"):
				v.SetBool(true)
			case d.Peek() == 'f' && d.Lit("false"):
				v.SetBool(false)
			default:
				return d.typeErr("Boolean")
			}
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		name := "Integer"
		if t.Kind() == reflect.Int64 {
			name = "Long"
		}
		return func(d *jdec, v reflect.Value) error {
			if c := d.Peek(); c != '-' && (c < '0' || c > '9') {
				return d.typeErr(name)
			}
			n, err := d.number()
			if err != nil {
				return err
			}
			i, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				f, _ := strconv.ParseFloat(n, 64)
				if f = math.Floor(f); f >= math.MaxInt64 || f < math.MinInt64 {
					return serializationErr("NUMBER_VALUE can not be converted to an " + name)
				}
				i = int64(f)
			}
			if v.OverflowInt(i) {
				return serializationErr("NUMBER_VALUE can not be converted to an " + name)
			}
			v.SetInt(i)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(d *jdec, v reflect.Value) error {
			if c := d.Peek(); c != '-' && (c < '0' || c > '9') {
				return d.typeErr("Double")
			}
			n, err := d.number()
			if err != nil {
				return err
			}
			f, _ := strconv.ParseFloat(n, 64)
			v.SetFloat(f)
			return nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(d *jdec, v reflect.Value) error {
				b, err := d.blob()
				if err == nil {
					v.SetBytes(b)
				}
				return err
			}
		}
		elem := buildDecoder(t.Elem(), building)
		return func(d *jdec, v reflect.Value) error {
			if d.Peek() != '[' {
				return d.typeErr("List")
			}
			s := reflect.MakeSlice(t, 0, 4)
			err := d.array(func() error {
				if d.null() {
					s = reflect.Append(s, reflect.Zero(t.Elem()))
					return nil
				}
				s = reflect.Append(s, reflect.Zero(t.Elem()))
				return elem(d, s.Index(s.Len()-1))
			})
			if err == nil {
				v.Set(s)
			}
			return err
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return skipDecoder
		}
		elem := buildDecoder(t.Elem(), building)
		return func(d *jdec, v reflect.Value) error {
			if d.Peek() != '{' {
				return d.typeErr("Map")
			}
			m := reflect.MakeMap(t)
			err := d.object(func(k string) error {
				e := reflect.New(t.Elem()).Elem()
				if !d.null() {
					if err := elem(d, e); err != nil {
						return err
					}
				}
				m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
				return nil
			})
			if err == nil {
				v.Set(m)
			}
			return err
		}
	case reflect.Struct:
		type field struct {
			index int
			dec   decFn
		}
		fields := map[string]field{}
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Name == "ResultMetadata" {
				continue
			}
			fields[sf.Name] = field{i, buildDecoder(sf.Type, building)}
		}
		return func(d *jdec, v reflect.Value) error {
			if d.Peek() != '{' {
				return d.typeErr("Structure")
			}
			return d.object(func(k string) error {
				f, ok := fields[k]
				if !ok {
					return d.skip()
				}
				if d.null() {
					return nil
				}
				return f.dec(d, v.Field(f.index))
			})
		}
	}
	return skipDecoder
}

func skipDecoder(d *jdec, _ reflect.Value) error { return d.skip() }

// blob reads a base64 string.
func (d *jdec) blob() ([]byte, error) {
	if d.Peek() != '"' {
		return nil, d.typeErr("Blob")
	}
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	if len(s)%4 != 0 {
		return nil, serializationErr(fmt.Sprintf("'%s' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: %d", s, len(s)))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		valid := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
		if !valid || (c == '=' && i+1 < len(s) && s[i+1] != '=') {
			return nil, serializationErr(fmt.Sprintf("'%s' can not be converted to a Blob: Invalid Base64 character: '%c'", s, c))
		}
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, serializationErr(fmt.Sprintf("'%s' can not be converted to a Blob: Invalid last non-pad Base64 character dectected", s))
	}
	return b, nil
}

// ---------------------------------------------------------------------------
// Attribute values.

const errManyTypes = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"

// item reads a map of attribute values.
func (d *jdec) item() (item, error) {
	if d.Peek() != '{' {
		return nil, d.typeErr("Map")
	}
	it := item{}
	err := d.object(func(k string) error {
		if d.null() {
			it[k] = nil
			return nil
		}
		v, err := d.attr()
		it[k] = v
		return err
	})
	return it, err
}

// attr reads one attribute value; an object with no type member is nil,
// which the engine reports as an empty attribute value.
func (d *jdec) attr() (types.AttributeValue, error) {
	if d.Peek() != '{' {
		return nil, d.typeErr("Structure")
	}
	var av types.AttributeValue
	var num *types.AttributeValueMemberN
	n := 0
	err := d.object(func(k string) error {
		if d.null() {
			return nil
		}
		var v types.AttributeValue
		switch k {
		case "S":
			if d.Peek() != '"' {
				return d.typeErr("String")
			}
			s, err := d.str()
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberS{Value: s}
		case "N":
			if d.Peek() != '"' {
				return d.typeErr("String")
			}
			s, err := d.str()
			if err != nil {
				return err
			}
			num = &types.AttributeValueMemberN{Value: s}
			v = num
		case "B":
			b, err := d.blob()
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberB{Value: b}
		case "BOOL", "NULL":
			var b bool
			switch {
			case d.Peek() == 't' && d.Lit("true"):
				b = true
			case d.Peek() == 'f' && d.Lit("false"):
			default:
				return d.typeErr("Boolean")
			}
			if k == "BOOL" {
				v = &types.AttributeValueMemberBOOL{Value: b}
			} else {
				v = &types.AttributeValueMemberNULL{Value: b}
			}
		case "SS", "NS":
			l, err := d.strList()
			if err != nil {
				return err
			}
			if k == "SS" {
				v = &types.AttributeValueMemberSS{Value: l}
			} else {
				v = &types.AttributeValueMemberNS{Value: l}
			}
		case "BS":
			if d.Peek() != '[' {
				return d.typeErr("List")
			}
			l := [][]byte{}
			err := d.array(func() error {
				if d.null() {
					l = append(l, nil)
					return nil
				}
				b, err := d.blob()
				l = append(l, b)
				return err
			})
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberBS{Value: l}
		case "L":
			if d.Peek() != '[' {
				return d.typeErr("List")
			}
			l := []types.AttributeValue{}
			err := d.array(func() error {
				if d.null() {
					l = append(l, nil)
					return nil
				}
				x, err := d.attr()
				l = append(l, x)
				return err
			})
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberL{Value: l}
		case "M":
			m, err := d.item()
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberM{Value: m}
		default:
			return d.skip()
		}
		n++
		av = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n > 1 {
		// DynamoDB reads an N as it deserializes the value: a number
		// that is not one is reported before the extra types.
		if num != nil {
			if _, err := ddbexpr.ParseNumber(num.Value); err != nil {
				return nil, validation(err.Error())
			}
		}
		return nil, validation(errManyTypes)
	}
	return av, nil
}

func (d *jdec) strList() ([]string, error) {
	if d.Peek() != '[' {
		return nil, d.typeErr("List")
	}
	l := []string{}
	err := d.array(func() error {
		if d.null() {
			return nil
		}
		if d.Peek() != '"' {
			return d.typeErr("String")
		}
		s, err := d.str()
		l = append(l, s)
		return err
	})
	return l, err
}
