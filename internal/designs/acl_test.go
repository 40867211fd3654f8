package designs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cache/session"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/design"
	"github.com/tablekit/tablekit/entity/content"
	"github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/entity/idp/idpcache"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/lock"
	"github.com/tablekit/tablekit/lock/valkeylock"
)

// resp sends one command as a RESP array on a fresh connection and returns
// the raw reply (all of it that arrives within the deadline).
func resp(t *testing.T, addr string, args ...string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatalf("redis %s: %v", addr, err)
	}
	defer c.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var out strings.Builder
	buf := make([]byte, 64<<10)
	for {
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			return out.String()
		}
	}
}

// aclUser creates the user of rule s on the shared Redis and deletes it
// at the end. vars fill the namespace.
func aclUser(t *testing.T, addr string, s design.Service, vars map[string]string) (user, pw string) {
	user = testenv.UniqueName("tk-acl-" + s.Name)
	pw = testenv.UniqueName("pw")
	args := append([]string{"ACL", "SETUSER"}, design.ACLArgs(s, user, pw, vars)...)
	if got := resp(t, addr, args...); !strings.HasPrefix(got, "+OK") {
		t.Fatalf("ACL SETUSER: %q", got)
	}
	t.Cleanup(func() { resp(t, addr, "ACL", "DELUSER", user) })
	t.Logf("%s", design.ACL(s, user, "***", vars))
	return user, pw
}

// aclDenials returns the ACL LOG entries of user (reason and object).
func aclDenials(t *testing.T, addr, user string) []string {
	raw := resp(t, addr, "ACL", "LOG", "128")
	var out []string
	lines := strings.Split(raw, "\r\n")
	for i := 0; i+1 < len(lines); i++ {
		if lines[i] == "username" || lines[i] == "$8" && i+1 < len(lines) && lines[i+1] == "username" {
			continue
		}
	}
	// Entries are maps: find "username" followed by our user, then the
	// "reason" and "object" values of that entry.
	for i := 0; i < len(lines); i++ {
		if lines[i] != "username" || i+2 >= len(lines) || lines[i+2] != user {
			continue
		}
		entry := map[string]string{}
		for j := i - 12; j < i+14 && j+2 < len(lines); j++ {
			if j < 0 {
				continue
			}
			switch lines[j] {
			case "reason", "object", "context":
				entry[lines[j]] = lines[j+2]
			}
		}
		out = append(out, entry["reason"]+" "+entry["object"])
	}
	return out
}

