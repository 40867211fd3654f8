// Package crashtest injects faults at every external call of a flow, one
// call at a time, to prove that the flow survives a crash at any point.
//
// An [Injector] counts the external calls made through the wrappers of
// this package ([Client] around an entity.Client, [Queue] around a queue
// sender, [Do] around any other call such as a cache write) and fires at
// call number k in one of the [Mode]s. A test first runs the flow with no
// fault to learn the number of calls (the crash points), then runs it
// again for every k and every mode, and checks its invariants after
// recovery (redeliveries, reconciler passes).
package crashtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Mode is how an injected fault behaves.
type Mode int

const (
	// Fail: the call fails without reaching the server.
	Fail Mode = iota
	// LoseReply: the call lands but its reply is lost; the caller gets an
	// error.
	LoseReply
	// Die: the process dies at the call: the call does not land, the
	// process's context is cancelled, and every later call of the process
	// fails at once (its goroutines stop at their next call).
	Die
	// DieAfter: the call lands, then the process dies as with Die.
	DieAfter
	// Stall: the call waits until [Injector.Resume], then goes on as
	// usual: the process is paused (a GC pause, a partition) at that
	// point, for instance past the queue's visibility timeout. Not one of
	// [Modes]: a test enumerates it on its own.
	Stall
)

// Modes are the modes every crash point is run in.
var Modes = []Mode{Fail, LoseReply, Die, DieAfter}

func (m Mode) String() string {
	switch m {
	case Fail:
		return "fail"
	case LoseReply:
		return "lose-reply"
	case Die:
		return "die"
	case DieAfter:
		return "die-after"
	case Stall:
		return "stall"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Errors returned by injected faults.
var (
	// ErrInjected is the error of a Fail or LoseReply fault.
	ErrInjected = errors.New("crashtest: injected fault")
	// ErrDead is returned by every call of a process that died.
	ErrDead = errors.New("crashtest: process died")
)

// Injector counts calls and fires one fault. It is safe for concurrent
// use; a zero Injector counts without firing, and a nil one lets every
// call through uncounted.
type Injector struct {
	mu    sync.Mutex
	n     int
	at    int
	mode  Mode
	dead  bool
	fired string
	names []string
	kill  context.CancelFunc

	stalled, resume chan struct{} // Stall
}

// New returns an injector that fires mode at call number at (1-based; 0
// never fires) and, for Die and DieAfter, calls kill (the process's
// cancel function).
func New(at int, mode Mode, kill context.CancelFunc) *Injector {
	return &Injector{at: at, mode: mode, kill: kill, stalled: make(chan struct{}), resume: make(chan struct{})}
}

// Stalled is closed when a Stall fault begins (the call waits).
func (in *Injector) Stalled() <-chan struct{} { return in.stalled }

// Resume lets a stalled call go on; call it once.
func (in *Injector) Resume() { close(in.resume) }

// Calls returns the number of calls counted so far.
func (in *Injector) Calls() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.n
}

// Names returns the name of every call counted, in order.
func (in *Injector) Names() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.names...)
}

// Fired returns the name of the call the fault fired at, "" if none.
func (in *Injector) Fired() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.fired
}

// Dead reports whether the process died.
func (in *Injector) Dead() bool {
	if in == nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.dead
}

// before is called before a call named name; it says whether the call
// should be sent, and what to do after it.
func (in *Injector) before(name string) (send bool, after Mode, fire bool, err error) {
	if in == nil {
		return true, 0, false, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.dead {
		return false, 0, false, ErrDead
	}
	in.n++
	in.names = append(in.names, name)
	if in.n != in.at {
		return true, 0, false, nil
	}
	in.fired = name
	switch in.mode {
	case Fail:
		return false, 0, false, fmt.Errorf("%w: %s failed", ErrInjected, name)
	case Die:
		in.die()
		return false, 0, false, ErrDead
	case Stall:
		in.mu.Unlock()
		close(in.stalled)
		<-in.resume
		in.mu.Lock()
		return true, 0, false, nil
	}
	return true, in.mode, true, nil
}

// die marks the process dead and cancels its context; call with mu held.
func (in *Injector) die() {
	in.dead = true
	if in.kill != nil {
		in.kill()
	}
}

// after turns a landed call's result into the fault's.
func (in *Injector) after(name string, mode Mode) error {
	switch mode {
	case LoseReply:
		return fmt.Errorf("%w: reply of %s lost", ErrInjected, name)
	case DieAfter:
		in.mu.Lock()
		in.die()
		in.mu.Unlock()
		return ErrDead
	}
	return nil
}

// Do runs call as one external call named name (a queue send, a cache
// write) under the injector.
func Do(in *Injector, name string, call func() error) error {
	send, mode, fire, err := in.before(name)
	if !send {
		return err
	}
	err = call()
	if fire {
		return in.after(name, mode)
	}
	return err
}

// call runs one typed call under the injector.
func call[O any](in *Injector, name string, f func() (O, error)) (O, error) {
	var zero O
	send, mode, fire, err := in.before(name)
	if !send {
		return zero, err
	}
	out, err := f()
	if fire {
		return zero, in.after(name, mode)
	}
	return out, err
}
