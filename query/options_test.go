package query_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit/entity/codex"
	"github.com/tablekit/tablekit/query"
)

func TestPageOptionsWith(t *testing.T) {
	tbl := codexTable(t)
	seed(t, tbl, "c1", 5)
	ctx := context.Background()
	asc := postsQ(tbl, "c1").Sort(query.BeginsWith(codex.PostSKPrefix))
	tests := []struct {
		name string
		q    query.Query[codex.Post, *codex.Post]
		o    query.PageOptions
		want string
	}{
		{"zero value: default limit, query's order", asc, query.PageOptions{}, "p00,p01,p02"},
		{"limit", asc, query.PageOptions{Limit: 2}, "p00,p01"},
		{"reverse of ascending", asc, query.PageOptions{Reverse: true}, "p04,p03,p02"},
		{"reverse of descending", asc.Desc(), query.PageOptions{Reverse: true}, "p00,p01,p02"},
		{"descending", asc.Desc(), query.PageOptions{Limit: 4}, "p04,p03,p02,p01"},
		{"consistent", asc, query.PageOptions{Limit: 1, ConsistentRead: true}, "p00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.q.With(tt.o, 3).Page(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(p.Items); got != tt.want {
				t.Errorf("items %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("after", func(t *testing.T) {
		first, err := asc.With(query.PageOptions{Limit: 2, Reverse: true}, 3).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := asc.With(query.PageOptions{Limit: 2, Reverse: true, After: first.Next}, 3).Page(ctx)
		if err != nil || ids(first.Items)+"|"+ids(rest.Items) != "p04,p03|p02,p01" {
			t.Fatalf("pages %s | %s, %v", ids(first.Items), ids(rest.Items), err)
		}
	})
	bad := []struct {
		name string
		q    query.Query[codex.Post, *codex.Post]
		o    query.PageOptions
		want error
	}{
		{"consistent read of a GSI", query.New[codex.Post](tbl, "gsi").Index(codex.TypeCreatedAt).Partition(codex.PostType), query.PageOptions{ConsistentRead: true}, query.ErrInvalid},
		{"negative limit", asc, query.PageOptions{Limit: -1}, query.ErrInvalid},
		{"forged cursor", asc, query.PageOptions{After: "x.y"}, query.ErrInvalidCursor},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.q.With(tt.o, 3).Page(ctx); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("collection", func(t *testing.T) {
		reg := query.Register[codex.Post](query.Register[codex.Category](query.NewRegistry()))
		pk, _ := codex.CategoryPK("c1")
		c := query.NewCollection(tbl, "cat", reg).Partition(pk)
		p, err := c.With(query.PageOptions{Limit: 2, Reverse: true, ConsistentRead: true}, 10).Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(query.Of[codex.Post](p.Items)); got != "p04,p03" {
			t.Errorf("collection reversed %s, want p04,p03", got)
		}
	})
}
