package testredis

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/testsvc"
)

func TestOwnDatabasesAreApartAndEmptied(t *testing.T) {
	ctx := context.Background()
	open := func(u string) *redis.Client {
		opt, err := redis.ParseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(opt)
		t.Cleanup(func() { c.Close() })
		return c
	}
	var first string
	t.Run("lend", func(t *testing.T) {
		a, b := OwnDatabase(t), OwnDatabase(t)
		if a == b || a == URL() || b == URL() {
			t.Fatalf("databases %s and %s (shared: %s)", a, b, URL())
		}
		first = a
		if err := open(a).Set(ctx, "k", "a", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if n, err := open(b).Exists(ctx, "k").Result(); err != nil || n != 0 {
			t.Fatalf("a key of %s is in %s (%d, %v)", a, b, n, err)
		}
	})
	// The subtest's cleanup emptied its databases and gave them back.
	if n, err := open(first).DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("%s holds %d keys after its test (%v)", first, n, err)
	}
	again := OwnDatabase(t)
	if n, err := open(again).DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("%s lent with %d keys (%v)", again, n, err)
	}
}

// A TEST_REDIS_URL where no Redis listens is reported at once, with how
// to start one; the server the tests use is reachable.
func TestReachable(t *testing.T) {
	t.Parallel()
	addr := testsvc.ClosedAddr(t)
	err := reachable("redis://" + addr + "/0")
	if err == nil || !strings.HasPrefix(err.Error(), "Redis is not reachable at "+addr+" (") ||
		!strings.Contains(err.Error(), "run `make services`") || !strings.Contains(err.Error(), "TEST_REDIS_URL") {
		t.Errorf("closed port: %v", err)
	}
	if err := Reachable(); err != nil {
		t.Errorf("the tests' own server: %v", err)
	}
}
