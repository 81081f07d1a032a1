package searchtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Visibilities the suite searches with.
var (
	admin   = search.Visibility{All: true}
	userA   = search.Visibility{GroupIDs: []string{GroupA}}
	userAB  = search.Visibility{GroupIDs: []string{GroupA, GroupB}}
	nobody  = search.Visibility{GroupIDs: []string{}}
	viewers = []struct {
		name string
		vis  search.Visibility
	}{{"admin", admin}, {"groupA", userA}, {"groupsAB", userAB}, {"nogroups", nobody}}
)

// CorpusSize is the number of documents of the shared corpus.
const CorpusSize = 3000

// Run is the conformance suite every backend passes. newEngine returns an
// empty engine of its own for the test (and cleans it up with t.Cleanup).
func Run(t *testing.T, newEngine func(t *testing.T) search.Engine) {
	t.Run("Corpus", func(t *testing.T) {
		e := newEngine(t)
		c := NewCorpus(CorpusSize, 1, time.Now())
		Load(t, e, c)
		s := &suite{e: e, c: c}
		for _, tc := range []struct {
			name string
			fn   func(t *testing.T)
		}{
			{"Basics", s.basics},
			{"Placeholder", s.placeholder},
			{"Limits", s.limits},
			{"Types", s.types},
			{"Terms", s.terms},
			{"MultiTerms", s.multiTerms},
			{"Ranges", s.ranges},
			{"InvalidRanges", s.invalidRanges},
			{"Exists", s.exists},
			{"Sort", s.sorts},
			{"Paging", s.paging},
			{"Cursor", s.cursor},
			{"FullText", s.fullText},
			{"Only", s.only},
			{"HitCounts", s.hitCounts},
			{"TermsAggregations", s.termsAggs},
			{"Metrics", s.metrics},
			{"Histograms", s.histograms},
			{"InvalidAggregations", s.invalidAggs},
			{"UnknownFields", s.unknownFields},
			{"Analytics", s.analytics},
			{"Segments", s.segments},
			{"GetSegment", s.getSegment},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				tc.fn(t)
			})
		}
	})
	t.Run("Mutations", func(t *testing.T) {
		e := newEngine(t)
		c := NewCorpus(300, 2, time.Now())
		Load(t, e, c)
		s := &suite{e: e, c: c}
		s.mutations(t)
	})
}

// Load upserts the corpus in batches.
func Load(t testing.TB, e search.Engine, c *Corpus) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < len(c.Docs); i += 500 {
		if err := e.Upsert(ctx, c.Docs[i:min(i+500, len(c.Docs))]); err != nil {
			t.Fatalf("upsert: %v", err)
		}
	}
	for i := 0; i < len(c.Segments); i += 500 {
		if err := e.UpsertSegments(ctx, c.Segments[i:min(i+500, len(c.Segments))]); err != nil {
			t.Fatalf("upsert segments: %v", err)
		}
	}
	Settle(t, e)
}

// Syncer is an engine whose writes become searchable after they return
// (Meilisearch: its tasks run after it answered); Sync waits until every
// write is.
type Syncer interface {
	Sync(ctx context.Context) error
}

// Settle waits until e's writes are searchable (a no-op for an engine
// whose writes are when they return).
func Settle(t testing.TB, e search.Engine) {
	t.Helper()
	if s, ok := e.(Syncer); ok {
		if err := s.Sync(context.Background()); err != nil {
			t.Fatalf("sync: %v", err)
		}
	}
}

type suite struct {
	e search.Engine
	c *Corpus
}

func (s *suite) search(t *testing.T, req search.Request, vis search.Visibility) *search.Response {
	t.Helper()
	resp, err := s.e.Search(context.Background(), req, vis)
	if err != nil {
		t.Fatalf("search %+v: %v", req, err)
	}
	for _, r := range resp.Results {
		checkResult(t, r.Result, r.Score)
	}
	return resp
}

func checkResult(t *testing.T, doc map[string]any, score float64) {
	t.Helper()
	if _, ok := doc[search.FieldID].(string); !ok {
		t.Fatalf("result without _id: %v", doc)
	}
	for k := range doc {
		if strings.HasPrefix(k, "_") && k != search.FieldID {
			t.Fatalf("result exposes internal field %q", k)
		}
	}
	if score < 0 || score > 1 {
		t.Fatalf("score %v outside 0..1", score)
	}
}

// allIDs pages through a search and checks there are neither duplicates nor
// gaps: the pages together hold total_hits distinct documents.
func (s *suite) allIDs(t *testing.T, req search.Request, vis search.Visibility) []string {
	t.Helper()
	if req.Limit == 0 {
		req.Limit = 1000
	}
	seen := map[string]bool{}
	var out []string
	var total int64 = -1
	for page := 0; ; page++ {
		req.Page = page
		resp := s.search(t, req, vis)
		if total < 0 {
			total = resp.TotalHits
		} else if resp.TotalHits != total {
			t.Fatalf("total_hits changed between pages: %d then %d", total, resp.TotalHits)
		}
		for _, r := range resp.Results {
			id := r.Result[search.FieldID].(string)
			if seen[id] {
				t.Fatalf("document %s on two pages", id)
			}
			seen[id] = true
			out = append(out, id)
		}
		if len(resp.Results) < req.Limit {
			break
		}
		if page > 10000 {
			t.Fatal("paging does not end")
		}
	}
	if int64(len(out)) != total {
		t.Fatalf("pages hold %d documents, total_hits says %d", len(out), total)
	}
	return out
}

func sortedCopy(ids []string) []string {
	c := slices.Clone(ids)
	sort.Strings(c)
	return c
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := sortedCopy(got), sortedCopy(want)
	if slices.Equal(g, w) {
		return
	}
	var missing, extra []string
	for _, id := range w {
		if _, ok := slices.BinarySearch(g, id); !ok {
			missing = append(missing, id)
		}
	}
	for _, id := range g {
		if _, ok := slices.BinarySearch(w, id); !ok {
			extra = append(extra, id)
		}
	}
	t.Fatalf("%s: got %d documents, want %d; missing %s; unexpected %s", what, len(g), len(w), head(missing), head(extra))
}

func head(ids []string) string {
	if len(ids) > 8 {
		return fmt.Sprint(ids[:8]) + fmt.Sprintf("... (%d)", len(ids))
	}
	return fmt.Sprint(ids)
}

// expectInvalid checks a 400 whose fields mention each of mentions.
func expectInvalid(t *testing.T, err error, mentions ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a 400 error mentioning %q, got none", mentions)
	}
	ae, ok := apperr.As(err)
	if !ok || ae.Status != http.StatusBadRequest {
		t.Fatalf("want a 400 *apperr.Error, got %v", err)
	}
	text := ae.Message
	for k, v := range ae.Fields {
		text += " " + k + ": " + v
	}
	for _, m := range mentions {
		if !strings.Contains(text, m) {
			t.Fatalf("error %q does not mention %q", text, m)
		}
	}
}

func (s *suite) invalid(t *testing.T, req search.Request, mentions ...string) {
	t.Helper()
	_, err := s.e.Search(context.Background(), req, admin)
	expectInvalid(t, err, mentions...)
}

