package meili

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/internal/jsonleaf"
	"github.com/metaharvest/metaharvest/search"
)

// The translation of documents, settings and plans into Meilisearch terms.
// Everything here is a pure function, tested without a server.

// publicGroup stands for "no group" in the visibility lists: Meilisearch
// filters cannot test an empty array portably, so an unrestricted list holds
// this one value, which every caller's filter accepts. Group ids are hex and
// never collide with it.
const publicGroup = "__public__"

// datesField holds the instants of date-valued fields (epoch seconds by
// path), which ranges, sorts and numeric aggregations on dates use.
const datesField = "_dates"

// Highlight and crop settings of searches.
const (
	cropLength = 24
	cropMarker = "…"
)

// quote renders a string as a Meilisearch filter value (or attribute name):
// double-quoted, backslashes and double quotes escaped, which is how its
// filter parser unescapes them.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func groupsOrPublic(g []string) []string {
	if len(g) == 0 {
		return []string{publicGroup}
	}
	return g
}

// document turns a prepared document into the one Meilisearch stores.
func document(p *search.Prepared) map[string]any {
	m := make(map[string]any, len(p.Public)+3)
	for k, v := range p.Public {
		m[k] = v
	}
	m[search.FieldLocationGroups] = groupsOrPublic(p.LocationGroups)
	m[search.FieldContainerGroups] = groupsOrPublic(p.ContainerGroups)
	if len(p.Dates) > 0 {
		d := make(map[string]any, len(p.Dates))
		for path, secs := range p.Dates {
			d[path] = secs
		}
		m[datesField] = d
	}
	return m
}

// attr is the attribute a kind of comparison reads: dates compare their
// instants under _dates.
func attr(field string, kind search.Kind) string {
	if kind == search.KindDate {
		return datesField + "." + field
	}
	return field
}

// existsExpr: some leaf holds a value (not null, not empty), as the Postgres
// backend's flat map has only non-empty values.
func existsExpr(leaves []string) string {
	var ors []string
	for _, l := range leaves {
		q := quote(l)
		ors = append(ors, fmt.Sprintf("(%s EXISTS AND NOT %s IS NULL AND NOT %s IS EMPTY)", q, q, q))
	}
	if len(ors) == 0 {
		return nothing
	}
	return "(" + strings.Join(ors, " OR ") + ")"
}

// nothing is a condition no document meets.
var nothing = quote(search.FieldID) + " IN []"

