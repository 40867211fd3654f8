package ddbmem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// transport is the HTTP client [NewEndpointClient] gives the SDK for an
// http:// endpoint: HTTP/1.1 over keep-alive connections, each request
// written in one write and its response read by the calling goroutine.
// net/http's transport hands every round trip to a writer and a reader
// goroutine per connection, which costs more than the round trip itself
// on loopback.
//
// It sends requests as net/http does (Host, the request's headers,
// Content-Length, Connection: close when asked; a header name that is not
// a token, or a value with a control byte other than tab, is refused),
// reads responses with
// [http.ReadResponse] (Content-Length, chunked or read-to-close bodies),
// and reuses a connection once its response body has been read to the
// end, unless either side asked to close it. A connection that has been
// idle for idleTimeout is closed rather than reused; a request that fails
// on a reused connection before any byte of the response arrived (the
// server closed it while idle) is sent once more on a new connection, as
// net/http does for a connection closed while idle. The context's
// deadline and cancellation apply to the connection while the request
// and its response are in flight. Proxies are never used (net/http
// uses none for a loopback host; a client that needs one passes an
// HTTPClient of its own). Safe for concurrent use.
type transport struct {
	dialer net.Dialer
	// pipe, when set, connects in process to the [Server] of this
	// process that listens on pipeHost (host:port), for its own clients
	// ([Server.Client]); it returns nil once that server is closed, and
	// connections are then made on TCP.
	pipe     func() net.Conn
	pipeHost string

	mu   sync.Mutex
	idle map[string][]*tconn // by host:port, most recently used last
}

// maxIdlePerHost bounds the idle connections kept per host.
const maxIdlePerHost = 64

// idleTimeout is how long an idle connection is kept. Servers close idle
// keep-alive connections after a time of their own (Jetty, which
// DynamoDB Local runs on, after 30 s by default).
const idleTimeout = 20 * time.Second

func newTransport() *transport {
	return &transport{dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}, idle: map[string][]*tconn{}}
}

// tconn is one connection of a transport.
type tconn struct {
	c        net.Conn
	br       *bufio.Reader
	wbuf     []byte
	addr     string
	idleFrom time.Time
	deadline bool // a deadline is set on c
}

// aLongTimeAgo is a deadline in the past, which unblocks reads and writes.
var aLongTimeAgo = time.Unix(1, 0)

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	if req.URL == nil || req.URL.Scheme != "http" {
		return nil, fmt.Errorf("ddbmem: transport: unsupported URL %v", req.URL)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	var body []byte
	if req.Body != nil {
		var err error
		bp := bufPool.Get().(*[]byte)
		body, err = readAll(req.Body, (*bp)[:0])
		_ = req.Body.Close()
		defer func() {
			if cap(body) <= 1<<20 {
				*bp = body[:0]
				bufPool.Put(bp)
			}
		}()
		if err != nil {
			return nil, fmt.Errorf("ddbmem: transport: reading request body: %w", err)
		}
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		c, reused, err := t.conn(ctx, addr)
		if err != nil {
			return nil, err
		}
		resp, err := t.roundTrip(ctx, c, req, host, body)
		if err == nil {
			return resp, nil
		}
		c.c.Close()
		if !reused || attempt > 0 || !errors.Is(err, errNoResponse) || ctx.Err() != nil {
			return nil, err
		}
	}
}

// errNoResponse marks a failure before any byte of the response arrived.
var errNoResponse = errors.New("connection closed before the response")

// conn returns an idle connection to addr, or a new one.
func (t *transport) conn(ctx context.Context, addr string) (*tconn, bool, error) {
	now := time.Now()
	t.mu.Lock()
	for cs := t.idle[addr]; len(cs) > 0; cs = t.idle[addr] {
		c := cs[len(cs)-1]
		cs[len(cs)-1] = nil
		t.idle[addr] = cs[:len(cs)-1]
		if now.Sub(c.idleFrom) < idleTimeout {
			t.mu.Unlock()
			return c, true, nil
		}
		c.c.Close()
	}
	t.mu.Unlock()
	var nc net.Conn
	var err error
	if t.pipe != nil && addr == t.pipeHost {
		nc = t.pipe()
	}
	if nc == nil {
		// No server of this process, or it is closed: another server
		// may have taken the TCP address since.
		nc, err = t.dialer.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, false, err
	}
	return &tconn{c: nc, br: bufio.NewReaderSize(nc, 16<<10), addr: addr}, false, nil
}

