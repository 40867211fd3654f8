package ddbmem

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func init() {
	operations["UpdateTable"] = op((*DB).UpdateTable)
}

// describeStream adds the stream fields to a table description; the
// caller holds t.mu.
func (t *table) describeStream(d *types.TableDescription) {
	if t.stream != nil {
		d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: t.stream.view}
	}
	if t.streamArn != "" {
		d.LatestStreamArn, d.LatestStreamLabel = aws.String(t.streamArn), aws.String(t.streamLabel)
	}
}

// UpdateTable changes a table's stream (StreamSpecification: enabling
// one creates a new stream with a new ARN and label; disabling one
// closes its shards, whose records stay readable for the retention
// period), its BillingMode, its ProvisionedThroughput and its global
// secondary indexes (GlobalSecondaryIndexUpdates: one created, built at
// once from the table's items, or deleted per call; see index_update.go)
// and its deletion protection (DeletionProtectionEnabled, which leaves
// the table ACTIVE). Other changes (replicas, ...) are a
// ValidationException. It returns a
// *types.ResourceNotFoundException when there is no such table, and a
// ValidationException, with DynamoDB Local's messages, for a request that
// changes nothing, enables a stream on a table that has one, or
// disables one on a table that has none.
func (db *DB) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	if err := db.begin(ctx, "UpdateTable"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.UpdateTableInput{}
	}
	if err := updateTableConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.anyTable(in.TableName)
	if err != nil {
		return nil, missingUpdateTable(err, in)
	}
	if len(in.ReplicaUpdates) > 0 || in.SSESpecification != nil ||
		in.TableClass != "" || in.OnDemandThroughput != nil ||
		in.WarmThroughput != nil || in.MultiRegionConsistency != "" || len(in.GlobalTableWitnessUpdates) > 0 {
		return nil, validation("ddbmem: UpdateTable supports StreamSpecification, BillingMode, ProvisionedThroughput, GlobalSecondaryIndexUpdates and DeletionProtectionEnabled only")
	}
	// Only deletion protection changes: the table stays ACTIVE.
	onlyProtection := in.StreamSpecification == nil && in.BillingMode == "" && in.ProvisionedThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0
	if onlyProtection && in.DeletionProtectionEnabled == nil {
		return nil, validation("Nothing to update")
	}
	if err := checkIndexUpdates(in.GlobalSecondaryIndexUpdates); err != nil { // index_update.go
		return nil, err
	}
	view, err := parseStreamSpec(in.StreamSpecification)
	if err != nil {
		return nil, err
	}
	switch in.BillingMode {
	case "", types.BillingModeProvisioned, types.BillingModePayPerRequest:
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
	}
	t.mu.Lock()
	if err := inUse(t); err != nil { // under the lock: one change at a time
		t.mu.Unlock()
		return nil, err
	}
	now := db.nanos()
	t.settle(now)
	billing := t.billing
	if in.BillingMode != "" {
		billing = in.BillingMode
	}
	switch {
	case billing == types.BillingModeProvisioned && in.BillingMode == types.BillingModeProvisioned && t.billing != billing && in.ProvisionedThroughput == nil:
		t.mu.Unlock()
		return nil, validation("One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	case billing == types.BillingModePayPerRequest && in.ProvisionedThroughput != nil:
		t.mu.Unlock()
		return nil, validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	if pt, cur := in.ProvisionedThroughput, t.prov.units; pt != nil && cur != nil && in.BillingMode == "" && in.StreamSpecification == nil && len(in.GlobalSecondaryIndexUpdates) == 0 &&
		in.DeletionProtectionEnabled == nil &&
		aws.ToInt64(pt.ReadCapacityUnits) == aws.ToInt64(cur.ReadCapacityUnits) && aws.ToInt64(pt.WriteCapacityUnits) == aws.ToInt64(cur.WriteCapacityUnits) {
		// DynamoDB's text (dynalite's suite records it); DynamoDB Local
		// says "The requested throughput value equals the current value".
		t.mu.Unlock()
		r, w := aws.ToInt64(cur.ReadCapacityUnits), aws.ToInt64(cur.WriteCapacityUnits)
		return nil, validationf("The provisioned throughput for the table will not change. The requested value equals the current value. "+
			"Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. "+
			"Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. "+
			"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", r, r, w, w)
	}
	if spec := in.StreamSpecification; spec != nil {
		switch {
		case view != "" && t.stream != nil:
			t.mu.Unlock()
			return nil, validation("Table already has an enabled stream")
		case view == "" && t.stream == nil:
			t.mu.Unlock()
			return nil, validation("Table has no stream to disable")
		}
	}
	ixs, defs, err := t.prepareIndexUpdates(in, billing)
	if err != nil {
		t.mu.Unlock()
		return nil, err
	}
	if err := t.requota(&db.quota, in, billing, ixs); err != nil { // quota.go
		t.mu.Unlock()
		return nil, err
	}
	if ixs != nil {
		for _, u := range in.GlobalSecondaryIndexUpdates {
			if u.Create != nil && db.life.Update > 0 {
				ix := ixs.byName[*u.Create.IndexName]
				ix.nanos = db.nanos
				ix.readyAt.Store(db.nanos() + int64(db.life.Update))
			}
		}
		t.ixs.Store(ixs)
		t.attrs = defs
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update == nil || u.Update.ProvisionedThroughput == nil {
			continue
		}
		if ix := t.index(*u.Update.IndexName); ix != nil {
			ix.prov.change(u.Update.ProvisionedThroughput, now, db.life.Update)
		}
	}
	if billing == types.BillingModePayPerRequest && t.billing != billing {
		t.billed(now + int64(db.life.Update))
	}
	t.billing = billing
	if in.ProvisionedThroughput != nil {
		t.prov.change(in.ProvisionedThroughput, now, db.life.Update)
	}
	if in.StreamSpecification != nil {
		if view != "" {
			db.enableStream(t, view)
		} else {
			t.disableStream()
		}
	}
	if in.DeletionProtectionEnabled != nil {
		t.protected = *in.DeletionProtectionEnabled
	}
	if db.life.Update > 0 && !onlyProtection {
		t.updatingUntil.Store(db.nanos() + int64(db.life.Update))
	}
	t.mu.Unlock()
	return &dynamodb.UpdateTableOutput{TableDescription: t.describe()}, nil
}
