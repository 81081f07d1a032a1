package meili

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/search"
)

var now = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)

func catalogue(t *testing.T) *search.Catalogue {
	t.Helper()
	cat := search.NewCatalogue(search.ScopeItems)
	p, err := search.PrepareItem(search.Document{
		"_id": "x", "name": "a.mp4", "mime_type": "video/mp4", "size": 10, "last_modified": "2024-01-02T03:04:05Z",
		"mediainfo": map[string]any{"video": map[string]any{"duration": 12.5, "codec": "h264"}},
		"exiv2":     map[string]any{"date_time_original": "2021:01:02 10:00:00", "iso": 100},
		"subs":      map[string]any{"text": "hello", "language": "en"},
		"nsfw":      map[string]any{"nsfw": true},
		"tags":      map[string]any{"items": []any{map[string]any{"name": "sea"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cat.Merge(p)
	return cat
}

func compile(t *testing.T, req search.Request) *search.Plan {
	t.Helper()
	p, err := search.Compile(req, catalogue(t), now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:          `"plain"`,
		`with space`:     `"with space"`,
		`a"b`:            `"a\"b"`,
		`back\slash`:     `"back\\slash"`,
		`\"`:             `"\\\""`,
		`x AND y OR NOT`: `"x AND y OR NOT"`,
		`'single'`:       `"'single'"`,
		"":               `""`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFilter(t *testing.T) {
	cases := []struct {
		name string
		req  search.Request
		vis  search.Visibility
		want string
	}{
		{"admin, nothing", search.Request{}, search.Visibility{All: true}, ""},
		{"visibility", search.Request{}, search.Visibility{GroupIDs: []string{"g1", "g2"}},
			`"_location_groups" IN ["__public__", "g1", "g2"] AND "_container_groups" IN ["__public__", "g1", "g2"]`},
		{"no groups", search.Request{}, search.Visibility{},
			`"_location_groups" IN ["__public__"] AND "_container_groups" IN ["__public__"]`},
		{"types", search.Request{Types: []string{"video", "image", "video"}}, search.Visibility{All: true},
			`"type" IN ["video", "image"]`},
		{"terms and multi terms", search.Request{Filters: &search.Filters{
			Terms:      []search.Term{{Field: "mediainfo.video.codec", Value: `h"264`}},
			MultiTerms: []search.Term{{Field: "name", Value: "a, b ,,c"}},
		}}, search.Visibility{All: true},
			`"mediainfo.video.codec" IN ["h\"264"] AND "name" IN ["a", "b", "c"]`},
		{"empty term matches nothing", search.Request{Filters: &search.Filters{Terms: []search.Term{{Field: "name", Value: ""}}}},
			search.Visibility{All: true}, `"_id" IN []`},
		{"number range", search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "size", From: "1e3", To: "2000.5"}}}},
			search.Visibility{All: true}, `("size" >= 1000 AND "size" <= 2000.5)`},
		{"open range", search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "mediainfo.video.duration", To: "-3"}}}},
			search.Visibility{All: true}, `("mediainfo.video.duration" <= -3)`},
		{"date range", search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "last_modified", From: "now-1h", To: "2026-05-10"}}}},
			search.Visibility{All: true}, fmt.Sprintf(`("_dates.last_modified" >= %d AND "_dates.last_modified" <= %s)`,
				now.Add(-time.Hour).Unix(), number(float64(time.Date(2026, 5, 11, 0, 0, 0, 0, time.UTC).UnixNano()-1)/1e9))},
		{"exif date range", search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "exiv2.date_time_original", From: "2020-01-01"}}}},
			search.Visibility{All: true}, `("_dates.exiv2.date_time_original" >= 1577836800)`},
		{"exists object", search.Request{Filters: &search.Filters{Exists: []string{"subs"}}}, search.Visibility{All: true},
			`(("subs.language" EXISTS AND NOT "subs.language" IS NULL AND NOT "subs.language" IS EMPTY) OR ("subs.text" EXISTS AND NOT "subs.text" IS NULL AND NOT "subs.text" IS EMPTY))`},
		{"not exists", search.Request{Filters: &search.Filters{NotExists: []string{"nsfw.nsfw"}}}, search.Visibility{All: true},
			`NOT (("nsfw.nsfw" EXISTS AND NOT "nsfw.nsfw" IS NULL AND NOT "nsfw.nsfw" IS EMPTY))`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := filter(compile(t, tc.req), tc.vis); got != tc.want {
				t.Fatalf("filter:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestSearchRequest(t *testing.T) {
	p := compile(t, search.Request{
		Query: "sea ho", Limit: 5000, Page: 2, Fields: []string{"subs"},
		SortFields: []search.SortField{{Field: "last_modified"}, {Field: "size", Asc: true}, {Field: "name", Asc: true}},
		Aggregations: &search.Aggregations{
			Metrics:    []search.MetricAgg{{Name: "m", Field: "last_modified", Type: "max"}, {Name: "n", Field: "size", Type: "sum"}},
			Terms:      []search.TermsAgg{{Name: "t", Field: "mediainfo.video.codec"}},
			Histograms: []search.HistogramAgg{{Name: "h", Field: "size", Interval: 10}},
		},
	})
	r := searchRequest("idx", p, search.Visibility{All: true}, []string{"time:asc"})
	if r.IndexUID != "idx" || r.Query != "sea ho" || r.Page != 3 || *r.HitsPerPage != 1000 || r.Filter != nil {
		t.Fatalf("basics: %+v", r)
	}
	if !slices.Equal(r.Sort, []string{"_dates.last_modified:desc", "size:asc", "name:asc"}) {
		t.Fatalf("sort: %v", r.Sort)
	}
	if !slices.Equal(r.AttributesToSearchOn, []string{"subs.language", "subs.text"}) ||
		!slices.Equal(r.AttributesToHighlight, r.AttributesToSearchOn) || r.HighlightPreTag != "<em>" || r.HighlightPostTag != "</em>" {
		t.Fatalf("fields and highlights: %+v", r)
	}
	if !slices.Equal(r.Facets, []string{"_dates.last_modified", "size", "mediainfo.video.codec"}) {
		t.Fatalf("facets: %v", r.Facets)
	}
	if r.MatchingStrategy != meilisearch.All || !r.ShowRankingScore {
		t.Fatalf("strategy: %+v", r)
	}
	// The wire form: what the server receives.
	b, _ := json.Marshal(r)
	for _, want := range []string{`"q":"sea ho"`, `"page":3`, `"hitsPerPage":1000`, `"showRankingScore":true`, `"matchingStrategy":"all"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("wire form %s lacks %s", b, want)
		}
	}

	// Placeholder: default sort, no highlighting, filter present.
	p = compile(t, search.Request{Types: []string{"audio"}})
	r = searchRequest("idx", p, search.Visibility{GroupIDs: []string{"g"}}, []string{"time:asc"})
	if !slices.Equal(r.Sort, []string{"time:asc"}) || r.AttributesToHighlight != nil || r.Page != 1 || *r.HitsPerPage != 20 {
		t.Fatalf("placeholder: %+v", r)
	}
	if f, _ := r.Filter.(string); !strings.HasSuffix(f, `"type" IN ["audio"]`) {
		t.Fatalf("placeholder filter: %v", r.Filter)
	}

	// Hit counts: one counting query per type with known paths (declared
	// or seen: this test binary links every extractor, as production does).
	p = compile(t, search.Request{Query: "x", HitCounts: map[string]int{"caption": 0, "ocr": 0, "nsfw": 0, "sport": 0}})
	reqs, types := hitCountRequests("idx", p, search.Visibility{All: true})
	if !slices.Equal(types, []string{"caption", "nsfw", "ocr", "sport"}) || len(reqs) != 4 {
		t.Fatalf("hit counts: %v", types)
	}
	if *reqs[0].HitsPerPage != 0 || reqs[0].Query != "x" || !strings.Contains(reqs[0].Filter.(string), `"captions.`) {
		t.Fatalf("hit count request: %+v", reqs[0])
	}
}

func TestDocumentAndSettings(t *testing.T) {
	p, err := search.PrepareItem(search.Document{
		"_id": "d1", "name": "a.JPG", "mime_type": "image/jpeg", "last_modified": "2024-01-02T03:04:05Z",
		"_location_groups": []string{}, "_container_groups": []string{"g"},
		"exiv2": map[string]any{"date_time_original": "2021:01:02 10:00:00"},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := document(p)
	if !reflect.DeepEqual(d["_location_groups"], []string{publicGroup}) || !reflect.DeepEqual(d["_container_groups"], []string{"g"}) {
		t.Fatalf("groups: %v %v", d["_location_groups"], d["_container_groups"])
	}
	dates := d["_dates"].(map[string]any)
	if !reflect.DeepEqual(dates["last_modified"], []float64{1704164645}) || !reflect.DeepEqual(dates["exiv2.date_time_original"], []float64{1609581600}) {
		t.Fatalf("dates: %v", dates)
	}
	if d["type"] != "image" || d["extension"] != "jpg" {
		t.Fatalf("derived fields: %v", d)
	}

	checkItemSettings(t)
}

// The items index filters every declared field, the generic provider
// names and custom fields; it sorts declared fields but long text; a field
// only a document brought neither filters nor sorts.
func checkItemSettings(t *testing.T) {
	s := declaredSettings(search.ScopeItems, 1000, 5000)
	for _, want := range []string{"_location_groups", "_container_groups", "_id", "size", "last_modified", "_dates.last_modified",
		"tags.items.name", "labels.names", "fields.f1", "pdf.text", "hashes.sha256"} {
		if !s.filters(want) {
			t.Errorf("%s does not filter", want)
		}
	}
	for _, not := range []string{"json.some.key", "xmlish"} {
		if s.filters(not) {
			t.Errorf("%s filters", not)
		}
	}
	if s.sorts("_location_groups") || !s.sorts("_dates.last_modified") || !s.sorts("size") || s.sorts("pdf.text") || s.sorts("json.some.key") {
		t.Errorf("sortable: %v", s.base.SortableAttributes)
	}
	if s.base.SearchableAttributes[0] != "name" || slices.Contains(s.base.SearchableAttributes, "_id") ||
		slices.Contains(s.base.SearchableAttributes, "location_id") || slices.Contains(s.base.SearchableAttributes, "size") ||
		!s.searches("captions.text") || !s.searches("pdf.text") || !s.searches("labels.names") {
		t.Errorf("searchable: %v", s.base.SearchableAttributes)
	}
	if s.base.RankingRules[0] != "sort" || s.base.Faceting.MaxValuesPerFacet != 1000 || s.base.Faceting.SortFacetValuesBy["*"] != meilisearch.SortFacetTypeCount || s.base.Pagination.MaxTotalHits != 5000 {
		t.Errorf("settings: %+v", s.base)
	}
	if s.key() != declaredSettings(search.ScopeItems, 1000, 5000).key() || s.key() == declaredSettings(search.ScopeItems, 1001, 5000).key() {
		t.Error("settings key")
	}
}

func TestDecodeHit(t *testing.T) {
	hit := meilisearch.Hit{}
	for k, v := range map[string]string{
		"_id":               `"d1"`,
		"name":              `"quokka_beach.mp4"`,
		"size":              `12345678901234`,
		"_location_groups":  `["__public__"]`,
		"_container_groups": `["g"]`,
		"_dates":            `{"last_modified":[1]}`,
		"_rankingScore":     `0.73`,
		"captions":          `{"text":"a quokka here","language":"en"}`,
		"_formatted": `{"_id":"d1","name":"<em>quokka</em>_beach.mp4","captions":{"text":"a <em>quokka</em> here","language":"en"},
			"_location_groups":["<em>x</em>"],"location_id":"<em>quokka</em>"}`,
	} {
		hit[k] = json.RawMessage(v)
	}
	p := compile(t, search.Request{Query: "quokka", Only: []string{"name", "size"}})
	doc, score, hl, err := decodeHit(hit, p)
	if err != nil {
		t.Fatal(err)
	}
	if score != 0.73 {
		t.Fatalf("score %v", score)
	}
	if len(doc) != 3 || doc["name"] != "quokka_beach.mp4" || doc["size"].(json.Number).String() != "12345678901234" {
		t.Fatalf("doc: %v", doc)
	}
	want := []search.Highlight{
		{Field: "name", Fragments: []string{"<em>quokka</em>_beach.mp4"}},
		{Field: "captions.text", Fragments: []string{"a <em>quokka</em> here"}},
	}
	if !reflect.DeepEqual(hl, want) {
		t.Fatalf("highlights: %+v", hl)
	}
	// Without a query every hit scores 1 and nothing is highlighted.
	delete(hit, "_formatted")
	_, score, hl, err = decodeHit(hit, compile(t, search.Request{}))
	if err != nil || score != 1 || hl == nil || len(hl) != 0 {
		t.Fatalf("placeholder hit: %v %v %v", score, hl, err)
	}
}

func TestAggregations(t *testing.T) {
	p := compile(t, search.Request{Aggregations: &search.Aggregations{
		Metrics: []search.MetricAgg{
			{Name: "min", Field: "size", Type: "min"}, {Name: "max", Field: "size", Type: "max"},
			{Name: "sum", Field: "size", Type: "sum"}, {Name: "avg", Field: "size", Type: "avg"},
			{Name: "card", Field: "mediainfo.video.codec", Type: "cardinality"},
			{Name: "lm", Field: "last_modified", Type: "max"},
			{Name: "none", Field: "exiv2.iso", Type: "min"},
		},
		Terms:      []search.TermsAgg{{Name: "codec", Field: "mediainfo.video.codec", Size: 2}},
		Histograms: []search.HistogramAgg{{Name: "h", Field: "size", Interval: 10, MinCount: 0}},
	}})
	dist := `{"size":{"5":2,"12":1,"31":3},"mediainfo.video.codec":{"h264":5,"hevc":3,"vp9":3,"prores":1},"_dates.last_modified":{"100":1}}`
	stats := `{"size":{"min":5,"max":31},"_dates.last_modified":{"min":100,"max":100}}`
	out, err := aggregations(p, json.RawMessage(dist), json.RawMessage(stats))
	if err != nil {
		t.Fatal(err)
	}
	f := func(name string) any {
		if v := out.Metrics[name]; v != nil {
			return *v
		}
		return nil
	}
	if f("min") != 5.0 || f("max") != 31.0 || f("sum") != 115.0 || f("avg") != 115.0/6 || f("card") != 4.0 || f("lm") != 100.0 || f("none") != nil {
		t.Fatalf("metrics: %v %v %v %v %v %v %v", f("min"), f("max"), f("sum"), f("avg"), f("card"), f("lm"), f("none"))
	}
	terms := out.Terms["codec"]
	if !reflect.DeepEqual(terms.Buckets, []search.Bucket{{Key: "h264", Count: 5}, {Key: "hevc", Count: 3}}) || terms.OthersCount != 4 {
		t.Fatalf("terms: %+v", terms)
	}
	h := out.Histograms["h"].Buckets
	if !reflect.DeepEqual(h, []search.HistogramBucket{{Key: 0, Count: 2}, {Key: 10, Count: 1}, {Key: 20, Count: 0}, {Key: 30, Count: 3}}) {
		t.Fatalf("histogram: %+v", h)
	}
	if out, err := aggregations(compile(t, search.Request{}), nil, nil); out != nil || err != nil {
		t.Fatalf("no aggregations: %v %v", out, err)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"d00001-s1": true, "abc_DEF-9": true, "": false, "../keys": false, "a/b": false, "a b": false, "é": false,
		strings.Repeat("a", 512): false,
	} {
		if validID(id) != want {
			t.Errorf("validID(%q) = %v", id, !want)
		}
	}
}

// The segments index searches the captions linked to segments as text and
// filters on their source and language from the start, before any
// captioned segment was indexed.
func TestSegmentSettingsSearchTranscripts(t *testing.T) {
	s := declaredSettings(search.ScopeSegments, 1000, 5000)
	for _, f := range []string{"summary.transcript.text", "summary.transcript.source", "summary.transcript.language"} {
		if !s.searches(f) || !s.filters(f) {
			t.Errorf("%s: searchable %v, filterable %v", f, s.base.SearchableAttributes, s.filterable)
		}
	}
	if !s.sorts("summary.transcript.start_at") || !s.sorts("time") || s.searches("item_id") {
		t.Errorf("settings %+v", s.base)
	}
	p, err := search.Prepare(search.Document{"_id": "v-5210", "item_id": "v", "time": 5.21,
		"summary": map[string]any{"transcript": []any{map[string]any{"text": "made amiable himself", "source": "speech", "language": "en", "start_at": 5.21, "end_at": 8}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := document(p)["summary"]; !strings.Contains(fmt.Sprint(got), "made amiable himself") {
		t.Errorf("document %v", document(p))
	}
}
