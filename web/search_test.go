package web

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// The search page's URL becomes the engine's request: filters of facets
// and of catalogue fields, sort, page; bad values are messages and the
// rest still searches.
func TestSearchURLToRequest(t *testing.T) {
	u := &UI{catalogue: search.BaseFields(search.ScopeItems)}
	facets := []facetDef{termsFacet("type", "Type", search.FieldType, false, same), yearFacet(), monthFacet(), durationFacet(), facesFacet(), qcFacet()}
	_ = u
	v, _ := url.ParseQuery("q=ferry+lights&f=type:video&f=year:2024&f=month:2024-02&f=duration:1to5m&f=qc:black&f=faces:yes" +
		"&f=mediainfo.video.codec:h264&f=type:video&sort=newest&page=3&view=list")
	st, problems := parseSearchState(v)
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	req, err := st.request(facets)
	if err != nil {
		t.Fatal(err)
	}
	if req.Query != "ferry lights" || req.Page != 2 || req.Limit != pageSize || st.View != "list" {
		t.Fatalf("request %+v", req)
	}
	if !reflect.DeepEqual(req.SortFields, []search.SortField{{Field: search.FieldLastModified}}) {
		t.Fatalf("sort %v", req.SortFields)
	}
	wantTerms := []search.Term{{Field: "type", Value: "video"}, {Field: "mediainfo.video.codec", Value: "h264"}}
	if !reflect.DeepEqual(req.Filters.Terms, wantTerms) { // the repeated type:video once
		t.Fatalf("terms %v", req.Filters.Terms)
	}
	wantRanges := []search.Range{
		{Field: "last_modified", From: "2024-01-01", To: "2024-12-31"},
		{Field: "last_modified", From: "2024-02-01", To: "2024-02-29"},
		{Field: durationField, From: "60", To: "299.999"},
		{Field: "black_scenes.count", From: "1"},
		{Field: facesField, From: "1"},
	}
	if !reflect.DeepEqual(req.Filters.Ranges, wantRanges) {
		t.Fatalf("ranges %v", req.Filters.Ranges)
	}
	if req.HitCounts == nil || req.Aggregations == nil || len(req.Aggregations.Terms) != 1 || len(req.Aggregations.Histograms) != 0 {
		t.Fatalf("aggregations %+v hit counts %v", req.Aggregations, req.HitCounts)
	}
	// The state goes back into the same URL.
	again, _ := parseSearchState(st.values())
	if !reflect.DeepEqual(again, st) {
		t.Fatalf("round trip %+v != %+v", again, st)
	}
	// Without words: sorted by name, no hit counts.
	st2, _ := parseSearchState(url.Values{})
	req2, _ := st2.request(facets)
	if req2.HitCounts != nil || req2.Filters != nil || req2.SortFields[0].Field != search.FieldName || st2.View != "grid" || st2.Page != 1 {
		t.Fatalf("empty request %+v", req2)
	}

	for raw, want := range map[string]string{
		"page=0": "page must be a number", "page=abc": "page must be a number", "page=99999999": "page must be a number",
		"sort=sideways": "Unknown sort order", "view=table": "grid or list", "f=nocolon": "not of the form",
		"f=:x": "not of the form", "f=a b:c": "not a field name", "f=year:24": "four digits", "f=month:2024-13": "2024-05",
		"f=duration:forever": "duration ranges", "f=qc:blue": "black, silence, bars", "f=faces:no": "only value is yes",
		"q=" + strings.Repeat("w", 1001): "too long", "f=x:" + strings.Repeat("v", 501): "too long",
	} {
		v, _ := url.ParseQuery(raw)
		_, problems := parseSearchState(v)
		if len(problems) != 1 || !strings.Contains(problems[0], want) {
			t.Errorf("%.40s: problems %v, want %q", raw, problems, want)
		}
	}
	many := url.Values{}
	for i := 0; i < maxFilters+5; i++ {
		many.Add("f", "ext:e"+strings.Repeat("x", i))
	}
	if st, problems := parseSearchState(many); len(st.Filters) != maxFilters || len(problems) != 1 {
		t.Errorf("too many filters: %d %v", len(st.Filters), problems)
	}
}

