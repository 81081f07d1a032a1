package meili_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// TestBacklog: the engine counts the documents Meilisearch has accepted and
// not yet made searchable (what a harvest keeps pace with), and none once
// they are.
func TestBacklog(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	ctx := context.Background()
	const n = 20_000
	docs := make([]search.Document, n)
	for i := range docs {
		docs[i] = search.Document{"_id": fmt.Sprintf("d%05d", i), "name": fmt.Sprintf("file %d.txt", i), "size": i}
	}
	if err := e.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// Meilisearch indexes 20,000 documents in well over the time of one
	// request: some are still waiting.
	waiting, err := e.Backlog(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if waiting <= 0 || waiting > n {
		t.Errorf("backlog right after sending %d documents: %d", n, waiting)
	}
	if err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if waiting, err = e.Backlog(ctx, n); err != nil || waiting != 0 {
		t.Errorf("backlog once searchable: %d, %v", waiting, err)
	}
}
