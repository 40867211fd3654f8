// Package codex has one function per access pattern of the Codex unified
// data layer (seed 001 §4.2), over the entities of package
// github.com/tablekit/tablekit/entity/codex:
//
//	UserByID          PK = USER#<id> AND SK = METADATA
//	CategoryDetail    PK = CATEGORY#<id> AND SK = METADATA
//	PostsOfCategory   PK = CATEGORY#<id> AND begins_with(SK, POST#)
//	PostByID          PK = CATEGORY#<catId> AND SK = POST#<id>
//	Banners           GSI Type_CreatedAt: Type = Banner, newest first
//	CorpInfo          PK = CORP#INFO AND SK = METADATA
//	NewestOfType      GSI Type_CreatedAt: Type = <any entity>, newest first
//	CategoryWithPosts PK = CATEGORY#<id>: the category and its posts in
//	                  one request, decoded by Type
//
// List functions take query.PageOptions last; lists are newest first
// unless PageOptions.Reverse. Reads are eventually consistent unless
// PageOptions.ConsistentRead (or entity.ConsistentRead for single items)
// is given, as seed 001 §8 says; the GSI cannot be read consistently, so
// asking for it there is a query.ErrInvalid error. Single-item lookups
// return an error matching entity.ErrNotFound for a missing item; pages
// carry an opaque signed cursor (package query) and reject a cursor of
// another pattern or partition with query.ErrInvalidCursor.
package codex

import (
	"context"

	cx "github.com/tablekit/tablekit/entity/codex"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/query"
)

// DefaultLimit is the page size of the list patterns when
// query.PageOptions.Limit is 0.
const DefaultLimit = 20

// Pattern names, bound into cursors.
const (
	PatternPostsOfCategory   = "codex/posts-of-category"
	PatternNewestOfType      = "codex/newest-of-type"
	PatternCategoryWithPosts = "codex/category-with-posts"
)

