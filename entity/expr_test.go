package entity_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

// TestExprWriterMatchesSDK checks that the requests whose expressions
// the runtime writes itself are exactly those the SDK's expression
// package builds: same expressions, placeholders and values, for every
// kind of change, versioned writes, index keys recomputed or removed,
// and conditions with a user If (which take the expression package).
func TestExprWriterMatchesSDK(t *testing.T) {
	notes := entity.NewStore[Note](entity.NewTable(ddbmem.New(), "exprs", func(o *entity.Options) {
		o.GSIs = []entity.Index{
			{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"},
			{Name: "GSI2", PK: "GSI2PK", SK: "GSI2SK"},
			{Name: "Type_CreatedAt", PK: "Type", SK: "CreatedAt"},
		}
		o.TTLAttr = "expires"
		o.Now = func() time.Time { return time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC) }
	}))
	key, _ := NoteKey("n1")
	note := Note{ID: "n1", Owner: "kim", Region: "seoul", Title: "t", Tag: "go", Views: 3}
	user := entity.If(expression.Name("views").LessThan(expression.Value(10)))
	type build func(opts ...func(*entity.CallOptions)) (any, error)
	update := func(ch ...entity.Change[Note]) build {
		return func(opts ...func(*entity.CallOptions)) (any, error) { return notes.UpdateInput(key, ch, opts...) }
	}
	cases := []struct {
		name string
		req  build
		opts []func(*entity.CallOptions)
	}{
		{"update set", update(entity.Set(NoteBody, "b")), []func(*entity.CallOptions){entity.IfVersion(4)}},
		{"update add", update(entity.Add(NoteViews, 2)), []func(*entity.CallOptions){entity.IfVersion(1)}},
		{"update every kind", update(entity.Add(NoteViews, -1), entity.Remove(NoteTag),
			entity.SetIfNotExists(NoteBody, "b")), []func(*entity.CallOptions){entity.IfVersion(7)}},
		{"update index source", update(entity.Set(NoteTitle, "new"), entity.Set(NoteOwner, "lee"), entity.Set(NoteRegion, "busan")), []func(*entity.CallOptions){entity.IfVersion(2)}},
		{"update sparse source", update(entity.Set(NoteTag, "rust")), []func(*entity.CallOptions){entity.IfVersion(2)}},
		{"update sparse removed", update(entity.Remove(NoteTag), entity.Set(NoteBody, "")), []func(*entity.CallOptions){entity.IfVersion(2)}},
		{"update user condition", update(entity.Set(NoteBody, "b")), []func(*entity.CallOptions){entity.IfVersion(3), user}},
		{"create", func(opts ...func(*entity.CallOptions)) (any, error) { return notes.CreateInput(&note, opts...) }, nil},
		{"put new", func(opts ...func(*entity.CallOptions)) (any, error) { return notes.PutInput(&note, opts...) }, nil},
		{"put versioned", func(opts ...func(*entity.CallOptions)) (any, error) { return notes.PutInput(&note, opts...) },
			[]func(*entity.CallOptions){entity.IfVersion(5)}},
		{"put user condition", func(opts ...func(*entity.CallOptions)) (any, error) { return notes.PutInput(&note, opts...) },
			[]func(*entity.CallOptions){entity.IfVersion(5), user}},
		{"delete", func(opts ...func(*entity.CallOptions)) (any, error) { return notes.DeleteInput(key, opts...) },
			[]func(*entity.CallOptions){entity.IfVersion(5)}},
	}
	opts := cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{},
		dynamodb.UpdateItemInput{}, dynamodb.PutItemInput{}, dynamodb.DeleteItemInput{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.req(c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			entity.SetSDKExpressions(true)
			want, err := c.req(c.opts...)
			entity.SetSDKExpressions(false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, opts); diff != "" {
				t.Errorf("request differs from the expression package's (-sdk +runtime):\n%s", diff)
			}
		})
	}
}
