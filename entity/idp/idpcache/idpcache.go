// Package idpcache is seed 000's cache section on package cachestore: the
// three list caches of the idp backend as derived-cache declarations, so
// that writes through cached stores enforce the seed's invalidation table
// instead of every handler calling invalidate(key) by hand.
//
//	key                                   loader          TTL     invalidated by (seed 000)
//	query_projects                        query_projects  3600 s  project create/update/delete
//	session_list:{user_id}:{project_id}   query_sessions  3600 s  session update/delete (and create)
//	agent_list:{user_id}:{project_id}     query_agents    3600 s  agent create/update/delete
//
// The seed names query_sessions and query_agents but does not lay out
// their items; [Session] and [Agent] are the smallest entities that carry
// what the keys need (user_id, project_id), in the seed's key style. A
// session create invalidates session_list too, which the seed's table
// omits: a list cached before the create would otherwise miss the new
// session for an hour.
//
// With no cache endpoint the cache is bypassed (seed 000): loaders are
// called directly.
package idpcache

//go:generate go run github.com/tablekit/tablekit/keys/keygen

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/idp"
)

// ListTTL is the TTL of the three list caches: 3600 s.
const ListTTL = 3600 * time.Second

// Session is one chat session of a user in a project.
//
//keygen:entity SESSION
//keygen:key PK=USR#{UserID}#PROJ#{ProjectID} SK=SESSION#{SessionID}
type Session struct {
	UserID    string    `ddb:"user_id"`
	ProjectID string    `ddb:"project_id"`
	SessionID string    `ddb:"session_id"`
	Title     string    `ddb:"title,omitempty"`
	CreatedAt time.Time `ddb:"created_at,created"`
	UpdatedAt time.Time `ddb:"updated_at,updated"`
}

// Agent is one agent of a user in a project.
//
//keygen:entity AGENT
//keygen:key PK=USR#{UserID}#PROJ#{ProjectID} SK=AGENT#{AgentID}
type Agent struct {
	UserID    string    `ddb:"user_id"`
	ProjectID string    `ddb:"project_id"`
	AgentID   string    `ddb:"agent_id"`
	Name      string    `ddb:"name,omitempty"`
	CreatedAt time.Time `ddb:"created_at,created"`
	UpdatedAt time.Time `ddb:"updated_at,updated"`
}

// Caches holds the three declarations.
type Caches struct {
	Projects, Sessions, Agents *cachestore.Derived
}

// Declare adds seed 000's list caches to r.
func Declare(r *cachestore.Registry) (Caches, error) {
	var cs Caches
	var err error
	for _, d := range []struct {
		p   **cachestore.Derived
		def cachestore.Derived
	}{
		{&cs.Projects, cachestore.Derived{Name: "query_projects", TTL: ListTTL, On: []string{"PROJECT"}}},
		{&cs.Sessions, cachestore.Derived{Name: "session_list", Fields: []string{"user_id", "project_id"}, TTL: ListTTL, On: []string{"SESSION"}}},
		{&cs.Agents, cachestore.Derived{Name: "agent_list", Fields: []string{"user_id", "project_id"}, TTL: ListTTL, On: []string{"AGENT"}}},
	} {
		if *d.p, err = r.Declare(d.def); err != nil {
			return Caches{}, fmt.Errorf("idpcache: %w", err)
		}
	}
	return cs, nil
}

// Stores are the cached stores of the seed 000 entities that the list
// caches depend on, sharing one registry.
type Stores struct {
	Caches   Caches
	Projects *cachestore.Store[idp.Project, *idp.Project]
	Sessions *cachestore.Store[Session, *Session]
	Agents   *cachestore.Store[Agent, *Agent]
}

// New declares the list caches in a new registry and returns cached stores
// of Project, Session and Agent on table t and cache c.
func New(t *entity.Table, c *cache.Cache, optFns ...func(*cachestore.Options)) (*Stores, error) {
	r := cachestore.NewRegistry()
	cs, err := Declare(r)
	if err != nil {
		return nil, err
	}
	opts := append([]func(*cachestore.Options){func(o *cachestore.Options) { o.Registry = r }}, optFns...)
	s := &Stores{Caches: cs}
	if s.Projects, err = cachestore.New(entity.NewStore[idp.Project](t), c, opts...); err != nil {
		return nil, err
	}
	if s.Sessions, err = cachestore.New(entity.NewStore[Session](t), c, opts...); err != nil {
		return nil, err
	}
	if s.Agents, err = cachestore.New(entity.NewStore[Agent](t), c, opts...); err != nil {
		return nil, err
	}
	return s, nil
}

// QueryProjects caches the result of query_projects (load).
func QueryProjects[V any](ctx context.Context, s *Stores, load func(context.Context) (V, error)) (V, error) {
	return cachestore.GetDerived(ctx, s.Projects.Cache(), s.Caches.Projects, nil, load)
}

// SessionList caches the result of query_sessions for one user and project.
func SessionList[V any](ctx context.Context, s *Stores, userID, projectID string, load func(context.Context) (V, error)) (V, error) {
	return cachestore.GetDerived(ctx, s.Sessions.Cache(), s.Caches.Sessions, []string{userID, projectID}, load)
}

// AgentList caches the result of query_agents for one user and project.
func AgentList[V any](ctx context.Context, s *Stores, userID, projectID string, load func(context.Context) (V, error)) (V, error) {
	return cachestore.GetDerived(ctx, s.Agents.Cache(), s.Caches.Agents, []string{userID, projectID}, load)
}
