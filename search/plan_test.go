package search

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

func testCatalogue(t *testing.T) *Catalogue {
	t.Helper()
	cat := NewCatalogue(ScopeItems)
	p, err := PrepareItem(Document{
		"_id": "x", "name": "a.mp4", "mime_type": "video/mp4", "size": 10, "last_modified": "2024-01-02T03:04:05Z",
		"mediainfo": map[string]any{"video": map[string]any{"duration": 12.5, "codec": "h264"}},
		"exiv2":     map[string]any{"iso": "unknown", "date_time_original": "2021:01:02 10:00:00"},
		"captions":  map[string]any{"text": "hello"},
		"nsfw":      map[string]any{"nsfw": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	cat.Merge(p)
	p, _ = PrepareItem(Document{"_id": "y", "exiv2": map[string]any{"iso": 400}})
	cat.Merge(p)
	return cat
}

func invalidFields(t *testing.T, err error) map[string]string {
	t.Helper()
	ae, ok := apperr.As(err)
	if !ok || ae.Status != http.StatusBadRequest {
		t.Fatalf("want a 400, got %v", err)
	}
	return ae.Fields
}

func TestCompileDefaultsAndLimits(t *testing.T) {
	cat := testCatalogue(t)
	for _, tc := range []struct {
		limit, wantLimit int
	}{{0, 20}, {1, 1}, {999, 999}, {1000, 1000}, {1001, 1000}, {1 << 30, 1000}} {
		p, err := Compile(Request{Limit: tc.limit, Page: 3}, cat, testNow)
		if err != nil || p.Limit != tc.wantLimit || p.Page != 3 || p.Offset() != 3*tc.wantLimit {
			t.Fatalf("limit %d: %+v %v", tc.limit, p, err)
		}
	}
	f := invalidFields(t, Validate(Request{Limit: -1, Page: -2}, cat))
	if f["limit"] == "" || f["page"] == "" {
		t.Fatalf("fields %v", f)
	}
	f = invalidFields(t, Validate(Request{Filters: &Filters{}}, cat))
	if !strings.Contains(f["filters"], "at least one") {
		t.Fatalf("filters: {} -> %v", f)
	}
	// "filters": {} as JSON.
	var req Request
	if err := json.Unmarshal([]byte(`{"query":"x","filters":{}}`), &req); err != nil {
		t.Fatal(err)
	}
	invalidFields(t, Validate(req, cat))
	if err := json.Unmarshal([]byte(`{"filters":null}`), &req); err != nil || Validate(req, cat) != nil {
		t.Fatalf("filters: null: %v", err)
	}
}

func TestCompileUnknownFieldsNamed(t *testing.T) {
	cat := testCatalogue(t)
	req := Request{
		Fields:     []string{"nope1"},
		SortFields: []SortField{{Field: "nope2"}},
		Only:       []string{"nope3"},
		Filters: &Filters{
			Terms:      []Term{{Field: "nope4", Value: "x"}},
			MultiTerms: []Term{{Field: "nope5", Value: "x"}},
			Ranges:     []Range{{Field: "nope6", From: "1"}},
			Exists:     []string{"nope7"},
			NotExists:  []string{"nope8"},
		},
		Aggregations: &Aggregations{
			Metrics:    []MetricAgg{{Name: "a", Field: "nope9", Type: "min"}},
			Terms:      []TermsAgg{{Name: "b", Field: "nope10"}},
			Histograms: []HistogramAgg{{Name: "c", Field: "nope11", Interval: 1}},
		},
	}
	f := invalidFields(t, Validate(req, cat))
	all := ""
	for k, v := range f {
		all += k + "=" + v + "\n"
	}
	for i := 1; i <= 11; i++ {
		name := "nope" + string(rune('0'+i%10))
		if i >= 10 {
			name = "nope1" + string(rune('0'+i-10))
		}
		if i == 3 {
			continue // only leaves unknown names out (TestCompileOnly)
		}
		if !strings.Contains(all, `"`+name+`"`) {
			t.Errorf("%s not named in:\n%s", name, all)
		}
	}
	if f["only"] != "" {
		t.Errorf("only with an unknown name refused: %v", f["only"])
	}
	for _, key := range []string{"fields", "sort_fields", "filters.terms[0]", "filters.multi_terms[0]",
		"filters.ranges[0]", "filters.exists[0]", "filters.not_exists[0]", "aggregations.metrics[0]",
		"aggregations.terms[0]", "aggregations.histograms[0]"} {
		if f[key] == "" {
			t.Errorf("no problem under %s: %v", key, f)
		}
	}
}

func TestCompileResolves(t *testing.T) {
	cat := testCatalogue(t)
	p, err := Compile(Request{
		Query:      "  hello wor ",
		Fields:     []string{"captions", "name"},
		SortFields: []SortField{{Field: "exiv2.iso"}, {Field: "last_modified", Asc: true}, {Field: "name"}},
		Only:       []string{"mediainfo", "mediainfo"},
		Filters: &Filters{
			MultiTerms: []Term{{Field: "mediainfo.video.codec", Value: " h264, ,hevc,h264"}},
			Ranges:     []Range{{Field: "exiv2.iso", From: "100"}, {Field: "exiv2.date_time_original", To: "now-1d"}},
			Exists:     []string{"mediainfo"},
		},
		Aggregations: &Aggregations{
			Metrics: []MetricAgg{{Name: "m", Field: "last_modified", Type: "max"}, {Name: "c", Field: "name", Type: "cardinality"}},
			Terms:   []TermsAgg{{Name: "t", Field: "type"}},
		},
		HitCounts: map[string]int{},
	}, cat, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if p.Query != "hello wor" || !p.Prefix {
		t.Fatalf("query %q prefix %v", p.Query, p.Prefix)
	}
	if !slices.Equal(p.SearchFields, []string{"captions.text", "name"}) {
		t.Fatalf("search fields %v", p.SearchFields)
	}
	wantSort := []SortKey{{"exiv2.iso", false, KindNumber}, {"last_modified", true, KindDate}, {"name", false, KindString}}
	if !reflect.DeepEqual(p.Sort, wantSort) {
		t.Fatalf("sort %+v", p.Sort)
	}
	if !slices.Equal(p.Only, []string{"mediainfo"}) || !slices.Equal(p.Terms[0].Values, []string{"h264", "hevc"}) {
		t.Fatalf("only %v terms %v", p.Only, p.Terms)
	}
	if p.Ranges[0].Kind != KindNumber || p.Ranges[1].Kind != KindDate || p.Ranges[1].From != nil ||
		!p.Ranges[1].To.Time.Equal(testNow.AddDate(0, 0, -1)) {
		t.Fatalf("ranges %+v", p.Ranges)
	}
	if !slices.Equal(p.Exists[0].Leaves, []string{"mediainfo.video.codec", "mediainfo.video.duration"}) {
		t.Fatalf("exists %+v", p.Exists)
	}
	if p.Metrics[0].Kind != KindDate || p.Metrics[1].Kind != 0 || p.TermsAggs[0].Size != DefaultTermsSize {
		t.Fatalf("aggs %+v %+v", p.Metrics, p.TermsAggs)
	}
	if !p.WantHitCounts || len(p.HitCounts) != len(HitCountTypes()) {
		t.Fatalf("hit counts %+v", p.HitCounts)
	}
	for _, hc := range p.HitCounts {
		if hc.Type == "caption" && !slices.Equal(hc.Leaves, []string{"captions.text"}) {
			t.Fatalf("caption leaves %v", hc.Leaves)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	cat := testCatalogue(t)
	for _, tc := range []struct {
		req Request
		key string
	}{
		{Request{Types: []string{"movie"}}, "types"},
		{Request{Query: strings.Repeat("x", 3000)}, "query"},
		{Request{Fields: []string{"size"}}, "fields"},
		{Request{SortFields: []SortField{{Field: "mediainfo"}}}, "sort_fields"},
		{Request{Filters: &Filters{Terms: []Term{{Field: "mediainfo.video", Value: "x"}}}}, "filters.terms[0]"},
		{Request{Filters: &Filters{MultiTerms: []Term{{Field: "name", Value: " , "}}}}, "filters.multi_terms[0]"},
		{Request{Filters: &Filters{Ranges: []Range{{Field: "size"}}}}, "filters.ranges[0]"},
		{Request{Filters: &Filters{Ranges: []Range{{Field: "size", From: "now"}}}}, "filters.ranges[0]"},
		{Request{Filters: &Filters{Ranges: []Range{{Field: "last_modified", From: "5"}}}}, "filters.ranges[0]"},
		{Request{Filters: &Filters{Ranges: []Range{{Field: "size", From: "1", To: "2024-01-01"}}}}, "filters.ranges[0]"},
		{Request{Aggregations: &Aggregations{Metrics: []MetricAgg{{Field: "size", Type: "min"}}}}, "aggregations.metrics[0]"},
		{Request{Aggregations: &Aggregations{Metrics: []MetricAgg{{Name: "x", Field: "nsfw.nsfw", Type: "sum"}}}}, "aggregations.metrics[0]"},
		{Request{Aggregations: &Aggregations{Terms: []TermsAgg{{Name: "x", Field: "type", Size: -1}}}}, "aggregations.terms[0]"},
		{Request{Aggregations: &Aggregations{Histograms: []HistogramAgg{{Name: "x", Field: "size", Interval: 5, MinCount: -1}}}}, "aggregations.histograms[0]"},
		{Request{HitCounts: map[string]int{"smell": 1}}, "hit_counts"},
	} {
		f := invalidFields(t, Validate(tc.req, cat))
		if f[tc.key] == "" {
			t.Errorf("%+v: no problem under %s: %v", tc.req, tc.key, f)
		}
	}
}

func TestCompileSegments(t *testing.T) {
	cat := NewCatalogue(ScopeSegments)
	p, err := CompileSegments(SegmentRequest{Filters: &SegmentFilters{ExactTerms: []Term{{Field: "item_id", Value: "a"}}}}, cat, testNow)
	if err != nil || p.Terms[0].Field != "item_id" || p.Limit != DefaultLimit {
		t.Fatalf("%+v %v", p, err)
	}
	f := invalidFields(t, ValidateSegments(SegmentRequest{}, cat))
	if f["filters"] == "" {
		t.Fatalf("%v", f)
	}
	f = invalidFields(t, ValidateSegments(SegmentRequest{Filters: &SegmentFilters{ExactTerms: []Term{{Field: "what", Value: "a"}}}}, cat))
	if !strings.Contains(f["filters.exact_terms[0]"], `"what"`) {
		t.Fatalf("%v", f)
	}
	r := NewSegmentResponse(SegmentRequest{SortFields: []SortField{{Field: "time", Asc: true}}}, p)
	b, _ := json.Marshal(r)
	for _, want := range []string{`"types":["segments"]`, `"sort_fields":[{"field":"time","ascending":true}]`, `"disable_aggr":true`,
		`"exact_terms":[]`, `"multi_terms":[]`, `"ranges":[]`, `"exists":[]`, `"results":[]`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("%s lacks %s", b, want)
		}
	}
}

func TestNormalizeQuery(t *testing.T) {
	for in, want := range map[string]struct {
		q      string
		prefix bool
	}{
		"":               {"", false},
		"  !!! ":         {"", false},
		"video":          {"video", true},
		"holiday vid":    {"holiday vid", true},
		`"exact phrase"`: {`"exact phrase"`, false},
		"cat -dog":       {"cat -dog", false},
		"cat or":         {"cat or", false},
		`unclosed "ph`:   {`unclosed "ph`, false},
		"video.":         {"video.", false},
		"été":            {"été", true},
	} {
		q, prefix := normalizeQuery(in)
		if q != want.q || prefix != want.prefix {
			t.Errorf("normalizeQuery(%q) = %q, %v; want %q, %v", in, q, prefix, want.q, want.prefix)
		}
	}
}

func TestFlexString(t *testing.T) {
	var f Filters
	err := json.Unmarshal([]byte(`{"terms":[{"field":"a","value":100},{"field":"b","value":true},{"field":"c","value":"x"},{"field":"d","value":null}],
		"ranges":[{"field":"e","from":1.5,"to":"now"}]}`), &f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Terms[0].Value != "100" || f.Terms[1].Value != "true" || f.Terms[2].Value != "x" || f.Terms[3].Value != "" || f.Ranges[0].From != "1.5" {
		t.Fatalf("%+v", f)
	}
	if err := json.Unmarshal([]byte(`{"terms":[{"field":"a","value":{"x":1}}]}`), &f); err == nil {
		t.Fatal("an object value was accepted")
	}
}

func TestHistogramAndTopBuckets(t *testing.T) {
	if HistogramKey(-0.5, 10) != -10 || HistogramKey(19.99, 10) != 10 || HistogramKey(20, 10) != 20 {
		t.Fatal("HistogramKey")
	}
	counts := map[int64]int64{0: 2, 30: 1, 10: 5}
	b, err := HistogramBuckets("h", counts, 10, 0)
	if err != nil || !reflect.DeepEqual(b, []HistogramBucket{{0, 2}, {10, 5}, {20, 0}, {30, 1}}) {
		t.Fatalf("%v %v", b, err)
	}
	b, _ = HistogramBuckets("h", counts, 10, 2)
	if !reflect.DeepEqual(b, []HistogramBucket{{0, 2}, {10, 5}}) {
		t.Fatalf("%v", b)
	}
	if _, err := HistogramBuckets("h", map[int64]int64{0: 1, 1_000_000: 1}, 1, 0); err == nil {
		t.Fatal("a million empty buckets were allowed")
	}
	top, others := TopBuckets(map[string]int64{"a": 3, "b": 5, "c": 3, "d": 1}, 2)
	if !reflect.DeepEqual(top, []Bucket{{"b", 5}, {"a", 3}}) || others != 4 {
		t.Fatalf("%v %d", top, others)
	}
}
