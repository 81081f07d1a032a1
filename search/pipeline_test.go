package search_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	_ "github.com/metaharvest/metaharvest/search/meili"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// fixture: a location behind group g1 with two containers (one behind g2),
// and three items: a live video, a live image, a deleted document.
func fixture(t *testing.T) *gorm.DB {
	t.Helper()
	db := testdb.New(t)
	for _, stmt := range []string{
		`INSERT INTO groups (id, name) VALUES ('g1', 'one'), ('g2', 'two')`,
		`INSERT INTO locations (id, kind, name) VALUES ('loc1', 'filesystem', 'archive')`,
		`INSERT INTO location_groups (location_id, group_id) VALUES ('loc1', 'g1')`,
		`INSERT INTO containers (id, location_id, name) VALUES ('c1', 'loc1', 'footage'), ('c2', 'loc1', 'stills')`,
		`INSERT INTO container_groups (container_id, group_id) VALUES ('c2', 'g2')`,
		`INSERT INTO items (id, location_id, container_id, path, name, size, last_modified, mime_type, metadata) VALUES
		 ('i1', 'loc1', 'c1', '/2024/Clip.MP4', 'Clip.MP4', 1234, '2024-05-01T10:00:00Z', 'video/mp4',
		  '{"mime_type": {"mime_type": "video/mp4", "extension": "mp4"}, "hashes": {"sha256": "abc"}, "mediainfo": {"video": {"duration": 12.5}}, "_x": 1}'),
		 ('i2', 'loc1', 'c2', 'a/photo.jpg', 'photo.jpg', 99, NULL, 'image/jpeg', '{}'),
		 ('i3', 'loc1', 'c1', 'gone.pdf', 'gone.pdf', 5, NULL, 'application/pdf', '{}')`,
		`UPDATE items SET deleted_at = now() WHERE id = 'i3'`,
	} {
		if err := db.Exec(stmt).Error; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return db
}

func TestBuildDocument(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	doc, ok, err := search.BuildDocument(db, "i1")
	if err != nil || !ok {
		t.Fatalf("i1: %v %v", ok, err)
	}
	want := map[string]any{
		"_id": "i1", "name": "Clip.MP4", "mime_type": "video/mp4", "size": int64(1234),
		"last_modified": "2024-05-01T10:00:00Z", "location_id": "loc1", "location_kind": "filesystem",
		"location_name": "archive", "store_container_id": "c1", "store_container_name": "footage",
		"store_url": "filesystem://archive/footage/2024/Clip.MP4", "type": "video", "extension": "mp4",
	}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("%s = %#v, want %#v", k, doc[k], v)
		}
	}
	if hashes, _ := doc["hashes"].(map[string]any); hashes["sha256"] != "abc" {
		t.Errorf("extractor data: %v", doc["hashes"])
	}
	if _, ok := doc["_x"]; ok {
		t.Error("metadata key with _ copied")
	}
	lg, cg := doc.Groups()
	if !slices.Equal(lg, []string{"g1"}) || len(cg) != 0 {
		t.Errorf("groups %v %v", lg, cg)
	}
	doc, _, _ = search.BuildDocument(db, "i2")
	if lg, cg := doc.Groups(); !slices.Equal(lg, []string{"g1"}) || !slices.Equal(cg, []string{"g2"}) {
		t.Errorf("i2 groups %v %v", lg, cg)
	}
	if _, ok, err := search.BuildDocument(db, "i3"); ok || err != nil {
		t.Errorf("deleted item: %v %v", ok, err)
	}
	if _, ok, err := search.BuildDocument(db, "nope"); ok || err != nil {
		t.Errorf("unknown item: %v %v", ok, err)
	}
}

// flaky is an engine that refuses upserts while down, and can run a hook
// before an upsert (to change an item while it is being indexed). It
// stands for an engine outside the database (Meilisearch): it hides the
// Postgres engine's IndexTx, so that Drain claims rows with leases.
type flaky struct {
	search.Engine
	down    atomic.Bool
	upserts atomic.Int32
	before  func()
	refuse  string // an item id the engine refuses (a bad document)
}

func (f *flaky) Upsert(ctx context.Context, docs []search.Document) error {
	f.upserts.Add(1)
	if f.before != nil {
		hook := f.before
		f.before = nil
		hook()
	}
	if f.down.Load() {
		return search.Unavailable(errors.New("engine down"))
	}
	for _, d := range docs {
		if d.ID() == f.refuse {
			return errors.New("document refused")
		}
	}
	return f.Engine.Upsert(ctx, docs)
}

var _ search.TxIndexer = (*postgres.Engine)(nil)

func init() {
	if _, ok := any(&flaky{}).(search.TxIndexer); ok {
		panic("flaky must not index in transactions")
	}
}

func newFlaky(t *testing.T, db *gorm.DB) *flaky {
	t.Helper()
	e, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	return &flaky{Engine: e}
}

