// Package ddbmem is an embedded, in-process DynamoDB engine. Its *DB
// implements entity.Client, so examples and unit tests run with no Java,
// no Docker and no server:
//
//	db := ddbmem.New()
//	db.CreateTable(ctx, &dynamodb.CreateTableInput{...})
//	db.PutItem(ctx, &dynamodb.PutItemInput{...})
//
// Requests and responses are the SDK's own types, and errors are the
// SDK's own error types: *types.ConditionalCheckFailedException,
// *types.TransactionCanceledException, *types.ResourceNotFoundException,
// *types.ResourceInUseException, *types.IdempotentParameterMismatchException,
// and *smithy.GenericAPIError with code "ValidationException" for
// validation errors. Code using errors.As behaves the same on the engine
// and on DynamoDB. As on DynamoDB, a request naming a table that does not
// exist is validated first: an invalid one is a ValidationException
// (listing its members' constraint violations together, "2 validation
// errors detected: ..."), and only a valid one a
// ResourceNotFoundException. DynamoDB Local looks the table up first.
//
// # Supported
//
// Tables with a partition key and optional sort key (S, N or B), global
// and local secondary indexes with ALL, KEYS_ONLY and INCLUDE projections
// (sparse: items without the index keys are not indexed), the full
// expression grammar (conditions, filters, key conditions, updates and
// projections with #name and :value placeholders), ReturnValues and
// ReturnValuesOnConditionCheckFailure, Query and Scan (with segments)
// paging with Limit, the 1 MB page and LastEvaluatedKey, BatchGetItem,
// BatchWriteItem, TransactWriteItems (all-or-nothing, with
// ClientRequestToken idempotency for 10 minutes) and TransactGetItems,
// UpdateTable (streams, billing mode, throughput, and a global secondary
// index created, built at once from the table's items and ACTIVE when
// the call returns, or deleted), DescribeLimits and DynamoDB's default
// throughput quotas (40,000 read and 40,000 write units per table and per
// global secondary index, 80,000 of each for all tables and their global
// indexes together; on-demand tables count nothing; over a quota
// CreateTable and UpdateTable fail with DynamoDB Local's
// ValidationException), PartiQL (see PartiQL below), DynamoDB Streams
// (see Streams below) and tags (CreateTable's Tags, TagResource,
// UntagResource and ListTagsOfResource, up to 50 per table, by table ARN
// in any region and account; DynamoDB Local has no tagging).
// The legacy parameters (Expected, AttributesToGet, KeyConditions,
// QueryFilter, ScanFilter, AttributeUpdates, ConditionalOperator) are
// accepted as DynamoDB accepts them: validated with DynamoDB's messages,
// then translated into the equivalent expressions; a request mixing them
// with expression parameters is a ValidationException. ConsumedCapacity
// is reported when asked for, with DynamoDB's on-demand arithmetic (4 KB
// reads, half for eventually consistent ones; 1 KB writes; index writes,
// transactional ones included, and LSI fetches from the table included,
// per index with INDEXES, where the table's part is listed even at 0
// units for a read of an index alone; transactions count every read and
// write twice), but capacity is never enforced: there is no throttling unless
// injected (see [Fault]).
//
// # Semantics and limits
//
// Numbers are exact decimals of up to 38 digits, stored and returned in
// DynamoDB's canonical form ("1.50" reads back as "1.5"). Sort keys order
// S and B byte-wise and N numerically. Items are limited to 400 KB
// computed as DynamoDB does (attribute names plus values; on a table with
// local secondary indexes, the item plus its entries in them); batches to 25
// writes and 100 reads; transactions to 100 actions on distinct items.
// Attribute names are under 64 KB, values nest at most 32 levels (31
// lists or maps), a condition or filter uses at most 300 operators and
// functions, and number text has no surrounding whitespace. A read of a
// local secondary index that returns attributes the index does not
// project (Select ALL_ATTRIBUTES, or a projection naming them), or a
// Scan of it whose filter names them, fetches the items from the table;
// a Query of a secondary index whose filter names attributes the index
// does not project is a ValidationException, as in DynamoDB; a Scan of
// a global secondary index filters what the index holds, so attributes
// it does not project are missing.
// Scan order is DynamoDB's own: partitions in the order of an MD5 digest
// of their key, and a parallel scan's Segment s of TotalSegments t holds
// the partitions whose digest's first 12 bits b have b×t/4096 = s. Items
// that share the key of an index come in the order of the same digest
// of their table key. AWS does not document these orders: they are what
// AWS returns, as recorded by the tests of dynalite (an independent
// emulator), and the engine's tests check them against those records.
// DynamoDB Local orders otherwise, so code should still not depend on
// them; a test that does sees what it would see on AWS.
//
// # Copies
//
// Items written are copied, so a caller may change what it passed in.
// Every item read is the caller's own map: adding, removing or replacing
// its attributes never reaches the table, and binary, set, list and map
// values are deep copies. To make repeated reads cheap, the first full
// read of a stored item builds a template that later reads clone (a map
// clone instead of a rebuild; the template stays with the stored item,
// about 0.5 KB for an item of up to eight attributes), and the scalar
// members (S, N, BOOL, NULL) of those results are the template's, shared
// between them.
// The engine keeps its own copy of every stored item, so a caller that
// writes into a member in place (v.(*types.AttributeValueMemberS).Value
// = ...) changes neither the table nor later reads, which notice the
// write and rebuild; it does change the other results already holding
// that member, and it races with reads of the same item in other
// goroutines. Replace members (item["name"] =
// &types.AttributeValueMemberS{...}) rather than writing into them.
//
// # Time to live
//
// UpdateTimeToLive records the TTL attribute and DescribeTimeToLive
// reports it. As in DynamoDB, expired
// items are not hidden from reads: they stay readable until they are
// deleted. The engine deletes them only when [DB.SweepExpired] is called
// (tests call it to simulate DynamoDB's background deletion); an item is
// expired when its TTL attribute is a number of epoch seconds smaller
// than the sweep's time. Options.Now supplies the clock for
// [DB.SweepExpiredNow].
//
// # Streams
//
// A table created (CreateTable) or changed (UpdateTable) with a
// StreamSpecification has a DynamoDB stream of that view type (KEYS_ONLY,
// NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES); DescribeTable reports its
// StreamSpecification, LatestStreamArn and LatestStreamLabel. [DB.Streams]
// serves the Streams API in process (ListStreams, DescribeStream,
// GetShardIterator, GetRecords) with the signatures of
// *dynamodbstreams.Client, so code written against an interface of that
// client runs on either; the endpoint serves the same API on its port,
// as DynamoDB Local does, for the SDK's own client
// ([NewStreamsEndpointClient], [Server.StreamsClient]).
//
// Every write that changes an item appends one record, as DynamoDB
// writes them: INSERT, MODIFY or REMOVE, the keys and the images of the
// view type, SizeBytes (the keys and images, in DynamoDB's item-size
// arithmetic), increasing SequenceNumbers of 21 digits,
// ApproximateCreationDateTime on Options.Now rounded down to the second,
// eventSource aws:dynamodb, eventVersion 1.1, awsRegion Options.Region
// (default ddblocal).
// Batches and transactions append one record per item they change; a
// write that changes nothing (a failed condition, a cancelled
// transaction, a delete of a missing item, or a put or update that
// leaves the item as it was, which AWS documents as writing no record)
// appends none. Items deleted by [DB.SweepExpired] carry the userIdentity
// {Type: "Service", PrincipalId: "dynamodb.amazonaws.com"}. The records
// of an item keep its order: they all go to the open shard that owns the
// hash of its partition key, then to that shard's children.
//
// Shards roll over as DynamoDB's do: an open shard closes (its
// SequenceNumberRange gets an EndingSequenceNumber) after
// StreamOptions.ShardRecords records (default 10,000) or
// StreamOptions.ShardAge (default 4 hours) on Options.Now, and a child
// with ParentShardId the closed shard takes its place; tests force it
// with [DB.RolloverStream], which can also split a shard in two.
// StreamOptions.Shards (default 1, as DynamoDB Local has) opens several
// shards at once. Records are trimmed after StreamOptions.Retention
// (default 24 hours) on Options.Now, and beyond StreamOptions.MaxRecords
// per stream (default 100,000), a bound of the engine's so that an
// unread stream does not hold old images forever; a GetRecords or
// GetShardIterator at a trimmed position returns a
// *types.TrimmedDataAccessException (of package dynamodbstreams/types),
// and an iterator is an *types.ExpiredIteratorException 15 minutes after
// it was issued. GetRecords on a closed shard returns no
// NextShardIterator once it has returned the shard's last record.
// Disabling a stream, or deleting its table, closes its shards; its
// records stay readable until they expire. A stream keeps the images it
// shows encoded without pointers, in chunks that go as its records are
// trimmed, so that the garbage collector does not scan them: a write
// encodes the item it stores once (short values are copied; strings and
// binaries of 64 bytes or more are shared with the stored item, which is
// immutable), and the write that later replaces or deletes the item takes
// its old image from that encoding. A write does not build its record
// itself: it queues the item's stored versions before and after (stored
// items are immutable), and a goroutine started once a batch of 256 is
// queued builds the records, as DynamoDB builds its records after the
// write; every Streams call first applies what is queued, so it sees each
// write acknowledged before it began, and a writer that finds 2,048
// writes queued applies them itself, which bounds the queue.
// [Streams.StreamWrites] and [Streams.NextWrite] let an in-process reader
// wait for a table's next write instead of polling (package feed does).
// A table
// without a stream pays nothing (BenchmarkEngine/PutItemStream in
// internal/bench measures PutItem with a NEW_AND_OLD_IMAGES stream).
//
// # Paging
//
// Query and Scan pages end when Limit items have been read (before the
// filter) or when the items read reach 1 MB (the item that reaches it is
// included). The 1 MB counts each item's stored size, as DynamoDB does,
// not its item size: its attribute names count one byte each, its values
// some bytes more (a string's length, for one), and the item some bytes
// for each 3 KB (AWS does not document it; the engine counts as the
// formula dynalite fitted to AWS's answers, internal/itemsize.Stored); an
// index entry that does not hold the whole item counts its size.
// LastEvaluatedKey holds the table key, plus the index key when
// reading an index, and is returned whenever a page ends that way, even
// if nothing follows, except, as DynamoDB Local does, when a Query page
// ends exactly on an inclusive sort-key bound (<=, >=, BETWEEN) or reads
// a table without a sort key (whose partition holds one item).
//
// # PartiQL
//
// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction take
// DynamoDB's PartiQL: SELECT (of a table or "table"."index", with a
// projection of document paths, WHERE, ORDER BY the key attributes,
// Limit and NextToken), INSERT INTO ... VALUE {...}, UPDATE ... SET ...
// REMOVE ... WHERE ... [RETURNING ...], DELETE FROM ... WHERE ...
// [RETURNING ALL OLD *] and, in a transaction, EXISTS(SELECT ...), with
// ? parameters, 'strings', numbers, <<sets>>, [lists], {'maps'}, TRUE,
// FALSE and NULL. A statement runs as the operation that does the same,
// so it has the same semantics, limits and capacity: a SELECT with an
// equality (or an IN) on the partition key of what it reads is a Query,
// with one condition on the sort key as its key condition and the rest
// of the WHERE, key attributes included, as its filter (a partition of
// an IN at a time, in the IN's order); any other SELECT is a Scan. An
// INSERT is a PutItem that fails with DuplicateItemException when the
// item exists; UPDATE and DELETE take the item's key from the WHERE's
// equalities, the rest of the WHERE being their condition, and UPDATE
// needs the item to exist; set_add and set_delete are ADD and DELETE. A
// nested path in a SELECT's projection comes back named by its last name
// ("a.c[1]" as "c[1]"), as DynamoDB Local answers. A batch is all reads
// of single items or all writes, each answered on its own; a transaction
// all reads (TransactGetItems) or all writes and EXISTS checks
// (TransactWriteItems, with ClientRequestToken). Messages are DynamoDB
// Local's; LastEvaluatedKey and ConsumedCapacity, which Local leaves
// out, are returned as AWS documents them.
//
// # Differences from DynamoDB
//
// Error messages are those of DynamoDB Local, the oracle of the
// conformance suite (internal/conformance), except where Local has
// wordings of its own; where Local's behaviour departs from DynamoDB's
// documentation, the engine follows the documentation (the suite lists
// each case). ItemCollectionMetrics, which Local never returns, is
// DynamoDB's: the item collections a write to a table with a local
// index touched, sized in whole GB ([0, 1] below 1 GB); the 10 GB limit
// of a collection is not enforced (no ItemCollectionSizeLimitExceeded).
// UnprocessedKeys and UnprocessedItems are always empty unless a Fault
// asks for them; tables are ACTIVE at once, unless Options.Lifecycle
// makes them CREATING, UPDATING and DELETING for a while as DynamoDB
// does (their descriptions carry a TableId either way). A partition is a
// list of sorted chunks of up to 512 items: an insertion into the middle
// of a partition moves at most one chunk.
//
// # Concurrency
//
// A DB is safe for concurrent use. Each single-item operation is atomic;
// a transaction locks every table it touches and is isolated from
// concurrent writes; a Query or Scan page is a consistent snapshot of its
// table. ConsistentRead is accepted and has no effect (every read is
// strongly consistent).
//
// # HTTP endpoint
//
// [Serve] serves a DB over DynamoDB's HTTP protocol (JSON 1.0, the
// X-Amz-Target header naming the operation) on a TCP address, by default
// a free loopback port; it starts in well under a millisecond. Code that
// holds a concrete *dynamodb.Client, libraries such as guregu/dynamo, the
// AWS CLI and the SDKs of other languages use the engine through it:
//
//	srv, err := ddbmem.Serve(ddbmem.New(), "")
//	defer srv.Close()
//	client := srv.Client() // a *dynamodb.Client for srv.URL()
//
// The command cmd/ddbmem (go run ./cmd/ddbmem -port 8000) serves an
// engine for other processes, and [DB.Handler] mounts one in an HTTP
// server of one's own. Every operation the engine implements is served;
// other operations get an UnknownOperationException. Responses carry the
// headers the SDKs read: x-amzn-RequestId, x-amz-crc32 (the CRC32 of the
// body) and the Content-Type of the request (application/x-amz-json-1.0
// or application/json). Errors have DynamoDB's shapes: __type
// "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException" and
// the like, with the error's members (message, Item, CancellationReasons,
// Message for TransactionCanceledException); validation errors are
// "com.amazon.coral.validate#ValidationException"; malformed JSON and
// values of the wrong JSON type are a
// "com.amazon.coral.service#SerializationException". Requests must carry
// a complete AWS signature version 4, in the Authorization header or the
// query string (else a MissingAuthenticationTokenException or an
// IncompleteSignatureException, as from DynamoDB), which is not verified:
// any credentials and region work. Bodies over 16 MB get DynamoDB's 413:
// an empty chunked body whose only headers are x-amzn-RequestId and Date.
//
// The endpoint is built for speed on loopback. [Serve] answers the
// requests DynamoDB clients send (a POST with a Content-Length body) in
// a lean HTTP/1.1 loop, and hands a connection to net/http at the first
// request it does not take up (see [Server]). Full-item reads (GetItem,
// Query and Scan without a projection) are written from a per-record
// cache of the item's JSON, filled by the first such read of each item
// version: an item read over the endpoint costs about its size again in
// memory. [NewEndpointClient] builds an SDK client without the parts of
// the SDK's pipeline that only matter against AWS, with a lean transport
// for http:// URLs; [Server.Client] uses it. [Server.Client] and
// [Server.StreamsClient] reach their server in process, on connections
// of memory that carry the same HTTP to the same loop without system
// calls (see [Server]); clients of [Server.URL] use TCP. The SDK's own
// client, on net/http's transport, can fail a request now and then with
// "use of closed network connection" against a server that answers this
// fast (aws-sdk-go-v2#2737); the clients this package builds do not
// (README.md says what to do with the SDK's own client).
//
// # Faults
//
// Options.Faults and [DB.SetFault] inject, per operation name ("PutItem",
// "Query", ... or "*" for all), a throttling error rate, added latency and
// forced errors, so users can test their retry paths. Throttled calls fail
// with a *types.ProvisionedThroughputExceededException unless
// Fault.ThrottleErr says otherwise (for example a *types.ThrottlingException).
// Faults apply before the request is validated or applied, so a failed
// call changes nothing. Fault.Unprocessed makes BatchWriteItem and
// BatchGetItem leave part of each request unprocessed, returned in
// UnprocessedItems or UnprocessedKeys as DynamoDB does under load, so batch
// retry loops run on the engine as they do against the service.
package ddbmem

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Options configures a DB. The zero value is valid.
type Options struct {
	// Now is the clock used for ClientRequestToken expiry, table creation
	// times, SweepExpiredNow and streams (record times, shard age,
	// retention). Default: time.Now; stream records then take the wall
	// time at New plus the monotonic time elapsed since, which costs one
	// clock read per record and is not moved by a step of the system
	// clock.
	Now func() time.Time
	// Faults injects faults per operation name ("PutItem", "Query", ...,
	// or "*" for every operation). Default: none. Change them at run
	// time with SetFault.
	Faults map[string]Fault
	// Seed seeds the random source of injected throttling, for
	// reproducible tests. Default 0 (a fixed seed).
	Seed uint64
	// Stream configures the tables' DynamoDB Streams (shards, rollover,
	// retention); see [StreamOptions] for the defaults.
	Stream StreamOptions
	// Lifecycle makes tables CREATING, UPDATING and DELETING for a
	// while, as on DynamoDB; see [Lifecycle]. Default: every change is
	// immediate.
	Lifecycle Lifecycle
	// Region is the region of the ARNs of tables, indexes and streams
	// and of stream records' awsRegion, for code that reads them as it
	// would on AWS. Default "ddblocal", as DynamoDB Local names it.
	Region string
}

