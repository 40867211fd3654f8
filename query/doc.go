// Package query runs typed DynamoDB queries on an entity.Table: a
// [Query] of entity T is built from a partition value (from a generated
// key builder), an optional sort-key condition ([Eq], [BeginsWith] with a
// generated prefix, [Between], [Lt], [Le], [Gt], [Ge]), an index, the
// order, a limit, a filter, a projection and consistent reads, and
// returns a [Page] of T with a Next cursor, an iterator over every page
// ([Query.All]) or a count ([Query.Count]). [Query.Params] shows the
// request without sending it. [PageOptions] (limit, cursor, reversed
// order, consistent read) is the one paging argument of every list
// function built on a Query; [Query.With] applies it.
//
// # Declared access patterns
//
// A [Pattern] declares one documented access pattern as data: its name,
// the entities it returns, the index, the key condition (from the
// entities' key templates), the order, the default page size and whether
// it may read consistently. [From], [FromCollection] and [Get] run a
// declaration: arguments that do not fit its templates, or a consistent
// read it does not allow, are [ErrInvalid] errors. Cursors are bound to
// its Name, and package github.com/tablekit/tablekit/design renders it,
// so the code, the cursors and the design document cannot disagree. The
// domain packages (query/codex, ...) export their declarations
// (Patterns, and Writes for the writes their services run).
//
// # Cursors
//
// A cursor is opaque: the start key, signed with HMAC-SHA256 over a
// fingerprint of the table name, index, partition value and access
// pattern name. A cursor that was forged, altered, signed with another
// key, or made by another query fails with [ErrInvalidCursor]. The key is
// entity.Options.CursorKey; when the application sets none, a random key
// is generated once per process, so cursors then do not survive a
// restart nor travel to another process: configure a secret in
// production. When a limit stops inside a DynamoDB response page (filtered
// queries, skipped items), the cursor is built from the last item
// returned (its index and table keys), never from LastEvaluatedKey, so no
// item is lost or repeated.
//
// # Collections
//
// A [Collection] reads one partition that holds several entity types
// and decodes each item by its Type attribute through a [Registry];
// unknown types are skipped and counted, never filtered on the server.
//
// Errors: [ErrInvalid] for a query built wrongly (before sending),
// [ErrInvalidCursor], and SDK errors wrapped with the pattern name.
// Query values are immutable (methods return copies) and safe to share.
package query
