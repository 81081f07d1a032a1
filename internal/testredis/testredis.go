// Package testredis gives each test its own namespace on the shared Redis:
// queue names and keys are prefixed with it, and its keys are removed when
// the test ends.
package testredis

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/ids"
)

// URL is the Redis tests use (TEST_REDIS_URL).
func URL() string {
	if v := os.Getenv("TEST_REDIS_URL"); v != "" {
		return v
	}
	return "redis://127.0.0.1:6379/0"
}

// Namespace returns a fresh namespace and removes its keys in t.Cleanup.
func Namespace(t testing.TB) string {
	t.Helper()
	ns := "t" + ids.New()[:12]
	opt, err := redis.ParseURL(URL())
	if err != nil {
		t.Fatalf("testredis: %v", err)
	}
	t.Cleanup(func() {
		c := redis.NewClient(opt)
		defer c.Close()
		ctx := context.Background()
		iter := c.Scan(ctx, 0, "*"+ns+"*", 500).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
		// asynq keeps the set of all queue names; drop ours.
		members, _ := c.SMembers(ctx, "asynq:queues").Result()
		for _, m := range members {
			if len(m) >= len(ns) && m[:len(ns)] == ns {
				c.SRem(ctx, "asynq:queues", m)
			}
		}
	})
	return ns
}
