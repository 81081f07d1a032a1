package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// TestTermCountsFollowTheDocuments: a terms aggregation over every visible
// document reads the counts the triggers keep (search_term_counts), and
// gives what counting the documents gives, through inserts, replacements
// that change values and visibility, deletions and folds of the counts.
func TestTermCountsFollowTheDocuments(t *testing.T) {
	t.Parallel()
	e, db := newEngineDB(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	mimes := []string{"image/jpeg", "video/mp4", "audio/mpeg", "text/plain", "application/pdf", ""}
	exts := []string{"jpg", "mp4", "mp3", "txt", "pdf", ""}
	groups := [][]string{nil, {"g1"}, {"g2"}, {"g1", "g2"}}
	doc := func(i, gen int) search.Document {
		loc := fmt.Sprintf("loc%d", r.IntN(3))
		d := search.Document{
			"_id": fmt.Sprintf("doc%03d", i), "name": fmt.Sprintf("file%d_%d.%s", i, gen, exts[r.IntN(len(exts))]),
			"mime_type": mimes[r.IntN(len(mimes))], "location_id": loc, "location_name": "Location " + loc,
			"store_container_id": fmt.Sprintf("%s-c%d", loc, r.IntN(4)), "store_container_name": fmt.Sprintf("folder %d", r.IntN(4)),
			search.FieldLocationGroups: groups[r.IntN(len(groups))], search.FieldContainerGroups: groups[r.IntN(2)],
		}
		if r.IntN(5) == 0 {
			d["extension"] = exts[r.IntN(len(exts))] // not the name's
		}
		return d
	}
	upsert := func(ids []int, gen int) {
		t.Helper()
		var docs []search.Document
		for _, i := range ids {
			docs = append(docs, doc(i, gen))
		}
		if err := e.Upsert(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	span := func(from, to int) []int {
		var ids []int
		for i := from; i < to; i++ {
			ids = append(ids, i)
		}
		return ids
	}
	fields := []string{search.FieldType, search.FieldExtension, search.FieldMimeType, search.FieldLocationID,
		search.FieldLocationName, search.FieldContainerID, search.FieldContainerName}
	viewers := map[string]search.Visibility{
		"admin": {All: true}, "g1": {GroupIDs: []string{"g1"}}, "g2": {GroupIDs: []string{"g2"}}, "nobody": {},
	}
	aggs := func(sizes int) *search.Aggregations {
		a := &search.Aggregations{}
		for _, f := range fields {
			a.Terms = append(a.Terms, search.TermsAgg{Name: f, Field: f, Size: sizes})
		}
		return a
	}
	check := func(step string) {
		t.Helper()
		for who, vis := range viewers {
			for _, size := range []int{2, 100} {
				counted, err := e.Search(ctx, search.Request{Aggregations: aggs(size)}, vis)
				if err != nil {
					t.Fatal(err)
				}
				// The same documents through a filter that keeps every
				// one: the aggregation then counts the documents.
				every := search.Request{Aggregations: aggs(size), Types: []string{models.TypeImage, models.TypeVideo,
					models.TypeAudio, models.TypeDocument, models.TypeOther}}
				counting, err := e.Search(ctx, every, vis)
				if err != nil {
					t.Fatal(err)
				}
				if counted.TotalHits != counting.TotalHits {
					t.Fatalf("%s, %s: the filter keeps %d documents of %d", step, who, counting.TotalHits, counted.TotalHits)
				}
				if !reflect.DeepEqual(counted.Aggregations.Terms, counting.Aggregations.Terms) {
					t.Errorf("%s, %s, size %d:\n counts    %+v\n documents %+v", step, who, size, counted.Aggregations.Terms, counting.Aggregations.Terms)
				}
				// Filtered on one counted column (the documents of a
				// location, as a client counts them during a harvest):
				// the total and that column's aggregation read the counts,
				// and agree with the documents, as do the others.
				for _, f := range []search.Filters{
					{Terms: []search.Term{{Field: search.FieldLocationID, Value: "loc1"}}},
					{Terms: []search.Term{{Field: search.FieldMimeType, Value: "image/jpeg"}}},
					{MultiTerms: []search.Term{{Field: search.FieldLocationID, Value: "loc0,loc2"}}},
					{Terms: []search.Term{{Field: search.FieldExtension, Value: "none"}}},
				} {
					filtered := search.Request{Limit: 1, Filters: &f, Aggregations: aggs(size)}
					got, err := e.Search(ctx, filtered, vis)
					if err != nil {
						t.Fatal(err)
					}
					filtered.Types = every.Types
					want, err := e.Search(ctx, filtered, vis)
					if err != nil {
						t.Fatal(err)
					}
					if got.TotalHits != want.TotalHits || !reflect.DeepEqual(got.Aggregations.Terms, want.Aggregations.Terms) {
						t.Errorf("%s, %s, size %d, filter %+v: total %d, %+v; the documents say %d, %+v",
							step, who, size, f, got.TotalHits, got.Aggregations.Terms, want.TotalHits, want.Aggregations.Terms)
					}
				}
			}
		}
	}
	var unfolded, keys, rows int64
	fold := func() {
		t.Helper()
		// Maintain folds when writes pause: the write counters it reads
		// settle within a second or two.
		deadline := time.Now().Add(20 * time.Second)
		for {
			if err := e.Maintain(ctx); err != nil {
				t.Fatal(err)
			}
			db.Raw(`SELECT count(*) FILTER (WHERE NOT folded), count(DISTINCT (col, vis, k)), count(*) FROM search_term_counts`).Row().Scan(&unfolded, &keys, &rows)
			if unfolded == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d count rows still unfolded", unfolded)
			}
			time.Sleep(300 * time.Millisecond)
		}
		if rows != keys {
			t.Fatalf("folded: %d rows for %d keys", rows, keys)
		}
		var zero int64
		db.Raw(`SELECT count(*) FROM search_term_counts WHERE n <= 0`).Scan(&zero)
		if zero != 0 {
			t.Fatalf("%d keys counted at zero or less are kept", zero)
		}
	}

	upsert(span(0, 150), 0)
	upsert(span(150, 300), 0)
	check("inserted")
	fold()
	check("folded")
	upsert(span(100, 200), 1) // replaced: new values and classes
	if err := e.Delete(ctx, []string{"doc000", "doc001", "doc150", "doc299", "doc404"}); err != nil {
		t.Fatal(err)
	}
	db.Raw(`SELECT count(*) FROM search_term_counts WHERE NOT folded`).Scan(&unfolded)
	if unfolded == 0 {
		t.Fatal("the writes after the fold appended no counts")
	}
	check("replaced and deleted, some counts folded and some not")
	fold()
	check("folded again")
	// The aggregation over everything reads the counts, not the documents:
	// a count row that no document backs shows in it.
	if err := db.Exec(`INSERT INTO search_term_counts (vis, col, k, n) SELECT min(vis), 'mime_type', 'x/phantom', 1000 FROM search_documents`).Error; err != nil {
		t.Fatal(err)
	}
	resp, err := e.Search(ctx, search.Request{Aggregations: aggs(1)}, viewers["admin"])
	if err != nil {
		t.Fatal(err)
	}
	if b := resp.Aggregations.Terms[search.FieldMimeType].Buckets; len(b) != 1 || b[0].Key != "x/phantom" {
		t.Fatalf("the aggregation over everything did not read the counts: %+v", b)
	}
	// So do the total and aggregation of a search filtered on one counted
	// column: phantom counts of a value that documents have show in both.
	jpeg := search.Request{Limit: 1, Filters: &search.Filters{Terms: []search.Term{{Field: search.FieldMimeType, Value: "image/jpeg"}}},
		Aggregations: aggs(1)}
	before, err := e.Search(ctx, jpeg, viewers["admin"])
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`INSERT INTO search_term_counts (vis, col, k, n) SELECT min(vis), 'mime_type', 'image/jpeg', 1000 FROM search_documents`).Error; err != nil {
		t.Fatal(err)
	}
	after, err := e.Search(ctx, jpeg, viewers["admin"])
	if err != nil {
		t.Fatal(err)
	}
	if before.TotalHits == 0 || after.TotalHits != before.TotalHits+1000 ||
		after.Aggregations.Terms[search.FieldMimeType].Buckets[0].Count != before.TotalHits+1000 {
		t.Fatalf("a search filtered on one counted column did not count from the counts: total %d then %d, %+v",
			before.TotalHits, after.TotalHits, after.Aggregations.Terms[search.FieldMimeType])
	}
	if err := e.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	db.Raw(`SELECT count(*) FROM search_term_counts`).Scan(&rows)
	if rows != 0 {
		t.Fatalf("a reset index keeps %d count rows", rows)
	}
	check("reset")
}
