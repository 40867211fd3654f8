package cache

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Seed key patterns and TTLs. The key strings match the design documents
// exactly; the {…} there are placeholders, filled in by the builders below.
//
// Seed 003 (content service, Redis section):
//
//	job:{jobId}                             hash, write-through, 1 h
//	image:{eventId}:{style}:{platform}      hash, cache-aside, 7 days
//	ai:event:{eventId}                      JSON string, cache-aside, 1 h (it holds lists, which a flat hash cannot)
const (
	JobTTL     = time.Hour
	ImageTTL   = 7 * 24 * time.Hour
	AIEventTTL = time.Hour
)

// JobKey is seed 003's job:{jobId}.
func JobKey(jobID string) string { return Join("job", jobID) }

// ImageKey is seed 003's image:{eventId}:{style}:{platform}.
func ImageKey(eventID, style, platform string) string {
	return Join("image", eventID, style, platform)
}

// AIEventKey is seed 003's ai:event:{eventId}.
func AIEventKey(eventID string) string { return Join("ai", "event", eventID) }

// JobData is seed 003's RedisJobData, cached as the hash job:{jobId}.
// Nil messages are stored as absent fields (the seed shows JSON null).
type JobData struct {
	ID            string
	EventID       string
	JobType       string // e.g. IMAGE_GENERATION
	Status        string // PENDING, PROCESSING, COMPLETED, FAILED
	Progress      int
	ResultMessage *string
	ErrorMessage  *string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

func (j JobData) fields() map[string]string {
	m := map[string]string{
		"id": j.ID, "eventId": j.EventID, "jobType": j.JobType, "status": j.Status,
		"progress":  strconv.Itoa(j.Progress),
		"createdAt": j.CreatedAt.UTC().Format(time.RFC3339Nano),
		"updatedAt": j.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
	if j.ResultMessage != nil {
		m["resultMessage"] = *j.ResultMessage
	}
	if j.ErrorMessage != nil {
		m["errorMessage"] = *j.ErrorMessage
	}
	return m
}

func jobFromFields(m map[string]string) (JobData, error) {
	j := JobData{ID: m["id"], EventID: m["eventId"], JobType: m["jobType"], Status: m["status"]}
	var err error
	if j.Progress, err = strconv.Atoi(m["progress"]); err != nil {
		return j, fmt.Errorf("cache: job hash: progress: %w", err)
	}
	if j.CreatedAt, err = time.Parse(time.RFC3339Nano, m["createdAt"]); err != nil {
		return j, fmt.Errorf("cache: job hash: createdAt: %w", err)
	}
	if j.UpdatedAt, err = time.Parse(time.RFC3339Nano, m["updatedAt"]); err != nil {
		return j, fmt.Errorf("cache: job hash: updatedAt: %w", err)
	}
	if v, ok := m["resultMessage"]; ok {
		j.ResultMessage = &v
	}
	if v, ok := m["errorMessage"]; ok {
		j.ErrorMessage = &v
	}
	return j, nil
}

// PutJob is seed 003's write-through for job state: store writes the job
// row of record first, then the hash job:{jobId} is replaced with TTL 1 h
// (invalidated instead if that write fails). Errors as [Cache.WriteThroughHash].
func (c *Cache) PutJob(ctx context.Context, j JobData, store func(context.Context) error) error {
	return c.WriteThroughHash(ctx, JobKey(j.ID), j.fields(), JobTTL, store)
}

// GetJob reads job:{jobId} for polling. It returns ErrMiss when the job is
// not cached (expired, never written, or bypass mode); the caller then
// reads the store.
func (c *Cache) GetJob(ctx context.Context, jobID string) (JobData, error) {
	m, err := c.HGetAll(ctx, JobKey(jobID))
	if err != nil {
		return JobData{}, err
	}
	return jobFromFields(m)
}

// ImageData is seed 003's RedisImageData.
type ImageData struct {
	EventID   string    `json:"eventId"`
	Style     string    `json:"style"`
	Platform  string    `json:"platform"`
	ImageURL  string    `json:"imageUrl"`
	Prompt    string    `json:"prompt"`
	CreatedAt time.Time `json:"createdAt"`
}

func (d ImageData) fields() map[string]string {
	return map[string]string{
		"eventId": d.EventID, "style": d.Style, "platform": d.Platform,
		"imageUrl": d.ImageURL, "prompt": d.Prompt, "createdAt": d.CreatedAt.UTC().Format(time.RFC3339Nano),
	}
}

func imageFromFields(m map[string]string) (ImageData, error) {
	d := ImageData{EventID: m["eventId"], Style: m["style"], Platform: m["platform"],
		ImageURL: m["imageUrl"], Prompt: m["prompt"]}
	var err error
	if d.CreatedAt, err = time.Parse(time.RFC3339Nano, m["createdAt"]); err != nil {
		return ImageData{}, fmt.Errorf("cache: image hash: createdAt: %w", err)
	}
	return d, nil
}

// GetImage is seed 003's cache-aside image lookup: the hash
// image:{eventId}:{style}:{platform}, kept 7 days, loaded on a miss.
// Errors as [Cache.GetOrLoadHash].
func (c *Cache) GetImage(ctx context.Context, eventID, style, platform string,
	load func(context.Context) (ImageData, error)) (ImageData, error) {
	h, err := c.GetOrLoadHash(ctx, ImageKey(eventID, style, platform), ImageTTL,
		func(ctx context.Context) (map[string]string, error) {
			d, err := load(ctx)
			if err != nil {
				return nil, err
			}
			return d.fields(), nil
		})
	if err != nil {
		return ImageData{}, err
	}
	return imageFromFields(h)
}

// AIEventData is seed 003's RedisAIEventData.
type AIEventData struct {
	EventID             string    `json:"eventId"`
	RecommendedStyles   []string  `json:"recommendedStyles"`
	RecommendedKeywords []string  `json:"recommendedKeywords"`
	CachedAt            time.Time `json:"cachedAt"`
}

// GetAIEvent is seed 003's ai:event:{eventId} cache (1 h), load on a miss.
func (c *Cache) GetAIEvent(ctx context.Context, eventID string,
	load func(context.Context) (AIEventData, error)) (AIEventData, error) {
	return GetOrLoad(ctx, c, AIEventKey(eventID), AIEventTTL, load)
}

// PutAIEvent stores ai:event:{eventId} after the AI service finished its
// analysis (seed 003, scenario 1), retiring in-flight loads of the key.
func (c *Cache) PutAIEvent(ctx context.Context, d AIEventData) error {
	return WriteThrough(ctx, c, AIEventKey(d.EventID), AIEventTTL, d,
		func(context.Context) error { return nil })
}
