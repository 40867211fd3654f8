// Command evolve is the evolve command (package evolve/evolvecmd) wired to
// seed 001's Post after the extension of its §7: the job
// post-author-index backfills the keys of the new GSI AuthorId_CreatedAt
// into the posts written before it existed.
//
//	go run ./examples/evolve -endpoint http://127.0.0.1:8000 doctor
//	go run ./examples/evolve -endpoint http://127.0.0.1:8000 plan post-author-index
//	go run ./examples/evolve -endpoint http://127.0.0.1:8000 apply post-author-index
//	go run ./examples/evolve -endpoint http://127.0.0.1:8000 status post-author-index
//
// The endpoint defaults to $TABLEKIT_DYNAMODB_ENDPOINT (DynamoDB Local, or
// the engine served by go run ./cmd/ddbmem). For AWS, set Config.Client to
// a *dynamodb.Client. A team wires its own entities the same way: this
// main is the whole step.
package main

import (
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/evolve"
	"github.com/tablekit/tablekit/evolve/evolvecmd"
	"github.com/tablekit/tablekit/examples/evolve/post"
)

func main() {
	evolvecmd.Main(evolvecmd.Config{
		Table:    post.NewTable,
		Entities: []evolve.Entity{evolve.EntityOf[post.Post](), evolve.EntityOf[codex.Category](), evolve.EntityOf[codex.User]()},
		Jobs: []evolve.Job{{Name: "post-author-index", Steps: []evolve.Step{
			evolve.Backfill(evolve.EntityOf[post.Post](), post.AuthorIDCreatedAt)}}},
	})
}
