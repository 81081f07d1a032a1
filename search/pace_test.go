package search_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

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

// paceFixture is a database with the Postgres engine on it, the backlog
// allowed set to 100 and the wait to an hour (restored after the test).
func paceFixture(t *testing.T) (*gorm.DB, *postgres.Engine) {
	t.Helper()
	db := testdb.New(t)
	pg, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	oldBacklog, oldWait := search.PaceBacklog, search.PaceWait
	search.PaceBacklog, search.PaceWait = 100, time.Hour
	t.Cleanup(func() { search.PaceBacklog, search.PaceWait = oldBacklog, oldWait })
	return db, pg
}

// TestKeepPace: a harvest waits while its search index is more than
// PaceBacklog documents behind, up to PaceWait, and not at all for an
// engine that indexes as it writes or that cannot say. What KeepPace does
// is read from how often it asks for the backlog (each ask after the first
// comes after a wait of PaceEvery), not from how long it took: the clock of
// a machine busy with other tests says nothing reliable about a 50 ms wait.
func TestKeepPace(t *testing.T) {
	db, pg := paceFixture(t)
	ctx := context.Background()
	// backlog answers with the engine's backlogs in turn, then with an
	// error that ends the wait (an endless one would hang the test).
	backlog := func(answers ...int64) *behind {
		b := &behind{Engine: pg}
		b.backlog = func() (int64, error) {
			if n := b.asked.Load(); n <= int64(len(answers)) {
				return answers[n-1], nil
			}
			return 0, errors.New("asked once too often")
		}
		return b
	}

	if _, ok := search.Engine(pg).(search.Pacer); ok {
		t.Error("the Postgres engine indexes as it writes, and says it may be behind (a Pacer)")
	}
	search.KeepPace(ctx, pg, nil, 0) // returns at once: no Pacer, nothing to wait for

	// The queue drains: the wait ends when it is short enough, after a
	// wait between each reading.
	draining := backlog(500, 500, 500, 100)
	start := time.Now()
	search.KeepPace(ctx, draining, nil, 0)
	if n := draining.asked.Load(); n != 4 {
		t.Errorf("a queue short enough at the 4th reading: read %d times", n)
	}
	if d := time.Since(start); d < 3*search.PaceEvery {
		t.Errorf("3 waits of %s took %s", search.PaceEvery, d)
	}

	// A queue that stays long: the harvest waits PaceWait, no more: at
	// most one reading per PaceEvery of it, and one at its end.
	search.PaceWait = 600 * time.Millisecond
	most := int64(search.PaceWait/search.PaceEvery) + 1
	answers := make([]int64, most+5)
	for i := range answers {
		answers[i] = 10_000
	}
	stuck := backlog(answers...)
	start = time.Now()
	search.KeepPace(ctx, stuck, nil, 0)
	if d, n := time.Since(start), stuck.asked.Load(); d < search.PaceWait || n > most {
		t.Errorf("a stuck queue: waited %s (want %s) and read it %d times (at most %d)", d, search.PaceWait, n, most)
	}
	search.PaceWait = time.Hour

	// An engine that cannot say (down): no wait, one reading.
	down := &behind{Engine: pg, backlog: func() (int64, error) { return 0, errors.New("connection refused") }}
	search.KeepPace(ctx, down, nil, 0)
	if n := down.asked.Load(); n != 1 {
		t.Errorf("an engine that is down: read %d times", n)
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
	idle := backlog(0)
	search.KeepPace(ctx, idle, nil, 0)
	if n := idle.asked.Load(); n != 1 {
		t.Errorf("150 items in the outbox, nothing in the engine's queue: read %d times", n)
	}
}

// TestKeepPaceThroughWrappers: the engine a process runs is wrapped
// (opened lazily, observed for the metrics); the harvest still keeps pace
// with it. (It did not: the wrappers hid its backlog, and harvests ran
// unpaced.)
func TestKeepPaceThroughWrappers(t *testing.T) {
	_, pg := paceFixture(t)
	ctx := context.Background()
	b := &behind{Engine: pg}
	b.backlog = func() (int64, error) {
		if b.asked.Load() < 3 {
			return 500, nil
		}
		return 0, nil
	}
	wrapped := search.Observed(search.Lazy("behind", func(context.Context) (search.Engine, error) { return b, nil }),
		func(string, time.Duration, error) {})
	search.KeepPace(ctx, wrapped, nil, 10)() // not opened yet: nothing to wait for
	if n := b.asked.Load(); n != 0 {
		t.Fatalf("an engine not opened yet was asked %d times", n)
	}
	if err := wrapped.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	search.KeepPace(ctx, wrapped, nil, 10)()
	if n := b.asked.Load(); n != 3 {
		t.Errorf("the wrapped engine's backlog was read %d times, want 3 (until it was short enough)", n)
	}
	if _, ok := search.As[search.Pacer](search.Observed(pg, func(string, time.Duration, error) {})); ok {
		t.Error("the observed Postgres engine says it indexes behind its writes")
	}
}

// TestKeepPaceCountsWhatTheProcessHolds: with an indexer, a batch let
// through counts until its transaction ended (and the indexer sent what it
// claimed): the next batch of the process waits for it, even while the
// engine's own queue is empty.
func TestKeepPaceCountsWhatTheProcessHolds(t *testing.T) {
	db, pg := paceFixture(t)
	ctx := context.Background()
	empty := &behind{Engine: pg, backlog: func() (int64, error) { return 0, nil }}
	ix := search.NewIndexer(db, empty, nil)

	first := search.KeepPace(ctx, empty, ix, 80)
	if got := ix.Unsent(); got != 80 {
		t.Fatalf("a batch let through counts %d, want 80", got)
	}
	second := make(chan func())
	go func() { second <- search.KeepPace(ctx, empty, ix, 80) }()
	// Judged by the readings, not the clock: the second batch keeps
	// reading the backlog while the first one counts.
	for empty.asked.Load() < 5 {
		select {
		case <-second:
			t.Fatal("the second batch went while the first one was being recorded")
		case <-time.After(search.PaceEvery):
		}
	}
	first()
	select {
	case done := <-second:
		if got := ix.Unsent(); got != 80 {
			t.Errorf("after the first batch ended, %d counted, want 80", got)
		}
		done()
	case <-time.After(time.Minute): // a deadline, not a measure
		t.Fatal("the second batch still waits after the first ended")
	}
	if got := ix.Unsent(); got != 0 {
		t.Errorf("%d counted after both batches ended", got)
	}
	// A batch larger than the backlog allowed goes when nothing is ahead.
	empty.asked.Store(0)
	search.KeepPace(ctx, empty, ix, 1000)()
	if n := empty.asked.Load(); n != 1 {
		t.Errorf("a batch larger than the backlog with nothing ahead read the backlog %d times, want 1", n)
	}
}
