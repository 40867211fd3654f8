package ddbmem

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/internal/itemsize"
)

// source is what a Query or Scan reads: the table or one of its indexes.
type source struct {
	t      *table
	ix     *index // nil for the table
	pk, sk keyAttr
	data   *store
}

func (t *table) source(name *string) (*source, error) {
	if name == nil {
		return t.src, nil
	}
	ix := t.index(*name)
	if ix == nil {
		return nil, validationf("The table does not have the specified index: %s", *name)
	}
	return ix.src, nil
}

// readSource is the source of a Query or Scan: the table or the named
// index, which must not be a global one when the read is consistent.
func (t *table) readSource(name *string, consistent *bool) (*source, error) {
	src, err := t.source(name)
	if err != nil {
		return nil, err
	}
	if src.ix != nil && !src.ix.local && aws.ToBool(consistent) {
		return nil, validation("Consistent reads are not supported on global secondary indexes")
	}
	if src.ix != nil && src.ix.backfilling() { // Options.Lifecycle
		return nil, validation("Cannot read from backfilling global secondary index: " + src.ix.name)
	}
	return src, nil
}

// entryKey returns the entry key of it in this source.
func (s *source) entryKey(it item) (string, string) {
	if s.ix == nil {
		return s.t.tableKey(it)
	}
	pk, sk, _ := s.t.indexKey(s.ix, it)
	return pk, sk
}

// lastKey returns LastEvaluatedKey for it: the table key, plus the
// index key when reading an index.
func (s *source) lastKey(it item) item {
	k := s.t.keyOf(it)
	if s.ix != nil {
		k[s.ix.pk.name] = ddbexpr.Copy(it[s.ix.pk.name])
		if s.ix.sk.name != "" {
			k[s.ix.sk.name] = ddbexpr.Copy(it[s.ix.sk.name])
		}
	}
	return k
}

// projects reports whether the index projects the top-level attribute.
func (s *source) projects(name string) bool {
	if s.ix == nil || s.ix.proj == types.ProjectionTypeAll {
		return true
	}
	switch name {
	case s.t.pk.name, s.t.sk.name, s.ix.pk.name, s.ix.sk.name:
		return name != ""
	}
	return s.ix.include[name]
}

