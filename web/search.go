package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// The search page's whole state is in its URL, so that a search is a link
// (bookmarked, shared, restored by the back button) and every facet, chip,
// sort and page is a plain link or GET form:
//
//	q      the words (the engine's web-search syntax)
//	f      a filter "key:value", repeated; key is a facet (type, mime, ext,
//	       location, container, year, month, duration, lang, caplang, faces,
//	       qc, fields.<id>) or any field of the search catalogue (a term)
//	sort   relevance, name, newest, oldest, largest, smallest, longest
//	page   1, 2, ...
//	view   grid (default) or list
//	more   1: the facets over extracted data for larger result sets
const (
	pageSize     = 24
	maxPageParam = 10000
	maxFilters   = 20
	maxQueryLen  = 1000
	// Facets over extracted data (date, duration, language, faces, QC,
	// custom fields) read every matching document (about 10 ms per
	// thousand results each, measured with the Postgres engine): they come
	// by themselves up to autoFacetLimit results, on request (more=1) up to
	// moreFacetLimit.
	autoFacetLimit = 1000
	moreFacetLimit = 50000
)

// searchState is a search page's URL, read and checked.
type searchState struct {
	Q       string
	Filters []filterParam
	Sort    string
	Page    int // 1-based
	View    string
	More    bool // the facets over extracted data, whatever the count
}

type filterParam struct{ Key, Value string }