func (s *suite) basics(t *testing.T) {
	ctx := context.Background()
	if n := s.e.Name(); n != "postgres" && n != "meili" {
		t.Fatalf("Name() = %q", n)
	}
	if err := s.e.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func (s *suite) placeholder(t *testing.T) {
	for _, v := range viewers {
		want := selectDocs(s.c.Docs, v.vis, func(search.Document) bool { return true })
		resp := s.search(t, search.Request{}, v.vis)
		if resp.TotalHits != int64(len(want)) {
			t.Fatalf("%s: total_hits %d, want %d", v.name, resp.TotalHits, len(want))
		}
		if resp.Limit != search.DefaultLimit || resp.Page != 0 || len(resp.Results) != search.DefaultLimit {
			t.Fatalf("%s: limit %d page %d results %d", v.name, resp.Limit, resp.Page, len(resp.Results))
		}
		for _, r := range resp.Results {
			if r.Score != 1 && r.Score <= 0 {
				t.Fatalf("placeholder score %v", r.Score)
			}
			if !visible(s.c.Doc(r.Result[search.FieldID].(string)), v.vis) {
				t.Fatalf("%s sees hidden %v", v.name, r.Result[search.FieldID])
			}
		}
	}
	if len(selectDocs(s.c.Docs, userA, func(search.Document) bool { return true })) == CorpusSize {
		t.Fatal("corpus: every document is visible to group A")
	}
}

func (s *suite) limits(t *testing.T) {
	resp := s.search(t, search.Request{Limit: 5000}, admin)
	if resp.Limit != search.MaxLimit || len(resp.Results) != search.MaxLimit {
		t.Fatalf("limit 5000: limit %d, %d results", resp.Limit, len(resp.Results))
	}
	resp = s.search(t, search.Request{Limit: 7, Page: 2}, admin)
	if resp.Limit != 7 || resp.Page != 2 || len(resp.Results) != 7 || resp.TotalHits != CorpusSize {
		t.Fatalf("limit 7 page 2: %+v", resp)
	}
	resp = s.search(t, search.Request{Limit: 100, Page: 1000}, admin)
	if len(resp.Results) != 0 || resp.TotalHits != CorpusSize {
		t.Fatalf("page past the end: %d results, total %d", len(resp.Results), resp.TotalHits)
	}
	s.invalid(t, search.Request{Limit: -1}, "limit")
	s.invalid(t, search.Request{Page: -1}, "page")
}

func (s *suite) types(t *testing.T) {
	for _, v := range viewers {
		got := s.allIDs(t, search.Request{Types: []string{models.TypeVideo, models.TypeAudio}}, v.vis)
		want := selectDocs(s.c.Docs, v.vis, func(d search.Document) bool {
			return d[search.FieldType] == models.TypeVideo || d[search.FieldType] == models.TypeAudio
		})
		sameIDs(t, v.name+" types video,audio", got, want)
	}
	s.invalid(t, search.Request{Types: []string{"hologram"}}, "types", "hologram")
}

func termFilter(terms ...search.Term) *search.Filters { return &search.Filters{Terms: terms} }

func term(field, value string) search.Term {
	return search.Term{Field: field, Value: search.FlexString(value)}
}

func (s *suite) terms(t *testing.T) {
	cases := [][]search.Term{
		{term("type", "video")},
		{term("location_id", "loc-news")},
		{term("store_container_name", "exclusive")},
		{term("labels.names", "forest")},
		{term("nsfw.nsfw", "true")},
		{term("mediainfo.audio.channels", "6")},
		{term("exiv2.exposure.iso", "unknown")},
		{term("exiv2.exposure.iso", "400")},
		{term("tags.items.name", "river")},
		{term("extension", "mp4"), term("type", "video")},
		{term("_id", "d00042")},
		{term("mime_type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")},
	}
	for _, terms := range cases {
		want := func(vis search.Visibility) []string {
			return selectDocs(s.c.Docs, vis, func(d search.Document) bool {
				for _, tm := range terms {
					if !termMatches(values(d, tm.Field), string(tm.Value)) {
						return false
					}
				}
				return true
			})
		}
		for _, v := range viewers[:2] {
			exp := want(v.vis)
			if v.vis.All && len(exp) == 0 {
				t.Fatalf("corpus: nothing matches %+v", terms)
			}
			got := s.allIDs(t, search.Request{Filters: termFilter(terms...)}, v.vis)
			sameIDs(t, fmt.Sprintf("%s terms %+v", v.name, terms), got, exp)
		}
	}
	// A value matching nothing is an empty result, not an error.
	resp := s.search(t, search.Request{Filters: termFilter(term("type", "nothing-like-this"))}, admin)
	if resp.TotalHits != 0 {
		t.Fatalf("no match: %d", resp.TotalHits)
	}
	// Numbers may be sent as JSON numbers.
	got := s.allIDs(t, search.Request{Filters: termFilter(search.Term{Field: "exiv2.exposure.iso", Value: "800"})}, admin)
	sameIDs(t, "iso 800", got, selectDocs(s.c.Docs, admin, func(d search.Document) bool { return termMatches(values(d, "exiv2.exposure.iso"), "800") }))
}

func (s *suite) multiTerms(t *testing.T) {
	cases := []struct {
		multi []search.Term
		terms []search.Term
	}{
		{multi: []search.Term{term("extension", "mp4, jpg")}},
		{multi: []search.Term{term("location_name", "archive,uploads")}, terms: []search.Term{term("type", "image")}},
		{multi: []search.Term{term("labels.names", "forest,river,city"), term("type", "video,image")}},
	}
	for _, tc := range cases {
		for _, v := range viewers[:2] {
			want := selectDocs(s.c.Docs, v.vis, func(d search.Document) bool {
				for _, m := range tc.multi {
					ok := false
					for _, val := range strings.Split(string(m.Value), ",") {
						if termMatches(values(d, m.Field), strings.TrimSpace(val)) {
							ok = true
						}
					}
					if !ok {
						return false
					}
				}
				for _, tm := range tc.terms {
					if !termMatches(values(d, tm.Field), string(tm.Value)) {
						return false
					}
				}
				return true
			})
			got := s.allIDs(t, search.Request{Filters: &search.Filters{MultiTerms: tc.multi, Terms: tc.terms}}, v.vis)
			sameIDs(t, fmt.Sprintf("%s multi_terms %+v", v.name, tc), got, want)
		}
	}
}

// rangeCase: a range filter and the reference predicate on a value.
type rangeCase struct {
	r   search.Range
	num func(float64) bool
	at  func(time.Time) bool
}

func (s *suite) ranges(t *testing.T) {
	rfc := func(d time.Duration) string { return s.c.Now.Add(d).Format(time.RFC3339) }
	dateOnly := s.c.Now.AddDate(0, 0, -400).Format("2006-01-02")
	endOfDay, _ := time.Parse("2006-01-02", dateOnly)
	endOfDay = endOfDay.AddDate(0, 0, 1)
	lm := search.FieldLastModified
	since := func(d time.Duration) func(time.Time) bool {
		return func(x time.Time) bool { return !x.Before(time.Now().Add(d)) }
	}
	cases := []rangeCase{
		{r: search.Range{Field: "size", From: "1e9", To: "3000000000"}, num: func(f float64) bool { return inRange(f, 1e9, 3e9) }},
		{r: search.Range{Field: "size", To: "1000000"}, num: func(f float64) bool { return f <= 1e6 }},
		{r: search.Range{Field: "size", From: "4000000000.5"}, num: func(f float64) bool { return f >= 4000000000.5 }},
		{r: search.Range{Field: lm, From: "now-1h"}, at: since(-time.Hour)},
		{r: search.Range{Field: lm, From: "now-7d", To: "now-1h"}, at: func(x time.Time) bool {
			return since(-7*24*time.Hour)(x) && !x.After(time.Now().Add(-time.Hour))
		}},
		{r: search.Range{Field: lm, From: "now", To: "now+30m"}, at: func(x time.Time) bool {
			return since(0)(x) && !x.After(time.Now().Add(30*time.Minute))
		}},
		{r: search.Range{Field: lm, To: "now-30d"}, at: func(x time.Time) bool { return !x.After(time.Now().AddDate(0, 0, -30)) }},
		{r: search.Range{Field: lm, To: search.FlexString(dateOnly)}, at: func(x time.Time) bool { return x.Before(endOfDay) }},
		{r: search.Range{Field: lm, From: search.FlexString(rfc(-90 * 24 * time.Hour)), To: search.FlexString(rfc(-20 * 24 * time.Hour))}, at: func(x time.Time) bool {
			return !x.Before(s.c.Now.Add(-90*24*time.Hour)) && !x.After(s.c.Now.Add(-20*24*time.Hour))
		}},
		{r: search.Range{Field: "mediainfo.video.duration", From: "60", To: "600"}, num: func(f float64) bool { return inRange(f, 60, 600) }},
		{r: search.Range{Field: "exiv2.exposure.iso", From: "200", To: "800"}, num: func(f float64) bool { return inRange(f, 200, 800) }},
		{r: search.Range{Field: "exiv2.created", From: "2020-01-01", To: "2021-12-31"}, at: func(x time.Time) bool {
			return !x.Before(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) && x.Before(time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC))
		}},
		// A timestamp without a zone (the camera clock) is UTC.
		{r: search.Range{Field: "exiv2.created_local", From: "2019-06-01", To: "2020-06-30"}, at: func(x time.Time) bool {
			return !x.Before(time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)) && x.Before(time.Date(2020, 7, 1, 0, 0, 0, 0, time.UTC))
		}},
		{r: search.Range{Field: "tags.items.confidence", From: "0.5"}, num: func(f float64) bool { return f >= 0.5 }},
	}
	for _, tc := range cases {
		for _, v := range viewers[:2] {
			want := selectDocs(s.c.Docs, v.vis, func(d search.Document) bool {
				vals := values(d, tc.r.Field)
				if tc.num != nil {
					return slices.ContainsFunc(numbers(vals), tc.num)
				}
				return slices.ContainsFunc(instants(vals), tc.at)
			})
			if v.vis.All && len(want) == 0 {
				t.Fatalf("corpus: nothing in range %+v", tc.r)
			}
			got := s.allIDs(t, search.Request{Filters: &search.Filters{Ranges: []search.Range{tc.r}}}, v.vis)
			sameIDs(t, fmt.Sprintf("%s range %+v", v.name, tc.r), got, want)
		}
	}
}

