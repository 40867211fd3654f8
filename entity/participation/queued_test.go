package participation

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

type nopQueue struct{}

func (nopQueue) Send(context.Context, Message) error { return nil }

// TestQueuedOnce: easy mistake 3. The only step that writes queuedAt and
// GSI2SK refuses to run twice, even from a stale copy that still says
// RECEIVED, and even on a RECEIVED item that somehow carries a queuedAt.
func TestQueuedOnce(t *testing.T) {
	ctx := context.Background()
	tbl := NewTable(testenv.Dynamo(t), testenv.UniqueName("participation-int"))
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	svc := NewService(tbl, nopQueue{})
	rc, err := svc.Participate(ctx, "evt-1", "user-1", ModeLottery)
	if err != nil {
		t.Fatal(err)
	}
	get := func(id string) map[string]types.AttributeValue {
		k, _ := RequestKey(id)
		out, err := tbl.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl.Name()), Key: tbl.KeyMap(k), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	before := get(rc.RequestID)
	stale := Request{RequestID: rc.RequestID, EventID: "evt-1", Status: StatusReceived}
	time.Sleep(2 * time.Millisecond)
	err = svc.markQueued(ctx, &stale)
	var te *TransitionError
	if !errors.As(err, &te) || te.From != StatusQueued || te.To != StatusQueued {
		t.Fatalf("second queue: %v", err)
	}
	after := get(rc.RequestID)
	for _, a := range []string{"queuedAt", "GSI2PK", "GSI2SK"} {
		if after[a].(*types.AttributeValueMemberS).Value != before[a].(*types.AttributeValueMemberS).Value {
			t.Fatalf("%s changed", a)
		}
	}

	// A RECEIVED item that already has a queuedAt (written by hand).
	odd := Request{RequestID: "odd", EventID: "evt-1", UserID: "u", Mode: ModeLottery, Status: StatusReceived,
		RequestedAt: time.Now(), QueuedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := entity.NewStore[Request](tbl).Create(ctx, &odd); err != nil {
		t.Fatal(err)
	}
	err = svc.markQueued(ctx, &odd)
	if !errors.As(err, &te) {
		t.Fatalf("queue an item with queuedAt: %v", err)
	}
	if got := get("odd")["queuedAt"].(*types.AttributeValueMemberS).Value; got != "2025-01-01T00:00:00.000Z" {
		t.Fatalf("queuedAt rewritten: %s", got)
	}
}
