// Package ext shows the extension rules of seed 001 §7 applied to the
// Codex table, without touching the base entities:
//
//   - a new entity: a new Type and PK prefix ([Notice], NOTICE#<id>);
//   - a new sort/filter need: a new GSI, AuthorId_CreatedAt (partition
//     authorId, sort CreatedAt), added to the table by [TableOptions]. Its
//     keys are attributes codex.Post already writes, so the entity needs
//     no change: posts without an author are simply not indexed, and no
//     key can drift because there is no derived key;
//   - a composite relation: a prefixed SK, USER#<userId>#POST#<postId>
//     ([PostLike], in the category partition).
package ext

//go:generate go run github.com/tablekit/tablekit/keys/keygen

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// AuthorIDCreatedAt is the GSI added by the extension.
const AuthorIDCreatedAt = "AuthorId_CreatedAt"

// TableOptions adds the extension's GSI to the Codex table; use it after
// codex.TableOptions (codex.NewTable(client, name, ext.TableOptions)).
func TableOptions(o *entity.Options) {
	o.GSIs = append(o.GSIs, entity.Index{
		Name: AuthorIDCreatedAt, PK: "authorId", SK: "CreatedAt", Projection: types.ProjectionTypeAll,
	})
}

// Notice is a new entity type: an announcement.
//
//keygen:entity Notice
//keygen:key PK=NOTICE#{ID} SK=METADATA
type Notice struct {
	ID        string    `ddb:"id"`
	Title     string    `ddb:"title"`
	Body      string    `ddb:"body,omitempty"`
	ExpiresAt time.Time `ddb:"expiresAt,ttl,omitempty"`
	CreatedAt time.Time `ddb:"CreatedAt,created,isosec"`
	UpdatedAt time.Time `ddb:"UpdatedAt,updated,isosec"`
}

// PostLike records that a user liked a post: a composite relation in the
// category partition, SK USER#<userId>#POST#<postId>, so one query with
// begins_with(SK, USER#<userId>#POST#) lists a user's liked posts of a
// category.
//
//keygen:entity PostLike
//keygen:key PK=CATEGORY#{CategoryID} SK=USER#{UserID}#POST#{PostID}
type PostLike struct {
	CategoryID string    `ddb:"categoryId"`
	UserID     string    `ddb:"userId"`
	PostID     string    `ddb:"postId"`
	CreatedAt  time.Time `ddb:"CreatedAt,created,isosec"`
	UpdatedAt  time.Time `ddb:"UpdatedAt,updated,isosec"`
}
