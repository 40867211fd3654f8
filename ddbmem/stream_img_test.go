package ddbmem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"
	"github.com/tablekit/tablekit/internal/ddbexpr"
	"github.com/tablekit/tablekit/internal/itemsize"
)

// randValue returns a random attribute value of any type, long strings
// (which the arena refers to rather than copies) included.
func randValue(r *rand.Rand, depth int) types.AttributeValue {
	str := func() string {
		if r.IntN(3) == 0 {
			return strings.Repeat(string(rune('a'+r.IntN(26))), longValue+r.IntN(200))
		}
		return fmt.Sprint("v", r.IntN(1000))
	}
	k := r.IntN(10)
	if depth > 2 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return &types.AttributeValueMemberS{Value: str()}
	case 1:
		return &types.AttributeValueMemberN{Value: fmt.Sprint(r.IntN(100000))}
	case 2:
		return &types.AttributeValueMemberB{Value: []byte(str())}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: r.IntN(2) == 0}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}
	case 5:
		return &types.AttributeValueMemberSS{Value: []string{str(), str() + "2"}}
	case 6:
		return &types.AttributeValueMemberNS{Value: []string{"1", fmt.Sprint(2 + r.IntN(9))}}
	case 7:
		return &types.AttributeValueMemberBS{Value: [][]byte{[]byte(str()), {1, 2, 3}}}
	case 8:
		l := make([]types.AttributeValue, r.IntN(4))
		for i := range l {
			l[i] = randValue(r, depth+1)
		}
		return &types.AttributeValueMemberL{Value: l}
	default:
		m := map[string]types.AttributeValue{}
		for i := range r.IntN(4) {
			m[fmt.Sprint("k", i)] = randValue(r, depth+1)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
}

// TestImgEncoding encodes random images (whole and keys only) into an
// arena and decodes them back.
func TestImgEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a imgArena
	type enc struct {
		want []attr
		ref  imgRef
	}
	var encs []enc
	for i := range 2000 {
		it := item{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("p", i)}, "sk": &types.AttributeValueMemberN{Value: "7"}}
		for j := range r.IntN(12) {
			it[fmt.Sprint("a", j)] = randValue(r, 0)
		}
		if i%50 == 0 {
			it["big"] = &types.AttributeValueMemberS{Value: strings.Repeat("b", imgChunkSize/3)}
			it["bigs"] = &types.AttributeValueMemberSS{Value: []string{strings.Repeat("c", imgChunkSize/3)}}
		}
		if i%23 == 0 {
			// Short values that fill the stage, or a chunk of their own,
			// among long ones (the stage's first try fails midway).
			for j := range 30 + r.IntN(400) {
				it[fmt.Sprint("w", j)] = &types.AttributeValueMemberS{Value: strings.Repeat("w", longValue-1-j%2)}
				if j%10 == 0 {
					it[fmt.Sprint("l", j)] = &types.AttributeValueMemberB{Value: []byte(strings.Repeat("l", longValue))}
				}
			}
		}
		rec := newRecord(it, ddbexpr.ItemSize(it))
		keysOnly := i%7 == 0
		want := rec.attrs
		if keysOnly {
			want = nil
			for _, at := range rec.attrs {
				if at.name == "pk" || at.name == "sk" {
					want = append(want, at)
				}
			}
		}
		encs = append(encs, enc{want, a.put(rec.attrs, keysOnly, "pk", "sk", uint64(i+1))})
		if i == 999 || i == 1999 {
			for _, e := range encs {
				c := a.copyOut(e.ref, "pk", "sk")
				if diff := cmp.Diff(streamItem(e.want), c.streamItem(false, "", ""), cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
					t.Fatalf("image %v (-want +got):\n%s", e.ref, diff)
				}
				keys := []attr{}
				for _, at := range e.want {
					if at.name == "pk" || at.name == "sk" {
						keys = append(keys, at)
					}
				}
				if diff := cmp.Diff(streamItem(keys), c.streamItem(true, "pk", "sk"), cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
					t.Fatalf("image %v keys (-want +got):\n%s", e.ref, diff)
				}
				if c.size != attrsSize(e.want) || c.keysSize != attrsSize(keys) {
					t.Fatalf("image %v: size %d, keys %d, want %d, %d", e.ref, c.size, c.keysSize, attrsSize(e.want), attrsSize(keys))
				}
			}
		}
	}
	if n := imgLen(nil, false, "pk", ""); n != 1 {
		t.Errorf("imgLen of an empty image = %d, want 1", n)
	}
}

