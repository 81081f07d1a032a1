package e2e

import (
	"testing"
)

// Issue 9: a filter on mediainfo.video.duration before any video was
// harvested answered 400 unknown field. The binary links every extractor
// (extractors/families), whose declarations make the search catalogue:
// on an empty platform that field filters, sorts and aggregates like any
// other, with no hits and empty buckets; a name no extractor declares is
// still 400.
func TestDeclaredExtractorFieldOnAnEmptyPlatform(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	c, _ := p.startAPI()
	const field = "mediainfo.video.duration"
	res := c.call("POST", "/api/data/search", map[string]any{
		"filters": map[string]any{
			"ranges": []map[string]any{{"field": field, "from": 10, "to": 3600}},
			"terms":  []map[string]any{{"field": field, "value": 12.5}},
			"exists": []string{field},
		},
		"sort_fields": []map[string]any{{"field": field, "order": "desc"}},
		"aggregations": map[string]any{
			"metrics":    []map[string]any{{"name": "longest", "field": field, "type": "max"}},
			"terms":      []map[string]any{{"name": "durations", "field": field}},
			"histograms": []map[string]any{{"name": "minutes", "field": field, "interval": 60}},
		},
		"only": []string{field},
	}, 200)
	if res["total_hits"] != 0.0 || len(res["results"].([]any)) != 0 {
		t.Fatalf("empty platform: %v", res)
	}
	aggs := res["aggregations"].(map[string]any)
	if v, ok := aggs["metrics"].(map[string]any)["longest"]; !ok || v != nil {
		t.Errorf("max of no value: %v", aggs["metrics"])
	}
	for _, kind := range []string{"terms", "histograms"} {
		for name, r := range aggs[kind].(map[string]any) {
			if b := r.(map[string]any)["buckets"].([]any); len(b) != 0 {
				t.Errorf("%s %s: buckets %v", kind, name, b)
			}
		}
	}
	// Without a filter, sorting on it is as good (nothing to sort yet).
	c.call("POST", "/api/data/search", map[string]any{"sort_fields": []map[string]any{{"field": field}}}, 200)
	for _, bad := range []map[string]any{
		{"filters": map[string]any{"ranges": []map[string]any{{"field": field + "s", "from": 1}}}},
		{"sort_fields": []map[string]any{{"field": "mediainfo.video.length"}}},
		{"aggregations": map[string]any{"terms": []map[string]any{{"name": "x", "field": "mediainfo.nosuch"}}}},
	} {
		c.call("POST", "/api/data/search", bad, 400)
	}
}
