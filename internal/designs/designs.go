// Package designs declares the five documented services (seeds 000-004)
// for package design, and writes their generated documents:
// entity/<domain>/DESIGN.md, workbench.json and design.svg for the four
// table services, examples/baseserver/DESIGN.md for seed 002. Run
//
//	go generate ./internal/designs
//
// after changing an entity, a pattern or a cache key; TestFresh fails when
// a committed file is stale (the check mode, run by the test command).
package designs

//go:generate go run ./gen

import (
	"path/filepath"
	"time"

	"github.com/tablekit/tablekit/cache/session"
	"github.com/tablekit/tablekit/design"
	"github.com/tablekit/tablekit/entity"
	cx "github.com/tablekit/tablekit/entity/codex"
	ce "github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/entity/idp/idpcache"
	pe "github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/query"
	qcodex "github.com/tablekit/tablekit/query/codex"
	qcontent "github.com/tablekit/tablekit/query/content"
	qidp "github.com/tablekit/tablekit/query/idp"
	qpart "github.com/tablekit/tablekit/query/participation"
)

// Commands the cache sends on connecting and for its health check, with
// valkey-glide (the default backend).
var connCommands = []string{"hello", "client|setname", "ping", "info"}

// Commands of the cache's guarded paths: generation-checked scripts.
var scriptCommands = []string{"evalsha", "eval", "script|load"}

