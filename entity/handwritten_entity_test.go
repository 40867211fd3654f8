package entity_test

// Note is a hand-written test entity implementing entity.Item exactly as
// keygen's generated code does (see keys/keygen/doc.go):
//
//	//keygen:entity NOTE
//	//keygen:key PK=NOTE#{ID} SK=META
//	//keygen:gsi GSI1 GSI1PK=OWNER#{Owner} GSI1SK=REGION#{Region}#{Title}
//	//keygen:gsi GSI2 GSI2PK=TAG#{Tag} GSI2SK=NOTE#{ID} sparse
//	//keygen:gsi Type_CreatedAt Type=NOTE CreatedAt={CreatedAt}

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

var errMissingField = errors.New("keys: missing field")

type Note struct {
	ID        string
	Owner     string
	Region    string
	Title     string
	Tag       string
	Body      string
	Views     int64
	Expires   entity.TTL
	CreatedAt time.Time
	UpdatedAt time.Time
	Version   int64
}

func escape(s string) string {
	return strings.NewReplacer("%", "%25", "#", "%23").Replace(s)
}

func sAttr(item map[string]types.AttributeValue, name string) (string, error) {
	v, ok := item[name].(*types.AttributeValueMemberS)
	if !ok || v.Value == "" {
		return "", fmt.Errorf("%w: %s", errMissingField, name)
	}
	return v.Value, nil
}

func build(parts ...any) func(map[string]types.AttributeValue) (string, error) {
	return func(item map[string]types.AttributeValue) (string, error) {
		var b strings.Builder
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				b.WriteString(p)
			case [1]string:
				v, err := sAttr(item, p[0])
				if err != nil {
					return "", err
				}
				b.WriteString(escape(v))
			}
		}
		return b.String(), nil
	}
}

func f(name string) [1]string { return [1]string{name} }

var noteSchema = &entity.Schema{
	Type: "NOTE",
	Keys: []entity.KeyAttr{
		{Role: "pk", Attr: "PK", Template: "NOTE#{ID}", Sources: []string{"id"}, Build: build("NOTE#", f("id"))},
		{Role: "sk", Attr: "SK", Template: "META", Build: build("META")},
		{Index: "GSI1", Role: "pk", Attr: "GSI1PK", Template: "OWNER#{Owner}", Sources: []string{"owner"}, Build: build("OWNER#", f("owner"))},
		{Index: "GSI1", Role: "sk", Attr: "GSI1SK", Template: "REGION#{Region}#{Title}", Sources: []string{"region", "title"}, Build: build("REGION#", f("region"), "#", f("title"))},
		{Index: "GSI2", Role: "pk", Attr: "GSI2PK", Template: "TAG#{Tag}", Sources: []string{"tag"}, Sparse: true, Build: build("TAG#", f("tag"))},
		{Index: "GSI2", Role: "sk", Attr: "GSI2SK", Template: "NOTE#{ID}", Sources: []string{"id"}, Sparse: true, Build: build("NOTE#", f("id"))},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "NOTE", Build: build("NOTE")},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Build: build(f("CreatedAt"))},
	},
	Attrs:       []string{"Type", "id", "owner", "region", "title", "tag", "body", "views", "expires", "UpdatedAt", "Version"},
	VersionAttr: "Version",
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
	TTLAttr:     "expires",
}

func (*Note) EntitySchema() *entity.Schema { return noteSchema }

func NoteKey(id string) (entity.Key, error) {
	if id == "" {
		return entity.Key{}, fmt.Errorf("NOTE#{ID}: %w: ID", errMissingField)
	}
	return entity.Key{PK: "NOTE#" + escape(id), SK: "META"}, nil
}

