package entity_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
)

// TestSameMistakeSameError: a missing index-key source and a key over its
// size limit are the same typed errors on every write path (Create, Put,
// Update, batch, transaction), and nothing is written.
func TestSameMistakeSameError(t *testing.T) {
	ctx := context.Background()
	tbl := testenv.Table(t, content.NewTable(testenv.Dynamo(t), testenv.UniqueName("keyerrors")))
	jobs := entity.NewStore[content.Job](tbl)
	job := func(id, eventID string) content.Job {
		return content.Job{ID: id, EventID: eventID, Kind: content.KindImageGeneration, Status: content.StatusPending,
			CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	}
	existing := job("job-img-1", "evt-1")
	if err := jobs.Create(ctx, &existing); err != nil {
		t.Fatal(err)
	}
	key, _ := existing.PrimaryKey()
	huge := strings.Repeat("e", keys.MaxPartitionKeyLen)
	for _, mistake := range []struct {
		name    string
		eventID string
		want    error
	}{
		{"missing source", "", keys.ErrMissingField},
		{"key too large", huge, keys.ErrTooLarge},
	} {
		paths := map[string]func() error{
			"Create": func() error { j := job("job-img-2", mistake.eventID); return jobs.Create(ctx, &j) },
			"Put":    func() error { j := job("job-img-2", mistake.eventID); return jobs.Put(ctx, &j) },
			"Update": func() error {
				_, err := jobs.Update(ctx, key, entity.Changes[content.Job]{entity.Set(content.JobEventID, mistake.eventID)})
				return err
			},
			"BatchPut": func() error { return jobs.BatchPut(ctx, []content.Job{job("job-img-2", mistake.eventID)}) },
			"TxCreate": func() error {
				j := job("job-img-2", mistake.eventID)
				return tbl.Tx().Add(jobs.TxCreate(&j)).Exec(ctx)
			},
			"TxUpdate": func() error {
				return tbl.Tx().Add(jobs.TxUpdate(key, entity.Changes[content.Job]{entity.Set(content.JobEventID, mistake.eventID)})).Exec(ctx)
			},
		}
		for path, write := range paths {
			t.Run(mistake.name+"/"+path, func(t *testing.T) {
				err := write()
				// The *keys.Error names the Go field when the key builder
				// finds the mistake, the attribute when a nonempty rule
				// (Job.EventID declares one) finds it first.
				var ke *keys.Error
				if !errors.Is(err, mistake.want) || !errors.Is(err, entity.ErrValidation) || !errors.As(err, &ke) || (ke.Field != "EventID" && ke.Field != "eventId") {
					t.Fatalf("%v, want a *ValidationError wrapping a *keys.Error naming EventID (eventId) that matches %v", err, mistake.want)
				}
				if mistake.want == keys.ErrTooLarge && !strings.Contains(err.Error(), "bytes, limit 2048") {
					t.Errorf("%v does not state the size and the limit", err)
				}
				got, err := jobs.Get(ctx, key, entity.ConsistentRead)
				if err != nil || got.EventID != "evt-1" {
					t.Fatalf("the existing job changed: %+v %v", got, err)
				}
				k2, _ := content.JobKey("job-img-2")
				if _, err := jobs.Get(ctx, k2, entity.ConsistentRead); !errors.Is(err, entity.ErrNotFound) {
					t.Fatalf("a job was written: %v", err)
				}
			})
		}
	}
}
