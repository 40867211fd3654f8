package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tablekit/tablekit/internal/bench/benchent"
)

// avPost is benchent.Post as attributevalue sees it: the key and Type
// attributes are plain fields there.
type avPost struct {
	PK         string
	SK         string
	Type       string
	ID         string    `dynamodbav:"id"`
	CategoryID string    `dynamodbav:"categoryId"`
	AuthorID   string    `dynamodbav:"authorId"`
	Title      string    `dynamodbav:"title"`
	Contents   string    `dynamodbav:"contents"`
	CreatedAt  time.Time `dynamodbav:"CreatedAt"`
	UpdatedAt  time.Time `dynamodbav:"UpdatedAt"`
	Tags       []string  `dynamodbav:"tags"`
	Views      int64     `dynamodbav:"views"`
	Version    int64     `dynamodbav:"version"`
}

// The times have a non-zero last millisecond digit, so attributevalue's
// RFC 3339 form and keygen's fixed-width milliseconds coincide.
func samplePost() benchent.Post {
	return benchent.Post{
		ID:         "01JCZ3NDEKTSV4RRFFQ69G5FAV",
		CategoryID: "c001",
		AuthorID:   "u001",
		Title:      "Single-table design notes",
		Contents:   strings.Repeat("0123456789abcdef", 64), // 1 KiB
		CreatedAt:  time.Date(2025, 11, 12, 5, 0, 0, 123e6, time.UTC),
		UpdatedAt:  time.Date(2025, 11, 13, 6, 30, 15, 457e6, time.UTC),
		Tags:       []string{"dynamodb", "go", "design"},
		Views:      1234567,
		Version:    42,
	}
}

func sampleAVPost(t testing.TB) avPost {
	p := samplePost()
	k, err := p.PrimaryKey()
	if err != nil {
		t.Fatal(err)
	}
	return avPost{
		PK: k.PK, SK: k.SK, Type: benchent.PostType,
		ID: p.ID, CategoryID: p.CategoryID, AuthorID: p.AuthorID, Title: p.Title, Contents: p.Contents,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Tags: p.Tags, Views: p.Views, Version: p.Version,
	}
}

var avOpts = cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{}, types.AttributeValueMemberL{})

// TestCodecsAgree checks that the generated codec and attributevalue
// produce the same item for the same post, and decode each other's.
func TestCodecsAgree(t *testing.T) {
	p := samplePost()
	gen, err := p.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := attributevalue.MarshalMap(sampleAVPost(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(gen) != 13 {
		t.Errorf("generated item has %d attributes, want 13", len(gen))
	}
	if diff := cmp.Diff(ref, gen, avOpts); diff != "" {
		t.Errorf("items differ (-attributevalue +generated):\n%s", diff)
	}
	var back benchent.Post
	if err := back.UnmarshalItem(ref); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("generated decode of attributevalue's item (-want +got):\n%s", diff)
	}
	var avBack avPost
	if err := attributevalue.UnmarshalMap(gen, &avBack); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleAVPost(t), avBack); diff != "" {
		t.Errorf("attributevalue decode of the generated item (-want +got):\n%s", diff)
	}
}

var (
	sinkItem map[string]types.AttributeValue
	sinkStr  string
)

func BenchmarkCodec(b *testing.B) {
	p := samplePost()
	ap := sampleAVPost(b)
	item, err := p.MarshalItem()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("marshal/generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := p.MarshalItem()
			if err != nil {
				b.Fatal(err)
			}
			sinkItem = m
		}
	})
	b.Run("marshal/attributevalue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := attributevalue.MarshalMap(ap)
			if err != nil {
				b.Fatal(err)
			}
			sinkItem = m
		}
	})
	b.Run("unmarshal/generated", func(b *testing.B) {
		b.ReportAllocs()
		var out benchent.Post
		for b.Loop() {
			if err := out.UnmarshalItem(item); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal/attributevalue", func(b *testing.B) {
		b.ReportAllocs()
		var out avPost
		for b.Loop() {
			out = avPost{}
			if err := attributevalue.UnmarshalMap(item, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkKey builds and parses the two-field key
// "USR#{UserID}#PROJ#{ProjectID}#ART" with the generated functions.
func BenchmarkKey(b *testing.B) {
	user, project := "u001", "p-2f9c"
	key, err := benchent.ArtifactGSI2PK(user, project)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			k, err := benchent.ArtifactGSI2PK(user, project)
			if err != nil {
				b.Fatal(err)
			}
			sinkStr = k
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, p, err := benchent.ParseArtifactGSI2PK(key)
			if err != nil || u != user || p != project {
				b.Fatal(u, p, err)
			}
		}
	})
}
