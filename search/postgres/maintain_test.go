package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/search"
)

// TestPendingEntriesMergedOnceWritesStop: the entries a batch of documents
// leaves in the pending list of the word index are merged by the first
// Maintain after this process's writes stop, while the server's write
// counter still says documents were written since it last looked (which
// alone would make Maintain wait for the next quiet look, or seconds):
// searches straight after a harvest do not read a long pending list.
func TestPendingEntriesMergedOnceWritesStop(t *testing.T) {
	t.Parallel()
	e, db := newEngineDB(t)
	ctx := context.Background()
	if err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pgstattuple`).Error; err != nil {
		t.Fatal(err)
	}
	pending := func() int64 {
		t.Helper()
		var n int64
		if err := db.Raw(`SELECT pending_tuples FROM pgstatginindex('search_documents_tsv')`).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	written := func() int64 {
		t.Helper()
		var n int64
		if err := db.Raw(`SELECT coalesce(n_tup_ins + n_tup_upd, 0) FROM pg_stat_user_tables
			WHERE relid = 'search_documents'::regclass`).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A first look at the counter, as a running indexer has made.
	if err := e.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var docs []search.Document
	for i := range 200 {
		docs = append(docs, search.Document{"_id": fmt.Sprintf("doc%03d", i), "name": fmt.Sprintf("harbour_%03d_dusk.mp4", i)})
	}
	if err := e.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if pending() == 0 {
		t.Fatal("the upsert left no pending entries: this test would prove nothing")
	}
	// The server counts the writes (backends report them within about a
	// second), so the counter Maintain reads has moved.
	for deadline := time.Now().Add(10 * time.Second); written() < int64(len(docs)); {
		if time.Now().After(deadline) {
			t.Fatal("the server never counted the writes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond)
	if err := e.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Fatalf("%d entries still pending %s after the last write", n, time.Since(start).Round(time.Millisecond))
	}
	// Nothing written since: the next calls merge nothing and fail not.
	if err := e.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
}
