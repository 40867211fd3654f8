package bench

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/shop"
)

// uniqArticle is BenchmarkEntity's post (entPost) as a shop.Article, whose
// slug is unique.
func uniqArticle(i int) shop.Article {
	p := entPost(i)
	return shop.Article{ID: p.ID, CategoryID: p.CategoryID, AuthorID: p.AuthorID, Title: p.Title, Contents: p.Contents,
		Slug: fmt.Sprintf("march-2025-report-%d", i), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

func uniqClient() *dynamodb.Client {
	a := uniqArticle(0)
	item, err := a.MarshalItem()
	if err != nil {
		panic(err)
	}
	rt := entCanned{
		"TransactWriteItems": []byte("{}"),
		"UpdateItem":         entJSON(map[string]any{"Attributes": uniqItemJSON(item)}),
	}
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://dynamodb.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "bench", SecretAccessKey: "bench", Source: "bench"}, nil
		}),
		HTTPClient: &http.Client{Transport: rt},
	})
}

// BenchmarkUnique measures the writes of an entity with a unique field
// (shop.Article: codex.Post's shape plus a unique slug) against canned
// responses, as BenchmarkEntity does for codex.Post. Create is one
// TransactWriteItems (the item and the slug's guard) and no read: compare
// it with BenchmarkEntity/Put. UpdateOther changes the title, which is
// not unique: one UpdateItem, as BenchmarkEntity/Update (goal <= 1.05x).
func BenchmarkUnique(b *testing.B) {
	ctx := context.Background()
	tbl := entity.NewTable(uniqClient(), "FMWebAppTable")
	articles := entity.NewStore[shop.Article](tbl)
	key, _ := shop.ArticleKey("c001", uniqArticle(0).ID)
	b.Run("Create", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			a := uniqArticle(0)
			if err := articles.Create(ctx, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("UpdateOther", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			a, err := articles.Update(ctx, key, entity.Changes[shop.Article]{entity.Set(shop.ArticleTitle, "새 제목 / new title")})
			if err != nil || a.ID == "" {
				b.Fatal(err)
			}
		}
	})
}

func uniqItemJSON(item map[string]types.AttributeValue) map[string]map[string]string {
	out := map[string]map[string]string{}
	for k, v := range item {
		out[k] = map[string]string{"S": v.(*types.AttributeValueMemberS).Value}
	}
	return out
}
