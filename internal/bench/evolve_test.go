package bench

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/examples/evolve/post"
)

// backfillTable returns a fresh engine table holding n posts written by
// the old code (without the AuthorId_CreatedAt keys), every one with an
// author.
func backfillTable(b *testing.B, n int) *entity.Table {
	b.Helper()
	ctx := context.Background()
	tbl := post.NewTable(ddbmem.New(), "Backfill")
	if err := tbl.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	old := entity.NewStore[codex.Post](tbl)
	batch := make([]codex.Post, 0, 25)
	for i := 0; i < n; i++ {
		batch = append(batch, codex.Post{ID: codex.NewID(), CategoryID: "c" + strconv.Itoa(i%13), Title: "post", AuthorID: "u" + strconv.Itoa(i%50)})
		if len(batch) == cap(batch) || i == n-1 {
			if err := old.BatchPut(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return tbl
}

// BenchmarkBackfill backfills the keys of the new GSI AuthorId_CreatedAt
// (seed 001 §7) on the embedded engine; one iteration is one item
// backfilled. SegmentsN runs evolve with N segments (leases, checkpoints
// and all); HandLoop is the loop a team would write by hand: one Scan,
// and for each item a conditional UpdateItem of the same keys on the same
// condition (every attribute read). Each reports cpu-ns/op, the process
// CPU time per item (every goroutine, garbage collection included), which
// compares the sides' cost better than ns/op on a busy machine.
func BenchmarkBackfill(b *testing.B) {
	for _, segs := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("Segments%d", segs), func(b *testing.B) {
			tbl := backfillTable(b, b.N)
			job := evolve.Job{Name: "bench", Steps: []evolve.Step{evolve.Backfill(evolve.EntityOf[post.Post](), post.AuthorIDCreatedAt)}}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := reportCPU(b)
			rep, err := evolve.Run(context.Background(), tbl, job, func(o *evolve.Options) { o.Segments = segs })
			cpu()
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if rep.Counts.Changed != int64(b.N) {
				b.Fatalf("changed %d of %d", rep.Counts.Changed, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
	b.Run("HandLoop", func(b *testing.B) {
		tbl := backfillTable(b, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := reportCPU(b)
		changed := handBackfill(b, tbl)
		cpu()
		b.StopTimer()
		if changed != b.N {
			b.Fatalf("changed %d of %d", changed, b.N)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
}

// handBackfill is the hand-written loop of BenchmarkBackfill/HandLoop.
func handBackfill(b *testing.B, tbl *entity.Table) int {
	ctx := context.Background()
	c := tbl.Client()
	changed := 0
	var start map[string]types.AttributeValue
	for {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tbl.Name()), Limit: aws.Int32(100), ExclusiveStartKey: start})
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range out.Items {
			author, _ := it["authorId"].(*types.AttributeValueMemberS)
			created, _ := it["CreatedAt"].(*types.AttributeValueMemberS)
			id, _ := it["id"].(*types.AttributeValueMemberS)
			if author == nil || created == nil || id == nil {
				continue
			}
			pk, err := post.PostAuthorPK(author.Value)
			if err != nil {
				b.Fatal(err)
			}
			sk := created.Value + "#" + id.Value
			if v, ok := it["AuthorSK"].(*types.AttributeValueMemberS); ok && v.Value == sk && reflect.DeepEqual(it["AuthorPK"], &types.AttributeValueMemberS{Value: pk}) {
				continue
			}
			names := map[string]string{"#pk": "PK", "#apk": "AuthorPK", "#ask": "AuthorSK"}
			vals := map[string]types.AttributeValue{":apk": &types.AttributeValueMemberS{Value: pk}, ":ask": &types.AttributeValueMemberS{Value: sk}}
			cond := "attribute_exists(#pk) AND attribute_not_exists(#apk) AND attribute_not_exists(#ask)"
			i := 0
			for a, v := range it {
				if a == "PK" || a == "SK" {
					continue
				}
				n, p := "#c"+strconv.Itoa(i), ":c"+strconv.Itoa(i)
				names[n], vals[p] = a, v
				cond += " AND " + n + " = " + p
				i++
			}
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tbl.Name()), Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]},
				UpdateExpression: aws.String("SET #apk = :apk, #ask = :ask"), ConditionExpression: aws.String(cond),
				ExpressionAttributeNames: names, ExpressionAttributeValues: vals})
			if err != nil {
				b.Fatal(err)
			}
			changed++
		}
		if len(out.LastEvaluatedKey) == 0 {
			return changed
		}
		start = out.LastEvaluatedKey
	}
}
