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

var (
	eq    = query.KeyCond{Op: "="}
	begin = query.KeyCond{Op: "begins_with"}
)

// The read patterns of the content service (seed 003 on the single
// table), declared once: the functions below run them, cursors bind to
// their names, and package design renders them into
// entity/content/DESIGN.md.
var (
	ContentByEventPattern = query.Pattern{Name: "content/content-by-event", Func: "ContentByEvent", Doc: "이벤트의 콘텐츠 조회 (idx_content_event_id)",
		Op: query.OpGet, Returns: query.Schemas(&ce.Content{}), PK: eq, SK: eq, Consistent: true}
	ImagePattern = query.Pattern{Name: "content/image", Func: "Image", Doc: "생성 이미지 단건 조회",
		Op: query.OpGet, Returns: query.Schemas(&ce.GeneratedImage{}), PK: eq, SK: eq, Consistent: true}
	ImagesOfEventPattern = query.Pattern{Name: PatternImagesOfEvent, Func: "ImagesOfEvent", Doc: "이벤트의 생성 이미지 목록 (idx_generated_image_event_id)",
		Op: query.OpQuery, Returns: query.Schemas(&ce.GeneratedImage{}), PK: eq, SK: begin, Limit: DefaultLimit, Consistent: true}
	ImagesByStylePlatformPattern = query.Pattern{Name: PatternImagesByStylePlatform, Func: "ImagesByStylePlatform", Doc: "스타일·플랫폼별 이미지, 최신순 (idx_generated_image_filter)",
		Op: query.OpQuery, Returns: query.Schemas(&ce.GeneratedImage{}), PK: eq,
		SK: query.KeyCond{Op: "begins_with", Template: "IMAGE#{Style}#{Platform}#"}, Desc: true, Limit: DefaultLimit, Consistent: true}
	SelectedImagesPattern = query.Pattern{Name: PatternSelectedImages, Func: "SelectedImages", Doc: "선택된 이미지 목록 (idx_generated_image_selected)",
		Op: query.OpQuery, Returns: query.Schemas(&ce.GeneratedImage{}), PK: eq, SK: begin, Limit: 100, Consistent: true,
		Filter: "selected = true"}
	RecentImagesPattern = query.Pattern{Name: PatternRecentImages, Func: "RecentImages", Doc: "최근 생성 이미지 (전체), 최신순 (idx_generated_image_created)",
		Op: query.OpQuery, Returns: query.Schemas(&ce.GeneratedImage{}), Index: ce.TypeCreatedAt, PK: eq, Desc: true, Limit: DefaultLimit}
	RecentContentsPattern = query.Pattern{Name: PatternRecentContents, Func: "RecentContents", Doc: "최근 콘텐츠 (전체), 최신순",
		Op: query.OpQuery, Returns: query.Schemas(&ce.Content{}), Index: ce.TypeCreatedAt, PK: eq, Desc: true, Limit: DefaultLimit}
	JobByIDPattern = query.Pattern{Name: "content/job-by-id", Func: "JobByID", Doc: "작업 상태 조회",
		Op: query.OpGet, Returns: query.Schemas(&ce.Job{}), PK: eq, SK: eq, Consistent: true}
	JobsOfEventPattern = query.Pattern{Name: PatternJobsOfEvent, Func: "JobsOfEvent", Doc: "이벤트의 작업 목록, 최신순 (idx_job_event_id)",
		Op: query.OpQuery, Returns: query.Schemas(&ce.Job{}), Index: ce.GSI1, PK: eq, SK: begin, Desc: true, Limit: DefaultLimit}
	JobsByStatusPattern = query.Pattern{Name: PatternJobsByStatus, Func: "JobsByStatus", Doc: "상태별 작업 목록, 최신순 (idx_job_status)",
		Op: query.OpQuery, Returns: query.Schemas(&ce.Job{}), Index: ce.GSI2, PK: eq, Desc: true, Limit: DefaultLimit}
)

// Patterns lists every read pattern of the package.
var Patterns = []query.Pattern{
	ContentByEventPattern, ImagePattern, ImagesOfEventPattern, ImagesByStylePlatformPattern, SelectedImagesPattern,
	RecentImagesPattern, RecentContentsPattern, JobByIDPattern, JobsOfEventPattern, JobsByStatusPattern,
}

