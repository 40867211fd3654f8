package participation

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/query"
)

// PatternOpenRequests names the reconciler's query of one OPEN# shard.
const PatternOpenRequests = "open requests of a shard, oldest first"

// OpenRequestsPattern is the reconciler's read, declared as data (package
// query runs it, package design documents it): the OpenRequest markers of
// one OPEN# shard requested before a cut-off, oldest first, read
// consistently.
var OpenRequestsPattern = query.Pattern{Name: PatternOpenRequests, Func: "Service.Reconcile",
	Doc: "reconciler: open requests of a shard older than StuckAfter", Op: query.OpQuery,
	Returns: query.Schemas(&OpenRequest{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "<"},
	Limit: 100, Consistent: true}

// ReconcileStats counts what one [Service.Reconcile] pass did.
type ReconcileStats struct {
	// Seen counts the stuck markers read (past StuckAfter and due).
	Seen int
	// Reenqueued counts the messages sent again.
	Reenqueued int
	// Finalised counts the requests ended FAILED_FINAL.
	Finalised int
	// Cleaned counts markers of requests found final (or gone), removed.
	Cleaned int
}

// Reconcile is one pass of the reconciler: it finds the requests that
// have stayed unfinished for longer than [Options.StuckAfter] and makes
// them progress, so that no request stays stuck whatever crashed.
//
// It reads the OPEN#<shard> partitions ([OpenRequest]), one Query per
// shard for the markers older than StuckAfter (never a scan: the
// partitions hold only requests in flight). For each marker that is due:
//
//   - a request still RECEIVED, QUEUED or PROCESSING gets its message sent
//     again (with its queuedAt, or now if it has none: its first send may
//     never have happened). The worker's Process is idempotent, and a
//     RECEIVED request is promoted from the delivered message. The marker
//     counts the attempt and is due again StuckAfter later;
//   - after [Options.MaxReenqueues] such attempts the request ends
//     FAILED_FINAL with failureClass TRANSIENT and errorCode
//     FAILED_INGEST_ENQUEUE (it never got QUEUED) or FAILED_PROCESSING;
//     as every final failure, this releases the user's IdempotencyLock
//     (see [Service.Fail]);
//   - a marker whose request is final or missing is deleted.
//
// A request thus reaches a final status within MaxReenqueues+1 passes
// spaced by StuckAfter. Two reconcilers running at once are safe: the
// attempt is claimed by a conditional write on the marker, and every
// status change is conditional. Run it periodically, for instance every
// StuckAfter/2.
func (s *Service) Reconcile(ctx context.Context) (ReconcileStats, error) {
	var st ReconcileStats
	if s.q == nil {
		return st, fmt.Errorf("%w: reconcile: no queue configured", ErrEnqueue)
	}
	now := s.now()
	cut, err := OpenRequestSKPrefixByRequestedAt(now.Add(-s.o.StuckAfter))
	if err != nil {
		return st, err
	}
	for shard := range s.o.OpenShards {
		pk, err := OpenRequestPK(strconv.Itoa(shard))
		if err != nil {
			return st, err
		}
		after := ""
		for {
			page, err := query.From[OpenRequest](s.t, OpenRequestsPattern,
				query.PageOptions{After: after, ConsistentRead: true}, pk, cut).Page(ctx)
			if err != nil {
				return st, err
			}
			for _, m := range page.Items {
				if m.NextAt.After(now) {
					continue
				}
				st.Seen++
				if err := s.reconcileOne(ctx, m, &st); err != nil {
					return st, err
				}
			}
			if after = page.Next; after == "" {
				break
			}
		}
	}
	return st, nil
}

func (s *Service) reconcileOne(ctx context.Context, m OpenRequest, st *ReconcileStats) error {
	key, err := RequestKey(m.RequestID)
	if err != nil {
		return invalid("Reconcile", RequestType, "requestId", err)
	}
	r, err := s.reqs.Get(ctx, key, entity.ConsistentRead)
	switch {
	case errors.Is(err, entity.ErrNotFound):
		return s.dropMarker(ctx, m, st)
	case err != nil:
		return err
	case r.Status.Final():
		return s.dropMarker(ctx, m, st)
	}
	if m.Attempts >= s.o.MaxReenqueues {
		code := ErrorProcessing
		if r.Status == StatusReceived {
			code = ErrorIngestEnqueue
		}
		err := s.Fail(ctx, &r, FailureTransient, code,
			fmt.Sprintf("reconciler: still %s after %d re-enqueues", r.Status, m.Attempts))
		var te *TransitionError
		if errors.As(err, &te) {
			return nil // it moved on meanwhile; the next pass looks again
		}
		if err == nil {
			st.Finalised++
		}
		return err
	}
	// Claim this attempt: the marker counts it and is due again later.
	okey, err := OpenRequestKey(m.Shard, m.RequestedAt, m.RequestID)
	if err != nil {
		return invalid("Reconcile", OpenRequestType, "key", err)
	}
	cond := expression.AttributeNotExists(expression.Name("attempts"))
	if m.Attempts > 0 {
		cond = expression.Name("attempts").Equal(expression.Value(m.Attempts))
	}
	_, err = s.opens.Update(ctx, okey, entity.Changes[OpenRequest]{
		entity.Add(OpenRequestAttempts, 1),
		entity.Set(OpenRequestNextAt, s.now().Add(s.o.StuckAfter)),
	}, entity.If(cond))
	var ce *entity.ConditionError
	switch {
	case errors.As(err, &ce):
		return nil // another reconciler took this attempt, or the request finished
	case err != nil:
		return err
	}
	queuedAt := r.QueuedAt
	if queuedAt.IsZero() {
		queuedAt = s.now()
	}
	if err := s.q.Send(ctx, Message{RequestID: r.RequestID, EventID: r.EventID, QueuedAt: queuedAt}); err != nil {
		return fmt.Errorf("%w: reconcile request %s: %w", ErrEnqueue, r.RequestID, err)
	}
	st.Reenqueued++
	return nil
}

func (s *Service) dropMarker(ctx context.Context, m OpenRequest, st *ReconcileStats) error {
	okey, err := OpenRequestKey(m.Shard, m.RequestedAt, m.RequestID)
	if err != nil {
		return invalid("Reconcile", OpenRequestType, "key", err)
	}
	if err := s.opens.Delete(ctx, okey); err != nil && !errors.Is(err, entity.ErrNotFound) {
		return err
	}
	st.Cleaned++
	return nil
}
