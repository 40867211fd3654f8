// Hand-written stand-in for keygen output, in its documented format
// (keys/keygen/doc.go). Replace it by running go generate once keygen
// generates code.

package ext

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// NoticeType is the Type attribute of a Notice.
const NoticeType = "Notice"

var noticePKTemplate = keys.MustNew("NOTICE#{ID}")

// NoticePK builds the PK attribute "NOTICE#{ID}".
func NoticePK(id string) (string, error) { return noticePKTemplate.Build(id) }

// NoticePKPrefix is the literal start of PK, for begins_with.
const NoticePKPrefix = "NOTICE#"

// NoticeSK is the constant SK of a Notice.
const NoticeSK = "METADATA"

// NoticeKey returns the primary key of a Notice.
func NoticeKey(id string) (entity.Key, error) {
	pk, err := NoticePK(id)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: NoticeSK}, nil
}

var noticeSchema = &entity.Schema{
	Type: NoticeType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "NOTICE#{ID}", Sources: []string{"id"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return noticePKTemplate.Build(kgS(item, "id"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "METADATA", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return NoticeSK, nil }},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "Notice", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return NoticeType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "title", "body", "expiresAt", "UpdatedAt"},
	TTLAttr:     "expiresAt",
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*Notice) EntitySchema() *entity.Schema { return noticeSchema }

// PrimaryKey implements entity.Item.
func (v *Notice) PrimaryKey() (entity.Key, error) { return NoticeKey(v.ID) }

