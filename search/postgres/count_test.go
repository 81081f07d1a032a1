package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// TestEstimatedTotals: past the exact limit, total_hits and hit counts are
// estimated from a block sample: close to the truth, above the limit, and
// the same on every page.
func TestEstimatedTotals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, db := newTestEngine(t)
	c := searchtest.NewCorpus(3000, 3, time.Now())
	searchtest.Load(t, e, c)
	if err := db.Exec(`ANALYZE search_documents`).Error; err != nil {
		t.Fatal(err)
	}
	e.SetExactTotalLimit(100)
	e.sampleRows = 1000 // a third of the table

	admin := search.Visibility{All: true}
	var videos int64
	for _, d := range c.Docs {
		if d[search.FieldType] == models.TypeVideo {
			videos++
		}
	}
	req := search.Request{Types: []string{"video"}, HitCounts: map[string]int{"caption": 0}}
	first, err := e.Search(ctx, req, admin)
	if err != nil {
		t.Fatal(err)
	}
	if first.TotalHits <= 100 || first.TotalHits < videos*6/10 || first.TotalHits > videos*14/10 {
		t.Fatalf("estimate %d for %d videos", first.TotalHits, videos)
	}
	if first.HitCounts["caption"] == 0 {
		t.Fatalf("hit counts not estimated: %v", first.HitCounts)
	}
	req.Page = 3
	again, err := e.Search(ctx, req, admin)
	if err != nil || again.TotalHits != first.TotalHits {
		t.Fatalf("estimate changed between pages: %d then %d (%v)", first.TotalHits, again.TotalHits, err)
	}
	// Under the limit: exact.
	resp, err := e.Search(ctx, search.Request{Query: searchtest.MarkerName, Limit: 5}, admin)
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, d := range c.Docs {
		if d[search.FieldName].(string)[:len(searchtest.MarkerName)] == searchtest.MarkerName {
			want++
		}
	}
	if want > 100 || resp.TotalHits != want {
		t.Fatalf("exact count: %d, want %d", resp.TotalHits, want)
	}
	// A table smaller than the sample is counted in full even past the limit.
	e.sampleRows = 1e6
	resp, err = e.Search(ctx, search.Request{}, admin)
	if err != nil || resp.TotalHits != int64(len(c.Docs)) {
		t.Fatalf("full count: %d %v", resp.TotalHits, err)
	}
}