func newCache(t *testing.T, addr, user, pw, app, svc string) *cache.Cache {
	t.Helper()
	c, err := cache.New(cache.Options{AppID: app, Env: "test", Service: svc, Addresses: []string{addr}, DisableTLS: true,
		Username: user, Password: pw, RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func noDenials(t *testing.T, addr, user string) {
	t.Helper()
	if d := aclDenials(t, addr, user); len(d) > 0 {
		t.Errorf("ACL LOG of %s: %q", user, d)
	}
}

func isNoPerm(err error) bool { return err != nil && strings.Contains(err.Error(), "NOPERM") }

// refused checks that the user is refused a key outside its patterns and a
// command the library does not send, each with NOPERM.
func refused(t *testing.T, addr, user, pw, inside string) {
	t.Helper()
	for _, cmd := range [][]string{
		{"GET", "outside:" + testenv.UniqueName("k")},
		{"KEYS", "*"},
		{"FLUSHALL"},
		{"CONFIG", "GET", "maxmemory"},
		{"GETDEL", inside},
	} {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		w := func(args ...string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "*%d\r\n", len(args))
			for _, a := range args {
				fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
			}
			_, _ = c.Write([]byte(b.String()))
			line, _ := bufio.NewReader(c).ReadString('\n')
			return line
		}
		if got := w("AUTH", user, pw); !strings.HasPrefix(got, "+OK") {
			t.Fatalf("AUTH: %q", got)
		}
		if got := w(cmd...); !strings.HasPrefix(got, "-NOPERM") {
			t.Errorf("%v: %q, want NOPERM", cmd, got)
		}
		c.Close()
	}
}

// TestACLContent runs seed 003's cache flows (job write-through, image
// cache, AI event cache) as a user made from the generated rule.
func TestACLContent(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	app := testenv.UniqueName("acl")
	s := Content()
	user, pw := aclUser(t, addr, s, map[string]string{"app_id": app, "env": "test", "service": "content"})
	c := newCache(t, addr, user, pw, app, "content")
	ctx := context.Background()
	tbl := content.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	svc := content.NewService(tbl, func(o *content.Options) { o.Cache = c })
	j := content.Job{ID: content.NewJobID(), EventID: "evt-acl-1", Kind: content.KindImageGeneration}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(svc.CreateJob(ctx, &j))
	_, err := svc.StartJob(ctx, j.ID)
	must(err)
	_, err = svc.SetProgress(ctx, j.ID, 50)
	must(err)
	_, err = svc.CompleteJob(ctx, j.ID, "done")
	must(err)
	got, err := svc.Job(ctx, j.ID)
	must(err)
	must(c.Invalidate(ctx, content.JobCacheKey(j.ID)))
	got, err = svc.Job(ctx, j.ID) // miss: filled from the table
	must(err)
	if got.Status != content.StatusCompleted {
		t.Fatalf("job %+v", got)
	}
	g := content.GeneratedImage{ID: "img-acl-1", EventID: "evt-acl-1", Style: content.StyleFancy, Platform: content.PlatformInstagram, CDNURL: "https://x/y.png", Width: 1080, Height: 1080}
	must(svc.AddImage(ctx, &g))
	load := func(context.Context) (content.GeneratedImage, error) { return g, nil }
	_, err = svc.Image(ctx, g.EventID, g.Style, g.Platform, load)
	must(err)
	must(svc.InvalidateImage(ctx, g.EventID, g.Style, g.Platform))
	_, err = svc.Image(ctx, g.EventID, g.Style, g.Platform, load)
	must(err)
	_, err = svc.SelectImage(ctx, g.EventID, g.Style, g.Platform, g.ID, true)
	must(err)
	must(svc.PutAIEvent(ctx, content.AIEventData{EventID: "evt-acl-1"}))
	_, err = svc.AIEvent(ctx, "evt-acl-2", func(context.Context) (content.AIEventData, error) {
		return content.AIEventData{EventID: "evt-acl-2"}, nil
	})
	must(err)
	noDenials(t, addr, user)
	refused(t, addr, user, pw, app+":test:content:job:"+j.ID)
}

// TestACLIDP runs seed 000's list caches through the cached stores.
func TestACLIDP(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	app := testenv.UniqueName("acl")
	s := IDP()
	user, pw := aclUser(t, addr, s, map[string]string{"app_id": app, "env": "test", "service": "api"})
	c := newCache(t, addr, user, pw, app, "api")
	ctx := context.Background()
	tbl := idp.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := idpcache.New(tbl, c)
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	list := func(context.Context) ([]string, error) { loads++; return []string{"x"}, nil }
	for i := 0; i < 2; i++ {
		if _, err := idpcache.QueryProjects(ctx, st, list); err != nil {
			t.Fatal(err)
		}
		if _, err := idpcache.SessionList(ctx, st, "u1", "p1", list); err != nil {
			t.Fatal(err)
		}
		if _, err := idpcache.AgentList(ctx, st, "u1", "p1", list); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Projects.Create(ctx, &idp.Project{ProjectID: "p1", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions.Create(ctx, &idpcache.Session{UserID: "u1", ProjectID: "p1", SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Agents.Create(ctx, &idpcache.Agent{UserID: "u1", ProjectID: "p1", AgentID: "a1"}); err != nil {
		t.Fatal(err)
	}
	if loads != 3 {
		t.Errorf("loads %d, want 3 (second round hits)", loads)
	}
	noDenials(t, addr, user)
	refused(t, addr, user, pw, app+":test:api:query_projects")
}

// TestACLSessions runs seed 002's session lifecycle.
func TestACLSessions(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	app := testenv.UniqueName("acl")
	s := BaseServer()
	s.Name, s.Locks = "sessions", nil
	user, pw := aclUser(t, addr, s, map[string]string{"app_id": app, "env": "test", "service": session.DefaultService})
	c := newCache(t, addr, user, pw, app, "api")
	ctx := context.Background()
	ss, err := session.New(c, func(o *session.Options) { o.MaxSessions = 2 })
	if err != nil {
		t.Fatal(err)
	}
	var toks []string
	for i := range 3 {
		tok, _, err := ss.Create(ctx, session.CreateInput{UserAccountID: "u1", AccountDBKey: int64(i + 1), PlatformType: 1, ClientVersion: "1"})
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	if _, err := ss.Validate(ctx, toks[0]); err == nil {
		t.Error("oldest session not evicted")
	}
	if _, err := ss.Validate(ctx, toks[2]); err != nil {
		t.Fatal(err)
	}
	nt, _, err := ss.Rotate(ctx, toks[2])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Sessions(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := ss.Logout(ctx, nt); err != nil {
		t.Fatal(err)
	}
	noDenials(t, addr, user)
	refused(t, addr, user, pw, app+":test:session:accessToken:x")
}

// TestACLLocks runs seed 002's lock flows on the Valkey backend.
func TestACLLocks(t *testing.T) {
	addr := testenv.ValkeyAddr(t)
	app := testenv.UniqueName("acl")
	s := BaseServer()
	s.Name, s.Caches, s.Conn = "locks", nil, []string{"hello", "client|setname", "ping", "info"}
	user, pw := aclUser(t, addr, s, map[string]string{"app_id": app, "env": "test"})
	host, port := testenv.HostPort(t, addr)
	gc := config.NewClientConfiguration().WithAddress(&config.NodeAddress{Host: host, Port: port}).
		WithCredentials(config.NewServerCredentials(user, pw)).WithRequestTimeout(2 * time.Second)
	cl, err := glide.NewClient(gc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	b, err := valkeylock.New(cache.NewGlideConn(cl), func(o *valkeylock.Options) { o.Prefix = app + ":test" })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lk := lock.New(b)
	l, err := lk.Obtain(ctx, "scheduler:outbox_events", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lk.Obtain(ctx, "scheduler:outbox_events", time.Second); !errors.Is(err, lock.ErrNotObtained) {
		t.Fatalf("second obtain: %v", err)
	}
	if ok, err := lk.IsLocked(ctx, "scheduler:outbox_events"); err != nil || !ok {
		t.Fatalf("IsLocked %v %v", ok, err)
	}
	if err := l.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	noDenials(t, addr, user)
	refused(t, addr, user, pw, app+":test:lock:x")
	_ = strconv.Itoa
}
