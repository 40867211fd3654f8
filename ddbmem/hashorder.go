package ddbmem

import (
	"crypto/md5"
	"encoding/binary"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// DynamoDB's own order of partitions, which a Scan follows and a
// parallel scan's segments split: a partition key's place is the MD5
// digest of the text "Outliers" followed by the key value's stored bytes
// (a string's UTF-8, a binary's bytes, a number in DynamoDB's base-100
// form, ddbexpr.Number.AppendStored). AWS does not document it; it is
// what DynamoDB returns, as the tests of dynalite (an independent
// emulator) record it, and it holds for every order and segment those
// tests check. Items of an index that share its key are in the same
// kind of order, of the digest of their table key's bytes (partition
// key, then sort key). DynamoDB Local orders neither way.

// hashSalt is what DynamoDB's partitioner hashes before a key's bytes.
const hashSalt = "Outliers"

// segmentBuckets is how finely a parallel scan splits the hash space:
// Segment s of TotalSegments t holds the partitions whose hash's first
// 12 bits b have b*t/4096 = s, so that with 4096 segments each holds one
// bucket.
const segmentBuckets = 4096

// digest returns the first eight bytes of MD5(salted), big-endian.
func digest(salted []byte) uint64 {
	sum := md5.Sum(salted)
	return binary.BigEndian.Uint64(sum[:8])
}

// partitionHash returns the place of a partition in scan order from its
// encoded key (keyEnc) and the key's type.
func partitionHash(enc string, typ types.ScalarAttributeType) uint64 {
	var buf [64]byte
	b := append(buf[:0], hashSalt...)
	if typ == types.ScalarAttributeTypeN {
		if n, ok := ddbexpr.KeyNumber(enc); ok {
			return digest(n.AppendStored(b))
		}
	}
	return digest(append(b, enc...))
}

// appendStored appends the bytes DynamoDB hashes for a key value.
func appendStored(b []byte, v types.AttributeValue) []byte {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return append(b, x.Value...)
	case *types.AttributeValueMemberB:
		return append(b, x.Value...)
	case *types.AttributeValueMemberN:
		if n, err := ddbexpr.ParseNumber(x.Value); err == nil {
			return n.AppendStored(b)
		}
		return append(b, x.Value...)
	}
	return b
}

// tableKeyHash returns the place, among index entries that share their
// index key, of the entry of the item it of a table keyed by pk and sk.
func tableKeyHash(it item, pk, sk keyAttr) uint64 {
	var buf [128]byte
	b := appendStored(append(buf[:0], hashSalt...), it[pk.name])
	if sk.name != "" {
		b = appendStored(b, it[sk.name])
	}
	return digest(b)
}

// segmentOf returns the segment of total that holds a partition at h.
func segmentOf(h uint64, total int) int {
	return int(h >> 52 * uint64(total) / segmentBuckets)
}
