package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/search"
)

// momentsPage is GET /moments?q=: the moments of videos that match (a
// caption or speech cue, text on screen, a tag at some time), each a link
// to its item at that time.
type momentsPage struct {
	base
	Problems   []string
	Ran        bool
	Total      int64
	Moments    []momentView
	Pager      pager
	SearchLink string
	// Add: each moment has "Add to compilation" (compilations:read and
	// :write; js/select.js).
	Add *selectView
}

type momentView struct {
	ItemID, ItemName, Href string
	Time                   string
	Thumb                  string
	Lines                  []momentLine
	// In and Out are the moment's points in seconds (for a compilation):
	// the span of its transcript cues, else defaultMomentLength from its
	// time.
	In, Out           string
	InLabel, OutLabel string
}

// defaultMomentLength is a moment's length in a compilation when no cue
// gives its span.
const defaultMomentLength = 5.0

type momentLine struct {
	Kind  string
	Parts []textPart
}

const momentsPageSize = 30

func (u *UI) momentsPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	st, problems := parseSearchState(url.Values{"q": r.URL.Query()["q"], "page": r.URL.Query()["page"]})
	page := &momentsPage{base: u.base(r, p, "Moments"), Problems: problems}
	page.Q, page.Nav = st.Q, "moments"
	if canAddToCompilation(p) {
		page.Add = &selectView{Compilations: true, UserID: p.User.ID, Admin: p.IsAdmin()}
		page.Styles = []string{u.assets.url("css/saved.css")}
		page.Scripts = []string{u.assets.url("js/select.js")}
	}
	if st.Q != "" {
		page.SearchLink = "/?q=" + url.QueryEscape(st.Q)
	}
	status := http.StatusOK
	if st.Q != "" {
		if err := u.runMoments(r.Context(), p, st, page); err != nil {
			ae, ok := apperr.As(err)
			if !ok || ae.Status >= 500 && ae.Status != http.StatusServiceUnavailable {
				return err
			}
			page.Problems = append(page.Problems, engineProblem(ae))
			status = ae.Status
		}
	}
	if len(problems) > 0 && status == http.StatusOK {
		status = http.StatusBadRequest
	}
	u.render(w, r, status, "moments", page)
	return nil
}

// segmentRequest asks for the moments matching q (of one item when itemID
// is set). Segment searches need a filter: every segment has a time.
func segmentRequest(q, itemID string, limit, page int) search.SegmentRequest {
	f := &search.SegmentFilters{}
	if itemID != "" {
		f.ExactTerms = []search.Term{{Field: "item_id", Value: search.FlexString(itemID)}}
	} else {
		f.Ranges = []search.Range{{Field: "time", From: "0"}}
	}
	req := search.SegmentRequest{Query: q, Limit: limit, Page: page, Filters: f}
	if itemID != "" {
		req.SortFields = []search.SortField{{Field: "time", Asc: true}}
	}
	return req
}

