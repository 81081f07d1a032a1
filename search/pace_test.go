package search_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// behind is the Postgres engine made to say it indexes behind its writes,
// with the backlog the test sets (an engine such as Meilisearch, whose
// queue the test cannot hold still).
type behind struct {
	*postgres.Engine
	backlog func() (int64, error)
	asked   atomic.Int64
}

func (b *behind) Backlog(ctx context.Context, limit int64) (int64, error) {
	b.asked.Add(1)
	return b.backlog()
}

// TestKeepPace: a harvest waits while its search index is more than
// PaceBacklog documents behind, up to PaceWait, and not at all for an
// engine that indexes as it writes or that cannot say.
func TestKeepPace(t *testing.T) {
	db := testdb.New(t)
	pg, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	oldBacklog, oldWait := search.PaceBacklog, search.PaceWait
	search.PaceBacklog, search.PaceWait = 100, 600*time.Millisecond
	t.Cleanup(func() { search.PaceBacklog, search.PaceWait = oldBacklog, oldWait })
	ctx := context.Background()
	took := func(e search.Engine) time.Duration {
		start := time.Now()
		search.KeepPace(ctx, e)
		return time.Since(start)
	}

	if d := took(pg); d > 50*time.Millisecond {
		t.Errorf("an engine that indexes as it writes: waited %s", d)
	}

	// The queue drains: the wait ends when it is short enough.
	start := time.Now()
	draining := &behind{Engine: pg, backlog: func() (int64, error) {
		if time.Since(start) < 200*time.Millisecond {
			return 500, nil
		}
		return 100, nil
	}}
	if d := took(draining); d < 200*time.Millisecond || d >= search.PaceWait {
		t.Errorf("a queue draining after 200 ms: waited %s", d)
	}
	if draining.asked.Load() < 2 {
		t.Errorf("the backlog was read %d times while waiting", draining.asked.Load())
	}

	// A queue that stays long: the harvest waits PaceWait, no more.
	stuck := &behind{Engine: pg, backlog: func() (int64, error) { return 10_000, nil }}
	if d := took(stuck); d < search.PaceWait || d > search.PaceWait+300*time.Millisecond {
		t.Errorf("a stuck queue: waited %s, want %s", d, search.PaceWait)
	}

	// An engine that cannot say (down): no wait.
	down := &behind{Engine: pg, backlog: func() (int64, error) { return 0, errors.New("connection refused") }}
	if d := took(down); d > 50*time.Millisecond {
		t.Errorf("an engine that is down: waited %s", d)
	}

	// Items waiting in the outbox (the engine was down, or refuses them)
	// do not slow a harvest.
	ids := make([]string, 150)
	for i := range ids {
		ids[i] = fmt.Sprintf("pace%03d", i)
	}
	if err := search.MarkDirty(db, ids...); err != nil {
		t.Fatal(err)
	}
	idle := &behind{Engine: pg, backlog: func() (int64, error) { return 0, nil }}
	if d := took(idle); d > 50*time.Millisecond {
		t.Errorf("150 items in the outbox, nothing in the engine's queue: waited %s", d)
	}
}
