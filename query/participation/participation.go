// Package participation has one function per read access pattern of the
// participation-event system (seed 004), over the entities of package
// github.com/tablekit/tablekit/entity/participation. The write patterns
// are methods of that package's Service; every row of the seed's tables
// maps to one function:
//
//	A) User API
//	participate (lock put)         Service.Participate    PutItem IDEMP#e#u/LOCK, condition not exists
//	duplicate click                Lock                   GetItem IDEMP#e#u/LOCK
//	create request                 Service.Participate    PutItem REQ#r/META, status RECEIVED (same transaction)
//	queued                         Service.Participate    UpdateItem status=QUEUED, queuedAt, if status=RECEIVED
//	request detail                 Request                GetItem REQ#r/META
//	my participations              MyParticipations       GSI1 USER#u, Limit 20, ScanIndexForward=false
//	B) Worker
//	start / first-come / success / capacity exceeded / lottery / final failure
//	                               Service.Process, Service.Fail (conditional updates)
//	enqueue failure                Service.Participate    status=FAILED_FINAL, FAILED_INGEST_ENQUEUE
//	status audit log               Service (Options.StatusLog) PutItem REQ#r/LOG#t
//	C) Admin
//	requests of an event           EventRequests          GSI2 EVENT#e, queue order
//	latest N of an event           RecentEventRequests    GSI2 EVENT#e, Limit N, ScanIndexForward=false
//	request by id                  Request                GetItem REQ#r/META
//	status logs                    RequestLogs            PK REQ#r AND begins_with(SK, "LOG#")
//	status aggregation             StatusCounts, Summarize  in the application, over GSI2
//
// List functions take query.PageOptions last (PageOptions.Reverse reverses
// their order). Reads of the table are eventually consistent unless
// entity.ConsistentRead (single items) or PageOptions.ConsistentRead
// (RequestLogs) is given; GSI reads are always eventually consistent
// (PageOptions.ConsistentRead there is a query.ErrInvalid error). A missing item matches
// entity.ErrNotFound; an empty or malformed ID is an *entity.ValidationError
// (errors.Is keys.ErrMissingField for an empty one). Pages carry an
// opaque signed cursor (package query); a cursor of another pattern,
// partition or table is query.ErrInvalidCursor.
package participation

import (
	"context"

	"github.com/tablekit/tablekit/entity"
	pe "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/query"
)

// DefaultLimit is the page size of the list patterns when
// query.PageOptions.Limit is 0; it is the seed's page of "my
// participations" and of "latest N of an event".
const DefaultLimit = 20

// Pattern names, bound into cursors.
const (
	PatternMyParticipations    = "participation/my-participations"
	PatternEventRequests       = "participation/event-requests"
	PatternRecentEventRequests = "participation/recent-event-requests"
	PatternRequestLogs         = "participation/request-logs"
)

func invalid(op, typ, field string, err error) error {
	return &entity.ValidationError{Op: op, Type: typ, Field: field, Err: err}
}

// Lock returns the IdempotencyLock of a user's participation in an event
// (the seed's duplicate-click GetItem): its RequestID is the first
// click's. Pass entity.ConsistentRead right after a lost conditional put.
func Lock(ctx context.Context, t *entity.Table, eventID, userID string, optFns ...func(*entity.CallOptions)) (pe.IdempotencyLock, error) {
	key, err := pe.IdempotencyLockKey(eventID, userID)
	if err != nil {
		return pe.IdempotencyLock{}, invalid("Lock", pe.IdempotencyLockType, "eventId/userId", err)
	}
	return entity.NewStore[pe.IdempotencyLock](t).Get(ctx, key, optFns...)
}

// Request returns one request (GET /requests/{requestId} and the admin's
// GET /admin/requests/{requestId}).
func Request(ctx context.Context, t *entity.Table, requestID string, optFns ...func(*entity.CallOptions)) (pe.Request, error) {
	key, err := pe.RequestKey(requestID)
	if err != nil {
		return pe.Request{}, invalid("Request", pe.RequestType, "requestId", err)
	}
	return entity.NewStore[pe.Request](t).Get(ctx, key, optFns...)
}

