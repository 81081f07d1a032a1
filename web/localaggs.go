package web

import (
	"context"
	"math"
	"strconv"

	"github.com/metaharvest/metaharvest/search"
)

// Facets over extracted data cost the engine one statement each, and each
// statement evaluates the query again (with words, tens of ms at 10k
// documents). Up to autoFacetLimit results, the page fetches the matching
// documents' facet fields in one request instead and counts them here the
// way the engine's aggregations do (search.TopBuckets,
// search.HistogramBuckets: a document counts once per distinct value).

// localAggregations runs req's words and filters for every matching
// document (at most autoFacetLimit) and computes aggs over them.
func (u *UI) localAggregations(ctx context.Context, req search.Request, aggs *search.Aggregations, vis search.Visibility) (*search.AggregationResults, error) {
	only := []string{search.FieldID}
	for _, t := range aggs.Terms {
		only = append(only, t.Field)
	}
	for _, h := range aggs.Histograms {
		only = append(only, h.Field)
	}
	req.Limit, req.Page, req.Only, req.SortFields, req.HitCounts, req.Aggregations = autoFacetLimit, 0, only, nil, nil, nil
	res, err := u.Search.Search(ctx, req, vis)
	if err != nil {
		return nil, err
	}
	docs := make([]map[string]any, len(res.Results))
	for i, r := range res.Results {
		docs[i] = r.Result
	}
	return aggregate(docs, aggs)
}

// aggregate computes terms aggregations and histograms over documents.
func aggregate(docs []map[string]any, aggs *search.Aggregations) (*search.AggregationResults, error) {
	out := &search.AggregationResults{Terms: map[string]search.TermsResult{}, Histograms: map[string]search.HistogramResult{}}
	for _, t := range aggs.Terms {
		counts := map[string]int64{}
		for _, d := range docs {
			seen := map[string]bool{}
			for _, v := range values(d, t.Field) {
				k := scalarKey(v)
				if k != "" && !seen[k] {
					seen[k] = true
					counts[k]++
				}
			}
		}
		size := t.Size
		if size <= 0 {
			size = search.DefaultTermsSize
		}
		buckets, others := search.TopBuckets(counts, size)
		out.Terms[t.Name] = search.TermsResult{Buckets: buckets, OthersCount: others}
	}
	for _, h := range aggs.Histograms {
		counts := map[int64]int64{}
		for _, d := range docs {
			seen := map[int64]bool{}
			for _, v := range values(d, h.Field) {
				x, ok := numericValue(v)
				if !ok || math.Abs(x/float64(h.Interval)) >= 9e15 {
					continue
				}
				k := search.HistogramKey(x, h.Interval)
				if !seen[k] {
					seen[k] = true
					counts[k]++
				}
			}
		}
		buckets, err := search.HistogramBuckets(h.Name, counts, h.Interval, h.MinCount)
		if err != nil {
			return nil, err
		}
		out.Histograms[h.Name] = search.HistogramResult{Buckets: buckets}
	}
	return out, nil
}

// values are the scalars at a dotted path, lists flattened at any level.
func values(v any, path string) []any {
	var out []any
	var walk func(v any, rest string)
	walk = func(v any, rest string) {
		if l, ok := v.([]any); ok {
			for _, e := range l {
				walk(e, rest)
			}
			return
		}
		if rest == "" {
			if v != nil {
				out = append(out, v)
			}
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		key, next := rest, ""
		for i := 0; i < len(rest); i++ {
			if rest[i] == '.' {
				key, next = rest[:i], rest[i+1:]
				break
			}
		}
		walk(m[key], next)
	}
	walk(v, path)
	return out
}

// scalarKey is a value as a terms bucket's key ("" for objects and the
// empty string).
func scalarKey(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		return ""
	}
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return ""
}

// numericValue reads a number, or a date as seconds since the epoch.
func numericValue(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		if t, ok := search.ParseDateValue(s); ok {
			return float64(t.Unix()), true
		}
		return 0, false
	}
	return number(v)
}