var (
	fieldKey   = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_-]+)*$`)
	sortValues = []struct{ Value, Label string }{
		{"relevance", "Relevance"}, {"name", "Name"}, {"newest", "Newest first"}, {"oldest", "Oldest first"},
		{"largest", "Largest first"}, {"smallest", "Smallest first"}, {"longest", "Longest first"},
	}
)

// parseSearchState reads the URL; problems are messages for the page (the
// page shows them and searches with what was valid).
func parseSearchState(v url.Values) (searchState, []string) {
	var s searchState
	var problems []string
	s.Q = strings.TrimSpace(v.Get("q"))
	if utf8.RuneCountInString(s.Q) > maxQueryLen {
		problems = append(problems, fmt.Sprintf("The search words are too long (at most %d characters); they were cut.", maxQueryLen))
		s.Q, _ = truncate(s.Q, maxQueryLen)
		s.Q = strings.TrimSuffix(s.Q, "…")
	}
	for i, raw := range v["f"] {
		if i >= maxFilters {
			problems = append(problems, fmt.Sprintf("At most %d filters apply; the others were left out.", maxFilters))
			break
		}
		key, value, ok := strings.Cut(raw, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case !ok || key == "" || value == "":
			problems = append(problems, fmt.Sprintf("The filter %q is not of the form field:value; it was left out.", clip(raw)))
		case len(key) > 200 || !fieldKey.MatchString(key):
			problems = append(problems, fmt.Sprintf("The filter field %q is not a field name; it was left out.", clip(key)))
		case utf8.RuneCountInString(value) > 500:
			problems = append(problems, fmt.Sprintf("The value of the filter %q is too long; it was left out.", clip(key)))
		default:
			if err := checkFacetValue(key, value); err != "" {
				problems = append(problems, err)
				continue
			}
			f := filterParam{key, value}
			if !slices.Contains(s.Filters, f) {
				s.Filters = append(s.Filters, f)
			}
		}
	}
	s.Sort = v.Get("sort")
	if s.Sort != "" && !slices.ContainsFunc(sortValues, func(o struct{ Value, Label string }) bool { return o.Value == s.Sort }) {
		problems = append(problems, fmt.Sprintf("Unknown sort order %q; results are sorted by relevance.", clip(s.Sort)))
		s.Sort = ""
	}
	s.Page = 1
	if p := v.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxPageParam {
			problems = append(problems, fmt.Sprintf("The page must be a number from 1 to %d; showing page 1.", maxPageParam))
		} else {
			s.Page = n
		}
	}
	s.View = v.Get("view")
	if s.View != "" && s.View != "grid" && s.View != "list" {
		problems = append(problems, "The view is grid or list; showing the grid.")
		s.View = ""
	}
	if s.View == "" {
		s.View = "grid"
	}
	s.More = v.Get("more") == "1"
	return s, problems
}

func clip(s string) string { c, _ := truncate(s, 60); return c }

// values writes the state back as URL values (defaults left out).
func (s searchState) values() url.Values {
	v := url.Values{}
	if s.Q != "" {
		v.Set("q", s.Q)
	}
	for _, f := range s.Filters {
		v.Add("f", f.Key+":"+f.Value)
	}
	if s.Sort != "" {
		v.Set("sort", s.Sort)
	}
	if s.Page > 1 {
		v.Set("page", strconv.Itoa(s.Page))
	}
	if s.View != "grid" && s.View != "" {
		v.Set("view", s.View)
	}
	if s.More {
		v.Set("more", "1")
	}
	return v
}

// link is the page of the state changed by edit (a copy: s is not touched).
func (s searchState) link(edit func(*searchState)) string {
	c := s
	c.Filters = slices.Clone(s.Filters)
	if edit != nil {
		edit(&c)
	}
	if q := c.values().Encode(); q != "" {
		return "/?" + q
	}
	return "/"
}

// request translates the state into the engine's request (page of
// results, the light facets and, with words, the hit counts).
func (s searchState) request(facets []facetDef) (search.Request, error) {
	req := search.Request{Query: s.Q, Limit: pageSize, Page: s.Page - 1, Only: slices.Clone(resultFields)}
	f := &search.Filters{}
	for _, p := range s.Filters {
		if err := addCondition(f, p, facets); err != nil {
			return req, err
		}
	}
	if !f.Empty() {
		req.Filters = f
	}
	switch s.Sort {
	case "name":
		req.SortFields = []search.SortField{{Field: search.FieldName, Asc: true}}
	case "newest":
		req.SortFields = []search.SortField{{Field: search.FieldLastModified}}
	case "oldest":
		req.SortFields = []search.SortField{{Field: search.FieldLastModified, Asc: true}}
	case "largest":
		req.SortFields = []search.SortField{{Field: search.FieldSize}}
	case "smallest":
		req.SortFields = []search.SortField{{Field: search.FieldSize, Asc: true}}
	case "longest":
		req.SortFields = []search.SortField{{Field: durationField}}
	case "", "relevance":
		if s.Q == "" { // no relevance without words: by name
			req.SortFields = []search.SortField{{Field: search.FieldName, Asc: true}}
		}
	}
	aggs := &search.Aggregations{}
	for _, fd := range facets {
		if !fd.heavy {
			fd.agg(aggs)
		}
	}
	req.Aggregations = aggs
	if s.Q != "" {
		req.HitCounts = map[string]int{}
	}
	return req, nil
}

// resultFields are the fields a result card shows.
var resultFields = append([]string{search.FieldID, search.FieldName, search.FieldLocationID, search.FieldType, search.FieldMimeType, search.FieldSize,
	search.FieldLastModified, search.FieldLocationName, search.FieldContainerName, durationField, "audioinfo.duration"},
	store.PageCountFields...)

const durationField = "mediainfo.duration"

// searchPage is the data of GET /.
type searchPage struct {
	base
	State       searchState
	Problems    []string
	Ran         bool
	Total       int64
	Results     []resultView
	Facets      []facetView
	FacetNote   string
	MoreFacets  string // link to the page with every facet
	Chips       []chip
	Sorts       []sortOption
	HitCounts   []hitCount
	Pager       pager
	GridLink    string
	ListLink    string
	MomentsLink string
	// SaveParams are the parameters "Save this search" saves (with
	// savedsearches:write); Select the multi-select's actions (nil: none).
	SaveParams string
	CanSave    bool
	Select     *selectView
	// ExportRequest is the search as JSON for the export route's request
	// parameter (api/exports.go): the results as CSV or JSON lines.
	ExportRequest string
}

type resultView struct {
	ID, Name, Href string
	LocationID     string // for "harvest again"
	TypeLabel      string
	Meta           string // duration, page count
	Where          string // location / container
	Modified       string
	Size           string
	Thumb          string
	Fragments      []fragmentView
	Sources        []string
}

type fragmentView struct {
	Field string
	Parts []textPart
}

type chip struct{ Label, Remove string }

type sortOption struct {
	Value, Label string
	Selected     bool
}

type hitCount struct {
	Label string
	Count int64
}

type pager struct {
	Page, Pages      int
	Prev, Next       string
	First, Last      string
	HasPrev, HasNext bool
	FromItem, ToItem int64
}

// GET /: the search page.
func (u *UI) searchPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	st, problems := parseSearchState(r.URL.Query())
	page := &searchPage{base: u.base(r, p, "Search"), State: st, Problems: problems}
	page.Q = st.Q
	page.Nav = "search"
	page.Styles = []string{u.assets.url("css/saved.css")}
	page.Scripts = []string{u.assets.url("js/search.js"), u.assets.url("js/select.js")}
	page.CanSave = p.Can("savedsearches:write")
	page.SaveParams = savedParams(st)
	page.Select = selectActions(p)
	for _, o := range sortValues {
		page.Sorts = append(page.Sorts, sortOption{o.Value, o.Label, o.Value == st.Sort || (st.Sort == "" && o.Value == "relevance")})
	}
	page.GridLink = st.link(func(s *searchState) { s.View = "grid" })
	page.ListLink = st.link(func(s *searchState) { s.View = "list" })
	if st.Q != "" && page.Moments {
		page.MomentsLink = "/moments?q=" + url.QueryEscape(st.Q)
	}
	status := http.StatusOK
	if err := u.runSearch(r.Context(), p, st, page); err != nil {
		ae, ok := apperr.As(err)
		if !ok || ae.Status >= 500 && ae.Status != http.StatusServiceUnavailable {
			return err
		}
		page.Problems = append(page.Problems, engineProblem(ae))
		page.Ran = false
		status = ae.Status
	}
	if len(problems) > 0 && status == http.StatusOK {
		status = http.StatusBadRequest
	}
	u.render(w, r, status, "search", page)
	return nil
}

// engineProblem is an engine's refusal as a sentence for the page.
func engineProblem(ae *apperr.Error) string {
	if ae.Status == http.StatusServiceUnavailable {
		return "Search is unavailable right now. Try again in a moment."
	}
	msg := "This search could not be run: " + ae.Message
	if len(ae.Fields) > 0 {
		keys := make([]string, 0, len(ae.Fields))
		for k := range ae.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, ae.Fields[k])
		}
		msg = "This search could not be run: " + strings.Join(parts, "; ") + "."
	}
	return msg
}

func (u *UI) runSearch(ctx context.Context, p *access.Principal, st searchState, page *searchPage) error {
	if u.Search == nil {
		return apperr.Unavailable("no search engine is configured")
	}
	facets, err := u.facetDefs(ctx, st.Filters...)
	if err != nil {
		return err
	}
	for _, f := range st.Filters {
		page.Chips = append(page.Chips, chip{Label: filterLabel(f, facets), Remove: st.link(func(s *searchState) {
			s.Page = 1
			s.Filters = slices.DeleteFunc(s.Filters, func(x filterParam) bool { return x == f })
		})})
	}
	req, err := st.request(facets)
	if err != nil {
		return err
	}
	// The results carry the facet fields too (a few more fields of 24
	// documents), so that a search whose matches fit on one page counts
	// its facets without asking the engine again.
	for _, a := range heavyAggs(facets).Terms {
		req.Only = append(req.Only, a.Field)
	}
	for _, a := range heavyAggs(facets).Histograms {
		req.Only = append(req.Only, a.Field)
	}
	vis, err := p.SearchVisibility(ctx, u.DB)
	if err != nil {
		return err
	}
	res, err := u.Search.Search(ctx, req, vis)
	if err != nil {
		return err
	}
	page.Ran = true
	page.Total = res.TotalHits
	if res.TotalHits > 0 {
		// The same words, types and filters; the export walks every
		// result, so the page's limit, sort and facets are left out.
		ex := search.Request{Query: req.Query, Types: req.Types, Fields: req.Fields, Filters: req.Filters}
		if b, err := json.Marshal(ex); err == nil {
			page.ExportRequest = string(b)
		}
	}
	aggs := res.Aggregations
	switch n := res.TotalHits; {
	case n > 0 && n <= autoFacetLimit:
		var local *search.AggregationResults
		if st.Page == 1 && n <= int64(len(res.Results)) {
			// Every match is on this page, with its facet fields.
			docs := make([]map[string]any, len(res.Results))
			for i, r := range res.Results {
				docs[i] = r.Result
			}
			local, err = aggregate(docs, heavyAggs(facets))
		} else {
			local, err = u.localAggregations(ctx, req, heavyAggs(facets), vis)
		}
		if err != nil {
			return err
		}
		aggs = mergeAggs(aggs, local)
	case n > 0 && st.More && n <= moreFacetLimit:
		heavy, err := u.heavyAggregations(ctx, req, facets, vis)
		if err != nil {
			return err
		}
		aggs = mergeAggs(aggs, heavy)
	case n > moreFacetLimit:
		page.FacetNote = fmt.Sprintf("Narrow the search to %d results or fewer to filter by date, duration, language, faces, quality control and custom fields.", moreFacetLimit)
	case n > autoFacetLimit:
		page.MoreFacets = st.link(func(s *searchState) { s.More = true })
	}
	page.Facets = facetViews(st, facets, aggs)
	page.HitCounts = hitCountViews(res.HitCounts)
	page.Pager = makePager(st, res.TotalHits)
	ids := make([]string, 0, len(res.Results))
	for _, r := range res.Results {
		ids = append(ids, str(r.Result[search.FieldID]))
	}
	// Thumbnails are artifacts, which the api serves to items:read only.
	thumbs := map[string]store.Thumbnail{}
	if p.Can("items:read") {
		if thumbs, err = store.Thumbnails(u.DB.WithContext(ctx), ids); err != nil {
			return err
		}
	}
	for _, r := range res.Results {
		page.Results = append(page.Results, u.resultView(st, r, thumbs))
	}
	return nil
}

// heavyAggregations runs the facets over extracted data: one more request
// with the same words and filters, for one result. A day histogram that
// would have too many buckets (an archive of many thousand days) is left
// out rather than failing the page.
func (u *UI) heavyAggregations(ctx context.Context, req search.Request, facets []facetDef, vis search.Visibility) (*search.AggregationResults, error) {
	aggs := heavyAggs(facets)
	if len(aggs.Terms)+len(aggs.Histograms)+len(aggs.Metrics) == 0 {
		return nil, nil
	}
	req.Limit, req.Page, req.Only, req.SortFields, req.HitCounts = 1, 0, []string{search.FieldID}, nil, nil
	req.Aggregations = aggs
	res, err := u.Search.Search(ctx, req, vis)
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Fields["aggregations.histograms"] != "" {
		aggs.Histograms = slices.DeleteFunc(aggs.Histograms, func(h search.HistogramAgg) bool { return h.Field == search.FieldLastModified })
		res, err = u.Search.Search(ctx, req, vis)
	}
	if err != nil {
		return nil, err
	}
	return res.Aggregations, nil
}

// heavyAggs are the aggregations of the facets over extracted data.
func heavyAggs(facets []facetDef) *search.Aggregations {
	a := &search.Aggregations{}
	for _, fd := range facets {
		if fd.heavy {
			fd.agg(a)
		}
	}
	return a
}

func mergeAggs(a, b *search.AggregationResults) *search.AggregationResults {
	if a == nil {
		a = &search.AggregationResults{}
	}
	if b == nil {
		return a
	}
	if a.Terms == nil {
		a.Terms = map[string]search.TermsResult{}
	}
	if a.Histograms == nil {
		a.Histograms = map[string]search.HistogramResult{}
	}
	for k, v := range b.Terms {
		a.Terms[k] = v
	}
	for k, v := range b.Histograms {
		a.Histograms[k] = v
	}
	return a
}

func makePager(st searchState, total int64) pager {
	pages := int((total + pageSize - 1) / pageSize)
	pg := pager{Page: st.Page, Pages: pages}
	if total > 0 {
		pg.FromItem = int64(st.Page-1)*pageSize + 1
		pg.ToItem = min(int64(st.Page)*pageSize, total)
	}
	goTo := func(n int) string { return st.link(func(s *searchState) { s.Page = n }) }
	if st.Page > 1 {
		pg.HasPrev, pg.Prev, pg.First = true, goTo(min(st.Page-1, max(pages, 1))), goTo(1)
	}
	if st.Page < pages && st.Page < maxPageParam {
		pg.HasNext, pg.Next, pg.Last = true, goTo(st.Page+1), goTo(min(pages, maxPageParam))
	}
	return pg
}

var typeLabels = map[string]string{models.TypeVideo: "Video", models.TypeAudio: "Audio", models.TypeImage: "Image",
	models.TypeDocument: "Document", models.TypeOther: "Other"}

func (u *UI) resultView(st searchState, r search.Result, thumbs map[string]store.Thumbnail) resultView {
	d := r.Result
	id := str(d[search.FieldID])
	v := resultView{ID: id, Name: str(d[search.FieldName]), Href: itemHref(id, st.Q, -1), LocationID: str(d[search.FieldLocationID])}
	if v.Name == "" {
		v.Name = id
	}
	v.TypeLabel = formatLabel(str(d[search.FieldType]), str(d[search.FieldMimeType]))
	if dur, ok := number(lookup(d, durationField)); ok && dur > 0 {
		v.Meta = humanDuration(dur)
	} else if dur, ok := number(lookup(d, "audioinfo.duration")); ok && dur > 0 {
		v.Meta = humanDuration(dur)
	} else {
		for _, f := range store.PageCountFields {
			if n, ok := number(lookup(d, f)); ok && n > 0 {
				v.Meta = strconv.Itoa(int(n)) + " pages"
				if n == 1 {
					v.Meta = "1 page"
				}
				break
			}
		}
	}
	v.Where = str(d[search.FieldLocationName])
	if c := str(d[search.FieldContainerName]); c != "" {
		v.Where += " / " + c
	}
	if t, ok := search.ParseDateValue(str(d[search.FieldLastModified])); ok {
		v.Modified = t.UTC().Format("2006-01-02")
	}
	if n, ok := number(d[search.FieldSize]); ok {
		v.Size = humanSize(int64(n))
	}
	if th, ok := thumbs[id]; ok && th.Type == "image" {
		v.Thumb = search.ArtifactURL(th.Path)
	}
	seen := map[string]bool{}
	for _, h := range r.Highlight {
		label := u.sourceLabel(h.Field)
		if !seen[label] {
			seen[label] = true
			v.Sources = append(v.Sources, label)
		}
		for _, frag := range h.Fragments {
			if len(v.Fragments) >= 3 {
				break
			}
			v.Fragments = append(v.Fragments, fragmentView{Field: label, Parts: highlightParts(frag)})
		}
	}
	return v
}

// itemHref is an item page's address, with the search's words (its hits
// lane) and a start time when t >= 0.
func itemHref(id, q string, t float64) string {
	v := url.Values{}
	if q != "" {
		v.Set("q", q)
	}
	if t >= 0 {
		v.Set("t", seconds(t))
	}
	h := "/items/" + url.PathEscape(id)
	if len(v) > 0 {
		h += "?" + v.Encode()
	}
	return h
}

// sourceLabel names what a highlighted field is for people: the name, the
// transcript, or the family of the extractor that wrote it.
func (u *UI) sourceLabel(field string) string {
	switch {
	case field == search.FieldName:
		return "Name"
	case strings.HasPrefix(field, search.FieldTranscript+"."):
		return "Transcript"
	case strings.HasPrefix(field, search.FieldCustomFieldsPrefix+"."):
		return "Custom fields"
	case field == search.FieldLocationName || field == search.FieldContainerName || field == search.FieldStoreURL:
		return "Location"
	}
	name, _, _ := strings.Cut(field, ".")
	info, ok := u.Extractors.Get(name)
	if !ok {
		return "Metadata"
	}
	switch info.Family {
	case extractors.FamilyDocuments, extractors.FamilyNLP:
		return "Document text"
	case extractors.FamilyText:
		return "Text in pictures (OCR)"
	case extractors.FamilyTechnical, extractors.FamilyHashes:
		return "Technical metadata"
	}
	if n := info.Family.Name(); n != "" {
		return n
	}
	return "Metadata"
}

var hitCountLabels = map[string]string{
	"caption": "Captions", "speech_to_text": "Speech", "ocr": "Text in pictures", "text_content": "Document text",
	"people": "Faces", "tag": "Tags", "labels": "Labels", "logos": "Logos", "locations": "Places",
	"keyword": "Keywords", "description": "Descriptions", "sound": "Sound", "sport": "Sports",
	"nsfw": "Adult content", "audio_classification": "Sound classes", "advertising": "Advertising",
}

func hitCountViews(counts map[string]int64) []hitCount {
	var out []hitCount
	for k, n := range counts {
		if n <= 0 {
			continue
		}
		label := hitCountLabels[k]
		if label == "" {
			label = k
		}
		out = append(out, hitCount{label, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// customFields are the custom fields offered as facets: the first few by
// their order (the catalogue knows every declared one), and the fields
// named (by id) when they are later ones.
func (u *UI) customFields(ctx context.Context, named []string) ([]models.CustomField, error) {
	db := u.DB.WithContext(ctx)
	rows, _, err := store.Fields(db, store.Page{Limit: 8})
	if err != nil || len(named) == 0 {
		return rows, err
	}
	byID, err := store.FieldsByID(db, named)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		delete(byID, r.ID)
	}
	for _, id := range named { // in the filters' order
		if f, ok := byID[id]; ok {
			rows = append(rows, f)
			delete(byID, id)
		}
	}
	return rows, nil
}
