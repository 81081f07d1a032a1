package search_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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

// paceFixture is a database with the Postgres engine on it, a busy engine
// and a full send set to 100 documents and the wait to an hour (restored
// after the test).
func paceFixture(t *testing.T) (*gorm.DB, *postgres.Engine) {
	t.Helper()
	db := testdb.New(t)
	pg, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	oldBusy, oldDocs, oldWait := search.PaceBusy, search.SendDocs, search.PaceWait
	search.PaceBusy, search.SendDocs, search.PaceWait = 100, 100, time.Hour
	t.Cleanup(func() { search.PaceBusy, search.SendDocs, search.PaceWait = oldBusy, oldDocs, oldWait })
	return db, pg
}

// TestKeepPace: a harvest waits while its search index has PaceBusy
// documents or more to index, up to PaceWait, and not at all for an
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
	draining := backlog(500, 500, 100, 99)
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
// claimed): once the process holds a full send (SendDocs), its next batch
// waits, even while the engine's own queue is empty.
func TestKeepPaceCountsWhatTheProcessHolds(t *testing.T) {
	db, pg := paceFixture(t)
	ctx := context.Background()
	empty := &behind{Engine: pg, backlog: func() (int64, error) { return 0, nil }}
	ix := search.NewIndexer(db, empty, nil)

	first := search.KeepPace(ctx, empty, ix, 80)
	if got := ix.Unsent(); got != 80 {
		t.Fatalf("a batch let through counts %d, want 80", got)
	}
	second := search.KeepPace(ctx, empty, ix, 80) // 80 held: less than a full send
	if got := ix.Unsent(); got != 160 {
		t.Fatalf("two batches let through count %d, want 160", got)
	}
	third := make(chan func())
	go func() { third <- search.KeepPace(ctx, empty, ix, 80) }()
	// Judged by the readings, not the clock: the third batch keeps
	// reading the backlog while the first two count.
	empty.asked.Store(0)
	for empty.asked.Load() < 5 {
		select {
		case <-third:
			t.Fatal("a batch went while the process held a full send")
		case <-time.After(search.PaceEvery):
		}
	}
	first()
	second()
	select {
	case done := <-third:
		if got := ix.Unsent(); got != 80 {
			t.Errorf("after the first batches ended, %d counted, want 80", got)
		}
		done()
	case <-time.After(time.Minute): // a deadline, not a measure
		t.Fatal("the third batch still waits after the first two ended")
	}
	if got := ix.Unsent(); got != 0 {
		t.Errorf("%d counted after every batch ended", got)
	}
	// A batch larger than a full send goes when nothing is held.
	empty.asked.Store(0)
	search.KeepPace(ctx, empty, ix, 1000)()
	if n := empty.asked.Load(); n != 1 {
		t.Errorf("a batch larger than a full send with nothing held read the backlog %d times, want 1", n)
	}
}

// sends is the Postgres engine made to say it indexes behind its writes,
// with an empty queue, and to remember how many documents each of its
// writes held.
type sends struct {
	search.Engine // the interface only: not the engine's writes in a transaction
	mu            sync.Mutex
	sizes         []int
	asked         atomic.Int64 // Backlog readings
}

func (s *sends) Backlog(context.Context, int64) (int64, error) {
	s.asked.Add(1)
	return 0, nil
}

func (s *sends) Upsert(ctx context.Context, docs []search.Document) error {
	s.mu.Lock()
	s.sizes = append(s.sizes, len(docs))
	s.mu.Unlock()
	return s.Engine.Upsert(ctx, docs)
}

func (s *sends) sent() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sizes)
}

