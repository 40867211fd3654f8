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

// Without a server: bypass mode.

func runBypass(ctx context.Context, w io.Writer, c cfg) error {
	section(w, "cache without a server (bypass mode)")
	cc, err := cache.New(cache.Options{AppID: c.AppID, Env: c.Env, Service: c.Service})
	if err != nil {
		return err
	}
	defer cc.Close()
	if err := showNamespace(w, cc); err != nil {
		return err
	}
	loads := 0
	for range 2 {
		if _, err := cache.GetOrLoad(ctx, cc, "user:profile:123", time.Hour, func(context.Context) (profile, error) {
			loads++
			return profile{UserID: "123", Name: "Kim", Tier: "gold"}, nil
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "GetOrLoad user:profile:123 twice: the loader ran %d times (nothing is cached)\n", loads)
	if _, err := cc.Get(ctx, "user:profile:123"); errors.Is(err, cache.ErrMiss) {
		fmt.Fprintln(w, "Get user:profile:123: cache: miss (reads miss, writes do nothing, nothing fails)")
	}
	if _, err := session.New(cc); errors.Is(err, session.ErrNoServer) {
		fmt.Fprintf(w, "sessions: %v (sessions cannot be bypassed)\n", err)
	}
	m := cc.Metrics()
	fmt.Fprintf(w, "metrics: operations=%d bypassed=%d misses=%d\n", m.Total, m.Bypassed, m.Misses)
	h := cc.Health(ctx)
	fmt.Fprintf(w, "health: healthy=%t enabled=%t (nothing depends on a server)\n", h.Healthy, h.Enabled)
	return nil
}

// showNamespace prints how keys are namespaced: {app_id}:{env}:{service}:{key}.
func showNamespace(w io.Writer, cc *cache.Cache) error {
	fmt.Fprintln(w, "key namespace {app_id}:{env}:{service}:{key}:")
	examples := []struct{ service, key string }{
		{"", "user:profile:123"},
		{"session", "abc123-def456"},
		{"mq", "message:uuid-1234"},
		{"lock", outboxEvents.Key},
	}
	for _, e := range examples {
		v := cc
		if e.service != "" {
			var err error
			if v, err = cc.WithService(e.service, false); err != nil {
				return err
			}
		}
		full, err := v.Key(e.key)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %s\n", full)
	}
	_, err := cc.Key("user:profile:{user_id}")
	fmt.Fprintf(w, "  a placeholder copied from the document is rejected: %v\n", err)
	return nil
}
