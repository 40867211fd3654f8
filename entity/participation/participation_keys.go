// Hand-written stand-in for keygen output, in its documented format
// (keys/keygen/doc.go). Replace it by running go generate once keygen
// generates code.

package participation

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

var _ = keys.KeygenV1

// ---- IdempotencyLock ----

// IdempotencyLockType is the Type attribute of an IdempotencyLock.
const IdempotencyLockType = "IdempotencyLock"

var idempotencyLockPKTemplate = keys.MustNew("IDEMP#{EventID}#{UserID}")

// IdempotencyLockPK builds the PK attribute "IDEMP#{EventID}#{UserID}".
func IdempotencyLockPK(eventID, userID string) (string, error) {
	return idempotencyLockPKTemplate.Build(eventID, userID)
}

// IdempotencyLockPKPrefix is the literal start of PK, for begins_with.
const IdempotencyLockPKPrefix = "IDEMP#"

// IdempotencyLockPKPrefixByEventID is the PK prefix "IDEMP#{EventID}#".
func IdempotencyLockPKPrefixByEventID(eventID string) (string, error) {
	return idempotencyLockPKTemplate.Prefix(eventID)
}

// IdempotencyLockSK is the constant SK of an IdempotencyLock.
const IdempotencyLockSK = "LOCK"

// IdempotencyLockKey returns the primary key of an IdempotencyLock.
func IdempotencyLockKey(eventID, userID string) (entity.Key, error) {
	pk, err := IdempotencyLockPK(eventID, userID)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: IdempotencyLockSK}, nil
}

// ParseIdempotencyLockPK parses a PK built by IdempotencyLockPK.
func ParseIdempotencyLockPK(pk string) (eventID, userID string, err error) {
	p, err := idempotencyLockPKTemplate.Parse(pk)
	if err != nil {
		return "", "", err
	}
	return p[0], p[1], nil
}

// ParseIdempotencyLockKey parses a primary key of an IdempotencyLock.
func ParseIdempotencyLockKey(k entity.Key) (eventID, userID string, err error) {
	if k.SK != IdempotencyLockSK {
		return "", "", &keys.Error{Template: IdempotencyLockSK, Key: k.SK, Err: keys.ErrMalformed}
	}
	return ParseIdempotencyLockPK(k.PK)
}

var idempotencyLockSchema = &entity.Schema{
	Type: IdempotencyLockType,
	Keys: []entity.KeyAttr{
		{Role: "pk", Attr: "PK", Template: "IDEMP#{EventID}#{UserID}", Sources: []string{"eventId", "userId"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			return idempotencyLockPKTemplate.Build(kgS(item, "eventId"), kgS(item, "userId"))
		}},
		{Role: "sk", Attr: "SK", Template: "LOCK", Sources: []string{}, Build: func(map[string]types.AttributeValue) (string, error) { return IdempotencyLockSK, nil }},
	},
	Attrs:       []string{"Type", "eventId", "userId", "requestId"},
	CreatedAttr: "createdAt",
	TimeLayout:  kgIso,
}

// EntitySchema implements entity.Item.
func (*IdempotencyLock) EntitySchema() *entity.Schema { return idempotencyLockSchema }

// PrimaryKey implements entity.Item.
func (v *IdempotencyLock) PrimaryKey() (entity.Key, error) {
	return IdempotencyLockKey(v.EventID, v.UserID)
}

