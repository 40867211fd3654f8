package session

import (
	"testing"

	"github.com/tablekit/tablekit/cache"
)

// FuzzSessionKeys: distinct tokens and users give distinct server keys,
// in both layouts, and no key of one kind equals a key of another kind.
func FuzzSessionKeys(f *testing.F) {
	f.Add("a:b", "c", "a", "b:c", false)
	f.Add("{t}", "u", "t", "u", true)
	f.Add("0b6f3f1e-8d7c-4c2e-9f3a-1b2c3d4e5f60", "acc-1", "0b6f3f1e-8d7c-4c2e-9f3a-1b2c3d4e5f61", "acc-1", false)
	c, err := cache.New(cache.Options{AppID: "app", Env: "env", Service: "api"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tok1, user1, tok2, user2 string, tags bool) {
		s := &Store{c: c, o: Options{Layout: SeedLayout}}
		if tags {
			s.o.Layout = HashTagLayout
		}
		v, err := c.WithService("session", tags)
		if err != nil {
			t.Fatal(err)
		}
		full := func(k string) string {
			f, err := v.Key(k)
			if err != nil {
				return "invalid:" + k
			}
			return f
		}
		type named struct{ kind, logical, server string }
		var all []named
		add := func(kind, logical, k string) {
			if logical == "" {
				return
			}
			all = append(all, named{kind, logical, full(k)})
		}
		for _, tok := range []string{tok1, tok2} {
			ks := s.tokenKeys(tok)
			add("access", tok, ks[0])
			add("info", tok, ks[1])
		}
		add("user", user1, s.userKey(user1))
		add("user", user2, s.userKey(user2))
		for i := range all {
			for j := range all {
				a, b := all[i], all[j]
				sameLogical := a.kind == b.kind && a.logical == b.logical
				if (a.server == b.server) != sameLogical && a.server[:8] != "invalid:" {
					t.Fatalf("%+v vs %+v", a, b)
				}
			}
		}
	})
}
