package participation_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	p "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/internal/testenv"
)

func memTable(t *testing.T) *entity.Table {
	t.Helper()
	tbl := p.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tbl
}

func goodRequest() p.Request {
	return p.Request{RequestID: "r1", EventID: "e1", UserID: "u1", Mode: p.ModeFirstCome, Status: p.StatusReceived, RequestedAt: t0}
}

// TestSeedRulesOnEveryWrite writes each breach of a seed 004 rule through
// a plain entity.Store on every full-write path: the typed error, and
// nothing written.
func TestSeedRulesOnEveryWrite(t *testing.T) {
	ctx := context.Background()
	requests := []struct {
		name, attr string
		mod        func(*p.Request)
	}{
		{"status ARCHIVED", "status", func(r *p.Request) { r.Status = "ARCHIVED" }},
		{"no status", "status", func(r *p.Request) { r.Status = "" }},
		{"mode RAFFLE", "mode", func(r *p.Request) { r.Mode = "RAFFLE" }},
		{"uiResult MAYBE", "uiResult", func(r *p.Request) { r.UIResult = "MAYBE" }},
		{"failureClass FLAKY", "failureClass", func(r *p.Request) { r.FailureClass = "FLAKY" }},
		{"errorCode E42", "errorCode", func(r *p.Request) { r.ErrorCode = "E42" }},
	}
	paths := map[string]func(*entity.Table, *p.Request) error{
		"Create": func(tbl *entity.Table, r *p.Request) error { return entity.NewStore[p.Request](tbl).Create(ctx, r) },
		"Put":    func(tbl *entity.Table, r *p.Request) error { return entity.NewStore[p.Request](tbl).Put(ctx, r) },
		"BatchPut": func(tbl *entity.Table, r *p.Request) error {
			ok := goodRequest()
			ok.RequestID = "r0"
			return entity.NewStore[p.Request](tbl).BatchPut(ctx, []p.Request{ok, *r})
		},
		"TxCreate": func(tbl *entity.Table, r *p.Request) error {
			lock := p.IdempotencyLock{EventID: r.EventID, UserID: r.UserID, RequestID: r.RequestID}
			return tbl.Tx().Add(entity.NewStore[p.IdempotencyLock](tbl).TxCreate(&lock), entity.NewStore[p.Request](tbl).TxCreate(r)).Exec(ctx)
		},
	}
	for pname, write := range paths {
		for _, c := range requests {
			t.Run(pname+"/"+c.name, func(t *testing.T) {
				tbl := memTable(t)
				r := goodRequest()
				c.mod(&r)
				testenv.WantRule(t, c.name, write(tbl, &r), p.RequestType, c.attr, entity.RuleEnum)
				if items := scan(t, tbl); len(items) != 0 {
					t.Errorf("%d items written", len(items))
				}
			})
		}
		t.Run(pname+"/good", func(t *testing.T) {
			r := goodRequest()
			if err := write(memTable(t), &r); err != nil {
				t.Fatal(err)
			}
		})
	}
	caps := []struct {
		name, attr, rule string
		ec               p.EventCapacity
	}{
		{"total 0", "capacityTotal", entity.RuleMin, p.EventCapacity{EventID: "e1", CapacityTotal: 0}},
		{"remaining -1", "capacityRemaining", entity.RuleMin, p.EventCapacity{EventID: "e1", CapacityTotal: 3, CapacityRemaining: -1}},
	}
	for _, c := range caps {
		tbl := memTable(t)
		s := entity.NewStore[p.EventCapacity](tbl)
		ec := c.ec
		testenv.WantRule(t, "Create "+c.name, s.Create(ctx, &ec), p.EventCapacityType, c.attr, c.rule)
		testenv.WantRule(t, "BatchWrite "+c.name, tbl.BatchWrite(ctx, s.PutOp(&ec)), p.EventCapacityType, c.attr, c.rule)
		testenv.WantRule(t, "TxPut "+c.name, tbl.Tx().Add(s.TxPut(&ec)).Exec(ctx), p.EventCapacityType, c.attr, c.rule)
		if items := scan(t, tbl); len(items) != 0 {
			t.Errorf("%s: %d items written", c.name, len(items))
		}
	}
	tbl := memTable(t)
	log := p.RequestStatusLog{RequestID: "r1", OccurredAt: t0, From: "LIMBO", To: p.StatusQueued}
	testenv.WantRule(t, "log from LIMBO", entity.NewStore[p.RequestStatusLog](tbl).Create(ctx, &log), p.RequestStatusLogType, "fromStatus", entity.RuleEnum)
	log.From, log.To = "", "LIMBO"
	testenv.WantRule(t, "log to LIMBO", entity.NewStore[p.RequestStatusLog](tbl).Put(ctx, &log), p.RequestStatusLogType, "toStatus", entity.RuleEnum)
	if items := scan(t, tbl); len(items) != 0 {
		t.Errorf("log: %d items written", len(items))
	}
}

