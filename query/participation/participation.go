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

var (
	eq    = query.KeyCond{Op: "="}
	begin = query.KeyCond{Op: "begins_with"}
)

// The read patterns of seed 004, declared once: the functions below run
// them, cursors bind to their names, and package design renders them into
// entity/participation/DESIGN.md.
var (
	LockPattern = query.Pattern{Name: "participation/lock", Func: "Lock", Doc: "참여하기 (중복 클릭): 기존 requestId 반환",
		Op: query.OpGet, Returns: query.Schemas(&pe.IdempotencyLock{}), PK: eq, SK: eq, Consistent: true}
	RequestPattern = query.Pattern{Name: "participation/request", Func: "Request", Doc: "요청 상세 조회 / requestId 검색",
		Op: query.OpGet, Returns: query.Schemas(&pe.Request{}), PK: eq, SK: eq, Consistent: true}
	MyParticipationsPattern = query.Pattern{Name: PatternMyParticipations, Func: "MyParticipations", Doc: "내 신청 내역 (최신순 고정)",
		Op: query.OpQuery, Returns: query.Schemas(&pe.Request{}), Index: pe.GSI1, PK: eq, SK: begin, Desc: true, Limit: DefaultLimit}
	EventRequestsPattern = query.Pattern{Name: PatternEventRequests, Func: "EventRequests", Doc: "이벤트별 요청 목록 (접수 순서; 상태별 집계는 서버에서)",
		Op: query.OpQuery, Returns: query.Schemas(&pe.Request{}), Index: pe.GSI2, PK: eq, SK: begin, Limit: DefaultLimit}
	RecentEventRequestsPattern = query.Pattern{Name: PatternRecentEventRequests, Func: "RecentEventRequests", Doc: "이벤트별 최근 N건 (최신순)",
		Op: query.OpQuery, Returns: query.Schemas(&pe.Request{}), Index: pe.GSI2, PK: eq, SK: begin, Desc: true, Limit: DefaultLimit}
	RequestLogsPattern = query.Pattern{Name: PatternRequestLogs, Func: "RequestLogs", Doc: "상태 로그 조회",
		Op: query.OpQuery, Returns: query.Schemas(&pe.RequestStatusLog{}), PK: eq, SK: begin, Limit: DefaultLimit, Consistent: true}
	CapacityPattern = query.Pattern{Name: "participation/capacity", Func: "Capacity", Doc: "이벤트 정원 조회",
		Op: query.OpGet, Returns: query.Schemas(&pe.EventCapacity{}), PK: eq, SK: eq, Consistent: true}
)

// Writes are the write patterns of seed 004, run by the methods of
// entity/participation's Service; declared here so that the design
// document and the IAM policy list them beside the reads.
var Writes = []query.Pattern{
	{Name: "participation/participate-lock", Func: "Service.Participate", Doc: "참여하기 (접수): 중복 신청 차단, 최초 requestId 확정",
		Op: query.OpPut, Returns: query.Schemas(&pe.IdempotencyLock{}), PK: eq, SK: eq, Tx: true,
		Condition: "attribute_not_exists(PK) AND attribute_not_exists(SK)"},
	{Name: "participation/create-request", Func: "Service.Participate", Doc: "요청 레코드 생성: status = RECEIVED, requestedAt = now",
		Op: query.OpPut, Returns: query.Schemas(&pe.Request{}), PK: eq, SK: eq, Tx: true, Condition: "attribute_not_exists(PK)"},
	{Name: "participation/open-marker", Func: "Service.Participate", Doc: "미완료 요청 표식 (재조정용)",
		Op: query.OpPut, Returns: query.Schemas(&pe.OpenRequest{}), PK: eq, SK: eq, Tx: true, Condition: "attribute_not_exists(PK)"},
	{Name: "participation/queued", Func: "Service.Participate", Doc: "큐잉 성공 반영: status = QUEUED, queuedAt = now, GSI2 키 1회 기록",
		Op: query.OpUpdate, Returns: query.Schemas(&pe.Request{}), PK: eq, SK: eq,
		Condition: "status = RECEIVED AND attribute_not_exists(queuedAt) AND attribute_not_exists(GSI2SK)"},
	{Name: "participation/process", Func: "Service.Process", Doc: "처리 시작: status = PROCESSING, startedAt = now",
		Op: query.OpUpdate, Returns: query.Schemas(&pe.Request{}), PK: eq, SK: eq, Condition: "status = QUEUED"},
	{Name: "participation/take-capacity", Func: "Service.Process", Doc: "선착순 정원 확정: 원자적 감소",
		Op: query.OpUpdate, Returns: query.Schemas(&pe.EventCapacity{}), PK: eq, SK: eq, Tx: true, Condition: "capacityRemaining > 0"},
	{Name: "participation/decide", Func: "Service.Process", Doc: "선착순 성공 / 정원 초과 / 추첨: status = SUCCEEDED | REJECTED, uiResult",
		Op: query.OpUpdate, Returns: query.Schemas(&pe.Request{}), PK: eq, SK: eq, Tx: true, Condition: "status = PROCESSING"},
	{Name: "participation/fail", Func: "Service.Fail", Doc: "큐잉 실패 / 최종 실패: status = FAILED_FINAL, errorCode; 잠금 해제",
		Op: query.OpUpdate, Returns: query.Schemas(&pe.Request{}), PK: eq, SK: eq, Tx: true, Condition: "status is not final"},
	{Name: "participation/release-lock", Func: "Service.Fail", Doc: "최종 실패 시 IdempotencyLock 삭제 (재참여 허용)",
		Op: query.OpDelete, Returns: query.Schemas(&pe.IdempotencyLock{}), PK: eq, SK: eq, Tx: true, Condition: "requestId = :rid"},
	{Name: "participation/close-marker", Func: "Service.Process, Service.Fail, Service.Reconcile", Doc: "최종 상태에서 미완료 표식 삭제",
		Op: query.OpDelete, Returns: query.Schemas(&pe.OpenRequest{}), PK: eq, SK: eq},
	{Name: "participation/reconcile-attempt", Func: "Service.Reconcile", Doc: "재조정 시도 기록",
		Op: query.OpUpdate, Returns: query.Schemas(&pe.OpenRequest{}), PK: eq, SK: eq},
	{Name: "participation/status-log", Func: "Service (Options.StatusLog)", Doc: "상태 감사 로그 (선택): GSI 미사용",
		Op: query.OpPut, Returns: query.Schemas(&pe.RequestStatusLog{}), PK: eq, SK: eq, Tx: true},
	{Name: "participation/create-capacity", Func: "Service.CreateCapacity", Doc: "이벤트 정원 생성",
		Op: query.OpPut, Returns: query.Schemas(&pe.EventCapacity{}), PK: eq, SK: eq, Condition: "attribute_not_exists(PK)"},
}

