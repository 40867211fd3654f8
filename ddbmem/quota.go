package ddbmem

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's default throughput quotas, which DynamoDB Local enforces and
// DescribeLimits reports: a table or a global secondary index provisions
// at most tableMaxUnits read and write capacity units, and the tables of
// an account (their global secondary indexes included) at most
// accountMaxUnits of each together.
const (
	tableMaxUnits   = 40_000
	accountMaxUnits = 80_000
)

// units are provisioned read and write capacity units.
type units struct{ r, w int64 }

func unitsOf(pt *types.ProvisionedThroughput) units {
	if pt == nil {
		return units{}
	}
	return units{aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits)}
}

func (u units) plus(v units) units { return units{u.r + v.r, u.w + v.w} }

// quota is the provisioned throughput of a DB's tables, held against
// accountMaxUnits. Its lock is taken last, under no other.
type quota struct {
	mu   sync.Mutex
	used units
}

// move replaces a table's share of the account's throughput, from to
// to; it refuses a change that takes the account over accountMaxUnits in
// a dimension it raises.
func (q *quota) move(from, to units) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	next := units{q.used.r - from.r + to.r, q.used.w - from.w + to.w}
	if next.r > accountMaxUnits && to.r > from.r || next.w > accountMaxUnits && to.w > from.w {
		return validation("Cannot increase provisioned throughput to more than 80,000 units per account") // accountMaxUnits
	}
	q.used = next
	return nil
}

// checkUnits refuses throughput over tableMaxUnits for a table or an
// index (what).
func checkUnits(pt *types.ProvisionedThroughput, what string) error {
	if u := unitsOf(pt); u.r > tableMaxUnits || u.w > tableMaxUnits {
		return validation("Cannot increase provisioned throughput to more than 40,000 units per " + what) // tableMaxUnits
	}
	return nil
}

// checkCreateUnits checks a new table's and its global indexes'
// throughput against tableMaxUnits.
func checkCreateUnits(in *dynamodb.CreateTableInput) error {
	if err := checkUnits(in.ProvisionedThroughput, "table"); err != nil {
		return err
	}
	for _, g := range in.GlobalSecondaryIndexes {
		if err := checkUnits(g.ProvisionedThroughput, "global secondary index"); err != nil {
			return err
		}
	}
	return nil
}

// checkUpdateUnits checks the throughput an UpdateTable asks for against
// tableMaxUnits.
func checkUpdateUnits(in *dynamodb.UpdateTableInput) error {
	if err := checkUnits(in.ProvisionedThroughput, "table"); err != nil {
		return err
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		var pt *types.ProvisionedThroughput
		switch {
		case u.Create != nil:
			pt = u.Create.ProvisionedThroughput
		case u.Update != nil:
			pt = u.Update.ProvisionedThroughput
		}
		if err := checkUnits(pt, "global secondary index"); err != nil {
			return err
		}
	}
	return nil
}

// target is the throughput p is or will be once its pending change
// applies.
func (p *provisioned) target() units {
	if p.next != nil {
		return unitsOf(p.next)
	}
	return unitsOf(p.units)
}

// provUnits is the throughput t and its global indexes (ixs) provision,
// with updates (UpdateTable's index updates) applied; none on demand.
func (t *table) provUnits(billing types.BillingMode, tablePT *types.ProvisionedThroughput, ixs *indexSet, updates []types.GlobalSecondaryIndexUpdate) units {
	if billing == types.BillingModePayPerRequest {
		return units{}
	}
	sum := t.prov.target()
	if tablePT != nil {
		sum = unitsOf(tablePT)
	}
	for _, ix := range ixs.list {
		if ix.local {
			continue
		}
		u := ix.prov.target()
		for _, up := range updates {
			if up.Update != nil && aws.ToString(up.Update.IndexName) == ix.name && up.Update.ProvisionedThroughput != nil {
				u = unitsOf(up.Update.ProvisionedThroughput)
			}
		}
		sum = sum.plus(u)
	}
	return sum
}

// requota checks an UpdateTable's throughput against the quotas and
// takes the table's new share of q; ixs are its indexes after the update
// (nil: unchanged). t.mu is held, and nothing fails after it.
func (t *table) requota(q *quota, in *dynamodb.UpdateTableInput, billing types.BillingMode, ixs *indexSet) error {
	if err := checkUpdateUnits(in); err != nil {
		return err
	}
	if ixs == nil {
		ixs = t.ixs.Load()
	}
	want := t.provUnits(billing, in.ProvisionedThroughput, ixs, in.GlobalSecondaryIndexUpdates)
	if err := q.move(t.quota, want); err != nil {
		return err
	}
	t.quota = want
	return nil
}

// DescribeLimits reports the throughput quotas the engine holds tables
// to: DynamoDB's defaults, 40,000 read and write capacity units per table
// or global secondary index, and 80,000 of each for all tables together,
// as DynamoDB Local reports and enforces them.
func (db *DB) DescribeLimits(ctx context.Context, in *dynamodb.DescribeLimitsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error) {
	if err := db.begin(ctx, "DescribeLimits"); err != nil {
		return nil, err
	}
	return &dynamodb.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits: aws.Int64(accountMaxUnits), AccountMaxWriteCapacityUnits: aws.Int64(accountMaxUnits),
		TableMaxReadCapacityUnits: aws.Int64(tableMaxUnits), TableMaxWriteCapacityUnits: aws.Int64(tableMaxUnits),
	}, nil
}

func init() { operations["DescribeLimits"] = op((*DB).DescribeLimits) }
