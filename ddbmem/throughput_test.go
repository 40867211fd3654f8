package ddbmem_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/ddbmem"
)

// throughputView is what a test checks of a ProvisionedThroughputDescription.
type throughputView struct {
	Read, Write, Decreases int64
	Inc, Dec               time.Time // zero: absent
}

func viewThroughput(p *types.ProvisionedThroughputDescription) throughputView {
	v := throughputView{Read: aws.ToInt64(p.ReadCapacityUnits), Write: aws.ToInt64(p.WriteCapacityUnits), Decreases: aws.ToInt64(p.NumberOfDecreasesToday)}
	if p.LastIncreaseDateTime != nil {
		v.Inc = p.LastIncreaseDateTime.UTC()
	}
	if p.LastDecreaseDateTime != nil {
		v.Dec = p.LastDecreaseDateTime.UTC()
	}
	return v
}

// TestThroughputChanges follows DynamoDB's record of a throughput change
// (dynalite's suite holds AWS's answers): under Lifecycle.Update an
// UpdateTable's answer and the table's description while it is UPDATING
// show the old units, with the request's time as the last increase or
// decrease; once the update is done the new units show, dated by its end,
// and a decrease is counted among the UTC day's. A global index's change
// goes the same way, the index UPDATING meanwhile. Without Lifecycle a
// change applies, is dated and is counted at once.
func TestThroughputChanges(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)
	const upd = 3 * time.Second
	clock := &fakeClock{t: t0}
	db := ddbmem.New(func(o *ddbmem.Options) {
		o.Now = clock.Now
		o.Lifecycle = ddbmem.Lifecycle{Update: upd}
	})
	name := aws.String("tput")
	create := withPkIndex(pkTable(name))
	create.BillingMode = types.BillingModeProvisioned
	create.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	create.GlobalSecondaryIndexes[0].ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(2)}
	if _, err := db.CreateTable(ctx, create); err != nil {
		t.Fatal(err)
	}
	describe := func() *types.TableDescription {
		t.Helper()
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		if err != nil {
			t.Fatal(err)
		}
		return out.Table
	}
	check := func(what string, d *types.TableDescription, status types.TableStatus, want throughputView) {
		t.Helper()
		if d.TableStatus != status {
			t.Errorf("%s: status %s, want %s", what, d.TableStatus, status)
		}
		if diff := cmp.Diff(want, viewThroughput(d.ProvisionedThroughput)); diff != "" {
			t.Errorf("%s: throughput (-want +got):\n%s", what, diff)
		}
	}
	update := func(r, w int64) *types.TableDescription {
		t.Helper()
		out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}})
		if err != nil {
			t.Fatal(err)
		}
		return out.TableDescription
	}

	check("created", describe(), types.TableStatusActive, throughputView{Read: 5, Write: 5})

	// Triple, then back down: the sequence of dynalite's "should triple
	// rates and then reduce if requested".
	inc := clock.Now()
	check("increase answered", update(15, 15), types.TableStatusUpdating, throughputView{Read: 5, Write: 5, Inc: inc})
	clock.Add(time.Second)
	check("increasing", describe(), types.TableStatusUpdating, throughputView{Read: 5, Write: 5, Inc: inc})
	clock.Add(upd)
	incDone := inc.Add(upd)
	check("increased", describe(), types.TableStatusActive, throughputView{Read: 15, Write: 15, Inc: incDone})

	dec := clock.Now()
	check("decrease answered", update(5, 5), types.TableStatusUpdating, throughputView{Read: 15, Write: 15, Inc: incDone, Dec: dec})
	clock.Add(upd)
	decDone := dec.Add(upd)
	check("decreased", describe(), types.TableStatusActive, throughputView{Read: 5, Write: 5, Decreases: 1, Inc: incDone, Dec: decDone})

	// One unit up and the other down is both an increase and a decrease.
	both := clock.Now()
	update(6, 4)
	clock.Add(upd)
	check("read up, write down", describe(), types.TableStatusActive,
		throughputView{Read: 6, Write: 4, Decreases: 2, Inc: both.Add(upd), Dec: both.Add(upd)})

	// A global index's own change: the index is UPDATING meanwhile.
	ixUpdate := func(r, w int64) {
		t.Helper()
		if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("byPk"),
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	ixAt := clock.Now()
	ixUpdate(1, 1)
	g := describe().GlobalSecondaryIndexes[0]
	if g.IndexStatus != types.IndexStatusUpdating {
		t.Errorf("index while its throughput changes: %s, want UPDATING", g.IndexStatus)
	}
	if diff := cmp.Diff(throughputView{Read: 2, Write: 2, Dec: ixAt}, viewThroughput(g.ProvisionedThroughput)); diff != "" {
		t.Errorf("index decreasing (-want +got):\n%s", diff)
	}
	clock.Add(upd)
	g = describe().GlobalSecondaryIndexes[0]
	if g.IndexStatus != types.IndexStatusActive {
		t.Errorf("index after its change: %s, want ACTIVE", g.IndexStatus)
	}
	if diff := cmp.Diff(throughputView{Read: 1, Write: 1, Decreases: 1, Dec: ixAt.Add(upd)}, viewThroughput(g.ProvisionedThroughput)); diff != "" {
		t.Errorf("index decreased (-want +got):\n%s", diff)
	}

	// NumberOfDecreasesToday counts the UTC day's: the next day it is 0
	// until the next decrease, which is the day's first.
	clock.Add(2 * time.Hour) // past midnight UTC
	check("next day", describe(), types.TableStatusActive, throughputView{Read: 6, Write: 4, Inc: both.Add(upd), Dec: both.Add(upd)})
	next := clock.Now()
	update(6, 3)
	clock.Add(upd)
	check("next day's decrease", describe(), types.TableStatusActive,
		throughputView{Read: 6, Write: 3, Decreases: 1, Inc: both.Add(upd), Dec: next.Add(upd)})

	// To PAY_PER_REQUEST and back: the billing summary is dated by the
	// switch once it is done, and stays when the table is PROVISIONED
	// again; the units given then apply at once.
	if d := describe(); d.BillingModeSummary != nil {
		t.Errorf("a table created PROVISIONED has a billing summary: %+v", d.BillingModeSummary)
	}
	toOnDemand := clock.Now()
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, BillingMode: types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	if s := out.TableDescription.BillingModeSummary; s == nil || s.BillingMode != types.BillingModePayPerRequest || s.LastUpdateToPayPerRequestDateTime != nil {
		t.Errorf("switching to PAY_PER_REQUEST: billing summary %+v, want PAY_PER_REQUEST without a time", s)
	}
	check("switching to PAY_PER_REQUEST", out.TableDescription, types.TableStatusUpdating, throughputView{Inc: both.Add(upd), Dec: next.Add(upd), Decreases: 1})
	clock.Add(upd)
	if s := describe().BillingModeSummary; s == nil || !aws.ToTime(s.LastUpdateToPayPerRequestDateTime).Equal(toOnDemand.Add(upd)) {
		t.Errorf("after the switch to PAY_PER_REQUEST: billing summary %+v, want it dated %v", s, toOnDemand.Add(upd))
	}
	out, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(7)},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("byPk"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(3)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if s := d.BillingModeSummary; s == nil || s.BillingMode != types.BillingModeProvisioned || !aws.ToTime(s.LastUpdateToPayPerRequestDateTime).Equal(toOnDemand.Add(upd)) {
		t.Errorf("back to PROVISIONED: billing summary %+v, want PROVISIONED dated %v", s, toOnDemand.Add(upd))
	}
	if r, ir := aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits); r != 7 || ir != 3 {
		t.Errorf("back to PROVISIONED: read units %d, index %d; want 7 and 3 at once", r, ir)
	}
}

// TestThroughputChangesAtOnce: without Lifecycle a change applies at
// once, dated and counted by its request.
func TestThroughputChangesAtOnce(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	db := ddbmem.New(func(o *ddbmem.Options) { o.Now = clock.Now })
	name := aws.String("tput")
	create := pkTable(name)
	create.BillingMode = types.BillingModeProvisioned
	create.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	if _, err := db.CreateTable(ctx, create); err != nil {
		t.Fatal(err)
	}
	at := clock.Now()
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != types.TableStatusActive {
		t.Errorf("status %s, want ACTIVE", out.TableDescription.TableStatus)
	}
	if diff := cmp.Diff(throughputView{Read: 1, Write: 1, Decreases: 1, Dec: at}, viewThroughput(out.TableDescription.ProvisionedThroughput)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