func sameAttrs(a, b []attr) bool {
	if len(a) != len(b) {
		return false
	}
	am := item{}
	for _, at := range a {
		am[at.name] = at.v
	}
	for _, at := range b {
		if v, ok := am[at.name]; !ok || !ddbexpr.Equal(v, at.v) {
			return false
		}
	}
	return true
}

// TestLiveTable checks the live-image table against a map through
// random insertions, removals and sweeps.
func TestLiveTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var lt liveTable
	pool := make([]attr, 3000)
	want := map[*attr]uint32{}
	seq := uint32(0)
	for i := range 200000 {
		k := &pool[r.IntN(len(pool))]
		switch op := r.IntN(10); {
		case op < 5:
			seq++
			lt.set(k, imgRef{n: seq}, uint64(seq)*7)
			want[k] = seq
		case op < 9:
			ref, sum, ok := lt.take(k)
			w, wok := want[k]
			if ok != wok || ok && (ref.n != w || sum != uint64(w)*7) {
				t.Fatalf("op %d: take = %d %v, want %d %v", i, ref.n, ok, w, wok)
			}
			delete(want, k)
		default:
			if r.IntN(100) == 0 {
				cut := seq - uint32(r.IntN(2000))
				lt.keep(func(ref imgRef) bool { return ref.n >= cut })
				for k, s := range want {
					if s < cut {
						delete(want, k)
					}
				}
			}
		}
		if lt.n != len(want) {
			t.Fatalf("op %d: %d entries, want %d", i, lt.n, len(want))
		}
	}
	for k, w := range want {
		if ref, _, ok := lt.take(k); !ok || ref.n != w {
			t.Fatalf("take = %d %v at the end, want %d", ref.n, ok, w)
		}
	}
}

