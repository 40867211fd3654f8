package ddbmem

import (
	"context"
	"encoding/binary"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/internal/ddbexpr"
)

type keyAttr struct {
	name string
	typ  types.ScalarAttributeType
}

type index struct {
	name   string
	local  bool
	pk, sk keyAttr
	tk     [2]keyAttr  // the table's partition and sort key
	prov   provisioned // a global index's own (throughput.go)
	// Options.Lifecycle (lifecycle.go): for an index UpdateTable created,
	// the engine's clock and the end of its backfill (nil, 0: none).
	nanos   func() int64
	readyAt atomic.Int64
	proj    types.ProjectionType
	include map[string]bool
	desc    types.Projection
	data    *store
	src     *source // what reads of the index read
}

type table struct {
	mu sync.RWMutex

	name    string
	created time.Time
	pk, sk  keyAttr
	attrs   []types.AttributeDefinition
	billing types.BillingMode
	prov    provisioned  // throughput.go
	quota   units        // its share of DB.quota, under mu (quota.go)
	clock   func() int64 // the engine's clock (DB.nanos)
	// payAt and payPrev are the ends of the last two switches to
	// PAY_PER_REQUEST, or its creation with it (Unix nanoseconds; 0:
	// none): see billingSummary.
	payAt, payPrev int64
	ixs            atomic.Pointer[indexSet] // the secondary indexes
	data           *store
	src            *source // what reads of the table read
	count          int
	bytes          int64
	ttlAttr        string
	tags           map[string]string // tags.go
	// protected refuses DeleteTable (DeletionProtectionEnabled).
	protected bool
	id        string // TableId
	region    string // of its ARN (Options.Region)

	// Options.Lifecycle (lifecycle.go): the engine's clock (nil when
	// every change is immediate), the ends of the CREATING and UPDATING
	// states and the time a deleted table is gone, in its Unix
	// nanoseconds (0: none).
	nanos                          func() int64
	readyAt, updatingUntil, goneAt atomic.Int64

	// DynamoDB Streams (stream.go): the enabled stream (nil if none),
	// the latest stream's ARN and label, the view type CreateTable asked
	// for, and whether the TTL sweep is deleting.
	stream                 *stream
	streamArn, streamLabel string
	streamView             types.StreamViewType
	ttlDeleting            bool
}

// indexSet is a table's secondary indexes. A set is never changed once
// published: UpdateTable replaces it whole, under t.mu, so that the
// operations that look an index up before they take t.mu see one set or
// the other.
type indexSet struct {
	list   []*index
	byName map[string]*index
}

// indexes returns the table's secondary indexes.
func (t *table) indexes() []*index { return t.ixs.Load().list }

// index returns the secondary index named name, or nil.
func (t *table) index(name string) *index { return t.ixs.Load().byName[name] }

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

func checkTableName(name string) error {
	if len(name) < 3 || len(name) > 255 || !tableNameRE.MatchString(name) {
		return validation("Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'")
	}
	return nil
}

// CreateTable creates a table, ACTIVE at once. It returns a
// *types.ResourceInUseException if the table exists, and a
// ValidationException for an invalid schema.
func (db *DB) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	if err := db.begin(ctx, "CreateTable"); err != nil {
		return nil, err
	}
	t, err := db.newTable(in)
	if err != nil {
		return nil, err
	}
	if err := checkCreateUnits(in); err != nil { // quota.go
		return nil, err
	}
	if db.life.enabled() {
		t.nanos = db.nanos
		t.readyAt.Store(db.nanos() + int64(db.life.Create))
	}
	if old := db.lookup(t.name); old != nil {
		if old.status() == types.TableStatusDeleting {
			return nil, inUse(old)
		}
		return nil, &types.ResourceInUseException{Message: aws.String("Cannot create preexisting table")}
	}
	t.quota = t.provUnits(t.billing, nil, t.ixs.Load(), nil)
	if err := db.quota.move(units{}, t.quota); err != nil {
		return nil, err
	}
	db.mu.Lock()
	if _, ok := db.tables[t.name]; ok {
		db.mu.Unlock()
		_ = db.quota.move(t.quota, units{})
		return nil, &types.ResourceInUseException{Message: aws.String("Cannot create preexisting table")}
	}
	t.id = tableID(t.name, db.created.Add(1))
	db.tables[t.name] = t
	if t.streamView != "" {
		db.enableStream(t, t.streamView) // streams: stream.go
	}
	db.mu.Unlock()
	return &dynamodb.CreateTableOutput{TableDescription: t.describe()}, nil
}