func (s *suite) invalidRanges(t *testing.T) {
	for _, tc := range []struct {
		r        search.Range
		mentions []string
	}{
		{search.Range{Field: "size", From: "abc"}, []string{"filters.ranges[0]", "abc"}},
		{search.Range{Field: "size", From: "1", To: "now"}, []string{"filters.ranges[0]"}},
		{search.Range{Field: "name", From: "1"}, []string{"name"}},
		{search.Range{Field: "size"}, []string{"filters.ranges[0]"}},
		{search.Range{Field: "last_modified", From: "now-1x"}, []string{"now-1x"}},
		{search.Range{Field: "last_modified", From: "2024-13-45"}, []string{"2024-13-45"}},
		{search.Range{Field: "no.such.field", From: "1"}, []string{"no.such.field"}},
	} {
		s.invalid(t, search.Request{Filters: &search.Filters{Ranges: []search.Range{tc.r}}}, tc.mentions...)
	}
}

func (s *suite) exists(t *testing.T) {
	cases := []struct {
		f     search.Filters
		types []string
		keep  func(search.Document) bool
	}{
		{f: search.Filters{Exists: []string{"captions"}}, keep: func(d search.Document) bool { return hasUnder(d, "captions") }},
		{f: search.Filters{Exists: []string{"mediainfo.video.duration"}}, keep: func(d search.Document) bool { return hasUnder(d, "mediainfo.video.duration") }},
		{f: search.Filters{NotExists: []string{"last_modified"}}, keep: func(d search.Document) bool { return !hasUnder(d, "last_modified") }},
		{f: search.Filters{NotExists: []string{"nsfw"}}, types: []string{"image"}, keep: func(d search.Document) bool {
			return d["type"] == "image" && !hasUnder(d, "nsfw")
		}},
		{f: search.Filters{Exists: []string{"mediainfo"}, NotExists: []string{"mediainfo.video"}}, keep: func(d search.Document) bool {
			return hasUnder(d, "mediainfo") && !hasUnder(d, "mediainfo.video")
		}},
	}
	for _, tc := range cases {
		for _, v := range viewers[:2] {
			want := selectDocs(s.c.Docs, v.vis, tc.keep)
			if v.vis.All && len(want) == 0 {
				t.Fatalf("corpus: nothing for %+v", tc.f)
			}
			f := tc.f
			got := s.allIDs(t, search.Request{Filters: &f, Types: tc.types}, v.vis)
			sameIDs(t, fmt.Sprintf("%s exists %+v", v.name, tc.f), got, want)
		}
	}
}

