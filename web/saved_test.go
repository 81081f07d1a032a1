package web

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The saved searches page lists the user's own saved searches (not
// another user's), each a link to the search page with its parameters,
// with rename and delete for a user who may write them; names are text.
func TestSavedSearchesPage(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	read := []string{"search:read", "savedsearches:read"}
	alice := c.signInAs("alice@example.com", append(read, "savedsearches:write")...)
	aliceToken := c.token("alice@example.com", userPassword)
	c.user("bob@example.com", append(read, "savedsearches:write")...)
	bobToken := c.token("bob@example.com", userPassword)
	reader := c.signInAs("reader@example.com", read...)

	hostile := `<script>alert(1)</script> clips`
	c.apiCall("POST", "/api/data/saved-searches", aliceToken, map[string]any{"name": hostile, "params": "q=lighthouse&f=type%3Avideo&sort=newest"}, 201)
	c.apiCall("POST", "/api/data/saved-searches", aliceToken, map[string]any{"name": "From a script", "params": "query=ferry&types=video"}, 201)
	c.apiCall("POST", "/api/data/saved-searches", bobToken, map[string]any{"name": "Bob's own", "params": "q=budget"}, 201)

	body := c.page("/saved", alice, http.StatusOK)
	for _, want := range []string{
		html.EscapeString(hostile),
		`href="/?f=type%3Avideo&amp;q=lighthouse&amp;sort=newest"`,
		"Words: lighthouse · Type: Video",
		`href="/?f=type%3Avideo&amp;q=ferry"`,
		`class="rename"`, `class="delete danger"`,
		`<a href="/saved" aria-current="page">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("alice's /saved lacks %s: %.4000s", want, body)
		}
	}
	if strings.Contains(body, hostile) || strings.Contains(body, "Bob") {
		t.Errorf("alice's page shows raw text or bob's search: %.4000s", body)
	}
	// The opened search is the results page with the same words and filter.
	if res := c.page("/?f=type%3Avideo&q=lighthouse&sort=newest", alice, http.StatusOK); !strings.Contains(res, `<h2 id="results-title">1 result`) {
		t.Errorf("the opened saved search: %.3000s", res)
	}
	// A reader lists (their own, none) but has no rename or delete.
	if body := c.page("/saved", reader, http.StatusOK); strings.Contains(body, `class="rename"`) || !strings.Contains(body, "no saved searches") {
		t.Errorf("a reader's /saved: %.3000s", body)
	}
	c.page("/saved", c.signInAs("searcher@example.com", "search:read"), http.StatusForbidden)
}

func TestSavedStateMapsParams(t *testing.T) {
	t.Parallel()
	for params, want := range map[string]string{
		"q=sea&f=type%3Avideo&sort=name&page=3": "/?f=type%3Avideo&q=sea&sort=name",
		"?query=sea&types=audio":                "/?f=type%3Aaudio&q=sea",
		"query=sea&types=audio,video":           "/?q=sea",
		"":                                      "/",
		"f=year%3Anope&q=x":                     "/?q=x",
		"sort=bogus&view=list":                  "/?view=list",
	} {
		st, ok := savedState(params)
		if !ok || st.link(nil) != want {
			t.Errorf("savedState(%q) = %q, %v; want %q", params, st.link(nil), ok, want)
		}
	}
	if _, ok := savedState("q=%zz"); ok {
		t.Errorf("a malformed query reads")
	}
	st, _ := parseSearchState(url.Values{"q": {"sea"}, "f": {"type:video"}, "page": {"2"}, "view": {"list"}, "more": {"1"}})
	if got := savedParams(st); got != "f=type%3Avideo&q=sea" {
		t.Errorf("savedParams = %q", got)
	}
}

// The search page offers "Save this search" with savedsearches:write, and
// a checkbox per result with the actions the user's scopes allow; the
// moments page "Add to compilation" with compilations:write.
func TestSearchPageSelectAndSave(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	admin := c.signIn(adminEmail, adminPassword)
	body := c.page("/?q=lighthouse&view=list", admin, http.StatusOK)
	for _, want := range []string{
		`<form id="save-search" class="inline" data-params="q=lighthouse">`,
		`id="select-ui"`, `id="select-all"`,
		`<input type="checkbox" class="pick-box" id="pick-` + c.pdf + `" value="` + c.pdf + `" data-location="pub" data-name="budget.pdf">`,
		`<label for="pick-` + c.pdf + `">Select<span class="vh"> budget.pdf</span></label>`,
		`data-panel="act-compilation"`, `data-panel="act-field"`, `id="act-harvest"`,
		`/assets/js/select.js`, `/assets/css/saved.css`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the admin's results lack %s", want)
		}
	}
	// Hostile names stay text in the checkbox's label and data.
	if b := c.page("/?q=onerror", admin, http.StatusOK); strings.Contains(b, hostileName) {
		t.Errorf("a raw hostile name on the results page")
	}

	editor := c.signInAs("ed@example.com", "search:read", "compilations:read", "compilations:write", "savedsearches:read", "segments:read")
	body = c.page("/?q=lighthouse", editor, http.StatusOK)
	if strings.Contains(body, c.secret) {
		t.Errorf("a hidden item in the editor's results")
	}
	if !strings.Contains(body, `data-panel="act-compilation"`) || strings.Contains(body, `data-panel="act-field"`) ||
		strings.Contains(body, "act-harvest") || strings.Contains(body, "save-search") {
		t.Errorf("the editor's actions: %.4000s", body)
	}
	searcher := c.signInAs("s@example.com", "search:read", "segments:read")
	body = c.page("/?q=lighthouse", searcher, http.StatusOK)
	if strings.Contains(body, "select-ui") || strings.Contains(body, "pick-box") || strings.Contains(body, "save-search") {
		t.Errorf("a searcher gets actions they may not do")
	}

	moments := c.page("/moments?q=ferry", admin, http.StatusOK)
	for _, want := range []string{`class="secondary add-moment" hidden data-item="` + c.clip + `" data-in="1" data-out="2"`, `id="moment-dialog"`} {
		if !strings.Contains(moments, want) {
			t.Errorf("moments lack %s: %.4000s", want, moments)
		}
	}
	if m := c.page("/moments?q=ferry", searcher, http.StatusOK); strings.Contains(m, "add-moment") || strings.Contains(m, "moment-dialog") {
		t.Errorf("a searcher may add moments")
	}
}

// A filter by a custom field beyond the first few offered as facets still
// reads as the field's name, with its facet to remove it.
func TestLaterCustomFieldFilter(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	var last string
	for i := range 10 {
		last = c.apiCall("POST", "/api/data/v3/fields", c.adminToken, map[string]any{"name": "Field " + string(rune('A'+i)), "data_type": "string"}, 201)["id"].(string)
	}
	c.apiCall("PUT", "/api/data/v3/fielddata", c.adminToken, []map[string]any{
		{"item_id": c.pdf, "fields": []map[string]any{{"field_id": last, "value": map[string]any{"string_value": "kept"}}}},
		{"item_id": c.clip, "fields": []map[string]any{{"field_id": last, "value": map[string]any{"string_value": "kept"}}}},
	}, 200)
	c.index(c.pdf, c.clip)
	admin := c.signIn(adminEmail, adminPassword)
	if all := c.page("/", admin, http.StatusOK); strings.Contains(all, "<h3>Field J</h3>") {
		t.Errorf("the tenth field is offered without a filter")
	}
	body := c.page("/?f=fields."+last+"%3Akept", admin, http.StatusOK)
	if !strings.Contains(body, `<h2 id="results-title">2 results`) || !strings.Contains(body, "Field J: kept") ||
		!strings.Contains(body, "<h3>Field J</h3>") {
		t.Errorf("filter by the tenth field: %.4000s", body)
	}
	tok := c.token(adminEmail, adminPassword)
	c.apiCall("POST", "/api/data/saved-searches", tok, map[string]any{"name": "Kept", "params": "f=fields." + last + "%3Akept"}, 201)
	if saved := c.page("/saved", admin, http.StatusOK); !strings.Contains(saved, "Field J: kept") {
		t.Errorf("the saved search's summary: %.3000s", saved)
	}
}