// DB is an in-memory DynamoDB. It is safe for concurrent use. The zero
// value is not usable; call New.
type DB struct {
	now func() time.Time
	// nanos is now in Unix nanoseconds; with the default clock it reads
	// only the monotonic clock (one clock read where time.Now takes two),
	// as every write to a table with a stream asks for it.
	nanos func() int64

	mu     sync.RWMutex
	tables map[string]*table

	cache exprCache

	txMu   sync.Mutex
	tokens map[string]txToken

	faultMu   sync.Mutex
	faults    map[string]Fault
	hasFaults atomic.Bool
	rng       *rand.Rand

	streams streamSet // DynamoDB Streams: stream.go
	quota   quota     // the tables' provisioned throughput: quota.go

	life    Lifecycle     // lifecycle.go
	region  string        // Options.Region
	created atomic.Uint64 // tables created, for their TableId
}

// CopiesInput marks db as an entity.InputCopier: it keeps nothing of a
// request's input once the call has returned (it stores copies), so the
// runtime may reuse the maps it sends.
func (db *DB) CopiesInput() {}

// New returns an empty engine configured by optFns.
func New(optFns ...func(*Options)) *DB {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	db := &DB{
		now:    o.Now,
		tables: map[string]*table{},
		tokens: map[string]txToken{},
		faults: map[string]Fault{},
		rng:    rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)),
		life:   o.Lifecycle,
		region: o.Region,
	}
	if db.region == "" {
		db.region = defaultRegion
	}
	db.nanos = func() int64 { return db.now().UnixNano() }
	if db.now == nil {
		db.now = time.Now
		base := time.Now()
		wall := base.UnixNano()
		db.nanos = func() int64 { return wall + int64(time.Since(base)) }
	}
	for op, f := range o.Faults {
		db.faults[op] = f
	}
	db.hasFaults.Store(len(db.faults) > 0)
	db.streams.init(o.Stream)
	return db
}