// TestStreamImagesModel runs random writes (puts of every value type,
// puts that change nothing, deletes, rollovers) on tables of each view
// type, with a small MaxRecords and two shards, and checks every record
// held against a model of the writes: kinds, keys, images and sizes. It
// also checks the arena's bookkeeping.
func TestStreamImagesModel(t *testing.T) {
	ctx := context.Background()
	for _, view := range []types.StreamViewType{types.StreamViewTypeNewAndOldImages, types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeKeysOnly} {
		t.Run(string(view), func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			db := New(func(o *Options) { o.Stream.MaxRecords = 64; o.Stream.Shards = 2; o.Stream.ShardRecords = 100 })
			_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName:            aws.String("mdl"),
				BillingMode:          types.BillingModePayPerRequest,
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
				StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view},
			})
			if err != nil {
				t.Fatal(err)
			}
			type event struct {
				kind     st.OperationType
				old, new item
			}
			var events []event
			model := map[string]item{}
			splits := 0
			for step := range 2500 {
				// Mostly a few hot items, whose old images come from the
				// records that wrote them; sometimes one written long
				// ago, whose record was trimmed.
				k := fmt.Sprint("k", r.IntN(12))
				if r.IntN(8) == 0 {
					k = fmt.Sprint("c", r.IntN(100))
				}
				key := item{"pk": &types.AttributeValueMemberS{Value: k}, "sk": &types.AttributeValueMemberS{Value: "s"}}
				switch op := r.IntN(10); {
				case op < 6 || op < 7 && model[k] == nil:
					it := item{"pk": key["pk"], "sk": key["sk"]}
					for j := range r.IntN(8) {
						it[fmt.Sprint("a", j)] = randValue(r, 0)
					}
					if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mdl"), Item: it}); err != nil {
						t.Fatal(err)
					}
					kind := st.OperationTypeModify
					if model[k] == nil {
						kind = st.OperationTypeInsert
					}
					if model[k] == nil || !sameAttrs(newRecord(it, 0).attrs, newRecord(model[k], 0).attrs) {
						events = append(events, event{kind, model[k], it}) // else no change, no record
						model[k] = it
					}
				case op < 7: // the same item again: no record
					if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mdl"), Item: model[k]}); err != nil {
						t.Fatal(err)
					}
				case op < 9:
					if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("mdl"), Key: key}); err != nil {
						t.Fatal(err)
					}
					if model[k] != nil {
						events = append(events, event{st.OperationTypeRemove, model[k], nil})
						delete(model, k)
					}
				default:
					split := r.IntN(4) == 0 && splits < 2
					if split {
						splits++
					}
					if err := db.RolloverStream("mdl", split); err != nil {
						t.Fatal(err)
					}
				}
				if step%250 != 249 {
					continue
				}
				recs := readHeld(t, db, "mdl")
				if len(recs) == 0 || len(recs) > len(events) {
					t.Fatalf("step %d: %d records held for %d events", step, len(recs), len(events))
				}
				for i, rec := range recs {
					ev := events[len(events)-len(recs)+i]
					got := rec.Dynamodb
					if rec.EventName != ev.kind {
						t.Fatalf("step %d record %d: %s, want %s", step, i, rec.EventName, ev.kind)
					}
					src := ev.new
					if src == nil {
						src = ev.old
					}
					keys := item{"pk": src["pk"], "sk": src["sk"]}
					var old, nw item
					switch view {
					case types.StreamViewTypeNewAndOldImages:
						old, nw = ev.old, ev.new
					case types.StreamViewTypeNewImage:
						nw = ev.new
					case types.StreamViewTypeOldImage:
						old = ev.old
					}
					size := itemsize.Of(keys) + itemsize.Of(old) + itemsize.Of(nw)
					for _, c := range []struct {
						name      string
						got, want map[string]st.AttributeValue
					}{{"keys", got.Keys, conv(keys)}, {"old", got.OldImage, conv(old)}, {"new", got.NewImage, conv(nw)}} {
						if diff := cmp.Diff(c.want, c.got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
							t.Fatalf("step %d record %d (%s) %s image (-want +got):\n%s", step, i, ev.kind, c.name, diff)
						}
					}
					if aws.ToInt64(got.SizeBytes) != int64(size) {
						t.Fatalf("step %d record %d: SizeBytes %d, want %d", step, i, aws.ToInt64(got.SizeBytes), size)
					}
				}
				checkArena(t, db, "mdl")
			}
		})
	}
}

// conv converts an item to the values of package dynamodbstreams/types
// (nil for nil).
func conv(it item) map[string]st.AttributeValue {
	if it == nil {
		return nil
	}
	as := make([]attr, 0, len(it))
	for k, v := range it {
		as = append(as, attr{k, v})
	}
	return streamItem(as)
}

// readHeld reads every record the stream of table holds, in sequence
// number order.
func readHeld(t *testing.T, db *DB, table string) []st.Record {
	t.Helper()
	ctx := context.Background()
	api := db.Streams()
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := d.Table.LatestStreamArn
	var recs []st.Record
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: arn}
	for {
		ds, err := api.DescribeStream(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range ds.StreamDescription.Shards {
			it, err := api.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
			if err != nil {
				t.Fatal(err)
			}
			for next := it.ShardIterator; next != nil; {
				out, err := api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next, Limit: aws.Int32(7)})
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, out.Records...)
				if len(out.Records) == 0 {
					break
				}
				next = out.NextShardIterator
			}
		}
		if ds.StreamDescription.LastEvaluatedShardId == nil {
			break
		}
		in.ExclusiveStartShardId = ds.StreamDescription.LastEvaluatedShardId
	}
	sort.Slice(recs, func(i, j int) bool { return *recs[i].Dynamodb.SequenceNumber < *recs[j].Dynamodb.SequenceNumber })
	return recs
}

