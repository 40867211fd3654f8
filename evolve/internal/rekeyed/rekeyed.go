// Package rekeyed is a test entity of package evolve: seed 001's Post
// under a changed key template (PK POST#<id>, SK CATEGORY#<catId>), for
// the re-key test.
package rekeyed

//go:generate go run github.com/tablekit/tablekit/keys/keygen

import "time"

// Post is codex.Post keyed by its own ID.
//
//keygen:entity Post
//keygen:key PK=POST#{ID} SK=CATEGORY#{CategoryID}
type Post struct {
	ID         string    `ddb:"id"`
	CategoryID string    `ddb:"categoryId"`
	AuthorID   string    `ddb:"authorId,omitempty"`
	Title      string    `ddb:"title"`
	Contents   string    `ddb:"contents,omitempty"`
	LegacyID   string    `ddb:"legacyId,omitempty"`
	CreatedAt  time.Time `ddb:"CreatedAt,created,isosec"`
	UpdatedAt  time.Time `ddb:"UpdatedAt,updated,isosec"`
}