// Through the router: bad values and fields the engine does not know are a
// message on the page (400), never a 500; facets are links that narrow,
// chips links that widen again.
func TestSearchPage(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	for target, want := range map[string]string{
		"/?page=abc":            "The page must be a number",
		"/?f=no.such.field:1":   "This search could not be run: unknown field",
		"/?f=year:1&sort=x":     "four digits",
		"/?q=%22unterminated":   "", // a query the engine reads as it can
		"/moments?q=x&page=-1":  "The page must be a number",
		"/?sort=longest&page=9": "",
	} {
		rec := c.browse("GET", target, admin, nil)
		checkPageHeaders(t, target, rec)
		if want == "" {
			if rec.Code != 200 {
				t.Errorf("%s: %d", target, rec.Code)
			}
			continue
		}
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d, want 400 with %q: %.3000s", target, rec.Code, want, rec.Body)
		}
	}
	all := c.page("/", admin, http.StatusOK)
	if !strings.Contains(all, "4 results") || !strings.Contains(all, `<a href="/?f=type%3Avideo">Video</a> <span class="count">2</span>`) {
		t.Fatalf("facets: %.5000s", all)
	}
	// Languages are named, in facets and in the filters they set.
	if !strings.Contains(all, `<a href="/?f=caplang%3Aen">English</a> <span class="count">1</span>`) {
		t.Errorf("caption language facet: %.8000s", all)
	}
	if english := c.page("/?f=caplang%3Aen", admin, http.StatusOK); !strings.Contains(english, `<a class="chip" href="/">Caption language: English`) {
		t.Errorf("caption language filter: %.5000s", english)
	}
	videos := c.page("/?f=type%3Avideo", admin, http.StatusOK)
	if !strings.Contains(videos, "2 results") || strings.Contains(videos, "budget.pdf") ||
		!strings.Contains(videos, `<a class="chip" href="/">Type: Video`) {
		t.Fatalf("type facet: %.5000s", videos)
	}
	for target, want := range map[string]string{
		"/?f=duration%3Alt1m":               "2 results", // 3 s and 20 s
		"/?f=qc%3Ablack":                    "1 result",
		"/?f=year%3A2024&f=month%3A2024-05": "4 results",
		"/?f=year%3A2023":                   "0 results",
		"/?f=mediainfo.video.codec%3Ah264":  "1 result",
		"/?q=ferry":                         "1 result", // the caption's words
	} {
		if body := c.page(target, admin, http.StatusOK); !strings.Contains(body, `<h2 id="results-title">`+want) {
			t.Errorf("%s: want %s: %.3000s", target, want, body)
		}
	}
	thumb := `<img src="/api/data/artifacts/cd/` + c.pdf + `/document_pages/thumbnail.jpg" alt="" loading="lazy">`
	if !strings.Contains(all, thumb) {
		t.Errorf("no thumbnail for the PDF: %.5000s", all)
	}
	// Artifacts need items:read: a searcher without it gets no broken image.
	if body := c.page("/", c.signInAs("searcher@example.com", "search:read"), http.StatusOK); strings.Contains(body, "/api/data/artifacts/") {
		t.Errorf("a thumbnail for a user who may not load it")
	}
	page := c.page("/?q=lighthouse&view=list", admin, http.StatusOK)
	for _, want := range []string{`<ol class="results list">`, `<p class="meta">PDF document · 2 pages`, `<p class="meta">MP4 video · 0:20`, `href="/items/` + c.clip + `?q=lighthouse"`, "Matched in: Transcript",
		"Matched in: Document text", `<a href="/moments?q=lighthouse">`,
		// The export form: the same search as JSON for the export route.
		`<form id="export-form" class="stack" method="get" action="/api/data/search/export">`,
		`<input type="hidden" name="request" value="{&#34;query&#34;:&#34;lighthouse&#34;,&#34;limit&#34;:0,&#34;page&#34;:0}">`} {
		if !strings.Contains(page, want) {
			t.Errorf("list view lacks %s", want)
		}
	}
}

// Language codes read as the languages' English names; what is no code
// reads as it is.
func TestLanguageName(t *testing.T) {
	for code, want := range map[string]string{"en": "English", "tr": "Turkish", "tur": "Turkish", "ger": "German", "pt-BR": "Brazilian Portuguese",
		"cy": "Welsh", "und": "und", "xx": "xx", "": "", "English": "English", "<b>": "<b>"} {
		if got := languageName(code); got != want {
			t.Errorf("languageName(%q) = %q, want %q", code, got, want)
		}
	}
}

