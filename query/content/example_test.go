package content_test

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/ddbmem"
	ce "github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/query"
	qc "github.com/tablekit/tablekit/query/content"
)

// The newest image of an event for one style and platform, after a
// regeneration.
func Example() {
	ctx := context.Background()
	tbl := ce.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	svc := ce.NewService(tbl)
	for _, prompt := range []string{"first try", "regenerated"} {
		g := ce.NewImage("evt-draft-12345", ce.StyleSimple, ce.PlatformInstagram, "https://cdn.kt-event.com/images/x.png", prompt)
		if err := svc.AddImage(ctx, &g); err != nil {
			panic(err)
		}
	}
	g, err := qc.LatestImage(ctx, tbl, "evt-draft-12345", ce.StyleSimple, ce.PlatformInstagram)
	fmt.Println(g.Prompt, g.Width, g.Height, err)
	page, _ := qc.ImagesOfEvent(ctx, tbl, "evt-draft-12345", query.PageOptions{})
	fmt.Println(len(page.Items))
	// Output:
	// regenerated 1080 1080 <nil>
	// 2
}
