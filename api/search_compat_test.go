package api

import (
	"fmt"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// Issue 9, search findings, through the API: limit 0 is 400; gm-api-python's
// only ["gm_item_id"] and exists [{"field": "extracted", "value": true}]
// work; only with an unknown name leaves it out.
func TestSearchCompatibilityThroughAPI(t *testing.T) {
	t.Parallel()
	e := newSearchEnv(t)
	tok := e.adminToken
	r := e.do("POST", "/api/data/search", tok, map[string]any{"limit": 0}).status(400)
	if r.field("limit") == "" {
		t.Fatalf("limit 0: %s", r.Body)
	}
	e.do("POST", "/api/data/segments/search", tok, map[string]any{"limit": 0,
		"filters": map[string]any{"exists": []string{"time"}}}).status(400)

	quick := e.do("POST", "/api/data/search", tok, map[string]any{"limit": 50000, "only": []string{"gm_item_id"}}).status(200).json()
	results := quick["results"].([]any)
	if len(results) != 3 || quick["limit"].(float64) != 1000 {
		t.Fatalf("search_quick: %v", quick)
	}
	for _, res := range results {
		doc := res.(map[string]any)["result"].(map[string]any)
		if len(doc) != 1 || doc["_id"] == nil {
			t.Fatalf("only gm_item_id returned %v", doc)
		}
	}

	extracted := e.do("POST", "/api/data/search", tok, map[string]any{"limit": 50000, "filters": map[string]any{
		"exists": []map[string]any{{"field": "extracted", "value": true}}}}).status(200).json()
	notExtracted := e.do("POST", "/api/data/search", tok, map[string]any{"limit": 50000, "filters": map[string]any{
		"not_exists": []map[string]any{{"field": "extracted", "value": true}}}}).status(200).json()
	// The fixture's items were made without a harvest (no store data).
	if extracted["total_hits"].(float64) != 0 || notExtracted["total_hits"].(float64) != 3 {
		t.Fatalf("extracted %v, not extracted %v", extracted["total_hits"], notExtracted["total_hits"])
	}
	mixed := e.do("POST", "/api/data/search", tok, map[string]any{"filters": map[string]any{
		"exists": []any{"hashes.sha256", map[string]any{"field": "mediainfo", "value": false}}},
		"only": []string{"name", "no_such_field"}}).status(200).json()
	if fmt.Sprint(names(t, mixed)) != "[budget.pdf secret_plan.txt]" {
		t.Fatalf("exists hashes.sha256, not mediainfo: %v", names(t, mixed))
	}
	if echo := fmt.Sprint(mixed["filters"]); echo != "map[exists:[hashes.sha256] not_exists:[mediainfo]]" {
		t.Fatalf("filters echo %s", echo)
	}
	e.do("POST", "/api/data/search", tok, map[string]any{"filters": map[string]any{"exists": []any{42}}}).status(400)
}

// The field catalogue is declared by the extractors: a declared field
// filters, sorts and aggregates before any document has it (0 hits, empty
// buckets), while an undeclared one is 400.
func TestDeclaredFieldsOnAnEmptyPlatform(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	eng, err := search.Open(search.Config{DB: e.db})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Search = eng
	res := e.do("POST", "/api/data/search", e.adminToken, map[string]any{
		"filters":      map[string]any{"terms": []map[string]any{{"field": "hashes.sha256", "value": "ab"}}},
		"sort_fields":  []map[string]any{{"field": "hashes.md5"}},
		"aggregations": map[string]any{"terms": []map[string]any{{"name": "sha", "field": "hashes.sha256"}}},
		"only":         []string{"hashes.sha256"},
	}).status(200).json()
	if res["total_hits"].(float64) != 0 {
		t.Fatalf("empty platform: %v", res)
	}
	buckets := res["aggregations"].(map[string]any)["terms"].(map[string]any)["sha"].(map[string]any)["buckets"].([]any)
	if len(buckets) != 0 {
		t.Fatalf("buckets %v", buckets)
	}
	e.do("POST", "/api/data/search", e.adminToken, map[string]any{
		"filters": map[string]any{"terms": []map[string]any{{"field": "hashes.sha512", "value": "ab"}}}}).status(400)
}
