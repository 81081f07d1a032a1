package postgres_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// TestResultsAreTheDocumentsIndexed: a result is the document as it was
// indexed, though its base fields live in columns: values a column cannot
// give back exactly (a date with its zone, a size with a fraction, an empty
// or non-string name) are kept as they were.
func TestResultsAreTheDocumentsIndexed(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	ctx := context.Background()
	docs := []search.Document{
		{"_id": "plain", "name": "clip.mp4", "size": int64(1234), "mime_type": "video/mp4", "last_modified": "2024-05-01T10:00:00Z",
			"location_id": "loc", "location_name": "Archive", "store_container_id": "c", "store_container_name": "footage",
			"store_url": "filesystem://Archive/footage/clip.mp4", "hashes": map[string]any{"md5": strings.Repeat("a", 32)},
			"store": map[string]any{"name": "clip.mp4", "size": 1234, "extension": "mp4"}},
		{"_id": "odd", "name": "", "size": 12.5, "last_modified": "2024-05-01T12:00:00+02:00", "location_name": "",
			"mime_type": 7, "type": "", "nested": map[string]any{"list": []any{1, "two", true, nil}}},
		{"_id": "bare"},
	}
	if err := e.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	resp, err := e.Search(ctx, search.Request{Limit: 10}, search.Visibility{All: true})
	if err != nil || len(resp.Results) != 3 {
		t.Fatalf("%v %v", resp, err)
	}
	got := map[string]map[string]any{}
	for _, r := range resp.Results {
		got[r.Result["_id"].(string)] = r.Result
	}
	for _, d := range docs {
		p, err := search.PrepareItem(d)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(p.Public)
		have, _ := json.Marshal(got[d.ID()])
		if string(want) != string(have) {
			t.Errorf("%s:\n got %s\nwant %s", d.ID(), have, want)
		}
	}
}

// TestDigestQueries: digests are kept out of the word index, and a query
// that is one digest, as pasted, finds the items that have it.
func TestDigestQueries(t *testing.T) {
	t.Parallel()
	e, db := newEngineDB(t)
	ctx := context.Background()
	md5 := "9e107d9d372bb6826bd81d3542a419d6"
	sha1 := "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"
	sha256 := "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
	err := e.Upsert(ctx, []search.Document{
		{"_id": "a", "name": "fox.txt", "hashes": map[string]any{"md5": md5, "sha1": sha1, "sha256": sha256}},
		{"_id": "b", "name": md5 + ".jpg"}, // named by a digest: found by its name
		{"_id": "c", "name": "other.txt", "hashes": map[string]any{"md5": strings.Repeat("0", 32)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var inText int64
	db.Raw(`SELECT count(*) FROM search_documents WHERE tsv @@ to_tsquery('metaharvest_words', ?)`, sha256).Scan(&inText)
	if inText != 0 {
		t.Fatal("a digest is in the word index")
	}
	for q, want := range map[string][]string{
		md5: {"a", "b"}, strings.ToUpper(sha1): {"a"}, " " + sha256 + " ": {"a"},
		md5[:31]:                      {"b"}, // the last word is also a prefix: the name, not the digest
		strings.Repeat("0", 31) + "g": nil,
	} {
		resp, err := e.Search(ctx, search.Request{Query: q, SortFields: []search.SortField{{Field: "_id", Asc: true}}}, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range resp.Results {
			ids = append(ids, r.Result["_id"].(string))
		}
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("query %q: %v, want %v", q, ids, want)
		}
	}
}

// TestStoreFieldsReadTheirColumns: filters, sorts and aggregations on the
// store extractor's copies of name, size and extension answer as on the
// base fields, without rows of their own in search_numbers.
func TestStoreFieldsReadTheirColumns(t *testing.T) {
	t.Parallel()
	e, db := newEngineDB(t)
	ctx := context.Background()
	var docs []search.Document
	for i, n := range []string{"a.mp4", "b.jpg", "c.mp4"} {
		size := (i + 1) * 100
		docs = append(docs, search.Document{"_id": n, "name": n, "size": size,
			"store": map[string]any{"name": n, "size": size, "extension": search.Extension(n)}})
	}
	if err := e.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var rows int64
	db.Raw(`SELECT count(*) FROM search_numbers`).Scan(&rows)
	if rows != 0 {
		t.Fatalf("%d numbers rows for the store's copies of base fields", rows)
	}
	from := "150"
	resp, err := e.Search(ctx, search.Request{
		Filters:      &search.Filters{Ranges: []search.Range{{Field: "store.size", From: search.FlexString(from)}}, Terms: []search.Term{{Field: "store.extension", Value: "mp4"}}},
		SortFields:   []search.SortField{{Field: "store.name"}},
		Aggregations: &search.Aggregations{Terms: []search.TermsAgg{{Name: "ext", Field: "store.extension"}}, Metrics: []search.MetricAgg{{Name: "sum", Field: "store.size", Type: "sum"}}},
	}, search.Visibility{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 || resp.Results[0].Result["_id"] != "c.mp4" {
		t.Fatalf("results %+v", resp.Results)
	}
	if b := resp.Aggregations.Terms["ext"].Buckets; len(b) != 1 || b[0].Key != "mp4" || b[0].Count != 1 {
		t.Fatalf("terms %+v", b)
	}
	if s := resp.Aggregations.Metrics["sum"]; s == nil || *s != 300 {
		t.Fatalf("sum %v", s)
	}
	// Exists still reads whether the document has the field.
	resp, _ = e.Search(ctx, search.Request{Filters: &search.Filters{Exists: []string{"store.size"}}}, search.Visibility{All: true})
	if resp.TotalHits != 3 {
		t.Fatalf("exists: %d", resp.TotalHits)
	}
}