func (db *DB) newTable(in *dynamodb.CreateTableInput) (*table, error) {
	if in == nil {
		in = &dynamodb.CreateTableInput{}
	}
	if err := createTableConstraints(in); err != nil { // create_checks.go
		return nil, err
	}
	if err := checkCreateTable(in); err != nil {
		return nil, err
	}
	defs := map[string]types.ScalarAttributeType{}
	for _, d := range in.AttributeDefinitions {
		if _, dup := defs[*d.AttributeName]; dup {
			return nil, validationf("Cannot have two attributes with the same name. Attribute name: %s", *d.AttributeName)
		}
		defs[*d.AttributeName] = d.AttributeType
	}
	used := map[string]bool{}
	// keys reads a key schema that checkCreateTable has checked.
	keys := func(ks []types.KeySchemaElement) (pk, sk keyAttr) {
		for _, k := range ks {
			used[*k.AttributeName] = true
		}
		pk = keyAttr{*ks[0].AttributeName, defs[*ks[0].AttributeName]}
		if len(ks) == 2 {
			sk = keyAttr{*ks[1].AttributeName, defs[*ks[1].AttributeName]}
		}
		return pk, sk
	}
	t := &table{name: *in.TableName, created: db.now(), attrs: in.AttributeDefinitions, region: db.region, clock: db.nanos,
		protected: aws.ToBool(in.DeletionProtectionEnabled)}
	ixs := &indexSet{byName: map[string]*index{}}
	t.pk, t.sk = keys(in.KeySchema)
	t.data = newStore(t.pk.typ)
	t.src = &source{t: t, pk: t.pk, sk: t.sk, data: t.data}
	t.billing = in.BillingMode
	if t.billing == "" {
		t.billing = types.BillingModeProvisioned
	}
	if t.billing == types.BillingModeProvisioned {
		t.prov.units = copyThroughput(in.ProvisionedThroughput)
	} else {
		t.payAt = t.created.UnixNano()
	}
	addIndex := func(name string, ks []types.KeySchemaElement, proj *types.Projection, local bool) *index {
		pk, sk := keys(ks)
		ix := t.newIndex(name, pk, sk, proj, local)
		ixs.byName[ix.name] = ix
		ixs.list = append(ixs.list, ix)
		return ix
	}
	for _, g := range in.GlobalSecondaryIndexes {
		addIndex(*g.IndexName, g.KeySchema, g.Projection, false).prov.units = copyThroughput(g.ProvisionedThroughput)
	}
	for _, l := range in.LocalSecondaryIndexes {
		addIndex(*l.IndexName, l.KeySchema, l.Projection, true)
	}
	t.ixs.Store(ixs)
	if len(used) != len(defs) {
		return nil, validationf("One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]", defNames(in.AttributeDefinitions), strings.Join(sortedKeys(used), ", "))
	}
	var err error
	if t.streamView, err = parseStreamSpec(in.StreamSpecification); err != nil { // streams: stream.go
		return nil, err
	}
	if in.Tags != nil { // tags.go
		if len(in.Tags) == 0 {
			return nil, validation("1 validation error detected: Value '[]' at 'tags' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		if err := checkTags(in.Tags); err != nil {
			return nil, err
		}
		if err := t.addTags(in.Tags); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// newIndex returns an empty index of t.
func (t *table) newIndex(name string, pk, sk keyAttr, proj *types.Projection, local bool) *index {
	ix := &index{name: name, local: local, pk: pk, sk: sk, tk: [2]keyAttr{t.pk, t.sk},
		proj: proj.ProjectionType, data: newStore(pk.typ), desc: *proj}
	if proj.ProjectionType == types.ProjectionTypeInclude {
		ix.include = map[string]bool{}
		for _, a := range proj.NonKeyAttributes {
			ix.include[a] = true
		}
	}
	ix.src = &source{t: t, ix: ix, pk: ix.pk, sk: ix.sk, data: ix.data}
	return ix
}

func keyNames(ks []types.KeySchemaElement) string {
	var s []string
	for _, k := range ks {
		s = append(s, aws.ToString(k.AttributeName))
	}
	return strings.Join(s, ", ")
}

func defNames(ds []types.AttributeDefinition) string {
	var s []string
	for _, d := range ds {
		s = append(s, aws.ToString(d.AttributeName))
	}
	return strings.Join(s, ", ")
}

func sortedKeys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

func keySchema(pk, sk keyAttr) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk.name), KeyType: types.KeyTypeHash}}
	if sk.name != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk.name), KeyType: types.KeyTypeRange})
	}
	return ks
}

