package content

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
)

// Errors of the job lease. Check them with errors.Is.
var (
	// ErrLeaseHeld is returned by [Service.ClaimJob] when another worker
	// holds a live lease on the PROCESSING job. Retry after the lease.
	ErrLeaseHeld = errors.New("content: job leased by another worker")
	// ErrLeaseLost is returned by the owner-checked writes
	// ([Service.RenewJob], [Service.CompleteJobAs], [Service.FailJobAs])
	// when the job is no longer PROCESSING under the caller's lease: its
	// lease ran out and another worker reclaimed the job, or the job was
	// finished. Nothing was written.
	ErrLeaseLost = errors.New("content: job lease lost")
	// ErrInvalidLease is wrapped by the *entity.ValidationError of a
	// claim with an empty owner or a lease that is not positive.
	ErrInvalidLease = errors.New("content: a lease needs an owner and a positive duration")
)

// LeaseError carries the job's state behind [ErrLeaseHeld] or
// [ErrLeaseLost].
type LeaseError struct {
	JobID string
	// Owner is the caller; Holder the job's lease owner now ("" when none).
	Owner, Holder string
	// Status is the job's status now, LeaseUntil its lease end.
	Status     Status
	LeaseUntil time.Time
	err        error
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("%v: job %s is %s, lease of %q until %s (caller %q)", e.err, e.JobID, e.Status, e.Holder, e.LeaseUntil.Format(time.RFC3339Nano), e.Owner)
}

// Unwrap returns [ErrLeaseHeld] or [ErrLeaseLost].
func (e *LeaseError) Unwrap() error { return e.err }

func leaseErr(err error, owner string, j Job) error {
	return &LeaseError{JobID: j.ID, Owner: owner, Holder: j.LeaseOwner, Status: j.Status, LeaseUntil: j.LeaseUntil, err: err}
}

// ClaimJob makes owner the worker of a job for lease: PENDING ->
// PROCESSING, or, for a
// PROCESSING job whose lease has run out by this process's clock, a
// takeover (a crashed worker's job is reclaimed). Each claim increments
// Attempts. Both writes are conditional (status = PENDING; status =
// PROCESSING AND leaseUntil < now), so of two claimers one wins.
//
// A claim by the current owner renews its lease. It returns the job as
// claimed; an error matching [ErrLeaseHeld] when another worker's lease
// is live; a [*TransitionError] (From COMPLETED or FAILED) for a finished
// job; entity.ErrNotFound for a missing one. Keep the clocks of workers
// within a small fraction of the lease.
func (s *Service) ClaimJob(ctx context.Context, jobID, owner string, lease time.Duration) (Job, error) {
	key, err := s.jobKey("ClaimJob", jobID)
	if err != nil {
		return Job{}, err
	}
	if owner == "" || lease <= 0 {
		return Job{}, invalid("ClaimJob", JobType, "owner/lease", fmt.Errorf("%w: owner %q, lease %v", ErrInvalidLease, owner, lease))
	}
	now := s.now()
	claim := entity.Changes[Job]{
		entity.Set(JobStatus, StatusProcessing),
		entity.Set(JobLeaseOwner, owner),
		entity.Set(JobLeaseUntil, now.Add(lease)),
		entity.Add(JobAttempts, 1),
	}
	j, err := s.jobs.Update(ctx, key, claim, entity.If(expression.Name("status").Equal(expression.Value(string(StatusPending)))))
	if err == nil {
		return j, s.cacheJob(ctx, j)
	}
	old, ok, derr := s.oldJob(ctx, err)
	if !ok {
		return j, errors.Join(err, derr)
	}
	switch {
	case old.Status != StatusProcessing:
		return old, &TransitionError{JobID: jobID, From: old.Status, To: StatusProcessing}
	case old.LeaseOwner == owner:
		return s.RenewJob(ctx, jobID, owner, lease)
	case old.LeaseUntil.After(now):
		return old, leaseErr(ErrLeaseHeld, owner, old)
	}
	nowAV, err := JobLeaseUntil.Encode(now)
	if err != nil {
		return Job{}, err
	}
	cond := expression.Name("status").Equal(expression.Value(string(StatusProcessing))).
		And(expression.Name("leaseUntil").LessThan(expression.Value(nowAV)))
	j, err = s.jobs.Update(ctx, key, claim, entity.If(cond))
	if err == nil {
		return j, s.cacheJob(ctx, j)
	}
	if old, ok, _ := s.oldJob(ctx, err); ok {
		if old.Status != StatusProcessing {
			return old, &TransitionError{JobID: jobID, From: old.Status, To: StatusProcessing}
		}
		if old.LeaseOwner == owner { // an SDK retry of our own takeover
			return old, s.cacheJob(ctx, old)
		}
		return old, leaseErr(ErrLeaseHeld, owner, old)
	}
	return j, err
}