// sortValue is the reference value a sort compares: the first number, the
// first instant, or the first string; nil when the document has none.
func sortValue(d search.Document, field string, kind string) any {
	vals := values(d, field)
	switch kind {
	case "number":
		if n := numbers(vals); len(n) > 0 {
			return n[0]
		}
	case "date":
		if at := instants(vals); len(at) > 0 {
			return at[0]
		}
	default:
		for _, v := range vals {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	return nil
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case time.Time:
		return x.Compare(b.(time.Time))
	case string:
		return strings.Compare(x, b.(string))
	}
	return 0
}

func (s *suite) sorts(t *testing.T) {
	type key struct {
		field, kind string
		asc         bool
	}
	cases := []struct {
		keys  []key
		types []string
	}{
		{keys: []key{{"size", "number", true}}},
		{keys: []key{{"size", "number", false}}},
		{keys: []key{{"last_modified", "date", false}}},
		{keys: []key{{"last_modified", "date", true}}},
		{keys: []key{{"name", "string", true}}},
		{keys: []key{{"mediainfo.video.duration", "number", true}}, types: []string{"video"}},
		{keys: []key{{"exiv2.exposure.iso", "number", false}}, types: []string{"image"}},
		{keys: []key{{"type", "string", true}, {"size", "number", false}}},
	}
	for _, tc := range cases {
		req := search.Request{Types: tc.types}
		for _, k := range tc.keys {
			req.SortFields = append(req.SortFields, search.SortField{Field: k.field, Asc: k.asc})
		}
		got := s.allIDs(t, req, userA)
		want := selectDocs(s.c.Docs, userA, func(d search.Document) bool {
			return len(tc.types) == 0 || slices.Contains(tc.types, d[search.FieldType].(string))
		})
		sameIDs(t, fmt.Sprintf("sort %+v", tc.keys), got, want)
		for i := 1; i < len(got); i++ {
			a, b := s.c.Doc(got[i-1]), s.c.Doc(got[i])
			for _, k := range tc.keys {
				va, vb := sortValue(a, k.field, k.kind), sortValue(b, k.field, k.kind)
				if va == nil && vb == nil {
					continue
				}
				if va == nil {
					t.Fatalf("sort %+v: %s without %s before %s", tc.keys, got[i-1], k.field, got[i])
				}
				if vb == nil {
					break // documents without a value come last
				}
				c := compareValues(va, vb)
				if !k.asc {
					c = -c
				}
				if c > 0 {
					t.Fatalf("sort %+v: %s (%v) before %s (%v)", tc.keys, got[i-1], va, got[i], vb)
				}
				if c < 0 {
					break
				}
			}
		}
	}
	s.invalid(t, search.Request{SortFields: []search.SortField{{Field: "no_such_field"}}}, "sort_fields", "no_such_field")
	s.invalid(t, search.Request{SortFields: []search.SortField{{Field: "mediainfo"}}}, "sort_fields", "mediainfo")
}

func (s *suite) paging(t *testing.T) {
	want := selectDocs(s.c.Docs, userA, func(d search.Document) bool { return d[search.FieldType] == models.TypeImage })
	got := s.allIDs(t, search.Request{Limit: 97, Types: []string{"image"}, SortFields: []search.SortField{{Field: "size", Asc: true}}}, userA)
	sameIDs(t, "image pages by size", got, want)
	got = s.allIDs(t, search.Request{Limit: 250}, userAB)
	sameIDs(t, "pages without sort", got, selectDocs(s.c.Docs, userAB, func(search.Document) bool { return true }))
	got = s.allIDs(t, search.Request{Limit: 13, Query: MarkerCaption}, admin)
	sameIDs(t, "pages of a text query", got, selectDocs(s.c.Docs, admin, func(d search.Document) bool { return hasWord(d, MarkerCaption) }))
}

// cursor walks results with search.Cursor: every visible match once, in
// _id order, pages of the limit until a short one, on both engines.
func (s *suite) cursor(t *testing.T) {
	walk := func(req search.Request, vis search.Visibility) []string {
		t.Helper()
		var out []string
		req.Cursor = &search.Cursor{}
		for n := 0; ; n++ {
			resp := s.search(t, req, vis)
			if resp.TotalHits != 0 {
				t.Fatalf("a cursor page counts %d", resp.TotalHits)
			}
			for _, r := range resp.Results {
				id := r.Result[search.FieldID].(string)
				if len(out) > 0 && id <= out[len(out)-1] {
					t.Fatalf("cursor page %d: %s after %s", n, id, out[len(out)-1])
				}
				if r.Score != 1 || len(r.Highlight) != 0 {
					t.Fatalf("cursor result with a score %v or highlights %v", r.Score, r.Highlight)
				}
				out = append(out, id)
			}
			if len(resp.Results) < req.Limit {
				return out
			}
			req.Cursor.After = out[len(out)-1]
			if n > 10000 {
				t.Fatal("the cursor does not end")
			}
		}
	}
	for _, v := range viewers {
		got := walk(search.Request{Limit: 211}, v.vis)
		sameIDs(t, "cursor over everything for "+v.name, got, selectDocs(s.c.Docs, v.vis, func(search.Document) bool { return true }))
	}
	got := walk(search.Request{Limit: 17, Query: MarkerCaption, Only: []string{search.FieldName}}, userA)
	sameIDs(t, "cursor over a text query", got, selectDocs(s.c.Docs, userA, func(d search.Document) bool { return hasWord(d, MarkerCaption) }))
	got = walk(search.Request{Limit: 50, Types: []string{"image"}}, userAB)
	sameIDs(t, "cursor over images", got, selectDocs(s.c.Docs, userAB, func(d search.Document) bool { return d[search.FieldType] == models.TypeImage }))
	// The page after the last id is empty.
	all := walk(search.Request{Limit: 1000}, admin)
	if resp := s.search(t, search.Request{Limit: 10, Cursor: &search.Cursor{After: all[len(all)-1]}}, admin); len(resp.Results) != 0 {
		t.Fatalf("after the last id: %d results", len(resp.Results))
	}
	for _, bad := range []struct {
		req  search.Request
		what string
	}{
		{search.Request{SortFields: []search.SortField{{Field: search.FieldName}}}, "sort_fields"},
		{search.Request{Page: 2}, "page"},
		{search.Request{HitCounts: map[string]int{}}, "hit_counts"},
		{search.Request{Cursor: &search.Cursor{After: strings.Repeat("a", 600)}}, "cursor"},
	} {
		if bad.req.Cursor == nil {
			bad.req.Cursor = &search.Cursor{}
		}
		s.invalid(t, bad.req, bad.what)
	}
}

func (s *suite) fullText(t *testing.T) {
	wantWords := func(vis search.Visibility, fields []string, keep func(search.Document) bool, words ...string) []string {
		return selectDocs(s.c.Docs, vis, func(d search.Document) bool {
			for _, w := range words {
				neg := strings.HasPrefix(w, "-")
				if hasWord(d, strings.TrimPrefix(w, "-"), fields...) == neg {
					return false
				}
			}
			return keep == nil || keep(d)
		})
	}
	cases := []struct {
		query  string
		words  []string
		fields []string
		types  []string
		keep   func(search.Document) bool
	}{
		{query: MarkerCaption, words: []string{MarkerCaption}},
		{query: MarkerCaption[:5], words: []string{MarkerCaption}}, // prefix of the last word
		{query: strings.ToUpper(MarkerName), words: []string{MarkerName}},
		{query: MarkerCaption + " river", words: []string{MarkerCaption, "river"}},
		{query: MarkerCaption + " -river", words: []string{MarkerCaption, "-river"}},
		{query: MarkerField, words: []string{MarkerField}, fields: []string{"pdf.text"}},
		{query: MarkerField, words: []string{MarkerField}, fields: []string{"speech_to_text"}},
		{query: MarkerCaption, words: []string{MarkerCaption}, types: []string{"image"}, keep: func(d search.Document) bool { return d["type"] == "image" }},
		{query: MarkerHidden, words: []string{MarkerHidden}},
		// Whatever the accents and the case.
		{query: MarkerAccented, words: []string{MarkerAccented}},
		{query: "caglayansut", words: []string{MarkerAccented}},
		{query: "ÇAĞLAYANŞÜT", words: []string{MarkerAccented}},
		{query: "CAGLAYANSUT", words: []string{MarkerAccented}, fields: []string{"pdf.text"}},
	}
	for _, tc := range cases {
		for _, v := range viewers {
			fields := tc.fields
			if len(fields) == 1 && fields[0] == "speech_to_text" {
				fields = []string{"speech_to_text.text", "speech_to_text.language"}
			}
			want := wantWords(v.vis, fields, tc.keep, tc.words...)
			if v.vis.All && len(want) == 0 {
				t.Fatalf("corpus: nothing matches %q", tc.query)
			}
			req := search.Request{Query: tc.query, Fields: tc.fields, Types: tc.types, Limit: 1000}
			got := s.allIDs(t, req, v.vis)
			sameIDs(t, fmt.Sprintf("%s query %q fields %v", v.name, tc.query, tc.fields), got, want)
		}
	}
	// Group A never sees the hidden marker.
	if resp := s.search(t, search.Request{Query: MarkerHidden}, userA); resp.TotalHits != 0 {
		t.Fatalf("group A finds %d documents with the hidden marker", resp.TotalHits)
	}

	// Highlights and scores.
	resp := s.search(t, search.Request{Query: MarkerCaption, Limit: 50}, admin)
	if len(resp.Results) == 0 {
		t.Fatal("no results")
	}
	prev := 2.0
	for _, r := range resp.Results {
		id := r.Result[search.FieldID].(string)
		if r.Score > prev+1e-9 {
			t.Fatalf("scores not in decreasing order: %v after %v", r.Score, prev)
		}
		prev = r.Score
		if r.Score <= 0 {
			t.Fatalf("%s: score %v for a match", id, r.Score)
		}
		found := false
		for _, h := range r.Highlight {
			if !hasWord(s.c.Doc(id), MarkerCaption, h.Field) {
				t.Fatalf("%s: highlight on %s which does not hold the word: %+v", id, h.Field, h)
			}
			for _, f := range h.Fragments {
				if strings.Contains(strings.ToLower(f), "<em>"+MarkerCaption+"</em>") {
					found = true
				}
			}
		}
		if !found {
			t.Fatalf("%s: no <em>%s</em> in highlights %+v", id, MarkerCaption, r.Highlight)
		}
	}
	resp = s.search(t, search.Request{Query: MarkerName, Limit: 5}, admin)
	for _, r := range resp.Results {
		ok := false
		for _, h := range r.Highlight {
			if h.Field == search.FieldName && len(h.Fragments) > 0 && strings.Contains(strings.ToLower(h.Fragments[0]), "<em>"+MarkerName) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("name not highlighted: %+v", r.Highlight)
		}
	}
	// Fields restrict highlights too.
	resp = s.search(t, search.Request{Query: MarkerField, Fields: []string{"pdf.text"}, Limit: 20}, admin)
	for _, r := range resp.Results {
		for _, h := range r.Highlight {
			if h.Field != "pdf.text" {
				t.Fatalf("highlight outside the searched fields: %+v", h)
			}
		}
	}
	s.invalid(t, search.Request{Query: "x", Fields: []string{"no_such_field"}}, "fields", "no_such_field")
	s.invalid(t, search.Request{Query: "x", Fields: []string{"size"}}, "fields", "size")
}

func (s *suite) only(t *testing.T) {
	resp := s.search(t, search.Request{Types: []string{"video"}, Only: []string{"name", "mediainfo.video"}, Limit: 50}, admin)
	for _, r := range resp.Results {
		for k := range r.Result {
			if k != "_id" && k != "name" && k != "mediainfo" {
				t.Fatalf("only: unexpected field %q", k)
			}
		}
		if r.Result["name"] == nil || r.Result["mediainfo"] == nil {
			t.Fatalf("only: missing fields in %v", r.Result)
		}
		for k := range r.Result["mediainfo"].(map[string]any) {
			if k != "video" {
				t.Fatalf("only: mediainfo.%s returned", k)
			}
		}
	}
	resp = s.search(t, search.Request{Filters: &search.Filters{Exists: []string{"tags"}}, Only: []string{"tags.items.name"}, Limit: 20}, admin)
	for _, r := range resp.Results {
		items := r.Result["tags"].(map[string]any)["items"].([]any)
		for _, it := range items {
			for k := range it.(map[string]any) {
				if k != "name" {
					t.Fatalf("only tags.items.name: got %q", k)
				}
			}
		}
	}
	// Unknown names are left out (DECISIONS.md); gm_item_id is _id.
	resp = s.search(t, search.Request{Only: []string{"name", "no_such_field", "gm_item_id"}, Limit: 5}, admin)
	if len(resp.Results) == 0 {
		t.Fatal("only with an unknown name: no results")
	}
	for _, r := range resp.Results {
		if len(r.Result) != 2 || r.Result["_id"] == nil || r.Result["name"] == nil {
			t.Fatalf("only name, no_such_field, gm_item_id: %v", r.Result)
		}
	}
}

func (s *suite) hitCounts(t *testing.T) {
	for _, tc := range []struct {
		req   search.Request
		types []string
		keep  func(search.Document) bool
	}{
		{req: search.Request{HitCounts: map[string]int{}}, types: search.HitCountTypes()},
		{req: search.Request{HitCounts: map[string]int{"caption": 0, "ocr": 0, "nsfw": 0}, Types: []string{"video", "image"}},
			types: []string{"caption", "ocr", "nsfw"}, keep: func(d search.Document) bool { return d["type"] == "video" || d["type"] == "image" }},
		{req: search.Request{HitCounts: map[string]int{}, Query: MarkerCaption}, types: search.HitCountTypes(),
			keep: func(d search.Document) bool { return hasWord(d, MarkerCaption) }},
	} {
		for _, v := range viewers[:2] {
			want := map[string]int64{}
			for _, d := range s.c.Docs {
				if !visible(d, v.vis) || (tc.keep != nil && !tc.keep(d)) {
					continue
				}
				for _, typ := range tc.types {
					for _, p := range search.HitCountPaths(typ) {
						if hasUnder(d, p) {
							want[typ]++
							break
						}
					}
				}
			}
			resp := s.search(t, tc.req, v.vis)
			if resp.HitCounts == nil {
				t.Fatal("hit_counts missing")
			}
			if fmt.Sprint(resp.HitCounts) != fmt.Sprint(want) {
				t.Fatalf("%s hit_counts %+v: got %v want %v", v.name, tc.req, resp.HitCounts, want)
			}
		}
	}
	// Speech counts the documents with a transcript of speech, not every
	// document with a transcript (captions make one too).
	var speech int64
	for _, d := range s.c.Docs {
		if d["speech_to_text"] != nil || d["speech_to_text_provider"] != nil {
			speech++
		}
	}
	if got := s.search(t, search.Request{HitCounts: map[string]int{"speech_to_text": 0}}, admin).HitCounts["speech_to_text"]; got != speech {
		t.Fatalf("speech_to_text hit count %d, want the %d documents with speech", got, speech)
	}
	if resp := s.search(t, search.Request{}, admin); resp.HitCounts != nil {
		t.Fatalf("hit_counts without asking: %v", resp.HitCounts)
	}
	s.invalid(t, search.Request{HitCounts: map[string]int{"telepathy": 0}}, "hit_counts", "telepathy")
}

func (s *suite) termsAggs(t *testing.T) {
	for _, tc := range []struct {
		agg     search.TermsAgg
		filters *search.Filters
	}{
		{agg: search.TermsAgg{Name: "types", Field: "type"}},
		{agg: search.TermsAgg{Name: "labels", Field: "labels.names", Size: 3}},
		{agg: search.TermsAgg{Name: "locs", Field: "location_name"}, filters: termFilter(term("type", "image"))},
		{agg: search.TermsAgg{Name: "codecs", Field: "mediainfo.video.codec", Size: 2}},
		{agg: search.TermsAgg{Name: "tagnames", Field: "tags.items.name", Size: 5}},
		{agg: search.TermsAgg{Name: "ext", Field: "extension", Size: 100}},
	} {
		for _, v := range viewers[:2] {
			counts := map[string]int64{}
			var total int64
			for _, d := range s.c.Docs {
				if !visible(d, v.vis) || (tc.filters != nil && !termMatches(values(d, "type"), "image")) {
					continue
				}
				seen := map[string]bool{}
				for _, x := range values(d, tc.agg.Field) {
					k := fmt.Sprint(x)
					if !seen[k] {
						seen[k] = true
						counts[k]++
						total++
					}
				}
			}
			size := tc.agg.Size
			if size == 0 {
				size = search.DefaultTermsSize
			}
			want, _ := search.TopBuckets(counts, size)
			resp := s.search(t, search.Request{Filters: tc.filters, Aggregations: &search.Aggregations{Terms: []search.TermsAgg{tc.agg}}}, v.vis)
			got := resp.Aggregations.Terms[tc.agg.Name]
			if len(got.Buckets) != len(want) {
				t.Fatalf("%s terms %s: got %v want %v", v.name, tc.agg.Name, got.Buckets, want)
			}
			var in int64
			for i, b := range got.Buckets {
				// Ties may come in any order: compare counts by rank, and each key's count.
				if b.Count != want[i].Count || b.Count != counts[b.Key] {
					t.Fatalf("%s terms %s: got %v want %v", v.name, tc.agg.Name, got.Buckets, want)
				}
				in += b.Count
			}
			if got.OthersCount != total-in {
				t.Fatalf("%s terms %s: othersCount %d, want %d", v.name, tc.agg.Name, got.OthersCount, total-in)
			}
		}
	}
}

func (s *suite) metrics(t *testing.T) {
	type ref struct {
		min, max, sum float64
		n             int
		distinct      map[string]bool
	}
	compute := func(vis search.Visibility, field string, types []string, dates bool) ref {
		r := ref{distinct: map[string]bool{}}
		for _, d := range s.c.Docs {
			if !visible(d, vis) || (len(types) > 0 && !slices.Contains(types, d["type"].(string))) {
				continue
			}
			vals := values(d, field)
			for _, x := range vals {
				r.distinct[fmt.Sprint(x)] = true
			}
			var nums []float64
			if dates {
				for _, at := range instants(vals) {
					nums = append(nums, float64(at.UnixNano())/1e9)
				}
			} else {
				nums = numbers(vals)
			}
			for _, f := range nums {
				if r.n == 0 || f < r.min {
					r.min = f
				}
				if r.n == 0 || f > r.max {
					r.max = f
				}
				r.sum += f
				r.n++
			}
		}
		return r
	}
	for _, tc := range []struct {
		field string
		types []string
		dates bool
	}{
		{field: "size"},
		{field: "mediainfo.video.duration", types: []string{"video"}},
		{field: "exiv2.exposure.iso"},
		{field: "last_modified", dates: true},
		{field: "exiv2.created", dates: true},
	} {
		for _, v := range viewers[:2] {
			want := compute(v.vis, tc.field, tc.types, tc.dates)
			var aggs []search.MetricAgg
			for _, typ := range []string{"min", "max", "avg", "sum"} {
				aggs = append(aggs, search.MetricAgg{Name: typ, Field: tc.field, Type: typ})
			}
			resp := s.search(t, search.Request{Types: tc.types, Aggregations: &search.Aggregations{Metrics: aggs}}, v.vis)
			m := resp.Aggregations.Metrics
			for name, w := range map[string]float64{"min": want.min, "max": want.max, "avg": want.sum / float64(want.n), "sum": want.sum} {
				got := m[name]
				if got == nil || !approx(*got, w) {
					t.Fatalf("%s %s %s: got %v want %v", v.name, tc.field, name, got, w)
				}
			}
		}
	}
	for _, field := range []string{"extension", "location_name", "labels.names"} {
		for _, v := range viewers[:2] {
			want := compute(v.vis, field, nil, false)
			resp := s.search(t, search.Request{Aggregations: &search.Aggregations{Metrics: []search.MetricAgg{{Name: "n", Field: field, Type: "cardinality"}}}}, v.vis)
			if got := resp.Aggregations.Metrics["n"]; got == nil || *got != float64(len(want.distinct)) {
				t.Fatalf("%s cardinality %s: got %v want %d", v.name, field, got, len(want.distinct))
			}
		}
	}
	// No value at all: min is null, sum 0.
	resp := s.search(t, search.Request{Types: []string{"audio"}, Aggregations: &search.Aggregations{Metrics: []search.MetricAgg{
		{Name: "min", Field: "exiv2.exposure.iso", Type: "min"}, {Name: "sum", Field: "exiv2.exposure.iso", Type: "sum"}}}}, admin)
	if resp.Aggregations.Metrics["min"] != nil || resp.Aggregations.Metrics["sum"] == nil || *resp.Aggregations.Metrics["sum"] != 0 {
		t.Fatalf("empty metrics: %v", resp.Aggregations.Metrics)
	}
}

func (s *suite) histograms(t *testing.T) {
	for _, tc := range []struct {
		h     search.HistogramAgg
		types []string
	}{
		{h: search.HistogramAgg{Name: "size", Field: "size", Interval: 1_000_000_000, MinCount: 1}},
		{h: search.HistogramAgg{Name: "dur", Field: "mediainfo.video.duration", Interval: 600}, types: []string{"video"}},
		{h: search.HistogramAgg{Name: "iso", Field: "exiv2.exposure.iso", Interval: 500, MinCount: 1}},
		{h: search.HistogramAgg{Name: "pages", Field: "pdf.page_count", Interval: 7, MinCount: 5}},
	} {
		for _, v := range viewers[:2] {
			counts := map[int64]int64{}
			for _, d := range s.c.Docs {
				if !visible(d, v.vis) || (len(tc.types) > 0 && !slices.Contains(tc.types, d["type"].(string))) {
					continue
				}
				for _, f := range numbers(values(d, tc.h.Field)) {
					counts[search.HistogramKey(f, tc.h.Interval)]++
				}
			}
			want, err := search.HistogramBuckets(tc.h.Name, counts, tc.h.Interval, tc.h.MinCount)
			if err != nil {
				t.Fatal(err)
			}
			resp := s.search(t, search.Request{Types: tc.types, Aggregations: &search.Aggregations{Histograms: []search.HistogramAgg{tc.h}}}, v.vis)
			got := resp.Aggregations.Histograms[tc.h.Name].Buckets
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s histogram %+v:\n got %v\nwant %v", v.name, tc.h, got, want)
			}
		}
	}
}

