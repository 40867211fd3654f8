package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/idempotency"
)

// participations models seed 004's participation entry,
// POST /events/{eventId}/participations, with this package:
//
//   - the IdempotencyLock is the idempotency record, PK
//     "IDEMP#{eventId}#{userId}", SK "LOCK", holding the first requestId
//     (FirstValueAttr "requestId");
//   - easy mistake 1 (never create the Request without the lock): the
//     Request item REQ#{requestId} / META (status RECEIVED) is written in
//     the same transaction as the lock (Options.TransactItems), so it
//     exists only if the lock was won;
//   - easy mistake 4 (state changes are always conditional): RECEIVED ->
//     QUEUED is an UpdateItem conditioned on status = RECEIVED, and
//     queuedAt (with GSI2SK QAT#{queuedAt}#REQ#{requestId}) is written only
//     after the enqueue succeeded (easy mistake 2);
//   - a second click gets the first requestId: from the completed lock, or
//     while the first click is still running from the ErrInProgress that
//     the failed claim carried. The seed's GetItem for duplicates is not
//     needed: the conditional put returns the old lock (ALL_OLD).
type participations struct {
	db    entity.Client
	table string
	lock  *idempotency.Store
	queue chan<- string // stands in for SQS
	ids   atomic.Int64
}

func newParticipations(db entity.Client, table string, queue chan<- string) (*participations, error) {
	lock, err := idempotency.New(db, table, func(o *idempotency.Options) {
		o.FirstValueAttr = "requestId"
	})
	if err != nil {
		return nil, err
	}
	return &participations{db: db, table: table, lock: lock, queue: queue}, nil
}

func sAV(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// Participate handles one click. duplicate reports that requestID is the
// first click's.
func (p *participations) Participate(ctx context.Context, eventID, userID string) (requestID string, duplicate bool, err error) {
	requestID = fmt.Sprintf("req-%06d", p.ids.Add(1))
	now := time.Now().UTC().Format(time.RFC3339Nano)
	createRequest := types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(p.table),
		Item: map[string]types.AttributeValue{
			"PK": sAV("REQ#" + requestID), "SK": sAV("META"), "Type": sAV("REQUEST"),
			"requestId": sAV(requestID), "eventId": sAV(eventID), "userId": sAV(userID),
			"status": sAV("RECEIVED"), "requestedAt": sAV(now),
		},
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	}}
	enqueue := func(ctx context.Context) (string, error) {
		select {
		case p.queue <- requestID:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		queuedAt := time.Now().UTC().Format(time.RFC3339Nano)
		_, err := p.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                aws.String(p.table),
			Key:                      map[string]types.AttributeValue{"PK": sAV("REQ#" + requestID), "SK": sAV("META")},
			UpdateExpression:         aws.String("SET #s = :queued, queuedAt = :t, GSI2PK = :g2pk, GSI2SK = :g2sk"),
			ConditionExpression:      aws.String("#s = :received"),
			ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":queued": sAV("QUEUED"), ":received": sAV("RECEIVED"), ":t": sAV(queuedAt),
				":g2pk": sAV("EVENT#" + eventID), ":g2sk": sAV("QAT#" + queuedAt + "#REQ#" + requestID),
			},
		})
		if err != nil {
			return "", err
		}
		return requestID, nil
	}
	first, replayed, err := idempotency.Do(ctx, p.lock, eventID+"#"+userID, []byte(eventID+"\x00"+userID), enqueue,
		func(o *idempotency.Options) {
			o.FirstValue = requestID
			o.Key = func(string) entity.Key { return idempotency.DefaultKey(eventID, userID) }
			o.TransactItems = []types.TransactWriteItem{createRequest}
		})
	if errors.Is(err, idempotency.ErrInProgress) {
		if id, ok := idempotency.FirstValue(err); ok {
			return id, true, nil
		}
	}
	return first, replayed, err
}

func TestSeed004Participation(t *testing.T) {
	db, table := newTable(t, "PK", "SK")
	queue := make(chan string, 100)
	api, err := newParticipations(db, table, queue)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	first, dup, err := api.Participate(ctx, "ev-1", "user-1")
	if err != nil || dup {
		t.Fatalf("first click: %q dup=%v err=%v", first, dup, err)
	}
	second, dup, err := api.Participate(ctx, "ev-1", "user-1")
	if err != nil || !dup || second != first {
		t.Fatalf("second click: %q dup=%v err=%v, want the first requestId %q", second, dup, err, first)
	}
	lock := getItem(t, db, table, "PK", "IDEMP#ev-1#user-1", "SK", "LOCK")
	if str(lock, "requestId") != first || str(lock, "status") != idempotency.StatusComplete {
		t.Fatalf("lock = %v", lock)
	}
	req := getItem(t, db, table, "PK", "REQ#"+first, "SK", "META")
	if str(req, "status") != "QUEUED" || str(req, "GSI2SK") != "QAT#"+str(req, "queuedAt")+"#REQ#"+first {
		t.Fatalf("request item = %v", req)
	}

	// Thirty simultaneous clicks of one user: one Request, one message, and
	// everyone is told the same requestId.
	var wg sync.WaitGroup
	ids := make([]string, 30)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, _, err := api.Participate(ctx, "ev-1", "user-2")
			if err != nil {
				t.Errorf("click %d: %v", i, err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("clicks got different requestIds: %v", ids)
		}
	}
	if n := len(queue); n != 2 {
		t.Errorf("queue holds %d messages, want 2 (one per user)", n)
	}
	out, err := db.Scan(ctx, &dynamodb.ScanInput{
		TableName:                 aws.String(table),
		FilterExpression:          aws.String("begins_with(PK, :req)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":req": sAV("REQ#")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 2 {
		t.Errorf("%d Request items, want 2 (one per user)", out.Count)
	}
}
