package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// TestPageOfOneLocationReadsItsIndexInOrder: a page of one location's (or
// one container's) documents in the default order is the first entries of
// its (column, id) index, with the table's statistics older than the
// location, as while a harvest fills it (migration 00028). Before, such a
// page fetched every document of the location through (vis, location_id)
// and sorted them, or walked the primary key past every other document.
func TestPageOfOneLocationReadsItsIndexInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, db := newTestEngine(t)
	docs := func(loc, ctr string, n int) []search.Document {
		out := make([]search.Document, n)
		for i := range out {
			out[i] = search.Document{"_id": fmt.Sprintf("%s-%04d", loc, i), "name": fmt.Sprintf("f%04d.bin", i),
				search.FieldLocationID: loc, search.FieldContainerID: ctr}
		}
		return out
	}
	if err := e.Upsert(ctx, docs("old", "old-ctr", 2000)); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`ANALYZE search_documents`).Error; err != nil {
		t.Fatal(err)
	}
	// Harvested after the statistics were taken.
	if err := e.Upsert(ctx, docs("new", "new-ctr", 5)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ field, value, index string }{
		{search.FieldLocationID, "new", "search_documents_location_page"},
		{search.FieldContainerID, "new-ctr", "search_documents_container_page"},
	} {
		c := &compiled{t: itemsTable, q: &query{}}
		s := &stmt{c: c, q: c.q}
		cond := s.termCond(search.TermCond{Field: tc.field, Values: []string{tc.value}})
		plan, ids := explainAndRun(t, db, `SELECT d.id FROM search_documents d WHERE `+cond+` ORDER BY d.id LIMIT 2`, s.q.args)
		if !strings.Contains(plan, tc.index) || strings.Contains(plan, "Sort") {
			t.Errorf("%s = %s: the page is not read from %s in order:\n%s", tc.field, tc.value, tc.index, plan)
		}
		if want := []string{"new-0000", "new-0001"}; strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("%s = %s: page %v, want %v", tc.field, tc.value, ids, want)
		}
	}
}