// MarshalItem implements entity.Item.
func (v *IdempotencyLock) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 7)
	item["Type"] = kgStr(IdempotencyLockType)
	item["eventId"] = kgStr(v.EventID)
	item["userId"] = kgStr(v.UserID)
	item["requestId"] = kgStr(v.RequestID)
	if !v.CreatedAt.IsZero() {
		item["createdAt"] = kgStr(v.CreatedAt.UTC().Format(kgIso))
	}
	k, err := v.PrimaryKey()
	if err != nil {
		return nil, err
	}
	item["PK"], item["SK"] = kgStr(k.PK), kgStr(k.SK)
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *IdempotencyLock) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = IdempotencyLock{}
	var err error
	if av, ok := item["eventId"]; ok {
		if v.EventID, err = kgDecS("eventId", av); err != nil {
			return err
		}
	}
	if av, ok := item["userId"]; ok {
		if v.UserID, err = kgDecS("userId", av); err != nil {
			return err
		}
	}
	if av, ok := item["requestId"]; ok {
		if v.RequestID, err = kgDecS("requestId", av); err != nil {
			return err
		}
	}
	if av, ok := item["createdAt"]; ok {
		if v.CreatedAt, err = kgDecTime("createdAt", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of IdempotencyLock, for update setters.
var (
	IdempotencyLockEventID   = entity.Field[IdempotencyLock, string]{Name: "eventId", Encode: kgEncS}
	IdempotencyLockUserID    = entity.Field[IdempotencyLock, string]{Name: "userId", Encode: kgEncS}
	IdempotencyLockRequestID = entity.Field[IdempotencyLock, string]{Name: "requestId", Encode: kgEncS}
	IdempotencyLockCreatedAt = entity.Field[IdempotencyLock, time.Time]{Name: "createdAt", Encode: kgEncTime}
)

var _ struct {
	EventID   string    `ddb:"eventId"`
	UserID    string    `ddb:"userId"`
	RequestID string    `ddb:"requestId"`
	CreatedAt time.Time `ddb:"createdAt,created"`
} = IdempotencyLock{}

// ---- Request ----

// RequestType is the Type attribute of a Request.
const RequestType = "Request"

var (
	requestPKTemplate     = keys.MustNew("REQ#{RequestID}")
	requestGSI1PKTemplate = keys.MustNew("USER#{UserID}")
	requestGSI1SKTemplate = keys.MustNew("RAT#{RequestedAt}#REQ#{RequestID}", kgSortKey)
	requestGSI2PKTemplate = keys.MustNew("EVENT#{EventID}")
	requestGSI2SKTemplate = keys.MustNew("QAT#{QueuedAt}#REQ#{RequestID}", kgSortKey)
)

// RequestPK builds the PK attribute "REQ#{RequestID}".
func RequestPK(requestID string) (string, error) { return requestPKTemplate.Build(requestID) }

// RequestPKPrefix is the literal start of PK, for begins_with.
const RequestPKPrefix = "REQ#"

// RequestSK is the constant SK of a Request.
const RequestSK = "META"

// RequestGSI1PK builds the GSI1PK attribute "USER#{UserID}".
func RequestGSI1PK(userID string) (string, error) { return requestGSI1PKTemplate.Build(userID) }

// RequestGSI1PKPrefix is the literal start of GSI1PK, for begins_with.
const RequestGSI1PKPrefix = "USER#"

// RequestGSI1SK builds the GSI1SK attribute "RAT#{RequestedAt}#REQ#{RequestID}".
func RequestGSI1SK(requestedAt time.Time, requestID string) (string, error) {
	return requestGSI1SKTemplate.Build(requestedAt, requestID)
}

// RequestGSI1SKPrefix is the literal start of GSI1SK, for begins_with.
const RequestGSI1SKPrefix = "RAT#"

// RequestGSI1SKPrefixByRequestedAt is the GSI1SK prefix "RAT#{RequestedAt}#REQ#".
func RequestGSI1SKPrefixByRequestedAt(requestedAt time.Time) (string, error) {
	return requestGSI1SKTemplate.Prefix(requestedAt)
}

// RequestGSI2PK builds the GSI2PK attribute "EVENT#{EventID}".
func RequestGSI2PK(eventID string) (string, error) { return requestGSI2PKTemplate.Build(eventID) }

// RequestGSI2PKPrefix is the literal start of GSI2PK, for begins_with.
const RequestGSI2PKPrefix = "EVENT#"

// RequestGSI2SK builds the GSI2SK attribute "QAT#{QueuedAt}#REQ#{RequestID}".
func RequestGSI2SK(queuedAt time.Time, requestID string) (string, error) {
	return requestGSI2SKTemplate.Build(queuedAt, requestID)
}

// RequestGSI2SKPrefix is the literal start of GSI2SK, for begins_with.
const RequestGSI2SKPrefix = "QAT#"

// RequestGSI2SKPrefixByQueuedAt is the GSI2SK prefix "QAT#{QueuedAt}#REQ#".
func RequestGSI2SKPrefixByQueuedAt(queuedAt time.Time) (string, error) {
	return requestGSI2SKTemplate.Prefix(queuedAt)
}

// RequestKey returns the primary key of a Request.
func RequestKey(requestID string) (entity.Key, error) {
	pk, err := RequestPK(requestID)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: RequestSK}, nil
}

// ParseRequestPK parses a PK built by RequestPK.
func ParseRequestPK(pk string) (requestID string, err error) {
	p, err := requestPKTemplate.Parse(pk)
	if err != nil {
		return "", err
	}
	return p[0], nil
}

// ParseRequestKey parses a primary key of a Request.
func ParseRequestKey(k entity.Key) (requestID string, err error) {
	if k.SK != RequestSK {
		return "", &keys.Error{Template: RequestSK, Key: k.SK, Err: keys.ErrMalformed}
	}
	return ParseRequestPK(k.PK)
}

// ParseRequestGSI1PK parses a GSI1PK built by RequestGSI1PK.
func ParseRequestGSI1PK(s string) (userID string, err error) {
	p, err := requestGSI1PKTemplate.Parse(s)
	if err != nil {
		return "", err
	}
	return p[0], nil
}

// ParseRequestGSI1SK parses a GSI1SK built by RequestGSI1SK.
func ParseRequestGSI1SK(s string) (requestedAt time.Time, requestID string, err error) {
	p, err := requestGSI1SKTemplate.Parse(s)
	if err != nil {
		return time.Time{}, "", err
	}
	if requestedAt, err = keys.ParseTime(p[0], keys.TimeMillis); err != nil {
		return time.Time{}, "", &keys.Error{Template: requestGSI1SKTemplate.String(), Field: "RequestedAt", Key: s, Err: err}
	}
	return requestedAt, p[1], nil
}

// ParseRequestGSI2PK parses a GSI2PK built by RequestGSI2PK.
func ParseRequestGSI2PK(s string) (eventID string, err error) {
	p, err := requestGSI2PKTemplate.Parse(s)
	if err != nil {
		return "", err
	}
	return p[0], nil
}

// ParseRequestGSI2SK parses a GSI2SK built by RequestGSI2SK.
func ParseRequestGSI2SK(s string) (queuedAt time.Time, requestID string, err error) {
	p, err := requestGSI2SKTemplate.Parse(s)
	if err != nil {
		return time.Time{}, "", err
	}
	if queuedAt, err = keys.ParseTime(p[0], keys.TimeMillis); err != nil {
		return time.Time{}, "", &keys.Error{Template: requestGSI2SKTemplate.String(), Field: "QueuedAt", Key: s, Err: err}
	}
	return queuedAt, p[1], nil
}

var requestSchema = &entity.Schema{
	Type: RequestType,
	Keys: []entity.KeyAttr{
		{Role: "pk", Attr: "PK", Template: "REQ#{RequestID}", Sources: []string{"requestId"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			return requestPKTemplate.Build(kgS(item, "requestId"))
		}},
		{Role: "sk", Attr: "SK", Template: "META", Sources: []string{}, Build: func(map[string]types.AttributeValue) (string, error) { return RequestSK, nil }},
		{Index: GSI1, Role: "pk", Attr: "GSI1PK", Template: "USER#{UserID}", Sources: []string{"userId"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			return requestGSI1PKTemplate.Build(kgS(item, "userId"))
		}},
		{Index: GSI1, Role: "sk", Attr: "GSI1SK", Template: "RAT#{RequestedAt}#REQ#{RequestID}", Sources: []string{"requestedAt", "requestId"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			t, err := kgT(item, "requestedAt")
			if err != nil {
				return "", err
			}
			return requestGSI1SKTemplate.Build(t, kgS(item, "requestId"))
		}},
		{Index: GSI2, Role: "pk", Attr: "GSI2PK", Template: "EVENT#{EventID}", Sources: []string{"eventId"}, Sparse: true, Build: func(item map[string]types.AttributeValue) (string, error) {
			return requestGSI2PKTemplate.Build(kgS(item, "eventId"))
		}},
		{Index: GSI2, Role: "sk", Attr: "GSI2SK", Template: "QAT#{QueuedAt}#REQ#{RequestID}", Sources: []string{"queuedAt", "requestId"}, Sparse: true, Build: func(item map[string]types.AttributeValue) (string, error) {
			t, err := kgT(item, "queuedAt")
			if err != nil {
				return "", err
			}
			return requestGSI2SKTemplate.Build(t, kgS(item, "requestId"))
		}},
	},
	Attrs:       []string{"Type", "requestId", "eventId", "userId", "mode", "status", "uiResult", "requestedAt", "queuedAt", "startedAt", "finishedAt", "failureClass", "errorCode", "errorMessage"},
	UpdatedAttr: "updatedAt",
	TimeLayout:  kgIso,
}

// EntitySchema implements entity.Item.
func (*Request) EntitySchema() *entity.Schema { return requestSchema }

// PrimaryKey implements entity.Item.
func (v *Request) PrimaryKey() (entity.Key, error) { return RequestKey(v.RequestID) }

// MarshalItem implements entity.Item.
func (v *Request) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 21)
	var err error
	item["Type"] = kgStr(RequestType)
	item["requestId"] = kgStr(v.RequestID)
	item["eventId"] = kgStr(v.EventID)
	item["userId"] = kgStr(v.UserID)
	if item["mode"], err = kgAV("mode", v.Mode); err != nil {
		return nil, err
	}
	if item["status"], err = kgAV("status", v.Status); err != nil {
		return nil, err
	}
	if v.UIResult != "" {
		if item["uiResult"], err = kgAV("uiResult", v.UIResult); err != nil {
			return nil, err
		}
	}
	kgPutTime(item, "requestedAt", v.RequestedAt)
	kgPutTime(item, "queuedAt", v.QueuedAt)
	kgPutTime(item, "startedAt", v.StartedAt)
	kgPutTime(item, "finishedAt", v.FinishedAt)
	if v.FailureClass != "" {
		if item["failureClass"], err = kgAV("failureClass", v.FailureClass); err != nil {
			return nil, err
		}
	}
	if v.ErrorCode != "" {
		if item["errorCode"], err = kgAV("errorCode", v.ErrorCode); err != nil {
			return nil, err
		}
	}
	if v.ErrorMessage != "" {
		item["errorMessage"] = kgStr(v.ErrorMessage)
	}
	kgPutTime(item, "updatedAt", v.UpdatedAt)
	k, err := v.PrimaryKey()
	if err != nil {
		return nil, err
	}
	item["PK"], item["SK"] = kgStr(k.PK), kgStr(k.SK)
	if err := kgIndex(item, GSI1, false, "GSI1PK", "GSI1SK",
		func() (string, error) { return RequestGSI1PK(v.UserID) },
		func() (string, error) { return RequestGSI1SK(v.RequestedAt, v.RequestID) }); err != nil {
		return nil, err
	}
	if err := kgIndex(item, GSI2, true, "GSI2PK", "GSI2SK",
		func() (string, error) { return RequestGSI2PK(v.EventID) },
		func() (string, error) { return RequestGSI2SK(v.QueuedAt, v.RequestID) }); err != nil {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *Request) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = Request{}
	var err error
	if av, ok := item["requestId"]; ok {
		if v.RequestID, err = kgDecS("requestId", av); err != nil {
			return err
		}
	}
	if av, ok := item["eventId"]; ok {
		if v.EventID, err = kgDecS("eventId", av); err != nil {
			return err
		}
	}
	if av, ok := item["userId"]; ok {
		if v.UserID, err = kgDecS("userId", av); err != nil {
			return err
		}
	}
	if av, ok := item["mode"]; ok {
		if err = kgDecAV("mode", av, &v.Mode); err != nil {
			return err
		}
	}
	if av, ok := item["status"]; ok {
		if err = kgDecAV("status", av, &v.Status); err != nil {
			return err
		}
	}
	if av, ok := item["uiResult"]; ok {
		if err = kgDecAV("uiResult", av, &v.UIResult); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{{"requestedAt", &v.RequestedAt}, {"queuedAt", &v.QueuedAt}, {"startedAt", &v.StartedAt}, {"finishedAt", &v.FinishedAt}, {"updatedAt", &v.UpdatedAt}} {
		if av, ok := item[f.name]; ok {
			if *f.dst, err = kgDecTime(f.name, av); err != nil {
				return err
			}
		}
	}
	if av, ok := item["failureClass"]; ok {
		if err = kgDecAV("failureClass", av, &v.FailureClass); err != nil {
			return err
		}
	}
	if av, ok := item["errorCode"]; ok {
		if err = kgDecAV("errorCode", av, &v.ErrorCode); err != nil {
			return err
		}
	}
	if av, ok := item["errorMessage"]; ok {
		if v.ErrorMessage, err = kgDecS("errorMessage", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of Request, for update setters.
var (
	RequestRequestID    = entity.Field[Request, string]{Name: "requestId", Encode: kgEncS}
	RequestEventID      = entity.Field[Request, string]{Name: "eventId", Encode: kgEncS}
	RequestUserID       = entity.Field[Request, string]{Name: "userId", Encode: kgEncS}
	RequestMode         = entity.Field[Request, Mode]{Name: "mode", Encode: kgEncAV[Mode]}
	RequestStatus       = entity.Field[Request, Status]{Name: "status", Encode: kgEncAV[Status]}
	RequestUIResult     = entity.Field[Request, UIResult]{Name: "uiResult", Encode: kgEncAVOmit[UIResult]}
	RequestRequestedAt  = entity.Field[Request, time.Time]{Name: "requestedAt", Encode: kgEncTime}
	RequestQueuedAt     = entity.Field[Request, time.Time]{Name: "queuedAt", Encode: kgEncTime}
	RequestStartedAt    = entity.Field[Request, time.Time]{Name: "startedAt", Encode: kgEncTime}
	RequestFinishedAt   = entity.Field[Request, time.Time]{Name: "finishedAt", Encode: kgEncTime}
	RequestFailureClass = entity.Field[Request, FailureClass]{Name: "failureClass", Encode: kgEncAVOmit[FailureClass]}
	RequestErrorCode    = entity.Field[Request, ErrorCode]{Name: "errorCode", Encode: kgEncAVOmit[ErrorCode]}
	RequestErrorMessage = entity.Field[Request, string]{Name: "errorMessage", Encode: kgEncSOmit}
	RequestUpdatedAt    = entity.Field[Request, time.Time]{Name: "updatedAt", Encode: kgEncTime}
)

var _ struct {
	RequestID    string       `ddb:"requestId"`
	EventID      string       `ddb:"eventId"`
	UserID       string       `ddb:"userId"`
	Mode         Mode         `ddb:"mode,av"`
	Status       Status       `ddb:"status,av"`
	UIResult     UIResult     `ddb:"uiResult,av,omitempty"`
	RequestedAt  time.Time    `ddb:"requestedAt"`
	QueuedAt     time.Time    `ddb:"queuedAt,omitempty"`
	StartedAt    time.Time    `ddb:"startedAt,omitempty"`
	FinishedAt   time.Time    `ddb:"finishedAt,omitempty"`
	FailureClass FailureClass `ddb:"failureClass,av,omitempty"`
	ErrorCode    ErrorCode    `ddb:"errorCode,av,omitempty"`
	ErrorMessage string       `ddb:"errorMessage,omitempty"`
	UpdatedAt    time.Time    `ddb:"updatedAt,updated"`
} = Request{}

// ---- EventCapacity ----

// EventCapacityType is the Type attribute of an EventCapacity.
const EventCapacityType = "EventCapacity"

var eventCapacityPKTemplate = keys.MustNew("EVENT#{EventID}")

// EventCapacityPK builds the PK attribute "EVENT#{EventID}".
func EventCapacityPK(eventID string) (string, error) { return eventCapacityPKTemplate.Build(eventID) }

// EventCapacityPKPrefix is the literal start of PK, for begins_with.
const EventCapacityPKPrefix = "EVENT#"

// EventCapacitySK is the constant SK of an EventCapacity.
const EventCapacitySK = "CAPACITY"

// EventCapacityKey returns the primary key of an EventCapacity.
func EventCapacityKey(eventID string) (entity.Key, error) {
	pk, err := EventCapacityPK(eventID)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: EventCapacitySK}, nil
}

// ParseEventCapacityPK parses a PK built by EventCapacityPK.
func ParseEventCapacityPK(pk string) (eventID string, err error) {
	p, err := eventCapacityPKTemplate.Parse(pk)
	if err != nil {
		return "", err
	}
	return p[0], nil
}

// ParseEventCapacityKey parses a primary key of an EventCapacity.
func ParseEventCapacityKey(k entity.Key) (eventID string, err error) {
	if k.SK != EventCapacitySK {
		return "", &keys.Error{Template: EventCapacitySK, Key: k.SK, Err: keys.ErrMalformed}
	}
	return ParseEventCapacityPK(k.PK)
}

var eventCapacitySchema = &entity.Schema{
	Type: EventCapacityType,
	Keys: []entity.KeyAttr{
		{Role: "pk", Attr: "PK", Template: "EVENT#{EventID}", Sources: []string{"eventId"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			return eventCapacityPKTemplate.Build(kgS(item, "eventId"))
		}},
		{Role: "sk", Attr: "SK", Template: "CAPACITY", Sources: []string{}, Build: func(map[string]types.AttributeValue) (string, error) { return EventCapacitySK, nil }},
	},
	Attrs:       []string{"Type", "eventId", "capacityTotal", "capacityRemaining"},
	CreatedAttr: "createdAt",
	UpdatedAttr: "updatedAt",
	TimeLayout:  kgIso,
}

// EntitySchema implements entity.Item.
func (*EventCapacity) EntitySchema() *entity.Schema { return eventCapacitySchema }

// PrimaryKey implements entity.Item.
func (v *EventCapacity) PrimaryKey() (entity.Key, error) { return EventCapacityKey(v.EventID) }

// MarshalItem implements entity.Item.
func (v *EventCapacity) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 8)
	item["Type"] = kgStr(EventCapacityType)
	item["eventId"] = kgStr(v.EventID)
	item["capacityTotal"] = kgNum(v.CapacityTotal)
	item["capacityRemaining"] = kgNum(v.CapacityRemaining)
	kgPutTime(item, "createdAt", v.CreatedAt)
	kgPutTime(item, "updatedAt", v.UpdatedAt)
	k, err := v.PrimaryKey()
	if err != nil {
		return nil, err
	}
	item["PK"], item["SK"] = kgStr(k.PK), kgStr(k.SK)
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *EventCapacity) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = EventCapacity{}
	var err error
	if av, ok := item["eventId"]; ok {
		if v.EventID, err = kgDecS("eventId", av); err != nil {
			return err
		}
	}
	if av, ok := item["capacityTotal"]; ok {
		if v.CapacityTotal, err = kgDecInt("capacityTotal", av); err != nil {
			return err
		}
	}
	if av, ok := item["capacityRemaining"]; ok {
		if v.CapacityRemaining, err = kgDecInt("capacityRemaining", av); err != nil {
			return err
		}
	}
	if av, ok := item["createdAt"]; ok {
		if v.CreatedAt, err = kgDecTime("createdAt", av); err != nil {
			return err
		}
	}
	if av, ok := item["updatedAt"]; ok {
		if v.UpdatedAt, err = kgDecTime("updatedAt", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of EventCapacity, for update setters.
var (
	EventCapacityEventID           = entity.Field[EventCapacity, string]{Name: "eventId", Encode: kgEncS}
	EventCapacityCapacityTotal     = entity.Field[EventCapacity, int64]{Name: "capacityTotal", Encode: kgEncInt}
	EventCapacityCapacityRemaining = entity.Field[EventCapacity, int64]{Name: "capacityRemaining", Encode: kgEncInt}
	EventCapacityCreatedAt         = entity.Field[EventCapacity, time.Time]{Name: "createdAt", Encode: kgEncTime}
	EventCapacityUpdatedAt         = entity.Field[EventCapacity, time.Time]{Name: "updatedAt", Encode: kgEncTime}
)

var _ struct {
	EventID           string    `ddb:"eventId"`
	CapacityTotal     int64     `ddb:"capacityTotal"`
	CapacityRemaining int64     `ddb:"capacityRemaining"`
	CreatedAt         time.Time `ddb:"createdAt,created"`
	UpdatedAt         time.Time `ddb:"updatedAt,updated"`
} = EventCapacity{}

// ---- RequestStatusLog ----

// RequestStatusLogType is the Type attribute of a RequestStatusLog.
const RequestStatusLogType = "RequestStatusLog"

var (
	requestStatusLogPKTemplate = keys.MustNew("REQ#{RequestID}")
	requestStatusLogSKTemplate = keys.MustNew("LOG#{OccurredAt}", kgSortKey, func(o *keys.Options) { o.TimeFormat = keys.TimeNanos })
)

// RequestStatusLogPK builds the PK attribute "REQ#{RequestID}".
func RequestStatusLogPK(requestID string) (string, error) {
	return requestStatusLogPKTemplate.Build(requestID)
}

// RequestStatusLogPKPrefix is the literal start of PK, for begins_with.
const RequestStatusLogPKPrefix = "REQ#"

// RequestStatusLogSK builds the SK attribute "LOG#{OccurredAt}".
func RequestStatusLogSK(occurredAt time.Time) (string, error) {
	return requestStatusLogSKTemplate.Build(occurredAt)
}

// RequestStatusLogSKPrefix is the literal start of SK, for begins_with.
const RequestStatusLogSKPrefix = "LOG#"

// RequestStatusLogKey returns the primary key of a RequestStatusLog.
func RequestStatusLogKey(requestID string, occurredAt time.Time) (entity.Key, error) {
	pk, err := RequestStatusLogPK(requestID)
	if err != nil {
		return entity.Key{}, err
	}
	sk, err := RequestStatusLogSK(occurredAt)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: sk}, nil
}

// ParseRequestStatusLogPK parses a PK built by RequestStatusLogPK.
func ParseRequestStatusLogPK(pk string) (requestID string, err error) {
	p, err := requestStatusLogPKTemplate.Parse(pk)
	if err != nil {
		return "", err
	}
	return p[0], nil
}

// ParseRequestStatusLogSK parses an SK built by RequestStatusLogSK.
func ParseRequestStatusLogSK(sk string) (occurredAt time.Time, err error) {
	p, err := requestStatusLogSKTemplate.Parse(sk)
	if err != nil {
		return time.Time{}, err
	}
	if occurredAt, err = keys.ParseTime(p[0], keys.TimeNanos); err != nil {
		return time.Time{}, &keys.Error{Template: requestStatusLogSKTemplate.String(), Field: "OccurredAt", Key: sk, Err: err}
	}
	return occurredAt, nil
}

// ParseRequestStatusLogKey parses a primary key of a RequestStatusLog.
func ParseRequestStatusLogKey(k entity.Key) (requestID string, occurredAt time.Time, err error) {
	if requestID, err = ParseRequestStatusLogPK(k.PK); err != nil {
		return "", time.Time{}, err
	}
	if occurredAt, err = ParseRequestStatusLogSK(k.SK); err != nil {
		return "", time.Time{}, err
	}
	return requestID, occurredAt, nil
}

var requestStatusLogSchema = &entity.Schema{
	Type: RequestStatusLogType,
	Keys: []entity.KeyAttr{
		{Role: "pk", Attr: "PK", Template: "REQ#{RequestID}", Sources: []string{"requestId"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			return requestStatusLogPKTemplate.Build(kgS(item, "requestId"))
		}},
		{Role: "sk", Attr: "SK", Template: "LOG#{OccurredAt}", Sources: []string{"occurredAt"}, Build: func(item map[string]types.AttributeValue) (string, error) {
			t, err := kgT(item, "occurredAt")
			if err != nil {
				return "", err
			}
			return requestStatusLogSKTemplate.Build(t)
		}},
	},
	Attrs:      []string{"Type", "requestId", "occurredAt", "fromStatus", "toStatus", "detail"},
	TimeLayout: kgIso,
}

// EntitySchema implements entity.Item.
func (*RequestStatusLog) EntitySchema() *entity.Schema { return requestStatusLogSchema }

// PrimaryKey implements entity.Item.
func (v *RequestStatusLog) PrimaryKey() (entity.Key, error) {
	return RequestStatusLogKey(v.RequestID, v.OccurredAt)
}

// MarshalItem implements entity.Item.
func (v *RequestStatusLog) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 8)
	var err error
	item["Type"] = kgStr(RequestStatusLogType)
	item["requestId"] = kgStr(v.RequestID)
	if !v.OccurredAt.IsZero() {
		item["occurredAt"] = kgStr(v.OccurredAt.UTC().Format(kgIsoNano))
	}
	if v.From != "" {
		if item["fromStatus"], err = kgAV("fromStatus", v.From); err != nil {
			return nil, err
		}
	}
	if item["toStatus"], err = kgAV("toStatus", v.To); err != nil {
		return nil, err
	}
	if v.Detail != "" {
		item["detail"] = kgStr(v.Detail)
	}
	k, err := v.PrimaryKey()
	if err != nil {
		return nil, err
	}
	item["PK"], item["SK"] = kgStr(k.PK), kgStr(k.SK)
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *RequestStatusLog) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = RequestStatusLog{}
	var err error
	if av, ok := item["requestId"]; ok {
		if v.RequestID, err = kgDecS("requestId", av); err != nil {
			return err
		}
	}
	if av, ok := item["occurredAt"]; ok {
		if v.OccurredAt, err = kgDecTime("occurredAt", av); err != nil {
			return err
		}
	}
	if av, ok := item["fromStatus"]; ok {
		if err = kgDecAV("fromStatus", av, &v.From); err != nil {
			return err
		}
	}
	if av, ok := item["toStatus"]; ok {
		if err = kgDecAV("toStatus", av, &v.To); err != nil {
			return err
		}
	}
	if av, ok := item["detail"]; ok {
		if v.Detail, err = kgDecS("detail", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of RequestStatusLog, for update setters.
var (
	RequestStatusLogRequestID  = entity.Field[RequestStatusLog, string]{Name: "requestId", Encode: kgEncS}
	RequestStatusLogOccurredAt = entity.Field[RequestStatusLog, time.Time]{Name: "occurredAt", Encode: kgEncTimeNano}
	RequestStatusLogFrom       = entity.Field[RequestStatusLog, Status]{Name: "fromStatus", Encode: kgEncAVOmit[Status]}
	RequestStatusLogTo         = entity.Field[RequestStatusLog, Status]{Name: "toStatus", Encode: kgEncAV[Status]}
	RequestStatusLogDetail     = entity.Field[RequestStatusLog, string]{Name: "detail", Encode: kgEncSOmit}
)

var _ struct {
	RequestID  string    `ddb:"requestId"`
	OccurredAt time.Time `ddb:"occurredAt,isonano"`
	From       Status    `ddb:"fromStatus,av,omitempty"`
	To         Status    `ddb:"toStatus,av"`
	Detail     string    `ddb:"detail,omitempty"`
} = RequestStatusLog{}

// ---- codec helpers ----

const (
	kgIso     = "2006-01-02T15:04:05.000Z"
	kgIsoNano = "2006-01-02T15:04:05.000000000Z"
)

func kgSortKey(o *keys.Options) { o.MaxLen = keys.MaxSortKeyLen }

func kgStr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func kgNum(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func kgPutTime(item map[string]types.AttributeValue, name string, t time.Time) {
	if !t.IsZero() {
		item[name] = kgStr(t.UTC().Format(kgIso))
	}
}

func kgS(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// kgT decodes a time source of a key; absent gives the zero time, which
// the template reports as keys.ErrMissingField.
func kgT(item map[string]types.AttributeValue, name string) (time.Time, error) {
	av, ok := item[name]
	if !ok {
		return time.Time{}, nil
	}
	return kgDecTime(name, av)
}

// kgIndex writes the two key attributes of an index. A sparse index whose
// sources are missing is left out; any other error is returned.
func kgIndex(item map[string]types.AttributeValue, index string, sparse bool, pkAttr, skAttr string, pk, sk func() (string, error)) error {
	p, err := pk()
	if err == nil {
		var s string
		if s, err = sk(); err == nil {
			item[pkAttr], item[skAttr] = kgStr(p), kgStr(s)
			return nil
		}
	}
	if sparse && errors.Is(err, keys.ErrMissingField) {
		return nil
	}
	return fmt.Errorf("index %s key: %w", index, err)
}

func kgDecS(name string, av types.AttributeValue) (string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return "", nil
	}
	return "", fmt.Errorf("attribute %s: want S, got %T", name, av)
}

func kgDecInt(name string, av types.AttributeValue) (int64, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("attribute %s: %w", name, err)
		}
		return n, nil
	case *types.AttributeValueMemberNULL:
		return 0, nil
	}
	return 0, fmt.Errorf("attribute %s: want N, got %T", name, av)
}

func kgDecTime(name string, av types.AttributeValue) (time.Time, error) {
	s, err := kgDecS(name, av)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("attribute %s: %w", name, err)
	}
	return t.UTC(), nil
}

