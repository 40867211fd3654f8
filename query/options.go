package query

// PageOptions are the paging options of a list function: every list
// function of the domain query packages (query/codex, query/idp,
// query/content, query/participation) has the shape
//
//	func(ctx, table, args..., opts PageOptions) (Page[T], error)
//
// The zero value reads the first page, in the order the function
// documents, of the function's default size.
type PageOptions struct {
	// Limit caps the page; 0 means the function's default page size.
	Limit int
	// After is the Next cursor of the previous page; "" starts at the
	// beginning.
	After string
	// Reverse reads the list in the opposite of the order the function
	// documents (oldest first instead of newest first, or the reverse).
	// A cursor is bound to its order: pass the same Reverse with After.
	Reverse bool
	// ConsistentRead asks for a strongly consistent read. DynamoDB reads a
	// global secondary index only eventually consistently, so a list
	// served by one returns an error matching [ErrInvalid] instead.
	ConsistentRead bool
}

// apply sets the options on s; defaultLimit is used when o.Limit is 0.
func (o PageOptions) apply(s *spec, defaultLimit int) {
	s.limit = defaultLimit
	if o.Limit != 0 {
		s.limit = o.Limit
	}
	s.cursor = o.After
	if o.Reverse {
		s.desc = !s.desc
	}
	if o.ConsistentRead {
		s.consistent = true
	}
}

// With applies the paging options o to q: its limit (defaultLimit when
// o.Limit is 0; a negative limit is an [ErrInvalid] error when the query
// runs), its cursor, its order (o.Reverse flips the order q has) and
// consistent reads. Call it after [Query.Desc].
func (q Query[T, PT]) With(o PageOptions, defaultLimit int) Query[T, PT] {
	o.apply(&q.s, defaultLimit)
	return q
}

// With applies the paging options o to c, as [Query.With] does.
func (c Collection) With(o PageOptions, defaultLimit int) Collection {
	o.apply(&c.s, defaultLimit)
	return c
}