func (t *table) arn() string { return "arn:aws:dynamodb:" + t.region + ":000000000000:table/" + t.name }

// describe returns the table's description; the caller need not hold
// the lock (counts are read under it).
func (t *table) describe() *types.TableDescription {
	t.mu.RLock()
	defer t.mu.RUnlock()
	d := &types.TableDescription{
		TableName:            aws.String(t.name),
		TableArn:             aws.String(t.arn()),
		TableId:              aws.String(t.id),
		TableStatus:          t.status(),
		CreationDateTime:     aws.Time(t.created),
		KeySchema:            keySchema(t.pk, t.sk),
		AttributeDefinitions: append([]types.AttributeDefinition(nil), t.attrs...),
		ItemCount:            aws.Int64(int64(t.count)),
		TableSizeBytes:       aws.Int64(t.bytes),
	}
	if t.protected {
		// Only a protected table says so: dynalite's suite records AWS's
		// descriptions of unprotected tables without the member.
		d.DeletionProtectionEnabled = aws.Bool(true)
	}
	now := t.clock()
	d.ProvisionedThroughput = t.prov.describe(now, t.billing)
	d.BillingModeSummary = t.billingSummary(now, d.TableStatus)
	tableCreating := d.TableStatus == types.TableStatusCreating // its global indexes are created with it
	for _, ix := range t.indexes() {
		n := 0
		for _, p := range ix.data.parts {
			n += p.len()
		}
		proj := ix.desc
		if ix.local {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{
				IndexName: aws.String(ix.name), KeySchema: keySchema(ix.pk, ix.sk), Projection: &proj,
				IndexArn: aws.String(t.arn() + "/index/" + ix.name), ItemCount: aws.Int64(int64(n)), IndexSizeBytes: aws.Int64(0),
			})
			continue
		}
		if d.TableStatus == types.TableStatusDeleting {
			// DynamoDB drops a deleted table's global indexes first:
			// a DELETING table is described without them (dynalite's
			// suite records AWS's answer).
			continue
		}
		g := types.GlobalSecondaryIndexDescription{
			IndexName: aws.String(ix.name), KeySchema: keySchema(ix.pk, ix.sk), Projection: &proj,
			IndexStatus: types.IndexStatusActive, IndexArn: aws.String(t.arn() + "/index/" + ix.name),
			ItemCount: aws.Int64(int64(n)), IndexSizeBytes: aws.Int64(0),
			ProvisionedThroughput: ix.prov.describe(now, t.billing),
		}
		switch {
		case ix.prov.pending(now):
			g.IndexStatus = types.IndexStatusUpdating
		case ix.backfilling():
			g.IndexStatus, g.Backfilling = types.IndexStatusCreating, aws.Bool(true)
		case tableCreating:
			g.IndexStatus = types.IndexStatusCreating
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, g)
	}
	t.describeStream(d) // streams: stream_table.go
	return d
}

