package ddbmem

import (
	"context"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// This file serves a DB over DynamoDB's HTTP protocol (JSON 1.0): see the
// package documentation, "HTTP endpoint".

// maxRequestBytes is DynamoDB's limit on a request body; bigger requests
// get a 413.
const maxRequestBytes = 16 << 20

// targetPrefix starts the X-Amz-Target header of every DynamoDB request.
const targetPrefix = "DynamoDB_20120810."

// handlerFn decodes a request body and calls the engine.
type handlerFn func(db *DB, ctx context.Context, body []byte) (smithy.Serializable, error)

// op adapts an engine method to a handlerFn.
func op[I any, O smithy.Serializable](m func(*DB, context.Context, *I, ...func(*dynamodb.Options)) (O, error)) handlerFn {
	return func(db *DB, ctx context.Context, body []byte) (smithy.Serializable, error) {
		in := new(I)
		if err := decodeInput(body, in); err != nil {
			return nil, err
		}
		out, err := m(db, ctx, in)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// operations are the operations the endpoint serves: every operation the
// engine implements. Other DynamoDB operations get an
// UnknownOperationException.
var operations = map[string]handlerFn{
	"BatchGetItem":       op((*DB).BatchGetItem),
	"BatchWriteItem":     op((*DB).BatchWriteItem),
	"CreateTable":        op((*DB).CreateTable),
	"DeleteItem":         op((*DB).DeleteItem),
	"DeleteTable":        op((*DB).DeleteTable),
	"DescribeTable":      op((*DB).DescribeTable),
	"DescribeTimeToLive": op((*DB).DescribeTimeToLive),
	"GetItem":            wireOp((*DB).GetItem, "Item"),
	"ListTables":         op((*DB).ListTables),
	"ListTagsOfResource": op((*DB).ListTagsOfResource),
	"PutItem":            op((*DB).PutItem),
	"Query":              wireOp((*DB).Query, "Items"),
	"Scan":               wireOp((*DB).Scan, "Items"),
	"TagResource":        op((*DB).TagResource),
	"TransactGetItems":   op((*DB).TransactGetItems),
	"TransactWriteItems": op((*DB).TransactWriteItems),
	"UntagResource":      op((*DB).UntagResource),
	"UpdateItem":         op((*DB).UpdateItem),
	"UpdateTimeToLive":   op((*DB).UpdateTimeToLive),
}

// Handler returns an http.Handler that serves db over DynamoDB's JSON 1.0
// protocol, as [Serve] does; use it to mount the engine in a server of
// one's own.
func (db *DB) Handler() http.Handler { return handler{db} }

type handler struct{ db *DB }

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd["X-Amzn-Requestid"] = []string{requestID()}
	if r.Header.Get("Origin") != "" {
		// Browsers' cross-origin requests, as DynamoDB answers them.
		hd["Access-Control-Allow-Origin"] = []string{"*"}
		if r.Method == http.MethodOptions {
			if v := r.Header.Get("Access-Control-Request-Headers"); v != "" {
				hd["Access-Control-Allow-Headers"] = []string{v}
			}
			if v := r.Header.Get("Access-Control-Request-Method"); v != "" {
				hd["Access-Control-Allow-Methods"] = []string{v}
			}
			hd["Access-Control-Max-Age"] = []string{"172800"}
			writeBody(w, 200, "", nil)
			return
		}
	}
	if r.Method == http.MethodGet {
		// DynamoDB answers a GET with a health line.
		writeBody(w, 200, "", []byte("healthy: dynamodb.us-east-1.amazonaws.com "))
		return
	}
	if r.ContentLength > maxRequestBytes {
		tooLarge(w)
		return
	}
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	body, err := readAll(r.Body, (*bp)[:0])
	*bp = body[:0]
	if err != nil {
		if errors.Is(err, errTooLarge) {
			tooLarge(w)
		}
		return
	}
	rq := request{
		post:   r.Method == http.MethodPost,
		ct:     r.Header.Get("Content-Type"),
		target: r.Header.Get("X-Amz-Target"),
		auth:   r.Header.Get("Authorization"),
		date:   r.Header.Get("X-Amz-Date") != "" || r.Header.Get("Date") != "",
		body:   body,
	}
	if r.URL.RawQuery != "" {
		rq.query = r.URL.Query()
	}
	status, ct, out := h.db.respond(r.Context(), &rq, (*bp)[:0])
	*bp = out[:0]
	writeBody(w, status, ct, out)
}

// putBuf returns a buffer of bufPool; big buffers are left to the GC.
func putBuf(bp *[]byte) {
	if cap(*bp) <= 1<<20 {
		bufPool.Put(bp)
	}
}

// request is what the endpoint reads of an HTTP request other than a GET
// or a browser's preflight OPTIONS.
type request struct {
	post   bool   // the method is POST
	ct     string // Content-Type
	target string // X-Amz-Target
	auth   string // Authorization
	date   bool   // X-Amz-Date or Date is set
	query  url.Values
	body   []byte
}

// respond answers rq: the status, the content type ("" for none) and the
// body, appended to buf.
func (db *DB) respond(ctx context.Context, rq *request, buf []byte) (int, string, []byte) {
	body := rq.body
	ct, _, _ := strings.Cut(rq.ct, ";")
	ct = strings.TrimSpace(ct)
	if !rq.post || (len(body) > 0 && ct != "application/x-amz-json-1.0" && ct != "application/json") {
		return 404, "", append(buf, "<UnknownOperationException/>\n"...)
	}
	if ct != "application/x-amz-json-1.0" {
		ct = "application/json"
	}
	opName, ok := strings.CutPrefix(rq.target, targetPrefix)
	fn := operations[opName]
	if !ok {
		fn, ok = streamsOperation(rq.target) // DynamoDB Streams: stream_serve.go
	}
	if !ok || fn == nil {
		if len(body) > 0 && !validJSON(body) {
			return appendError(buf, ct, errSyntax)
		}
		return appendError(buf, ct, &wireError{typ: "com.amazon.coral.service#UnknownOperationException", status: 400})
	}
	if err := checkAuth(rq); err != nil {
		if len(body) > 0 && !validJSON(body) {
			err = errSyntax // DynamoDB parses the body first
		}
		return appendError(buf, ct, err)
	}
	if len(body) == 0 {
		return appendError(buf, ct, errSyntax)
	}
	// The body's string copy made by the decoder keeps the strings of
	// the request alive, not the pooled buffer, which buf may share.
	out, err := fn(db, ctx, body)
	if err != nil {
		return appendError(buf, ct, err)
	}
	var w *wireOut
	if wo, ok := out.(*wireOut); ok {
		w, out = wo, wo.out
	}
	e := jenc{buf: buf}
	out.Serialize(&e)
	buf = appendZeroCounts(e.buf, out)
	if w != nil {
		buf = w.appendRecords(buf)
	}
	return 200, ct, buf
}

// appendZeroCounts adds the Count and ScannedCount members of a Query or
// Scan output that are 0: the SDK's serializer leaves zero numbers out,
// but DynamoDB always sends both, and clients other than the Go SDK
// (the AWS CLI, dynalite's suite) read them.
func appendZeroCounts(buf []byte, out any) []byte {
	var count, scanned int32
	switch o := out.(type) {
	case *dynamodb.QueryOutput:
		count, scanned = o.Count, o.ScannedCount
	case *dynamodb.ScanOutput:
		count, scanned = o.Count, o.ScannedCount
	default:
		return buf
	}
	if count != 0 && scanned != 0 || len(buf) < 2 || buf[len(buf)-1] != '}' {
		return buf
	}
	buf = buf[:len(buf)-1]
	for _, m := range []struct {
		name string
		zero bool
	}{{"Count", count == 0}, {"ScannedCount", scanned == 0}} {
		if !m.zero {
			continue
		}
		if buf[len(buf)-1] != '{' {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, m.name...)
		buf = append(buf, `":0`...)
	}
	return append(buf, '}')
}

var errTooLarge = errors.New("request too large")

// tooLarge answers a request over 16 MB as DynamoDB does: a 413 with an
// empty chunked body.
func tooLarge(w http.ResponseWriter) {
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func coralErr(name, msg string) error {
	return &wireError{typ: "com.amazon.coral.service#" + name, status: 400, msgKey: "message", msg: msg}
}

// checkAuth checks that a request carries a complete AWS signature, in
// the Authorization header or in the query string, as DynamoDB does
// before anything else; the signature itself is not verified.
func checkAuth(rq *request) error {
	header := rq.auth
	query := rq.query
	_, inQuery := query["X-Amz-Algorithm"]
	switch {
	case header != "" && inQuery:
		return coralErr("InvalidSignatureException", "Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header.")
	case header == "" && !inQuery, header != "" && !strings.HasPrefix(strings.TrimSpace(header), "AWS4-"):
		return coralErr("MissingAuthenticationTokenException", "Request is missing Authentication Token")
	}
	var msg strings.Builder
	if header != "" {
		params := map[string]string{}
		for i, f := range strings.FieldsFunc(header, func(r rune) bool { return r == ',' || r == ' ' }) {
			if i == 0 {
				continue // the algorithm
			}
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			params[k] = v
		}
		for _, p := range []string{"Credential", "Signature", "SignedHeaders"} {
			if params[p] == "" {
				msg.WriteString("Authorization header requires '" + p + "' parameter. ")
			}
		}
		if !rq.date {
			msg.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
		}
		if msg.Len() > 0 {
			msg.WriteString("Authorization=" + header)
		}
	} else {
		for _, p := range []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"} {
			if query.Get(p) == "" {
				msg.WriteString("AWS query-string parameters must include '" + p + "'. ")
			}
		}
		if msg.Len() > 0 {
			msg.WriteString("Re-examine the query-string parameters.")
		}
	}
	if msg.Len() > 0 {
		return coralErr("IncompleteSignatureException", msg.String())
	}
	return nil
}

// readAll reads r into buf, up to maxRequestBytes.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > maxRequestBytes {
			return buf, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func validJSON(b []byte) bool {
	d := newJdec(string(b))
	return d.skip() == nil && d.End()
}

// writeBody writes a response with DynamoDB's headers: its length, its
// CRC32 (which the SDKs check) and its content type.
func writeBody(w http.ResponseWriter, status int, ct string, body []byte) {
	hd := w.Header()
	if ct != "" {
		hd["Content-Type"] = []string{ct}
	} else {
		hd["Content-Type"] = nil // no sniffed type, as DynamoDB sends none
	}
	hd["X-Amz-Crc32"] = []string{strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)}
	hd["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// errorNamespace prefixes the __type of DynamoDB's modelled errors.
const errorNamespace = "com.amazonaws.dynamodb.v20120810#"

// coralErrors are the errors whose __type is in the service framework's
// namespaces rather than DynamoDB's.
var coralErrors = map[string]string{
	ValidationException:            "com.amazon.coral.validate#ValidationException",
	"ThrottlingException":          "com.amazon.coral.availability#ThrottlingException",
	"UnrecognizedClientException":  "com.amazon.coral.service#UnrecognizedClientException",
	"AccessDeniedException":        "com.amazon.coral.service#AccessDeniedException",
	"IncompleteSignatureException": "com.amazon.coral.service#IncompleteSignatureException",
}

// appendError appends err to buf as DynamoDB sends it: a JSON body with
// __type and the error's members (message, Item, CancellationReasons,
// ...). It returns the status, ct and the body.
func appendError(buf []byte, ct string, err error) (int, string, []byte) {
	e := jenc{buf: buf}
	start := len(buf)
	status := 400
	var we *wireError
	var api smithy.APIError
	switch {
	case errors.As(err, &we):
		status = we.status
		e.buf = append(e.buf, `{"__type":`...)
		e.buf = appendJSONString(e.buf, we.typ)
		if we.msg != "" {
			e.buf = append(e.buf, ',')
			e.buf = appendJSONString(e.buf, we.msgKey)
			e.buf = append(e.buf, ':')
			e.buf = appendJSONString(e.buf, we.msg)
		}
		e.buf = append(e.buf, '}')
	case errors.As(err, &api):
		code := api.ErrorCode()
		typ := errorNamespace + code
		if t, ok := coralErrors[code]; ok {
			typ = t
		}
		if api.ErrorFault() == smithy.FaultServer {
			status = 500
		}
		ser, ok := api.(smithy.Serializable)
		if !ok {
			// Engine validation errors and other generic errors carry a
			// message only, under DynamoDB's lower-case key (the
			// service framework's AccessDeniedException: "Message").
			e.buf = append(e.buf, `{"__type":`...)
			e.buf = appendJSONString(e.buf, typ)
			if code == "AccessDeniedException" {
				e.buf = append(e.buf, `,"Message":`...)
			} else {
				e.buf = append(e.buf, `,"message":`...)
			}
			e.buf = appendJSONString(e.buf, api.ErrorMessage())
			e.buf = append(e.buf, '}')
			break
		}
		ser.Serialize(&e)
		// Insert __type as the first member.
		head := `{"__type":` + string(appendJSONString(nil, typ))
		if len(e.buf)-start > 2 {
			head += ","
		}
		e.buf = append(e.buf[:start], append([]byte(head), e.buf[start+1:]...)...)
	default:
		status = 500
		msg := "The request processing has failed because of an unknown error, exception or failure."
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			msg = err.Error()
		}
		e.buf = append(e.buf, `{"__type":"com.amazon.coral.service#InternalFailure","message":`...)
		e.buf = appendJSONString(e.buf, msg)
		e.buf = append(e.buf, '}')
	}
	return status, ct, e.buf
}

const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// requestID returns a request id in DynamoDB's form: 52 upper-case
// letters and digits.
func requestID() string { return string(appendRequestID(make([]byte, 0, 52))) }

// appendRequestID appends a request id (see requestID) to b.
func appendRequestID(b []byte) []byte {
	for i := 0; i < 52; i += 10 {
		r := rand.Uint64()
		for j := i; j < min(i+10, 52); j++ {
			b = append(b, idChars[r%uint64(len(idChars))])
			r /= uint64(len(idChars))
		}
	}
	return b
}

// URL returns the endpoint URL, such as "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.url }

// DB returns the served engine.
func (s *Server) DB() *DB { return s.db }

// Client returns an SDK client for the endpoint, built by
// [NewEndpointClient] (the endpoint requires a signature but does not
// check it), optFns applied last. It reaches the server in process, on
// connections of memory rather than TCP (see [Server]), unless optFns
// give it an HTTPClient of their own.
func (s *Server) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(endpointOptions(s.url, s.dialPipe), endpointOptFns(optFns)...)
}
