//go:build !unix

package ddbmem

import "net"

// awaiter is nil on this platform: callers write and read as usual.
type awaiter struct{}

func newAwaiter(net.Conn) *awaiter { return nil }

func (*awaiter) awaitReply([]byte) (int, error) { panic("unreachable") }
