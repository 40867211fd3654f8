package ddbmem

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadResponseHead checks that the lean transport's parser reads the
// heads it takes up as http.ReadResponse does: status, headers (values
// trimmed, empty, repeated, many) and length.
func TestReadResponseHead(t *testing.T) {
	var many strings.Builder
	for i := range 12 {
		fmt.Fprintf(&many, "X-H%d: v%d\r\n", i, i)
	}
	for _, head := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Crc32: 123\r\nX-Amzn-Requestid: ABC\r\nDate: Thu, 26 Nov 2026 18:00:00 GMT\r\nContent-Length: 2\r\n\r\n",
		"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\nX-Custom:  v \r\nX-Empty:\r\nX-Blank:   \r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Rep: a\r\nContent-Length: 2\r\nX-Rep: b\r\nx-rep:c\r\n\r\n",
		"HTTP/1.1 200 OK\r\n" + many.String() + "Content-Length: 2\r\nConnection: keep-alive\r\n\r\n",
	} {
		raw := head + "{}"
		req, _ := http.NewRequest(http.MethodPost, "http://h/", nil)
		br := bufio.NewReader(strings.NewReader(raw))
		_, _ = br.Peek(1) // as roundTrip does: the head is buffered
		got, ok := readResponseHead(br, req)
		if !ok {
			t.Fatalf("%q: not read", head)
		}
		want, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), req)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.Header, got.Header); d != "" {
			t.Errorf("%q: headers (-net/http +lean):\n%s", head, d)
		}
		if got.StatusCode != want.StatusCode || got.ContentLength != want.ContentLength || got.Close != want.Close {
			t.Errorf("%q: status %d length %d close %v, want %d %d %v", head, got.StatusCode, got.ContentLength, got.Close, want.StatusCode, want.ContentLength, want.Close)
		}
	}
}

// TestAppendRequestRefusesBadHeaders: the transport refuses, as net/http
// does, a header name that is not a token and a value with a control
// byte other than tab; a tab and bytes from 0x80 up pass.
func TestAppendRequestRefusesBadHeaders(t *testing.T) {
	for _, c := range []struct {
		name, value string
		ok          bool
	}{
		{"X-Amz-Target", "DynamoDB_20120810.GetItem", true},
		{"User-Agent", "aws-sdk-go-v2/1.0 os/linux\tlang/go#1.26 é", true},
		{"X-Bad", "a\r\nInjected: 1", false},
		{"X-Bad", "nul\x00", false},
		{"X-Bad", "del\x7f-in-the-middle-of-a-long-value", false},
		{"Bad Name", "v", false},
		{"Bad:Name", "v", false},
	} {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header[c.name] = []string{c.value}
		_, err = appendRequest(nil, req, "127.0.0.1:1", []byte("{}"))
		if (err == nil) != c.ok {
			t.Errorf("%q: %q: error %v, want ok=%v", c.name, c.value, err, c.ok)
		}
	}
}
