package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cache/session"
)

// sessions shows a session lifecycle: create, validate (refresh),
// the concurrent-session limit, rotation and logout.
func sessions(ctx context.Context, w io.Writer, cc *cache.Cache, maxSessions int) error {
	s, err := session.New(cc, func(o *session.Options) {
		o.MaxSessions = maxSessions
		// calculate_shard_id(account_db_key) of the seed.
		o.ShardFunc = func(accountDBKey int64) int64 { return accountDBKey % 4 }
	})
	if err != nil {
		return err
	}
	view, err := cc.WithService(session.DefaultService, true)
	if err != nil {
		return err
	}
	const user = "acc-1001"
	device := "iPhone 15"
	in := session.CreateInput{UserAccountID: user, AccountDBKey: 1001, PlatformType: 1, ClientVersion: "2.4.0", DeviceInfo: &device}

	first, info, err := s.Create(ctx, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "create: token %s session_id=%s user=%s shard_id=%d ttl=%s absolute lifetime: %t\n",
		session.Redact(first), info.SessionID, info.UserAccountID, info.ShardID, session.DefaultTTL,
		!info.ExpiresAt.IsZero())
	// Seed 002's keys exactly (session.HashTagLayout would wrap the token
	// in a cluster hash tag).
	atKey, _ := view.Key("accessToken:" + session.Redact(first))
	siKey, _ := view.Key("sessionInfo:" + session.Redact(first))
	fmt.Fprintf(w, "  keys %s (string) and %s (hash)\n", atKey, siKey)

	time.Sleep(30 * time.Millisecond)
	before, err := view.TTL(ctx, "accessToken:"+first)
	if err != nil {
		return err
	}
	v, err := s.Validate(ctx, first)
	if err != nil {
		return err
	}
	after, err := view.TTL(ctx, "accessToken:"+first)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "validate: ok, last_access_time moved %s past login_time; TTL refreshed %t (%s -> %s)\n",
		v.LastAccessTime.Sub(v.LoginTime).Round(10*time.Millisecond), after > before,
		before.Round(time.Millisecond), after.Round(time.Millisecond))

	tokens := []string{first}
	for range maxSessions {
		t, _, err := s.Create(ctx, in)
		if err != nil {
			return err
		}
		tokens = append(tokens, t)
	}
	_, err = s.Validate(ctx, first)
	fmt.Fprintf(w, "limit %d: %d logins, the oldest (%s) was evicted: %t\n",
		maxSessions, len(tokens), session.Redact(first), errors.Is(err, session.ErrInvalidSession))
	valid := 0
	for _, t := range tokens[1:] {
		if _, err := s.Validate(ctx, t); err == nil {
			valid++
		} else if !errors.Is(err, session.ErrInvalidSession) {
			return err
		}
	}
	tracked, err := s.Sessions(ctx, user)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  the %d newer sessions still validate: %d; tracked oldest first: %d\n", len(tokens)-1, valid, len(tracked))
	fmt.Fprintln(w, "  (the seed evicts set_members()[0], but a Redis set has no order; the store keeps logins in a sorted set by login time)")

	rotated, _, err := s.Rotate(ctx, tokens[1])
	if err != nil {
		return err
	}
	_, oldErr := s.Validate(ctx, tokens[1])
	_, newErr := s.Validate(ctx, rotated)
	fmt.Fprintf(w, "rotate: old token rejected %t, new token valid %t\n", errors.Is(oldErr, session.ErrInvalidSession), newErr == nil)
	tokens[1] = rotated

	if err := s.Logout(ctx, rotated); err != nil {
		return err
	}
	_, err = s.Validate(ctx, rotated)
	fmt.Fprintf(w, "logout: token %s rejected afterwards: %t\n", session.Redact(rotated), errors.Is(err, session.ErrInvalidSession))

	for _, t := range tokens[2:] { // demo cleanup
		if err := s.Logout(ctx, t); err != nil {
			return err
		}
	}
	return nil
}