// Writes are the writes of entity/content's Service (and its job worker),
// declared so that the design document and the IAM policy list them.
var Writes = []query.Pattern{
	{Name: "content/create-content", Func: "Service.CreateContent", Doc: "콘텐츠 생성 (이벤트당 하나)",
		Op: query.OpPut, Returns: query.Schemas(&ce.Content{}), PK: eq, SK: eq, Condition: "attribute_not_exists(PK)"},
	{Name: "content/add-image", Func: "Service.AddImage", Doc: "생성 이미지 추가 (보존 90일, TTL)",
		Op: query.OpPut, Returns: query.Schemas(&ce.GeneratedImage{}), PK: eq, SK: eq, Condition: "attribute_not_exists(PK)"},
	{Name: "content/select-image", Func: "Service.SelectImage", Doc: "이미지 선택 플래그",
		Op: query.OpUpdate, Returns: query.Schemas(&ce.GeneratedImage{}), PK: eq, SK: eq, Condition: "attribute_exists(PK)"},
	{Name: "content/create-job", Func: "Service.CreateJob", Doc: "작업 생성: PENDING (보존 30일, TTL)",
		Op: query.OpPut, Returns: query.Schemas(&ce.Job{}), PK: eq, SK: eq, Condition: "attribute_not_exists(PK)"},
	{Name: "content/job-transition", Func: "Service.StartJob, SetProgress, CompleteJob, FailJob; jobworker", Doc: "작업 상태 전이 PENDING → PROCESSING → COMPLETED | FAILED, progress, lease",
		Op: query.OpUpdate, Returns: query.Schemas(&ce.Job{}), PK: eq, SK: eq, Condition: "status = :from (or lease owner)"},
}

func invalid(op, typ, field string, err error) error {
	return &entity.ValidationError{Op: op, Type: typ, Field: field, Err: err}
}

// ContentByEvent returns the content set of an event.
func ContentByEvent(ctx context.Context, t *entity.Table, eventID string, optFns ...func(*entity.CallOptions)) (ce.Content, error) {
	key, err := ce.ContentKey(eventID)
	if err != nil {
		return ce.Content{}, invalid("ContentByEvent", ce.ContentType, "eventId", err)
	}
	return query.Get[ce.Content](ctx, t, ContentByEventPattern, key, optFns...)
}

// Image returns one image.
func Image(ctx context.Context, t *entity.Table, eventID string, style ce.Style, platform ce.Platform, id string, optFns ...func(*entity.CallOptions)) (ce.GeneratedImage, error) {
	key, err := ce.GeneratedImageKey(eventID, style, platform, id)
	if err != nil {
		return ce.GeneratedImage{}, invalid("Image", ce.GeneratedImageType, "key", err)
	}
	return query.Get[ce.GeneratedImage](ctx, t, ImagePattern, key, optFns...)
}

func imageQuery(t *entity.Table, p query.Pattern, eventID string, o query.PageOptions, sk ...string) (query.Query[ce.GeneratedImage, *ce.GeneratedImage], error) {
	pk, err := ce.GeneratedImagePK(eventID)
	if err != nil {
		return query.Query[ce.GeneratedImage, *ce.GeneratedImage]{}, invalid(p.Name, ce.GeneratedImageType, "eventId", err)
	}
	return query.From[ce.GeneratedImage](t, p, o, pk, sk...), nil
}

// ImagesOfEvent returns a page of an event's images, ordered by style,
// platform, then creation.
func ImagesOfEvent(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[ce.GeneratedImage], error) {
	q, err := imageQuery(t, ImagesOfEventPattern, eventID, o)
	if err != nil {
		return query.Page[ce.GeneratedImage]{}, err
	}
	return q.Page(ctx)
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
	q, err := imageQuery(t, ImagesByStylePlatformPattern, eventID, o, prefix)
	if err != nil {
		return query.Page[ce.GeneratedImage]{}, err
	}
	return q.Page(ctx)
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
	q, err := imageQuery(t, SelectedImagesPattern, eventID, query.PageOptions{})
	if err != nil {
		return nil, err
	}
	q = q.Filter(expression.Name("selected").Equal(expression.Value(true)))
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
	return query.From[ce.GeneratedImage](t, RecentImagesPattern, o, ce.GeneratedImageType).Page(ctx)
}

// RecentContents returns a page of all content sets, newest first
// (Type_CreatedAt).
func RecentContents(ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[ce.Content], error) {
	return query.From[ce.Content](t, RecentContentsPattern, o, ce.ContentType).Page(ctx)
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
	return query.Get[ce.Job](ctx, t, JobByIDPattern, key, optFns...)
}

// JobsOfEvent returns a page of an event's jobs, newest first (GSI1).
func JobsOfEvent(ctx context.Context, t *entity.Table, eventID string, o query.PageOptions) (query.Page[ce.Job], error) {
	pk, err := ce.JobGSI1PK(eventID)
	if err != nil {
		return query.Page[ce.Job]{}, invalid("JobsOfEvent", ce.JobType, "eventId", err)
	}
	return query.From[ce.Job](t, JobsOfEventPattern, o, pk).Page(ctx)
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
	return query.From[ce.Job](t, JobsByStatusPattern, o, pk).Page(ctx)
}
