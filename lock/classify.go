package lock

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Classifier is implemented by a backend that knows which of its errors
// can heal. [Locker.Obtain] asks it about every error of
// [Backend.Acquire] other than ErrNotObtained and ErrInvalidKey, while
// the ctx of Obtain is still live; without it Obtain uses [Transient].
//
// # Classification
//
// Transient (Obtain deletes the attempt by token, as it may have landed,
// and tries again with a new token within its deadline, pacing the
// attempts with [Options.Retry]): a command or request timeout, a
// connection refused, reset or closed, a failover in progress (Valkey's
// CLUSTERDOWN, LOADING, TRYAGAIN, MASTERDOWN), throttling and server-side
// faults that the AWS SDK's retryer would retry.
//
// Permanent (Obtain cleans up and returns the error at once): an invalid
// key, a script or command error, a missing table, a validation or access
// error, a closed client, and anything the backend does not recognise.
type Classifier interface {
	// Transient reports whether an attempt that failed with err may
	// succeed when made again.
	Transient(err error) bool
}

// Transient is the classification [Locker.Obtain] uses for a backend that
// is not a [Classifier]: true for a timeout (a [net.Error] whose Timeout
// is true, or [context.DeadlineExceeded] of a request's own deadline) and
// for a broken connection (io.EOF, io.ErrUnexpectedEOF, ECONNRESET,
// ECONNREFUSED, EPIPE, net.ErrClosed, any other [net.Error]); false for
// nil, [context.Canceled] and everything else.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed), errors.As(err, &ne):
		return true
	}
	return false
}
