// Package conformance keeps the embedded DynamoDB engine (package ddbmem)
// honest: its tests run the same operations against DynamoDB Local and the
// engine and compare every result with go-cmp.
//
// The package has no non-test code. Its tests are:
//
//   - TestConformance: table-driven cases by area (tables, items,
//     conditions, updates, query, scan, indexes, batch, transactions,
//     PartiQL statements, batches and transactions, and the fidelity
//     edges of cases_fidelity_test.go: capacity on tables with indexes,
//     unprojected attributes, request limits, transactions mixing
//     errors). Each case creates its own uniquely named tables on both
//     targets, runs its steps, compares each output (normalized: metadata,
//     ARNs and times dropped, capacity only where a step asks; attribute
//     values as plain trees) or error (kind, code, message, cancellation
//     reasons, returned item), then compares the full table contents, and
//     deletes its tables. Messages that only DynamoDB Local words its own
//     way (localOnlyMessages) are not compared.
//   - TestDifferential and FuzzDifferential: random operation sequences
//     generated from a seed, compared response by response and by final
//     table contents. TestDifferential runs 20 sequences of 30 operations
//     (CONFORMANCE_SEQUENCES overrides the count); go test -fuzz
//     FuzzDifferential explores more. Now and then a sequence creates a
//     global index on the table as it stands (then waits for DynamoDB
//     Local to build it), queries it, or deletes it.
//   - TestDifferentialFilters, TestDifferentialMalformedFilters,
//     TestDifferentialUpdates, TestDifferentialMalformedUpdates and
//     TestDifferentialQueries: random expressions from fixed seeds, sent
//     to the engine in process and to DynamoDB Local: 1,500 filters
//     (items kept, or the error's code and text), 1,500 mostly invalid
//     filters and 1,500 mostly invalid updates (the whole error message,
//     so which of several errors is named), 1,500 updates (old and new
//     item, or that both fail) and 300 key conditions per sort key type
//     (every page). TABLEKIT_DIFF_SEED=N runs them from seed N instead,
//     to look beyond the fixed seeds.
//   - TestDifferentialLegacyFilters, TestDifferentialLegacyExpected,
//     TestDifferentialLegacyUpdates and TestDifferentialLegacyQueries: the
//     same for the legacy parameters, from fixed seeds too: 1,500
//     ScanFilters and 1,500 Expected maps (every comparison operator,
//     value lists of every length and type, ConditionalOperator), 1,500
//     AttributeUpdates maps and 600 Queries by KeyConditions (with
//     QueryFilter, AttributesToGet, Select, Limit), comparing the whole
//     answer or error. When both fail a request of several conditions,
//     only the codes are compared: each names its first invalid one, and
//     the SDK sends a map's members in a random order.
//   - TestDifferentialCreateTable: 600 random CreateTable requests (key
//     schemas of every shape, attribute definitions missing, unused or
//     doubled, local and global indexes with every projection, billing
//     modes with and without throughput): whether each side creates the
//     table, and what it describes when both do. Of an error, only the
//     code: DynamoDB Local words most CreateTable errors its own way.
//   - TestDifferentialTransactions: 600 random TransactWriteItems of one
//     to four actions on four keys, a quarter of the actions flawed (a
//     key missing an attribute, with one more or of the wrong type, an
//     item without its key, an update of a key attribute or of the wrong
//     type, a malformed expression, an unused or invalid value, a
//     missing table, a failing condition): the error's code and message
//     and each cancellation reason's code, and the table after each.
//   - TestDifferentialReadParameters: 800 random Queries and Scans whose
//     parameters combine in every way, valid or not (Select, projection,
//     AttributesToGet, a global, local or missing index, ConsistentRead,
//     segments, Limit, start keys of every shape, a filter, the order),
//     on a table with a KEYS_ONLY global and an ALL local index: every
//     page (a Scan's joined, its order being the implementation's), or
//     the error.
//   - TestDifferentialBatches: 600 random BatchWriteItem and BatchGetItem
//     requests (up to 27 writes or 102 keys, some twice, some flawed,
//     sometimes a missing table, projections and AttributesToGet): the
//     error, or the items read and how many come back unprocessed, and
//     the table after each.
//   - TestDifferentialItemParameters: 800 random PutItem, UpdateItem,
//     DeleteItem and GetItem requests, flawed in zero to two ways at once
//     (the key or item, the condition, unused names or values, the
//     update, ReturnValues, a projection): the error with the item a
//     failed condition returns, or the answer, and the table after each.
//   - TestDifferentialCapacity: 1,500 random writes (items of a few bytes
//     to 20 KB entering, leaving, moving in and changing in three global
//     and two local indexes of every projection), reads, batches and
//     TransactGetItems, asking for ConsumedCapacity: the answer's count
//     and the units on the table and each index. The places where DynamoDB Local departs
//     from AWS's documentation are left out, each naming the case that
//     holds the engine to the documentation.
//   - TestDifferentialItemSize: 600 random items of every type, nested
//     up to four levels, padded by the engine's item size to a 1 KB
//     boundary or the 400 KB limit, or a byte past it: the write units or
//     the refusal must agree to the byte.
//   - TestDifferentialNumbers: 1,500 random number texts, valid or not
//     (signs, zeroes, points, exponents, 37 to 40 digits, magnitudes
//     around the limits, malformed texts), as an attribute, in a set and
//     as a sort key: the error, or the canonical number read back.
//   - TestDifferentialArithmetic: 1,000 random additions and subtractions
//     (SET n = n + :v, SET n = :v - n, ADD to a number and to a number set)
//     of numbers of every precision and magnitude: the stored result, by
//     value, or the precision, overflow or underflow error.
//   - TestDifferentialProjections: 1,000 random nested items read through
//     projections of one to three document paths (map keys, list indexes
//     in and past range, overlapping and conflicting paths): the item, or
//     the error (for two overlapping or conflicting paths, its kind only:
//     which pair a message names is not settled).
//   - TestDifferentialPartiQL: 600 random PartiQL statements (SELECTs of
//     the table and its indexes with every kind of condition, projection,
//     ORDER BY and paging; UPDATE, DELETE and INSERT; some invalid on
//     purpose) from seed 97 on a table with a global and a local index:
//     the items or the error, then the tables. PARTIQL.md records what
//     DynamoDB Local answers, the forms on which it crashes (not sent) and
//     where the engine follows DynamoDB instead.
//   - TestStreamConformance: DynamoDB Streams cases, each run on DynamoDB
//     Local, the engine and the engine over HTTP (the SDK's
//     dynamodbstreams client), comparing their logs: the records of every
//     kind of write and view type, batches and transactions, iterators,
//     stream settings, and "records/random writes", 300 random writes
//     from a fixed seed (TABLEKIT_DIFF_SEED overrides it), many of which
//     change nothing, compared record by record for each item.
//     TestStreamDocumented holds the engine to AWS where Local departs.
//   - TestIndexThroughput: a PROVISIONED table's global index throughput,
//     as created and as UpdateTable sets it.
//
// Every case and sequence also runs on a second engine served over HTTP
// (ddbmem.Serve) and called through the SDK's client, whose results must
// be identical to the engine's in process.
//
// DynamoDB Local comes from TABLEKIT_DYNAMODB_ENDPOINT (see
// internal/testenv): without it the tests skip, or fail under CI=true or
// TABLEKIT_REQUIRE_SERVERS=1. Environment knobs: CONFORMANCE_PARALLEL
// (cases in flight, default 6), CONFORMANCE_LOG=1 (log every DynamoDB
// Local result).
//
// Where DynamoDB Local is known to differ from DynamoDB, the case says so
// with its source, and compares only what both agree on, or (docStep)
// holds the engine to the documented result. PEERS.md records a second,
// public oracle: dynalite's own test suite run against dynalite, DynamoDB
// Local and the engine (scripts/peers.sh). Engine
// differences are listed in engineBugs until fixed.
package conformance