func outbox(t *testing.T, db *gorm.DB) []string {
	t.Helper()
	var ids []string
	if err := db.Raw(`SELECT item_id FROM search_outbox WHERE claim_token IS NULL AND claimed_until IS NULL ORDER BY item_id`).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	var all int64
	db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&all)
	if int(all) != len(ids) {
		t.Fatalf("outbox holds %d rows, %d unclaimed", all, len(ids))
	}
	return ids
}

func found(t *testing.T, e search.Engine, id string) bool {
	t.Helper()
	resp, err := e.Search(context.Background(), search.Request{Filters: &search.Filters{Terms: []search.Term{{Field: "_id", Value: search.FlexString(id)}}}}, search.Visibility{All: true})
	if err != nil {
		t.Fatal(err)
	}
	return resp.TotalHits == 1
}

func TestMarkDirtyAndDrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newFlaky(t, db)

	// Marked inside the item's transaction; twice, with duplicates and blanks.
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := search.MarkDirty(tx, "i1", "i2", "i1", ""); err != nil {
			return err
		}
		return search.MarkDirty(tx, "i3")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := search.MarkDirty(db); err != nil {
		t.Fatal(err)
	}
	if got := outbox(t, db); !slices.Equal(got, []string{"i1", "i2", "i3"}) {
		t.Fatalf("outbox %v", got)
	}

	// Engine down: the rows stay, unclaimed, and the error says 503.
	e.down.Store(true)
	n, err := search.Drain(ctx, db, e, 2)
	if ae, ok := apperr.As(err); !ok || ae.Status != http.StatusServiceUnavailable || n != 0 {
		t.Fatalf("drain with the engine down: %d, %v", n, err)
	}
	if got := outbox(t, db); len(got) != 3 {
		t.Fatalf("outbox after a failed drain: %v", got)
	}

	// Engine back: everything indexed, deleted items removed, outbox empty.
	e.down.Store(false)
	if err := e.Upsert(ctx, []search.Document{{"_id": "i3", "name": "stale"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.UpsertSegments(ctx, []search.Segment{{ID: "i3-s0", ItemID: "i3"}}); err != nil {
		t.Fatal(err)
	}
	n, err = search.Drain(ctx, db, e, 2)
	if err != nil || n != 3 {
		t.Fatalf("drain: %d, %v", n, err)
	}
	if len(outbox(t, db)) != 0 || !found(t, e, "i1") || !found(t, e, "i2") || found(t, e, "i3") {
		t.Fatal("drain did not index the items")
	}
	if _, err := e.GetSegment(ctx, "i3-s0", search.Visibility{All: true}); !errors.Is(err, search.ErrNotFound) {
		t.Fatalf("segment of a deleted item: %v", err)
	}
	// Visibility came from the rows: i2 needs g1 (location) and g2 (container).
	resp, _ := e.Search(ctx, search.Request{}, search.Visibility{GroupIDs: []string{"g1"}})
	if resp.TotalHits != 1 {
		t.Fatalf("group g1 sees %d documents, want 1", resp.TotalHits)
	}

	// An item changed while it is being indexed stays dirty, and the next
	// round indexes its latest state.
	db.Exec(`UPDATE items SET name = 'renamed.mp4' WHERE id = 'i1'`)
	if err := search.MarkDirty(db, "i1"); err != nil {
		t.Fatal(err)
	}
	e.upserts.Store(0)
	e.before = func() {
		db.Exec(`UPDATE items SET name = 'latest.mp4' WHERE id = 'i1'`)
		if err := search.MarkDirty(db, "i1"); err != nil {
			t.Error(err)
		}
	}
	if n, err := search.Drain(ctx, db, e, 10); err != nil || n != 2 || e.upserts.Load() != 2 {
		t.Fatalf("drain during a change: %d rounds of upsert, n=%d, %v", e.upserts.Load(), n, err)
	}
	resp, _ = e.Search(ctx, search.Request{Query: "latest"}, search.Visibility{All: true})
	if resp.TotalHits != 1 || len(outbox(t, db)) != 0 {
		t.Fatalf("latest state not indexed: %d", resp.TotalHits)
	}

	// Nothing to do.
	if n, err := search.Drain(ctx, db, e, 10); n != 0 || err != nil {
		t.Fatalf("empty drain: %d %v", n, err)
	}
}

func TestDrainLeavesOthersClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newFlaky(t, db)
	if err := search.MarkDirty(db, "i1", "i2"); err != nil {
		t.Fatal(err)
	}
	// Another drainer holds i1.
	db.Exec(`UPDATE search_outbox SET claimed_until = now() + interval '1 minute', claim_token = 'other' WHERE item_id = 'i1'`)
	if n, err := search.Drain(ctx, db, e, 10); err != nil || n != 1 {
		t.Fatalf("drain: %d %v", n, err)
	}
	var left []string
	db.Raw(`SELECT item_id FROM search_outbox`).Scan(&left)
	if !slices.Equal(left, []string{"i1"}) || found(t, e, "i1") {
		t.Fatalf("claimed row touched: %v", left)
	}
	// An expired claim is taken over.
	db.Exec(`UPDATE search_outbox SET claimed_until = now() - interval '1 second'`)
	if n, err := search.Drain(ctx, db, e, 10); err != nil || n != 1 || !found(t, e, "i1") {
		t.Fatalf("expired claim: %d %v", n, err)
	}
}

func TestReindex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newFlaky(t, db)
	if err := e.Upsert(ctx, []search.Document{{"_id": "ghost", "name": "not in postgres"}}); err != nil {
		t.Fatal(err)
	}
	n, err := search.Reindex(ctx, db, e)
	if err != nil || n != 2 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	if found(t, e, "ghost") || !found(t, e, "i1") || !found(t, e, "i2") || found(t, e, "i3") {
		t.Fatal("reindex did not rebuild from postgres")
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	if !slices.Equal(search.Backends(), []string{"meili", "postgres"}) {
		t.Fatalf("backends %v", search.Backends())
	}
	db := testdb.New(t)
	e, err := search.Open(search.Config{DB: db})
	if err != nil || e.Name() != "postgres" || e.Ping(context.Background()) != nil {
		t.Fatalf("postgres: %v %v", e, err)
	}
	if _, err := search.Open(search.Config{}); err == nil {
		t.Fatal("postgres without a database opened")
	}
	// An unreachable Meilisearch does not stop a process from starting: the
	// engine opens lazily and answers 503 until the server is back. Its
	// answer is the refused connection itself, not a timeout of retries
	// (read from the error, not from a clock that other tests slow down).
	m, err := search.Open(search.Config{DB: db, MeiliURL: "http://127.0.0.1:1"})
	if err != nil || m.Name() != "meili" {
		t.Fatalf("open with meilisearch down: %v", err)
	}
	err = m.Ping(context.Background())
	if ae, ok := apperr.As(err); !ok || ae.Status != http.StatusServiceUnavailable ||
		!strings.Contains(err.Error(), "connect: connection refused") || strings.Contains(strings.ToLower(err.Error()), "retr") {
		t.Fatalf("unreachable meilisearch: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a backend twice did not panic")
		}
	}()
	search.Register("postgres", nil)
}