// checkArena checks the stream's image bookkeeping: each chunk's oldRefs
// counts the records held that take their old image from it, every
// record's images are in chunks held, and the arena holds no more than
// about the records held need.
func checkArena(t *testing.T, db *DB, table string) {
	t.Helper()
	tb, err := db.table(&table)
	if err != nil {
		t.Fatal(err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	s := tb.stream
	s.lockApplied()
	defer s.mu.Unlock()
	refs := make([]int, len(s.imgs.chunks))
	in := func(ref imgRef) bool { return ref.chunk-s.imgs.first < uint32(len(s.imgs.chunks)) }
	for _, sh := range s.shards {
		for i := range sh.recs.len() {
			r := sh.recs.at(i)
			for _, ref := range []imgRef{r.old, r.new} {
				if ref.n != 0 && !in(ref) {
					t.Fatalf("record %d refers to chunk %d, which is gone", r.seq, ref.chunk)
				}
			}
			if r.old.n != 0 {
				refs[r.old.chunk-s.imgs.first]++
			}
		}
	}
	for i, c := range s.imgs.chunks {
		if c.oldRefs != refs[i] {
			t.Fatalf("chunk %d: oldRefs %d, want %d", i, c.oldRefs, refs[i])
		}
	}
	if len(s.imgs.chunks) > 64 {
		t.Fatalf("the arena holds %d chunks for %d records", len(s.imgs.chunks), s.total)
	}
}

// attrsSize is the DynamoDB size of an item given as its attributes.
func attrsSize(as []attr) int {
	n := 0
	for _, a := range as {
		n += len(a.name) + itemsize.Value(a.v)
	}
	return n
}

// streamItem converts an item given as its attributes to the attribute
// values of package dynamodbstreams/types (a deep copy).
func streamItem(as []attr) map[string]st.AttributeValue {
	m := make(map[string]st.AttributeValue, len(as))
	for _, a := range as {
		m[a.name] = streamValue(a.v)
	}
	return m
}

func streamValue(v types.AttributeValue) st.AttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return &st.AttributeValueMemberS{Value: x.Value}
	case *types.AttributeValueMemberN:
		return &st.AttributeValueMemberN{Value: x.Value}
	case *types.AttributeValueMemberB:
		return &st.AttributeValueMemberB{Value: append([]byte{}, x.Value...)}
	case *types.AttributeValueMemberBOOL:
		return &st.AttributeValueMemberBOOL{Value: x.Value}
	case *types.AttributeValueMemberNULL:
		return &st.AttributeValueMemberNULL{Value: x.Value}
	case *types.AttributeValueMemberSS:
		return &st.AttributeValueMemberSS{Value: append([]string(nil), x.Value...)}
	case *types.AttributeValueMemberNS:
		return &st.AttributeValueMemberNS{Value: append([]string(nil), x.Value...)}
	case *types.AttributeValueMemberBS:
		bs := make([][]byte, len(x.Value))
		for i, b := range x.Value {
			bs[i] = append([]byte{}, b...)
		}
		return &st.AttributeValueMemberBS{Value: bs}
	case *types.AttributeValueMemberL:
		l := make([]st.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = streamValue(e)
		}
		return &st.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		m := make(map[string]st.AttributeValue, len(x.Value))
		for k, v := range x.Value {
			m[k] = streamValue(v)
		}
		return &st.AttributeValueMemberM{Value: m}
	}
	return nil
}