// table returns the table named name for a read or a write: a table
// CREATING or DELETING (Options.Lifecycle) is not found, as on DynamoDB.
func (db *DB) table(name *string) (*table, error) {
	t, err := db.anyTable(name)
	if err == nil && t.nanos != nil && !t.serving() {
		return nil, notFound()
	}
	return t, err
}

// anyTable returns the table named name in whatever state it is, for the
// operations on the table itself (describe, delete, update).
func (db *DB) anyTable(name *string) (*table, error) {
	if name == nil || *name == "" {
		return nil, validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}
	t := db.lookup(*name)
	if t == nil {
		if err := checkTableName(*name); err != nil {
			return nil, err
		}
		return nil, notFound()
	}
	return t, nil
}

// begin applies injected faults for op and checks ctx.
func (db *DB) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !db.hasFaults.Load() {
		return nil
	}
	return db.injectFault(ctx, op)
}

// ListTables lists table names in order, paged by Limit (default 100) and
// ExclusiveStartTableName.
func (db *DB) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	if err := db.begin(ctx, "ListTables"); err != nil {
		return nil, err
	}
	if in == nil {
		in = &dynamodb.ListTablesInput{}
	}
	if err := listTablesConstraints(in); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	db.mu.RLock()
	names := make([]string, 0, len(db.tables))
	for n := range db.tables {
		names = append(names, n)
	}
	db.mu.RUnlock()
	if db.life.enabled() {
		names = slices.DeleteFunc(names, func(n string) bool { return db.lookup(n) == nil })
	}
	sort.Strings(names)
	if in.ExclusiveStartTableName != nil {
		i := sort.SearchStrings(names, *in.ExclusiveStartTableName)
		if i < len(names) && names[i] == *in.ExclusiveStartTableName {
			i++
		}
		names = names[i:]
	}
	out := &dynamodb.ListTablesOutput{}
	if len(names) > limit {
		names = names[:limit]
		last := names[limit-1]
		out.LastEvaluatedTableName = &last
	}
	out.TableNames = names
	return out, nil
}
