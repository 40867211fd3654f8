package session_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cache/session"
)

// A login, a request and a logout. This needs a server, so it has no
// Output and only compiles.
func Example() {
	c, err := cache.New(cache.Options{AppID: "finance_app", Env: "prod", Service: "api",
		Addresses: []string{"my-cache.example.com:6379"}, Cluster: true})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := session.New(c, func(o *session.Options) {
		o.Layout = session.HashTagLayout // one slot per session: atomic on a cluster
		o.MaxSessions = 3
		o.ShardFunc = func(accountDBKey int64) int64 { return accountDBKey % 8 }
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	token, _, err := s.Create(ctx, session.CreateInput{UserAccountID: "acc-1", AccountDBKey: 42, ClientVersion: "1.0"})
	if err != nil {
		log.Fatal(err)
	}
	info, err := s.Validate(ctx, token)
	if err != nil {
		log.Printf("session %s rejected: %v", session.Redact(token), err)
		return
	}
	fmt.Println(info.UserAccountID, info.ShardID)
	_ = s.Logout(ctx, token)
}

// Tokens are logged only in redacted form.
func ExampleRedact() {
	token := session.NewToken()
	fmt.Println(len(token), len(session.Redact(token)) < len(token))
	fmt.Println(session.Redact("AbCdEfGhIjKlMnOp"))
	// Output:
	// 43 true
	// AbCdEf…
}