// The access patterns of seed 001 §4.2 (and §3.2's newest-of-type list),
// declared once: the functions below run them, cursors bind to their
// names, and package design renders them into entity/codex/DESIGN.md.
var (
	UserByIDPattern = query.Pattern{Name: "codex/user-by-id", Func: "UserByID", Doc: "특정 유저 조회",
		Op: query.OpGet, Returns: query.Schemas(&cx.User{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "="}, Consistent: true}
	CategoryDetailPattern = query.Pattern{Name: "codex/category-detail", Func: "CategoryDetail", Doc: "카테고리 상세",
		Op: query.OpGet, Returns: query.Schemas(&cx.Category{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "="}, Consistent: true}
	PostsOfCategoryPattern = query.Pattern{Name: PatternPostsOfCategory, Func: "PostsOfCategory", Doc: "카테고리 내 게시물",
		Op: query.OpQuery, Returns: query.Schemas(&cx.Post{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "begins_with"},
		Desc: true, Limit: DefaultLimit, Consistent: true}
	PostByIDPattern = query.Pattern{Name: "codex/post-by-id", Func: "PostByID", Doc: "특정 게시물 조회",
		Op: query.OpGet, Returns: query.Schemas(&cx.Post{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "="}, Consistent: true}
	BannersPattern = query.Pattern{Name: PatternNewestOfType, Func: "Banners", Doc: "모든 배너 조회",
		Op: query.OpQuery, Returns: query.Schemas(&cx.Banner{}), Index: cx.TypeCreatedAt,
		PK: query.KeyCond{Op: "=", Template: cx.BannerType}, Desc: true, Limit: DefaultLimit}
	CorpInfoPattern = query.Pattern{Name: "codex/corp-info", Func: "CorpInfo", Doc: "회사 정보 조회",
		Op: query.OpGet, Returns: query.Schemas(&cx.CorpInfo{}), PK: query.KeyCond{Op: "="}, SK: query.KeyCond{Op: "="}, Consistent: true}
	NewestOfTypePattern = query.Pattern{Name: PatternNewestOfType, Func: "NewestOfType", Doc: "Type별 전체 데이터 조회, 최신순",
		Op: query.OpQuery, Returns: allEntities,
		Index: cx.TypeCreatedAt, PK: query.KeyCond{Op: "=", Template: "{Type}"}, Desc: true, Limit: DefaultLimit}
	CategoryWithPostsPattern = query.Pattern{Name: PatternCategoryWithPosts, Func: "CategoryWithPosts", Doc: "카테고리와 게시물 (한 번의 Query)",
		Op: query.OpQuery, Returns: query.Schemas(&cx.Category{}, &cx.Post{}), PK: query.KeyCond{Op: "="}, Limit: DefaultLimit, Consistent: true}
)

// Writes are the writes of the Codex API layer (entity.Store's Create,
// Put, Update and Delete of every entity, and the migration's batch
// writes), declared so that the design document and the IAM policy list
// them.
var Writes = []query.Pattern{
	{Name: "codex/create", Func: "entity.Store.Create, Put", Doc: "엔티티 생성/저장",
		Op: query.OpPut, Returns: allEntities, PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"},
		Condition: "attribute_not_exists(PK) (Create)"},
	{Name: "codex/update", Func: "entity.Store.Update", Doc: "엔티티 수정 (UpdatedAt 갱신)",
		Op: query.OpUpdate, Returns: allEntities, PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"},
		Condition: "attribute_exists(PK)"},
	{Name: "codex/delete", Func: "entity.Store.Delete", Doc: "엔티티 삭제",
		Op: query.OpDelete, Returns: allEntities, PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"}},
	{Name: "codex/migrate", Func: "migrate.Run", Doc: "레거시 테이블 이관 (Delta, 재실행 가능)",
		Op: query.OpBatchWrite, Returns: allEntities, PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"}},
}

var allEntities = query.Schemas(&cx.User{}, &cx.Category{}, &cx.Post{}, &cx.Banner{}, &cx.CorpInfo{}, &cx.ContactInquiry{})

// Patterns lists every access pattern of the package, in the seed's order.
var Patterns = []query.Pattern{
	UserByIDPattern, CategoryDetailPattern, PostsOfCategoryPattern, PostByIDPattern,
	BannersPattern, CorpInfoPattern, NewestOfTypePattern, CategoryWithPostsPattern,
}

// UserByID returns the user with the given id.
func UserByID(ctx context.Context, t *entity.Table, id string, optFns ...func(*entity.CallOptions)) (cx.User, error) {
	key, err := cx.UserKey(id)
	if err != nil {
		return cx.User{}, &entity.ValidationError{Op: "UserByID", Type: cx.UserType, Field: "id", Err: err}
	}
	return query.Get[cx.User](ctx, t, UserByIDPattern, key, optFns...)
}

// CategoryDetail returns the category with the given id.
func CategoryDetail(ctx context.Context, t *entity.Table, id string, optFns ...func(*entity.CallOptions)) (cx.Category, error) {
	key, err := cx.CategoryKey(id)
	if err != nil {
		return cx.Category{}, &entity.ValidationError{Op: "CategoryDetail", Type: cx.CategoryType, Field: "id", Err: err}
	}
	return query.Get[cx.Category](ctx, t, CategoryDetailPattern, key, optFns...)
}

// PostByID returns one post of a category.
func PostByID(ctx context.Context, t *entity.Table, categoryID, postID string, optFns ...func(*entity.CallOptions)) (cx.Post, error) {
	key, err := cx.PostKey(categoryID, postID)
	if err != nil {
		return cx.Post{}, &entity.ValidationError{Op: "PostByID", Type: cx.PostType, Err: err}
	}
	return query.Get[cx.Post](ctx, t, PostByIDPattern, key, optFns...)
}

// CorpInfo returns the single company-information item (CORP#INFO).
func CorpInfo(ctx context.Context, t *entity.Table, optFns ...func(*entity.CallOptions)) (cx.CorpInfo, error) {
	key, _ := cx.CorpInfoKey()
	return query.Get[cx.CorpInfo](ctx, t, CorpInfoPattern, key, optFns...)
}

// PostsOfCategory returns a page of the category's posts, newest first
// (post IDs are time-ordered, so SK order is creation order).
func PostsOfCategory(ctx context.Context, t *entity.Table, categoryID string, o query.PageOptions) (query.Page[cx.Post], error) {
	pk, err := cx.PostPK(categoryID)
	return query.From[cx.Post](t, PostsOfCategoryPattern, o, pk).PartitionKey(pk, err).Page(ctx)
}

// NewestOfType returns a page of every item of entity T, newest first,
// through the GSI Type_CreatedAt (for instance all posts across
// categories: NewestOfType[codex.Post]).
func NewestOfType[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[T], error) {
	typ := PT(new(T)).EntitySchema().Type
	return query.From[T, PT](t, NewestOfTypePattern, o, typ).Page(ctx)
}

// Banners returns a page of all banners, newest first (seed 001 §3.2).
func Banners(ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[cx.Banner], error) {
	return query.From[cx.Banner](t, BannersPattern, o, cx.BannerType).Page(ctx)
}

// Registry decodes the items of a category partition: Category and Post.
// Other types found there are skipped and counted.
var Registry = query.Register[cx.Post](query.Register[cx.Category](query.NewRegistry()))

// CategoryPage is a category with a page of its posts.
type CategoryPage struct {
	Category *cx.Category // nil when the page does not include it
	Posts    []cx.Post
	Next     string
	Skipped  int // items of types not in Registry
}

// CategoryWithPosts reads a category's partition in one request: the
// category item (SK METADATA) and its posts (SK POST#...), in SK order
// (METADATA sorts before POST#, so the category comes first).
func CategoryWithPosts(ctx context.Context, t *entity.Table, categoryID string, o query.PageOptions) (CategoryPage, error) {
	pk, err := cx.CategoryPK(categoryID)
	if err != nil {
		return CategoryPage{}, &entity.ValidationError{Op: "CategoryWithPosts", Type: cx.CategoryType, Field: "id", Err: err}
	}
	p, err := query.FromCollection(t, CategoryWithPostsPattern, Registry, o, pk).Page(ctx)
	if err != nil {
		return CategoryPage{}, err
	}
	out := CategoryPage{Posts: query.Of[cx.Post](p.Items), Next: p.Next, Skipped: p.Skipped}
	if cs := query.Of[cx.Category](p.Items); len(cs) > 0 {
		out.Category = &cs[0]
	}
	return out, nil
}