// MyParticipations returns a page of the user's requests, newest first
// (GSI1, GET /me/participations?limit=20).
func MyParticipations(ctx context.Context, t *entity.Table, userID string, o query.PageOptions) (query.Page[pe.Request], error) {
	pk, err := pe.RequestGSI1PK(userID)
	if err != nil {
		return query.Page[pe.Request]{}, invalid("MyParticipations", pe.RequestType, "userId", err)
	}
	return query.New[pe.Request](t, PatternMyParticipations).
		Index(pe.GSI1).
		Partition(pk).
		Sort(query.BeginsWith(pe.RequestGSI1SKPrefix)).
		Desc().
		With(o, DefaultLimit).
		Page(ctx)
}

func eventQuery(t *entity.Table, pattern, eventID string) (query.Query[pe.Request, *pe.Request], error) {
	pk, err := pe.RequestGSI2PK(eventID)
	if err != nil {
		return query.Query[pe.Request, *pe.Request]{}, invalid(pattern, pe.RequestType, "eventId", err)
	}
	return query.New[pe.Request](t, pattern).
		Index(pe.GSI2).
		Partition(pk).
		Sort(query.BeginsWith(pe.RequestGSI2SKPrefix)), nil
}

// EventRequests returns a page of an event's requests in queue order
// (GSI2, oldest queuedAt first: the order that decides FIRST_COME).
// Requests that never reached QUEUED are not in GSI2.
func EventRequests(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[pe.Request], error) {
	q, err := eventQuery(t, PatternEventRequests, eventID)
	if err != nil {
		return query.Page[pe.Request]{}, err
	}
	return q.With(o, DefaultLimit).Page(ctx)
}

// RecentEventRequests returns the event's o.Limit (the seed's N; 0 means
// DefaultLimit) most recently queued requests, newest first (GSI2,
// ScanIndexForward=false).
func RecentEventRequests(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[pe.Request], error) {
	q, err := eventQuery(t, PatternRecentEventRequests, eventID)
	if err != nil {
		return query.Page[pe.Request]{}, err
	}
	return q.Desc().With(o, DefaultLimit).Page(ctx)
}

// RequestLogs returns a page of a request's status changes, oldest first
// (PK REQ#<id> AND begins_with(SK, "LOG#")). It is empty unless the
// Service wrote logs (Options.StatusLog).
func RequestLogs(ctx context.Context, t *entity.Table, requestID string, o query.PageOptions) (query.Page[pe.RequestStatusLog], error) {
	pk, err := pe.RequestStatusLogPK(requestID)
	if err != nil {
		return query.Page[pe.RequestStatusLog]{}, invalid("RequestLogs", pe.RequestStatusLogType, "requestId", err)
	}
	q := query.New[pe.RequestStatusLog](t, PatternRequestLogs).
		Partition(pk).
		Sort(query.BeginsWith(pe.RequestStatusLogSKPrefix)).
		With(o, DefaultLimit)
	return q.Page(ctx)
}

// Capacity returns the EventCapacity of a FIRST_COME event.
func Capacity(ctx context.Context, t *entity.Table, eventID string, optFns ...func(*entity.CallOptions)) (pe.EventCapacity, error) {
	key, err := pe.EventCapacityKey(eventID)
	if err != nil {
		return pe.EventCapacity{}, invalid("Capacity", pe.EventCapacityType, "eventId", err)
	}
	return entity.NewStore[pe.EventCapacity](t).Get(ctx, key, optFns...)
}

// Summary is the admin's aggregation of an event's requests.
type Summary struct {
	Total      int
	ByStatus   map[pe.Status]int
	ByUIResult map[pe.UIResult]int // final requests with a uiResult
}

// Summarize groups requests by status and UI result, in the application
// (the seed keeps status out of GSI2's key on purpose).
func Summarize(reqs []pe.Request) Summary {
	s := Summary{ByStatus: map[pe.Status]int{}, ByUIResult: map[pe.UIResult]int{}}
	for _, r := range reqs {
		s.Total++
		s.ByStatus[r.Status]++
		if r.UIResult != "" {
			s.ByUIResult[r.UIResult]++
		}
	}
	return s
}

// StatusCounts reads every queued request of the event through GSI2 (all
// pages) and aggregates them with [Summarize].
func StatusCounts(ctx context.Context, t *entity.Table, eventID string) (Summary, error) {
	q, err := eventQuery(t, PatternEventRequests, eventID)
	if err != nil {
		return Summary{}, err
	}
	var reqs []pe.Request
	for r, err := range q.Limit(100).All(ctx) {
		if err != nil {
			return Summary{}, err
		}
		reqs = append(reqs, r)
	}
	return Summarize(reqs), nil
}