type kgMarshaler interface {
	MarshalDynamoDBAttributeValue() (types.AttributeValue, error)
}

func kgAV(name string, v kgMarshaler) (types.AttributeValue, error) {
	av, err := v.MarshalDynamoDBAttributeValue()
	if err != nil {
		return nil, fmt.Errorf("attribute %s: %w", name, err)
	}
	return av, nil
}

func kgDecAV(name string, av types.AttributeValue, dst interface {
	UnmarshalDynamoDBAttributeValue(types.AttributeValue) error
}) error {
	if err := dst.UnmarshalDynamoDBAttributeValue(av); err != nil {
		return fmt.Errorf("attribute %s: %w", name, err)
	}
	return nil
}

func kgEncAV[V kgMarshaler](v V) (types.AttributeValue, error) {
	return v.MarshalDynamoDBAttributeValue()
}

func kgEncAVOmit[V interface {
	kgMarshaler
	comparable
}](v V) (types.AttributeValue, error) {
	var zero V
	if v == zero {
		return nil, nil
	}
	return v.MarshalDynamoDBAttributeValue()
}

func kgEncS(v string) (types.AttributeValue, error) { return kgStr(v), nil }

func kgEncSOmit(v string) (types.AttributeValue, error) {
	if v == "" {
		return nil, nil
	}
	return kgStr(v), nil
}

func kgEncInt(v int64) (types.AttributeValue, error) { return kgNum(v), nil }

func kgEncTime(v time.Time) (types.AttributeValue, error) {
	if v.IsZero() {
		return nil, nil
	}
	return kgStr(v.UTC().Format(kgIso)), nil
}

func kgEncTimeNano(v time.Time) (types.AttributeValue, error) {
	if v.IsZero() {
		return nil, nil
	}
	return kgStr(v.UTC().Format(kgIsoNano)), nil
}
