//go:build unix

package ddbmem

import (
	"net"
	"syscall"
)

// awaiter writes a message on a TCP connection and waits for the reply
// in one step, saving the system call that a read issued right after a
// write makes in vain.
//
// A goroutine that writes a request and then reads the answer normally
// makes a read that finds nothing yet (EAGAIN) before the runtime parks
// it until the connection is readable. awaitReply writes inside the
// connection's raw read instead: the runtime resets the connection's
// read readiness before the callback runs, the callback writes and asks
// to wait, and the reply's arrival, which can only follow the write,
// wakes the goroutine; its next read finds the reply. A request and
// answer over loopback then cost two writes and two reads where they
// cost two writes and four.
type awaiter struct {
	rc syscall.RawConn
}

// newAwaiter returns the awaiter of c, or nil when c is not a TCP
// connection (then the caller writes and reads as usual).
func newAwaiter(c net.Conn) *awaiter {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return &awaiter{rc}
}

// awaitReply writes b and, when all of it was written, waits until the
// connection is readable (or its read deadline passes, or it is closed).
// It returns how much of b was written: when that is short of len(b) with
// a nil error (the socket's buffer was full), the caller writes the rest
// with the connection's Write and reads as usual. A read deadline ends
// the wait with the error a read would return.
func (a *awaiter) awaitReply(b []byte) (int, error) {
	n, written := 0, false
	var werr error
	err := a.rc.Read(func(fd uintptr) bool {
		if written {
			return true // readable (or woken for a deadline): the caller reads
		}
		written = true
		for n < len(b) {
			m, err := syscall.Write(int(fd), b[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				return true // the caller writes the rest and then reads
			case err != nil:
				werr = &net.OpError{Op: "write", Net: "tcp", Err: err}
				return true
			}
			n += m
		}
		return false // wait until readable
	})
	if werr != nil {
		return n, werr
	}
	if n == len(b) && err != nil {
		// The wait failed (a deadline, or the connection closed): the
		// caller's read reports it. The message was sent.
		return n, nil
	}
	return n, err
}