// TestSenderHoldsForAnEngineBehind: to an engine that indexes behind its
// writes, the indexer sends what the process's batches claimed together:
// it holds a claim until it has SendDocs documents, or SendHold has passed,
// or no batch of the process has been on its way for SendQuiet. Each case
// sets the other two limits out of reach (an hour), so that only the one
// it tests can end the hold.
func TestSenderHoldsForAnEngineBehind(t *testing.T) {
	db := fixture(t)
	pg, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	oldDocs, oldHold, oldQuiet := search.SendDocs, search.SendHold, search.SendQuiet
	t.Cleanup(func() { search.SendDocs, search.SendHold, search.SendQuiet = oldDocs, oldHold, oldQuiet })
	ctx := context.Background()
	// Each case runs an indexer of its own, stopped once the outbox is
	// empty again: a claim the previous one still holds would not be the
	// next one's (a row another drainer holds is marked again, not
	// claimed), and a running one would drain it to its own engine.
	var stop context.CancelFunc = func() {}
	run := func(docs int64, hold, quiet time.Duration) (*sends, *search.Indexer) {
		search.SendDocs, search.SendHold, search.SendQuiet = docs, hold, quiet
		e := &sends{Engine: pg}
		ix := search.NewIndexer(db, e, nil)
		ix.PollInterval = time.Hour
		var runCtx context.Context
		runCtx, stop = context.WithCancel(ctx)
		go ix.Run(runCtx)
		return e, ix
	}
	defer func() { stop() }()
	// waitSent waits (a deadline, not a measure) until the engine was sent
	// want documents in all and the outbox is empty, then stops the case's
	// indexer.
	waitSent := func(e *sends, want int) []int {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			sizes := e.sent()
			total := 0
			for _, n := range sizes {
				total += n
			}
			var left int64
			if err := db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&left).Error; err != nil {
				t.Fatal(err)
			}
			if total >= want && left == 0 {
				stop()
				return sizes
			}
			if time.Now().After(deadline) {
				t.Fatalf("sent %v, want %d documents in all; %d outbox rows left", sizes, want, left)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	// A full send: two claims, one document each, go in one write.
	e, ix := run(2, time.Hour, time.Hour)
	ix.Take(markClaimed(t, db, e, ix, nil, "i1"))
	ix.Take(markClaimed(t, db, e, ix, nil, "i2"))
	if got := waitSent(e, 2); !slices.Equal(got, []int{2}) {
		t.Errorf("two claims making a full send were written as %v, want [2]", got)
	}

	// Nothing else on its way: a lone claim goes after SendQuiet.
	e, ix = run(1000, time.Hour, 20*time.Millisecond)
	ix.Take(markClaimed(t, db, e, ix, nil, "i1"))
	if got := waitSent(e, 1); !slices.Equal(got, []int{1}) {
		t.Errorf("a lone claim was written as %v, want [1]", got)
	}

	// A batch still on its way (let through, being recorded) keeps the
	// hold going until SendHold.
	e, ix = run(1000, 50*time.Millisecond, time.Hour)
	recording := search.KeepPace(ctx, e, ix, 500)
	defer recording()
	ix.Take(markClaimed(t, db, e, ix, nil, "i2"))
	if got := waitSent(e, 1); !slices.Equal(got, []int{1}) {
		t.Errorf("a claim held while a batch was on its way was written as %v, want [1]", got)
	}
}

// timed is an engine behind its writes (sends) that says how long its
// recent batches took a document (search.IndexTimer).
type timed struct {
	*sends
	perDoc time.Duration
}

func (e *timed) IndexTime(context.Context) (time.Duration, error) { return e.perDoc, nil }

// TestSendSizedToTheEngineSpeed: to an engine that says how long its
// recent batches took a document, the indexer sends as many documents as
// the engine indexes in SendBudget at that speed, at least SendDocsMin
// and at most SendDocs (SendDocs when it cannot tell), and a harvest's
// batch waits once its process holds that many. The hold's other limits
// are an hour: only a full send ends it.
func TestSendSizedToTheEngineSpeed(t *testing.T) {
	db := fixture(t)
	pg, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	oldDocs, oldMin, oldBudget := search.SendDocs, search.SendDocsMin, search.SendBudget
	oldHold, oldQuiet, oldWait := search.SendHold, search.SendQuiet, search.PaceWait
	t.Cleanup(func() {
		search.SendDocs, search.SendDocsMin, search.SendBudget = oldDocs, oldMin, oldBudget
		search.SendHold, search.SendQuiet, search.PaceWait = oldHold, oldQuiet, oldWait
	})
	search.SendDocs, search.SendDocsMin, search.SendBudget = 3, 2, time.Second
	search.SendHold, search.SendQuiet, search.PaceWait = time.Hour, time.Hour, time.Hour
	ctx := context.Background()
	if err := db.Exec(`INSERT INTO items (id, location_id, container_id, path, name, size, mime_type, metadata)
		VALUES ('i4', 'loc1', 'c1', 'b/four.txt', 'four.txt', 4, 'text/plain', '{}')`).Error; err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		perDoc time.Duration
		want   []int
	}{
		{"2.5 documents a budget", 400 * time.Millisecond, []int{2}},
		{"slower than the least send", 10 * time.Second, []int{2}},
		{"faster than the largest send", time.Millisecond, []int{3}},
		{"speed not known yet", 0, []int{3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &timed{sends: &sends{Engine: pg}, perDoc: c.perDoc}
			ix := search.NewIndexer(db, e, nil)
			ix.PollInterval = time.Hour
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			go ix.Run(runCtx)
			for _, id := range []string{"i1", "i2", "i4"}[:c.want[0]] {
				ix.Take(markClaimed(t, db, e, ix, nil, id))
			}
			// Until something was sent and the outbox is empty again (the
			// next case claims the same items): a deadline, not a measure.
			deadline := time.Now().Add(time.Minute)
			for {
				var left int64
				if err := db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&left).Error; err != nil {
					t.Fatal(err)
				}
				if len(e.sent()) > 0 && left == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("sent %v after %d claims, %d outbox rows left", e.sent(), c.want[0], left)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if got := e.sent(); !slices.Equal(got, c.want) {
				t.Fatalf("sent %v, want %v", got, c.want)
			}
			if c.want[0] != 2 {
				return
			}
			// The process now gathers sends of two: a batch of two
			// documents goes, the next waits while the first counts.
			first := search.KeepPace(ctx, e, ix, 2)
			defer first()
			second := make(chan func(), 1)
			go func() { second <- search.KeepPace(runCtx, e, ix, 1) }() // ends with runCtx
			asked := &e.sends.asked
			asked.Store(0)
			for asked.Load() < 5 {
				select {
				case done := <-second:
					done()
					t.Fatal("a batch went while the process held a full send of two")
				case <-time.After(search.PaceEvery):
				}
			}
		})
	}
}
