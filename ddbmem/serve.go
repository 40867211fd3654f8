package ddbmem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Server is an engine served over HTTP on a TCP address (see [Serve]).
//
// Its own clients ([Server.Client], [Server.StreamsClient]) reach it in
// process rather than on TCP: on connections of memory (a buffer each
// way) that carry the same HTTP bytes to the same loop as a socket
// would, without system calls. On a virtual machine a loopback round
// trip, its system calls and waking the goroutines at each end can cost
// as much as the SDK's client and the engine together; in process the
// request costs little more than a call of [DB.Handler] (see
// BenchmarkEngineHTTP in internal/bench). To get there, a reader waiting
// on such a connection waits busy for up to 400 µs, yielding its
// processor every 2 µs, before it parks, unless its last wait was longer
// (an idle connection parks at once), and only while GOMAXPROCS is 2 or
// more: a client in a busy loop keeps a processor of its server busy.
// Clients of [Server.URL] use TCP, and so do its own clients once it is
// closed: a server started again on the same address answers them.
//
// Each connection is read by a lean HTTP/1.1 loop that answers the
// requests DynamoDB clients send — a POST to "/" with a Content-Length
// body and the usual headers — itself: it parses the request head in
// place, calls the engine and writes the response in one write, on the
// connection's goroutine. net/http's server costs more per request than
// the engine does (a background reader goroutine per request, a header
// map, a buffered response writer). At the first request the loop does
// not take up (another method or path, HTTP/1.0, chunked or unsized
// bodies, Expect, Upgrade, CORS, oversized or unusual heads, malformed
// requests) it hands the connection, that request included, to a
// net/http server running [DB.Handler], which serves the connection from
// then on. Both answer with the same headers (Content-Type,
// X-Amz-Crc32, X-Amzn-Requestid, Content-Length, Date), except the 413
// to a body over 16 MB, which is DynamoDB's: an empty chunked body with
// only X-Amzn-Requestid and Date.
type Server struct {
	db  *DB
	url string
	ln  net.Listener
	srv *http.Server
	hl  *handoffListener

	ctx    context.Context // the engine calls' context, cancelled by Close
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // served by the lean loop
	closed bool
}

// Serve serves db over DynamoDB's HTTP protocol on addr ("host:port";
// "" means a free loopback port, 127.0.0.1:0) until Close. It returns
// once the endpoint accepts connections: [Server.URL] is the endpoint
// for any DynamoDB client, [Server.Client] an SDK client pointed at it.
func Serve(db *DB, addr string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{db: db, ln: ln, srv: &http.Server{Handler: db.Handler()}, conns: map[net.Conn]struct{}{}}
	s.hl = &handoffListener{addr: ln.Addr(), ch: make(chan net.Conn), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.url = "http://" + net.JoinHostPort(host, port)
	go func() { _ = s.srv.Serve(s.hl) }()
	go s.accept(ln)
	return s, nil
}

// Close stops the server and closes its connections. The engine and its
// data are untouched.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.cancel()
	err := s.ln.Close()
	if herr := s.srv.Close(); err == nil {
		err = herr
	}
	return err
}

// accept serves the connections of ln.
func (s *Server) accept(ln net.Listener) {
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: back off and try
			// again, as net/http does.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if !s.track(c, true) {
			c.Close()
			return
		}
		go s.serveConn(c)
	}
}

// dialPipe opens an in-process connection to the server, served like a
// connection it accepts; nil once the server is closed.
func (s *Server) dialPipe() net.Conn {
	cc, sc := newPipe()
	if !s.track(sc, true) {
		return nil
	}
	go s.serveConn(sc)
	return cc
}

// track adds c to the lean loop's connections, or removes it; it reports
// false once the server is closed.
func (s *Server) track(c net.Conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		if s.closed {
			return false
		}
		s.conns[c] = struct{}{}
	} else {
		delete(s.conns, c)
	}
	return !s.closed
}

// maxFastHead bounds a request head the lean loop reads; bigger heads go
// to net/http, which takes up to 1 MB.
const maxFastHead = 16 << 10

// connState is the lean loop's state of one connection.
type connState struct {
	c    net.Conn
	br   *bufio.Reader
	wbuf []byte
	date []byte // the Date header's value
	sec  int64  // the second date is for
}

func (s *Server) serveConn(c net.Conn) {
	cs := &connState{c: c, br: bufio.NewReaderSize(c, maxFastHead)}
	handedOff := false
	defer func() {
		if !handedOff {
			s.track(c, false)
			c.Close()
		}
	}()
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	for {
		rq, headLen, keepAlive, ok, err := readHead(cs.br)
		if err != nil {
			return
		}
		if !ok {
			if s.track(c, false) && s.hl.give(&bufConn{Conn: c, r: cs.br}) {
				handedOff = true
			}
			return
		}
		_, _ = cs.br.Discard(headLen)
		n := rq.contentLength
		if cap(*bp) < n {
			*bp = make([]byte, 0, n)
		}
		body := (*bp)[:n]
		if _, err := io.ReadFull(cs.br, body); err != nil {
			return
		}
		rq.body = body
		status, ct, out := s.db.respond(s.ctx, &rq.request, (*bp)[:0])
		*bp = out[:0]
		if cap(*bp) > 1<<20 {
			*bp = make([]byte, 0, 4096) // a big request's buffer is left to the GC
		}
		if err := cs.writeResponse(status, ct, out, keepAlive); err != nil || !keepAlive {
			return
		}
	}
}