// DescribeTable describes a table. It returns a
// *types.ResourceNotFoundException if there is none.
func (db *DB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if err := db.begin(ctx, "DescribeTable"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.DescribeTableInput{}
	}
	if err := tableOnlyConstraints(in.TableName); err != nil {
		return nil, err
	}
	t, err := db.anyTable(in.TableName)
	if err != nil {
		return nil, missingTableOnly(err, in.TableName)
	}
	return &dynamodb.DescribeTableOutput{Table: t.describe()}, nil
}

// DeleteTable deletes a table and its items at once. It returns a
// *types.ResourceNotFoundException if there is none, and a
// ValidationException if the table is protected against deletion
// (DeletionProtectionEnabled, set by CreateTable or UpdateTable).
func (db *DB) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	if err := db.begin(ctx, "DeleteTable"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.DeleteTableInput{}
	}
	if err := tableOnlyConstraints(in.TableName); err != nil {
		return nil, err
	}
	t, err := db.anyTable(in.TableName)
	if err != nil {
		return nil, missingTableOnly(err, in.TableName)
	}
	if !t.serving() {
		return nil, inUse(t)
	}
	t.mu.RLock()
	protected := t.protected
	t.mu.RUnlock()
	if protected {
		return nil, validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	db.mu.Lock()
	if db.tables[t.name] != t {
		db.mu.Unlock()
		return nil, notFound()
	}
	if t.goneAt.Load() != 0 { // another DeleteTable came first
		db.mu.Unlock()
		return nil, inUse(t)
	}
	if db.life.Delete > 0 {
		// DELETING until then (lifecycle.go); its reads and writes are
		// refused from now on.
		t.goneAt.Store(db.nanos() + int64(db.life.Delete))
	} else {
		delete(db.tables, t.name)
	}
	db.mu.Unlock()
	t.mu.Lock()
	t.disableStream() // streams: its records stay readable (stream.go)
	freed := t.quota
	t.quota = units{}
	t.mu.Unlock()
	_ = db.quota.move(freed, units{}) // a decrease always fits
	d := t.describe()
	d.TableStatus = types.TableStatusDeleting
	return &dynamodb.DeleteTableOutput{TableDescription: d}, nil
}

// UpdateTimeToLive enables or disables TTL on a table; see the package
// documentation for the expiry semantics.
func (db *DB) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	if err := db.begin(ctx, "UpdateTimeToLive"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.UpdateTimeToLiveInput{}
	}
	if err := tableOnlyConstraints(in.TableName); err != nil {
		return nil, err
	}
	t, err := db.anyTable(in.TableName)
	if err != nil {
		return nil, missingTableOnly(err, in.TableName)
	}
	spec := in.TimeToLiveSpecification
	if spec == nil || spec.AttributeName == nil || spec.Enabled == nil || *spec.AttributeName == "" {
		return nil, validation("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if *spec.Enabled {
		if t.ttlAttr != "" {
			return nil, validation("TimeToLive is already enabled")
		}
		t.ttlAttr = *spec.AttributeName
	} else {
		if t.ttlAttr == "" {
			return nil, validation("TimeToLive is already disabled")
		}
		if t.ttlAttr != *spec.AttributeName {
			return nil, validationf("TimeToLive is active on a different AttributeName: current AttributeName is %s", t.ttlAttr)
		}
		t.ttlAttr = ""
	}
	return &dynamodb.UpdateTimeToLiveOutput{TimeToLiveSpecification: &types.TimeToLiveSpecification{
		AttributeName: aws.String(*spec.AttributeName), Enabled: aws.Bool(*spec.Enabled)}}, nil
}

// keyEnc encodes a key value of the given type. Partition and sort keys
// use the same encoding; its byte order is DynamoDB's sort order.
func keyEnc(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberB:
		return string(x.Value)
	case *types.AttributeValueMemberN:
		n, err := ddbexpr.ParseNumber(x.Value)
		if err != nil {
			return x.Value
		}
		var buf [48]byte
		return string(n.AppendKey(buf[:0]))
	}
	return ""
}

// appendComponent appends s escaped and terminated so that concatenated
// components order component by component.
func appendComponent(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b = append(b, 0, 0xFF)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, 0, 1)
}

