package cache

import "github.com/tablekit/tablekit/internal/glidex"

// Transient reports whether err, returned by a [Conn] of either client
// library, may heal when the command is sent again: a timeout, a broken or
// refused connection, or a failover in progress (CLUSTERDOWN, LOADING,
// TRYAGAIN, MASTERDOWN). Server errors (WRONGTYPE, a script error), a
// closed client and nil are not transient. Package lock's backends use it
// to classify their errors.
func Transient(err error) bool {
	switch classify(err) {
	case glidex.Timeout, glidex.Connection:
		return true
	}
	return false
}
