package sample

import "time"

// Stamp is a named time type.
type Stamp time.Time

// Note shares its CreatedAt sort key between two indexes, one of them
// sparse on an attribute of its own (seed 001's AuthorId_CreatedAt).
//
//keygen:entity NOTE
//keygen:key PK=NOTE#{ID} SK=METADATA
//keygen:gsi Type_CreatedAt Type=NOTE CreatedAt={CreatedAt}
//keygen:gsi AuthorId_CreatedAt authorId={AuthorID} CreatedAt={CreatedAt} sparse
type Note struct {
	ID        string    `ddb:"id"`
	AuthorID  string    `ddb:"authorId,omitempty"`
	CreatedAt time.Time `ddb:"CreatedAt,isosec"`
	Seen      Stamp     `ddb:"seen,omitempty"`
	Expires   int64     `ddb:"ttl,ttl,omitempty"`
}

// Thing lives in a table whose only key is its own id attribute.
//
//keygen:entity THING
//keygen:key id={ID}
type Thing struct {
	ID  string `ddb:"id"`
	Seq uint16 `ddb:"seq"`
}

// Member has unique fields: a login unique in the table, a badge number
// unique when set, and a nickname unique within its team.
//
//keygen:entity MEMBER
//keygen:key PK=MEMBER#{ID} SK=META
type Member struct {
	ID       string `ddb:"id"`
	TeamID   string `ddb:"teamId"`
	Login    string `ddb:"login,unique"`
	Badge    int32  `ddb:"badge,omitempty,unique"`
	Nickname string `ddb:"nickname,omitempty,unique=TeamID"`
}