// MarshalItem implements entity.Item.
func (v *Notice) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 11)
	item["Type"] = &types.AttributeValueMemberS{Value: NoticeType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["title"] = &types.AttributeValueMemberS{Value: v.Title}
	if v.Body != "" {
		item["body"] = &types.AttributeValueMemberS{Value: v.Body}
	}
	if v.ExpiresAt != 0 {
		item["expiresAt"], _ = v.ExpiresAt.MarshalDynamoDBAttributeValue()
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := noticeSchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := noticeSchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *Notice) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = Notice{}
	var err error
	if av, ok := item["id"]; ok {
		if v.ID, err = kgDecS("id", av); err != nil {
			return err
		}
	}
	if av, ok := item["title"]; ok {
		if v.Title, err = kgDecS("title", av); err != nil {
			return err
		}
	}
	if av, ok := item["body"]; ok {
		if v.Body, err = kgDecS("body", av); err != nil {
			return err
		}
	}
	if av, ok := item["expiresAt"]; ok {
		if err = v.ExpiresAt.UnmarshalDynamoDBAttributeValue(av); err != nil {
			return fmt.Errorf("attribute expiresAt: %w", err)
		}
	}
	if av, ok := item["CreatedAt"]; ok {
		if v.CreatedAt, err = kgDecTime("CreatedAt", av); err != nil {
			return err
		}
	}
	if av, ok := item["UpdatedAt"]; ok {
		if v.UpdatedAt, err = kgDecTime("UpdatedAt", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of Notice, for update setters.
var (
	NoticeID        = entity.Field[Notice, string]{Name: "id", Encode: kgEncS}
	NoticeTitle     = entity.Field[Notice, string]{Name: "title", Encode: kgEncS}
	NoticeBody      = entity.Field[Notice, string]{Name: "body", Encode: kgEncSOmit}
	NoticeExpiresAt = entity.Field[Notice, entity.TTL]{Name: "expiresAt", Encode: kgEncTTL}
	NoticeCreatedAt = entity.Field[Notice, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	NoticeUpdatedAt = entity.Field[Notice, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
)

// PostType is the Type attribute of a Post.
const PostType = "Post"

var postPKTemplate = keys.MustNew("CATEGORY#{CategoryID}")

// PostPK builds the PK attribute "CATEGORY#{CategoryID}".
func PostPK(categoryID string) (string, error) { return postPKTemplate.Build(categoryID) }

// PostPKPrefix is the literal start of PK, for begins_with.
const PostPKPrefix = "CATEGORY#"

var postSKTemplate = keys.MustNew("POST#{ID}")

// PostSK builds the SK attribute "POST#{ID}".
func PostSK(id string) (string, error) { return postSKTemplate.Build(id) }

// PostSKPrefix is the literal start of SK, for begins_with.
const PostSKPrefix = "POST#"

// PostKey returns the primary key of a Post.
func PostKey(categoryID string, id string) (entity.Key, error) {
	pk, err := PostPK(categoryID)
	if err != nil {
		return entity.Key{}, err
	}
	sk, err := PostSK(id)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: sk}, nil
}

var postSchema = &entity.Schema{
	Type: PostType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "CATEGORY#{CategoryID}", Sources: []string{"categoryId"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return postPKTemplate.Build(kgS(item, "categoryId"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "POST#{ID}", Sources: []string{"id"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return postSKTemplate.Build(kgS(item, "id"))
		}},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "Post", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return PostType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
		{Index: "AuthorId_CreatedAt", Role: "pk", Attr: "authorId", Template: "{AuthorID}", Sources: []string{"authorId"}, Sparse: true, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "authorId") }},
		{Index: "AuthorId_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: true, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "categoryId", "title", "contents", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*Post) EntitySchema() *entity.Schema { return postSchema }

// PrimaryKey implements entity.Item.
func (v *Post) PrimaryKey() (entity.Key, error) { return PostKey(v.CategoryID, v.ID) }

// MarshalItem implements entity.Item.
func (v *Post) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 14)
	item["Type"] = &types.AttributeValueMemberS{Value: PostType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["categoryId"] = &types.AttributeValueMemberS{Value: v.CategoryID}
	if v.AuthorID != "" {
		item["authorId"] = &types.AttributeValueMemberS{Value: v.AuthorID}
	}
	item["title"] = &types.AttributeValueMemberS{Value: v.Title}
	if v.Contents != "" {
		item["contents"] = &types.AttributeValueMemberS{Value: v.Contents}
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := postSchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := postSchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *Post) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = Post{}
	var err error
	if av, ok := item["id"]; ok {
		if v.ID, err = kgDecS("id", av); err != nil {
			return err
		}
	}
	if av, ok := item["categoryId"]; ok {
		if v.CategoryID, err = kgDecS("categoryId", av); err != nil {
			return err
		}
	}
	if av, ok := item["authorId"]; ok {
		if v.AuthorID, err = kgDecS("authorId", av); err != nil {
			return err
		}
	}
	if av, ok := item["title"]; ok {
		if v.Title, err = kgDecS("title", av); err != nil {
			return err
		}
	}
	if av, ok := item["contents"]; ok {
		if v.Contents, err = kgDecS("contents", av); err != nil {
			return err
		}
	}
	if av, ok := item["CreatedAt"]; ok {
		if v.CreatedAt, err = kgDecTime("CreatedAt", av); err != nil {
			return err
		}
	}
	if av, ok := item["UpdatedAt"]; ok {
		if v.UpdatedAt, err = kgDecTime("UpdatedAt", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of Post, for update setters.
var (
	PostID         = entity.Field[Post, string]{Name: "id", Encode: kgEncS}
	PostCategoryID = entity.Field[Post, string]{Name: "categoryId", Encode: kgEncS}
	PostAuthorID   = entity.Field[Post, string]{Name: "authorId", Encode: kgEncSOmit}
	PostTitle      = entity.Field[Post, string]{Name: "title", Encode: kgEncS}
	PostContents   = entity.Field[Post, string]{Name: "contents", Encode: kgEncSOmit}
	PostCreatedAt  = entity.Field[Post, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	PostUpdatedAt  = entity.Field[Post, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
)

// PostLikeType is the Type attribute of a PostLike.
const PostLikeType = "PostLike"

var postLikePKTemplate = keys.MustNew("CATEGORY#{CategoryID}")

// PostLikePK builds the PK attribute "CATEGORY#{CategoryID}".
func PostLikePK(categoryID string) (string, error) { return postLikePKTemplate.Build(categoryID) }

// PostLikePKPrefix is the literal start of PK, for begins_with.
const PostLikePKPrefix = "CATEGORY#"

var postLikeSKTemplate = keys.MustNew("USER#{UserID}#POST#{PostID}")

// PostLikeSK builds the SK attribute "USER#{UserID}#POST#{PostID}".
func PostLikeSK(userID string, postID string) (string, error) {
	return postLikeSKTemplate.Build(userID, postID)
}

// PostLikeSKPrefixByUserID is the SK prefix for begins_with up to the next field.
func PostLikeSKPrefixByUserID(userID string) (string, error) {
	return postLikeSKTemplate.Prefix(userID)
}

// PostLikeSKPrefix is the literal start of SK, for begins_with.
const PostLikeSKPrefix = "USER#"

// PostLikeKey returns the primary key of a PostLike.
func PostLikeKey(categoryID string, userID string, postID string) (entity.Key, error) {
	pk, err := PostLikePK(categoryID)
	if err != nil {
		return entity.Key{}, err
	}
	sk, err := PostLikeSK(userID, postID)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: sk}, nil
}

var postLikeSchema = &entity.Schema{
	Type: PostLikeType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "CATEGORY#{CategoryID}", Sources: []string{"categoryId"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return postLikePKTemplate.Build(kgS(item, "categoryId"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "USER#{UserID}#POST#{PostID}", Sources: []string{"userId", "postId"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return postLikeSKTemplate.Build(kgS(item, "userId"), kgS(item, "postId"))
		}},
	},
	Attrs:       []string{"Type", "categoryId", "userId", "postId", "CreatedAt", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*PostLike) EntitySchema() *entity.Schema { return postLikeSchema }

// PrimaryKey implements entity.Item.
func (v *PostLike) PrimaryKey() (entity.Key, error) {
	return PostLikeKey(v.CategoryID, v.UserID, v.PostID)
}

// MarshalItem implements entity.Item.
func (v *PostLike) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 8)
	item["Type"] = &types.AttributeValueMemberS{Value: PostLikeType}
	item["categoryId"] = &types.AttributeValueMemberS{Value: v.CategoryID}
	item["userId"] = &types.AttributeValueMemberS{Value: v.UserID}
	item["postId"] = &types.AttributeValueMemberS{Value: v.PostID}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := postLikeSchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := postLikeSchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *PostLike) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = PostLike{}
	var err error
	if av, ok := item["categoryId"]; ok {
		if v.CategoryID, err = kgDecS("categoryId", av); err != nil {
			return err
		}
	}
	if av, ok := item["userId"]; ok {
		if v.UserID, err = kgDecS("userId", av); err != nil {
			return err
		}
	}
	if av, ok := item["postId"]; ok {
		if v.PostID, err = kgDecS("postId", av); err != nil {
			return err
		}
	}
	if av, ok := item["CreatedAt"]; ok {
		if v.CreatedAt, err = kgDecTime("CreatedAt", av); err != nil {
			return err
		}
	}
	if av, ok := item["UpdatedAt"]; ok {
		if v.UpdatedAt, err = kgDecTime("UpdatedAt", av); err != nil {
			return err
		}
	}
	return nil
}

// Typed fields of PostLike, for update setters.
var (
	PostLikeCategoryID = entity.Field[PostLike, string]{Name: "categoryId", Encode: kgEncS}
	PostLikeUserID     = entity.Field[PostLike, string]{Name: "userId", Encode: kgEncS}
	PostLikePostID     = entity.Field[PostLike, string]{Name: "postId", Encode: kgEncS}
	PostLikeCreatedAt  = entity.Field[PostLike, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	PostLikeUpdatedAt  = entity.Field[PostLike, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
)

const kgIsoSec = "2006-01-02T15:04:05Z"

func kgS(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func kgCopy(item map[string]types.AttributeValue, name string) (string, error) {
	s := kgS(item, name)
	if s == "" {
		return "", &keys.Error{Template: "{" + name + "}", Field: name, Err: keys.ErrMissingField}
	}
	return s, nil
}

func kgDecS(name string, av types.AttributeValue) (string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return "", nil
	}
	return "", fmt.Errorf("attribute %s: want S, got %T", name, av)
}

func kgDecTime(name string, av types.AttributeValue) (time.Time, error) {
	s, err := kgDecS(name, av)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("attribute %s: %w", name, err)
	}
	return t, nil
}

func kgEncS(v string) (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: v}, nil
}

func kgEncSOmit(v string) (types.AttributeValue, error) {
	if v == "" {
		return nil, nil
	}
	return &types.AttributeValueMemberS{Value: v}, nil
}

func kgEncTime(v time.Time) (types.AttributeValue, error) {
	if v.IsZero() {
		return nil, nil
	}
	return &types.AttributeValueMemberS{Value: v.UTC().Format(kgIsoSec)}, nil
}

func kgEncTTL(v entity.TTL) (types.AttributeValue, error) {
	if v == 0 {
		return nil, nil
	}
	return v.MarshalDynamoDBAttributeValue()
}
