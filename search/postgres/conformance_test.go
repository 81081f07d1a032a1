package postgres_test

import (
	"context"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

func newEngine(t testing.TB) *postgres.Engine {
	t.Helper()
	e, _ := newEngineDB(t)
	return e
}

func newEngineDB(t testing.TB) (*postgres.Engine, *gorm.DB) {
	t.Helper()
	db := testdb.New(t)
	e, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	return e, db
}

func TestConformance(t *testing.T) {
	t.Parallel()
	searchtest.Run(t, func(t *testing.T) search.Engine { return newEngine(t) })
}

func TestHighlightInsideCompoundWords(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	ctx := context.Background()
	err := e.Upsert(ctx, []search.Document{{"_id": "a", "name": "holiday_video.mp4", "notes": map[string]any{"text": "see https://example.com/zebra_crossing.html"}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Search(ctx, search.Request{Query: "mp4"}, search.Visibility{All: true})
	if err != nil || resp.TotalHits != 1 {
		t.Fatalf("%v %v", resp, err)
	}
	if hl := resp.Results[0].Highlight; len(hl) != 2 || hl[0].Field != "name" || hl[0].Fragments[0] != "holiday video <em>mp4</em>" || hl[1].Field != "extension" {
		t.Fatalf("highlight %+v", hl)
	}
	resp, _ = e.Search(ctx, search.Request{Query: "zebra crossing"}, search.Visibility{All: true})
	if resp.TotalHits != 1 || len(resp.Results[0].Highlight) != 1 || !strings.Contains(resp.Results[0].Highlight[0].Fragments[0], "<em>zebra</em> <em>crossing</em>") {
		t.Fatalf("%+v", resp.Results)
	}
	// Whole words keep the original text.
	resp, _ = e.Search(ctx, search.Request{Query: "holiday"}, search.Visibility{All: true})
	if f := resp.Results[0].Highlight[0].Fragments[0]; f != "<em>holiday</em>_video.mp4" {
		t.Fatalf("fragment %q", f)
	}
}