// filter renders the plan's conditions and the caller's visibility as one
// filter expression ("" when there is none).
func filter(p *search.Plan, vis search.Visibility) string {
	var and []string
	if !vis.All {
		groups := quoteList(append([]string{publicGroup}, vis.GroupIDs...))
		and = append(and,
			fmt.Sprintf("%s IN %s", quote(search.FieldLocationGroups), groups),
			fmt.Sprintf("%s IN %s", quote(search.FieldContainerGroups), groups))
	}
	if len(p.Types) > 0 {
		and = append(and, fmt.Sprintf("%s IN %s", quote(search.FieldType), quoteList(p.Types)))
	}
	for _, t := range p.Terms {
		var vals []string
		for _, v := range t.Values {
			if v != "" { // an empty string is no value
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			and = append(and, nothing)
			continue
		}
		and = append(and, fmt.Sprintf("%s IN %s", quote(t.Field), quoteList(vals)))
	}
	for _, r := range p.Ranges {
		a := quote(attr(r.Field, r.Kind))
		var parts []string
		if r.From != nil {
			parts = append(parts, fmt.Sprintf("%s >= %s", a, number(r.From.Seconds())))
		}
		if r.To != nil {
			parts = append(parts, fmt.Sprintf("%s <= %s", a, number(r.To.Seconds())))
		}
		and = append(and, "("+strings.Join(parts, " AND ")+")")
	}
	for _, e := range p.Exists {
		and = append(and, existsExpr(e.Leaves))
	}
	for _, e := range p.NotExists {
		and = append(and, "NOT "+existsExpr(e.Leaves))
	}
	if p.Keyset && p.After != "" {
		// Strings compare lexicographically (ids are lower-case hex).
		and = append(and, fmt.Sprintf("%s > %s", quote(search.FieldID), quote(p.After)))
	}
	return strings.Join(and, " AND ")
}

// sortRules renders the sort keys ("field:asc"; dates by instant).
func sortRules(p *search.Plan) []string {
	var out []string
	for _, k := range p.Sort {
		dir := "desc"
		if k.Asc {
			dir = "asc"
		}
		out = append(out, attr(k.Field, k.Kind)+":"+dir)
	}
	return out
}

// facetAttrs lists the attributes whose distributions the aggregations read.
func facetAttrs(p *search.Plan) []string {
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, m := range p.Metrics {
		add(attr(m.Field, m.Kind))
	}
	for _, t := range p.TermsAggs {
		add(t.Field)
	}
	for _, h := range p.Histograms {
		add(attr(h.Field, h.Kind))
	}
	return out
}

// searchRequest translates a plan. defaultSort orders results when neither
// a query nor sort keys do.
func searchRequest(index string, p *search.Plan, vis search.Visibility, defaultSort []string) *meilisearch.SearchRequest {
	perPage := int64(p.Limit)
	req := &meilisearch.SearchRequest{
		IndexUID:             index,
		Query:                p.Query,
		Filter:               filter(p, vis),
		Sort:                 sortRules(p),
		Page:                 int64(p.Page) + 1,
		HitsPerPage:          &perPage,
		ShowRankingScore:     true,
		MatchingStrategy:     meilisearch.All,
		AttributesToSearchOn: p.SearchFields,
		Facets:               facetAttrs(p),
	}
	if req.Filter == "" {
		req.Filter = nil
	}
	if len(req.Sort) == 0 && p.Query == "" {
		req.Sort = defaultSort
	}
	if p.Keyset {
		// A cursor's page: by _id (the sort rule ranks first), from
		// offset 0 with a limit, which counts no exhaustive total, and
		// without scores or highlights.
		req.Sort = []string{search.FieldID + ":asc"}
		req.Page, req.HitsPerPage, req.Offset, req.Limit = 0, nil, 0, perPage
		req.ShowRankingScore = false
		if len(p.Only) > 0 {
			req.AttributesToRetrieve = append([]string{search.FieldID}, p.Only...)
		}
		return req
	}
	if p.Query != "" && p.Limit > 0 {
		fields := p.SearchFields
		if len(fields) == 0 {
			fields = []string{"*"}
		}
		req.AttributesToHighlight = fields
		req.AttributesToCrop = fields
		req.CropLength = cropLength
		req.CropMarker = cropMarker
		req.HighlightPreTag = search.HighlightPre
		req.HighlightPostTag = search.HighlightPost
	}
	return req
}

// hitCountRequests are the extra queries of hit counts: the same search with
// one more condition each, counting only.
func hitCountRequests(index string, p *search.Plan, vis search.Visibility) ([]*meilisearch.SearchRequest, []string) {
	var reqs []*meilisearch.SearchRequest
	var types []string
	base := filter(p, vis)
	for _, hc := range p.HitCounts {
		if len(hc.Leaves) == 0 {
			continue
		}
		f := existsExpr(hc.Leaves)
		if base != "" {
			f = base + " AND " + f
		}
		zero := int64(0)
		reqs = append(reqs, &meilisearch.SearchRequest{
			IndexUID: index, Query: p.Query, Filter: f, Page: 1, HitsPerPage: &zero,
			MatchingStrategy: meilisearch.All, AttributesToSearchOn: p.SearchFields,
		})
		types = append(types, hc.Type)
	}
	return reqs, types
}

// decodeHit reads a hit: the public document, its score and highlights.
func decodeHit(h meilisearch.Hit, p *search.Plan) (doc map[string]any, score float64, hl []search.Highlight, err error) {
	doc = make(map[string]any, len(h))
	for k, raw := range h {
		switch k {
		case "_rankingScore":
			if err := json.Unmarshal(raw, &score); err != nil {
				return nil, 0, nil, fmt.Errorf("decode ranking score: %w", err)
			}
			continue
		case "_formatted":
			var f map[string]any
			if err := decodeJSON(raw, &f); err != nil {
				return nil, 0, nil, fmt.Errorf("decode highlights: %w", err)
			}
			hl = highlights(f, p.SearchFields)
			continue
		}
		if strings.HasPrefix(k, "_") && k != search.FieldID {
			continue
		}
		var v any
		if err := decodeJSON(raw, &v); err != nil {
			return nil, 0, nil, fmt.Errorf("decode field %s: %w", k, err)
		}
		doc[k] = v
	}
	score = math.Max(0, math.Min(1, score))
	if p.Query == "" || p.Keyset {
		score = 1
	}
	if hl == nil {
		hl = []search.Highlight{}
	}
	return search.Project(doc, p.Only), score, hl, nil
}

func decodeJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// highlights reads the highlighted copy of a document: every searchable
// string holding a highlight tag is a fragment of its field.
func highlights(formatted map[string]any, only []string) []search.Highlight {
	byField := map[string][]string{}
	jsonleaf.Walk(formatted, func(l jsonleaf.Leaf) {
		x, ok := l.Value.(string)
		path := l.Path
		// Searchable leaves out the internal fields ("_id", "_location_groups").
		if ok && strings.Contains(x, search.HighlightPre) && search.Searchable(path) &&
			(len(only) == 0 || contains(only, path)) {
			byField[path] = append(byField[path], x)
		}
	})
	out := []search.Highlight{}
	for f, frags := range byField {
		out = append(out, search.Highlight{Field: f, Fragments: frags})
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Field == search.FieldName) != (out[j].Field == search.FieldName) {
			return out[i].Field == search.FieldName
		}
		return out[i].Field < out[j].Field
	})
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

