package meili_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// TestPeopleReachMeilisearch: an item's persons are words, a filter and
// a facet of its document, its moments carry them, and a new name is
// found once the outbox is drained, without harvesting again.
func TestPeopleReachMeilisearch(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	eng := newEngine(t)
	ctx := context.Background()
	for _, stmt := range []string{
		`INSERT INTO locations (id, kind, name) VALUES ('loc', 'filesystem', 'archive')`,
		`INSERT INTO containers (id, location_id, name) VALUES ('c', 'loc', 'clips')`,
		`INSERT INTO items (id, location_id, container_id, path, name, mime_type, metadata) VALUES
		 ('v1', 'loc', 'c', 'launch.mp4', 'launch.mp4', 'video/mp4', '{"vendor_faces": {"count": 1}}'),
		 ('v2', 'loc', 'c', 'other.mp4', 'other.mp4', 'video/mp4', '{}')`,
		`INSERT INTO segment_parts (item_id, extractor, time_ms, thumbnail, summary) VALUES
		 ('v1', 'vendor_faces', 4000, 'null', '{"people": [{"id": "local-1", "source": "pigo"}]}')`,
		`INSERT INTO persons (id, name, is_known) VALUES ('p1', 'Eileen Collins', true)`,
		`INSERT INTO person_faces (item_id, extractor, face, container_id, person_id, local_person, described_at)
		 VALUES ('v1', 'vendor_faces', 0, 'c', 'p1', 'local-1', now())`,
	} {
		if err := db.Exec(stmt).Error; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	drain := func() {
		t.Helper()
		if err := search.MarkDirty(db, "v1", "v2"); err != nil {
			t.Fatal(err)
		}
		if _, err := search.Drain(ctx, db, eng, 100); err != nil {
			t.Fatal(err)
		}
		if err := eng.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	find := func(req search.Request) []string {
		t.Helper()
		res, err := eng.Search(ctx, req, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Results {
			out = append(out, fmt.Sprint(r.Result["name"]))
		}
		return out
	}
	drain()
	if got := find(search.Request{Query: "Collins"}); fmt.Sprint(got) != "[launch.mp4]" {
		t.Errorf("Collins finds %v", got)
	}
	byID := search.Request{Filters: &search.Filters{Terms: []search.Term{{Field: "people.person_id", Value: "p1"}}}}
	if got := find(byID); fmt.Sprint(got) != "[launch.mp4]" {
		t.Errorf("people.person_id = p1 finds %v", got)
	}
	segs, err := eng.SearchSegments(ctx, search.SegmentRequest{Filters: &search.SegmentFilters{
		ExactTerms: []search.Term{{Field: "summary.people.name", Value: "Eileen Collins"}}}}, search.Visibility{All: true})
	if err != nil || segs.TotalHits != 1 {
		t.Fatalf("her moments: %v %v", segs, err)
	}

	// Renamed: the writer marks her items dirty in its transaction.
	start := time.Now()
	err = db.Transaction(func(tx *store.DB) error {
		if err := store.RenamePerson(tx, "p1", "Eileen Marie Collins", time.Now()); err != nil {
			return err
		}
		return search.MarkDirtyWhere(tx, store.PersonItemsCond, models.Strings{"p1"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := search.Drain(ctx, db, eng, 100); err != nil {
		t.Fatal(err)
	}
	if err := eng.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := find(search.Request{Query: "Marie"}); fmt.Sprint(got) != "[launch.mp4]" {
		t.Errorf("after renaming, Marie finds %v", got)
	}
	t.Logf("renamed and searchable in %v", time.Since(start).Round(time.Millisecond))
}
