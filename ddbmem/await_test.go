//go:build unix

package ddbmem

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestAwaitReply: awaitReply sends the whole message and returns once
// the reply has begun to arrive, which the next read then finds; a read
// deadline or the peer's close ends the wait, and the read that follows
// reports it; a message the socket cannot take at once is sent in part,
// for the caller to finish.
func TestAwaitReply(t *testing.T) {
	t.Run("reply", func(t *testing.T) {
		c, s := tcpPair(t)
		aw := newAwaiter(c)
		if aw == nil {
			t.Fatal("no awaiter for a TCP connection")
		}
		go func() {
			buf := make([]byte, 5)
			if _, err := io.ReadFull(s, buf); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond) // the client is waiting by now
			_, _ = s.Write(append(buf, " back"...))
		}()
		start := time.Now()
		n, err := aw.awaitReply([]byte("hello"))
		if err != nil || n != 5 {
			t.Fatalf("awaitReply = %d, %v", n, err)
		}
		if d := time.Since(start); d < 15*time.Millisecond {
			t.Fatalf("returned after %v, before the reply", d)
		}
		got := make([]byte, 10)
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "hello back" {
			t.Fatalf("read %q, %v", got, err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		c, _ := tcpPair(t)
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		n, err := newAwaiter(c).awaitReply([]byte("x"))
		if err != nil || n != 1 {
			t.Fatalf("awaitReply = %d, %v", n, err)
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read after the deadline: %v", err)
		}
	})
	t.Run("peer closes", func(t *testing.T) {
		c, s := tcpPair(t)
		go func() {
			_, _ = s.Read(make([]byte, 1))
			s.Close()
		}()
		if n, err := newAwaiter(c).awaitReply([]byte("x")); err != nil || n != 1 {
			t.Fatalf("awaitReply = %d, %v", n, err)
		}
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("read after the peer closed: %v", err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		c, _ := tcpPair(t)
		aw := newAwaiter(c)
		c.Close()
		if _, err := aw.awaitReply([]byte("x")); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("awaitReply on a closed connection: %v", err)
		}
	})
	t.Run("full socket", func(t *testing.T) {
		c, s := tcpPair(t)
		msg := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16) // more than the socket buffers take
		n, err := newAwaiter(c).awaitReply(msg)
		if err != nil || n == 0 || n >= len(msg) {
			t.Fatalf("awaitReply = %d of %d, %v", n, len(msg), err)
		}
		done := make(chan []byte)
		go func() {
			got, _ := io.ReadAll(io.LimitReader(s, int64(len(msg))))
			done <- got
		}()
		if _, err := c.Write(msg[n:]); err != nil {
			t.Fatal(err)
		}
		if got := <-done; !bytes.Equal(got, msg) {
			t.Fatalf("the peer read %d bytes, not the message", len(got))
		}
	})
}