func ents(items ...entity.Item) []design.Entity {
	out := make([]design.Entity, len(items))
	for i, it := range items {
		out[i] = design.Entity{Schema: it.EntitySchema()}
	}
	return out
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Codex is seed 001.
func Codex() design.Service {
	return design.Service{
		Name: "codex", Title: "Codex Agent Unified Data Layer — DynamoDB single-table design (seed 001)",
		Table:    cx.NewTable(nil, ""),
		Entities: ents(&cx.User{}, &cx.Category{}, &cx.Post{}, &cx.Banner{}, &cx.CorpInfo{}, &cx.ContactInquiry{}),
		Patterns: append(append([]query.Pattern(nil), qcodex.Patterns...), qcodex.Writes...),
		Samples: []entity.Item{
			// The seed's user has no UpdatedAt; the runtime stamps it on create.
			&cx.User{ID: "u001", DisplayName: "김대연", Role: "admin", CreatedAt: at("2025-11-14T03:00:00Z"), UpdatedAt: at("2025-11-14T03:00:00Z")},
			&cx.Category{ID: "c001", Title: "회사 소식", Desc: "보도자료 및 공지", CreatedAt: at("2025-11-10T01:00:00Z"), UpdatedAt: at("2025-11-10T01:00:00Z")},
			&cx.Post{ID: "p001", CategoryID: "c001", AuthorID: "u001", Title: "2025년 3월 사업보고서", Contents: "Markdown contents...",
				CreatedAt: at("2025-11-12T05:00:00Z"), UpdatedAt: at("2025-11-12T05:30:00Z")},
			&cx.Banner{ID: "bn001", Title: "2025 신규 프로젝트", Desc: "지금 문의하기", ImgURI: "https://cdn.fm-web/banner/bn001.png",
				Btn1Text: "자세히 보기", Btn2Text: "문의하기", CreatedAt: at("2025-11-13T09:00:00Z"), UpdatedAt: at("2025-11-13T09:00:00Z")},
			&cx.CorpInfo{ID: cx.CorpID, Name: "패밀리매니지먼트", Address: "서울특별시 ...", Email: "contact@family.com", Fax: "+82-2-000-0000",
				CorpNum: "123-45-67890", CreatedAt: at("2025-11-14T00:00:00Z"), UpdatedAt: at("2025-11-14T00:00:00Z")},
			&cx.ContactInquiry{ID: "inq001", Name: "홍길동", Email: "user@example.com", Company: "패밀리매니지먼트", Title: "팀장", Referral: "search",
				Subject: "협업 문의", Message: "협업 관련해서 문의드립니다.", Status: "new", NotifiedEmail: "contact@family.com",
				CreatedAt: at("2025-11-15T09:00:00Z"), UpdatedAt: at("2025-11-15T09:00:00Z")},
		},
		Notes: []string{
			"Post IDs are time-ordered (keys.NewID), so `POST#<id>` sorts by creation time as §2.3 asks.",
			"`codex/newest-of-type` is §3.2's \"Type별 전체 데이터 조회\" for any Type; 모든 배너 조회 is its Banner case and shares its cursors.",
			"`codex/category-with-posts` reads a category and its posts in one Query (§3.1 계층 관계); not a row of §4.2.",
		},
	}
}

// IDP is seed 000, with its list caches (package idpcache).
func IDP() design.Service {
	list := func(key, inv string) design.ValkeyKey {
		return design.ValkeyKey{Key: key, Kind: "string", TTL: idpcache.ListTTL, Use: "cache-aside (singleflight)", Invalidated: inv,
			Commands: append([]string{"get", "set", "del", "exists", "pexpire"}, scriptCommands...), Companion: true}
	}
	item := func(typ string) design.ValkeyKey {
		return design.ValkeyKey{Key: "ent:" + typ + ":{PK}:{SK}", Kind: "string", TTL: idpcache.ListTTL,
			Use: "read-through item cache of the cached store (package cachestore)", Invalidated: "every write of the item",
			Commands: append([]string{"get", "set", "del", "exists", "pexpire"}, scriptCommands...), Companion: true}
	}
	return design.Service{
		Name: "idp", Title: "idp_v2.backend — DynamoDB single-table design and Valkey caches (seed 000)",
		Table:     idp.NewTable(nil, ""),
		Entities:  ents(&idp.Project{}, &idp.Document{}, &idp.Workflow{}, &idp.Segment{}, &idp.Artifact{}, &idpcache.Session{}, &idpcache.Agent{}),
		Patterns:  append(append([]query.Pattern(nil), qidp.Patterns...), qidp.Writes...),
		Namespace: "{app_id}:{env}:{service}",
		Conn:      connCommands,
		Caches: []design.ValkeyKey{
			list("query_projects", "프로젝트 생성/수정/삭제 시"),
			list("session_list:{user_id}:{project_id}", "세션 생성/수정/삭제 시"),
			list("agent_list:{user_id}:{project_id}", "에이전트 생성/수정/삭제 시"),
			item("PROJECT"), item("SESSION"), item("AGENT"),
		},
		Notes: []string{
			"SESSION and AGENT are the smallest entities that carry what the cache keys need; the seed names query_sessions and query_agents without laying out their items.",
			"Segment indexes are fixed-width (`SEG#{SegmentIndex:6}` writes SEG#000002), so SEG#2 sorts before SEG#10.",
			"A session create also invalidates session_list (the seed's table lists update/delete only).",
		},
	}
}

// Participation is seed 004.
func Participation() design.Service {
	return design.Service{
		Name: "participation", Title: "Event participation — access pattern mapping (seed 004)",
		Table:    pe.NewTable(nil, ""),
		Entities: ents(&pe.IdempotencyLock{}, &pe.Request{}, &pe.EventCapacity{}, &pe.RequestStatusLog{}, &pe.OpenRequest{}),
		Patterns: append(append([]query.Pattern(nil), qpart.Patterns...), qpart.Writes...),
		Notes: []string{
			"OpenRequest (`OPEN#{Shard}`) is the reconciler's marker of a request not yet final, so a crash between the steps of the seed never strands a request.",
			"The lock, the request and the marker are written in one TransactWriteItems (the seed's PutItem rows), so a request never exists without its lock (easy mistake 1).",
		},
	}
}

// Content is seed 003 on the single table, with its Valkey caches.
func Content() design.Service {
	return design.Service{
		Name: "content", Title: "Content service — single-table design and Valkey caches (seed 003)",
		Table:     ce.NewTable(nil, ""),
		Entities:  ents(&ce.Content{}, &ce.GeneratedImage{}, &ce.Job{}),
		Patterns:  append(append([]query.Pattern(nil), qcontent.Patterns...), qcontent.Writes...),
		Namespace: "{app_id}:{env}:{service}",
		Conn:      connCommands,
		Caches: []design.ValkeyKey{
			{Key: "job:{jobId}", Kind: "hash", TTL: ce.JobCacheTTL, Use: "write-through on every job write", Invalidated: "on a failed write",
				Commands: append([]string{"hgetall", "hget", "hmget", "hset", "del", "exists", "get", "set", "pexpire"}, scriptCommands...), Companion: true},
			{Key: "image:{eventId}:{style}:{platform}", Kind: "hash", TTL: ce.ImageCacheTTL, Use: "written on generation; cache-aside on a miss",
				Invalidated: "on selection and regeneration", Commands: append([]string{"hgetall", "hget", "hset", "del", "exists", "get", "set", "pexpire"}, scriptCommands...), Companion: true},
			{Key: "ai:event:{eventId}", Kind: "string (JSON)", TTL: ce.AIEventCacheTTL, Use: "cache-aside; write-through when the AI result arrives",
				Commands: append([]string{"get", "set", "del", "exists", "pexpire"}, scriptCommands...), Companion: true},
		},
		Notes: []string{
			"Seed 003 is a relational design; here it is ported to the single table (SPEC.md §4): Content `EVENT#{EventID}`/`CONTENT`, GeneratedImage under the same partition, Job `JOB#{ID}`/`META` with GSI1 by event and GSI2 by status.",
			"Retention uses the TTL attribute `ttl`: images 90 days, jobs 30 days.",
		},
	}
}

// BaseServer is seed 002: the Valkey key namespace, sessions and locks.
func BaseServer() design.Service {
	return design.Service{
		Name: "baseserver", Title: "Base server — Valkey keys, cache, sessions and locks (seed 002)",
		Namespace: "{app_id}:{env}:{service}",
		Conn:      connCommands,
		Caches:    SessionKeys(),
		Locks:     LockKeys(),
		Notes: []string{
			"Locks live under `{app_id}:{env}:lock:{key}` (no service part), so every service of an app shares them; their fence counter is the companion `{<lock key>}:fence`.",
			"The concurrent-session limit evicts the truly oldest session: `user:sessions:{user}` is a sorted set scored by login time (the seed's `set_members()[0]` is not the oldest).",
		},
	}
}

// SessionKeys are seed 002's session keys (cache/session), under the
// namespace with the service "session".
func SessionKeys() []design.ValkeyKey {
	return []design.ValkeyKey{
		{Key: "accessToken:{token}", Kind: "string", TTL: session.DefaultTTL, Use: "token -> session id; expiry refreshed on access",
			Invalidated: "logout, eviction", Commands: append([]string{"get", "set", "pexpire", "del", "exists"}, scriptCommands...)},
		{Key: "sessionInfo:{token}", Kind: "hash", TTL: session.DefaultTTL, Use: "session fields; expiry refreshed on access",
			Invalidated: "logout, eviction", Commands: append([]string{"hgetall", "hget", "hset", "pexpire", "del", "exists"}, scriptCommands...)},
		{Key: "user:sessions:{user_id}", Kind: "zset", Use: "a user's sessions by login time (concurrent-session limit)",
			Commands: append([]string{"zadd", "zcard", "zrange", "zrem", "zremrangebyrank", "zremrangebyscore", "zscore", "pexpire", "del"}, scriptCommands...)},
	}
}

// LockKeys are seed 002's lock keys (lock/valkeylock), under
// {app_id}:{env} (no service part).
func LockKeys() []design.ValkeyKey {
	return []design.ValkeyKey{
		{Key: "lock:{key}", Namespace: "{app_id}:{env}", Kind: "string", Use: "SET NX PX token with the fence INCR (MULTI/EXEC); compare-and-delete release, compare-and-extend",
			Invalidated: "release, expiry, ForceReleaseAll",
			Commands:    append([]string{"set", "get", "del", "exists", "incr", "pexpire", "time", "multi", "exec"}, scriptCommands...), Companion: true},
	}
}

// workbenchMeta dates the Workbench models with seed 001's version date,
// so that a regenerated file is identical.
var workbenchMeta = design.WorkbenchMeta{Author: "tablekit design (generated)", DateCreated: "Nov 14, 2025, 12:00 AM", DateLastModified: "Nov 14, 2025, 12:00 AM"}

// File is one generated file.
type File struct {
	Path string // relative to the module root
	Data []byte
}

// All returns every service.
func All() []design.Service {
	return []design.Service{Codex(), IDP(), Participation(), Content(), BaseServer()}
}

// Dir returns the directory of a service's documents, relative to the
// module root.
func Dir(s design.Service) string {
	if s.Table == nil {
		return filepath.Join("examples", s.Name)
	}
	return filepath.Join("entity", s.Name)
}

// Files renders every generated file of the services.
func Files(services []design.Service) ([]File, error) {
	var out []File
	for _, s := range services {
		dir := Dir(s)
		out = append(out, File{filepath.Join(dir, "DESIGN.md"), design.Markdown(s)})
		if s.Table != nil {
			pol, err := design.IAMPolicy(s, "")
			if err != nil {
				return nil, err
			}
			cfn, err := design.CloudFormationPolicy(s, "")
			if err != nil {
				return nil, err
			}
			wb, err := design.Workbench(s, workbenchMeta)
			if err != nil {
				return nil, err
			}
			svg, err := design.SVG(s)
			if err != nil {
				return nil, err
			}
			out = append(out, File{filepath.Join(dir, "workbench.json"), wb}, File{filepath.Join(dir, "design.svg"), svg})
			out = append(out, File{filepath.Join(dir, "iam-policy.json"), append(pol, '\n')},
				File{filepath.Join(dir, "iam-policy.cfn.json"), append(cfn, '\n')})
		}
		if len(s.Caches)+len(s.Locks)+len(s.Idempotency) > 0 {
			// A template for envsubst: fill in the namespace and password.
			acl := design.ACL(s, s.Name, "$PASSWORD", map[string]string{"app_id": "$APP_ID", "env": "$ENV", "service": "$SERVICE"}) + "\n"
			out = append(out, File{filepath.Join(dir, "valkey-acl.txt"), []byte(acl)})
		}
	}
	return out, nil
}