type facetStat struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// aggregations computes the plan's aggregations from facet distributions
// and stats. Averages, sums and histograms are exact while a field has at
// most maxValuesPerFacet distinct values among the matches.
func aggregations(p *search.Plan, distRaw, statsRaw json.RawMessage) (*search.AggregationResults, error) {
	if len(p.Metrics)+len(p.TermsAggs)+len(p.Histograms) == 0 {
		return nil, nil
	}
	dist := map[string]map[string]int64{}
	if len(distRaw) > 0 {
		if err := json.Unmarshal(distRaw, &dist); err != nil {
			return nil, fmt.Errorf("decode facet distribution: %w", err)
		}
	}
	stats := map[string]facetStat{}
	if len(statsRaw) > 0 {
		if err := json.Unmarshal(statsRaw, &stats); err != nil {
			return nil, fmt.Errorf("decode facet stats: %w", err)
		}
	}
	out := &search.AggregationResults{}
	if len(p.Metrics) > 0 {
		out.Metrics = map[string]*float64{}
	}
	for _, m := range p.Metrics {
		a := attr(m.Field, m.Kind)
		var v *float64
		set := func(f float64) { v = &f }
		switch m.Type {
		case search.MetricCardinality:
			set(float64(len(dist[m.Field])))
		case search.MetricMin:
			if s, ok := stats[a]; ok {
				set(s.Min)
			}
		case search.MetricMax:
			if s, ok := stats[a]; ok {
				set(s.Max)
			}
		case search.MetricSum, search.MetricAvg:
			var sum float64
			var n int64
			for k, c := range dist[a] {
				if f, ok := search.ParseNumber(k); ok {
					sum += f * float64(c)
					n += c
				}
			}
			if m.Type == search.MetricSum {
				set(sum)
			} else if n > 0 {
				set(sum / float64(n))
			}
		}
		out.Metrics[m.Name] = v
	}
	if len(p.TermsAggs) > 0 {
		out.Terms = map[string]search.TermsResult{}
	}
	for _, t := range p.TermsAggs {
		buckets, others := search.TopBuckets(dist[t.Field], t.Size)
		out.Terms[t.Name] = search.TermsResult{Buckets: buckets, OthersCount: others}
	}
	if len(p.Histograms) > 0 {
		out.Histograms = map[string]search.HistogramResult{}
	}
	for _, h := range p.Histograms {
		counts := map[int64]int64{}
		for k, c := range dist[attr(h.Field, h.Kind)] {
			f, ok := search.ParseNumber(k)
			if !ok || math.Abs(f/float64(h.Interval)) >= 9e15 {
				continue
			}
			counts[search.HistogramKey(f, h.Interval)] += c
		}
		buckets, err := search.HistogramBuckets(h.Name, counts, h.Interval, h.MinCount)
		if err != nil {
			return nil, err
		}
		out.Histograms[h.Name] = search.HistogramResult{Buckets: buckets}
	}
	return out, nil
}
