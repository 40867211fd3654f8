// Hand-written stand-in for keygen output, in its documented format
// (keys/keygen/doc.go). Replace it by running go generate once keygen
// generates code.

package codex

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// UserType is the Type attribute of a User.
const UserType = "User"

var userPKTemplate = keys.MustNew("USER#{ID}")

// UserPK builds the PK attribute "USER#{ID}".
func UserPK(id string) (string, error) { return userPKTemplate.Build(id) }

// UserPKPrefix is the literal start of PK, for begins_with.
const UserPKPrefix = "USER#"

// UserSK is the constant SK of a User.
const UserSK = "METADATA"

// UserKey returns the primary key of a User.
func UserKey(id string) (entity.Key, error) {
	pk, err := UserPK(id)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: UserSK}, nil
}

var userSchema = &entity.Schema{
	Type: UserType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "USER#{ID}", Sources: []string{"id"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return userPKTemplate.Build(kgS(item, "id"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "METADATA", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return UserSK, nil }},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "User", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return UserType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "displayName", "role", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*User) EntitySchema() *entity.Schema { return userSchema }

// PrimaryKey implements entity.Item.
func (v *User) PrimaryKey() (entity.Key, error) { return UserKey(v.ID) }

// MarshalItem implements entity.Item.
func (v *User) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 10)
	item["Type"] = &types.AttributeValueMemberS{Value: UserType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["displayName"] = &types.AttributeValueMemberS{Value: v.DisplayName}
	if v.Role != "" {
		item["role"] = &types.AttributeValueMemberS{Value: v.Role}
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := userSchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := userSchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *User) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = User{}
	var err error
	if av, ok := item["id"]; ok {
		if v.ID, err = kgDecS("id", av); err != nil {
			return err
		}
	}
	if av, ok := item["displayName"]; ok {
		if v.DisplayName, err = kgDecS("displayName", av); err != nil {
			return err
		}
	}
	if av, ok := item["role"]; ok {
		if v.Role, err = kgDecS("role", av); err != nil {
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

// Typed fields of User, for update setters.
var (
	UserID          = entity.Field[User, string]{Name: "id", Encode: kgEncS}
	UserDisplayName = entity.Field[User, string]{Name: "displayName", Encode: kgEncS}
	UserRole        = entity.Field[User, string]{Name: "role", Encode: kgEncSOmit}
	UserCreatedAt   = entity.Field[User, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	UserUpdatedAt   = entity.Field[User, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
)

// CategoryType is the Type attribute of a Category.
const CategoryType = "Category"

var categoryPKTemplate = keys.MustNew("CATEGORY#{ID}")

// CategoryPK builds the PK attribute "CATEGORY#{ID}".
func CategoryPK(id string) (string, error) { return categoryPKTemplate.Build(id) }

// CategoryPKPrefix is the literal start of PK, for begins_with.
const CategoryPKPrefix = "CATEGORY#"

// CategorySK is the constant SK of a Category.
const CategorySK = "METADATA"

// CategoryKey returns the primary key of a Category.
func CategoryKey(id string) (entity.Key, error) {
	pk, err := CategoryPK(id)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: CategorySK}, nil
}

var categorySchema = &entity.Schema{
	Type: CategoryType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "CATEGORY#{ID}", Sources: []string{"id"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return categoryPKTemplate.Build(kgS(item, "id"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "METADATA", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return CategorySK, nil }},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "Category", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return CategoryType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "title", "desc", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*Category) EntitySchema() *entity.Schema { return categorySchema }

// PrimaryKey implements entity.Item.
func (v *Category) PrimaryKey() (entity.Key, error) { return CategoryKey(v.ID) }

// MarshalItem implements entity.Item.
func (v *Category) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 10)
	item["Type"] = &types.AttributeValueMemberS{Value: CategoryType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["title"] = &types.AttributeValueMemberS{Value: v.Title}
	if v.Desc != "" {
		item["desc"] = &types.AttributeValueMemberS{Value: v.Desc}
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := categorySchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := categorySchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *Category) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = Category{}
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
	if av, ok := item["desc"]; ok {
		if v.Desc, err = kgDecS("desc", av); err != nil {
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

// Typed fields of Category, for update setters.
var (
	CategoryID        = entity.Field[Category, string]{Name: "id", Encode: kgEncS}
	CategoryTitle     = entity.Field[Category, string]{Name: "title", Encode: kgEncS}
	CategoryDesc      = entity.Field[Category, string]{Name: "desc", Encode: kgEncSOmit}
	CategoryCreatedAt = entity.Field[Category, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	CategoryUpdatedAt = entity.Field[Category, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
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
	},
	Attrs:       []string{"Type", "id", "categoryId", "authorId", "title", "contents", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*Post) EntitySchema() *entity.Schema { return postSchema }

// PrimaryKey implements entity.Item.
func (v *Post) PrimaryKey() (entity.Key, error) { return PostKey(v.CategoryID, v.ID) }

// MarshalItem implements entity.Item.
func (v *Post) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 12)
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

// BannerType is the Type attribute of a Banner.
const BannerType = "Banner"

var bannerPKTemplate = keys.MustNew("BANNER#{ID}")

// BannerPK builds the PK attribute "BANNER#{ID}".
func BannerPK(id string) (string, error) { return bannerPKTemplate.Build(id) }

// BannerPKPrefix is the literal start of PK, for begins_with.
const BannerPKPrefix = "BANNER#"

// BannerSK is the constant SK of a Banner.
const BannerSK = "METADATA"

// BannerKey returns the primary key of a Banner.
func BannerKey(id string) (entity.Key, error) {
	pk, err := BannerPK(id)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: BannerSK}, nil
}

var bannerSchema = &entity.Schema{
	Type: BannerType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "BANNER#{ID}", Sources: []string{"id"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return bannerPKTemplate.Build(kgS(item, "id"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "METADATA", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return BannerSK, nil }},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "Banner", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return BannerType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "title", "desc", "imgUri", "btn1Text", "btn2Text", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*Banner) EntitySchema() *entity.Schema { return bannerSchema }

// PrimaryKey implements entity.Item.
func (v *Banner) PrimaryKey() (entity.Key, error) { return BannerKey(v.ID) }

// MarshalItem implements entity.Item.
func (v *Banner) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 13)
	item["Type"] = &types.AttributeValueMemberS{Value: BannerType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["title"] = &types.AttributeValueMemberS{Value: v.Title}
	if v.Desc != "" {
		item["desc"] = &types.AttributeValueMemberS{Value: v.Desc}
	}
	if v.ImgURI != "" {
		item["imgUri"] = &types.AttributeValueMemberS{Value: v.ImgURI}
	}
	if v.Btn1Text != "" {
		item["btn1Text"] = &types.AttributeValueMemberS{Value: v.Btn1Text}
	}
	if v.Btn2Text != "" {
		item["btn2Text"] = &types.AttributeValueMemberS{Value: v.Btn2Text}
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := bannerSchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := bannerSchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *Banner) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = Banner{}
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
	if av, ok := item["desc"]; ok {
		if v.Desc, err = kgDecS("desc", av); err != nil {
			return err
		}
	}
	if av, ok := item["imgUri"]; ok {
		if v.ImgURI, err = kgDecS("imgUri", av); err != nil {
			return err
		}
	}
	if av, ok := item["btn1Text"]; ok {
		if v.Btn1Text, err = kgDecS("btn1Text", av); err != nil {
			return err
		}
	}
	if av, ok := item["btn2Text"]; ok {
		if v.Btn2Text, err = kgDecS("btn2Text", av); err != nil {
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

// Typed fields of Banner, for update setters.
var (
	BannerID        = entity.Field[Banner, string]{Name: "id", Encode: kgEncS}
	BannerTitle     = entity.Field[Banner, string]{Name: "title", Encode: kgEncS}
	BannerDesc      = entity.Field[Banner, string]{Name: "desc", Encode: kgEncSOmit}
	BannerImgURI    = entity.Field[Banner, string]{Name: "imgUri", Encode: kgEncSOmit}
	BannerBtn1Text  = entity.Field[Banner, string]{Name: "btn1Text", Encode: kgEncSOmit}
	BannerBtn2Text  = entity.Field[Banner, string]{Name: "btn2Text", Encode: kgEncSOmit}
	BannerCreatedAt = entity.Field[Banner, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	BannerUpdatedAt = entity.Field[Banner, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
)

// CorpInfoType is the Type attribute of a CorpInfo.
const CorpInfoType = "CorpInfo"

// CorpInfoPK is the constant PK of a CorpInfo.
const CorpInfoPK = "CORP#INFO"

// CorpInfoSK is the constant SK of a CorpInfo.
const CorpInfoSK = "METADATA"

// CorpInfoKey returns the primary key of a CorpInfo.
func CorpInfoKey() (entity.Key, error) {
	return entity.Key{PK: CorpInfoPK, SK: CorpInfoSK}, nil
}

var corpInfoSchema = &entity.Schema{
	Type: CorpInfoType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "CORP#INFO", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return CorpInfoPK, nil }},
		{Index: "", Role: "sk", Attr: "SK", Template: "METADATA", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return CorpInfoSK, nil }},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "CorpInfo", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return CorpInfoType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "name", "address", "email", "fax", "corpNum", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*CorpInfo) EntitySchema() *entity.Schema { return corpInfoSchema }

// PrimaryKey implements entity.Item.
func (v *CorpInfo) PrimaryKey() (entity.Key, error) { return CorpInfoKey() }

// MarshalItem implements entity.Item.
func (v *CorpInfo) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 13)
	item["Type"] = &types.AttributeValueMemberS{Value: CorpInfoType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["name"] = &types.AttributeValueMemberS{Value: v.Name}
	if v.Address != "" {
		item["address"] = &types.AttributeValueMemberS{Value: v.Address}
	}
	if v.Email != "" {
		item["email"] = &types.AttributeValueMemberS{Value: v.Email}
	}
	if v.Fax != "" {
		item["fax"] = &types.AttributeValueMemberS{Value: v.Fax}
	}
	if v.CorpNum != "" {
		item["corpNum"] = &types.AttributeValueMemberS{Value: v.CorpNum}
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := corpInfoSchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := corpInfoSchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *CorpInfo) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = CorpInfo{}
	var err error
	if av, ok := item["id"]; ok {
		if v.ID, err = kgDecS("id", av); err != nil {
			return err
		}
	}
	if av, ok := item["name"]; ok {
		if v.Name, err = kgDecS("name", av); err != nil {
			return err
		}
	}
	if av, ok := item["address"]; ok {
		if v.Address, err = kgDecS("address", av); err != nil {
			return err
		}
	}
	if av, ok := item["email"]; ok {
		if v.Email, err = kgDecS("email", av); err != nil {
			return err
		}
	}
	if av, ok := item["fax"]; ok {
		if v.Fax, err = kgDecS("fax", av); err != nil {
			return err
		}
	}
	if av, ok := item["corpNum"]; ok {
		if v.CorpNum, err = kgDecS("corpNum", av); err != nil {
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

// Typed fields of CorpInfo, for update setters.
var (
	CorpInfoID        = entity.Field[CorpInfo, string]{Name: "id", Encode: kgEncS}
	CorpInfoName      = entity.Field[CorpInfo, string]{Name: "name", Encode: kgEncS}
	CorpInfoAddress   = entity.Field[CorpInfo, string]{Name: "address", Encode: kgEncSOmit}
	CorpInfoEmail     = entity.Field[CorpInfo, string]{Name: "email", Encode: kgEncSOmit}
	CorpInfoFax       = entity.Field[CorpInfo, string]{Name: "fax", Encode: kgEncSOmit}
	CorpInfoCorpNum   = entity.Field[CorpInfo, string]{Name: "corpNum", Encode: kgEncSOmit}
	CorpInfoCreatedAt = entity.Field[CorpInfo, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	CorpInfoUpdatedAt = entity.Field[CorpInfo, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
)

// ContactInquiryType is the Type attribute of a ContactInquiry.
const ContactInquiryType = "ContactInquiry"

var contactInquiryPKTemplate = keys.MustNew("CONTACT#{ID}")

// ContactInquiryPK builds the PK attribute "CONTACT#{ID}".
func ContactInquiryPK(id string) (string, error) { return contactInquiryPKTemplate.Build(id) }

// ContactInquiryPKPrefix is the literal start of PK, for begins_with.
const ContactInquiryPKPrefix = "CONTACT#"

// ContactInquirySK is the constant SK of a ContactInquiry.
const ContactInquirySK = "METADATA"

// ContactInquiryKey returns the primary key of a ContactInquiry.
func ContactInquiryKey(id string) (entity.Key, error) {
	pk, err := ContactInquiryPK(id)
	if err != nil {
		return entity.Key{}, err
	}
	return entity.Key{PK: pk, SK: ContactInquirySK}, nil
}

var contactInquirySchema = &entity.Schema{
	Type: ContactInquiryType,
	Keys: []entity.KeyAttr{
		{Index: "", Role: "pk", Attr: "PK", Template: "CONTACT#{ID}", Sources: []string{"id"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) {
			return contactInquiryPKTemplate.Build(kgS(item, "id"))
		}},
		{Index: "", Role: "sk", Attr: "SK", Template: "METADATA", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return ContactInquirySK, nil }},
		{Index: "Type_CreatedAt", Role: "pk", Attr: "Type", Template: "ContactInquiry", Sources: []string{}, Sparse: false, Build: func(map[string]types.AttributeValue) (string, error) { return ContactInquiryType, nil }},
		{Index: "Type_CreatedAt", Role: "sk", Attr: "CreatedAt", Template: "{CreatedAt}", Sources: []string{"CreatedAt"}, Sparse: false, Build: func(item map[string]types.AttributeValue) (string, error) { return kgCopy(item, "CreatedAt") }},
	},
	Attrs:       []string{"Type", "id", "name", "email", "company", "title", "referral", "subject", "message", "status", "notifiedEmail", "UpdatedAt"},
	CreatedAttr: "CreatedAt",
	UpdatedAttr: "UpdatedAt",
}

// EntitySchema implements entity.Item.
func (*ContactInquiry) EntitySchema() *entity.Schema { return contactInquirySchema }

// PrimaryKey implements entity.Item.
func (v *ContactInquiry) PrimaryKey() (entity.Key, error) { return ContactInquiryKey(v.ID) }

// MarshalItem implements entity.Item.
func (v *ContactInquiry) MarshalItem() (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, 17)
	item["Type"] = &types.AttributeValueMemberS{Value: ContactInquiryType}
	item["id"] = &types.AttributeValueMemberS{Value: v.ID}
	item["name"] = &types.AttributeValueMemberS{Value: v.Name}
	item["email"] = &types.AttributeValueMemberS{Value: v.Email}
	if v.Company != "" {
		item["company"] = &types.AttributeValueMemberS{Value: v.Company}
	}
	if v.Title != "" {
		item["title"] = &types.AttributeValueMemberS{Value: v.Title}
	}
	if v.Referral != "" {
		item["referral"] = &types.AttributeValueMemberS{Value: v.Referral}
	}
	if v.Subject != "" {
		item["subject"] = &types.AttributeValueMemberS{Value: v.Subject}
	}
	item["message"] = &types.AttributeValueMemberS{Value: v.Message}
	item["status"] = &types.AttributeValueMemberS{Value: v.Status}
	if v.NotifiedEmail != "" {
		item["notifiedEmail"] = &types.AttributeValueMemberS{Value: v.NotifiedEmail}
	}
	if !v.CreatedAt.IsZero() {
		item["CreatedAt"] = &types.AttributeValueMemberS{Value: v.CreatedAt.UTC().Format(kgIsoSec)}
	}
	if !v.UpdatedAt.IsZero() {
		item["UpdatedAt"] = &types.AttributeValueMemberS{Value: v.UpdatedAt.UTC().Format(kgIsoSec)}
	}
	if s, err := contactInquirySchema.Keys[0].Build(item); err == nil {
		item["PK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	if s, err := contactInquirySchema.Keys[1].Build(item); err == nil {
		item["SK"] = &types.AttributeValueMemberS{Value: s}
	} else if true {
		return nil, err
	}
	return item, nil
}

// UnmarshalItem implements entity.Item.
func (v *ContactInquiry) UnmarshalItem(item map[string]types.AttributeValue) error {
	*v = ContactInquiry{}
	var err error
	if av, ok := item["id"]; ok {
		if v.ID, err = kgDecS("id", av); err != nil {
			return err
		}
	}
	if av, ok := item["name"]; ok {
		if v.Name, err = kgDecS("name", av); err != nil {
			return err
		}
	}
	if av, ok := item["email"]; ok {
		if v.Email, err = kgDecS("email", av); err != nil {
			return err
		}
	}
	if av, ok := item["company"]; ok {
		if v.Company, err = kgDecS("company", av); err != nil {
			return err
		}
	}
	if av, ok := item["title"]; ok {
		if v.Title, err = kgDecS("title", av); err != nil {
			return err
		}
	}
	if av, ok := item["referral"]; ok {
		if v.Referral, err = kgDecS("referral", av); err != nil {
			return err
		}
	}
	if av, ok := item["subject"]; ok {
		if v.Subject, err = kgDecS("subject", av); err != nil {
			return err
		}
	}
	if av, ok := item["message"]; ok {
		if v.Message, err = kgDecS("message", av); err != nil {
			return err
		}
	}
	if av, ok := item["status"]; ok {
		if v.Status, err = kgDecS("status", av); err != nil {
			return err
		}
	}
	if av, ok := item["notifiedEmail"]; ok {
		if v.NotifiedEmail, err = kgDecS("notifiedEmail", av); err != nil {
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

// Typed fields of ContactInquiry, for update setters.
var (
	ContactInquiryID            = entity.Field[ContactInquiry, string]{Name: "id", Encode: kgEncS}
	ContactInquiryName          = entity.Field[ContactInquiry, string]{Name: "name", Encode: kgEncS}
	ContactInquiryEmail         = entity.Field[ContactInquiry, string]{Name: "email", Encode: kgEncS}
	ContactInquiryCompany       = entity.Field[ContactInquiry, string]{Name: "company", Encode: kgEncSOmit}
	ContactInquiryTitle         = entity.Field[ContactInquiry, string]{Name: "title", Encode: kgEncSOmit}
	ContactInquiryReferral      = entity.Field[ContactInquiry, string]{Name: "referral", Encode: kgEncSOmit}
	ContactInquirySubject       = entity.Field[ContactInquiry, string]{Name: "subject", Encode: kgEncSOmit}
	ContactInquiryMessage       = entity.Field[ContactInquiry, string]{Name: "message", Encode: kgEncS}
	ContactInquiryStatus        = entity.Field[ContactInquiry, string]{Name: "status", Encode: kgEncS}
	ContactInquiryNotifiedEmail = entity.Field[ContactInquiry, string]{Name: "notifiedEmail", Encode: kgEncSOmit}
	ContactInquiryCreatedAt     = entity.Field[ContactInquiry, time.Time]{Name: "CreatedAt", Encode: kgEncTime}
	ContactInquiryUpdatedAt     = entity.Field[ContactInquiry, time.Time]{Name: "UpdatedAt", Encode: kgEncTime}
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
