package content

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// ErrIllegalTransition is matched by [*TransitionError].
var ErrIllegalTransition = errors.New("content: illegal job status transition")

// TransitionError reports a job status change that the machine
// PENDING -> PROCESSING -> COMPLETED | FAILED does not allow, or that lost
// a race: From is the job's real status.
type TransitionError struct {
	JobID    string
	From, To Status
}

func (e *TransitionError) Error() string {
	s := "content: illegal job status transition " + string(e.From) + " -> " + string(e.To)
	if e.JobID != "" {
		s += " (job " + e.JobID + ")"
	}
	return s
}

// Unwrap returns [ErrIllegalTransition].
func (e *TransitionError) Unwrap() error { return ErrIllegalTransition }

// prev is the only status each status can be reached from.
var prev = map[Status]Status{
	StatusProcessing: StatusPending,
	StatusCompleted:  StatusProcessing,
	StatusFailed:     StatusProcessing,
}

// CheckTransition reports whether a job may move from -> to: nil, a
// [*TransitionError], or an *entity.ConstraintError for an unknown status.
func CheckTransition(from, to Status) error {
	for _, st := range []Status{from, to} {
		if err := entity.Check(JobStatus, st); err != nil {
			return err
		}
	}
	if p, ok := prev[to]; ok && p == from {
		return nil
	}
	return &TransitionError{From: from, To: to}
}

// JobIDPrefix starts every job ID (seed 003: "job-img-{uuid}").
const JobIDPrefix = "job-img-"

// NewJobID returns "job-img-" and a random (version 4) UUID.
func NewJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%s%x-%x-%x-%x-%x", JobIDPrefix, b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func invalid(op, typ, field string, err error) error {
	return &entity.ValidationError{Op: op, Type: typ, Field: field, Err: err}
}

// NewImage returns an image of eventID with a new time-ordered ID, the
// platform's default resolution, content type image/png, not selected.
func NewImage(eventID string, style Style, platform Platform, cdnURL, prompt string) GeneratedImage {
	w, h, _ := DefaultResolution(platform)
	return GeneratedImage{
		ID: keys.NewID(), EventID: eventID, Style: style, Platform: platform,
		CDNURL: cdnURL, Prompt: prompt, Width: w, Height: h, ContentType: "image/png",
	}
}

// Options configures a [Service]. The zero value is valid.
type Options struct {
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Cache, when set with an endpoint, wires seed 003's caches (cache.go):
	// every job write goes through to job:{jobId}, images to
	// image:{eventId}:{style}:{platform}. Nil or no endpoint: bypassed.
	Cache *cache.Cache
}

// Service writes the content service's items with the seed's rules. It
// is safe for concurrent use.
type Service struct {
	t        *entity.Table
	now      func() time.Time
	contents *entity.Store[Content, *Content]
	images   *entity.Store[GeneratedImage, *GeneratedImage]
	jobs     *entity.Store[Job, *Job]
	cache    *cache.Cache
}

// NewService returns a Service on table t (made with [NewTable]).
func NewService(t *entity.Table, optFns ...func(*Options)) *Service {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{
		t: t, now: func() time.Time { return o.Now().UTC() },
		contents: entity.NewStore[Content](t),
		images:   entity.NewStore[GeneratedImage](t),
		jobs:     entity.NewStore[Job](t),
		cache:    o.Cache,
	}
}

// CreateContent creates the content set of c.EventID. There is one per
// event: a second one fails with entity.ErrAlreadyExists. An empty event
// ID is an *entity.ValidationError, an empty title an
// *entity.ConstraintError. c is refreshed with the stamped timestamps.
func (s *Service) CreateContent(ctx context.Context, c *Content) error {
	return s.contents.Create(ctx, c)
}

// AddImage stores a new image; it sets CreatedAt (when zero) and the
// retention: ExpiresAt = CreatedAt + 90 days. An image breaking a rule of
// the package doc is an *entity.ConstraintError.
func (s *Service) AddImage(ctx context.Context, g *GeneratedImage) error {
	if g.CreatedAt.IsZero() {
		g.CreatedAt = s.now()
	}
	g.ExpiresAt = g.CreatedAt.Add(ImageRetention)
	if err := s.images.Create(ctx, g); err != nil {
		return err
	}
	return s.cacheImage(ctx, *g)
}

