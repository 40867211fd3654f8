package content

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
)

// Seed 003's Valkey caches, wired into [Service] when Options.Cache is set
// (with a cache that has no endpoint, or none, they are bypassed and every
// read goes to DynamoDB):
//
//	job:{jobId}                          hash, write-through on every job write, 1 h
//	image:{eventId}:{style}:{platform}   hash, written when an image is added (generation
//	                                     completed), invalidated on selection and on
//	                                     regeneration; cache-aside on a miss, 7 days
//	ai:event:{eventId}                   JSON string, cache-aside, 1 h (it holds lists,
//	                                     which a flat hash cannot)
//
// Keys are built with cache.Join, so the IDs of the seed (job-img-…,
// evt-…) appear exactly as written there.
const (
	JobCacheTTL     = time.Hour
	ImageCacheTTL   = 7 * 24 * time.Hour
	AIEventCacheTTL = time.Hour
)

// JobCacheKey is seed 003's job:{jobId}.
func JobCacheKey(jobID string) string { return cache.Join("job", jobID) }

// ImageCacheKey is seed 003's image:{eventId}:{style}:{platform}.
func ImageCacheKey(eventID string, style Style, platform Platform) string {
	return cache.Join("image", eventID, string(style), string(platform))
}

// AIEventCacheKey is seed 003's ai:event:{eventId}.
func AIEventCacheKey(eventID string) string { return cache.Join("ai", "event", eventID) }

// cacheTime is the fixed-width layout of the times in the cached hashes,
// so that they compare as strings.
const cacheTime = "2006-01-02T15:04:05.000Z"

// jobFields is the job:{jobId} hash of j: seed 003's RedisJobData (absent
// messages are absent fields).
func jobFields(j Job) []string {
	f := []string{
		"id", j.ID, "eventId", j.EventID, "jobType", string(j.Kind), "status", string(j.Status),
		"progress", strconv.Itoa(j.Progress),
		"createdAt", j.CreatedAt.UTC().Format(cacheTime), "updatedAt", j.UpdatedAt.UTC().Format(cacheTime),
	}
	if j.ResultMessage != "" {
		f = append(f, "resultMessage", j.ResultMessage)
	}
	if j.ErrorMessage != "" {
		f = append(f, "errorMessage", j.ErrorMessage)
	}
	return f
}

func jobFromHash(m map[string]string) (Job, error) {
	j := Job{ID: m["id"], EventID: m["eventId"], Kind: Kind(m["jobType"]), Status: Status(m["status"]),
		ResultMessage: m["resultMessage"], ErrorMessage: m["errorMessage"]}
	var errs []error
	var err error
	if j.Progress, err = strconv.Atoi(m["progress"]); err != nil {
		errs = append(errs, fmt.Errorf("progress: %w", err))
	}
	if j.CreatedAt, err = time.Parse(cacheTime, m["createdAt"]); err != nil {
		errs = append(errs, fmt.Errorf("createdAt: %w", err))
	}
	if j.UpdatedAt, err = time.Parse(cacheTime, m["updatedAt"]); err != nil {
		errs = append(errs, fmt.Errorf("updatedAt: %w", err))
	}
	if len(errs) > 0 {
		return Job{}, fmt.Errorf("content: job hash: %w", errors.Join(errs...))
	}
	return j, nil
}