// TestMigrationDown: the search migrations revert cleanly and apply again.
func TestMigrationDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sqlDB, err := sql.Open("pgx", testdb.Empty(t))
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	if err := models.Migrate(ctx, sqlDB); err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, err := sqlDB.Query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND (tablename LIKE 'search%' OR tablename = 'saved_searches') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	want := "saved_searches search_documents search_fields search_numbers search_outbox search_paths search_segments search_term_counts search_visibility"
	if strings.Join(names, " ") != want {
		t.Fatalf("search tables after up: %v, want %s", names, want)
	}
	if err := models.MigrateDownAll(ctx, sqlDB); err != nil {
		t.Fatal(err)
	}
	var n int
	sqlDB.QueryRow(`SELECT (SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'goose_db_version')
	              + (SELECT count(*) FROM pg_proc WHERE proname LIKE 'search%')
	              + (SELECT count(*) FROM pg_class WHERE relkind = 'S' AND relname LIKE 'search%')`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d objects left after down", n)
	}
	if err := models.Migrate(ctx, sqlDB); err != nil {
		t.Fatalf("up again: %v", err)
	}
}

// TestDrainIsolatesRefusedDocuments: a document the engine refuses stays
// dirty without holding up the others, and draining ends.
func TestDrainIsolatesRefusedDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := fixture(t)
	e := newFlaky(t, db)
	e.refuse = "i1"
	if err := search.MarkDirty(db, "i1", "i2", "i3"); err != nil {
		t.Fatal(err)
	}
	n, err := search.Drain(ctx, db, e, 10)
	if n != 2 || err == nil || !strings.Contains(err.Error(), "index item i1") {
		t.Fatalf("drain: %d %v", n, err)
	}
	if _, ok := apperr.As(err); ok {
		t.Fatalf("a refusal reported as an outage: %v", err)
	}
	if got := outbox(t, db); !slices.Equal(got, []string{"i1"}) || !found(t, e, "i2") {
		t.Fatalf("outbox %v", got)
	}
	if n, err := search.Drain(ctx, db, e, 10); n != 0 || err == nil {
		t.Fatalf("second drain: %d %v", n, err)
	}
	e.refuse = ""
	if n, err := search.Drain(ctx, db, e, 10); n != 1 || err != nil || !found(t, e, "i1") {
		t.Fatalf("after the fix: %d %v", n, err)
	}
}