// SelectImage sets the selected flag of an existing image (the user's
// final choice) and returns the image as stored. A missing image matches
// entity.ErrNotFound.
func (s *Service) SelectImage(ctx context.Context, eventID string, style Style, platform Platform, id string, selected bool) (GeneratedImage, error) {
	key, err := GeneratedImageKey(eventID, style, platform, id)
	if err != nil {
		return GeneratedImage{}, invalid("SelectImage", GeneratedImageType, "key", err)
	}
	g, err := s.images.Update(ctx, key, entity.Changes[GeneratedImage]{entity.Set(GeneratedImageSelected, selected)})
	if err != nil {
		return g, err
	}
	return g, s.InvalidateImage(ctx, eventID, style, platform)
}

// CreateJob stores a new job: status PENDING, progress 0, CreatedAt now,
// ExpiresAt = CreatedAt + 30 days. j.ID must be a job-img- ID ([NewJobID]
// makes one; the seed creates them outside), j.EventID and j.Kind set. An
// existing ID fails with entity.ErrAlreadyExists.
func (s *Service) CreateJob(ctx context.Context, j *Job) error {
	j.Status, j.Progress, j.CompletedAt = StatusPending, 0, time.Time{}
	j.CreatedAt = s.now()
	j.ExpiresAt = j.CreatedAt.Add(JobRetention)
	if err := s.jobs.Create(ctx, j); err != nil {
		return err
	}
	return s.cacheJob(ctx, *j)
}

// StartJob moves a job PENDING -> PROCESSING.
func (s *Service) StartJob(ctx context.Context, jobID string) (Job, error) {
	return s.transition(ctx, jobID, StatusProcessing, nil)
}

// SetProgress records the progress (0..100) of a PROCESSING job; another
// status is a [*TransitionError] with From = the job's status and To =
// PROCESSING, and an out-of-range value an *entity.ConstraintError
// (nothing is written).
func (s *Service) SetProgress(ctx context.Context, jobID string, progress int) (Job, error) {
	key, err := s.jobKey("SetProgress", jobID)
	if err != nil {
		return Job{}, err
	}
	j, err := s.jobs.Update(ctx, key, entity.Changes[Job]{entity.Set(JobProgress, progress)},
		entity.If(expression.Name("status").Equal(expression.Value(string(StatusProcessing)))))
	if err != nil {
		return j, s.lost(err, jobID, StatusProcessing)
	}
	return j, s.cacheJob(ctx, j)
}

// CompleteJob moves a job PROCESSING -> COMPLETED with progress 100, the
// result message and completedAt now.
func (s *Service) CompleteJob(ctx context.Context, jobID, resultMessage string) (Job, error) {
	return s.transition(ctx, jobID, StatusCompleted, entity.Changes[Job]{
		entity.Set(JobProgress, 100),
		entity.Set(JobResultMessage, resultMessage),
		entity.Set(JobCompletedAt, s.now()),
	})
}

// FailJob moves a job PROCESSING -> FAILED with the error message and
// completedAt now.
func (s *Service) FailJob(ctx context.Context, jobID, errorMessage string) (Job, error) {
	return s.transition(ctx, jobID, StatusFailed, entity.Changes[Job]{
		entity.Set(JobErrorMessage, errorMessage),
		entity.Set(JobCompletedAt, s.now()),
	})
}

func (s *Service) jobKey(op, jobID string) (entity.Key, error) {
	if err := entity.Check(JobID, jobID); err != nil {
		return entity.Key{}, err
	}
	key, err := JobKey(jobID)
	if err != nil {
		return key, invalid(op, JobType, "id", err)
	}
	return key, nil
}

// transition is one conditional job status change (status = the only
// legal predecessor of to). The runtime rewrites the GSI2 key (status) in
// the same request.
func (s *Service) transition(ctx context.Context, jobID string, to Status, changes entity.Changes[Job]) (Job, error) {
	key, err := s.jobKey("transition", jobID)
	if err != nil {
		return Job{}, err
	}
	from := prev[to]
	changes = append(entity.Changes[Job]{entity.Set(JobStatus, to)}, changes...)
	j, err := s.jobs.Update(ctx, key, changes, entity.If(expression.Name("status").Equal(expression.Value(string(from)))))
	if err != nil {
		return j, s.lost(err, jobID, to)
	}
	return j, s.cacheJob(ctx, j)
}

// lost turns a failed status condition into a *TransitionError naming the
// job's real status; other errors pass through.
func (s *Service) lost(err error, jobID string, to Status) error {
	var ce *entity.ConditionError
	if !errors.As(err, &ce) || len(ce.Old) == 0 {
		return err
	}
	old, derr := s.jobs.Decode(ce.Old)
	if derr != nil {
		return errors.Join(err, derr)
	}
	return &TransitionError{JobID: jobID, From: old.Status, To: to}
}
