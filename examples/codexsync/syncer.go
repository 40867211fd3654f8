package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/feed"
)

// Syncer is seed 001's Codex Syncer: on every Post change it keeps, in
// the same table,
//
//   - the post count of each category: PK CATEGORY#<id>, SK STATS,
//     attribute postCount;
//   - the latest posts: PK POSTS#LATEST, SK METADATA, attribute posts (the
//     Latest newest posts by CreatedAt, each id, categoryId, title,
//     CreatedAt), with a version.
//
// Each record's effect happens once, even when the feed delivers it twice
// (at-least-once: a retry, a takeover): it is applied in one transaction
// with a marker item SYNC#<eventID> / MARK put on the condition that it
// does not exist yet. A delivery whose marker exists changes nothing.
// Markers carry an expiresAt (the table's TTL attribute, if enabled) one
// day after the record's retention ends.
type Syncer struct {
	C      entity.Client
	Table  string
	Latest int // default 10
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": s(pk), "SK": s(sk)}
}

// Handle is the feed handler: it applies every Post change of the batch
// in order and ignores other types (its own items among them).
func (y *Syncer) Handle(ctx context.Context, b feed.Batch) error {
	for i := range b.Records {
		r := &b.Records[i]
		if r.DecodeErr != nil {
			return r.DecodeErr // bisected, then dead-lettered
		}
		ch, ok := feed.As[codex.Post](r)
		if !ok {
			continue
		}
		if _, err := y.Apply(ctx, r, ch); err != nil {
			return err
		}
	}
	return nil
}

// Apply applies one Post change exactly once; applied is false when the
// record had been applied before.
func (y *Syncer) Apply(ctx context.Context, r *feed.Record, ch feed.Change[codex.Post]) (applied bool, err error) {
	post := ch.New
	delta := int64(0)
	switch r.Event {
	case feed.Insert:
		delta = 1
	case feed.Remove:
		delta, post = -1, ch.Old
	}
	if post == nil {
		return false, fmt.Errorf("codexsync: %s record %s without the post's image (the stream must be NEW_AND_OLD_IMAGES)", r.Event, r.EventID)
	}
	latest := y.Latest
	if latest <= 0 {
		latest = 10
	}
	for attempt := 0; ; attempt++ {
		cur, ver, err := y.latest(ctx)
		if err != nil {
			return false, err
		}
		next := merge(cur, post, r.Event == feed.Remove, latest)
		if len(next) < len(cur) { // a listed post was deleted: refill from the index
			if next, err = y.refill(ctx, post.ID, latest); err != nil {
				return false, err
			}
		}
		items := []types.TransactWriteItem{{Put: &types.Put{
			TableName: aws.String(y.Table),
			Item: map[string]types.AttributeValue{"PK": s("SYNC#" + r.EventID), "SK": s("MARK"), "Type": s("SyncMark"),
				"expiresAt": n(r.CreatedAt.Add(48 * time.Hour).Unix())},
			ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}}}
		if delta != 0 {
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(y.Table), Key: key("CATEGORY#"+post.CategoryID, "STATS"),
				UpdateExpression:          aws.String("SET #t = :t ADD postCount :d"),
				ExpressionAttributeNames:  map[string]string{"#t": "Type"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("CategoryStats"), ":d": n(delta)},
			}})
		}
		if !sameList(cur, next) {
			item := key("POSTS#LATEST", "METADATA")
			item["Type"], item["version"], item["posts"] = s("LatestPosts"), n(ver+1), encodeList(next)
			put := &types.Put{TableName: aws.String(y.Table), Item: item,
				ConditionExpression:       aws.String("attribute_not_exists(PK) OR version = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": n(ver)}}
			if ver == 0 {
				put.ConditionExpression, put.ExpressionAttributeValues = aws.String("attribute_not_exists(PK)"), nil
			}
			items = append(items, types.TransactWriteItem{Put: put})
		}
		_, err = y.C.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		var tce *types.TransactionCanceledException
		if errors.As(err, &tce) && len(tce.CancellationReasons) > 0 {
			if aws.ToString(tce.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
				return false, nil // applied before: a duplicate delivery
			}
			if attempt < 20 {
				continue // the latest list moved (or a conflict): read it again
			}
		}
		if err != nil {
			return false, fmt.Errorf("codexsync: apply %s: %w", r.EventID, err)
		}
		return true, nil
	}
}

// refill reads the newest posts from the GSI Type_CreatedAt, leaving out
// the deleted post (the index is eventually consistent on DynamoDB).
func (y *Syncer) refill(ctx context.Context, deleted string, limit int) ([]entry, error) {
	out, err := y.C.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(y.Table), IndexName: aws.String(codex.TypeCreatedAt),
		KeyConditionExpression:    aws.String("#t = :t"),
		ExpressionAttributeNames:  map[string]string{"#t": "Type"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": s((*codex.Post)(nil).EntitySchema().Type)},
		ScanIndexForward:          aws.Bool(false), Limit: aws.Int32(int32(limit + 1)),
	})
	if err != nil {
		return nil, err
	}
	var list []entry
	for _, it := range out.Items {
		var p codex.Post
		if err := p.UnmarshalItem(it); err != nil || p.ID == deleted {
			continue
		}
		list = merge(list, &p, false, limit)
	}
	return list, nil
}

// entry is one post of the latest list.
type entry struct{ ID, CategoryID, Title, CreatedAt string }

func (y *Syncer) latest(ctx context.Context) ([]entry, int64, error) {
	out, err := y.C.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(y.Table), Key: key("POSTS#LATEST", "METADATA"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, 0, err
	}
	var ver int64
	if v, ok := out.Item["version"].(*types.AttributeValueMemberN); ok {
		ver, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	var list []entry
	if l, ok := out.Item["posts"].(*types.AttributeValueMemberL); ok {
		for _, e := range l.Value {
			m, _ := e.(*types.AttributeValueMemberM)
			if m == nil {
				continue
			}
			str := func(k string) string {
				v, _ := m.Value[k].(*types.AttributeValueMemberS)
				return aws.ToString(strPtr(v))
			}
			list = append(list, entry{str("id"), str("categoryId"), str("title"), str("CreatedAt")})
		}
	}
	return list, ver, nil
}

func strPtr(v *types.AttributeValueMemberS) *string {
	if v == nil {
		return nil
	}
	return &v.Value
}

// merge returns the list with post removed or put in place, newest
// first (CreatedAt, then ID), at most limit long.
func merge(cur []entry, p *codex.Post, remove bool, limit int) []entry {
	var out []entry
	for _, e := range cur {
		if e.ID != p.ID {
			out = append(out, e)
		}
	}
	if !remove {
		out = append(out, entry{p.ID, p.CategoryID, p.Title, p.CreatedAt.UTC().Format(entity.TimeFormat)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt > out[j].CreatedAt
		}
		return out[i].ID > out[j].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func sameList(a, b []entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func encodeList(l []entry) types.AttributeValue {
	out := make([]types.AttributeValue, len(l))
	for i, e := range l {
		out[i] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"id": s(e.ID), "categoryId": s(e.CategoryID), "title": s(e.Title), "CreatedAt": s(e.CreatedAt)}}
	}
	return &types.AttributeValueMemberL{Value: out}
}
