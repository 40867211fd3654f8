// Package evolve changes the items already in a live table while the
// application keeps writing: backfill of what the code derives (index
// keys, Type, timestamps), rename of an attribute, re-key of items whose
// key template changed, a user transform, an import of another table's
// items (a legacy table moved into the single table: [Import]), and a
// read-only doctor that lists every item that no longer matches the code
// (and every unique guard out of step with its item).
//
// # Safety while the application writes
//
// The runner reads each item with a Scan, computes the item as the steps
// want it, and writes only the difference, on a condition on what it read:
// the version attribute when the entity has one, else every attribute it
// read (and the absence of every attribute it adds). A concurrent write
// of the application therefore always wins: the condition fails, the
// runner rereads the item (consistently) and starts over on the new
// version; an item deleted meanwhile is left deleted. An item that is
// already right (for instance written by the new code during the run) is
// skipped without a write. A move (re-key) is one transaction: put the
// new item on condition that its key is free, delete the old one on the
// condition above.
//
// # Resumable, shared by processes
//
// A job scans the table in Options.Segments parallel segments. Each
// segment is a lease of package lease (group "evolve:" + job name),
// checkpointed after every page with its position and counts. Any number
// of processes may run the same job: they share the segments, and a
// killed process's segments are taken over at their last checkpoint (one
// lease duration after it died). A page redone after a takeover finds its
// items already right and skips them. When every segment is done, the job
// is recorded (item PK "EVOLVE#<job>", SK "JOB"); running it again
// returns that record and writes nothing. A dry run ([Options.DryRun])
// scans and reports what would change, and writes nothing at all.
//
// # Throttling
//
// [Options.ReadUnits] and [Options.WriteUnits] are budgets of capacity
// units per second for the process, measured from ReturnConsumedCapacity
// of every request; the runner waits before a request until the units
// already consumed fit the budget. Throttling errors back the job off
// (exponentially, to a second) and never fail it.
//
// # Errors
//
// A job that does not fit the table (no steps, an unknown index, a key
// template that cannot be built, a rename of a key attribute) is refused
// with a [*JobError] matching [ErrUnfit] before any write. Per-item
// failures do not stop the job: an item that does not decode ([ErrDecode]),
// whose keys cannot be built ([ErrUnbuildable]) or whose transform failed
// ([ErrTransform]) is left untouched and listed in [Report].Failures as an
// [*ItemError].
//
// # Progress
//
// A job reports to a [Progress] (data out, as a tracer: segment started,
// page done, takeover, segment done, job done); command evolve/evolvecmd
// renders it as live bars on a terminal and as plain lines elsewhere.
package evolve

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/entity"
)

// Sentinel errors. Check them with errors.Is.
var (
	// ErrUnfit: a job that does not fit the table, refused before any
	// write (as a [*JobError]).
	ErrUnfit = errors.New("evolve: job does not fit the table")
	// ErrDecode: an item does not decode with its entity's codec.
	ErrDecode = errors.New("evolve: item does not decode")
	// ErrUnbuildable: a key of an item cannot be built from its
	// attributes.
	ErrUnbuildable = errors.New("evolve: key cannot be built")
	// ErrTransform: a transform returned an error.
	ErrTransform = errors.New("evolve: transform failed")
	// ErrTargetExists: a move found an item at the new key already.
	ErrTargetExists = errors.New("evolve: an item exists at the new key")
)

// JobError is a job refused before any write. It matches [ErrUnfit].
type JobError struct {
	// Type is the entity Type of the step at fault ("" when none).
	Type   string
	Reason string
	Err    error
}

func (e *JobError) Error() string {
	if e.Type == "" {
		return "evolve: job refused: " + e.Reason
	}
	return fmt.Sprintf("evolve: job refused: %s: %s", e.Type, e.Reason)
}

// Unwrap returns the cause (which matches ErrUnfit).
func (e *JobError) Unwrap() error { return e.Err }

// ItemError is a per-item failure, listed in [Report].Failures. The
// item was left untouched.
type ItemError struct {
	Key  entity.Key
	Type string
	// Step is the kind of the step that failed ("" for a write).
	Step string
	Err  error
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("evolve: %s %s/%s (%s): %v", e.Type, e.Key.PK, e.Key.SK, e.Step, e.Err)
}

// Unwrap returns the cause.
func (e *ItemError) Unwrap() error { return e.Err }