// checkProjected rejects, on a GSI that does not project everything,
// projection and filter expressions naming attributes it lacks, and on
// an LSI a Query's filter naming attributes it lacks: DynamoDB fetches
// unprojected attributes from the table for an LSI's projection
// (LSI.html#LSI.Projections) but not for its filter, and rejects the
// request (see indexCases).
//
// A Scan's filter may name attributes a GSI does not project: the index
// holds only its projection, so the filter sees them missing (GSI.html,
// "Attribute projections": a GSI read never fetches from the table).
// DynamoDB Local fetches them from the table instead.
func (s *source) checkProjected(x *exprs, scan bool) error {
	if s.ix == nil || s.ix.proj == types.ProjectionTypeAll || s.ix.local && (scan || x.filter == nil) {
		return nil
	}
	missing := func(names []string) string {
		var out []string
		seen := map[string]bool{}
		for _, n := range names {
			if !s.projects(n) && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		if out == nil {
			return ""
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	if x.proj != nil && !s.ix.local {
		var names []string
		for _, p := range x.proj.Paths {
			names = append(names, x.env.TopName(p))
		}
		if m := missing(names); m != "" {
			return validationf("One or more parameter values were invalid: Global secondary index %s does not project %s", s.ix.name, m)
		}
	}
	if x.filter != nil && !scan {
		if m := missing(x.filter.TopNames(&x.env)); m != "" {
			return validationf("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: %s", s.ix.name, m)
		}
	}
	return nil
}

// needsFetch reports whether a read of an LSI needs the table's items:
// it asks for all attributes, or names in its projection or filter an
// attribute the index does not project. DynamoDB then fetches each item
// from the table and charges that read too.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.Projections
func (s *source) needsFetch(x *exprs, sel types.Select) bool {
	if s.ix == nil || !s.ix.local || s.ix.proj == types.ProjectionTypeAll {
		return false
	}
	if sel == types.SelectAllAttributes {
		return true
	}
	if x.proj != nil {
		for _, p := range x.proj.Paths {
			if !s.projects(x.env.TopName(p)) {
				return true
			}
		}
	}
	if x.filter != nil {
		for _, n := range x.filter.TopNames(&x.env) {
			if !s.projects(n) {
				return true
			}
		}
	}
	return false
}

// project applies the index projection to a table item.
func (s *source) project(it item) item {
	if s.ix == nil || s.ix.proj == types.ProjectionTypeAll {
		return it
	}
	out := make(item, 4+len(s.ix.include))
	for _, n := range []string{s.t.pk.name, s.t.sk.name, s.ix.pk.name, s.ix.sk.name} {
		if n != "" {
			if v, ok := it[n]; ok {
				out[n] = v
			}
		}
	}
	for n := range s.ix.include {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}

// startKey validates ExclusiveStartKey and returns its partition and
// entry keys.
// An ExclusiveStartKey is checked against the key schemas of the read in
// DynamoDB's order and words (dynalite's suite records them; DynamoDB
// Local says "Exclusive Start Key must have same size as table's key
// schema", "The provided starting key is invalid" and "Type mismatch for
// attribute to update"): its values first, with the request's; the
// number of its attributes (startKeySize); the attributes of the key the
// read reads by, the index's or the table's (startKeyPiece), which Query
// interleaves with its key condition; then, after the read's own checks,
// the table's key (startTableKey).

// startKeySize checks esk's values and the number of its attributes:
// those of the table's key and of the index's. scan selects Scan's
// message for a read of the table.
func (s *source) startKeySize(esk item, scan bool) error {
	for _, v := range esk {
		if invalidErr(v) != nil {
			return checkStartKeyValues(esk) // as the request's values are checked first
		}
	}
	t := s.t
	want := 1
	if t.sk.name != "" {
		want++
	}
	if s.ix != nil {
		for _, k := range []keyAttr{s.ix.pk, s.ix.sk} {
			if k.name != "" && !t.isKeyAttr(k.name) {
				want++
			}
		}
	}
	if len(esk) != want {
		if scan && s.ix == nil {
			return validation("The provided starting key is invalid: " + errKeySchema)
		}
		return validation("The provided starting key is invalid")
	}
	return nil
}

// startKeyPiece checks the attribute k of esk, a key attribute of the key
// the read reads by.
func startKeyPiece(esk item, k keyAttr) error {
	if k.name == "" {
		return nil
	}
	v, ok := esk[k.name]
	if !ok || isNil(v) {
		return validation("The provided starting key is invalid")
	}
	if describeType(v) != string(k.typ) {
		return validation(errKeySchema)
	}
	return checkKeyValue(k, v)
}

// startTableKey checks the table's key in esk.
func (s *source) startTableKey(esk item) error {
	t := s.t
	for _, k := range []keyAttr{t.pk, t.sk} {
		if k.name == "" {
			continue
		}
		v, ok := esk[k.name]
		if !ok || isNil(v) || describeType(v) != string(k.typ) {
			return validation("The provided starting key is invalid: " + errKeySchema)
		}
		if err := checkKeyValue(k, v); err != nil {
			return validation("The provided starting key is invalid: " + apiMessage(err))
		}
	}
	if err := t.checkKeySize(t.keyOf(esk)); err != nil {
		return validation("The provided starting key is invalid: " + apiMessage(err))
	}
	return nil
}

// queryStartKey checks a Query's ExclusiveStartKey, whose size Query has
// checked, up to its table key, with the key condition's first checks:
// the hash key's piece, the condition on it, then the range key's piece.
func (s *source) queryStartKey(esk item, x *exprs) error {
	var buf [4]*ddbexpr.Cond
	terms, err := keyTerms(x, buf[:0])
	if err != nil {
		return err
	}
	if err := startKeyPiece(esk, s.pk); err != nil {
		return err
	}
	hashGiven := false
	for _, c := range terms {
		hashGiven = hashGiven || x.env.TopName(c.Args[0].Path) == s.pk.name
	}
	if !hashGiven {
		return s.missedKey(false)
	}
	return startKeyPiece(esk, s.sk)
}

// startKey returns the partition and entry keys of a start key that
// startKeySize, startKeyPiece and startTableKey have checked.
func (s *source) startKey(esk item) (string, string) { return s.entryKey(esk) }

func prefixEnd(b string) string {
	buf := []byte(b)
	for len(buf) > 0 && buf[len(buf)-1] == 0xFF {
		buf = buf[:len(buf)-1]
	}
	if len(buf) == 0 {
		return "\xff\xff\xff\xff"
	}
	buf[len(buf)-1]++
	return string(buf)
}

func escaped(e string) string {
	c := appendComponent(nil, e)
	return string(c[:len(c)-2])
}

// flattenKey appends the terms of a key condition's AND tree to terms,
// rejecting the operators a key condition may not use.
func flattenKey(c *ddbexpr.Cond, terms []*ddbexpr.Cond) ([]*ddbexpr.Cond, error) {
	switch c.Kind {
	case ddbexpr.CondAnd:
		terms, err := flattenKey(c.L, terms)
		if err != nil {
			return nil, err
		}
		return flattenKey(c.R, terms)
	case ddbexpr.CondOr:
		return nil, validation("Invalid operator used in KeyConditionExpression: OR")
	case ddbexpr.CondNot:
		return nil, validation("Invalid operator used in KeyConditionExpression: NOT")
	case ddbexpr.CondIn:
		return nil, validation("Invalid operator used in KeyConditionExpression: IN")
	case ddbexpr.CondFunc:
		if c.Op != "begins_with" {
			return nil, validationf("Invalid operator used in KeyConditionExpression: %s", c.Op)
		}
	case ddbexpr.CondCompare:
		if c.Op == "<>" {
			return nil, validation("Invalid operator used in KeyConditionExpression: <>")
		}
	}
	return append(terms, c), nil
}

// keyRange is the entry-key range [lo, hi) a key condition selects; hi
// "" means unbounded.
type keyRange struct {
	lo, hi string
	// loIncl and hiIncl are the encoded sort-key values of inclusive
	// bounds (>=, <=, BETWEEN; not =, see analyzeKey). A page of a
	// table that stops on such a bound has no LastEvaluatedKey, as in
	// DynamoDB Local.
	loIncl, hiIncl string
}

// keyTerms returns the conditions of a KeyConditionExpression, each with
// its attribute as its first operand, checked as far as no key schema is
// needed, in DynamoDB's order: the operators; then in each condition a
// key attribute first in BETWEEN and begins_with, some attribute, a
// top-level one, only one, and no function (size); no attribute twice;
// at most two conditions (DynamoDB Local words these checks alike).
func keyTerms(x *exprs, buf []*ddbexpr.Cond) ([]*ddbexpr.Cond, error) {
	terms, err := flattenKey(x.key.Root, buf)
	if err != nil {
		return nil, err
	}
	for i, c := range terms {
		switch c.Kind {
		case ddbexpr.CondBetween, ddbexpr.CondFunc:
			if c.Args[0].Kind != ddbexpr.OpPath {
				op := "BETWEEN"
				if c.Kind == ddbexpr.CondFunc {
					op = c.Op
				}
				return nil, validationf("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand", op)
			}
		}
		paths, funcs := 0, false
		for _, o := range c.Args {
			switch o.Kind {
			case ddbexpr.OpPath:
				paths++
			case ddbexpr.OpValue:
			default:
				funcs = true
			}
		}
		if paths == 0 {
			return nil, validation("Invalid condition in KeyConditionExpression: No key attribute specified")
		}
		if c.Kind == ddbexpr.CondCompare && c.Args[0].Kind != ddbexpr.OpPath {
			// flip the comparison so the attribute is on the left
			flipped := *c
			flipped.Args = []*ddbexpr.Operand{c.Args[1], c.Args[0]}
			switch c.Op {
			case "<":
				flipped.Op = ">"
			case "<=":
				flipped.Op = ">="
			case ">":
				flipped.Op = "<"
			case ">=":
				flipped.Op = "<="
			}
			c = &flipped
		}
		if len(c.Args[0].Path) != 1 {
			return nil, validation("KeyConditionExpressions cannot have conditions on nested attributes")
		}
		if paths > 1 {
			return nil, validation("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
		}
		if funcs {
			return nil, validation("KeyConditionExpressions cannot contain nested operations")
		}
		name := x.env.TopName(c.Args[0].Path)
		for _, d := range terms[:i] {
			if x.env.TopName(d.Args[0].Path) == name {
				return nil, validation("KeyConditionExpressions must only contain one condition per key")
			}
		}
		terms[i] = c
	}
	if len(terms) > 2 {
		return nil, validation("Conditions can be of length 1 or 2 only")
	}
	return terms, nil
}

// missedKey is the error of a key condition that leaves out a key
// attribute of s, or names an attribute that is not one: DynamoDB names
// the partition key unless the condition has it, then the sort key
// (dynalite's suite records it; DynamoDB Local names none).
func (s *source) missedKey(hashGiven bool) error {
	missed := s.pk.name
	if hashGiven {
		missed = s.sk.name
	}
	if missed == "" {
		return validation("Query condition missed key schema element")
	}
	return validation("Query condition missed key schema element: " + missed)
}

// analyzeKey validates a KeyConditionExpression and returns the
// partition key and the range of entry keys.
func (s *source) analyzeKey(x *exprs) (string, keyRange, error) {
	var buf [4]*ddbexpr.Cond
	terms, err := keyTerms(x, buf[:0])
	if err != nil {
		return "", keyRange{}, err
	}
	if len(terms) == 2 && s.sk.name == "" {
		// Two conditions on a hash-only key schema (DynamoDB Local, as
		// dynalite's suite records DynamoDB).
		return "", keyRange{}, validation("Query key condition not supported")
	}
	var pkTerm, skTerm *ddbexpr.Cond
	for _, c := range terms {
		attr := c.Args[0]
		name := x.env.TopName(attr.Path)
		switch name {
		case s.pk.name:
			if pkTerm != nil {
				return "", keyRange{}, validation("KeyConditionExpressions must only contain one condition per key")
			}
			pkTerm = c
		case s.sk.name:
			if skTerm != nil {
				return "", keyRange{}, validation("KeyConditionExpressions must only contain one condition per key")
			}
			skTerm = c
		default:
			hashGiven := false
			for _, c := range terms {
				hashGiven = hashGiven || x.env.TopName(c.Args[0].Path) == s.pk.name
			}
			return "", keyRange{}, s.missedKey(hashGiven)
		}
	}
	if pkTerm == nil {
		return "", keyRange{}, s.missedKey(false)
	}
	// The values' types before the operator, as DynamoDB checks them.
	for _, o := range pkTerm.Args[1:] {
		if v, ok := x.env.Values[o.Value]; ok && describeType(v) != string(s.pk.typ) {
			return "", keyRange{}, validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
	}
	if pkTerm.Kind != ddbexpr.CondCompare || pkTerm.Op != "=" {
		return "", keyRange{}, validation("Query key condition not supported")
	}
	pv := x.env.Values[pkTerm.Args[1].Value]
	if err := checkKeyValue(s.pk, pv); err != nil {
		return "", keyRange{}, err
	}
	pk := keyEnc(pv)
	if skTerm == nil {
		return pk, keyRange{}, nil
	}
	vals := make([]string, 0, 2)
	for _, o := range skTerm.Args[1:] {
		v := x.env.Values[o.Value]
		if describeType(v) != string(s.sk.typ) {
			return "", keyRange{}, validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		if err := checkKeyValue(s.sk, v); err != nil {
			return "", keyRange{}, err
		}
		vals = append(vals, keyEnc(v))
	}
	comp := func(e string) string { return string(appendComponent(nil, e)) }
	switch skTerm.Kind {
	case ddbexpr.CondBetween:
		return pk, keyRange{lo: comp(vals[0]), hi: prefixEnd(comp(vals[1])), loIncl: comp(vals[0]), hiIncl: comp(vals[1])}, nil
	case ddbexpr.CondFunc:
		e := escaped(vals[0])
		if e == "" {
			return pk, keyRange{}, nil
		}
		return pk, keyRange{lo: e, hi: prefixEnd(e)}, nil
	}
	c := comp(vals[0])
	switch skTerm.Op {
	case "=":
		// DynamoDB Local returns LastEvaluatedKey on an equality bound.
		return pk, keyRange{lo: c, hi: prefixEnd(c)}, nil
	case "<":
		return pk, keyRange{hi: c}, nil
	case "<=":
		return pk, keyRange{hi: prefixEnd(c), hiIncl: c}, nil
	case ">":
		return pk, keyRange{lo: prefixEnd(c)}, nil
	default:
		return pk, keyRange{lo: c, loIncl: c}, nil
	}
}

// readOpts are the common parameters of Query and Scan.
type readOpts struct {
	x       *exprs
	src     *source
	limit   int
	count   bool
	project bool // apply the index projection
	// fetch is set on an LSI read that needs attributes the index does
	// not project: each item is read from the table as well, and the
	// filter sees the whole item.
	fetch bool
	// wire, set when the endpoint serves the read, collects the records
	// returned whole instead of copying them (see wireSink).
	wire *wireSink
}

type page struct {
	slab    slab
	items   []item
	count   int
	scanned int
	last    item
	lastSK  string
	size    int // the items' sizes, for the capacity consumed
	// stored counts the page against its 1 MB: the items' stored sizes
	// (record.storedSize), or the size of an index entry that does not
	// hold the whole item.
	stored  int
	fetched float64 // table reads of an LSI fetch, in 4 KB units
	full    bool    // stopped by Limit or the 1 MB page
	// later, when set, collects the records of full-item reads in recs
	// instead of copying them: copyLater copies them into items once
	// the table lock is released (records are immutable).
	later bool
	recs  []*record
}

// copyLater appends copies of the records collected (see page.later) to
// the page's items.
func (p *page) copyLater() {
	for _, r := range p.recs {
		p.items = append(p.items, p.slab.copyRecord(r))
	}
	p.recs = nil
}

// visit reads one entry into the page; it returns false when the page
// is full.
func (r *readOpts) visit(p *page, e *entry) (bool, error) {
	it := e.rec.item
	p.scanned++
	out := it
	if r.project {
		out = r.src.project(it)
	}
	switch {
	case r.src.ix == nil || r.src.ix.proj == types.ProjectionTypeAll:
		p.size += e.rec.size
		p.stored += e.rec.storedSize(r.src.t.sk.name)
	default:
		// the index holds only the projection
		n := 0
		if r.project {
			n = ddbexpr.ItemSize(out)
		} else {
			n = r.src.ix.entrySize(it, e.rec.size)
		}
		p.size += n
		p.stored += n
		if r.fetch {
			p.fetched += math.Ceil(float64(e.rec.size) / 4096)
		}
	}
	ok := true
	if r.x.filter != nil {
		var err error
		filtered := out
		if r.fetch {
			filtered = it
		}
		ok, err = r.x.filter.Eval(filtered, &r.x.env)
		if err != nil {
			return false, evalErr("FilterExpression", err)
		}
	}
	if ok {
		p.count++
		if !r.count {
			if r.x.proj == nil && (!r.project || r.src.ix.proj == types.ProjectionTypeAll) {
				switch {
				case r.wire != nil:
					r.wire.recs = append(r.wire.recs, e.rec)
				case p.later:
					p.recs = append(p.recs, e.rec)
				default:
					p.items = append(p.items, p.slab.copyRecord(e.rec))
				}
			} else {
				p.items = append(p.items, r.x.outputSlab(&p.slab, out))
			}
		}
	}
	if (r.limit > 0 && p.scanned >= r.limit) || p.stored >= itemsize.PageMax {
		p.last = it
		p.lastSK = e.sk
		p.full = true
		return false, nil
	}
	return true, nil
}

// checkRead checks the projection, Select and Limit of a Query (or of a
// Scan: scan) of src and returns the read's options.
func (db *DB) checkRead(src *source, x *exprs, sel types.Select, limit *int32, scan bool) (readOpts, error) {
	// Select against the projection first, then what the index
	// projects, as DynamoDB Local checks them.
	project, count, err := db.checkSelect(sel, x, src)
	if err != nil {
		return readOpts{}, err
	}
	if err := src.checkProjected(x, scan); err != nil {
		return readOpts{}, err
	}
	n, err := checkLimit(limit)
	if err != nil {
		return readOpts{}, err
	}
	return readOpts{x: x, src: src, limit: n, count: count, project: project, fetch: src.needsFetch(x, sel)}, nil
}

func (db *DB) checkSelect(sel types.Select, x *exprs, src *source) (project bool, count bool, err error) {
	switch sel {
	case "":
	case types.SelectAllAttributes:
		if x.proj != nil {
			return false, false, validation("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES")
		}
		if src.ix != nil && !src.ix.local && src.ix.proj != types.ProjectionTypeAll {
			return false, false, validationf("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", src.ix.name)
		}
	case types.SelectAllProjectedAttributes:
		if x.proj != nil {
			return false, false, validation("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
		if src.ix == nil {
			return false, false, validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	case types.SelectSpecificAttributes:
		if x.proj == nil {
			return false, false, validation("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	case types.SelectCount:
		if x.proj != nil {
			return false, false, validation("Cannot specify the ProjectionExpression when choosing to get only the Count")
		}
		count = true
	default:
		return false, false, validationf("1 validation error detected: Value '%s' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]", sel)
	}
	// An LSI asked for ALL_ATTRIBUTES or for specific attributes fetches
	// them from the table.
	project = src.ix != nil && !(src.ix.local && (sel == types.SelectAllAttributes || x.proj != nil))
	return project, count, nil
}

func checkLimit(l *int32) (int, error) {
	if l == nil {
		return 0, nil
	}
	if *l < 1 {
		return 0, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *l)
	}
	return int(*l), nil
}

// Query reads items of one partition of a table or index, in sort-key
// order (reversed when ScanIndexForward is false), paged as DynamoDB
// pages.
func (db *DB) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := db.begin(ctx, "Query"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.QueryInput{}
	}
	if err := queryConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, db.missingQuery(err, in)
	}
	// The index and how it is read first, then the start key's size,
	// then the key condition with the start key's attributes, as
	// DynamoDB checks them.
	src, err := t.readSource(in.IndexName, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	if in.ExclusiveStartKey != nil {
		if err := src.startKeySize(in.ExclusiveStartKey, false); err != nil {
			return nil, err
		}
	}
	legacy := in.KeyConditions != nil || in.QueryFilter != nil || in.AttributesToGet != nil
	attrs := in.AttributesToGet
	if in, err = t.legacyQuery(in, src); err != nil {
		return nil, err
	}
	if in.KeyConditionExpression == nil {
		return nil, validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	x, err := db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, key: in.KeyConditionExpression, filter: in.FilterExpression, proj: in.ProjectionExpression,
		valueExprs: "FilterExpression and KeyConditionExpression are null", legacy: legacy})
	if err != nil {
		return nil, err
	}
	if x.key != nil {
		// A key condition's path below a key attribute is reported
		// before the key condition's other checks, as DynamoDB Local
		// reports it (the other expressions' after every other check).
		k := [1]*ddbexpr.Expr{&x.key.Expr}
		if err := t.nestedKeyErr(&x.env, k[:]); err != nil {
			return nil, err
		}
	}
	if in.ExclusiveStartKey != nil {
		if err := src.queryStartKey(in.ExclusiveStartKey, x); err != nil {
			return nil, err
		}
	}
	pk, rng, err := src.analyzeKey(x)
	if err != nil {
		return nil, err
	}
	if x.filter != nil && ctx.Value(pqKeyFilter{}) == nil {
		for _, n := range x.filter.TopNames(&x.env) {
			if n == src.pk.name || (src.sk.name != "" && n == src.sk.name) {
				return nil, validationf("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", n)
			}
		}
	}
	if in.ExclusiveStartKey != nil {
		if err := src.startTableKey(in.ExclusiveStartKey); err != nil {
			return nil, err
		}
	}
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	var esk string
	hasESK := in.ExclusiveStartKey != nil
	if hasESK {
		epk, e := src.startKey(in.ExclusiveStartKey)
		// The start key must satisfy the key condition.
		// As in DynamoDB Local, a start key of a table on the inclusive
		// bound where the read would end is rejected too (an index's
		// start key may be there: its sort key is not unique).
		far := rng.hiIncl
		if !forward {
			far = rng.loIncl
		}
		// DynamoDB words a start key of another partition by whether the
		// condition has a sort key term (dynalite's suite records it;
		// DynamoDB Local says "does not match the range key predicate"
		// for both).
		sortTerm := rng != keyRange{}
		switch {
		case epk != pk && !sortTerm:
			return nil, validation("The provided starting key is outside query boundaries based on provided conditions")
		case (rng.lo != "" && e < rng.lo) || (rng.hi != "" && e >= rng.hi) || (src.ix == nil && far != "" && strings.HasPrefix(e, far)):
			return nil, validation("The provided starting key does not match the range key predicate")
		case epk != pk:
			return nil, validation("The query can return at most one row and cannot be restarted")
		}
		esk = e
	}
	// Select and the projection after the start key and the key
	// condition's values, as DynamoDB Local checks them (AttributesToGet
	// too: seed 2025).
	if err := checkAttributesToGet(attrs, in.Select); err != nil {
		return nil, err
	}
	// A PartiQL SELECT of an LSI fetches what its filter names, as a
	// Scan of it does.
	ro, err := db.checkRead(src, x, in.Select, in.Limit, src.ix != nil && src.ix.local && ctx.Value(pqKeyFilter{}) != nil)
	if err != nil {
		return nil, err
	}
	r := &ro
	r.wire = wireSinkOf(ctx)
	if err := t.checkNestedKeys(x); err != nil {
		return nil, err
	}
	p := page{slab: slab{chunk: slabChunk, nchunk: slabChunk / 4}}
	if !r.count {
		p.items = []item{}
	}
	t.mu.RLock()
	part := src.data.parts[pk]
	if part != nil {
		lo := 0
		if rng.lo != "" {
			lo = part.search(func(sk string) bool { return sk >= rng.lo })
		}
		hi := part.len()
		if rng.hi != "" {
			hi = part.search(func(sk string) bool { return sk >= rng.hi })
		}
		if !r.count && hi > lo {
			// Size the page's allocations for the items it will likely hold.
			n := hi - lo
			if r.limit > 0 && r.limit < n {
				n = r.limit
			}
			n = min(n, 256)
			p.items = make([]item, 0, n)
			first := part.at(lo).rec
			p.slab.chunk, p.slab.nchunk = n*first.nS, n*first.nN
		}
		if forward {
			if hasESK {
				if i := part.search(func(sk string) bool { return sk > esk }); i > lo {
					lo = i
				}
			}
			for i := lo; i < hi; i++ {
				more, err := r.visit(&p, part.at(i))
				if err != nil {
					t.mu.RUnlock()
					return nil, err
				}
				if !more {
					break
				}
			}
		} else {
			if hasESK {
				if i := part.search(func(sk string) bool { return sk >= esk }); i < hi {
					hi = i
				}
			}
			for i := hi - 1; i >= lo; i-- {
				more, err := r.visit(&p, part.at(i))
				if err != nil {
					t.mu.RUnlock()
					return nil, err
				}
				if !more {
					break
				}
			}
		}
	}
	var last item
	bound := rng.hiIncl
	if !forward {
		bound = rng.loIncl
	}
	// A partition of a table without a sort key holds one item: a page
	// that read it has read the partition (as DynamoDB Local answers).
	// So does a page of a table that ends on the inclusive bound of its
	// sort key condition; an index's sort key is not unique, and more
	// items may have the bound's value.
	tableDone := src.sk.name == "" || bound != "" && strings.HasPrefix(p.lastSK, bound)
	if p.full && (src.ix != nil || !tableDone) {
		last = src.lastKey(p.last)
	}
	t.mu.RUnlock()
	out := &dynamodb.QueryOutput{Count: int32(p.count), ScannedCount: int32(p.scanned), LastEvaluatedKey: last,
		ConsumedCapacity: readCapacity(in.ReturnConsumedCapacity, t.name, src, p.size, p.fetched, aws.ToBool(in.ConsistentRead), true)}
	if !r.count {
		out.Items = p.items
	}
	return out, nil
}

// Scan reads every item of a table or index, in DynamoDB's order of
// partitions (see the package doc), optionally one segment of a parallel
// scan.
func (db *DB) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := db.begin(ctx, "Scan"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.ScanInput{}
	}
	if err := scanConstraints(in); err != nil {
		return nil, err
	}
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, db.missingScan(err, in)
	}
	legacy := in.ScanFilter != nil || in.AttributesToGet != nil
	attrs := in.AttributesToGet
	if in, err = legacyScan(in, false); err != nil {
		return nil, err
	}
	x, err := db.parseExprs(exprReq{names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues, filter: in.FilterExpression, proj: in.ProjectionExpression,
		valueExprs: "FilterExpression is null", legacy: legacy})
	if err != nil {
		return nil, err
	}
	src, err := t.readSource(in.IndexName, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	if err := checkAttributesToGet(attrs, in.Select); err != nil {
		return nil, err
	}
	if esk := in.ExclusiveStartKey; esk != nil {
		if err := src.startKeySize(esk, true); err != nil {
			return nil, err
		}
		if src.ix != nil {
			if err := startKeyPiece(esk, src.pk); err != nil {
				return nil, err
			}
			if err := startKeyPiece(esk, src.sk); err != nil {
				return nil, err
			}
		}
	}
	ro, err := db.checkRead(src, x, in.Select, in.Limit, true)
	if err != nil {
		return nil, err
	}
	if in.ExclusiveStartKey != nil {
		if err := src.startTableKey(in.ExclusiveStartKey); err != nil {
			return nil, err
		}
	}
	r := &ro
	seg, total, err := scanSegments(in)
	if err != nil {
		return nil, err
	}
	// A path below a key attribute, after a start key of another
	// segment (as DynamoDB checks them).
	nested := t.checkNestedKeys(x)
	if nested != nil && in.ExclusiveStartKey == nil {
		return nil, nested
	}
	r.wire = wireSinkOf(ctx)
	p := page{slab: slab{chunk: slabChunk, nchunk: slabChunk / 4}}
	if !r.count {
		p.items = []item{}
		// A Scan's page copies its items after the read lock: writes
		// wait for a scan only while it walks the entries.
		p.later = true
		if r.limit > 0 {
			n := min(r.limit, 256)
			p.items, p.recs = make([]item, 0, n), make([]*record, 0, n)
		}
	}
	segOf := func(h uint64) int { return segmentOf(h, total) }
	t.mu.RLock()
	parts := src.data.sorted()
	start := sort.Search(len(parts), func(i int) bool { return segOf(parts[i].hash) >= seg })
	var eskPK, eskSK string
	hasESK := in.ExclusiveStartKey != nil
	if hasESK {
		eskPK, eskSK = src.startKey(in.ExclusiveStartKey)
		h := partitionHash(eskPK, src.data.typ)
		if segOf(h) != seg {
			t.mu.RUnlock()
			// DynamoDB's text (dynalite's suite records it); DynamoDB
			// Local says "Exclusive start key must lie within the segment".
			return nil, validationf("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d", total, seg)
		}
		if nested != nil {
			t.mu.RUnlock()
			return nil, nested
		}
		start = sort.Search(len(parts), func(i int) bool {
			return parts[i].hash > h || (parts[i].hash == h && parts[i].key >= eskPK)
		})
	}
scan:
	for i := start; i < len(parts) && segOf(parts[i].hash) == seg; i++ {
		part := parts[i]
		j := 0
		if hasESK && part.key == eskPK {
			j = part.search(func(sk string) bool { return sk > eskSK })
		}
		for ; j < part.len(); j++ {
			more, err := r.visit(&p, part.at(j))
			if err != nil {
				t.mu.RUnlock()
				return nil, err
			}
			if !more {
				break scan
			}
		}
	}
	var last item
	if p.full {
		last = src.lastKey(p.last)
	}
	t.mu.RUnlock()
	p.copyLater()
	out := &dynamodb.ScanOutput{Count: int32(p.count), ScannedCount: int32(p.scanned), LastEvaluatedKey: last,
		ConsumedCapacity: readCapacity(in.ReturnConsumedCapacity, t.name, src, p.size, p.fetched, aws.ToBool(in.ConsistentRead), false)}
	if !r.count {
		out.Items = p.items
	}
	return out, nil
}

// scanSegments returns a Scan's segment and total segments (0 and 1
// without them), checked.
func scanSegments(in *dynamodb.ScanInput) (int, int, error) {
	seg, total := 0, 1
	if in.Segment != nil || in.TotalSegments != nil {
		if in.Segment == nil || in.TotalSegments == nil {
			if in.Segment == nil {
				return 0, 0, validation("The TotalSegments parameter is non-null, but the Segment parameter is not provided")
			}
			return 0, 0, validation("The Segment parameter is non-null, but the TotalSegments parameter is not provided")
		}
		if *in.TotalSegments < 1 {
			return 0, 0, validationf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.TotalSegments)
		}
		if *in.TotalSegments > 1000000 {
			return 0, 0, validationf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000", *in.TotalSegments)
		}
		if *in.Segment < 0 || *in.Segment >= *in.TotalSegments {
			return 0, 0, validationf("1 validation error detected: Value '%d' at 'segment' failed to satisfy constraint: Member must have value less than or equal to %d", *in.Segment, *in.TotalSegments-1)
		}
		seg, total = int(*in.Segment), int(*in.TotalSegments)
	}
	return seg, total, nil
}