func (u *UI) runMoments(ctx context.Context, p *access.Principal, st searchState, page *momentsPage) error {
	if u.Search == nil {
		return apperr.Unavailable("no search engine is configured")
	}
	vis, err := p.SearchVisibility(ctx, u.DB)
	if err != nil {
		return err
	}
	res, err := u.Search.SearchSegments(ctx, segmentRequest(st.Q, "", momentsPageSize, st.Page-1), vis)
	if err != nil {
		return err
	}
	page.Ran, page.Total = true, res.TotalHits
	// The items' names, in one request through the same visibility.
	var ids []string
	seen := map[string]bool{}
	for _, r := range res.Results {
		id := str(r.Result["item_id"])
		if id != "" && !seen[id] && !strings.Contains(id, ",") {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	names := map[string]string{}
	if len(ids) > 0 {
		items, err := u.Search.Search(ctx, search.Request{Limit: len(ids), Only: []string{search.FieldID, search.FieldName},
			Filters: &search.Filters{MultiTerms: []search.Term{{Field: search.FieldID, Value: search.FlexString(strings.Join(ids, ","))}}}}, vis)
		if err != nil {
			return err
		}
		for _, it := range items.Results {
			names[str(it.Result[search.FieldID])] = str(it.Result[search.FieldName])
		}
	}
	words := queryWords(st.Q)
	for _, r := range res.Results {
		id := str(r.Result["item_id"])
		t, _ := number(r.Result["time"])
		m := momentView{ItemID: id, ItemName: names[id], Href: itemHref(id, st.Q, t), Time: timecode(t), Lines: momentLines(r.Result, words)}
		in, out := momentSpan(r.Result, t)
		m.In, m.Out, m.InLabel, m.OutLabel = seconds(in), seconds(out), timecode(in), timecode(out)
		if m.ItemName == "" {
			m.ItemName = id
		}
		if th, ok := lookup(r.Result, "thumbnail.url").(string); ok && strings.HasPrefix(th, "/api/data/artifacts/") {
			m.Thumb = th
		}
		page.Moments = append(page.Moments, m)
	}
	pages := int((res.TotalHits + momentsPageSize - 1) / momentsPageSize)
	page.Pager = pager{Page: st.Page, Pages: pages}
	link := func(n int) string { return "/moments?q=" + url.QueryEscape(st.Q) + "&page=" + strconv.Itoa(n) }
	if st.Page > 1 {
		page.Pager.HasPrev, page.Pager.Prev, page.Pager.First = true, link(st.Page-1), link(1)
	}
	if st.Page < pages && st.Page < maxPageParam {
		page.Pager.HasNext, page.Pager.Next, page.Pager.Last = true, link(st.Page+1), link(min(pages, maxPageParam))
	}
	return nil
}

// momentSpan is a segment's in and out points: the span of its
// transcript cues (the words said or captioned), else its time and
// defaultMomentLength after.
func momentSpan(seg map[string]any, t float64) (in, out float64) {
	in, out = -1, -1
	for _, e := range list(lookup(seg, "summary.transcript")) {
		s, ok1 := number(lookup(e, "start_at"))
		x, ok2 := number(lookup(e, "end_at"))
		if !ok1 || !ok2 || s < 0 || x <= s {
			continue
		}
		if in < 0 || s < in {
			in = s
		}
		if x > out {
			out = x
		}
	}
	if in < 0 {
		return t, t + defaultMomentLength
	}
	return in, out
}

// momentLines are what a segment says: its transcript entries, the text
// on screen, its tags and logos; a segment with none of them is a shot.
func momentLines(seg map[string]any, words *regexp.Regexp) []momentLine {
	var out []momentLine
	add := func(kind string, v any) {
		s, _ := v.(string)
		if s = strings.TrimSpace(s); s != "" && len(out) < 6 {
			s, _ = truncate(s, 300)
			out = append(out, momentLine{kind, markWords(s, words)})
		}
	}
	for _, e := range list(lookup(seg, "summary.transcript")) {
		kind := "Caption"
		if src, _ := lookup(e, "source").(string); strings.Contains(src, "speech") {
			kind = "Speech"
		}
		add(kind, lookup(e, "text"))
	}
	for _, e := range list(lookup(seg, "summary.ocr")) {
		add("On screen", lookup(e, "text"))
	}
	for _, e := range list(lookup(seg, "summary.tags")) {
		add("Tag", lookup(e, "name"))
	}
	for _, e := range list(lookup(seg, "summary.logos")) {
		add("Logo", lookup(e, "name"))
	}
	for _, e := range list(lookup(seg, "summary.people")) {
		add("Person", lookup(e, "name"))
	}
	if len(out) == 0 {
		out = append(out, momentLine{"Shot", nil})
	}
	return out
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// queryWords matches the words of a query (not the excluded ones), case
// folded, to mark them in texts the engine returns without highlights.
func queryWords(q string) *regexp.Regexp {
	var alts []string
	for _, w := range strings.Fields(q) {
		if strings.HasPrefix(w, "-") || strings.EqualFold(w, "or") {
			continue
		}
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len([]rune(w)) >= 2 {
			alts = append(alts, regexp.QuoteMeta(w))
		}
	}
	if len(alts) == 0 {
		return nil
	}
	re, err := regexp.Compile(`(?i)` + strings.Join(alts, "|"))
	if err != nil {
		return nil
	}
	return re
}

func markWords(s string, re *regexp.Regexp) []textPart {
	if re == nil {
		return []textPart{{Text: s}}
	}
	var out []textPart
	last := 0
	for _, m := range re.FindAllStringIndex(s, 50) {
		if m[0] > last {
			out = append(out, textPart{Text: s[last:m[0]]})
		}
		out = append(out, textPart{Text: s[m[0]:m[1]], Mark: true})
		last = m[1]
	}
	if last < len(s) {
		out = append(out, textPart{Text: s[last:]})
	}
	return out
}
