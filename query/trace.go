package query

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PageTracer observes each page a query reads ([Query.Page], each page of
// [Query.All], [Collection.Page]). A table's [entity.Tracer] that also
// implements PageTracer receives PageStart before the page's first
// request and PageEnd after its last: the context PageStart returns is the
// one the page's requests are sent with, so their request spans nest
// under the page's span. Tables whose tracer does not implement it (or
// have none) pay one type assertion per page. Both methods must be safe
// for concurrent use.
type PageTracer interface {
	PageStart(ctx context.Context, ev PageStartEvent) context.Context
	PageEnd(ctx context.Context, ev PageEvent)
}

// PageStartEvent describes a page about to be read.
type PageStartEvent struct {
	Table   string
	Index   string // "" for the table itself
	Type    string // the entity type of [Query.Page]; "" for a [Collection]
	Pattern string // the access pattern's name
	Resumed bool   // the page starts at a cursor
	Limit   int    // the page size asked for; 0 means one response page
}

// PageEvent describes a page read.
type PageEvent struct {
	PageStartEvent
	// Requests is the number of Query requests the page took; Items the
	// number of items they returned (those of other types and those the
	// filter dropped are not counted by DynamoDB's Count).
	Requests, Items int
	// More reports that the page has a next cursor.
	More     bool
	Duration time.Duration
	Err      error
}

// tracePage is runPage observed by pt.
func (s *spec) tracePage(ctx context.Context, pt PageTracer, keep func(map[string]types.AttributeValue) (bool, error), grow func(n int)) (string, error) {
	ev := PageEvent{PageStartEvent: PageStartEvent{Table: s.t.Name(), Index: s.index, Type: s.typ, Pattern: s.pattern, Resumed: s.cursor != "", Limit: s.limit}}
	ctx = pt.PageStart(ctx, ev.PageStartEvent)
	start := time.Now()
	next, err := s.runPage(ctx, keep, func(n int) {
		ev.Requests++
		ev.Items += n
		if grow != nil {
			grow(n)
		}
	})
	ev.More, ev.Duration, ev.Err = next != "", time.Since(start), err
	pt.PageEnd(ctx, ev)
	return next, err
}
