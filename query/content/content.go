// Package content has one function per access pattern of the content
// service (seed 003, its indexes of section 3.1 and its usage scenarios),
// over the entities of package github.com/tablekit/tablekit/entity/content:
//
//	ContentByEvent          content by event_id (UNIQUE)     GetItem EVENT#e/CONTENT
//	ImagesOfEvent           images of an event (most used)   PK EVENT#e, begins_with(SK, IMAGE#)
//	ImagesByStylePlatform   (event_id, style, platform)      PK EVENT#e, begins_with(SK, IMAGE#s#p#), newest first
//	LatestImage             the image to cache (image:{eventId}:{style}:{platform})
//	SelectedImages          (event_id, selected) WHERE true  PK EVENT#e, IMAGE#, filter selected = true
//	Image                   one image                        GetItem EVENT#e/IMAGE#s#p#id
//	RecentImages            created_at DESC                  Type_CreatedAt: Type = GeneratedImage, newest first
//	RecentContents          content created_at               Type_CreatedAt: Type = Content, newest first
//	JobByID                 job polling (store of record)    GetItem JOB#id/META
//	JobsOfEvent             job (event_id)                   GSI1 EVENT#e, newest first
//	JobsByStatus            job (status, created_at DESC)    GSI2 JOBSTATUS#s, newest first
//
// The codec of package content checks every item read, so an unknown
// style, platform, kind or status in the table is an
// *entity.ConstraintError rather than a silently wrong value; so is an
// unknown style, platform or status argument, or a malformed job ID. Reads of the
// table are eventually consistent unless entity.ConsistentRead (single
// items) or query.PageOptions.ConsistentRead (table queries; the GSIs
// cannot be read consistently) is given. List functions take
// query.PageOptions last; PageOptions.Reverse reverses their order. A missing item
// matches entity.ErrNotFound; an empty ID is an *entity.ValidationError
// (errors.Is keys.ErrMissingField). Pages carry an opaque signed cursor
// (package query), bound to the pattern and partition.
package content

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	ce "github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/query"
)

// DefaultLimit is the page size of the list patterns when
// query.PageOptions.Limit is 0.
const DefaultLimit = 20

// Pattern names, bound into cursors.
const (
	PatternImagesOfEvent         = "content/images-of-event"
	PatternImagesByStylePlatform = "content/images-by-style-platform"
	PatternSelectedImages        = "content/selected-images"
	PatternRecentImages          = "content/recent-images"
	PatternRecentContents        = "content/recent-contents"
	PatternJobsOfEvent           = "content/jobs-of-event"
	PatternJobsByStatus          = "content/jobs-by-status"
)

func invalid(op, typ, field string, err error) error {
	return &entity.ValidationError{Op: op, Type: typ, Field: field, Err: err}
}

// ContentByEvent returns the content set of an event.
func ContentByEvent(ctx context.Context, t *entity.Table, eventID string, optFns ...func(*entity.CallOptions)) (ce.Content, error) {
	key, err := ce.ContentKey(eventID)
	if err != nil {
		return ce.Content{}, invalid("ContentByEvent", ce.ContentType, "eventId", err)
	}
	return entity.NewStore[ce.Content](t).Get(ctx, key, optFns...)
}

// Image returns one image.
func Image(ctx context.Context, t *entity.Table, eventID string, style ce.Style, platform ce.Platform, id string, optFns ...func(*entity.CallOptions)) (ce.GeneratedImage, error) {
	key, err := ce.GeneratedImageKey(eventID, style, platform, id)
	if err != nil {
		return ce.GeneratedImage{}, invalid("Image", ce.GeneratedImageType, "key", err)
	}
	return entity.NewStore[ce.GeneratedImage](t).Get(ctx, key, optFns...)
}

func imageQuery(t *entity.Table, pattern, eventID string) (query.Query[ce.GeneratedImage, *ce.GeneratedImage], error) {
	pk, err := ce.GeneratedImagePK(eventID)
	if err != nil {
		return query.Query[ce.GeneratedImage, *ce.GeneratedImage]{}, invalid(pattern, ce.GeneratedImageType, "eventId", err)
	}
	return query.New[ce.GeneratedImage](t, pattern).Partition(pk), nil
}

// ImagesOfEvent returns a page of an event's images, ordered by style,
// platform, then creation.
func ImagesOfEvent(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[ce.GeneratedImage], error) {
	q, err := imageQuery(t, PatternImagesOfEvent, eventID)
	if err != nil {
		return query.Page[ce.GeneratedImage]{}, err
	}
	return q.Sort(query.BeginsWith(ce.GeneratedImageSKPrefix)).With(o, DefaultLimit).Page(ctx)
}