func (n *Note) PrimaryKey() (entity.Key, error) { return NoteKey(n.ID) }

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func (n *Note) MarshalItem() (map[string]types.AttributeValue, error) {
	m := map[string]types.AttributeValue{
		"Type":    &types.AttributeValueMemberS{Value: "NOTE"},
		"id":      &types.AttributeValueMemberS{Value: n.ID},
		"owner":   &types.AttributeValueMemberS{Value: n.Owner},
		"region":  &types.AttributeValueMemberS{Value: n.Region},
		"title":   &types.AttributeValueMemberS{Value: n.Title},
		"views":   &types.AttributeValueMemberN{Value: strconv.FormatInt(n.Views, 10)},
		"Version": &types.AttributeValueMemberN{Value: strconv.FormatInt(n.Version, 10)},
	}
	if n.Tag != "" {
		m["tag"] = &types.AttributeValueMemberS{Value: n.Tag}
	}
	if n.Body != "" {
		m["body"] = &types.AttributeValueMemberS{Value: n.Body}
	}
	if n.Expires != 0 {
		m["expires"], _ = n.Expires.MarshalDynamoDBAttributeValue()
	}
	if !n.CreatedAt.IsZero() {
		m["CreatedAt"] = &types.AttributeValueMemberS{Value: ts(n.CreatedAt)}
	}
	if !n.UpdatedAt.IsZero() {
		m["UpdatedAt"] = &types.AttributeValueMemberS{Value: ts(n.UpdatedAt)}
	}
	for _, k := range noteSchema.Keys {
		if k.Attr == "Type" || k.Attr == "CreatedAt" {
			continue
		}
		v, err := k.Build(m)
		if err != nil {
			if k.Sparse {
				continue
			}
			return nil, err
		}
		m[k.Attr] = &types.AttributeValueMemberS{Value: v}
	}
	return m, nil
}

func (n *Note) UnmarshalItem(item map[string]types.AttributeValue) error {
	*n = Note{}
	for name, av := range item {
		var err error
		switch name {
		case "id":
			n.ID, err = str(av, name)
		case "owner":
			n.Owner, err = str(av, name)
		case "region":
			n.Region, err = str(av, name)
		case "title":
			n.Title, err = str(av, name)
		case "tag":
			n.Tag, err = str(av, name)
		case "body":
			n.Body, err = str(av, name)
		case "views":
			n.Views, err = num(av, name)
		case "Version":
			n.Version, err = num(av, name)
		case "expires":
			err = n.Expires.UnmarshalDynamoDBAttributeValue(av)
		case "CreatedAt", "UpdatedAt":
			var s string
			if s, err = str(av, name); err == nil {
				var t time.Time
				t, err = time.Parse("2006-01-02T15:04:05Z", s)
				if name == "CreatedAt" {
					n.CreatedAt = t
				} else {
					n.UpdatedAt = t
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func str(av types.AttributeValue, name string) (string, error) {
	v, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return "", fmt.Errorf("attribute %s: want S, got %T", name, av)
	}
	return v.Value, nil
}

func num(av types.AttributeValue, name string) (int64, error) {
	v, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("attribute %s: want N, got %T", name, av)
	}
	return strconv.ParseInt(v.Value, 10, 64)
}

func sField(name string) func(string) (types.AttributeValue, error) {
	return func(v string) (types.AttributeValue, error) {
		if v == "" && (name == "tag" || name == "body") {
			return nil, nil
		}
		return &types.AttributeValueMemberS{Value: v}, nil
	}
}

var (
	NoteOwner  = entity.Field[Note, string]{Name: "owner", Encode: sField("owner")}
	NoteRegion = entity.Field[Note, string]{Name: "region", Encode: sField("region")}
	NoteTitle  = entity.Field[Note, string]{Name: "title", Encode: sField("title")}
	NoteTag    = entity.Field[Note, string]{Name: "tag", Encode: sField("tag")}
	NoteBody   = entity.Field[Note, string]{Name: "body", Encode: sField("body")}
	NoteID     = entity.Field[Note, string]{Name: "id", Encode: sField("id")}
	NoteViews  = entity.Field[Note, int64]{Name: "views", Encode: func(v int64) (types.AttributeValue, error) {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}, nil
	}}
)