// Patterns lists every read pattern of the package, in the seed's order,
// and the reconciler's (entity/participation.OpenRequestsPattern).
var Patterns = []query.Pattern{
	LockPattern, RequestPattern, MyParticipationsPattern, EventRequestsPattern,
	RecentEventRequestsPattern, RequestLogsPattern, CapacityPattern, pe.OpenRequestsPattern,
}

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
	return query.Get[pe.IdempotencyLock](ctx, t, LockPattern, key, optFns...)
}

// Request returns one request (GET /requests/{requestId} and the admin's
// GET /admin/requests/{requestId}).
func Request(ctx context.Context, t *entity.Table, requestID string, optFns ...func(*entity.CallOptions)) (pe.Request, error) {
	key, err := pe.RequestKey(requestID)
	if err != nil {
		return pe.Request{}, invalid("Request", pe.RequestType, "requestId", err)
	}
	return query.Get[pe.Request](ctx, t, RequestPattern, key, optFns...)
}

// MyParticipations returns a page of the user's requests, newest first
// (GSI1, GET /me/participations?limit=20).
func MyParticipations(ctx context.Context, t *entity.Table, userID string, o query.PageOptions) (query.Page[pe.Request], error) {
	pk, err := pe.RequestGSI1PK(userID)
	if err != nil {
		return query.Page[pe.Request]{}, invalid("MyParticipations", pe.RequestType, "userId", err)
	}
	return query.From[pe.Request](t, MyParticipationsPattern, o, pk).Page(ctx)
}

func eventQuery(t *entity.Table, p query.Pattern, eventID string, o query.PageOptions) (query.Query[pe.Request, *pe.Request], error) {
	pk, err := pe.RequestGSI2PK(eventID)
	if err != nil {
		return query.Query[pe.Request, *pe.Request]{}, invalid(p.Name, pe.RequestType, "eventId", err)
	}
	return query.From[pe.Request](t, p, o, pk), nil
}

// EventRequests returns a page of an event's requests in queue order
// (GSI2, oldest queuedAt first: the order that decides FIRST_COME).
// Requests that never reached QUEUED are not in GSI2.
func EventRequests(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[pe.Request], error) {
	q, err := eventQuery(t, EventRequestsPattern, eventID, o)
	if err != nil {
		return query.Page[pe.Request]{}, err
	}
	return q.Page(ctx)
}

// RecentEventRequests returns the event's o.Limit (the seed's N; 0 means
// DefaultLimit) most recently queued requests, newest first (GSI2,
// ScanIndexForward=false).
func RecentEventRequests(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[pe.Request], error) {
	q, err := eventQuery(t, RecentEventRequestsPattern, eventID, o)
	if err != nil {
		return query.Page[pe.Request]{}, err
	}
	return q.Page(ctx)
}

// RequestLogs returns a page of a request's status changes, oldest first
// (PK REQ#<id> AND begins_with(SK, "LOG#")). It is empty unless the
// Service wrote logs (Options.StatusLog).
func RequestLogs(ctx context.Context, t *entity.Table, requestID string, o query.PageOptions) (query.Page[pe.RequestStatusLog], error) {
	pk, err := pe.RequestStatusLogPK(requestID)
	if err != nil {
		return query.Page[pe.RequestStatusLog]{}, invalid("RequestLogs", pe.RequestStatusLogType, "requestId", err)
	}
	return query.From[pe.RequestStatusLog](t, RequestLogsPattern, o, pk).Page(ctx)
}

// Capacity returns the EventCapacity of a FIRST_COME event.
func Capacity(ctx context.Context, t *entity.Table, eventID string, optFns ...func(*entity.CallOptions)) (pe.EventCapacity, error) {
	key, err := pe.EventCapacityKey(eventID)
	if err != nil {
		return pe.EventCapacity{}, invalid("Capacity", pe.EventCapacityType, "eventId", err)
	}
	return query.Get[pe.EventCapacity](ctx, t, CapacityPattern, key, optFns...)
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
	q, err := eventQuery(t, EventRequestsPattern, eventID, query.PageOptions{Limit: 100})
	if err != nil {
		return Summary{}, err
	}
	var reqs []pe.Request
	for r, err := range q.All(ctx) {
		if err != nil {
			return Summary{}, err
		}
		reqs = append(reqs, r)
	}
	return Summarize(reqs), nil
}