// ImagesByStylePlatform returns a page of the event's images of one style
// and platform, newest first (image IDs are time-ordered).
func ImagesByStylePlatform(ctx context.Context, t *entity.Table, eventID string, style ce.Style, platform ce.Platform, o query.PageOptions) (query.Page[ce.GeneratedImage], error) {
	if err := entity.Check(ce.GeneratedImageStyle, style); err != nil {
		return query.Page[ce.GeneratedImage]{}, err
	}
	if err := entity.Check(ce.GeneratedImagePlatform, platform); err != nil {
		return query.Page[ce.GeneratedImage]{}, err
	}
	prefix, err := ce.GeneratedImageSKPrefixByStylePlatform(style, platform)
	if err != nil {
		return query.Page[ce.GeneratedImage]{}, invalid(PatternImagesByStylePlatform, ce.GeneratedImageType, "style/platform", err)
	}
	q, err := imageQuery(t, PatternImagesByStylePlatform, eventID)
	if err != nil {
		return query.Page[ce.GeneratedImage]{}, err
	}
	return q.Sort(query.BeginsWith(prefix)).Desc().With(o, DefaultLimit).Page(ctx)
}

// LatestImage returns the newest image of (event, style, platform): what
// the cache image:{eventId}:{style}:{platform} holds. None matches
// entity.ErrNotFound.
func LatestImage(ctx context.Context, t *entity.Table, eventID string, style ce.Style, platform ce.Platform) (ce.GeneratedImage, error) {
	p, err := ImagesByStylePlatform(ctx, t, eventID, style, platform, query.PageOptions{Limit: 1})
	if err != nil {
		return ce.GeneratedImage{}, err
	}
	if len(p.Items) == 0 {
		return ce.GeneratedImage{}, &notFound{what: "image " + eventID + "/" + string(style) + "/" + string(platform)}
	}
	return p.Items[0], nil
}

type notFound struct{ what string }

func (e *notFound) Error() string { return "content: no " + e.what + ": " + entity.ErrNotFound.Error() }
func (e *notFound) Unwrap() error { return entity.ErrNotFound }

// SelectedImages returns every selected image of an event (the seed's
// partial index WHERE selected = true becomes a filter on the event's
// partition, which holds a handful of items).
func SelectedImages(ctx context.Context, t *entity.Table, eventID string) ([]ce.GeneratedImage, error) {
	q, err := imageQuery(t, PatternSelectedImages, eventID)
	if err != nil {
		return nil, err
	}
	q = q.Sort(query.BeginsWith(ce.GeneratedImageSKPrefix)).Limit(100).
		Filter(expression.Name("selected").Equal(expression.Value(true)))
	var out []ce.GeneratedImage
	for g, err := range q.All(ctx) {
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// RecentImages returns a page of all images, newest first (Type_CreatedAt).
func RecentImages(ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[ce.GeneratedImage], error) {
	return query.New[ce.GeneratedImage](t, PatternRecentImages).
		Index(ce.TypeCreatedAt).Partition(ce.GeneratedImageType).
		Desc().With(o, DefaultLimit).Page(ctx)
}

// RecentContents returns a page of all content sets, newest first
// (Type_CreatedAt).
func RecentContents(ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[ce.Content], error) {
	return query.New[ce.Content](t, PatternRecentContents).
		Index(ce.TypeCreatedAt).Partition(ce.ContentType).
		Desc().With(o, DefaultLimit).Page(ctx)
}

// JobByID returns one job (the store of record behind the job:{jobId}
// cache). A malformed ID is an *entity.ConstraintError.
func JobByID(ctx context.Context, t *entity.Table, jobID string, optFns ...func(*entity.CallOptions)) (ce.Job, error) {
	if err := entity.Check(ce.JobID, jobID); err != nil {
		return ce.Job{}, err
	}
	key, err := ce.JobKey(jobID)
	if err != nil {
		return ce.Job{}, invalid("JobByID", ce.JobType, "id", err)
	}
	return entity.NewStore[ce.Job](t).Get(ctx, key, optFns...)
}

// JobsOfEvent returns a page of an event's jobs, newest first (GSI1).
func JobsOfEvent(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[ce.Job], error) {
	pk, err := ce.JobGSI1PK(eventID)
	if err != nil {
		return query.Page[ce.Job]{}, invalid("JobsOfEvent", ce.JobType, "eventId", err)
	}
	return query.New[ce.Job](t, PatternJobsOfEvent).
		Index(ce.GSI1).Partition(pk).Sort(query.BeginsWith(ce.JobGSI1SKPrefix)).
		Desc().With(o, DefaultLimit).Page(ctx)
}

// JobsByStatus returns a page of the jobs in one status, newest first
// (GSI2; its key follows every status change).
func JobsByStatus(ctx context.Context, t *entity.Table, status ce.Status, o query.PageOptions) (query.Page[ce.Job], error) {
	if err := entity.Check(ce.JobStatus, status); err != nil {
		return query.Page[ce.Job]{}, err
	}
	pk, err := ce.JobGSI2PK(status)
	if err != nil {
		return query.Page[ce.Job]{}, invalid("JobsByStatus", ce.JobType, "status", err)
	}
	return query.New[ce.Job](t, PatternJobsByStatus).
		Index(ce.GSI2).Partition(pk).
		Desc().With(o, DefaultLimit).Page(ctx)
}