// put makes c idle, or closes it when enough are idle.
func (t *transport) put(c *tconn) {
	c.idleFrom = time.Now()
	t.mu.Lock()
	if cs := t.idle[c.addr]; len(cs) < maxIdlePerHost {
		t.idle[c.addr] = append(cs, c)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	c.c.Close()
}

// roundTrip sends req on c and reads the response head. On error c is
// not usable.
func (t *transport) roundTrip(ctx context.Context, c *tconn, req *http.Request, host string, body []byte) (*http.Response, error) {
	if d, ok := ctx.Deadline(); ok {
		_ = c.c.SetDeadline(d)
		c.deadline = true
	} else if c.deadline {
		_ = c.c.SetDeadline(time.Time{})
		c.deadline = false
	}
	stop := func() bool { return true }
	if ctx.Done() != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cc := c.c
		stop = context.AfterFunc(ctx, func() { _ = cc.SetDeadline(aLongTimeAgo) })
	}
	fail := func(err error) (*http.Response, error) {
		stop()
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	w, err := appendRequest(c.wbuf[:0], req, host, body)
	if err != nil {
		return fail(err)
	}
	c.wbuf = w
	if len(body) > 0 && len(w)+len(body) <= 64<<10 {
		w = append(w, body...)
		body = nil
	}
	if _, err := c.c.Write(w); err != nil {
		return fail(fmt.Errorf("%w: %w", errNoResponse, err))
	}
	if len(body) > 0 {
		if _, err := c.c.Write(body); err != nil {
			return fail(fmt.Errorf("%w: %w", errNoResponse, err))
		}
	}
	if cap(c.wbuf) > 64<<10 {
		c.wbuf = nil
	}
	if _, err := c.br.Peek(1); err != nil {
		return fail(fmt.Errorf("%w: %w", errNoResponse, err))
	}
	resp, ok := readResponseHead(c.br, req)
	if !ok {
		var err error
		if resp, err = http.ReadResponse(c.br, req); err != nil {
			return fail(err)
		}
	}
	b := &respBody{t: t, c: c, rc: resp.Body, stop: stop, keep: !resp.Close && !req.Close}
	if resp.Body == http.NoBody {
		b.release(true)
		return resp, nil
	}
	resp.Body = b
	return resp, nil
}

// appendRequest appends req's head (request line and headers) to buf, as
// net/http's transport writes it.
func appendRequest(buf []byte, req *http.Request, host string, body []byte) ([]byte, error) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	buf = append(buf, method...)
	buf = append(buf, ' ')
	buf = append(buf, req.URL.RequestURI()...)
	buf = append(buf, " HTTP/1.1\r\nHost: "...)
	buf = append(buf, host...)
	buf = append(buf, "\r\n"...)
	for k, vs := range req.Header {
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding", "Trailer", "Connection":
			continue
		}
		for _, v := range vs {
			if !validName(k) || !validValue(v) {
				return nil, fmt.Errorf("ddbmem: transport: invalid header %q", k)
			}
			buf = append(buf, k...)
			buf = append(buf, ": "...)
			buf = append(buf, v...)
			buf = append(buf, "\r\n"...)
		}
	}
	if len(body) > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		buf = append(buf, "Content-Length: "...)
		buf = strconv.AppendInt(buf, int64(len(body)), 10)
		buf = append(buf, "\r\n"...)
	}
	if req.Close {
		buf = append(buf, "Connection: close\r\n"...)
	}
	return append(buf, "\r\n"...), nil
}

// respBody is a response body; once read to the end, or closed, its
// connection goes back to the transport or is closed.
type respBody struct {
	t    *transport
	c    *tconn
	rc   io.ReadCloser
	stop func() bool
	keep bool
	done bool
}

func (b *respBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.release(true)
	} else if err != nil {
		b.release(false)
	}
	return n, err
}