// jobWriteScript writes a job state through in version order, atomically:
// it replaces the key's generation mark (retiring loads in flight), then
// stores the hash when nothing is cached or the cached state is older by
// (status rank, progress, updatedAt) — the order of the job's legal
// transitions — and otherwise deletes the entry (an equal or newer state
// whose order cannot be told from this one: the next read loads).
// KEYS: job key, its generation mark. ARGV: gen, gen ttl ms, ttl ms, rank,
// progress, updatedAt, then the hash fields.
var jobWriteScript = cache.NewScript(`
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local rank = {PENDING = 0, PROCESSING = 1, COMPLETED = 2, FAILED = 2}
local cur = redis.call('HMGET', KEYS[1], 'status', 'progress', 'updatedAt')
local newer = true
if cur[1] then
  local cr, nr = rank[cur[1]] or -1, tonumber(ARGV[4])
  local cp, np = tonumber(cur[2]) or -1, tonumber(ARGV[5])
  if cr ~= nr then newer = nr > cr
  elseif cp ~= np then newer = np > cp
  else newer = ARGV[6] > (cur[3] or '') end
end
if not newer then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// jobFillScript stores a job read from DynamoDB only if no write happened
// since the read began (same generation mark) and nothing is cached.
// ARGV: gen, ttl ms, then the hash fields.
var jobFillScript = cache.NewScript(`
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

var jobRank = map[Status]string{StatusPending: "0", StatusProcessing: "1", StatusCompleted: "2", StatusFailed: "2"}

func (s *Service) cacheOn() bool { return s.cache != nil && s.cache.Enabled() }

// cacheJob is the cache step of a job write that succeeded in DynamoDB.
// When it fails the key is invalidated; when that fails too the error
// matches cache.ErrStale (the DynamoDB write stays).
func (s *Service) cacheJob(ctx context.Context, j Job) error {
	if !s.cacheOn() {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	gen, gttl := s.cache.NewGeneration()
	args := append([]string{gen, cache.Ms(gttl), cache.Ms(JobCacheTTL), jobRank[j.Status],
		strconv.Itoa(j.Progress), j.UpdatedAt.UTC().Format(cacheTime)}, jobFields(j)...)
	if _, err := s.cache.EvalWithGen(ctx, jobWriteScript, JobCacheKey(j.ID), args); err != nil {
		if ierr := s.cache.Invalidate(ctx, JobCacheKey(j.ID)); ierr != nil {
			return fmt.Errorf("%w: job %s: the job was written; %w", cache.ErrStale, j.ID, err)
		}
	}
	return nil
}

// Job returns the job for polling: the job:{jobId} hash, else a strongly
// consistent read of DynamoDB, which is then cached unless a job write
// happened meanwhile. A missing job matches entity.ErrNotFound.
func (s *Service) Job(ctx context.Context, jobID string) (Job, error) {
	key, err := s.jobKey("Job", jobID)
	if err != nil {
		return Job{}, err
	}
	ck := JobCacheKey(jobID)
	var gen string
	canFill := false
	if s.cacheOn() {
		if m, err := s.cache.HGetAll(ctx, ck); err == nil {
			if j, err := jobFromHash(m); err == nil {
				return j, nil
			}
		}
		res, err := s.cache.EvalWithGen(ctx, genOnlyScript, ck, nil)
		if g, ok := res.(string); err == nil && ok {
			gen, canFill = g, true
		}
	}
	j, err := s.jobs.Get(ctx, key, entity.ConsistentRead)
	if err != nil || !canFill {
		return j, err
	}
	_, _ = s.cache.EvalWithGen(ctx, jobFillScript, ck, append([]string{gen, cache.Ms(JobCacheTTL)}, jobFields(j)...))
	return j, nil
}

var genOnlyScript = cache.NewScript(`return redis.call('GET', KEYS[2]) or ''`)

// ImageData is seed 003's RedisImageData, the image:{eventId}:{style}:{platform} hash.
type ImageData struct {
	ID        string // the image's ID (time-ordered); orders regenerations
	EventID   string
	Style     Style
	Platform  Platform
	ImageURL  string
	Prompt    string
	CreatedAt time.Time
}

// ImageDataOf returns the cached form of g.
func ImageDataOf(g GeneratedImage) ImageData {
	return ImageData{ID: g.ID, EventID: g.EventID, Style: g.Style, Platform: g.Platform,
		ImageURL: g.CDNURL, Prompt: g.Prompt, CreatedAt: g.CreatedAt}
}

func (d ImageData) fields() map[string]string {
	return map[string]string{"id": d.ID, "eventId": d.EventID, "style": string(d.Style), "platform": string(d.Platform),
		"imageUrl": d.ImageURL, "prompt": d.Prompt, "createdAt": d.CreatedAt.UTC().Format(cacheTime)}
}

func imageFromHash(m map[string]string) (ImageData, error) {
	d := ImageData{ID: m["id"], EventID: m["eventId"], Style: Style(m["style"]), Platform: Platform(m["platform"]),
		ImageURL: m["imageUrl"], Prompt: m["prompt"]}
	var err error
	if d.CreatedAt, err = time.Parse(cacheTime, m["createdAt"]); err != nil {
		return ImageData{}, fmt.Errorf("content: image hash: createdAt: %w", err)
	}
	return d, nil
}

// imageWriteScript caches a newly generated image unless a newer one
// (greater time-ordered ID) is cached, after replacing the generation mark.
// ARGV: gen, gen ttl ms, ttl ms, id, then the hash fields.
var imageWriteScript = cache.NewScript(`
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local cur = redis.call('HGET', KEYS[1], 'id')
if cur and cur >= ARGV[4] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// cacheImage writes a new image through to its hash (generation completed
// or regenerated: the newest image wins). Errors as cacheJob.
func (s *Service) cacheImage(ctx context.Context, g GeneratedImage) error {
	if !s.cacheOn() {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	ck := ImageCacheKey(g.EventID, g.Style, g.Platform)
	gen, gttl := s.cache.NewGeneration()
	args := []string{gen, cache.Ms(gttl), cache.Ms(ImageCacheTTL), g.ID}
	for k, v := range ImageDataOf(g).fields() {
		args = append(args, k, v)
	}
	if _, err := s.cache.EvalWithGen(ctx, imageWriteScript, ck, args); err != nil {
		if ierr := s.cache.Invalidate(ctx, ck); ierr != nil {
			return fmt.Errorf("%w: image %s: the image was written; %w", cache.ErrStale, g.ID, err)
		}
	}
	return nil
}

// InvalidateImage drops image:{eventId}:{style}:{platform}; the service
// calls it on selection, and a handler calls it when a regeneration is
// requested, so that the old image is not served while the new one is
// generated. Errors: cache.ErrStale and cache.ErrUnavailable (wrapped).
func (s *Service) InvalidateImage(ctx context.Context, eventID string, style Style, platform Platform) error {
	if !s.cacheOn() {
		return nil
	}
	if err := s.cache.Invalidate(context.WithoutCancel(ctx), ImageCacheKey(eventID, style, platform)); err != nil {
		return fmt.Errorf("%w: %w", cache.ErrStale, err)
	}
	return nil
}

// Image is the cache-aside read of image:{eventId}:{style}:{platform}: the
// hash, else load (typically query/content.LatestImage), cached 7 days.
// Errors: load's errors; a cached "not found" is not kept.
func (s *Service) Image(ctx context.Context, eventID string, style Style, platform Platform,
	load func(context.Context) (GeneratedImage, error)) (ImageData, error) {
	if !s.cacheOn() {
		g, err := load(ctx)
		return ImageDataOf(g), err
	}
	h, err := s.cache.GetOrLoadHash(ctx, ImageCacheKey(eventID, style, platform), ImageCacheTTL,
		func(ctx context.Context) (map[string]string, error) {
			g, err := load(ctx)
			if err != nil {
				return nil, err
			}
			return ImageDataOf(g).fields(), nil
		}, func(o *cache.LoadOptions) { o.NoJitter = true })
	if err != nil {
		return ImageData{}, err
	}
	return imageFromHash(h)
}

// AIEventData is seed 003's RedisAIEventData.
type AIEventData struct {
	EventID             string    `json:"eventId"`
	RecommendedStyles   []string  `json:"recommendedStyles"`
	RecommendedKeywords []string  `json:"recommendedKeywords"`
	CachedAt            time.Time `json:"cachedAt"`
}

// AIEvent is the cache-aside read of ai:event:{eventId} (1 h); load asks
// the AI service on a miss.
func (s *Service) AIEvent(ctx context.Context, eventID string, load func(context.Context) (AIEventData, error)) (AIEventData, error) {
	if !s.cacheOn() {
		return load(ctx)
	}
	return cache.GetOrLoad(ctx, s.cache, AIEventCacheKey(eventID), AIEventCacheTTL, load)
}

// PutAIEvent stores ai:event:{eventId} when the AI service finished its
// analysis (seed 003, scenario 1), retiring loads of the key in flight.
func (s *Service) PutAIEvent(ctx context.Context, d AIEventData) error {
	if !s.cacheOn() {
		return nil
	}
	return cache.WriteThrough(ctx, s.cache, AIEventCacheKey(d.EventID), AIEventCacheTTL, d,
		func(context.Context) error { return nil })
}