// tableKey returns the encoded partition and sort key of a stored item.
func (t *table) tableKey(it item) (string, string) {
	pk := keyEnc(it[t.pk.name])
	if t.sk.name == "" {
		return pk, ""
	}
	var buf [64]byte // most sort keys fit: one allocation, the string
	return pk, string(appendComponent(buf[:0], keyEnc(it[t.sk.name])))
}

// indexKey returns the index partition key and the composite entry key of
// it in ix, and false when it has no value for an index key (sparse).
func (t *table) indexKey(ix *index, it item) (string, string, bool) {
	if _, ok := it[ix.pk.name]; !ok {
		return "", "", false
	}
	tpk, tsk := t.tableKey(it)
	return indexKeyAt(ix, it, tpk, tsk)
}

// indexKeyAt is indexKey for an item whose encoded table key (tableKey)
// the caller already has. The entry key is the index sort key, then
// DynamoDB's hash of the table key (tableKeyHash), which orders entries
// that share their index key as DynamoDB does, then the table key.
func indexKeyAt(ix *index, it item, tpk, tsk string) (string, string, bool) {
	pv, ok := it[ix.pk.name]
	if !ok {
		return "", "", false
	}
	var buf [128]byte
	b := buf[:0]
	if ix.sk.name != "" {
		sv, ok := it[ix.sk.name]
		if !ok {
			return "", "", false
		}
		b = appendComponent(b, keyEnc(sv))
	}
	b = binary.BigEndian.AppendUint64(b, tableKeyHash(it, ix.tk[0], ix.tk[1]))
	b = appendComponent(b, tpk)
	b = append(b, tsk...)
	return keyEnc(pv), string(b), true
}

// write replaces the item at its key, stored as oldRec (nil if none),
// with it (nil deletes), maintaining indexes and counters. The caller
// holds t.mu.
func (t *table) write(pk, sk string, oldRec *record, it item) {
	t.writeSized(pk, sk, oldRec, it, -1)
}

// writeSized is write for an item whose ItemSize the caller has (size;
// -1 computes it). It returns the new record (nil for a delete).
func (t *table) writeSized(pk, sk string, oldRec *record, it item, size int) *record {
	var r *record
	if it != nil {
		if size < 0 {
			size = ddbexpr.ItemSize(it)
		}
		r = newRecord(it, size)
	}
	t.writeRecord(pk, sk, oldRec, r)
	return r
}

// writeRecord is write for the record r of the new item (nil deletes),
// built by the caller, possibly before it took the lock.
func (t *table) writeRecord(pk, sk string, oldRec, r *record) {
	old, it := oldRec.get(), r.get()
	if t.stream != nil {
		t.streamHook(pk, oldRec, r) // streams: stream.go
	}
	if old != nil {
		t.count--
		t.bytes -= int64(oldRec.size)
	}
	if it == nil {
		if old != nil {
			t.data.remove(pk, sk)
		}
	} else {
		t.data.put(pk, sk, r)
		t.count++
		t.bytes += int64(r.size)
	}
	for _, ix := range t.indexes() {
		ix.replace(pk, sk, old, it, r)
	}
}

// replace moves the index entry of the table item at (pk, sk) from old
// to it, stored as r (either item may be nil). An entry whose index key
// does not change has its record replaced where it is: removing and
// reinserting it would shift the entries after it twice.
func (ix *index) replace(pk, sk string, old, it item, r *record) {
	oin, nin, moved := ix.change(old, it)
	if oin && moved {
		opk, osk, _ := indexKeyAt(ix, old, pk, sk)
		ix.data.remove(opk, osk)
	}
	if nin {
		npk, nsk, _ := indexKeyAt(ix, it, pk, sk)
		ix.data.put(npk, nsk, r)
	}
}

// change reports, for a write that replaces old by nw (either may be
// nil; both of the same table key), whether old and nw have an entry in
// ix and whether the entry's key changes (true when either has none).
// It compares the index key values as indexKeyAt encodes them, without
// building the entry keys.
func (ix *index) change(old, nw item) (oin, nin, moved bool) {
	opv, oin := ix.keyValues(old)
	npv, nin := ix.keyValues(nw)
	if !oin || !nin {
		return oin, nin, true
	}
	moved = keyEnc(opv[0]) != keyEnc(npv[0]) || (ix.sk.name != "" && keyEnc(opv[1]) != keyEnc(npv[1]))
	return oin, nin, moved
}

