package content

import "context"

// CacheJobForTest and CacheImageForTest run the cache step of a job or
// image write, as if its DynamoDB write had just succeeded (tests replay
// late steps with them).
func (s *Service) CacheJobForTest(ctx context.Context, j Job) error { return s.cacheJob(ctx, j) }

func (s *Service) CacheImageForTest(ctx context.Context, g GeneratedImage) error {
	return s.cacheImage(ctx, g)
}
