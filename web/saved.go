package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
)

// savedPage is GET /saved: the user's own saved searches (the api's list:
// each user sees only theirs), each a link to the search page; rename and
// delete go through the api from js/saved.js.
type savedPage struct {
	base
	Searches []savedView
	CanWrite bool
}

type savedView struct {
	ID, Name string
	Href     string // the search page with the saved parameters; "" when they cannot be read
	Summary  string // the words and filters, for people
	Created  string
}

func (u *UI) savedPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	page := &savedPage{base: u.base(r, p, "Saved searches"), CanWrite: p.Can("savedsearches:write")}
	page.Nav = "saved"
	page.Styles = []string{u.assets.url("css/saved.css")}
	page.Scripts = []string{u.assets.url("js/saved.js")}
	rows, err := store.SavedSearches(u.DB.WithContext(r.Context()), p.User.ID)
	if err != nil {
		return err
	}
	// The filters' labels name the custom fields: one read for them all.
	states := make([]searchState, len(rows))
	readable := make([]bool, len(rows))
	var filters []filterParam
	for i, s := range rows {
		states[i], readable[i] = savedState(s.Params)
		filters = append(filters, states[i].Filters...)
	}
	var facets []facetDef
	if len(rows) > 0 {
		if facets, err = u.facetDefs(r.Context(), filters...); err != nil {
			return err
		}
	}
	for i, s := range rows {
		v := savedView{ID: s.ID, Name: s.Name, Created: s.CreatedAt.UTC().Format("2006-01-02 15:04")}
		if readable[i] {
			v.Href = states[i].link(nil)
			v.Summary = savedSummary(states[i], facets)
		} else {
			v.Summary = "Its parameters cannot be read by this page."
		}
		page.Searches = append(page.Searches, v)
	}
	u.render(w, r, http.StatusOK, "saved", page)
	return nil
}

// savedParams is what the search page saves: its URL parameters without
// the page, the view and the heavier facets (the search, not where the
// user was in it).
func savedParams(st searchState) string {
	v := st.values()
	v.Del("page")
	v.Del("view")
	v.Del("more")
	if v.Get("sort") == "relevance" { // the default
		v.Del("sort")
	}
	return v.Encode()
}

// savedState reads a saved search's params back into the search page's
// state. The page saves its own parameters (q, f, sort); searches saved by
// API clients may use the search request's names (query, types): those
// are mapped too. What the page cannot read is left out, as a URL's.
func savedState(params string) (searchState, bool) {
	v, err := url.ParseQuery(strings.TrimPrefix(strings.TrimSpace(params), "?"))
	if err != nil {
		return searchState{}, false
	}
	in := url.Values{"q": v["q"], "f": v["f"], "sort": v["sort"], "view": v["view"]}
	if len(in["q"]) == 0 && len(v["query"]) > 0 {
		in["q"] = v["query"][:1]
	}
	var types []string
	for _, t := range v["types"] {
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				types = append(types, s)
			}
		}
	}
	if len(types) == 1 { // filters are all required: one type is a filter, several are not
		in["f"] = append(in["f"], "type:"+types[0])
	}
	for k, vs := range in {
		if len(vs) == 0 {
			delete(in, k)
		}
	}
	st, _ := parseSearchState(in)
	return st, true
}

// savedSummary says what a saved search looks for.
func savedSummary(st searchState, facets []facetDef) string {
	var parts []string
	if st.Q != "" {
		parts = append(parts, "Words: "+st.Q)
	}
	for _, f := range st.Filters {
		parts = append(parts, filterLabel(f, facets))
	}
	if len(parts) == 0 {
		return "Everything"
	}
	return strings.Join(parts, " · ")
}
