package ddbmem

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// provisioned is the provisioned throughput of a table or of a global
// secondary index, with what DynamoDB describes of its history: when it
// last went up and down, and how many decreases the UTC day has seen.
//
// Under Options.Lifecycle.Update a change is pending until the update
// ends, as on DynamoDB: the table (or index) is described with its old
// units meanwhile, and with the time of the request as its last increase
// or decrease; when the update ends the new units apply, the increase or
// decrease is dated then, and a decrease is counted. Without it, a
// change applies, is dated and is counted at once.
type provisioned struct {
	units *types.ProvisionedThroughput // nil: none (PAY_PER_REQUEST)
	// next is the pending change and nextAt the time, on the engine's
	// clock in Unix nanoseconds, it applies (nil, 0: none).
	next   *types.ProvisionedThroughput
	nextAt int64
	// inc and dec are the times of the last increase and decrease (0:
	// none) and decreases the number of decreases on dec's UTC day.
	inc, dec  int64
	decreases int64
}

// settled returns p as it stands at now: its pending change applied
// when its time has come.
func (p provisioned) settled(now int64) provisioned {
	if p.next == nil || now < p.nextAt {
		return p
	}
	up, down := unitChange(p.units, p.next)
	if up {
		p.inc = p.nextAt
	}
	if down {
		p.count(p.nextAt)
	}
	p.units, p.next, p.nextAt = p.next, nil, 0
	return p
}

// count records a decrease at now.
func (p *provisioned) count(now int64) {
	p.dated(now)
	p.decreases++
}

// dated dates the last decrease at now, starting the count of the day's
// decreases again on a new day.
func (p *provisioned) dated(now int64) {
	if p.dec == 0 || utcDay(p.dec) != utcDay(now) {
		p.decreases = 0
	}
	p.dec = now
}

// pending reports whether a change is still pending at now.
func (p *provisioned) pending(now int64) bool { return p.next != nil && now < p.nextAt }

// change sets the units to u at now, pending for delay (0: at once).
// p must be settled at now.
func (p *provisioned) change(u *types.ProvisionedThroughput, now int64, delay time.Duration) {
	u = copyThroughput(u)
	up, down := unitChange(p.units, u)
	if up {
		p.inc = now
	}
	if delay <= 0 || p.units == nil { // from none (PAY_PER_REQUEST): at once
		if down {
			p.count(now)
		}
		p.units = u
		return
	}
	// DynamoDB dates a pending change by its request, then by its end
	// (settled), and counts a decrease once it is done.
	if down {
		p.dated(now)
	}
	p.next, p.nextAt = u, now+int64(delay)
}

// unitChange reports whether going from units a to b raises and whether
// it lowers either of its read and write units.
func unitChange(a, b *types.ProvisionedThroughput) (up, down bool) {
	if a == nil || b == nil {
		return false, false
	}
	for _, d := range [2]int64{
		aws.ToInt64(b.ReadCapacityUnits) - aws.ToInt64(a.ReadCapacityUnits),
		aws.ToInt64(b.WriteCapacityUnits) - aws.ToInt64(a.WriteCapacityUnits),
	} {
		up = up || d > 0
		down = down || d < 0
	}
	return up, down
}

// describe describes p at now, with 0 units under PAY_PER_REQUEST.
func (p provisioned) describe(now int64, billing types.BillingMode) *types.ProvisionedThroughputDescription {
	p = p.settled(now)
	d := &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(0), WriteCapacityUnits: aws.Int64(0), NumberOfDecreasesToday: aws.Int64(0)}
	if p.units != nil && billing != types.BillingModePayPerRequest {
		d.ReadCapacityUnits = aws.Int64(aws.ToInt64(p.units.ReadCapacityUnits))
		d.WriteCapacityUnits = aws.Int64(aws.ToInt64(p.units.WriteCapacityUnits))
	}
	if p.inc != 0 {
		d.LastIncreaseDateTime = aws.Time(time.Unix(0, p.inc))
	}
	if p.dec != 0 {
		d.LastDecreaseDateTime = aws.Time(time.Unix(0, p.dec))
		if utcDay(p.dec) == utcDay(now) {
			d.NumberOfDecreasesToday = aws.Int64(p.decreases)
		}
	}
	return d
}

// utcDay returns the UTC calendar day of t (Unix nanoseconds).
func utcDay(t int64) int64 { return t / int64(24*time.Hour) }

// copyThroughput copies a request's throughput (nil stays nil), so that
// the caller may change what it passed in.
func copyThroughput(p *types.ProvisionedThroughput) *types.ProvisionedThroughput {
	if p == nil {
		return nil
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(aws.ToInt64(p.ReadCapacityUnits)), WriteCapacityUnits: aws.Int64(aws.ToInt64(p.WriteCapacityUnits))}
}

// settle applies the pending throughput changes of the table and its
// global indexes whose time has come at now. t.mu must be held for
// writing.
func (t *table) settle(now int64) {
	t.prov = t.prov.settled(now)
	for _, ix := range t.indexes() {
		ix.prov = ix.prov.settled(now)
	}
}

// billed records a switch to PAY_PER_REQUEST that ends at at (Unix
// nanoseconds): its provisioned throughput is gone at once, and the
// billing summary is dated by the switch's end once it has come.
func (t *table) billed(at int64) {
	t.payPrev, t.payAt = t.payAt, at
	t.prov = provisioned{inc: t.prov.inc, dec: t.prov.dec, decreases: t.prov.decreases}
	for _, ix := range t.indexes() {
		ix.prov = provisioned{inc: ix.prov.inc, dec: ix.prov.dec, decreases: ix.prov.decreases}
	}
}

// billingSummary describes the table's billing mode at now, as DynamoDB
// does: only for a table that is or was PAY_PER_REQUEST, dated by the
// last switch to it (by its creation for a table created so) from when
// that switch, or the table's creation, is done.
func (t *table) billingSummary(now int64, status types.TableStatus) *types.BillingModeSummary {
	at := t.payAt
	if now < at {
		at = t.payPrev
	}
	if t.billing != types.BillingModePayPerRequest && at == 0 {
		return nil
	}
	s := &types.BillingModeSummary{BillingMode: t.billing}
	if at != 0 && status != types.TableStatusCreating {
		s.LastUpdateToPayPerRequestDateTime = aws.Time(time.Unix(0, at))
	}
	return s
}
