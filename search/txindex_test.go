package search_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// refusing is the Postgres engine refusing, inside transactions, the
// documents of one item (a bug, not an outage) after writing them, so
// that a test sees whether the writes were rolled back; or blocking in
// IndexTx until released.
type refusing struct {
	*postgres.Engine
	refuse  atomic.Value // item id
	block   chan struct{}
	blocked chan struct{}
}

func (r *refusing) IndexTx(ctx context.Context, conn search.Conn, docs []search.Document, segs []search.Segment, gone []string) error {
	if r.block != nil {
		close(r.blocked)
		<-r.block
	}
	if err := r.Engine.IndexTx(ctx, conn, docs, segs, gone); err != nil {
		return err
	}
	id, _ := r.refuse.Load().(string)
	for _, d := range docs {
		if d.ID() == id {
			return errors.New("document refused")
		}
	}
	return nil
}

func newRefusing(t *testing.T, db *gorm.DB) *refusing {
	t.Helper()
	e, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	r := &refusing{Engine: e}
	r.refuse.Store("")
	return r
}

func names(t *testing.T, e search.Engine, query string) []string {
	t.Helper()
	resp, err := e.Search(context.Background(), search.Request{Query: query}, search.Visibility{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range resp.Results {
		out = append(out, r.Result["name"].(string))
	}
	slices.Sort(out)
	return out
}

// TestIndexInTxSearchableAtCommit: a TxIndexer writes the documents in the
// caller's transaction: other connections see them when it commits, not
// before, and nothing goes through the outbox.
func TestIndexInTxSearchableAtCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newRefusing(t, db)
	if err := e.Upsert(ctx, []search.Document{{"_id": "i3", "name": "gone.pdf"}}); err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	defer tx.Rollback()
	if err := tx.Exec(`UPDATE items SET name = 'Harbour.MP4' WHERE id = 'i1'`).Error; err != nil {
		t.Fatal(err)
	}
	got, err := search.IndexInTx(ctx, tx, e, "i1", "i2", "i3", "i1", "")
	if err != nil || got.Marked || got.Refused != nil {
		t.Fatalf("index in transaction: %+v %v", got, err)
	}
	if n := names(t, e, "harbour"); len(n) != 0 {
		t.Fatalf("documents visible before the commit: %v", n)
	}
	if n := names(t, e, "gone"); len(n) != 1 {
		t.Fatalf("a removal visible before the commit: %v", n)
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if n := names(t, e, "harbour"); !slices.Equal(n, []string{"Harbour.MP4"}) || !found(t, e, "i2") || found(t, e, "i3") {
		t.Fatalf("after the commit: %v, i2 %v, i3 %v", n, found(t, e, "i2"), found(t, e, "i3"))
	}
	if got := outbox(t, db); len(got) != 0 {
		t.Fatalf("outbox %v", got)
	}
}

// TestIndexInTxRefusalFallsBackToOutbox: a batch the engine refuses does
// not fail the caller's transaction: its index writes are undone and the
// items wait in the outbox, while the transaction's own changes commit.
func TestIndexInTxRefusalFallsBackToOutbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newRefusing(t, db)
	e.refuse.Store("i2")
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`UPDATE items SET name = 'Harbour.MP4' WHERE id = 'i1'`).Error; err != nil {
			return err
		}
		got, err := search.IndexInTx(ctx, tx, e, "i1", "i2")
		if err == nil && (!got.Marked || got.Refused == nil) {
			t.Errorf("a refused batch: %+v", got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if found(t, e, "i1") || found(t, e, "i2") {
		t.Fatal("the refused batch's writes were kept")
	}
	if got := outbox(t, db); !slices.Equal(got, []string{"i1", "i2"}) {
		t.Fatalf("outbox %v", got)
	}
	var name string
	db.Raw(`SELECT name FROM items WHERE id = 'i1'`).Scan(&name)
	if name != "Harbour.MP4" {
		t.Fatalf("the transaction's own change: %q", name)
	}
	// The drain indexes what it can, one by one, and keeps the refused one.
	n, err := search.Drain(ctx, db, e, 10)
	var refusal interface{ Unwrap() error }
	if n != 1 || err == nil || !strings.Contains(err.Error(), "index item i2") || !errors.As(err, &refusal) {
		t.Fatalf("drain: %d %v", n, err)
	}
	if got := outbox(t, db); !slices.Equal(got, []string{"i2"}) || !found(t, e, "i1") || found(t, e, "i2") {
		t.Fatalf("after the drain: outbox %v", got)
	}
	e.refuse.Store("")
	if n, err := search.Drain(ctx, db, e, 10); n != 1 || err != nil || !found(t, e, "i2") {
		t.Fatalf("after the fix: %d %v", n, err)
	}
	if got := outbox(t, db); len(got) != 0 {
		t.Fatalf("outbox %v", got)
	}
}

// TestTxDrainWaitsForTheItemsTransaction: a drain of an item that a
// transaction is changing (and indexing itself) waits for it, then indexes
// what it committed: an older document never lands last.
func TestTxDrainWaitsForTheItemsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newRefusing(t, db)
	if err := search.MarkDirty(db, "i1"); err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	defer tx.Rollback()
	if err := tx.Exec(`UPDATE items SET name = 'Harbour.MP4' WHERE id = 'i1'`).Error; err != nil {
		t.Fatal(err)
	}
	drained := make(chan error, 1)
	go func() {
		_, err := search.Drain(ctx, db, e, 10)
		drained <- err
	}()
	select {
	case err := <-drained:
		t.Fatalf("the drain did not wait for the item's transaction: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := search.IndexInTx(ctx, tx, e, "i1"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Exec(`UPDATE items SET name = 'Latest.MP4' WHERE id = 'i1'`).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := search.IndexInTx(ctx, tx, e, "i1"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
	if n := names(t, e, ""); !slices.Equal(n, []string{"Latest.MP4"}) {
		t.Fatalf("indexed: %v", n)
	}
	if got := outbox(t, db); len(got) != 0 {
		t.Fatalf("outbox %v", got)
	}
}

// TestTxDrainerDeathReleasesItsRows: the rows a drainer works on are held
// by its transaction only: when its connection dies (its process was
// killed), another drainer takes them at once, with no lease to wait for.
func TestTxDrainerDeathReleasesItsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	if err := search.MarkDirty(db, "i1", "i2"); err != nil {
		t.Fatal(err)
	}
	stuck := newRefusing(t, db)
	stuck.block, stuck.blocked = make(chan struct{}), make(chan struct{})
	drained := make(chan error, 1)
	go func() {
		_, err := search.Drain(ctx, db, stuck, 10)
		drained <- err
	}()
	<-stuck.blocked
	// Another drainer finds nothing to take while the first holds the rows.
	other := newRefusing(t, db)
	if n, err := search.Drain(ctx, db, other, 10); n != 0 || err != nil {
		t.Fatalf("drain beside a working drainer: %d %v", n, err)
	}
	// The first drainer's connection dies. pg_terminate_backend waits
	// (up to 10 s) until the backend has exited and so released its row
	// locks: signalled only, it could still hold them at the next drain,
	// which skips locked rows (seen once on a loaded 2-core machine).
	var killed int
	db.Raw(`SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity
	        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'`).Scan(&killed)
	if killed != 1 {
		t.Fatalf("terminated %d backends", killed)
	}
	close(stuck.block)
	if err := <-drained; err == nil {
		t.Fatal("the dead drainer reported success")
	}
	if n, err := search.Drain(ctx, db, other, 10); n != 2 || err != nil || !found(t, other, "i1") || !found(t, other, "i2") {
		t.Fatalf("drain after the death: %d %v", n, err)
	}
}

// TestIndexerDrainsOnNotification: an indexer drains rows as soon as the
// transaction that marked them commits, long before its poll.
func TestIndexerDrainsOnNotification(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := fixture(t)
	e := newRefusing(t, db)
	ix := search.NewIndexer(db, e, nil)
	ix.PollInterval = time.Hour
	go ix.Run(ctx)
	// The indexer listens once its first round is done; rows marked
	// before that are found by it. Its poll is an hour away: a minute
	// tells the notification from it with room for a machine busy with
	// other tests (a bound of 10 s was a bet on the load).
	for i, id := range []string{"i1", "i2"} {
		start := time.Now()
		if err := search.MarkDirty(db, id); err != nil {
			t.Fatal(err)
		}
		for !found(t, e, id) {
			if time.Since(start) > time.Minute {
				t.Fatalf("mark %d not indexed by the indexer", i)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Logf("mark %d indexed after %s", i, time.Since(start).Round(time.Millisecond))
	}
}

// TestGroupsChanged: a change of groups reaches the index in the same
// transaction with the Postgres engine, and through the outbox (the items
// of the containers concerned marked dirty) with an engine outside the
// database.
func TestGroupsChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	pg := newRefusing(t, db)
	if err := search.MarkDirty(db, "i1", "i2"); err != nil {
		t.Fatal(err)
	}
	if _, err := search.Drain(ctx, db, pg, 10); err != nil {
		t.Fatal(err)
	}
	g1 := search.Visibility{GroupIDs: []string{"g1"}}
	if resp, _ := pg.Search(ctx, search.Request{}, g1); resp.TotalHits != 1 {
		t.Fatalf("g1 sees %d", resp.TotalHits)
	}
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`DELETE FROM container_groups WHERE container_id = 'c2'`).Error; err != nil {
			return err
		}
		return search.GroupsChanged(ctx, tx, pg, nil, []string{"c2"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := pg.Search(ctx, search.Request{}, g1); resp.TotalHits != 2 {
		t.Fatalf("after the container lost its group, g1 sees %d", resp.TotalHits)
	}
	if got := outbox(t, db); len(got) != 0 {
		t.Fatalf("outbox %v", got)
	}
	// An engine outside the database: the location's live items are marked.
	outside := newFlaky(t, db)
	err = db.Transaction(func(tx *gorm.DB) error {
		return search.GroupsChanged(ctx, tx, outside, []string{"loc1"}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := outbox(t, db); !slices.Equal(got, []string{"i1", "i2"}) {
		t.Fatalf("outbox %v", got)
	}
}
