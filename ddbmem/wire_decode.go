package ddbmem

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
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
// SerializationException with DynamoDB's message ("STRING_VALUE cannot be
// converted to Integer", "Unexpected field type"; see scalarErr and
// collectionErr); unknown members and null values are ignored.

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

// The messages of a SerializationException for a JSON value of the wrong
// type are those of DynamoDB's own deserializer, which reads the request
// into Java objects: scalars by their Java class ("TRUE_VALUE cannot be
// converted to String"), and structures, lists and maps by where they
// stand. A structure, list or map that is a member of a structure is a
// field ("Unexpected field type" for a scalar); one that is an element of
// a list or a value of a map is a value, and a scalar there is
// "Unexpected value type in payload" for a structure and, for a list or
// a map, the message of the Java reflection error DynamoDB reports
// (castErr). dynalite's test suite records them as DynamoDB answers.

// modelPackage is the Java package of DynamoDB's model classes.
const modelPackage = "com.amazonaws.dynamodb.v20120810."

const (
	msgStartOfMap   = "Start of structure or map found where not expected"
	msgFieldType    = "Unexpected field type"
	msgValueType    = "Unexpected value type in payload"
	msgBlobScalar   = "only base-64-encoded strings are convertible to bytes"
	msgBooleanToken = "Unexpected token received from parser"
	castErr         = "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of loader 'bootstrap')"
)

// scalarJava is the Java class of a scalar member DynamoDB reads:
// "String", "Integer", "Long", "Double", "Boolean", "Blob" or "Date".
func scalarJava(name string) string {
	switch name {
	case "Blob":
		return "java.nio.ByteBuffer"
	case "Date":
		return "java.util.Date"
	}
	return "java.lang." + name
}

// scalarErr is DynamoDB's SerializationException for a value of the wrong
// JSON type where the scalar name (see scalarJava) was expected. It
// consumes the value.
func (d *jdec) scalarErr(name string) error {
	switch d.Peek() {
	case '{':
		return serializationErr(msgStartOfMap)
	case '[':
		return serializationErr("Unrecognized collection type class " + scalarJava(name))
	}
	start := d.I
	if err := d.skip(); err != nil {
		return err
	}
	raw := d.S[start:d.I]
	if name == "Blob" {
		return serializationErr(msgBlobScalar)
	}
	token := ""
	switch raw[0] {
	case 't':
		token = "TRUE_VALUE"
	case 'f':
		token = "FALSE_VALUE"
	case '"':
		if name == "Boolean" {
			return serializationErr(msgBooleanToken)
		}
		token = "STRING_VALUE"
	default:
		token = "NUMBER_VALUE"
		if strings.ContainsAny(raw, ".eE") {
			token = "DECIMAL_VALUE"
		}
	}
	return serializationErr(token + " cannot be converted to " + name)
}

// collectionErr is DynamoDB's SerializationException for a value of the
// wrong JSON type where a structure, list or map was expected: java is
// the Java type expected (a model class, or java.util.List<...> or
// java.util.Map<...>), inValue whether the value is a list's element or a
// map's value rather than a structure's member. It consumes the value.
func (d *jdec) collectionErr(java string, inValue bool) error {
	isList, isMap := strings.HasPrefix(java, "java.util.List<"), strings.HasPrefix(java, "java.util.Map<")
	switch d.Peek() {
	case '{':
		return serializationErr(msgStartOfMap)
	case '[':
		if isMap {
			return serializationErr("Unrecognized collection type " + java)
		}
		return serializationErr("Unrecognized collection type class " + java)
	}
	if err := d.skip(); err != nil {
		return err
	}
	switch {
	case !inValue:
		return serializationErr(msgFieldType)
	case isList || isMap:
		return serializationErr(castErr)
	}
	return serializationErr(msgValueType)
}

// javaType names the Java type DynamoDB reads a Go input type into.
func javaType(t reflect.Type) string {
	switch {
	case t == avType:
		return modelPackage + "AttributeValue"
	case t.Kind() == reflect.Pointer:
		return javaType(t.Elem())
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return scalarJava("Blob")
	case t.Kind() == reflect.Slice:
		return "java.util.List<" + javaType(t.Elem()) + ">"
	case t.Kind() == reflect.Map:
		return "java.util.Map<java.lang.String, " + javaType(t.Elem()) + ">"
	case t.Kind() == reflect.Struct:
		return modelPackage + t.Name()
	case t.Kind() == reflect.Bool:
		return scalarJava("Boolean")
	case t.Kind() == reflect.Int64:
		return scalarJava("Long")
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int32:
		return scalarJava("Integer")
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return scalarJava("Double")
	}
	return scalarJava("String")
}

