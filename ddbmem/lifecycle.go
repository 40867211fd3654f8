package ddbmem

import (
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Lifecycle sets how long tables stay in DynamoDB's transitional states,
// for testing code that waits for a table or handles one that is not
// ACTIVE (waiters, retries on ResourceInUseException). The zero value,
// the default, makes every change immediate, as DynamoDB Local does.
// Times are on Options.Now's clock: a state ends when a request finds its
// time has passed, so a test with its own clock steps through them.
type Lifecycle struct {
	// Create is how long a new table is CREATING. It is described and
	// listed, but its reads and writes answer ResourceNotFoundException
	// ("Requested resource not found"), and DeleteTable and UpdateTable
	// answer ResourceInUseException, as on DynamoDB.
	Create time.Duration
	// Delete is how long a deleted table is DELETING before it is gone:
	// described (without its global indexes, as DynamoDB describes it
	// from DeleteTable's answer on) and listed, its reads and writes a
	// ResourceNotFoundException, a DeleteTable, UpdateTable or
	// CreateTable of its name a ResourceInUseException.
	Delete time.Duration
	// Update is how long a table is UPDATING after an UpdateTable. Its
	// reads and writes go on; another UpdateTable is a
	// ResourceInUseException. The change itself applies at once, with
	// two exceptions, as on DynamoDB:
	//   - a global index the UpdateTable creates is CREATING
	//     (Backfilling) meanwhile, and a Query or Scan of it is a
	//     ValidationException ("Cannot read from backfilling global
	//     secondary index: NAME");
	//   - a change of provisioned throughput (the table's or an
	//     index's, which is UPDATING meanwhile) is pending: the old
	//     units are described, dated by the request as the last
	//     increase or decrease, until the update ends; then the new
	//     units are, dated by its end, and a decrease is counted in
	//     NumberOfDecreasesToday.
	Update time.Duration
}

func (l Lifecycle) enabled() bool { return l.Create > 0 || l.Delete > 0 || l.Update > 0 }

// tableGone is the state of a deleted table whose DELETING time is over.
const tableGone types.TableStatus = ""

// statusAt returns the table's status at now (Unix nanoseconds on the
// engine's clock), or tableGone.
func (t *table) statusAt(now int64) types.TableStatus {
	if g := t.goneAt.Load(); g != 0 {
		if now >= g {
			return tableGone
		}
		return types.TableStatusDeleting
	}
	if now < t.readyAt.Load() {
		return types.TableStatusCreating
	}
	if now < t.updatingUntil.Load() {
		return types.TableStatusUpdating
	}
	return types.TableStatusActive
}

// status returns the table's status now.
func (t *table) status() types.TableStatus {
	if t.nanos == nil {
		return types.TableStatusActive
	}
	return t.statusAt(t.nanos())
}

// serving reports whether the table takes reads and writes (it is not
// CREATING or DELETING).
func (t *table) serving() bool {
	s := t.status()
	return s != types.TableStatusCreating && s != types.TableStatusDeleting
}

// backfilling reports whether ix, created by UpdateTable, is still
// CREATING: described with Backfilling, and not readable.
func (ix *index) backfilling() bool {
	return ix.nanos != nil && ix.nanos() < ix.readyAt.Load()
}

// lookup returns the table named name in any state but gone, dropping it
// from db when it is gone.
func (db *DB) lookup(name string) *table {
	db.mu.RLock()
	t := db.tables[name]
	db.mu.RUnlock()
	if t == nil || !db.life.enabled() || t.statusAt(db.nanos()) != tableGone {
		return t
	}
	db.mu.Lock()
	if db.tables[name] == t {
		delete(db.tables, name)
	}
	db.mu.Unlock()
	return nil
}

// inUse returns the ResourceInUseException DynamoDB answers a change of
// a table that is not ACTIVE (nil when it is).
func inUse(t *table) error {
	var what string
	switch t.status() {
	case types.TableStatusCreating:
		what = "created"
	case types.TableStatusDeleting:
		what = "deleted"
	case types.TableStatusUpdating:
		what = "updated"
	default:
		return nil
	}
	return &types.ResourceInUseException{Message: aws.String(
		fmt.Sprintf("Attempt to change a resource which is still in use: Table is being %s: %s", what, t.name))}
}

// tableID returns the TableId of the seq-th table db creates, named
// name: a version 4 UUID, as DynamoDB's are, derived from both so that a
// test sees the same ids on every run.
func tableID(name string, seq uint64) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%s", seq, name))
	h[6] = h[6]&0x0F | 0x40 // version 4
	h[8] = h[8]&0x3F | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
