package entity_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

// milliNote is Note with a schema declaring a millisecond time layout.
type milliNote struct{ Note }

var milliSchema = func() *entity.Schema {
	s := *noteSchema
	s.TimeLayout = "2006-01-02T15:04:05.000Z"
	return &s
}()

func (*milliNote) EntitySchema() *entity.Schema { return milliSchema }

// TestTimeLayoutStampedAsDeclared: the runtime stamps CreatedAt and
// UpdatedAt in the schema's TimeLayout, TimeFormat when it names none, on
// both full writes and updates.
func TestTimeLayoutStampedAsDeclared(t *testing.T) {
	clock := time.Date(2025, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	tbl := entity.NewTable(nil, "layout", func(o *entity.Options) {
		o.GSIs = []entity.Index{
			{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"},
			{Name: "GSI2", PK: "GSI2PK", SK: "GSI2SK"},
			{Name: "Type_CreatedAt", PK: "Type", SK: "CreatedAt"},
		}
		o.Now = func() time.Time { return clock }
	})
	key := entity.Key{PK: "NOTE#l", SK: "META"}
	n := Note{ID: "l", Owner: "o", Region: "r", Title: "t"}
	for _, tc := range []struct {
		name   string
		create func() (*dynamodb.PutItemInput, error)
		update func() (*dynamodb.UpdateItemInput, error)
		want   string
	}{
		{
			"default",
			func() (*dynamodb.PutItemInput, error) { return entity.NewStore[Note](tbl).CreateInput(&n) },
			func() (*dynamodb.UpdateItemInput, error) {
				return entity.NewStore[Note](tbl).UpdateInput(key, entity.Changes[Note]{entity.Set(NoteBody, "b")}, entity.IfVersion(1))
			},
			"2025-01-02T03:04:05Z",
		},
		{
			"declared millis",
			func() (*dynamodb.PutItemInput, error) {
				return entity.NewStore[milliNote](tbl).CreateInput(&milliNote{n})
			},
			func() (*dynamodb.UpdateItemInput, error) {
				return entity.NewStore[milliNote](tbl).UpdateInput(key, entity.Changes[milliNote]{entity.Set(entity.Field[milliNote, string]{Name: "body", Encode: sField("body")}, "b")}, entity.IfVersion(1))
			},
			"2025-01-02T03:04:05.678Z",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := tc.create()
			if err != nil {
				t.Fatal(err)
			}
			for _, attr := range []string{"CreatedAt", "UpdatedAt"} {
				if got := testenv.Text(in.Item, attr); got != tc.want {
					t.Errorf("create %s = %q, want %q", attr, got, tc.want)
				}
			}
			up, err := tc.update()
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, av := range up.ExpressionAttributeValues {
				if s, ok := av.(*types.AttributeValueMemberS); ok && s.Value == tc.want {
					found = true
				}
			}
			if !found {
				t.Errorf("update stamps no %q: %v", tc.want, up.ExpressionAttributeValues)
			}
		})
	}
}
