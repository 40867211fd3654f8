package idpcache_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/entity/idp/idpcache"
	"github.com/tablekit/tablekit/internal/testenv"
)

type fixture struct {
	s   *idpcache.Stores
	c   *cache.Cache
	ctx context.Context
}

func eachMode(t *testing.T, f func(t *testing.T, fx fixture)) {
	t.Helper()
	tbl := idp.NewTable(testenv.Dynamo(t), testenv.UniqueName("idpcache"))
	ctx := context.Background()
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	for _, run := range []string{"glide/standalone", "glide/cluster", "valkeygo/standalone", "valkeygo/cluster"} {
		be, mode, _ := strings.Cut(run, "/")
		t.Run(run, func(t *testing.T) {
			addrs := []string{}
			if mode == "cluster" {
				addrs = testenv.ValkeyClusterAddrs(t)
			} else {
				addrs = []string{testenv.ValkeyAddr(t)}
			}
			c, err := cache.New(cache.Options{AppID: testenv.UniqueName("idp"), Env: "test", Service: "api",
				Addresses: addrs, Cluster: mode == "cluster", DisableTLS: true, RequestTimeout: time.Second,
				Backend: map[string]cache.Backend{"glide": cache.BackendGlide, "valkeygo": cache.BackendValkeyGo}[be]})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			s, err := idpcache.New(tbl, c)
			if err != nil {
				t.Fatal(err)
			}
			f(t, fixture{s: s, c: c, ctx: ctx})
		})
	}
}

// cached fills key through fill and checks it is in the cache.
func cached(t *testing.T, fx fixture, key string, fill func() error) {
	t.Helper()
	if err := fill(); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.c.Get(fx.ctx, key); err != nil {
		t.Fatalf("%s not cached: %v", key, err)
	}
}

func gone(t *testing.T, fx fixture, key string) {
	t.Helper()
	if v, err := fx.c.Get(fx.ctx, key); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("%s still cached after the write: %q, %v", key, v, err)
	}
}

func list(n int) func(context.Context) ([]string, error) {
	return func(context.Context) ([]string, error) { return make([]string, n), nil }
}

// Seed 000's invalidation table, one test per row and write.
func TestInvalidationQueryProjects(t *testing.T) {
	eachMode(t, func(t *testing.T, fx fixture) {
		fill := func() error { _, err := idpcache.QueryProjects(fx.ctx, fx.s, list(1)); return err }
		p := idp.Project{ProjectID: testenv.UniqueName("p"), Name: "n"}
		k, _ := p.PrimaryKey()
		for _, row := range []struct {
			write string
			do    func() error
		}{
			{"project create", func() error { return fx.s.Projects.Create(fx.ctx, &p) }},
			{"project update", func() error {
				_, err := fx.s.Projects.Update(fx.ctx, k, entity.Changes[idp.Project]{entity.Set(idp.ProjectName, "m")})
				return err
			}},
			{"project delete", func() error { return fx.s.Projects.Delete(fx.ctx, k) }},
			{"project put", func() error { q := p; return fx.s.Projects.Put(fx.ctx, &q) }},
			{"project batch put", func() error { return fx.s.Projects.BatchPut(fx.ctx, []idp.Project{p}) }},
			{"project batch delete", func() error { return fx.s.Projects.BatchDelete(fx.ctx, []entity.Key{k}) }},
		} {
			t.Run(row.write, func(t *testing.T) {
				cached(t, fx, "query_projects", fill)
				if err := row.do(); err != nil {
					t.Fatal(err)
				}
				gone(t, fx, "query_projects")
			})
		}
	})
}

func TestInvalidationSessionList(t *testing.T) {
	eachMode(t, func(t *testing.T, fx fixture) {
		u, pr := "u:1", "p1" // a ':' in an id cannot reach another list
		fill := func() error { _, err := idpcache.SessionList(fx.ctx, fx.s, u, pr, list(2)); return err }
		other := func() error { _, err := idpcache.SessionList(fx.ctx, fx.s, "u", "1:p1", list(3)); return err }
		key := cache.Join("session_list", u, pr)
		s := idpcache.Session{UserID: u, ProjectID: pr, SessionID: "s1", Title: "a"}
		k, _ := s.PrimaryKey()
		for _, row := range []struct {
			write string
			do    func() error
		}{
			{"session create", func() error { return fx.s.Sessions.Create(fx.ctx, &s) }},
			{"session update", func() error {
				_, err := fx.s.Sessions.Update(fx.ctx, k, entity.Changes[idpcache.Session]{entity.Set(idpcache.SessionTitle, "b")})
				return err
			}},
			{"session delete", func() error { return fx.s.Sessions.Delete(fx.ctx, k) }},
		} {
			t.Run(row.write, func(t *testing.T) {
				cached(t, fx, key, fill)
				cached(t, fx, cache.Join("session_list", "u", "1:p1"), other)
				if err := row.do(); err != nil {
					t.Fatal(err)
				}
				gone(t, fx, key)
				if _, err := fx.c.Get(fx.ctx, cache.Join("session_list", "u", "1:p1")); err != nil {
					t.Fatalf("another user's list was invalidated: %v", err)
				}
			})
		}
	})
}

func TestInvalidationAgentList(t *testing.T) {
	eachMode(t, func(t *testing.T, fx fixture) {
		fill := func() error { _, err := idpcache.AgentList(fx.ctx, fx.s, "u2", "p2", list(1)); return err }
		key := "agent_list:u2:p2"
		a := idpcache.Agent{UserID: "u2", ProjectID: "p2", AgentID: "a1", Name: "x"}
		k, _ := a.PrimaryKey()
		for _, row := range []struct {
			write string
			do    func() error
		}{
			{"agent create", func() error { return fx.s.Agents.Create(fx.ctx, &a) }},
			{"agent update", func() error {
				_, err := fx.s.Agents.Update(fx.ctx, k, entity.Changes[idpcache.Agent]{entity.Set(idpcache.AgentName, "y")})
				return err
			}},
			{"agent delete", func() error { return fx.s.Agents.Delete(fx.ctx, k) }},
		} {
			t.Run(row.write, func(t *testing.T) {
				cached(t, fx, key, fill)
				if err := row.do(); err != nil {
					t.Fatal(err)
				}
				gone(t, fx, key)
			})
		}
	})
}
