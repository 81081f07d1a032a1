package meili_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"
)

// TestBacklog: the engine counts the documents Meilisearch has accepted and
// not yet made searchable (what a harvest keeps pace with), whoever sent
// them, waits for them (SyncAll), and counts none once they are.
func TestBacklog(t *testing.T) {
	t.Parallel()
	e, srv, prefix := newEngineOn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Sent straight to Meilisearch (as another process would), so that
	// Backlog is asked the moment the tasks are accepted: Meilisearch
	// cannot index 20,000 documents in the time of one request.
	const n = 20_000
	var body bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&body, `{"_id":"d%05d","name":"file %d.txt","size":%d}`+"\n", i, i, i)
	}
	client := meilisearch.New(srv.URL, meilisearch.WithAPIKey(srv.Key))
	pk := search.FieldID
	info, err := client.Index(prefix+"items").AddDocumentsNdjsonWithContext(ctx, body.Bytes(), &meilisearch.DocumentOptions{PrimaryKey: &pk})
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := e.Backlog(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if waiting != n {
		t.Errorf("backlog right after Meilisearch accepted %d documents: %d", n, waiting)
	}
	// SyncAll returns once Meilisearch ran what any process sent before
	// it was called (reindex ends with it while the workers' indexers
	// drain beside it); Sync waits only for the engine's own writes.
	if err := e.SyncAll(ctx); err != nil {
		t.Fatal(err)
	}
	task, err := client.GetTaskWithContext(ctx, info.TaskUID)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != meilisearch.TaskStatusSucceeded {
		t.Fatalf("another writer's task after SyncAll: %s", task.Status)
	}
	if waiting, err = e.Backlog(ctx, n); err != nil || waiting != 0 {
		t.Errorf("backlog once searchable: %d, %v", waiting, err)
	}
	res, err := e.Search(ctx, search.Request{Limit: 1}, search.Visibility{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalHits != n {
		t.Fatalf("search after SyncAll counts %d of %d documents", res.TotalHits, n)
	}
}

// TestIndexTime: the engine says how long Meilisearch's recent batches of
// item writes took a document (what the indexer sizes its sends by):
// nothing before any, then at most the time the write took to become
// searchable a document; writes of a few documents (an edit) do not count.
func TestIndexTime(t *testing.T) {
	t.Parallel()
	e, srv, prefix := newEngineOn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if perDoc, err := e.IndexTime(ctx); err != nil || perDoc != 0 {
		t.Fatalf("before any write: %s, %v; want 0", perDoc, err)
	}
	client := meilisearch.New(srv.URL, meilisearch.WithAPIKey(srv.Key))
	pk := search.FieldID
	write := func(from, n int) time.Duration {
		var body bytes.Buffer
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&body, `{"_id":"d%05d","name":"file %d.txt","size":%d}`+"\n", i, i, i)
		}
		start := time.Now()
		if _, err := client.Index(prefix+"items").AddDocumentsNdjsonWithContext(ctx, body.Bytes(), &meilisearch.DocumentOptions{PrimaryKey: &pk}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncAll(ctx); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	const n = 5000
	took := write(0, n)
	time.Sleep(meili.SpeedFresh) // past the reading before the write
	perDoc, err := e.IndexTime(ctx)
	if err != nil || perDoc <= 0 || perDoc > took/n {
		t.Fatalf("after %d documents searchable in %s: %s a document, %v; want more than 0, at most %s", n, took, perDoc, err, took/n)
	}
	write(n, 3) // an edit's few documents, however long they took
	time.Sleep(meili.SpeedFresh)
	if again, err := e.IndexTime(ctx); err != nil || again != perDoc {
		t.Errorf("after a write of 3 documents: %s, %v; want %s as before", again, err, perDoc)
	}
}