// keyValues returns the index key values of it (partition, then sort
// key when ix has one), and false when it has no entry in ix (nil, or
// sparse: a key attribute missing).
func (ix *index) keyValues(it item) ([2]types.AttributeValue, bool) {
	var kv [2]types.AttributeValue
	if it == nil {
		return kv, false
	}
	// A key value of another type than the index's, or empty, is not
	// indexed: the writes refuse them, but an item stored before
	// UpdateTable created the index may have one (DynamoDB's backfill
	// leaves it out: an index key violation).
	var ok bool
	if kv[0], ok = it[ix.pk.name]; !ok || !indexable(ix.pk, kv[0]) {
		return kv, false
	}
	if ix.sk.name != "" {
		if kv[1], ok = it[ix.sk.name]; !ok || !indexable(ix.sk, kv[1]) {
			return kv, false
		}
	}
	return kv, true
}

func describeType(v types.AttributeValue) string { return ddbexpr.TypeName(v) }

// indexable reports whether v can be the value of index key attribute k:
// of its type, and not an empty string or binary.
func indexable(k keyAttr, v types.AttributeValue) bool {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return k.typ == types.ScalarAttributeTypeS && x.Value != ""
	case *types.AttributeValueMemberN:
		return k.typ == types.ScalarAttributeTypeN
	case *types.AttributeValueMemberB:
		return k.typ == types.ScalarAttributeTypeB && len(x.Value) > 0
	}
	return false
}

// checkKeyValue validates one key attribute value of an item.
func checkKeyValue(k keyAttr, v types.AttributeValue) error {
	if !scalarKeyType(v) {
		return errKeyValueType
	}
	if string(k.typ) != describeType(v) {
		// DynamoDB says "Type mismatch for key pk expected: S actual: N";
		// DynamoDB Local (the conformance oracle) leaves the details out.
		return validation("One or more parameter values were invalid: Type mismatch for key")
	}
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		if x.Value == "" {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", k.name)
		}
	case *types.AttributeValueMemberB:
		if len(x.Value) == 0 {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", k.name)
		}
	}
	return nil
}

