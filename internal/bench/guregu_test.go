package bench

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
)

// gureguPost is BenchmarkEntity's item as a guregu/dynamo user declares
// it: the key and Type attributes are plain fields, the times are
// time.Time (guregu writes RFC 3339, which for whole seconds in UTC is
// the isosec form codex.Post stores).
type gureguPost struct {
	PK         string    `dynamo:"PK,hash"`
	SK         string    `dynamo:"SK,range"`
	Type       string    `dynamo:"Type"`
	ID         string    `dynamo:"id"`
	CategoryID string    `dynamo:"categoryId"`
	AuthorID   string    `dynamo:"authorId,omitempty"`
	Title      string    `dynamo:"title"`
	Contents   string    `dynamo:"contents,omitempty"`
	LegacyID   string    `dynamo:"legacyId,omitempty"`
	CreatedAt  time.Time `dynamo:"CreatedAt"`
	UpdatedAt  time.Time `dynamo:"UpdatedAt"`
}

// gureguPostOf is p with its keys and Type, stamped as a guregu user
// stamps it: UpdatedAt now, in UTC, to the second.
func gureguPostOf(p codex.Post) gureguPost {
	return gureguPost{PK: "CATEGORY#" + p.CategoryID, SK: "POST#" + p.ID, Type: codex.PostType,
		ID: p.ID, CategoryID: p.CategoryID, AuthorID: p.AuthorID, Title: p.Title, Contents: p.Contents,
		CreatedAt: p.CreatedAt, UpdatedAt: time.Now().UTC().Truncate(time.Second)}
}

// BenchmarkGuregu runs BenchmarkEntity's four operations with guregu/dynamo
// v2 on the same canned transport (entClient) and the same item, written
// as its users write them (goal: each BenchmarkEntity operation <= 0.95×
// its guregu counterpart, with no more allocations):
//
//	Put      the whole item, UpdatedAt stamped
//	Get      by key, decoded
//	Update   SET title and UpdatedAt if the item exists, ALL_NEW decoded
//	         (tablekit's Update also sets Type and CreatedAt if missing)
//	Query20  one page of the category's 20 posts, decoded
func BenchmarkGuregu(b *testing.B) {
	ctx := context.Background()
	tbl := dynamo.NewFromIface(entClient()).Table(codex.DefaultTableName)
	key, _ := codex.PostKey("c001", entPost(0).ID)
	b.Run("Put", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			p := gureguPostOf(entPost(0))
			if err := tbl.Put(p).Run(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var p gureguPost
			if err := tbl.Get("PK", key.PK).Range("SK", dynamo.Equal, key.SK).One(ctx, &p); err != nil || p.ID == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("Update", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var p gureguPost
			err := tbl.Update("PK", key.PK).Range("SK", key.SK).
				Set("title", "새 제목 / new title").
				Set("UpdatedAt", time.Now().UTC().Truncate(time.Second)).
				If("attribute_exists(PK)").
				Value(ctx, &p)
			if err != nil || p.ID == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("Query20", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var ps []gureguPost
			err := tbl.Get("PK", key.PK).Range("SK", dynamo.BeginsWith, codex.PostSKPrefix).All(ctx, &ps)
			if err != nil || len(ps) != 20 {
				b.Fatal(err, len(ps))
			}
		}
	})
}

// gureguEngine adapts the engine to guregu/dynamo's client interface,
// which also lists two operations the engine does not implement.
type gureguEngine struct{ *ddbmem.DB }

var errUnsupported = errors.New("not implemented by the engine")

func (gureguEngine) ListGlobalTables(context.Context, *dynamodb.ListGlobalTablesInput, ...func(*dynamodb.Options)) (*dynamodb.ListGlobalTablesOutput, error) {
	return nil, errUnsupported
}
func (gureguEngine) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return nil, errUnsupported
}

var _ dynamodbiface.DynamoDBAPI = gureguEngine{}

// engineCodex is an engine holding the Codex table (with its
// Type_CreatedAt index), and that table.
func engineCodex(b *testing.B) (*ddbmem.DB, *entity.Table) {
	db := ddbmem.New()
	tbl := codex.NewTable(db, "")
	if err := tbl.EnsureTable(context.Background()); err != nil {
		b.Fatal(err)
	}
	return db, tbl
}

// BenchmarkEngineStore is tablekit's store on the embedded engine in
// process. Put writes BenchmarkEntity's item (goal: <= 0.95×
// BenchmarkGureguEngine/Put); p50-ns is the median of one call.
func BenchmarkEngineStore(b *testing.B) {
	ctx := context.Background()
	b.Run("Put", func(b *testing.B) {
		defer reportCPU(b)()
		_, tbl := engineCodex(b)
		posts := entity.NewStore[codex.Post](tbl)
		timeOps(b, true, func(int) {
			p := entPost(0)
			if err := posts.Put(ctx, &p); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkGureguEngine is BenchmarkEngineStore's Put written with
// guregu/dynamo v2 on the same engine, table and item.
func BenchmarkGureguEngine(b *testing.B) {
	ctx := context.Background()
	b.Run("Put", func(b *testing.B) {
		defer reportCPU(b)()
		db, _ := engineCodex(b)
		tbl := dynamo.NewFromIface(gureguEngine{db}).Table(codex.DefaultTableName)
		timeOps(b, true, func(int) {
			p := gureguPostOf(entPost(0))
			if err := tbl.Put(p).Run(ctx); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU, deferred at the start of a benchmark that does no I/O
// (`defer reportCPU(b)()`), reports the process CPU time per op
// (cpu-ns/op, garbage collection included). On a shared, busy machine it
// varies far less than ns/op, which also counts the time the benchmark
// waited for a CPU.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}
