package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablekit/tablekit/cache"
)

// profile is the JSON value cached at user:profile:{user_id}.
type profile struct {
	UserID string `json:"user_id"`
	Name   string `json:"name"`
	Tier   string `json:"tier"`
}

// cachePatterns shows the seed's cache key patterns with string, hash,
// set and sorted-set operations. It returns the keys to delete at the end.
func cachePatterns(ctx context.Context, w io.Writer, cc *cache.Cache) ([]string, error) {
	const (
		profileKey  = "user:profile:123"
		settingsKey = "user:settings:123"
		permsKey    = "user:permissions:123"
		boardKey    = "leaderboard:daily"
	)
	keys := []string{profileKey, settingsKey, permsKey, boardKey, "user:profile:404"}

	// String: set_string / get_string with a JSON profile.
	b, _ := json.Marshal(profile{UserID: "123", Name: "Kim", Tier: "gold"})
	if err := cc.Set(ctx, profileKey, string(b), time.Hour); err != nil {
		return nil, err
	}
	got, err := cc.Get(ctx, profileKey)
	if err != nil {
		return nil, err
	}
	full, _ := cc.Key(profileKey)
	fmt.Fprintf(w, "string %s = %s\n", full, got)
	if _, err := cc.Get(ctx, "user:profile:404"); errors.Is(err, cache.ErrMiss) {
		fmt.Fprintln(w, "string user:profile:404: cache: miss")
	} else if err != nil {
		return nil, err
	}

	// Cache-aside: the loader runs on the miss only.
	loads := 0
	for range 3 {
		if _, err := cache.GetOrLoad(ctx, cc, "user:profile:404", time.Minute, func(context.Context) (profile, error) {
			loads++
			return profile{UserID: "404", Name: "Lee", Tier: "basic"}, nil
		}); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "cache-aside user:profile:404 read 3 times: loader ran %d time(s)\n", loads)

	// Hash: set_hash_all / get_hash_all.
	if err := cc.HSetAll(ctx, settingsKey, map[string]string{
		"theme": "dark", "language": "ko", "notifications": "true",
	}, time.Hour); err != nil {
		return nil, err
	}
	settings, err := cc.HGetAll(ctx, settingsKey)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "hash %s = theme:%s language:%s notifications:%s\n", settingsKey,
		settings["theme"], settings["language"], settings["notifications"])
	if err := cc.HSet(ctx, settingsKey, "theme", "light"); err != nil {
		return nil, err
	}
	theme, err := cc.HGet(ctx, settingsKey, "theme")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "hash %s field theme after HSet = %s\n", settingsKey, theme)

	// Set: permissions.
	if _, err := cc.SAdd(ctx, permsKey, "account:read", "transfer:create"); err != nil {
		return nil, err
	}
	if err := cc.Expire(ctx, permsKey, time.Hour); err != nil {
		return nil, err
	}
	canTransfer, err := cc.SIsMember(ctx, permsKey, "transfer:create")
	if err != nil {
		return nil, err
	}
	canAdmin, err := cc.SIsMember(ctx, permsKey, "admin")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "set %s: transfer:create=%t admin=%t\n", permsKey, canTransfer, canAdmin)

	// Sorted set: set_sorted_value("leaderboard:daily", 95.5, "user:123").
	for member, score := range map[string]float64{"user:123": 95.5, "user:456": 88, "user:789": 99.25, "user:42": 70} {
		if err := cc.ZAdd(ctx, boardKey, member, score); err != nil {
			return nil, err
		}
	}
	if err := cc.Expire(ctx, boardKey, 24*time.Hour); err != nil {
		return nil, err
	}
	top, err := cc.ZRangeByRank(ctx, boardKey, 0, 2, true)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(top))
	for i, m := range top {
		parts[i] = fmt.Sprintf("%d. %s %g", i+1, m.Member, m.Score)
	}
	fmt.Fprintf(w, "sorted set %s top 3: %s\n", boardKey, strings.Join(parts, ", "))
	rank, err := cc.ZRank(ctx, boardKey, "user:123", true)
	if err != nil {
		return nil, err
	}
	score, err := cc.ZScore(ctx, boardKey, "user:123")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "sorted set %s: user:123 ranks #%d with %g\n", boardKey, rank+1, score)
	return keys, nil
}