// checkItemKeys validates the table and index keys of an item to store.
//
// update selects the messages of an item an update expression (rather
// than a whole item, or AttributeUpdates) made: for an empty index key,
// DynamoDB Local's; for an index key of the wrong type, DynamoDB's
// (dynalite's suite records it).
func (t *table) checkItemKeys(it item, update bool) error {
	for _, k := range []keyAttr{t.pk, t.sk} {
		if k.name == "" {
			continue
		}
		// DynamoDB's texts, which name the key (dynalite's suite records
		// them); DynamoDB Local says "One of the required keys was not
		// given a value" and "Type mismatch for key".
		v, ok := it[k.name]
		if !ok {
			return validation("One or more parameter values were invalid: Missing the key " + k.name + " in the item")
		}
		if typ := describeType(v); scalarKeyType(v) && typ != string(k.typ) {
			return validationf("%s %s expected: %s actual: %s", keyTypeMismatchMsg, k.name, k.typ, typ)
		}
		if err := checkKeyValue(k, v); err != nil {
			return err
		}
	}
	if err := t.checkKeySize(it); err != nil {
		return err
	}
	for _, ix := range t.indexes() {
		for _, k := range []keyAttr{ix.pk, ix.sk} {
			if k.name == "" {
				continue
			}
			v, ok := it[k.name]
			if !ok {
				continue
			}
			if typ := describeType(v); string(k.typ) != typ {
				if update {
					// A value whose type only the item tells
					// (checkIndexKeyTypes refused the others), as
					// dynalite's suite records DynamoDB.
					return validation("The update expression attempted to update the secondary index key to unsupported type")
				}
				// DynamoDB's text; DynamoDB Local leaves out what follows
				// "Index Key".
				return validationf("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.name, k.typ, typ, ix.name)
			}
			empty := false
			switch x := v.(type) {
			case *types.AttributeValueMemberS:
				empty = x.Value == ""
			case *types.AttributeValueMemberB:
				empty = len(x.Value) == 0
			}
			if empty && update {
				return validation("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.")
			}
			if empty {
				return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: %s, IndexKey: %s", ix.name, k.name)
			}
		}
	}
	return nil
}

// checkKeySize checks the sizes of the table key attributes of it (an
// item or a Key): partition keys up to 2048 bytes, sort keys up to 1024,
// with DynamoDB's messages (DynamoDB Local words them otherwise).
func (t *table) checkKeySize(it item) error {
	if keyBytes(it[t.pk.name]) > 2048 {
		return validation("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	if t.sk.name != "" && keyBytes(it[t.sk.name]) > 1024 {
		return validation("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	return nil
}

// keyBytes is the size of a key value: the bytes of a string or binary;
// a number (at most 38 digits) is always small enough.
func keyBytes(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	}
	return 0
}

// errKeyType is the error of a Key attribute of the wrong type, in
// DynamoDB's words (dynalite's suite records them); DynamoDB Local says
// "One or more parameter values were invalid: Type mismatch for key".
var errKeyType = validation(errKeySchema)

// errKeySchema is DynamoDB's message for a Key that does not fit the key
// schema: an attribute too many or too few, missing, or of the wrong
// type.
const errKeySchema = "The provided key element does not match the schema"

// errKeyValueType is the error of a key attribute whose value is not of
// a type a key can have (S, N or B): a set, list, map, BOOL or NULL.
// DynamoDB Local checks it before the key schema, and so before a
// transaction runs (see txnCases); DynamoDB's texts are "The provided
// key element does not match the schema" and "Type mismatch for key pk
// expected: S actual: SS", neither of which Local uses.
var errKeyValueType = validation("Invalid attribute value type")

// scalarKeyType reports whether v is of a type a key attribute can have.
func scalarKeyType(v types.AttributeValue) bool {
	switch v.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
		return true
	}
	return false
}

// errKeyCount is the message of a Key with too many or too few
// attributes (DynamoDB Local: "The number of conditions on the keys is
// invalid").
const errKeyCount = errKeySchema

// parseKey validates a Key parameter and returns its encoded parts.
func (t *table) parseKey(key item) (string, string, error) {
	n := 1
	if t.sk.name != "" {
		n = 2
	}
	if len(key) != n {
		return "", "", validation(errKeyCount)
	}
	for _, k := range []keyAttr{t.pk, t.sk} {
		if k.name == "" {
			continue
		}
		v, ok := key[k.name]
		if !ok {
			return "", "", validation(errKeySchema) // DynamoDB Local: One of the required keys was not given a value
		}
		if isNil(v) {
			return "", "", validation(errEmptyValue)
		}
		if err := invalidErr(v); err != nil {
			return "", "", err
		}
		if !scalarKeyType(v) {
			return "", "", errKeyValueType
		}
		if string(k.typ) != describeType(v) {
			return "", "", errKeyType
		}
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			if x.Value == "" {
				return "", "", validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", k.name)
			}
		case *types.AttributeValueMemberB:
			if len(x.Value) == 0 {
				return "", "", validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", k.name)
			}
		case *types.AttributeValueMemberN:
			if _, err := ddbexpr.ParseNumber(x.Value); err != nil {
				return "", "", validation(err.Error())
			}
		}
	}
	if err := t.checkKeySize(key); err != nil {
		return "", "", err
	}
	pk, sk := t.tableKey(key)
	return pk, sk, nil
}

// keyOf returns a copy of the table key attributes of it.
func (t *table) keyOf(it item) item {
	k := item{t.pk.name: ddbexpr.Copy(it[t.pk.name])}
	if t.sk.name != "" {
		k[t.sk.name] = ddbexpr.Copy(it[t.sk.name])
	}
	return k
}

func (t *table) isKeyAttr(name string) bool {
	return name == t.pk.name || (t.sk.name != "" && name == t.sk.name)
}