func (s *suite) invalidAggs(t *testing.T) {
	for _, tc := range []struct {
		a        search.Aggregations
		mentions []string
	}{
		{search.Aggregations{Metrics: []search.MetricAgg{{Name: "m", Field: "no_such", Type: "min"}}}, []string{"aggregations.metrics[0]", "no_such"}},
		{search.Aggregations{Metrics: []search.MetricAgg{{Name: "m", Field: "size", Type: "median"}}}, []string{"median"}},
		{search.Aggregations{Metrics: []search.MetricAgg{{Name: "m", Field: "name", Type: "avg"}}}, []string{"name"}},
		{search.Aggregations{Metrics: []search.MetricAgg{{Name: "m", Field: "size", Type: "min"}, {Name: "m", Field: "size", Type: "max"}}}, []string{"duplicate"}},
		{search.Aggregations{Terms: []search.TermsAgg{{Name: "t", Field: "nope.nope"}}}, []string{"aggregations.terms[0]", "nope.nope"}},
		{search.Aggregations{Terms: []search.TermsAgg{{Name: "t", Field: "type", Size: 5000}}}, []string{"size"}},
		{search.Aggregations{Histograms: []search.HistogramAgg{{Name: "h", Field: "size", Interval: 0}}}, []string{"interval"}},
		{search.Aggregations{Histograms: []search.HistogramAgg{{Name: "h", Field: "missing_field", Interval: 5}}}, []string{"missing_field"}},
		{search.Aggregations{Histograms: []search.HistogramAgg{{Name: "h", Field: "size", Interval: 1}}}, []string{"buckets"}},
	} {
		a := tc.a
		s.invalid(t, search.Request{Aggregations: &a}, tc.mentions...)
	}
}

