//go:build linux

package bench

import (
	"net"
	"sync/atomic"
	"syscall"
	"testing"
)

// BenchmarkLoopbackSpin is BenchmarkLoopback with nothing of Go's between
// the two ends: each end's OS thread reads its socket with raw
// non-blocking system calls in a busy loop, so no goroutine parks, no
// poller wakes and no thread sleeps. What is left is the kernel's own
// loopback TCP path, two sends and their reads: a floor under any
// network round trip on the machine, which no server, client or
// transport can go below. It keeps both cores busy while it runs.
func BenchmarkLoopbackSpin(b *testing.B) {
	for _, c := range wireSizes {
		b.Run(c.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer ln.Close()
			var stop atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				defer conn.Close()
				fd := rawFD(b, conn)
				in, out := make([]byte, c.req), make([]byte, c.resp)
				for spinRead(fd, in, &stop) {
					spinWrite(fd, out)
				}
			}()
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			fd := rawFD(b, conn)
			req, resp := make([]byte, c.req), make([]byte, c.resp)
			timeOps(b, true, func(int) {
				spinWrite(fd, req)
				if !spinRead(fd, resp, &stop) {
					b.Fatal("server closed")
				}
			})
			stop.Store(true)
			<-done
			_ = conn.Close()
		})
	}
}

// rawFD returns the socket of conn, which Go keeps non-blocking.
func rawFD(b *testing.B, conn net.Conn) int {
	rc, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	fd := -1
	if err := rc.Control(func(s uintptr) { fd = int(s) }); err != nil {
		b.Fatal(err)
	}
	return fd
}

// spinRead fills buf from fd, retrying at once while nothing has come;
// false when the peer closed, an error happened or stop is set.
func spinRead(fd int, buf []byte, stop *atomic.Bool) bool {
	for n := 0; n < len(buf); {
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EAGAIN:
			if stop.Load() {
				return false
			}
		case err != nil || m == 0:
			return false
		default:
			n += m
		}
	}
	return true
}

// spinWrite writes all of buf to fd, retrying at once while the socket's
// buffer is full.
func spinWrite(fd int, buf []byte) {
	for n := 0; n < len(buf); {
		m, err := syscall.Write(fd, buf[n:])
		if err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return
		}
		n += m
	}
}
