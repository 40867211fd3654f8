package evolve_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/evolve"
)

// capClient records the time and the consumed write units of every
// UpdateItem.
type capClient struct {
	entity.Client
	mu    sync.Mutex
	times []time.Time
	units []float64
}

func (c *capClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := c.Client.UpdateItem(ctx, in, optFns...)
	if err == nil && out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil && in.ReturnConsumedCapacity != "" {
		c.mu.Lock()
		c.times = append(c.times, time.Now())
		c.units = append(c.units, *out.ConsumedCapacity.CapacityUnits)
		c.mu.Unlock()
	}
	return out, err
}

// TestThrottle: with a budget of B write units per second, the rate
// measured from ReturnConsumedCapacity (first write to last) stays within
// 15 % of B.
func TestThrottle(t *testing.T) {
	targets(t, func(t *testing.T, c entity.Client) {
		budget, n := 200.0, 600
		if testingLocal(t) {
			budget, n = 10, 60 // DynamoDB Local is slow on a shared machine (and charges 3 WCU per write here)
		}
		cc := &capClient{Client: c}
		tbl := seedTable(t, cc, n)
		cc.mu.Lock()
		cc.times, cc.units = nil, nil
		cc.mu.Unlock()
		ctx := ctxT(t, 5*time.Minute)
		rep, err := evolve.Run(ctx, tbl, backfillJob("throttled"), func(o *evolve.Options) { o.WriteUnits = budget })
		if err != nil {
			t.Fatal(err)
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if len(cc.times) < 10 {
			t.Fatalf("%d writes measured", len(cc.times))
		}
		var u float64
		for _, x := range cc.units[1:] {
			u += x
		}
		rate := u / cc.times[len(cc.times)-1].Sub(cc.times[0]).Seconds()
		t.Logf("throttle: budget %.0f WCU/s, measured %.1f WCU/s (%+.1f %%) over %d writes, report %.0f WCU", budget, rate, (rate/budget-1)*100, len(cc.times), rep.Counts.WriteUnits)
		if rate < budget*0.85 || rate > budget*1.15 {
			t.Fatalf("rate %.1f outside ±15 %% of %.0f", rate, budget)
		}
	})
}