func (s *suite) unknownFields(t *testing.T) {
	s.invalid(t, search.Request{Filters: &search.Filters{}}, "filters")
	s.invalid(t, search.Request{Filters: termFilter(term("mediainfo.video.colour", "x"))}, "filters.terms[0]", "mediainfo.video.colour")
	s.invalid(t, search.Request{Filters: termFilter(term("mediainfo", "x"))}, "filters.terms[0]", "mediainfo")
	s.invalid(t, search.Request{Filters: &search.Filters{MultiTerms: []search.Term{term("colour", "a,b")}}}, "filters.multi_terms[0]", "colour")
	s.invalid(t, search.Request{Filters: &search.Filters{Exists: []string{"type", "ghost"}}}, "filters.exists[1]", "ghost")
	s.invalid(t, search.Request{Filters: &search.Filters{NotExists: []string{"phantom"}}}, "filters.not_exists[0]", "phantom")
	s.invalid(t, search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "weight", From: "1"}}}}, "filters.ranges[0]", "weight")
	// Internal fields are not fields.
	s.invalid(t, search.Request{Filters: termFilter(term(search.FieldLocationGroups, GroupB))}, search.FieldLocationGroups)
	resp := s.search(t, search.Request{Only: []string{search.FieldContainerGroups}, Limit: 5}, admin)
	for _, r := range resp.Results {
		if len(r.Result) != 1 || r.Result["_id"] == nil {
			t.Fatalf("only %s: %v", search.FieldContainerGroups, r.Result)
		}
	}
}

func (s *suite) analytics(t *testing.T) {
	for _, v := range viewers {
		a, err := s.e.Analytics(context.Background(), v.vis)
		if err != nil {
			t.Fatal(err)
		}
		count := func(field string, rename map[string]string) map[string]int64 {
			out := map[string]int64{}
			for _, d := range s.c.Docs {
				if !visible(d, v.vis) {
					continue
				}
				for _, x := range values(d, field) {
					k := fmt.Sprint(x)
					if rename != nil {
						k = rename[k]
					}
					out[k]++
				}
			}
			return out
		}
		asMap := func(bs []search.Bucket) map[string]int64 {
			out := map[string]int64{}
			for _, b := range bs {
				out[b.Key] = b.Count
			}
			return out
		}
		for name, pair := range map[string]struct {
			got  []search.Bucket
			want map[string]int64
		}{
			"explicit_content":   {a.ExplicitContent, count("nsfw.nsfw", map[string]string{"true": "explicit", "false": "safe"})},
			"files_by_category":  {a.FilesByCategory, count("type", nil)},
			"files_by_extension": {a.FilesByExtension, count("extension", nil)},
			"files_by_location":  {a.FilesByLocation, count("location_name", nil)},
			"files_by_type":      {a.FilesByType, count("mime_type", nil)},
		} {
			if fmt.Sprint(asMap(pair.got)) != fmt.Sprint(pair.want) {
				t.Fatalf("%s analytics %s: got %v want %v", v.name, name, pair.got, pair.want)
			}
			for i := 1; i < len(pair.got); i++ {
				if pair.got[i].Count > pair.got[i-1].Count {
					t.Fatalf("%s analytics %s not by count: %v", v.name, name, pair.got)
				}
			}
		}
	}
}