// oldJob decodes the item a failed condition returned; a server that did
// not return it costs a consistent read.
func (s *Service) oldJob(ctx context.Context, err error) (Job, bool, error) {
	var ce *entity.ConditionError
	if !errors.As(err, &ce) {
		return Job{}, false, nil
	}
	if len(ce.Old) == 0 {
		j, gerr := s.jobs.Get(ctx, ce.Key, entity.ConsistentRead)
		if gerr != nil {
			return Job{}, false, gerr
		}
		return j, true, nil
	}
	old, derr := s.jobs.Decode(ce.Old)
	if derr != nil {
		return Job{}, false, derr
	}
	return old, true, nil
}

// ownedBy is the owner check of every lease-holder write.
func ownedBy(owner string) expression.ConditionBuilder {
	return expression.Name("status").Equal(expression.Value(string(StatusProcessing))).
		And(expression.Name("leaseOwner").Equal(expression.Value(owner)))
}

// RenewJob extends owner's lease to lease from now. It returns an error
// matching [ErrLeaseLost] when owner no longer holds the job.
func (s *Service) RenewJob(ctx context.Context, jobID, owner string, lease time.Duration) (Job, error) {
	return s.ownerWrite(ctx, "RenewJob", jobID, owner, StatusProcessing, entity.Changes[Job]{
		entity.Set(JobLeaseUntil, s.now().Add(lease)),
	})
}

// CompleteJobAs is [Service.CompleteJob] by the lease owner: PROCESSING
// -> COMPLETED (progress 100, the result message, completedAt), refused
// with [ErrLeaseLost] (nothing written) unless owner holds the lease. A
// late completion by a worker whose job was reclaimed therefore changes
// nothing. A repeated call by the owner that finished it returns the job.
func (s *Service) CompleteJobAs(ctx context.Context, jobID, owner, resultMessage string) (Job, error) {
	return s.ownerWrite(ctx, "CompleteJobAs", jobID, owner, StatusCompleted, entity.Changes[Job]{
		entity.Set(JobStatus, StatusCompleted),
		entity.Set(JobProgress, 100),
		entity.Set(JobResultMessage, resultMessage),
		entity.Set(JobCompletedAt, s.now()),
		entity.Remove(JobLeaseUntil),
	})
}

// FailJobAs is [Service.FailJob] by the lease owner: PROCESSING ->
// FAILED (the error message, completedAt), refused with [ErrLeaseLost]
// unless owner holds the lease.
func (s *Service) FailJobAs(ctx context.Context, jobID, owner, errorMessage string) (Job, error) {
	return s.ownerWrite(ctx, "FailJobAs", jobID, owner, StatusFailed, entity.Changes[Job]{
		entity.Set(JobStatus, StatusFailed),
		entity.Set(JobErrorMessage, errorMessage),
		entity.Set(JobCompletedAt, s.now()),
		entity.Remove(JobLeaseUntil),
	})
}

func (s *Service) ownerWrite(ctx context.Context, op, jobID, owner string, to Status, changes entity.Changes[Job]) (Job, error) {
	key, err := s.jobKey(op, jobID)
	if err != nil {
		return Job{}, err
	}
	j, err := s.jobs.Update(ctx, key, changes, entity.If(ownedBy(owner)))
	if err == nil {
		if err := j.Validate(); err != nil {
			return j, err
		}
		return j, s.cacheJob(ctx, j)
	}
	old, ok, derr := s.oldJob(ctx, err)
	if !ok {
		return j, errors.Join(err, derr)
	}
	if to != StatusProcessing && old.Status == to && old.LeaseOwner == owner {
		return old, s.cacheJob(ctx, old) // our own write, retried after a lost reply
	}
	return old, leaseErr(ErrLeaseLost, owner, old)
}