// Close drains what is left of a small body, as net/http does, so that
// the connection can be reused.
func (b *respBody) Close() error {
	if b.done {
		return nil
	}
	n, err := io.CopyN(io.Discard, b.rc, 64<<10)
	b.release(err == io.EOF && n < 64<<10)
	return nil
}

// release ends the round trip: the connection is kept when the body was
// read to the end and neither side asked to close it.
func (b *respBody) release(eof bool) {
	b.done = true
	if !b.stop() {
		eof = false // the context's cancellation has set a deadline in the past
	}
	if eof && b.keep {
		b.t.put(b.c)
		return
	}
	b.c.c.Close()
}

// readResponseHead reads a plain response head — HTTP/1.1, a final
// status, a Content-Length, no Transfer-Encoding, header lines of
// visible characters — as http.ReadResponse would, with less work; for
// any other head it consumes nothing and reports false, and the caller
// uses http.ReadResponse.
func readResponseHead(br *bufio.Reader, req *http.Request) (*http.Response, bool) {
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 {
		return nil, false
	}
	line, rest, lf := headLine(buf[:end+2])
	if !lf || len(line) < 12 || string(line[:9]) != "HTTP/1.1 " || len(line) > 12 && line[12] != ' ' {
		return nil, false
	}
	status := line[9:]
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return nil, false
		}
		code = code*10 + int(c-'0')
	}
	if code < 200 || code == 204 || code == 304 || req.Method == http.MethodHead {
		return nil, false
	}
	// The header values are substrings of one copy of the head, and
	// their slices share one backing array: two allocations, not two per
	// header.
	head := string(rest)
	off := 0
	vals := make([]string, 0, 8)
	h := make(http.Header, 8)
	length := int64(-1)
	closing := false
	for len(rest) > 0 {
		lineStart := off
		line, rest, lf = headLine(rest)
		off += len(line) + 2
		colon := bytes.IndexByte(line, ':')
		if !lf || colon <= 0 || !plainHeader(line, colon) {
			return nil, false
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		key := knownHeader(name)
		switch key {
		case "Content-Length":
			if length >= 0 {
				return nil, false
			}
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 || value[0] == '+' {
				return nil, false
			}
			length = n
		case "Transfer-Encoding":
			return nil, false
		case "Connection":
			switch {
			case headerIs(value, "close"):
				closing = true
			case headerIs(value, "keep-alive"):
			default:
				return nil, false
			}
		case "":
			key = http.CanonicalHeaderKey(string(name))
		}
		v := ""
		if len(value) > 0 {
			start := lineStart + cap(line) - cap(value) // value is a part of line
			v = head[start : start+len(value)]
		}
		if h[key] == nil && len(vals) < cap(vals) {
			vals = append(vals, v)
			h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		} else {
			h[key] = append(h[key], v)
		}
	}
	if length < 0 {
		return nil, false
	}
	_, _ = br.Discard(end + 4)
	st := "200 OK"
	if string(status) != st {
		st = string(status)
	}
	resp := &http.Response{
		Status:        st,
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		ContentLength: length,
		Close:         closing,
		Request:       req,
		Body:          http.NoBody,
	}
	if length > 0 {
		resp.Body = &lengthBody{r: br, n: length}
	}
	return resp, true
}

// knownHeader returns the canonical form of the response headers the SDK
// reads, or "" for another name.
func knownHeader(name []byte) string {
	if len(name) < len(knownByLen) {
		if k := knownByLen[len(name)]; k != "" && headerIs(name, k) {
			return k
		}
	}
	return ""
}

// knownByLen are the response headers the transport reads, by the length
// of their names, which differ.
var knownByLen = func() (t [18]string) {
	for _, k := range []string{"Content-Type", "Content-Length", "X-Amz-Crc32", "X-Amzn-Requestid", "Date", "Connection", "Transfer-Encoding"} {
		if t[len(k)] != "" {
			panic("ddbmem: two known headers of one length")
		}
		t[len(k)] = k
	}
	return t
}()

// lengthBody reads a body of n bytes from r.
type lengthBody struct {
	r *bufio.Reader
	n int64
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if b.n == 0 {
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *lengthBody) Close() error { return nil }