func (s *suite) searchSegments(t *testing.T, req search.SegmentRequest, vis search.Visibility) *search.SegmentResponse {
	t.Helper()
	resp, err := s.e.SearchSegments(context.Background(), req, vis)
	if err != nil {
		t.Fatalf("segment search %+v: %v", req, err)
	}
	for _, r := range resp.Results {
		checkResult(t, r.Result, r.Score)
	}
	return resp
}

func (s *suite) allSegments(t *testing.T, req search.SegmentRequest, vis search.Visibility) []string {
	t.Helper()
	if req.Limit == 0 {
		req.Limit = 1000
	}
	seen := map[string]bool{}
	var out []string
	var total int64 = -1
	for page := 0; ; page++ {
		req.Page = page
		resp := s.searchSegments(t, req, vis)
		if total < 0 {
			total = resp.TotalHits
		}
		for _, r := range resp.Results {
			id := r.Result["_id"].(string)
			if seen[id] {
				t.Fatalf("segment %s on two pages", id)
			}
			seen[id] = true
			out = append(out, id)
		}
		if len(resp.Results) < req.Limit {
			break
		}
	}
	if int64(len(out)) != total {
		t.Fatalf("segment pages hold %d, total_hits %d", len(out), total)
	}
	return out
}

func (s *suite) segmentIDs(vis search.Visibility, keep func(search.Segment) bool) []string {
	var out []string
	for _, seg := range s.c.Segments {
		if !visible(s.c.Doc(seg.ItemID), vis) || !keep(seg) {
			continue
		}
		out = append(out, seg.ID)
	}
	return out
}

func segHasWord(seg search.Segment, word string) bool {
	for _, o := range seg.Summary.OCR {
		if contains(tokens(o.Text), word) {
			return true
		}
	}
	for _, d := range seg.Summary.Descriptions {
		if contains(tokens(d.Text), word) {
			return true
		}
	}
	for _, tg := range seg.Summary.Tags {
		if contains(tokens(tg.Name), word) {
			return true
		}
	}
	for _, tr := range seg.Summary.Transcript {
		if contains(tokens(tr.Text), word) {
			return true
		}
	}
	return false
}

func (s *suite) segments(t *testing.T) {
	if len(s.c.Segments) == 0 {
		t.Fatal("corpus has no segments")
	}
	item := s.c.Segments[0].ItemID
	resp := s.searchSegments(t, search.SegmentRequest{Filters: &search.SegmentFilters{ExactTerms: []search.Term{term("item_id", item)}}}, admin)
	if resp.TotalHits != 3 || len(resp.Results) != 3 {
		t.Fatalf("segments of %s: %d", item, resp.TotalHits)
	}
	if !slices.Equal(resp.Types, []string{"segments"}) || resp.Filters.ExactTerms[0].Field != "item_id" || !resp.DisableAggr {
		t.Fatalf("segment response echo: %+v", resp)
	}
	times := func(r *search.SegmentResponse) []float64 {
		var out []float64
		for _, x := range r.Results {
			out = append(out, number(t, x.Result["time"]))
		}
		return out
	}
	if ts := times(resp); !slices.IsSorted(ts) {
		t.Fatalf("segments not by time: %v", ts)
	}

	all := search.SegmentFilters{Ranges: []search.Range{{Field: "time", From: "0"}}}
	for _, v := range viewers {
		// Every visible segment, paged.
		got := s.allSegments(t, search.SegmentRequest{Filters: &all, Limit: 211}, v.vis)
		sameIDs(t, v.name+" all segments", got, s.segmentIDs(v.vis, func(search.Segment) bool { return true }))
		// Text: OCR, and captions linked to segments.
		for _, word := range []string{MarkerSegment, MarkerSegHidden, MarkerCaption} {
			got = s.allSegments(t, search.SegmentRequest{Query: word, Filters: &all}, v.vis)
			want := s.segmentIDs(v.vis, func(seg search.Segment) bool { return segHasWord(seg, word) })
			if v.vis.All && len(want) == 0 {
				t.Fatalf("corpus: no segment with %q", word)
			}
			sameIDs(t, v.name+" segments with "+word, got, want)
		}
		// A caption's language.
		lang := search.SegmentFilters{ExactTerms: []search.Term{term("summary.transcript.language", "en")}}
		got = s.allSegments(t, search.SegmentRequest{Filters: &lang}, v.vis)
		sameIDs(t, v.name+" segments with an English caption", got, s.segmentIDs(v.vis, func(seg search.Segment) bool {
			return len(seg.Summary.Transcript) > 0
		}))
		// Ranges and exists.
		r := search.SegmentFilters{Ranges: []search.Range{{Field: "time", From: "10", To: "40.5"}}, Exists: []string{"summary.nsfw"}}
		got = s.allSegments(t, search.SegmentRequest{Filters: &r}, v.vis)
		sameIDs(t, v.name+" segment range", got, s.segmentIDs(v.vis, func(seg search.Segment) bool {
			return seg.Time >= 10 && seg.Time <= 40.5 && seg.Summary.NSFW != nil
		}))
	}
	// Sort by time descending.
	resp = s.searchSegments(t, search.SegmentRequest{Filters: &all, SortFields: []search.SortField{{Field: "time", Asc: false}}, Limit: 100}, admin)
	ts := times(resp)
	if !slices.IsSortedFunc(ts, func(a, b float64) int { return -compareValues(a, b) }) {
		t.Fatalf("segments not by time descending: %v", ts)
	}
	if resp.SortFields[0].Ascending || resp.SortFields[0].Field != "time" {
		t.Fatalf("sort echo: %+v", resp.SortFields)
	}
	// Only.
	resp = s.searchSegments(t, search.SegmentRequest{Filters: &all, Only: []string{"time"}, Limit: 10}, admin)
	for _, r := range resp.Results {
		for k := range r.Result {
			if k != "_id" && k != "time" {
				t.Fatalf("segment only: %q returned", k)
			}
		}
	}
	// Invalid requests.
	ctx := context.Background()
	_, err := s.e.SearchSegments(ctx, search.SegmentRequest{}, admin)
	expectInvalid(t, err, "filters")
	_, err = s.e.SearchSegments(ctx, search.SegmentRequest{Filters: &search.SegmentFilters{}}, admin)
	expectInvalid(t, err, "filters")
	_, err = s.e.SearchSegments(ctx, search.SegmentRequest{Filters: &search.SegmentFilters{ExactTerms: []search.Term{term("summary.smell", "x")}}}, admin)
	expectInvalid(t, err, "filters.exact_terms[0]", "summary.smell")
	_, err = s.e.SearchSegments(ctx, search.SegmentRequest{Filters: &all, SortFields: []search.SortField{{Field: "loudness"}}}, admin)
	expectInvalid(t, err, "sort_fields", "loudness")
	_, err = s.e.SearchSegments(ctx, search.SegmentRequest{Filters: &all, Limit: -3}, admin)
	expectInvalid(t, err, "limit")
}

func number(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case interface{ Float64() (float64, error) }:
		f, err := x.Float64()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Fatalf("not a number: %T %v", v, v)
	return 0
}

