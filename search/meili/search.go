package meili

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/search"
)

// segmentOrder orders segments when neither a query nor sort keys do.
var segmentOrder = []string{"time:asc"}

// Search runs an item search.
func (e *Engine) Search(ctx context.Context, req search.Request, vis search.Visibility) (*search.Response, error) {
	now := time.Now()
	plan, err := e.plan(ctx, search.ScopeItems, func(cat *search.Catalogue) (*search.Plan, error) {
		return search.Compile(req, cat, now)
	})
	if err != nil {
		return nil, err
	}
	digestQuery(plan)
	res, err := e.execute(ctx, e.items, plan, vis, nil)
	if err != nil {
		return nil, err
	}
	res.Query, res.Filters = req.Query, req.Filters
	return res, nil
}

// digestQuery turns a query that is one digest, as pasted, into a filter on
// its field: digests are not searchable words in this backend (each is a
// word no other document has, and Meilisearch rebuilds its word index with
// every batch), so a query for one finds the items that have it, and not
// other documents whose text holds it (the Postgres backend finds both).
func digestQuery(p *search.Plan) {
	if field, digest, ok := search.DigestQuery(p.Query); ok {
		p.Query = ""
		p.Terms = append(p.Terms, search.TermCond{Field: field, Values: []string{digest}})
	}
}

// SearchSegments runs a segment search.
func (e *Engine) SearchSegments(ctx context.Context, req search.SegmentRequest, vis search.Visibility) (*search.SegmentResponse, error) {
	now := time.Now()
	plan, err := e.plan(ctx, search.ScopeSegments, func(cat *search.Catalogue) (*search.Plan, error) {
		return search.CompileSegments(req, cat, now)
	})
	if err != nil {
		return nil, err
	}
	res, err := e.execute(ctx, e.segments, plan, vis, segmentOrder)
	if err != nil {
		return nil, err
	}
	resp := search.NewSegmentResponse(req, plan)
	resp.TotalHits = res.TotalHits
	for _, r := range res.Results {
		resp.Results = append(resp.Results, search.SegmentResult{Result: r.Result, Score: r.Score})
	}
	return resp, nil
}

// GetSegment returns one segment.
func (e *Engine) GetSegment(ctx context.Context, id string, vis search.Visibility) (*search.Segment, error) {
	if !validID(id) {
		// Meilisearch ids are [A-Za-z0-9_-]; anything else is not stored, and
		// must not reach the URL path the client builds from it.
		return nil, search.ErrNotFound
	}
	var raw map[string]json.RawMessage
	if err := e.client.Index(e.segments).GetDocumentWithContext(ctx, id, nil, &raw); err != nil {
		if isNotFound(err) {
			return nil, search.ErrNotFound
		}
		return nil, wrapErr(fmt.Errorf("get segment %s: %w", id, err))
	}
	var groups struct {
		LG []string `json:"_location_groups"`
		CG []string `json:"_container_groups"`
	}
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &groups); err != nil {
		return nil, fmt.Errorf("get segment %s: %w", id, err)
	}
	lg, cg := withoutPublic(groups.LG), withoutPublic(groups.CG)
	if !vis.Allows(lg, cg) {
		return nil, search.ErrNotVisible
	}
	seg, err := search.DecodeSegment(b)
	if err != nil {
		return nil, err
	}
	seg.LocationGroups, seg.ContainerGroups = lg, cg
	return seg, nil
}

// Analytics counts the visible documents by category.
func (e *Engine) Analytics(ctx context.Context, vis search.Visibility) (*search.Analytics, error) {
	cat, _, err := e.catalogue(ctx, search.ScopeItems, false)
	if err != nil {
		return nil, err
	}
	res, err := e.execute(ctx, e.items, search.AnalyticsPlan(cat), vis, nil)
	if err != nil {
		return nil, err
	}
	return search.AnalyticsFromResponse(res), nil
}

// plan compiles with the cached catalogue, and again with a fresh one when
// the request is refused (another process may know the field).
func (e *Engine) plan(ctx context.Context, scope search.Scope, compile func(*search.Catalogue) (*search.Plan, error)) (*search.Plan, error) {
	cat, fresh, err := e.catalogue(ctx, scope, false)
	if err != nil {
		return nil, err
	}
	p, err := compile(cat)
	if _, invalid := apperr.As(err); invalid && !fresh {
		if cat, _, err = e.catalogue(ctx, scope, true); err != nil {
			return nil, err
		}
		p, err = compile(cat)
	}
	if err != nil {
		return nil, err
	}
	c, _, err := e.cached(ctx, scope, false)
	if err != nil {
		return nil, err
	}
	return p, e.allowed(scope, p, c.seen)
}