// boolString reads a string DynamoDB takes for a Boolean: true, 1 or yes,
// false, 0 or no, in any case.
func boolString(s string) (value, ok bool) {
	switch {
	case strings.EqualFold(s, "true"), s == "1", strings.EqualFold(s, "yes"):
		return true, true
	case strings.EqualFold(s, "false"), s == "0", strings.EqualFold(s, "no"):
		return false, true
	}
	return false, false
}

// boolean reads a Boolean member.
func (d *jdec) boolean() (bool, error) {
	switch c := d.Peek(); {
	case c == 't' && d.Lit("true"):
		return true, nil
	case c == 'f' && d.Lit("false"):
		return false, nil
	case c == '"':
		start := d.I
		s, err := d.str()
		if err != nil {
			return false, err
		}
		if b, ok := boolString(s); ok {
			return b, nil
		}
		d.I = start
	}
	return false, d.scalarErr("Boolean")
}

// ---------------------------------------------------------------------------
// Reflection-driven decoding of input structs.

// decFn decodes a value into v; inValue tells whether the value is a
// list's element or a map's value rather than a structure's member (see
// collectionErr).
type decFn func(d *jdec, v reflect.Value, inValue bool) error

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
		if err := decoderFor(v.Type())(d, v, false); err != nil {
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
		return func(d *jdec, v reflect.Value, inValue bool) error { return (*p)(d, v, inValue) }
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
		return func(d *jdec, v reflect.Value, inValue bool) error {
			av, err := d.attr(inValue)
			if err == nil && av != nil {
				v.Set(reflect.ValueOf(av))
			}
			return err
		}
	case t == itemType:
		return func(d *jdec, v reflect.Value, inValue bool) error {
			it, err := d.item(inValue)
			if err == nil && it != nil {
				v.Set(reflect.ValueOf(it))
			}
			return err
		}
	case t == timeType:
		return func(d *jdec, v reflect.Value, _ bool) error {
			if d.Peek() != '-' && (d.Peek() < '0' || d.Peek() > '9') {
				return d.scalarErr("Date")
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
		return func(d *jdec, v reflect.Value, inValue bool) error {
			p := reflect.New(t.Elem())
			if err := elem(d, p.Elem(), inValue); err != nil {
				return err
			}
			v.Set(p)
			return nil
		}
	case reflect.String:
		empty := ""
		if t == reflect.TypeFor[types.ComparisonOperator]() {
			// An empty operator is a value outside the enum, not a
			// missing one (dynalite's suite records DynamoDB so).
			empty = emptyEnum
		}
		return func(d *jdec, v reflect.Value, _ bool) error {
			if d.Peek() != '"' {
				return d.scalarErr("String")
			}
			s, err := d.str()
			if s == "" {
				s = empty
			}
			v.SetString(s)
			return err
		}
	case reflect.Bool:
		return func(d *jdec, v reflect.Value, _ bool) error {
			b, err := d.boolean()
			v.SetBool(b)
			return err
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		name := "Integer"
		if t.Kind() == reflect.Int64 {
			name = "Long"
		}
		return func(d *jdec, v reflect.Value, _ bool) error {
			if c := d.Peek(); c != '-' && (c < '0' || c > '9') {
				return d.scalarErr(name)
			}
			n, err := d.number()
			if err != nil {
				return err
			}
			i, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				f, _ := strconv.ParseFloat(n, 64)
				if f = math.Floor(f); f >= math.MaxInt64 || f < math.MinInt64 {
					return serializationErr("NUMBER_VALUE cannot be converted to " + name)
				}
				i = int64(f)
			}
			if v.OverflowInt(i) {
				return serializationErr("NUMBER_VALUE cannot be converted to " + name)
			}
			v.SetInt(i)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(d *jdec, v reflect.Value, _ bool) error {
			if c := d.Peek(); c != '-' && (c < '0' || c > '9') {
				return d.scalarErr("Double")
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
			return func(d *jdec, v reflect.Value, _ bool) error {
				b, err := d.blob()
				if err == nil {
					v.SetBytes(b)
				}
				return err
			}
		}
		elem, java := buildDecoder(t.Elem(), building), javaType(t)
		return func(d *jdec, v reflect.Value, inValue bool) error {
			if d.Peek() != '[' {
				return d.collectionErr(java, inValue)
			}
			s := reflect.MakeSlice(t, 0, 4)
			err := d.array(func() error {
				if d.null() {
					s = reflect.Append(s, reflect.Zero(t.Elem()))
					return nil
				}
				s = reflect.Append(s, reflect.Zero(t.Elem()))
				return elem(d, s.Index(s.Len()-1), true)
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
		elem, java := buildDecoder(t.Elem(), building), javaType(t)
		return func(d *jdec, v reflect.Value, inValue bool) error {
			if d.Peek() != '{' {
				return d.collectionErr(java, inValue)
			}
			m := reflect.MakeMap(t)
			err := d.object(func(k string) error {
				e := reflect.New(t.Elem()).Elem()
				if !d.null() {
					if err := elem(d, e, true); err != nil {
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
		java := javaType(t)
		return func(d *jdec, v reflect.Value, inValue bool) error {
			if d.Peek() != '{' {
				return d.collectionErr(java, inValue)
			}
			return d.object(func(k string) error {
				f, ok := fields[k]
				if !ok {
					return d.skip()
				}
				if d.null() {
					return nil
				}
				return f.dec(d, v.Field(f.index), false)
			})
		}
	}
	return skipDecoder
}

func skipDecoder(d *jdec, _ reflect.Value, _ bool) error { return d.skip() }

// blob reads a base64 string.
func (d *jdec) blob() ([]byte, error) {
	if d.Peek() != '"' {
		return nil, d.scalarErr("Blob")
	}
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	if len(s)%4 != 0 {
		return nil, serializationErr(fmt.Sprintf("Base64 encoded length is expected a multiple of 4 bytes but found: %d", len(s)))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		valid := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
		if !valid {
			return nil, serializationErr(fmt.Sprintf("Invalid Base64 character: '%c'", c))
		}
	}
	// A padding character before the end, or bits left over in the last
	// character before the padding, is DynamoDB's (misspelt) message.
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, serializationErr("Invalid last non-pad Base64 character dectected")
	}
	return b, nil
}

// ---------------------------------------------------------------------------
// Attribute values.

const errManyTypes = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"

// javaItem is the Java type of a map of attribute values.
const javaItem = "java.util.Map<java.lang.String, " + modelPackage + "AttributeValue>"

// item reads a map of attribute values; inValue as for decFn.
func (d *jdec) item(inValue bool) (item, error) {
	if d.Peek() != '{' {
		return nil, d.collectionErr(javaItem, inValue)
	}
	it := item{}
	err := d.object(func(k string) error {
		if d.null() {
			it[k] = nil
			return nil
		}
		v, err := d.attr(true)
		it[k] = v
		return err
	})
	return it, err
}

// attr reads one attribute value; an object with no type member is nil,
// which the engine reports as an empty attribute value. inValue as for
// decFn.
func (d *jdec) attr(inValue bool) (types.AttributeValue, error) {
	if d.Peek() != '{' {
		return nil, d.collectionErr(modelPackage+"AttributeValue", inValue)
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
				return d.scalarErr("String")
			}
			s, err := d.str()
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberS{Value: s}
		case "N":
			if d.Peek() != '"' {
				return d.scalarErr("String")
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
			b, err := d.boolean()
			if err != nil {
				return err
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
				return d.collectionErr("java.util.List<java.nio.ByteBuffer>", false)
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
				return d.collectionErr("java.util.List<"+modelPackage+"AttributeValue>", false)
			}
			l := []types.AttributeValue{}
			err := d.array(func() error {
				if d.null() {
					l = append(l, nil)
					return nil
				}
				x, err := d.attr(true)
				l = append(l, x)
				return err
			})
			if err != nil {
				return err
			}
			v = &types.AttributeValueMemberL{Value: l}
		case "M":
			m, err := d.item(false)
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
		// that is not one is reported before the extra types. Either is
		// reported where the value is checked, in the words of its
		// place ("ExpressionAttributeValues contains invalid value: ...").
		if num != nil {
			if _, err := ddbexpr.ParseNumber(num.Value); err != nil {
				return invalidValue(err.Error()), nil
			}
		}
		return invalidValue(errManyTypes), nil
	}
	return av, nil
}

// invalidTag marks an attribute value the decoder read but DynamoDB
// rejects (invalidValue).
const invalidTag = "ddbmem.invalid"

// invalidValue is an attribute value that the engine's checks reject
// with msg: a types.UnknownUnionMember, which no client sends.
func invalidValue(msg string) types.AttributeValue {
	return &types.UnknownUnionMember{Tag: invalidTag, Value: []byte(msg)}
}

// invalidErr is the error of an invalidValue, or nil for any other value.
func invalidErr(v types.AttributeValue) error {
	if u, ok := v.(*types.UnknownUnionMember); ok && u.Tag == invalidTag {
		return validation(string(u.Value))
	}
	return nil
}

func (d *jdec) strList() ([]string, error) {
	if d.Peek() != '[' {
		return nil, d.collectionErr("java.util.List<java.lang.String>", false)
	}
	l := []string{}
	err := d.array(func() error {
		if d.null() {
			return nil
		}
		if d.Peek() != '"' {
			return d.scalarErr("String")
		}
		s, err := d.str()
		l = append(l, s)
		return err
	})
	return l, err
}
