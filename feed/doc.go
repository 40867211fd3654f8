// Package feed consumes one table's DynamoDB stream, in one process or
// many: it discovers the stream's shards, owns each under a fenced lease
// (package lease, one lease per shard in the lease group Options.Group),
// reads it from its checkpoint, hands its records in batches to a
// [Handler] and checkpoints each batch after the handler succeeded.
//
//	c, _ := feed.New(streamsClient, "FMWebAppTable", handle, func(o *feed.Options) {
//		o.Leases = leases // lease.New(dynamoClient, ...) on a table other than the one consumed
//		o.Decoders = []feed.Decoder{feed.Entity[codex.Post]()}
//	})
//	err := c.Run(ctx) // until ctx ends, then drains
//
// The streams client is a *dynamodbstreams.Client (DynamoDB, DynamoDB
// Local) or the embedded engine's (ddbmem.DB.Streams). Keep the leases in
// another table than the one consumed: each checkpoint is a write, and in
// the consumed table it would itself be a record.
//
// # Shards
//
// Every Options.DiscoverInterval (and at once when one of its shards
// ends) a consumer lists the shards and the group's leases and takes its
// fair share of the eligible shards (those not finished whose parent is
// finished or gone): their count divided by the live owners, rounded up.
// A shard read to its end (GetRecords gives no next iterator and the
// shard has an ending sequence number) finishes its lease (lease.Done),
// and the consumer lists again at once, so its children start without
// waiting for the next round: no worker idles after SHARD_END. An owner
// that dies stops renewing; another consumer takes the lease over about
// one lease duration later (lease.SkewSafe) and goes on from the last
// checkpoint. A GetRecords on an expired iterator gets a new one from the
// checkpoint; records trimmed unread restart the shard at TRIM_HORIZON
// (ShardMetrics.Trimmed counts it).
//
// # Delivery
//
// At least once, in order per item: the records of a shard are handed
// over in shard order, one batch at a time, and a batch is checkpointed
// only after its handler returned nil, so a consumer that dies before the
// checkpoint leaves the batch to the next owner, which hands it over
// again: duplicates appear after a takeover (Batch.Fence then is higher)
// and after a failed attempt, never otherwise. A handler that must have
// an effect once per record makes it idempotent, for instance with a
// marker per Record.EventID written in the same transaction (see the
// Codex Syncer, examples/codexsync).
//
// A failed batch is retried (Options.Attempts, paced by Options.Retry),
// then split in two halves handled in order, down to single records; a
// single record that keeps failing goes to Options.DeadLetter (the poison
// record hook), and the shard goes on. A DeadLetter that returns an error
// holds the shard on that record until it succeeds (for handlers that
// must never skip a record, such as a cache invalidator).
//
// # Records
//
// A [Record] carries the event, the keys and the images converted to the
// dynamodb package's attribute values, the sequence number, the creation
// time and whether DynamoDB's TTL deleted the item. Records of a Type
// registered with [Entity] are decoded into a [Change] (old and new
// images as typed values; read it with [As]); other records are handed
// over raw.
//
// # Drain and metrics
//
// When the ctx of Run ends, each worker finishes the batch in hand (with
// a live ctx for Options.Drain), checkpoints it and releases its lease,
// so that another consumer goes on at once with no duplicate. Metrics
// returns, per shard: ownership, whether it ended, the checkpoint,
// handled, retried and dead-lettered records, the lag in records (read
// and not yet checkpointed) and in time (the age of the first record of
// the last read), takeovers and trims.
//
// # Keeping caches right
//
// A handler that calls cachestore.Invalidator.Invalidate with each
// record's keys and images keeps the cached stores of the table right for
// writes that bypass them (see package cachestore, "Writes that bypass
// the cache"). This package imports neither cache nor cachestore.
package feed