func (s *suite) getSegment(t *testing.T) {
	ctx := context.Background()
	var shown, hidden *search.Segment
	for i := range s.c.Segments {
		seg := &s.c.Segments[i]
		if visible(s.c.Doc(seg.ItemID), userA) {
			if shown == nil {
				shown = seg
			}
		} else if hidden == nil {
			hidden = seg
		}
	}
	if shown == nil || hidden == nil {
		t.Fatal("corpus: need visible and hidden segments")
	}
	got, err := s.e.GetSegment(ctx, shown.ID, userA)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != shown.ID || got.ItemID != shown.ItemID || got.Time != shown.Time ||
		len(got.Summary.OCR) != 1 || got.Summary.OCR[0].Text != shown.Summary.OCR[0].Text ||
		got.Summary.Description == nil || got.Summary.Description.Text != shown.Summary.Description.Text {
		t.Fatalf("GetSegment: got %+v want %+v", got, shown)
	}
	if _, err := s.e.GetSegment(ctx, hidden.ID, userA); !errors.Is(err, search.ErrNotVisible) {
		t.Fatalf("hidden segment: %v", err)
	}
	if _, err := s.e.GetSegment(ctx, hidden.ID, admin); err != nil {
		t.Fatalf("admin: %v", err)
	}
	if _, err := s.e.GetSegment(ctx, "no-such-segment", admin); !errors.Is(err, search.ErrNotFound) {
		t.Fatalf("missing segment: %v", err)
	}
}

// mutations changes a small corpus: updates, visibility changes, new fields,
// deletes and a reset.
func (s *suite) mutations(t *testing.T) {
	ctx := context.Background()
	total := func(req search.Request, vis search.Visibility) int64 {
		return s.search(t, req, vis).TotalHits
	}
	n := int64(len(s.c.Docs))
	if got := total(search.Request{}, admin); got != n {
		t.Fatalf("loaded %d, want %d", got, n)
	}

	// Upsert is a replace: a renamed document is found by its new name only.
	var victim search.Document
	for _, d := range s.c.Docs {
		if visible(d, nobody) && len(s.segmentsOf(d.ID())) > 0 {
			victim = d
			break
		}
	}
	if victim == nil {
		t.Fatal("corpus: no public document with segments")
	}
	renamed := clone(victim)
	renamed[search.FieldName] = "platypus_" + victim[search.FieldName].(string)
	renamed["sensor"] = map[string]any{"temperature_c": 21.5, "conditions": "sunny"}
	if err := s.e.Upsert(ctx, []search.Document{renamed}); err != nil {
		t.Fatal(err)
	}
	Settle(t, s.e)
	if got := s.allIDs(t, search.Request{Query: "platypus"}, admin); !slices.Equal(got, []string{victim.ID()}) {
		t.Fatalf("renamed document: %v", got)
	}
	if got := total(search.Request{}, admin); got != n {
		t.Fatalf("upsert of an existing id changed the total: %d", got)
	}
	// A field first seen in this upsert is known at once: it filters with
	// the Postgres backend; Meilisearch filters (and searches as text)
	// declared fields only (its settings never change for a write,
	// search/meili/fields.go): it says so, and returns the new field.
	newField := search.Request{Filters: &search.Filters{Ranges: []search.Range{{Field: "sensor.temperature_c", From: "20", To: "22"}}}}
	if s.e.Name() == "meili" {
		_, err := s.e.Search(ctx, newField, admin)
		expectInvalid(t, err, "sensor.temperature_c")
		resp := s.search(t, search.Request{Query: "platypus", Only: []string{"sensor.conditions"}}, admin)
		if len(resp.Results) != 1 || fmt.Sprint(resp.Results[0].Result["sensor"]) != "map[conditions:sunny]" {
			t.Fatalf("a new field's value: %+v", resp.Results)
		}
	} else if resp := s.search(t, newField, admin); resp.TotalHits != 1 {
		t.Fatalf("new field filter: %d", resp.TotalHits)
	}

	// Moving the item behind a group hides it and its segments.
	segs := s.segmentsOf(victim.ID())
	moved := clone(renamed)
	moved[search.FieldContainerGroups] = []any{GroupB}
	if err := s.e.Upsert(ctx, []search.Document{moved}); err != nil {
		t.Fatal(err)
	}
	Settle(t, s.e)
	if got := total(search.Request{Query: "platypus"}, userA); got != 0 {
		t.Fatalf("moved document still visible: %d", got)
	}
	if got := total(search.Request{Query: "platypus"}, userAB); got != 1 {
		t.Fatalf("moved document invisible to its group: %d", got)
	}
	if _, err := s.e.GetSegment(ctx, segs[0], userA); !errors.Is(err, search.ErrNotVisible) {
		t.Fatalf("segment of a hidden item: %v", err)
	}
	byItem := &search.SegmentFilters{ExactTerms: []search.Term{term("item_id", victim.ID())}}
	if r := s.searchSegments(t, search.SegmentRequest{Filters: byItem}, userA); r.TotalHits != 0 {
		t.Fatalf("segments of a hidden item found: %d", r.TotalHits)
	}
	if r := s.searchSegments(t, search.SegmentRequest{Filters: byItem}, userAB); r.TotalHits != int64(len(segs)) {
		t.Fatalf("segments of the moved item for its group: %d", r.TotalHits)
	}

	// Deletes.
	var gone []string
	for _, d := range s.c.Docs[:10] {
		gone = append(gone, d.ID())
	}
	if err := s.e.Delete(ctx, append(gone, "never-indexed")); err != nil {
		t.Fatal(err)
	}
	Settle(t, s.e)
	if got := total(search.Request{}, admin); got != n-10 {
		t.Fatalf("after delete: %d want %d", got, n-10)
	}
	if got := total(search.Request{Filters: &search.Filters{MultiTerms: []search.Term{term("_id", strings.Join(gone, ","))}}}, admin); got != 0 {
		t.Fatalf("deleted documents found: %d", got)
	}
	if err := s.e.DeleteSegmentsOfItems(ctx, []string{victim.ID()}); err != nil {
		t.Fatal(err)
	}
	Settle(t, s.e)

	if _, err := s.e.GetSegment(ctx, segs[0], admin); !errors.Is(err, search.ErrNotFound) {
		t.Fatalf("deleted segment: %v", err)
	}
	if r := s.searchSegments(t, search.SegmentRequest{Filters: byItem}, admin); r.TotalHits != 0 {
		t.Fatalf("deleted segments found: %d", r.TotalHits)
	}

	// Reset forgets documents, segments and learnt fields.
	if err := s.e.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if got := total(search.Request{}, admin); got != 0 {
		t.Fatalf("after reset: %d", got)
	}
	if got := total(search.Request{Filters: termFilter(term("type", "video"))}, admin); got != 0 {
		t.Fatalf("after reset, base field filter: %d", got)
	}
	// (sensor was only learnt; mediainfo may be declared, by the
	// extractors the test binary links.)
	_, err := s.e.Search(ctx, search.Request{Filters: termFilter(term("sensor.conditions", "sunny"))}, admin)
	expectInvalid(t, err, "sensor.conditions")
	all := search.SegmentFilters{Ranges: []search.Range{{Field: "time", From: "0"}}}
	if r := s.searchSegments(t, search.SegmentRequest{Filters: &all}, admin); r.TotalHits != 0 {
		t.Fatalf("segments after reset: %d", r.TotalHits)
	}
	a, err := s.e.Analytics(ctx, admin)
	if err != nil || len(a.FilesByCategory) != 0 {
		t.Fatalf("analytics after reset: %+v %v", a, err)
	}
	// And works again afterwards.
	Load(t, s.e, s.c)
	if got := total(search.Request{}, admin); got != n {
		t.Fatalf("reloaded %d, want %d", got, n)
	}
	if got := total(search.Request{Filters: termFilter(term("mediainfo.video.codec", "h264"))}, admin); got == 0 {
		t.Fatal("reloaded: no h264")
	}
}

func (s *suite) segmentsOf(itemID string) []string {
	var out []string
	for _, seg := range s.c.Segments {
		if seg.ItemID == itemID {
			out = append(out, seg.ID)
		}
	}
	return out
}

func clone(d search.Document) search.Document {
	c := search.Document{}
	for k, v := range d {
		c[k] = v
	}
	return c
}
