// Package benchent holds the entities of the codec and key benchmarks: a
// 13-attribute post shaped like SPEC.md's baseline, and an artifact whose
// GSI2PK is the two-field key of BenchmarkKey.
package benchent

import "time"

//go:generate go run github.com/tablekit/tablekit/keys/keygen

// Post has 13 attributes once marshalled: PK, SK, Type and its 10 fields.
//
//keygen:entity POST
//keygen:key PK=CATEGORY#{CategoryID} SK=POST#{ID}
type Post struct {
	ID         string    `ddb:"id"`
	CategoryID string    `ddb:"categoryId"`
	AuthorID   string    `ddb:"authorId"`
	Title      string    `ddb:"title"`
	Contents   string    `ddb:"contents"`
	CreatedAt  time.Time `ddb:"CreatedAt,created"`
	UpdatedAt  time.Time `ddb:"UpdatedAt,updated"`
	Tags       []string  `ddb:"tags"`
	Views      int64     `ddb:"views"`
	Version    int64     `ddb:"version,version"`
}

// Artifact is seed 000's artifact.
//
//keygen:entity ARTIFACT
//keygen:key PK=ART#{ArtifactID} SK=META
//keygen:gsi GSI2 GSI2PK=USR#{UserID}#PROJ#{ProjectID}#ART GSI2SK={CreatedAt}
type Artifact struct {
	ArtifactID string    `ddb:"artifact_id"`
	UserID     string    `ddb:"user_id"`
	ProjectID  string    `ddb:"project_id"`
	CreatedAt  time.Time `ddb:"created_at"`
}