// TestContentSum checks that contentSum does not depend on the order of
// the attributes, and that it tells apart items that differ in one short
// value, a name, a type or the length of a long value.
func TestContentSum(t *testing.T) {
	item := func(mod func(map[string]types.AttributeValue)) []attr {
		it := map[string]types.AttributeValue{
			"pk":      &types.AttributeValueMemberS{Value: "USER#0001"},
			"sk":      &types.AttributeValueMemberS{Value: "ORDER#0001"},
			"total":   &types.AttributeValueMemberN{Value: "12345.67"},
			"a":       &types.AttributeValueMemberS{Value: "x"},
			"flag":    &types.AttributeValueMemberBOOL{Value: true},
			"tags":    &types.AttributeValueMemberSS{Value: []string{"b", "a"}},
			"payload": &types.AttributeValueMemberS{Value: strings.Repeat("p", 100)},
		}
		if mod != nil {
			mod(it)
		}
		return newRecord(it, 0).attrs
	}
	base := item(nil)
	want := contentSum(base)
	rev := slices.Clone(base)
	slices.Reverse(rev)
	if got := contentSum(rev); got != want {
		t.Fatalf("reversed attributes: sum %x, want %x", got, want)
	}
	for name, mod := range map[string]func(map[string]types.AttributeValue){
		"number": func(m map[string]types.AttributeValue) { m["total"] = &types.AttributeValueMemberN{Value: "12345.68"} },
		"string": func(m map[string]types.AttributeValue) { m["a"] = &types.AttributeValueMemberS{Value: "y"} },
		"type":   func(m map[string]types.AttributeValue) { m["a"] = &types.AttributeValueMemberN{Value: "1"} },
		"bool":   func(m map[string]types.AttributeValue) { m["flag"] = &types.AttributeValueMemberBOOL{Value: false} },
		"name":   func(m map[string]types.AttributeValue) { m["b"] = m["a"]; delete(m, "a") },
		"swap":   func(m map[string]types.AttributeValue) { m["pk"], m["sk"] = m["sk"], m["pk"] },
		"long length": func(m map[string]types.AttributeValue) {
			m["payload"] = &types.AttributeValueMemberS{Value: strings.Repeat("p", 101)}
		},
		"set length": func(m map[string]types.AttributeValue) {
			m["tags"] = &types.AttributeValueMemberSS{Value: []string{"a"}}
		},
		"added":        func(m map[string]types.AttributeValue) { m["c"] = &types.AttributeValueMemberNULL{Value: true} },
		"nine bytes":   func(m map[string]types.AttributeValue) { m["sk"] = &types.AttributeValueMemberS{Value: "ORDER#0002"} },
		"eight prefix": func(m map[string]types.AttributeValue) { m["pk"] = &types.AttributeValueMemberS{Value: "USER#0002"} },
	} {
		if got := contentSum(item(mod)); got == want {
			t.Errorf("%s: the sum did not change", name)
		}
	}
	// Random items of short values: changing one value, or swapping the
	// values of two attributes whose names differ in length or end bytes,
	// changes the sum (a 64-bit sum collides by chance about once in
	// 2^64; the seed is fixed).
	r := rand.New(rand.NewPCG(5, 6))
	str := func() string {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte('a' + r.IntN(4))
		}
		return string(b)
	}
	for i := range 3000 {
		it := map[string]types.AttributeValue{}
		for len(it) < 2+r.IntN(8) {
			it["a"+str()] = &types.AttributeValueMemberS{Value: str()}
		}
		as := newRecord(it, 0).attrs
		before := contentSum(as)
		k, l := r.IntN(len(as)), r.IntN(len(as))
		x := as[k].v.(*types.AttributeValueMemberS).Value
		if i%2 == 0 || k == l {
			y := x
			for y == x {
				y = str()
			}
			as[k].v = &types.AttributeValueMemberS{Value: y}
		} else {
			y := as[l].v.(*types.AttributeValueMemberS).Value
			m, n := as[k].name, as[l].name
			if x == y || len(m) == len(n) && m[0] == n[0] && m[len(m)-1] == n[len(n)-1] {
				continue // names alike to contentSum: sameStored tells
			}
			as[k].v, as[l].v = as[l].v, as[k].v
		}
		if contentSum(as) == before {
			t.Fatalf("item %d: the sum did not change (%v)", i, as)
		}
	}
}