// A custom field with values is a facet under its name; its value filters.
func TestCustomFieldFacet(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	f := c.apiCall("POST", "/api/data/v3/fields", c.adminToken, map[string]any{"name": "Rights <holder>", "data_type": "string"}, 201)
	fid := f["id"].(string)
	c.apiCall("POST", "/api/data/v3/fielddata/"+c.clip+"/field/"+fid, c.adminToken, map[string]any{"string_value": "ACME & Co"}, 201)
	c.index(c.clip)
	admin := c.signIn(adminEmail, adminPassword)
	body := c.page("/", admin, http.StatusOK)
	link := `<a href="/?f=fields.` + fid + `%3AACME&#43;%26&#43;Co">ACME &amp; Co</a> <span class="count">1</span>`
	if !strings.Contains(body, "<h3>Rights &lt;holder&gt;</h3>") || !strings.Contains(body, link) {
		t.Fatalf("custom field facet: %.6000s", body)
	}
	narrowed := c.page("/?f=fields."+fid+"%3AACME+%26+Co", admin, http.StatusOK)
	if !strings.Contains(narrowed, `<h2 id="results-title">1 result`) || !strings.Contains(narrowed, "Rights &lt;holder&gt;: ACME &amp; Co") {
		t.Fatalf("custom field filter: %.6000s", narrowed)
	}
}

// The facets a small result set counts itself are the engine's counts.
func TestLocalAggregationsMatchEngine(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	f := c.apiCall("POST", "/api/data/v3/fields", c.adminToken, map[string]any{"name": "Tags", "data_type": "string"}, 201)
	c.apiCall("POST", "/api/data/v3/fielddata/"+c.clip+"/field/"+f["id"].(string), c.adminToken, map[string]any{"string_value": "x"}, 201)
	c.must(c.db.Exec(`UPDATE items SET metadata = metadata || '{"vendorlanguage": {"language": "en"}, "vendor_faces": {"count": 2}}'::jsonb WHERE id = ?`, c.pdf).Error)
	c.index(c.clip, c.pdf)
	ctx := context.Background()
	facets, err := c.ui.facetDefs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "lighthouse"} {
		st, _ := parseSearchState(url.Values{"q": {q}})
		req, _ := st.request(facets)
		engine, err := c.ui.heavyAggregations(ctx, req, facets, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		local, err := c.ui.localAggregations(ctx, req, heavyAggs(facets), search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(engine.Terms) == 0 || len(engine.Histograms) == 0 {
			t.Fatalf("no aggregations: %+v", engine)
		}
		if !reflect.DeepEqual(engine.Terms, local.Terms) || !reflect.DeepEqual(engine.Histograms, local.Histograms) {
			t.Errorf("q=%q:\nengine %+v\nlocal  %+v", q, engine, local)
		}
	}
}

// With the engine down the search and moments pages say so (503), and an
// item page opened from a search still shows.
func TestEngineDownIsAMessage(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	meili, err := search.Open(search.Config{MeiliURL: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	c.ui.Search = meili
	for _, target := range []string{"/?q=lighthouse", "/moments?q=lighthouse"} {
		rec := c.browse("GET", target, admin, nil)
		checkPageHeaders(t, target, rec)
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "Search is unavailable right now") {
			t.Errorf("%s with the engine down: %d %.2000s", target, rec.Code, rec.Body)
		}
	}
	item := c.page("/items/"+url.PathEscape(c.clip)+"?q=lighthouse", admin, http.StatusOK)
	if !strings.Contains(item, "the hits of your words are not marked") || strings.Contains(item, "No moment matches") {
		t.Errorf("item page with the engine down: %.3000s", item)
	}
}

// Result cards name common formats; others read as their kind and MIME
// type.
func TestFormatLabel(t *testing.T) {
	for _, c := range []struct{ kind, mime, want string }{
		{models.TypeDocument, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Word document"},
		{models.TypeVideo, "video/matroska", "Matroska video"},
		{models.TypeAudio, "audio/wav", "WAV audio"},
		{models.TypeOther, "application/x-foo", "Other · application/x-foo"},
		{models.TypeOther, "", "Other"},
		{"", "application/x-foo", "application/x-foo"},
	} {
		if got := formatLabel(c.kind, c.mime); got != c.want {
			t.Errorf("formatLabel(%q, %q) = %q, want %q", c.kind, c.mime, got, c.want)
		}
	}
}
