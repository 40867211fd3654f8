package feed

import (
	"context"
	"errors"
	"time"
)

// Lease errors. A [Leases] implementation returns them (wrapped) so that
// the consumer can tell contention and loss from failures.
var (
	// ErrLeaseHeld: another live owner holds the lease.
	ErrLeaseHeld = errors.New("feed: lease held by another owner")
	// ErrLeaseLost: the lease expired or was taken over; the fenced write
	// (renewal, checkpoint) was refused.
	ErrLeaseLost = errors.New("feed: lease lost")
)

// Leases is the shard-ownership store a [Consumer] needs: one fenced lease
// with a checkpoint per shard, shared by every process of a consumer
// group. It is shaped like a lease table (the Kinesis Client Library's):
// each lease has an owner, an expiry, a fencing number that grows with
// each new owner, and a checkpoint that only the current owner can move.
type Leases interface {
	// List returns the leases whose names begin with prefix.
	List(ctx context.Context, prefix string) ([]LeaseInfo, error)
	// Acquire takes the named lease for owner when it is free, released
	// or expired, creating it when missing, for ttl. It returns
	// ErrLeaseHeld (wrapped) when a live owner holds it.
	Acquire(ctx context.Context, name, owner string, ttl time.Duration) (Lease, error)
}

// LeaseInfo is the state of one lease as [Leases.List] sees it.
type LeaseInfo struct {
	Name       string
	Owner      string // "" when free or released
	Live       bool   // held and not expired
	Checkpoint string
}

// Lease is one held lease. Its methods are fenced: after another owner
// took the lease over they return ErrLeaseLost (wrapped) and change
// nothing.
type Lease interface {
	// Checkpoint returns the checkpoint as of the acquisition or the last
	// successful Save.
	Checkpoint() string
	// Save stores checkpoint and extends the lease.
	Save(ctx context.Context, checkpoint string) error
	// Renew extends the lease by its ttl.
	Renew(ctx context.Context) error
	// Release gives the lease up (keeping its checkpoint), so that another
	// owner may take it at once.
	Release(ctx context.Context) error
}