// allowed refuses (400) a plan that filters, sorts or aggregates on a field
// the index was not declared to filter or sort (fields.go); exists
// conditions and hit counts look at the leaves that filter only.
//
// A search restricted to fields is restricted to those some document has
// had (Meilisearch refuses the others, which match nothing anyway).
func (e *Engine) allowed(scope search.Scope, p *search.Plan, seen map[string]bool) error {
	s := e.indexSettingsOf(scope)
	if s == nil {
		return nil
	}
	bad := map[string]string{}
	const why = "%s does not filter, sort or aggregate with the Meilisearch backend (only declared fields do)"
	check := func(key, field string, kind search.Kind) {
		if !s.filters(attr(field, kind)) {
			bad[key] = fmt.Sprintf(why, field)
		}
	}
	for _, t := range p.Terms {
		check("filters", t.Field, 0)
	}
	for _, r := range p.Ranges {
		check("filters", r.Field, r.Kind)
	}
	leaves := func(key string, conds []search.ExistsCond) {
		for i, c := range conds {
			var keep []string
			for _, l := range c.Leaves {
				if s.filters(l) {
					keep = append(keep, l)
				}
			}
			if len(keep) == 0 && len(c.Leaves) > 0 {
				bad[key] = fmt.Sprintf(why, c.Field)
			}
			conds[i].Leaves = keep
		}
	}
	leaves("filters", p.Exists)
	leaves("filters", p.NotExists)
	for i, hc := range p.HitCounts {
		var keep []string
		for _, l := range hc.Leaves {
			if s.filters(l) {
				keep = append(keep, l)
			}
		}
		p.HitCounts[i].Leaves = keep
	}
	if len(p.SearchFields) > 0 {
		var keep []string
		for _, f := range p.SearchFields {
			if !s.searches(f) {
				bad["fields"] = fmt.Sprintf("%s is not searched as text with the Meilisearch backend (only declared fields are)", f)
			} else if seen[f] {
				keep = append(keep, f)
			}
		}
		if len(keep) == 0 {
			// No document has any of them: nothing matches.
			p.Terms = append(p.Terms, search.TermCond{Field: search.FieldID})
		}
		p.SearchFields = keep
	}
	for _, k := range p.Sort {
		if !s.sorts(attr(k.Field, k.Kind)) {
			bad["sort_fields"] = fmt.Sprintf("%s does not sort with the Meilisearch backend (only declared fields that are not long text do)", k.Field)
		}
	}
	for _, m := range p.Metrics {
		check("aggregations", m.Field, m.Kind)
	}
	for _, t := range p.TermsAggs {
		check("aggregations", t.Field, 0)
	}
	for _, h := range p.Histograms {
		check("aggregations", h.Field, h.Kind)
	}
	if len(bad) > 0 {
		return apperr.Invalid(bad)
	}
	return nil
}

// execute runs the search and, in the same multi-search, one counting query
// per hit-count type.
func (e *Engine) execute(ctx context.Context, index string, p *search.Plan, vis search.Visibility, defaultSort []string) (*search.Response, error) {
	main := searchRequest(index, p, vis, defaultSort)
	extra, types := hitCountRequests(index, p, vis)
	queries := append([]*meilisearch.SearchRequest{main}, extra...)
	mres, err := e.client.MultiSearchWithContext(ctx, &meilisearch.MultiSearchRequest{Queries: queries})
	if err != nil {
		return nil, wrapErr(fmt.Errorf("search %s: %w", index, err))
	}
	if len(mres.Results) != len(queries) {
		return nil, fmt.Errorf("search %s: %d results for %d queries", index, len(mres.Results), len(queries))
	}
	r := mres.Results[0]
	resp := &search.Response{Limit: p.Limit, Page: p.Page, TotalHits: r.TotalHits, Results: []search.Result{}}
	if p.Keyset {
		resp.TotalHits = 0 // a cursor's pages count nothing (search.Cursor)
	}
	for _, h := range r.Hits {
		doc, score, hl, err := decodeHit(h, p)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", index, err)
		}
		resp.Results = append(resp.Results, search.Result{Result: doc, Highlight: hl, Score: score})
	}
	if resp.Aggregations, err = aggregations(p, r.FacetDistribution, r.FacetStats); err != nil {
		return nil, err
	}
	if p.WantHitCounts {
		resp.HitCounts = map[string]int64{}
		for i, t := range types {
			if n := mres.Results[i+1].TotalHits; n > 0 {
				resp.HitCounts[t] = n
			}
		}
	}
	return resp, nil
}

// validID reports whether id can be a Meilisearch document id.
func validID(id string) bool {
	if id == "" || len(id) > 511 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
