package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/lease"
)

// jobPrefix starts the partition key of a job's record.
const jobPrefix = "EVOLVE#"

// Report is what a run did (or, for a dry run, would do).
type Report struct {
	Job string `json:"job"`
	// Table is the table the job ran on.
	Table string `json:"table"`
	// DryRun reports a run that wrote nothing.
	DryRun bool `json:"dryRun,omitempty"`
	// Finished reports that every segment is done.
	Finished bool `json:"finished"`
	// AlreadyDone reports a run that found the job recorded as finished
	// and did nothing; Counts are then the recorded totals.
	AlreadyDone bool `json:"alreadyDone,omitempty"`
	// Counts are this process's counts (the job's totals when
	// AlreadyDone).
	Counts Counts `json:"counts"`
	// Segments are this process's counts per segment.
	Segments map[int]Counts `json:"segments,omitempty"`
	// Failures are items left untouched (at most Options.MaxFailures).
	Failures []*ItemError `json:"-"`
	// FailureText is Failures as text, for the JSON report.
	FailureText []string      `json:"failures,omitempty"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"durationNs"`
}

func (r *runner) report(finished bool) *Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &Report{Job: r.job.Name, Table: r.t.Name(), Finished: finished, Counts: r.total,
		Segments: map[int]Counts{}, Failures: append([]*ItemError(nil), r.failures...), Started: r.start,
		Duration: time.Since(r.start)}
	for k, v := range r.segs {
		rep.Segments[k] = v
	}
	for _, f := range rep.Failures {
		rep.FailureText = append(rep.FailureText, f.Error())
	}
	return rep
}

func (r *runner) recordKey() map[string]types.AttributeValue {
	pk, sk := r.t.PKAttr(), r.t.SKAttr()
	if r.lt != r.t.Name() {
		o := r.leases.Options()
		pk, sk = o.PartitionKey, o.SortKey
	}
	return map[string]types.AttributeValue{
		pk: &types.AttributeValueMemberS{Value: jobPrefix + r.job.Name},
		sk: &types.AttributeValueMemberS{Value: "JOB"},
	}
}

// record returns the job's record as a Report when the job is finished.
func (r *runner) record(ctx context.Context) (*Report, error) {
	out, err := r.t.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.lt), Key: r.recordKey(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("evolve: read job record: %w", err)
	}
	rep, ok := out.Item["report"].(*types.AttributeValueMemberS)
	if !ok {
		return nil, nil
	}
	var done Report
	if err := json.Unmarshal([]byte(rep.Value), &done); err != nil {
		return nil, fmt.Errorf("evolve: job record: %w", err)
	}
	done.AlreadyDone, done.Duration, done.Segments = true, 0, nil
	return &done, nil
}

// finish records the job as finished, with the sum of every segment's
// checkpoint counts; the first process to finish writes it.
func (r *runner) finish(ctx context.Context) error {
	ls, err := r.leases.List(ctx, r.group())
	if err != nil {
		return err
	}
	var c Counts
	for _, l := range ls {
		if !l.Done {
			return fmt.Errorf("evolve: job %s: segment %s not done", r.job.Name, l.Name)
		}
		c.Add(countsOf(l.Counts))
	}
	rep := Report{Job: r.job.Name, Table: r.t.Name(), Finished: true, Counts: c, Started: r.start}
	b, _ := json.Marshal(rep)
	_, err = r.t.Client().PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(r.lt),
		Item: func() map[string]types.AttributeValue {
			it := r.recordKey()
			it["report"] = &types.AttributeValueMemberS{Value: string(b)}
			it["finishedAt"] = &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)}
			it["Type"] = &types.AttributeValueMemberS{Value: "EVOLVE_JOB"}
			return it
		}(),
		ConditionExpression:      aws.String("attribute_not_exists(#r)"),
		ExpressionAttributeNames: map[string]string{"#r": "report"},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil // another process recorded it first
	}
	return err
}

// JobStatus is a job's state as its leases and record tell it.
type JobStatus struct {
	Job      string `json:"job"`
	Finished bool   `json:"finished"`
	// Total sums every segment's last checkpoint.
	Total    Counts          `json:"total"`
	Segments []SegmentStatus `json:"segments"`
}

// SegmentStatus is one segment's lease.
type SegmentStatus struct {
	Segment int    `json:"segment"`
	Owner   string `json:"owner,omitempty"`
	Fence   int64  `json:"fence"`
	Done    bool   `json:"done"`
	Counts  Counts `json:"counts"`
}

// Status reads job's progress from its leases and record (in the table
// named by Options.LeaseTable, default t). It writes nothing. A job never
// run has no segments.
func Status(ctx context.Context, t *entity.Table, job string, optFns ...func(*Options)) (*JobStatus, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	lt := o.LeaseTable
	if lt == "" {
		lt = t.Name()
	}
	m, err := lease.New(t.Client(), func(lo *lease.Options) {
		if o.Lease != nil {
			o.Lease(lo)
		}
		lo.Table = lt
		if lt == t.Name() {
			lo.PartitionKey, lo.SortKey = t.PKAttr(), t.SKAttr()
		}
	})
	if err != nil {
		return nil, err
	}
	ls, err := m.List(ctx, "evolve:"+job)
	if err != nil {
		return nil, err
	}
	st := &JobStatus{Job: job, Finished: len(ls) > 0}
	for _, l := range ls {
		c := countsOf(l.Counts)
		st.Total.Add(c)
		st.Segments = append(st.Segments, SegmentStatus{Segment: segIndex(l.Name), Owner: l.Owner, Fence: l.Fence, Done: l.Done, Counts: c})
		st.Finished = st.Finished && l.Done
	}
	sort.Slice(st.Segments, func(i, j int) bool { return st.Segments[i].Segment < st.Segments[j].Segment })
	return st, nil
}
