// Package testredis gives each test its own namespace on the shared Redis:
// queue names and keys are prefixed with it, and its keys are removed when
// the test ends.
package testredis

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/testsvc"
)

// URL is the Redis tests use (TEST_REDIS_URL).
func URL() string {
	if v := os.Getenv("TEST_REDIS_URL"); v != "" {
		return v
	}
	return "redis://127.0.0.1:6379/0"
}

// Reachable returns nil when the Redis of URL accepts connections, and
// otherwise an error saying how to start it (testsvc), after one short
// connect attempt: Namespace and OwnDatabase fail with it at once.
func Reachable() error { return reachable(URL()) }

func reachable(raw string) error {
	opt, err := redis.ParseURL(raw)
	if err != nil {
		return fmt.Errorf("TEST_REDIS_URL: %w", err)
	}
	return testsvc.Reachable("Redis", opt.Network, opt.Addr, "TEST_REDIS_URL")
}

// options are the parsed URL, once Redis was found reachable there.
func options(t testing.TB) *redis.Options {
	t.Helper()
	if err := Reachable(); err != nil {
		t.Fatalf("testredis: %v", err)
	}
	opt, err := redis.ParseURL(URL())
	if err != nil {
		t.Fatalf("testredis: %v", err)
	}
	return opt
}

// Namespace returns a fresh namespace and removes its keys in t.Cleanup.
func Namespace(t testing.TB) string {
	t.Helper()
	ns := "t" + ids.New()[:12]
	opt := options(t)
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

// databases are the logical Redis databases OwnDatabase lends, one test at
// a time across every test binary; 0 holds the namespaces and the leases.
const firstLent, lastLent = 1, 15

// OwnDatabase returns the URL of a logical Redis database no other test
// uses while t runs, empty when it is lent, and emptied again in
// t.Cleanup. It is for tests that look at everything Redis holds (the
// queue dashboard lists every queue it finds: another test's queue
// could vanish between the listing and its stats). It waits while every
// one is lent; a test binary killed with its lease keeps it an hour.
func OwnDatabase(t testing.TB) string {
	t.Helper()
	opt := options(t)
	ctx := context.Background()
	leases := redis.NewClient(opt)
	defer leases.Close()
	holder := ids.New()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		for n := firstLent; n <= lastLent; n++ {
			key := fmt.Sprintf("testredis:database:%d", n)
			ok, err := leases.SetNX(ctx, key, holder, time.Hour).Result()
			if err != nil {
				t.Fatalf("testredis: lease database %d: %v", n, err)
			}
			if !ok {
				continue
			}
			own := *opt
			own.DB = n
			flush := func() error {
				c := redis.NewClient(&own)
				defer c.Close()
				return c.FlushDB(ctx).Err()
			}
			if err := flush(); err != nil {
				t.Fatalf("testredis: empty database %d: %v", n, err)
			}
			t.Cleanup(func() {
				_ = flush()
				c := redis.NewClient(opt)
				defer c.Close()
				// Only our own lease: compare and delete.
				if v, _ := c.Get(ctx, key).Result(); v == holder {
					c.Del(ctx, key)
				}
			})
			return withDB(URL(), n)
		}
		if time.Now().After(deadline) {
			t.Fatalf("testredis: every database from %d to %d stayed lent for 5 minutes", firstLent, lastLent)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// withDB is a Redis URL with its database number replaced.
func withDB(raw string, n int) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + strconv.Itoa(n)
	return u.String()
}
