package lock

import "errors"

// Sentinel errors of package lock and its backends. Check them with
// errors.Is; the errors returned wrap them with the key.
var (
	// ErrNotObtained is returned by [Locker.Obtain] when another holder
	// kept the key for every attempt the retry strategy allowed.
	ErrNotObtained = errors.New("lock: not obtained")
	// ErrNotHeld is returned by [Lock.Release] and [Lock.Refresh] when the
	// handle was already released, and by Release when the key is gone or
	// belongs to another token.
	ErrNotHeld = errors.New("lock: not held")
	// ErrLost is returned by [Lock.Refresh] when the refresh found the key
	// gone or taken by another token, or when the lock's validity ran out
	// before a refresh could reach the server. [Lock.Lost] is closed at the
	// same time.
	ErrLost = errors.New("lock: lost")
	// ErrInvalidKey is returned, before any I/O, for an empty key or a key
	// the backend cannot store (see the backend's documentation).
	ErrInvalidKey = errors.New("lock: invalid key")
	// ErrInvalidTTL is returned, before any I/O, for a negative TTL.
	ErrInvalidTTL = errors.New("lock: invalid ttl")
	// ErrInvalidOptions is returned by backend constructors for options
	// that cannot work (an empty part in a key prefix, a missing table).
	ErrInvalidOptions = errors.New("lock: invalid options")
)