// TestSeedRulesOnUpdate sets one attribute through Update and TxUpdate.
func TestSeedRulesOnUpdate(t *testing.T) {
	ctx := context.Background()
	tbl := memTable(t)
	reqs := entity.NewStore[p.Request](tbl)
	caps := entity.NewStore[p.EventCapacity](tbl)
	r := goodRequest()
	ec := p.EventCapacity{EventID: "e1", CapacityTotal: 3, CapacityRemaining: 3}
	if err := reqs.Create(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if err := caps.Create(ctx, &ec); err != nil {
		t.Fatal(err)
	}
	rk, _ := r.PrimaryKey()
	ck, _ := ec.PrimaryKey()
	for _, c := range []struct {
		name, attr string
		change     entity.Change[p.Request]
	}{
		{"status", "status", entity.Set(p.RequestStatus, "ARCHIVED")},
		{"mode", "mode", entity.Set(p.RequestMode, "RAFFLE")},
		{"uiResult", "uiResult", entity.Set(p.RequestUIResult, "MAYBE")},
		{"failureClass", "failureClass", entity.Set(p.RequestFailureClass, "FLAKY")},
		{"errorCode", "errorCode", entity.SetIfNotExists(p.RequestErrorCode, "E42")},
	} {
		_, err := reqs.Update(ctx, rk, entity.Changes[p.Request]{c.change})
		testenv.WantRule(t, "Update "+c.name, err, p.RequestType, c.attr, entity.RuleEnum)
		err = tbl.Tx().Add(reqs.TxUpdate(rk, entity.Changes[p.Request]{c.change})).Exec(ctx)
		testenv.WantRule(t, "TxUpdate "+c.name, err, p.RequestType, c.attr, entity.RuleEnum)
	}
	_, err := caps.Update(ctx, ck, entity.Changes[p.EventCapacity]{entity.Set(p.EventCapacityCapacityRemaining, -1)})
	testenv.WantRule(t, "Update capacityRemaining", err, p.EventCapacityType, "capacityRemaining", entity.RuleMin)
	// Add takes a delta, not a value: decrementing is allowed (the
	// service guards it with capacityRemaining > 0).
	if got, err := caps.Update(ctx, ck, entity.Changes[p.EventCapacity]{entity.Add(p.EventCapacityCapacityRemaining, -1)}); err != nil || got.CapacityRemaining != 2 {
		t.Fatalf("decrement: %+v %v", got, err)
	}
	got, err := reqs.Get(ctx, rk)
	if err != nil || got.Status != p.StatusReceived || got.Mode != p.ModeFirstCome || got.UIResult != "" || got.ErrorCode != "" {
		t.Fatalf("request changed: %+v %v", got, err)
	}
}

// TestSeedRulesOnRead stores an unknown enum value behind the codec's
// back: Get is the typed error naming the attribute and the value.
func TestSeedRulesOnRead(t *testing.T) {
	ctx := context.Background()
	for _, attr := range []string{"status", "mode", "uiResult", "failureClass", "errorCode"} {
		tbl := memTable(t)
		r := goodRequest()
		item, err := r.MarshalItem()
		if err != nil {
			t.Fatal(err)
		}
		item[attr] = &types.AttributeValueMemberS{Value: "BOGUS"}
		if _, err := tbl.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: item}); err != nil {
			t.Fatal(err)
		}
		rk, _ := r.PrimaryKey()
		_, err = entity.NewStore[p.Request](tbl).Get(ctx, rk)
		testenv.WantRule(t, attr, err, p.RequestType, attr, entity.RuleEnum)
		var ce *entity.ConstraintError
		if errors.As(err, &ce) && fmt.Sprint(ce.Value) != "BOGUS" {
			t.Errorf("%s: value %v", attr, ce.Value)
		}
	}
}
