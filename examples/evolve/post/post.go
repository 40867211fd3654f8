// Package post is seed 001's Post after the extension of its §7: the same
// item (Type Post, PK CATEGORY#<catId>, SK POST#<id>) that now also
// writes the keys of a new GSI, AuthorId_CreatedAt, so that an author's
// posts list newest first. The index is sparse: a post without an author
// is not in it.
//
// Existing posts were written by the code before the change (package
// entity/codex) and lack the new keys until package evolve backfills them;
// see the example command in the parent directory.
package post

//go:generate go run github.com/tablekit/tablekit/keys/keygen

import (
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
)

// AuthorIDCreatedAt is the GSI the extension adds.
const AuthorIDCreatedAt = "AuthorId_CreatedAt"

// Post is codex.Post with the keys of the GSI AuthorId_CreatedAt.
//
//keygen:entity Post
//keygen:key PK=CATEGORY#{CategoryID} SK=POST#{ID}
//keygen:gsi AuthorId_CreatedAt AuthorPK=AUTHOR#{AuthorID} AuthorSK={CreatedAt}#{ID} sparse
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

// NewTable returns the Codex table with the new GSI (codex.NewTable plus
// [GSIs]).
func NewTable(client entity.Client, name string) *entity.Table {
	return codex.NewTable(client, name, func(o *entity.Options) { o.GSIs = append(o.GSIs, GSIs...) })
}