// BenchmarkStreamImage measures the parts of a streamed write's image
// work on an item like BenchmarkEngine's (eight attributes, one a 1 KB
// string): Encode writes its image, Sum takes its content sum.
func BenchmarkStreamImage(b *testing.B) {
	it := map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: "USER#0001"},
		"sk":      &types.AttributeValueMemberS{Value: "ORDER#0001"},
		"type":    &types.AttributeValueMemberS{Value: "ORDER"},
		"name":    &types.AttributeValueMemberS{Value: "Kim Minji"},
		"email":   &types.AttributeValueMemberS{Value: "minji.kim@example.com"},
		"created": &types.AttributeValueMemberS{Value: "2026-11-22T05:00:00Z"},
		"total":   &types.AttributeValueMemberN{Value: "12345.67"},
		"payload": &types.AttributeValueMemberS{Value: strings.Repeat("x", 1100)},
	}
	as := newRecord(it, 0).attrs
	b.Run("Encode", func(b *testing.B) {
		var c imgChunk
		buf := make([]byte, 0, imgStageSize)
		for b.Loop() {
			out, ok := c.tryAppendImg(buf[:0], cap(buf), as)
			if !ok || len(out) == 0 {
				b.Fatal("no room")
			}
			c.strs = c.strs[:0]
		}
	})
	b.Run("Sum", func(b *testing.B) {
		for b.Loop() {
			sink64 += contentSum(as)
		}
	})
}

var sink64 uint64

// TestStreamQueue checks the queue of writes whose records are applied
// later (streamHook): a goroutine applies them once a batch is queued and
// stops when the queue is empty; writers that outrun the appliers apply
// the queue themselves once it holds maxQueue writes, so it stays
// bounded; and every write's record is there, in order, when read.
func TestStreamQueue(t *testing.T) {
	ctx := context.Background()
	db := New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("queue"),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := db.table(aws.String("queue"))
	if err != nil {
		t.Fatal(err)
	}
	s := tb.stream
	queued := func() (int, bool) {
		s.qmu.Lock()
		defer s.qmu.Unlock()
		return len(s.queue), s.applying
	}
	put := func(i int) {
		it := item{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i%50)}, "v": &types.AttributeValueMemberN{Value: fmt.Sprint(i)}}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("queue"), Item: it}); err != nil {
			t.Error(err)
		}
	}
	written := 0
	// A full batch starts an applier, which empties the queue and stops.
	for range 3*applyBatch + 5 {
		put(written)
		written++
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		n, applying := queued()
		if n < applyBatch && !applying {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the queue holds %d writes (applying %v)", n, applying)
		}
		time.Sleep(time.Millisecond)
	}
	// With the appliers held off (s.mu held here), a writer queues up to
	// maxQueue writes and then waits to apply them.
	s.mu.Lock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2 * maxQueue {
			put(written + i)
		}
	}()
	for {
		if n, _ := queued(); n >= maxQueue {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if n, _ := queued(); n != maxQueue {
		t.Errorf("the queue holds %d writes while the appliers wait, want the bound, %d", n, maxQueue)
	}
	s.mu.Unlock()
	<-done
	written += 2 * maxQueue
	recs := readHeld(t, db, "queue")
	if len(recs) != written {
		t.Fatalf("%d records, want %d", len(recs), written)
	}
	last := map[string]int{}
	for i, r := range recs {
		k := r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value
		v, _ := strconv.Atoi(r.Dynamodb.NewImage["v"].(*st.AttributeValueMemberN).Value)
		if v != i {
			t.Fatalf("record %d holds write %d", i, v)
		}
		if o, ok := last[k]; ok {
			if got, _ := strconv.Atoi(r.Dynamodb.OldImage["v"].(*st.AttributeValueMemberN).Value); got != o {
				t.Fatalf("record %d: old image %d, want %d", i, got, o)
			}
		}
		last[k] = v
	}
	if n, _ := queued(); n != 0 {
		t.Errorf("%d writes queued after a read", n)
	}
	checkArena(t, db, "queue")
}