// writeResponse writes a response as [writeBody] and net/http do.
func (cs *connState) writeResponse(status int, ct string, body []byte, keepAlive bool) error {
	w := cs.wbuf[:0]
	w = append(w, "HTTP/1.1 "...)
	w = strconv.AppendInt(w, int64(status), 10)
	w = append(w, ' ')
	w = append(w, http.StatusText(status)...)
	w = append(w, "\r\n"...)
	if ct != "" {
		w = append(w, "Content-Type: "...)
		w = append(w, ct...)
		w = append(w, "\r\n"...)
	}
	w = append(w, "X-Amz-Crc32: "...)
	w = strconv.AppendUint(w, uint64(crc32.ChecksumIEEE(body)), 10)
	w = append(w, "\r\nX-Amzn-Requestid: "...)
	w = appendRequestID(w)
	if now := time.Now(); now.Unix() != cs.sec {
		cs.sec = now.Unix()
		cs.date = now.UTC().AppendFormat(cs.date[:0], http.TimeFormat)
	}
	w = append(w, "\r\nDate: "...)
	w = append(w, cs.date...)
	w = append(w, "\r\nContent-Length: "...)
	w = strconv.AppendInt(w, int64(len(body)), 10)
	if !keepAlive {
		w = append(w, "\r\nConnection: close"...)
	}
	w = append(w, "\r\n\r\n"...)
	w = append(w, body...)
	if cap(w) <= 1<<20 {
		cs.wbuf = w
	} else {
		cs.wbuf = nil
	}
	_, err := cs.c.Write(w)
	return err
}

// fastRequest is a request the lean loop takes up.
type fastRequest struct {
	request
	contentLength int
}

// readHead reads the next request's head, without consuming it. ok
// reports whether the lean loop takes the request up; then rq is the
// request but its body, headLen the head's length, and keepAlive whether
// the connection stays open after it. err is set when the connection is
// closed or failed before a request.
func readHead(br *bufio.Reader) (rq fastRequest, headLen int, keepAlive, ok bool, err error) {
	// Wait for the next request, then read until the head's end.
	if _, err = br.Peek(1); err != nil {
		return rq, 0, false, false, err
	}
	var head []byte
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			head = buf[:i+2]
			headLen = i + 4
			break
		}
		if len(buf) >= maxFastHead {
			return rq, 0, false, false, nil
		}
		if _, perr := br.Peek(len(buf) + 1); perr != nil {
			// The connection ended inside a head: net/http answers it.
			return rq, 0, false, false, nil
		}
	}
	line, rest, lf := headLine(head)
	if !lf || string(line) != "POST / HTTP/1.1" {
		return rq, 0, false, false, nil
	}
	rq.post = true
	keepAlive = true
	host, length := false, false
	for len(rest) > 0 {
		line, rest, lf = headLine(rest)
		colon := bytes.IndexByte(line, ':')
		if !lf || colon <= 0 || !plainHeader(line, colon) {
			return rq, 0, false, false, nil
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		switch {
		case headerIs(name, "Content-Length"):
			n, err := strconv.Atoi(string(value))
			if length || err != nil || n < 0 || n > maxRequestBytes || value[0] == '+' {
				return rq, 0, false, false, nil
			}
			rq.contentLength, length = n, true
		case headerIs(name, "Content-Type"):
			rq.ct = string(value)
		case headerIs(name, "X-Amz-Target"):
			rq.target = string(value)
		case headerIs(name, "Authorization"):
			rq.auth = string(value)
		case headerIs(name, "X-Amz-Date"), headerIs(name, "Date"):
			rq.date = rq.date || len(value) > 0
		case headerIs(name, "Host"):
			if host {
				return rq, 0, false, false, nil
			}
			host = true
		case headerIs(name, "Connection"):
			switch {
			case headerIs(value, "close"):
				keepAlive = false
			case headerIs(value, "keep-alive"):
			default:
				return rq, 0, false, false, nil
			}
		case headerIs(name, "Transfer-Encoding"), headerIs(name, "Expect"), headerIs(name, "Upgrade"),
			headerIs(name, "Origin"), headerIs(name, "Trailer"):
			return rq, 0, false, false, nil
		}
	}
	if !host || !length {
		return rq, 0, false, false, nil
	}
	return rq, headLen, keepAlive, true, nil
}

// plainHeader reports whether a header line is one the lean loop reads
// as net/http would: a token name right before the colon and a value of
// visible characters, spaces and tabs.
func plainHeader(line []byte, colon int) bool {
	return validName(line[:colon]) && validValue(line[colon+1:])
}

// headerIs reports whether b is s, ignoring ASCII case.
func headerIs(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	if string(b) == s { // as clients and the engine write them
		return true
	}
	for i := range b {
		c, d := b[i], s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// bufConn is a connection handed to net/http with what the lean loop
// has buffered of it.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// handoffListener is the listener of the net/http server: it accepts the
// connections the lean loop hands over.
type handoffListener struct {
	addr net.Addr
	ch   chan net.Conn
	once sync.Once
	done chan struct{}
}

// give hands c to net/http; it reports false, and closes c, when the
// server is closed.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		c.Close()
		return false
	}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }
